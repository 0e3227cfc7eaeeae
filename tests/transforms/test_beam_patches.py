"""The remembered get_dofn_specs gives Beam the same answers, so stateful DoFns still run as such."""
import types

import apache_beam as beam
from apache_beam.coders import VarIntCoder
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import userstate
from apache_beam.transforms.core import CallableWrapperDoFn, _SubprocessDoFn

import transforms  # noqa: F401  (installs the patch, as every use of our transforms does)
from pipelines.local import LocalRunner


class RunningTotal(beam.DoFn):
    TOTAL = userstate.ReadModifyWriteStateSpec('total', VarIntCoder())

    def process(self, element, total=beam.DoFn.StateParam(TOTAL)):
        key, value = element
        running = (total.read() or 0) + value
        total.write(running)
        yield key, running


def test_specs_are_remembered_per_instance_and_equal_to_beams():
    assert userstate.get_dofn_specs.remembers_per_instance
    original = userstate.get_dofn_specs.__wrapped__
    stateful, plain = RunningTotal(), beam.Map(lambda x: x).fn
    for dofn in (stateful, plain):
        assert userstate.get_dofn_specs(dofn) == original(dofn)
        assert userstate.get_dofn_specs(dofn) is userstate.get_dofn_specs(dofn)
    assert userstate.is_stateful_dofn(stateful) and not userstate.is_stateful_dofn(plain)


class Holder:
    """Methods a DoFn can wrap bound (CallableWrapperDoFn keeps one as its process), one with a state parameter."""
    TOTAL = userstate.ReadModifyWriteStateSpec('total', VarIntCoder())

    def with_state(self, element, total=beam.DoFn.StateParam(TOTAL)):
        return element

    def plain(self, element):
        return element


def test_specs_are_kept_per_class_and_the_bound_methods_an_instance_holds():
    remembered, original = userstate.get_dofn_specs, userstate.get_dofn_specs.__wrapped__
    first, second = RunningTotal(), RunningTotal()  # every bundle unpickles its DoFns afresh
    assert remembered(first) is remembered(second) and remembered(first) == original(second)
    holder = Holder()
    with_state, plain = CallableWrapperDoFn(holder.with_state), CallableWrapperDoFn(holder.plain)
    assert remembered(with_state) == original(with_state) and remembered(plain) == original(plain)
    assert original(with_state) != original(plain)
    hiding = RunningTotal()
    hiding.process = None  # hides the class's process, and its state parameter with it
    assert remembered(hiding) == original(hiding) != original(first)
    wrapper = _SubprocessDoFn(RunningTotal())  # its attributes come from the DoFn it wraps
    assert remembered(wrapper) == original(wrapper)


class PropertyProcess(beam.DoFn):
    """A property gives each instance its own process, with a state parameter or without."""

    def __init__(self, stateful):
        self.stateful = stateful

    @property
    def process(self):
        return Holder().with_state if self.stateful else Holder().plain


class Unhashable:
    """A callable whose bound methods have a __func__ that cannot be hashed."""
    __hash__ = None

    def __call__(self, element):
        return element


def test_specs_that_can_differ_between_instances_of_a_class_are_kept_per_instance():
    remembered, original = userstate.get_dofn_specs, userstate.get_dofn_specs.__wrapped__
    with_property, without_property = PropertyProcess(True), PropertyProcess(False)
    assert remembered(with_property) == original(with_property) != original(without_property)
    assert remembered(without_property) == original(without_property)
    holder, spec = Holder(), (['element', 'total'], [beam.DoFn.StateParam(Holder.TOTAL)])
    declared, plain = CallableWrapperDoFn(holder.plain, fullargspec=spec), CallableWrapperDoFn(holder.plain)
    assert remembered(declared) == original(declared) != original(plain)  # read through _inspect_process
    assert remembered(plain) == original(plain)
    holding = RunningTotal()
    holding.extra = types.MethodType(Unhashable(), holding)
    assert remembered(holding) == original(holding)
    assert all(isinstance(specs, frozenset) for specs in remembered(RunningTotal()))  # shared: not to be changed


def test_a_stateful_dofn_still_keeps_its_state():
    with beam.Pipeline(runner=LocalRunner()) as pipeline:
        totals = (pipeline | beam.Create([('a', 1), ('a', 2), ('a', 3)])
                  | beam.ParDo(RunningTotal()) | beam.Map(lambda kv: kv[1]))
        assert_that(totals | beam.combiners.Top.Of(1), equal_to([[6]]))


def test_options_views_are_remembered_and_share_the_options_values():
    from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions
    assert PipelineOptions.view_as.remembers_per_instance
    original = PipelineOptions.view_as.__wrapped__
    options = PipelineOptions(['--runner=DirectRunner', '--direct_num_workers=2'])
    direct = options.view_as(DirectOptions)
    assert direct is options.view_as(DirectOptions)
    assert direct.direct_num_workers == original(options, DirectOptions).direct_num_workers == 2
    direct.direct_num_workers = 3  # a change through one view is the options' change
    assert original(options, DirectOptions).direct_num_workers == 3
    assert options.get_all_options()['direct_num_workers'] == 3
    assert options.view_as(StandardOptions).runner == 'DirectRunner'
    assert PipelineOptions([]).view_as(DirectOptions).direct_num_workers == 1  # another options object

"""The remembered get_dofn_specs gives Beam the same answers, so stateful DoFns still run as such."""
import apache_beam as beam
from apache_beam.coders import VarIntCoder
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import userstate

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

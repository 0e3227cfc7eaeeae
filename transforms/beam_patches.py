"""Two measured inefficiencies of the pinned Beam (2.77), worked around.

* `apache_beam.transforms.userstate.get_dofn_specs(dofn)` looks for state and timer parameters
  by taking `inspect.signature` of every method of the DoFn, and Beam calls it about 14 times for
  each DoFn instance (pipeline translation, stage fusion, every bundle's operations): ~1,400
  calls and ~2.4 CPU-s for one crawl round's ~100 ParDos. The answer depends only on the DoFn's
  class and the bound methods its instance holds (beam.Map(obj.method) keeps one), so it is kept
  per class and those methods: every bundle unpickles its DoFns afresh, and kept per instance,
  the ~160 DoFns a round's bundles made were each inspected again (~3.5 M instructions each, 7%
  of a 10-page round's). A DoFn whose attributes can come from elsewhere (a __getattribute__,
  __getattr__ or __dir__ of its own: Beam's wrappers that delegate to another DoFn) is kept per
  instance.
* `PipelineOptions.view_as(cls)` parses the command line again with every option class Beam
  knows (~0.5 ms) each time it is called, ~700 times in building and running a round: 0.37 of a
  10-page round's 3.4 CPU-s. Every view of an options object reads and writes the object's one
  dictionary of values, and its flags do not change, so the view of each class is kept per
  options object.

Answers are kept weakly (DoFns and options come and go with bundles and pipelines). Imported by
transforms/__init__.py, so the driver and every worker that unpickles one of our DoFns run with
it; with another Beam that lacks a function, it is left alone.
"""
import functools
import types
import weakref

from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.transforms import userstate


def _remembered_per_instance(function):
    """`function(instance, *args)` computed once per instance and arguments."""
    answers = weakref.WeakKeyDictionary()

    @functools.wraps(function)
    def remembered(instance, *args):
        try:
            known = answers.setdefault(instance, {})
        except TypeError:  # not weakly referenceable or not hashable: ask every time
            return function(instance, *args)
        try:
            return known[args]
        except KeyError:
            known[args] = answer = function(instance, *args)
            return answer
    remembered.remembers_per_instance = True
    return remembered


def _dofn_class_key(dofn) -> tuple | None:
    """What get_dofn_specs' answer for `dofn` depends on: its class, the bound methods its instance
    holds, and which of its class's attributes the instance hides; None when its attributes can
    come from elsewhere than its class and its own dictionary."""
    kind = type(dofn)
    if (kind.__getattribute__ is not object.__getattribute__ or kind.__dir__ is not object.__dir__
            or hasattr(kind, '__getattr__')):
        return None
    try:
        own = vars(dofn)
    except TypeError:  # __slots__: no dictionary to read
        return None
    return (kind, tuple((name, value.__func__) for name, value in own.items() if isinstance(value, types.MethodType)),
            frozenset(name for name in own if hasattr(kind, name)))


def _remembered_per_dofn_class(get_dofn_specs):
    """get_dofn_specs(dofn) computed once per _dofn_class_key, else once per instance."""
    by_class, per_instance = {}, _remembered_per_instance(get_dofn_specs)

    @functools.wraps(get_dofn_specs)
    def remembered(dofn):
        key = _dofn_class_key(dofn)
        if key is None:
            return per_instance(dofn)
        try:
            return by_class[key]
        except KeyError:
            answer = by_class[key] = get_dofn_specs(dofn)
            return answer
    remembered.remembers_per_instance = True
    return remembered


def install() -> None:
    for owner, name, remember in ((userstate, 'get_dofn_specs', _remembered_per_dofn_class),
                                  (PipelineOptions, 'view_as', _remembered_per_instance)):
        original = getattr(owner, name, None)
        if original is not None and not getattr(original, 'remembers_per_instance', False):
            setattr(owner, name, remember(original))

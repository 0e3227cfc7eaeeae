"""Two measured inefficiencies of the pinned Beam (2.77), worked around.

* `apache_beam.transforms.userstate.get_dofn_specs(dofn)` looks for state and timer parameters
  by taking `inspect.signature` of every method of the DoFn, and Beam calls it about 14 times for
  each DoFn instance (pipeline translation, stage fusion, every bundle's operations): ~1,400
  calls and ~2.4 CPU-s for one crawl round's ~100 ParDos. A DoFn's methods do not change once it
  is built, so the answer is kept per instance.
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


def install() -> None:
    for owner, name in ((userstate, 'get_dofn_specs'), (PipelineOptions, 'view_as')):
        original = getattr(owner, name, None)
        if original is not None and not getattr(original, 'remembers_per_instance', False):
            setattr(owner, name, _remembered_per_instance(original))

"""One measured inefficiency of the pinned Beam (2.77), worked around.

`apache_beam.transforms.userstate.get_dofn_specs(dofn)` looks for state and timer parameters by
taking `inspect.signature` of every method of the DoFn, and Beam calls it about 14 times for each
DoFn instance (pipeline translation, stage fusion, every bundle's operations): ~1,400 calls and
~2.4 CPU-s for one crawl round's ~100 ParDos, most of a small round's cost. A DoFn's methods do
not change once it is built, so the answer is kept per instance (weakly: instances come and go
with bundles). Imported by transforms/__init__.py, so the driver and every worker that unpickles
one of our DoFns run with it; with another Beam that lacks the function, nothing is changed.
"""
import functools
import weakref

from apache_beam.transforms import userstate


def _remembered_per_instance(get_dofn_specs):
    answers = weakref.WeakKeyDictionary()

    @functools.wraps(get_dofn_specs)
    def remembered(dofn):
        try:
            return answers[dofn]
        except KeyError:
            answers[dofn] = specs = get_dofn_specs(dofn)
            return specs
        except TypeError:  # not weakly referenceable or not hashable: ask every time
            return get_dofn_specs(dofn)
    remembered.remembers_per_instance = True
    return remembered


def install() -> None:
    original = getattr(userstate, 'get_dofn_specs', None)
    if original is not None and not getattr(original, 'remembers_per_instance', False):
        userstate.get_dofn_specs = _remembered_per_instance(original)

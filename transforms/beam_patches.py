"""Two measured inefficiencies of the pinned Beam (2.77), worked around.

* `apache_beam.transforms.userstate.get_dofn_specs(dofn)` looks for state and timer parameters
  by taking `inspect.signature` of every method of the DoFn, and Beam calls it about 14 times for
  each DoFn instance (pipeline translation, stage fusion, every bundle's operations): ~1,400
  calls and ~2.4 CPU-s for one crawl round's ~100 ParDos. For most DoFns the answer depends only on
  the class and the bound methods the instance holds, so it is kept per class and those methods:
  every bundle unpickles its DoFns afresh, and kept per instance, the ~160 DoFns a round's
  bundles made were each inspected again (~3.5 M instructions each, 7% of a 10-page round's).
  The others are kept per instance: a DoFn whose attribute lookup is its own (Beam's wrappers that
  delegate to another DoFn), whose class has a property or another descriptor, or whose inspected
  method goes through an _inspect_<name>() that may read the instance (beam.Map(obj.method)'s).
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

import apache_beam as beam
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


# Class attributes an instance reads the same whatever its state: a function (each instance's
# method of it), static and class methods, the C slots every class has, and plain values. A property
# or another descriptor (__slots__ members among them) may give each instance its own answer.
_SAME_FOR_EVERY_INSTANCE = (types.FunctionType, staticmethod, classmethod, types.WrapperDescriptorType,
                            types.MethodDescriptorType, types.ClassMethodDescriptorType, types.GetSetDescriptorType,
                            types.BuiltinFunctionType)
_INSPECT = '_inspect_'  # Beam reads a method's parameters from _inspect_<name>() when there is one
_DOFN_ATTRIBUTES = {name: value for klass in reversed(beam.DoFn.__mro__) for name, value in vars(klass).items()}


def _class_shape(kind: type) -> tuple[frozenset[str], bool] | None:
    """(the names Beam inspects through an _inspect_<name>() of the class, whether the class's own
    attribute of such a name is a method); None when an instance's attributes may read otherwise
    than its class's for another: attribute lookup of its own (a __getattribute__, __getattr__ or
    __dir__: Beam's wrappers delegate to another DoFn), or a property or another descriptor."""
    if (kind.__getattribute__ is not object.__getattribute__ or kind.__dir__ is not object.__dir__
            or hasattr(kind, '__getattr__')):
        return None
    attributes = {name: value for klass in reversed(kind.__mro__) for name, value in vars(klass).items()}
    if not all(isinstance(value, _SAME_FOR_EVERY_INSTANCE) or not hasattr(type(value), '__get__')
               or value is _DOFN_ATTRIBUTES.get(name)  # DoFn's own properties: flags
               for name, value in attributes.items()):
        return None
    inspected = frozenset(name[len(_INSPECT):] for name in attributes if name.startswith(_INSPECT))
    return inspected, any(isinstance(attributes.get(name), types.FunctionType) for name in inspected)


def _instance_key(dofn, shape: tuple[frozenset[str], bool] | None) -> tuple | None:
    """What get_dofn_specs' answer for `dofn` depends on besides its class (of _class_shape `shape`):
    the bound methods its instance holds and which of its class's attributes the instance hides;
    None when that is not all (attributes that can differ between instances, a method Beam
    inspects through an _inspect_<name>() that may read the instance, no instance dictionary)."""
    if shape is None:
        return None
    try:
        own = vars(dofn)
    except TypeError:
        return None
    inspected, class_method_inspected = shape  # Beam reads such a method through _inspect_<name>()
    if any(isinstance(own[name], types.MethodType) if name in own else class_method_inspected
           for name in inspected):
        return None
    bound = tuple((name, value.__func__) for name, value in own.items() if isinstance(value, types.MethodType))
    if any(hasattr(dofn, _INSPECT + name) for name, _ in bound):
        return None
    return bound, frozenset(name for name in own if hasattr(type(dofn), name))


def _remembered_per_dofn_class(get_dofn_specs):
    """get_dofn_specs(dofn) computed once per class and _instance_key, else once per instance; the
    answer's sets frozen, as one is shared by many DoFns. Classes are held weakly."""
    classes, per_instance = weakref.WeakKeyDictionary(), _remembered_per_instance(get_dofn_specs)

    @functools.wraps(get_dofn_specs)
    def remembered(dofn):
        kind = type(dofn)
        known = classes.get(kind)
        if known is None:
            known = classes[kind] = (_class_shape(kind), {})
        shape, answers = known
        key = _instance_key(dofn, shape)
        if key is None:
            return per_instance(dofn)
        try:
            return answers[key]
        except KeyError:
            answer = answers[key] = tuple(map(frozenset, get_dofn_specs(dofn)))
            return answer
        except TypeError:  # a bound method of something that cannot be hashed
            return per_instance(dofn)
    remembered.remembers_per_instance = True
    return remembered


def install() -> None:
    for owner, name, remember in ((userstate, 'get_dofn_specs', _remembered_per_dofn_class),
                                  (PipelineOptions, 'view_as', _remembered_per_instance)):
        original = getattr(owner, name, None)
        if original is not None and not getattr(original, 'remembers_per_instance', False):
            setattr(owner, name, remember(original))

"""The key a traced function's cache is looked up by, from a call's arguments, as TensorFlow 2.21 keys it.

- tensors by shape and dtype (NumPy arrays and scalars are converted to tensors first); variables too, by shape
  and dtype (the variable passed is an input of the traced program, not part of it);
- Python scalars, strings and ``None`` by value, with Python's equality (``1``, ``1.0`` and ``True`` are one key;
  NaN equals NaN here);
- lists, tuples, namedtuples and dicts by their type, their length or keys, and what they hold;
- composite tensors (``SparseTensor``) by their spec (dense shape and dtype), their components as inputs of the
  shapes the spec allows (any number of entries);
- other objects through a weak reference where they take one (the object itself while it lives: identity,
  or its own ``==``), else by hash and ``==``; an unhashable one is refused with TensorFlow's ``TypeError``.

A key is a nested tuple: ``(TENSOR, shape, dtype)`` and ``(VARIABLE, shape, dtype)`` leaves, ``(LITERAL, value)``,
``(OBJECT, ref)``, and ``(STRUCT, kind, children)``. With ``reduce_retracing`` a key's shapes may hold ``None``
(:func:`relax`), and a call's key is served by any traced key it fits (:func:`fits`).
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .._core.tensor import Tensor, constant_of, convert_to_tensor
from .._core.tensor_spec import TensorSpec

__all__ = ["TENSOR", "VARIABLE", "key_of", "substitute", "fits", "relax", "vagueness"]

TENSOR, VARIABLE, LITERAL, OBJECT, STRUCT = "tensor", "variable", "literal", "object", "struct"
COMPOSITE = "composite"  # a STRUCT key's kind ``(COMPOSITE, spec)``: a composite tensor's components
_SCALARS = (int, float, bool, str, bytes, complex, type(None))


class _NaN:
    """Stands for NaN in keys, where NaN must equal itself."""

    __slots__ = ()

    def __repr__(self):
        return "nan"


_NAN = _NaN()


def key_of(args, kwargs):
    """``(key, tensors, variables)`` of a call bound to its parameters (``args`` a tuple, ``kwargs`` a dict)."""
    tensors, variables = [], []
    key = (STRUCT, "call", (_key(args, tensors, variables), _key(kwargs, tensors, variables)))
    return key, tensors, variables


def _key(value, tensors, variables):
    kind = type(value)
    if kind is TensorSpec:
        # ``get_concrete_function(tf.TensorSpec(...))``: traced on zeros of the spec's shape (1 where unknown).
        dims = value.shape.dims
        shape = [1] if dims is None else [1 if d is None else d for d in dims]
        np_dtype = value.dtype.as_numpy_dtype
        # (strings are ``bytes`` objects: empty ones stand for them, as zeros for numbers)
        tensors.append(constant_of(np.full(shape, b"", object) if np.dtype(np_dtype).kind == "O" else
                                   np.zeros(shape, np_dtype)))
        return (TENSOR, None if dims is None else tuple(dims), np.dtype(value.dtype.as_numpy_dtype))
    if isinstance(value, Tensor):
        tensors.append(value)
        v = value._value
        return (TENSOR, v.shape, v.dtype)
    if getattr(value, "value_type", None) is not None:
        # ``get_concrete_function(tf.SparseTensorSpec(...))``: traced on a stand-in of the spec (one entry).
        return _composite_key(value.value_type._stand_in(value), tensors, value)
    if kind in _SCALARS:
        if kind is float and math.isnan(value):
            return (LITERAL, _NAN)
        return (LITERAL, value)
    if kind is np.ndarray or isinstance(value, np.generic):
        t = convert_to_tensor(value)
        tensors.append(t)
        v = t._value
        return (TENSOR, v.shape, v.dtype)
    if getattr(value, "_tapeflow_variable", False):
        variables.append(value)
        v = value._value
        return (VARIABLE, v.shape, v.dtype)
    if kind is list or kind is tuple or (isinstance(value, tuple) and hasattr(value, "_fields")):
        return (STRUCT, kind, tuple([_key(v, tensors, variables) for v in value]))
    if getattr(value, "_tapeflow_composite", False):
        return _composite_key(value, tensors, value._spec())
    if kind is dict:
        names = sorted(value, key=_order)
        return (STRUCT, (dict, tuple(names)), tuple([_key(value[k], tensors, variables) for k in names]))
    if getattr(value, "_tapeflow_weak", False):  # a weak tensor (``tf.experimental.numpy``): its tensor, marked
        return (STRUCT, _WEAK, (_key(value.tensor, tensors, variables),))
    try:
        ref = weakref.ref(value)
    except TypeError:  # no weak references: by hash and ``==``
        ref = None
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"Could not generate a generic TraceType for {value!r}.Please verify that it is "
                        "immutable/hashable. Otherwise, consider implementing the Tracing Protocol for it.") from None
    return (OBJECT, ref) if ref is not None else (LITERAL, value)


def holds_composite(key):
    """Whether a key holds a composite tensor's spec (whose component shapes it leaves open)."""
    if key[0] is not STRUCT:
        return False
    return _is_composite_kind(key[1]) or any(holds_composite(k) for k in key[2])


def _composite_key(value, tensors, spec):
    """A composite tensor (a SparseTensor) keyed by its spec, as TF keys it: its components are inputs, with the
    shapes one spec covers (any number of entries), so another tensor of the same spec reuses the trace."""
    children = []
    for component, shape in zip(value._components(), value._component_shapes()):
        tensors.append(component)
        children.append((TENSOR, shape, component._value.dtype))
    return (STRUCT, (COMPOSITE, spec), tuple(children))


_WEAK = "weak"  # the key of a weak tensor argument: its tensor's, inside this marker


def _order(k):
    return (type(k).__name__, k)


def substitute(args, kwargs, tensors):
    """``(args, kwargs)`` with the tensors :func:`key_of` found replaced, in order, by ``tensors``."""
    it = iter(tensors)
    return _sub(args, it), _sub(kwargs, it)


def _sub(value, it):
    kind = type(value)
    if isinstance(value, Tensor) or kind is np.ndarray or kind is TensorSpec or isinstance(value, np.generic):
        return next(it)
    if kind in _SCALARS or getattr(value, "_tapeflow_variable", False):
        return value
    if getattr(value, "value_type", None) is not None:  # a spec standing for a composite tensor
        stand_in = value.value_type._stand_in(value)
        return stand_in._from_components([next(it) for _ in stand_in._components()])
    if kind is list:
        return [_sub(v, it) for v in value]
    if kind is tuple:
        return tuple([_sub(v, it) for v in value])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return kind(*[_sub(v, it) for v in value])
    if kind is dict:
        new = {k: _sub(value[k], it) for k in sorted(value, key=_order)}  # the order ``_key`` took them in
        return {k: new[k] for k in value}
    if getattr(value, "_tapeflow_composite", False):
        return value._from_components([next(it) for _ in value._components()])
    if getattr(value, "_tapeflow_weak", False):
        return type(value)(next(it))  # weak again around the traced tensor
    return value


def _is_leaf(key):
    return key[0] is TENSOR or key[0] is VARIABLE


def _shape_fits(shape, general):
    if general is None:
        return True
    if shape is None:  # (a spec of unknown rank is served only by a trace of unknown rank)
        return False
    if len(shape) != len(general):
        return False
    return all(g is None or g == d for d, g in zip(shape, general))


def fits(key, traced):
    """Whether a call's ``key`` is served by the ``traced`` key (whose shapes may be relaxed)."""
    if key[0] is not traced[0]:
        return False
    if _is_leaf(key):
        return key[2] == traced[2] and _shape_fits(key[1], traced[1])
    if key[0] is STRUCT:
        return ((key[1] == traced[1] or _spec_fits(key[1], traced[1])) and len(key[2]) == len(traced[2])
                and all(fits(a, b) for a, b in zip(key[2], traced[2])))
    return key == traced


def _is_composite_kind(kind):
    return type(kind) is tuple and len(kind) == 2 and kind[0] == COMPOSITE


def _spec_fits(kind, traced):
    """Whether a composite tensor of spec ``kind`` is served by the ``traced`` spec (same type and dtype, a
    shape the traced one covers)."""
    if not (_is_composite_kind(kind) and _is_composite_kind(traced)):
        return False
    a, b = kind[1], traced[1]
    return type(a) is type(b) and a.dtype == b.dtype and _shape_fits(tuple(a.shape.dims), tuple(b.shape.dims)
                                                                      if b.shape.dims is not None else None)


def relax(key, traced):
    """The most specific key both ``key`` and ``traced`` fit, relaxing tensor shapes only; ``None`` if none."""
    if key[0] is not traced[0]:
        return None
    if _is_leaf(key):
        if key[2] != traced[2]:
            return None
        a, b = key[1], traced[1]
        if a is None or b is None or len(a) != len(b):
            return (key[0], None, key[2])
        return (key[0], tuple([x if x == y else None for x, y in zip(a, b)]), key[2])
    if key[0] is STRUCT:
        kind = key[1]
        if kind != traced[1] and _is_composite_kind(kind) and _is_composite_kind(traced[1]):
            a, b = kind[1], traced[1][1]
            if type(a) is not type(b) or a.dtype != b.dtype or a.shape.rank != b.shape.rank:
                return None
            kind = (COMPOSITE, type(a)([x if x == y else None for x, y in zip(a.shape.dims, b.shape.dims)],
                                       a.dtype))
            traced = (traced[0], kind, traced[2])
        if kind != traced[1] or len(key[2]) != len(traced[2]):
            return None
        children = [relax(a, b) for a, b in zip(key[2], traced[2])]
        return None if any(c is None for c in children) else (STRUCT, kind, tuple(children))
    return key if key == traced else None


def vagueness(key):
    """How much a key leaves open: unknown dimensions count 1, unknown ranks 100 (lower is more specific)."""
    if _is_leaf(key):
        return 100 if key[1] is None else sum(d is None for d in key[1])
    if key[0] is STRUCT:
        return sum(vagueness(c) for c in key[2])
    return 0


def leaf_shapes(key):
    """The shapes of the tensor and variable leaves of a key, in order: ``([tensor shapes], [variable shapes])``."""
    tensors, variables = [], []

    def walk(k):
        if k[0] is TENSOR:
            tensors.append(k[1])
        elif k[0] is VARIABLE:
            variables.append(k[1])
        elif k[0] is STRUCT:
            for c in k[2]:
                walk(c)

    walk(key)
    return tensors, variables

"""Binding calls to a traced function's parameters and describing its signatures as TensorFlow does:
``input_signature`` checks and conversions, ``structured_input_signature``, and the type texts of TF's messages.
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from .._core import nest
from .._core.dtypes import dtype_of
from .._core.shape import TensorShape
from .._core.tensor import Tensor, convert_to_tensor
from .._core.tensor_spec import TensorSpec
from . import signature


class CastError(Exception):
    pass


class GraphTensor:
    """A tensor of a concrete function's graph, as ``inputs`` and ``outputs`` list them: a name, a static shape
    and a dtype (no value)."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, TensorShape(shape), dtype

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def _tensor_spec(s):
    """A spec of a tensor, or of a composite tensor (``tf.RaggedTensorSpec``, ``tf.SparseTensorSpec``: their
    ``value_type`` is the composite class)."""
    return isinstance(s, TensorSpec) or getattr(getattr(s, "value_type", None), "_tapeflow_composite", False)


def holds_tensors(spec):
    return any(_tensor_spec(s) for s in nest.flatten(spec)) if nest.is_nested(spec) else _tensor_spec(spec)


def unnamed(spec):
    """Specs as TF prints them in a signature (without the names)."""
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype)
    if nest.is_nested(spec):
        return nest.pack_sequence_as(spec, [unnamed(s) for s in nest.flatten(spec)])
    return spec


def as_spec_tensors(values, specs):
    """Python lists and NumPy arrays where the concrete function has tensors become tensors of the spec's dtype."""
    out = []
    for v, s in zip(values, specs):
        if isinstance(s, TensorSpec) and not isinstance(v, Tensor) and not getattr(v, "_tapeflow_variable", False):
            try:
                v = convert_to_tensor(v, dtype=s.dtype)
            except (TypeError, ValueError):
                v = convert_to_tensor(v)
        out.append(v)
    return tuple(out) + tuple(values[len(specs):])


class Parameters:
    """What binding needs of the Python function's parameters, worked out once."""

    __slots__ = ("signature", "simple", "count")

    def __init__(self, sig):
        self.signature = sig
        params = list(sig.parameters.values())
        # A call with exactly one positional argument per parameter binds to itself.
        self.simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self.count = len(params)


def numbered(base, value):
    count = [0]
    names = []

    def walk(v):
        if isinstance(v, (Tensor, TensorSpec)) or type(v) is np.ndarray or isinstance(v, np.generic):
            names.append(base if count[0] == 0 else f"{base}_{count[0]}")
            count[0] += 1
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif getattr(v, "_tapeflow_composite", False):
            for x in v._components():
                walk(x)
        elif _composite(v):  # a composite tensor's spec: a name per component, as for the tensor
            walk(v.value_type._stand_in(v))
        elif type(v) is dict:
            for k in sorted(v, key=lambda k: (type(k).__name__, k)):
                walk(v[k])

    walk(value)
    return names


def parameters_of(fn):
    try:
        return Parameters(inspect.signature(fn))
    except (TypeError, ValueError):
        return None


def type_text(spec, literal=False):
    """A type as TF's signatures print it: ``TensorSpec(...)``, ``List[...]``, ``Dict[['a', ...], ...]``, and, with
    ``literal``, ``Literal[value]`` for a Python value."""
    if _tensor_spec(spec):
        return repr(spec)
    if type(spec) is dict:
        return "Dict[" + ", ".join(f"[{k!r}, {type_text(v, literal)}]" for k, v in spec.items()) + "]"
    if isinstance(spec, (list, tuple)):
        inner = ", ".join(type_text(s, literal) for s in spec)
        return f"List[{inner}]" if isinstance(spec, list) else f"Tuple[{inner}]"
    if type(spec) is weakref.ref:
        spec = spec()
    return f"Literal[{spec!r}]" if literal else repr(spec)


def checked_signature(input_signature):
    if input_signature is None:
        return None
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"input_signature must be either a tuple or a list, got {_tf_type(input_signature)}.")
    bad = [s for s in nest.flatten(list(input_signature)) if not isinstance(s, TensorSpec) and not _composite(s)]
    if bad:
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got invalid "
                        f"args {bad} with types {[_tf_type(b) for b in bad]}.")
    return list(input_signature)


class _TypeText(str):
    """A type as TF's message shows it (TF's own module paths for its classes)."""

    def __repr__(self):
        return str(self)


def _tf_type(value):
    names = {"TensorSpec": "tensorflow.python.framework.tensor.TensorSpec",
             "DType": "tensorflow.python.framework.dtypes.DType"}
    name = type(value).__name__
    return _TypeText(f"<class '{names[name]}'>" if name in names else str(type(value)))


def _composite(spec):
    """Whether ``spec`` is a composite tensor's spec (a ``tf.SparseTensorSpec``)."""
    return getattr(spec, "value_type", None) is not None


def conform_one(value, spec):
    if _composite(spec):
        if not isinstance(value, spec.value_type):
            raise CastError(f"Can not cast {value!r} to {spec!r}")
        own = value._spec()
        if own.dtype != spec.dtype or not spec.shape.is_compatible_with(own.shape):
            raise CastError(f"Can not cast {own!r} to {spec!r}")
        return value
    if isinstance(spec, (list, tuple)):
        if isinstance(spec, list) and not isinstance(value, list):
            raise CastError(f"Can not cast {value!r} to list type.")
        if len(value) != len(spec):
            raise CastError("object of type 'Tuple' has no len()")
        return type(spec)(conform_one(v, s) for v, s in zip(value, spec))
    if isinstance(value, Tensor):
        t = value
    elif getattr(value, "_tapeflow_variable", False):
        t = value.read_value()
    else:
        try:
            t = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as exc:
            raise CastError(str(exc)) from None
    if t.dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
        raise CastError(f"Can not cast {TensorSpec(t.shape, t.dtype)!r} to {spec!r}")
    return t


def signature_key(specs, key):
    """The key of calls conforming to an input signature: the specs' shapes, the call's own dtypes."""
    args_key, kwargs_key = key[2]
    children = list(args_key[2])
    for i, spec in enumerate(specs):
        if i < len(children):
            children[i] = _spec_key(spec, children[i])
    return (signature.STRUCT, "call", ((signature.STRUCT, args_key[1], tuple(children)), kwargs_key))


def _spec_key(spec, key):
    if _composite(spec):
        return (signature.STRUCT, (signature.COMPOSITE, spec), key[2])
    if isinstance(spec, TensorSpec):
        dims = spec.shape.dims
        return (signature.TENSOR, None if dims is None else tuple(dims), key[2])
    return (signature.STRUCT, key[1], tuple(_spec_key(s, k) for s, k in zip(spec, key[2])))


def specs_of(bound, key, params, input_signature):
    """``structured_input_signature``: TensorSpecs named as the input signature names them, else after their
    parameters; Python values as they are."""
    args_key = key[2][0][2]
    names = list(params.signature.parameters) if params is not None and params.signature is not None else []
    given = input_signature or ()
    specs = []
    for i, (value, k) in enumerate(zip(bound[0], args_key)):
        name = names[i] if i < len(names) else None
        named = value if isinstance(value, TensorSpec) else given[i] if i < len(given) else None
        if isinstance(named, TensorSpec) and named.name:
            name = named.name
        specs.append(_spec_of(value, k, name))
    return (tuple(specs), {n: v for n, v in bound[1].items()})


def _spec_of(value, key, name):
    if key[0] is signature.OBJECT:
        return key[1]  # an object keyed by a weak reference: the signature does not keep it alive
    if key[0] is signature.TENSOR:
        return TensorSpec(key[1], dtype_of(key[2]), name)
    if key[0] is signature.STRUCT and type(key[1]) is tuple and key[1][0] == signature.COMPOSITE:
        return key[1][1]  # the composite tensor's spec (a tf.SparseTensorSpec)
    if key[0] is signature.STRUCT and isinstance(value, (list, tuple)):
        items = [_spec_of(v, k, name) for v, k in zip(value, key[2])]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value

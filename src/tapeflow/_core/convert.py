"""Python and NumPy values to NumPy arrays with TensorFlow's dtype rules.

Inference (no dtype asked for): Python ``float`` -> float32, ``int`` -> int32 (int64 when it does not fit),
``bool`` -> bool, ``complex`` -> complex128, ``str``/``bytes`` -> string. A sequence takes its first leaf's
kind, and later leaves must fit it (int may widen to float); anything else, or ``None`` inside, is "mixed
types". NumPy values keep their dtype; in a sequence the first NumPy scalar decides.

Conversion to a requested dtype: a Python value must fit the kind (``1.0`` is refused for int32, ``1`` for bool,
but ``True`` is accepted for int32), integers wrap like C casts, floats round; NumPy values are cast without
checks. Strings are NumPy object arrays of ``bytes``.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .state import loud, quiet

__all__ = ["infer", "to_dtype", "cannot_convert", "c_name"]

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_C_NAMES = {"float16": "half", "float32": "float", "float64": "double"}

# Which inferred kinds a requested kind accepts from Python values (b=bool, i=int, f=float, c=complex, S=string).
_ACCEPTS = {"b": "b", "i": "bi", "u": "bi", "f": "bif", "c": "bifc", "O": "S"}


def c_name(dtype) -> str:
    """The name TF's C++ converter prints for a dtype (``float`` for float32)."""
    return _C_NAMES.get(dtype.name, dtype.name)


def cannot_convert(value, dtype):
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {c_name(dtype)}")


def _refused(value):
    """The error an object that refuses conversion raises itself (a symbolic ``KerasTensor``); error paths only."""
    refuse = getattr(value, "_tapeflow_refuse_conversion", None)
    if refuse is not None and not isinstance(value, type):
        refuse()


def _unsupported(value):
    _refused(value)
    if getattr(value, "_tapeflow_ragged", False):  # TF tries it as a sequence first, and reports that
        return ValueError("TypeError: object of type 'RaggedTensor' has no len()\n")
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)!r}) to a "
                      "Tensor.")


def _mixed():
    return ValueError("Can't convert Python sequence with mixed types to Tensor.")


def _kind(x):
    """The kind letter of a Python scalar, or None for anything else."""
    t = type(x)
    if t is bool or isinstance(x, np.bool_):
        return "b"
    if t is int or isinstance(x, np.integer):
        return "i"
    if t is float or isinstance(x, np.floating):
        return "f"
    if t is complex or isinstance(x, np.complexfloating):
        return "c"
    if isinstance(x, (str, bytes)):
        return "S"
    return None


def _leaves(value, shape, depth, out):
    """Collect the leaves of a nested list and check it is rectangular; returns the shape found."""
    if isinstance(value, (list, tuple)):
        n = len(value)
        if len(shape) <= depth:
            shape.append(n)
        elif shape[depth] != n:
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        for v in value:
            _leaves(v, shape, depth + 1, out)
        if n == 0 and len(shape) > depth + 1:
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        return
    if isinstance(value, np.ndarray):
        for d, n in enumerate(value.shape):
            if len(shape) <= depth + d:
                shape.append(n)
            elif shape[depth + d] != n:
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        out.extend(value.reshape(-1).tolist() if value.dtype.kind != "O" else list(value.reshape(-1)))
        out.append(value.dtype)  # remember the NumPy dtype for the "first NumPy value decides" rule
        return
    if len(shape) > depth:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    out.append(value)


def _encode(arr):
    return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr)


def _type_name(v):
    """A type's name as CPython's C layer prints it (``tp_name``): a Python class by its bare name, a C type with
    its module (``numpy.float32``); a tensor as TF's own C type."""
    t = type(v)
    if getattr(v, "_tapeflow_variable", None) is False:  # a tensor (variables are Python classes in TF too)
        return "tensorflow.python.framework.ops.EagerTensor"
    if t.__module__ == "builtins" or t.__flags__ & _HEAP_TYPE:
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _strings(arr):
    """A NumPy object array as a string tensor's value: every element ``bytes`` (``str`` is UTF-8 encoded).

    Raises:
        ValueError: TF's error for an element that is not a string, naming its type (the first one found).
    """
    flat = arr.reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    for i, v in enumerate(flat):
        if type(v) is bytes:
            out[i] = v
        elif isinstance(v, str):
            out[i] = v.encode()
        elif isinstance(v, bytes):
            out[i] = bytes(v)
        else:
            raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                             f"{_type_name(v)}).")
    return out.reshape(arr.shape)


def _from_kind(kind, values, shape):
    if kind == "S":
        arr = np.empty(len(values), dtype=object)
        arr[:] = [v.encode() if isinstance(v, str) else v for v in values]
        return arr.reshape(shape)
    if kind == "i":
        lo, hi = (min(values), max(values)) if values else (0, 0)
        if _INT32[0] <= lo and hi <= _INT32[1]:
            np_type = np.int32
        elif _INT64[0] <= lo and hi <= _INT64[1]:
            np_type = np.int64
        else:
            raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    else:
        np_type = {"b": np.bool_, "f": np.float32, "c": np.complex128}[kind]
    token = quiet()
    try:
        return np.array(values, dtype=np_type).reshape(shape)
    finally:
        loud(token)


def infer(value):
    """``value`` (a Python scalar or nested sequence, or NumPy value) as NumPy with TF's inference."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "US":
            return np.array(_encode(value), dtype=object)
        if value.dtype.kind == "O":
            return _strings(value)  # only strings: TF refuses arrays of other Python objects
        return value.copy()
    if isinstance(value, np.generic):
        if value.dtype.kind in "US":
            return np.array(value.tobytes() if value.dtype.kind == "S" else str(value).encode(), dtype=object)
        return value
    kind = _kind(value)
    if kind is not None:
        if kind == "i" and not _INT32[0] <= value <= _INT32[1]:
            if not _INT64[0] <= value <= _INT64[1]:
                raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
            return np.int64(value)
        if kind == "S":
            return np.array(value.encode() if isinstance(value, str) else value, dtype=object)
        token = quiet()
        try:
            return {"b": np.bool_, "i": np.int32, "f": np.float32, "c": np.complex128}[kind](value)
        finally:
            loud(token)
    if not isinstance(value, (list, tuple)):
        raise _unsupported(value)
    shape, leaves = [], []
    _leaves(value, shape, 0, leaves)
    first_np = next((x for x in leaves if isinstance(x, (np.generic, np.dtype))), None)
    leaves = [x for x in leaves if not isinstance(x, np.dtype)]
    if first_np is not None:
        np_dtype = first_np if isinstance(first_np, np.dtype) else first_np.dtype
        if np_dtype.kind not in "USO":
            return np.array(leaves, dtype=np_dtype).reshape(shape)
    if not leaves:
        return np.zeros(shape, np.float32)
    return _from_kind(_sequence_kind(leaves), leaves, shape)


# Which later leaves a sequence's kind so far takes in: TF's converter walks the leaves in order, so ``[1j, 2.0]``
# is complex but ``[2.0, 1j]`` is "mixed types"; the only change of kind on the way is int -> float.
_TAKES = {"c": "bifc", "f": "bif", "i": "bi", "b": "b", "S": "S"}


def _sequence_kind(leaves):
    kind = _kind(leaves[0])
    if kind is None:
        raise _unsupported(leaves[0])
    for x in leaves[1:]:
        k = _kind(x)
        if k is not None and k in _TAKES[kind]:
            continue
        if kind == "i" and k == "f":
            kind = "f"
            continue
        raise _mixed()
    return kind


def _first_kind(value):
    shape, leaves = [], []
    _leaves(value, shape, 0, leaves)
    return _kind(leaves[0]) if leaves else None


def _first_unsupported(value):
    if isinstance(value, (list, tuple)):
        shape, leaves = [], []
        _leaves(value, shape, 0, leaves)
        return next((x for x in leaves if _kind(x) is None and not isinstance(x, np.dtype)), value)
    return value


def _python_kinds(value):
    """The set of kinds of the leaves of a Python value (scalars and nested sequences)."""
    if isinstance(value, (list, tuple)):
        shape, leaves = [], []
        _leaves(value, shape, 0, leaves)
        return {_kind(x) for x in leaves if not isinstance(x, np.dtype)}
    return {_kind(value)}


def to_dtype(value, dtype, infer_foreign=False):
    """``value`` as NumPy of ``dtype``: Python values must fit the kind, NumPy values are cast.

    With ``infer_foreign``, a Python value of a kind foreign to ``dtype`` (a string or complex number for a
    float) is inferred instead of refused: binary operators do this, and the op then reports the dtype clash.

    Raises:
        TypeError: when a Python value does not fit ``dtype``.
    """
    np_type = dtype.as_numpy_dtype  # raises for bfloat16, which NumPy cannot hold
    if isinstance(value, (np.ndarray, np.generic)):
        return _cast(value, dtype)
    kinds = _python_kinds(value)
    if None in kinds:
        _refused(value)
        raise _unsupported(_first_unsupported(value))  # TF names the first leaf it has no conversion for
    if len(kinds) > 1 and ("S" in kinds or ("c" in kinds and _first_kind(value) != "c")):
        # TF's walk over the leaves refuses these before it looks at the dtype: strings among numbers, and a
        # complex number after a real one.
        raise _mixed()
    target = np.dtype(np_type).kind
    accepts = _ACCEPTS.get(target, "")
    if not kinds <= set(accepts):
        if target in "iu" and kinds <= set("bifc") and kinds & set("fc"):
            raise cannot_convert(value, dtype)  # a lossy number: refused outright
        if target == "b" and kinds <= set("if"):
            raise cannot_convert(value, dtype)
        if infer_foreign:
            return infer(value)
        raise cannot_convert(value, dtype)
    if target == "O":
        out = infer(value)
        return out if out.dtype.kind == "O" else np.empty(out.shape, object)  # ``[]``: an empty string tensor
    token = quiet()
    try:
        if target in "iu":
            # Python ints wrap like C casts; go through int64 (or object for huge values) to get there. TF's
            # converter first takes them as int64 (uint64 for a uint64 tensor): beyond that they are refused.
            small = _fits64(value)
            if not small and not (np_type is np.uint64 and _fits64(value, (0, 2**64 - 1))):
                raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
            arr = np.array(value, dtype=np.int64 if small else object)
            out = arr.astype(np_type)
        else:
            out = np.array(value, dtype=np_type)
    finally:
        loud(token)
    return out[()] if out.ndim == 0 else out


def _fits64(value, bounds=_INT64):
    if isinstance(value, (list, tuple)):
        return all(_fits64(v, bounds) for v in value)
    return not isinstance(value, int) or bounds[0] <= value <= bounds[1]


def _cast(value, dtype):
    np_type = dtype.as_numpy_dtype
    if value.dtype.kind in "US":
        value = np.array(_encode(np.asarray(value)), dtype=object)
    if dtype == dtypes.string:
        if value.dtype.kind != "O":
            raise cannot_convert(value, dtype)
        return _strings(np.asarray(value))
    token = quiet()
    try:
        out = np.asarray(value).astype(np_type)
    finally:
        loud(token)
    return out[()] if out.ndim == 0 else out

"""Casts beyond ``tf.cast``: ``tf.saturate_cast`` (clamped to the target's range first), ``tf.bitcast`` (the same
bytes read as another type) and ``tf.math.scalar_mul``."""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.logs import get_logger
from .._core.opdefs import OPDEFS
from .._core.registry import defop
from .._core.tensor import Tensor
from ._convert import to_tensor
from .array_ops import cast
from .clip_ops import clip_by_value
from .math_ops import multiply, real

__all__ = ["saturate_cast", "bitcast", "scalar_mul", "BITCAST"]

_BITCAST_TYPES = ("bfloat16", "float16", "float32", "float64", "int64", "int32", "uint8", "uint16", "uint32",
                  "uint64", "int8", "int16", "complex64", "complex128")


def _limits(in_dtype, out_dtype):
    """The clamp bounds, as values of ``in_dtype``: the target's extremes where ``in_dtype`` holds them, else the
    nearest value inside (TF's float32 bound for int32 is 2147483520, not 2147483648, which would overflow).
    Computed with NumPy in TF's order, so NumPy's warnings are TF's too."""
    np_in, np_out = in_dtype.as_numpy_dtype, out_dtype.as_numpy_dtype
    in_min, in_max = _extremes(in_dtype)
    out_min, out_max = _extremes(out_dtype)
    promoted = np.promote_types(np_in, np_out)
    low = np_in(np.maximum(in_min, out_min))
    pair = np.array([low, out_min], dtype=promoted)
    if pair[0] < pair[1]:
        low = np.nextafter(low, np_in(0), dtype=np_in)
    high = np_in(np.minimum(float(in_max), float(out_max)))
    pair = np.array([high, out_max], dtype=promoted)
    if pair[0] > pair[1]:
        high = np.nextafter(high, np_in(0), dtype=np_in)
    return low, high


def _extremes(dtype):
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    info = np.iinfo(np_dtype) if np_dtype.kind in "iu" else np.finfo(np_dtype)
    return info.min, info.max


@export("dtypes.saturate_cast", "saturate_cast")
def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, clamped first to the range ``dtype`` can hold (``tf.saturate_cast``); from
    complex to real, the real part (with TF's warning)."""
    x = to_tensor(value)
    dtype = _dtypes.as_dtype(dtype)
    if x.dtype == _dtypes.bool_ or dtype == _dtypes.bool_:
        bad = x.dtype if x.dtype == _dtypes.bool_ else dtype
        raise TypeError(f"Cannot find minimum value of {bad} with type {bad}.")
    if x.dtype.is_complex:
        if dtype.is_complex:
            lo, hi = _extremes(dtype.real_dtype)
            if _extremes(x.dtype.real_dtype)[1] > hi:
                x = clip_by_value(x, to_tensor(complex(lo, lo), x.dtype), to_tensor(complex(hi, hi), x.dtype))
            return cast(x, dtype)
        x = real(x)
        get_logger().warning("Casting complex to real discards imaginary part.")
    low, high = _limits(x.dtype, dtype.real_dtype if dtype.is_complex else dtype)
    return cast(clip_by_value(x, to_tensor(low, x.dtype), to_tensor(high, x.dtype)), dtype)


@defop("Bitcast", same_dtype=False)
def BITCAST(x, type):
    x = np.require(x, requirements="C")  # (not ascontiguousarray, which makes a scalar a vector)
    target = np.dtype(type)
    size_in, size_out = x.dtype.itemsize, target.itemsize
    if size_in == size_out:
        return x.view(target)
    if size_in > size_out:  # each value becomes a new last dimension of the smaller values
        return x.reshape(x.shape + (1,)).view(target).reshape(x.shape + (size_in // size_out,))
    return x.view(target).reshape(x.shape[:-1])  # the last dimension (of size_out / size_in) becomes one value


def _allowed_error(attr, dtype):
    sig = OPDEFS["Bitcast"][1]
    allowed = ("bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, "
               "complex128, qint8, quint8, qint16, quint16, qint32")
    name = {"float16": "half", "float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
    return errors.InvalidArgumentError(None, None, f"Value for attr '{attr}' of {name} is not in the list of allowed "
                                                   f"values: {allowed}\n\t; NodeDef: {{{{node Bitcast}}}}; {sig} "
                                                   "[Op:Bitcast] name: ")


@export("bitcast")
def bitcast(input, type, name=None):
    """The bytes of ``input`` read as ``type`` (``tf.bitcast``): a wider type takes the last dimension (of the
    size ratio) as one value; a narrower one adds a last dimension."""
    x = to_tensor(input)
    target = _dtypes.as_dtype(type)
    if x.dtype.name not in _BITCAST_TYPES:
        raise _allowed_error("T", x.dtype)
    if target.name not in _BITCAST_TYPES:
        raise _allowed_error("type", target)
    size_in, size_out = x.dtype.size, target.size
    if size_in < size_out:
        last = x.shape.as_list()[-1] if x.shape.rank else None
        if last != size_out // size_in:
            raise errors.op_error("Bitcast", f"Cannot bitcast from {x.dtype.as_datatype_enum} to "
                                             f"{target.as_datatype_enum}", wrapped=True)
    return execute(BITCAST, (x,), {"type": target.as_numpy_dtype})


@export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-D ``scalar`` (``tf.math.scalar_mul``)."""
    if isinstance(x, Tensor) or hasattr(x, "dtype"):
        s = to_tensor(scalar) if not isinstance(scalar, Tensor) else scalar
        if s.shape.rank != 0:
            raise ValueError(f"The input scalar must be a 0-D value. Received shape {tuple(s.shape.as_list())}.")
        if s.dtype != x.dtype:
            try:
                s = to_tensor(scalar, x.dtype)
            except (TypeError, ValueError) as e:
                raise ValueError(f"scalar: {e}") from None
        return multiply(s, x)
    raise AttributeError(f"'{type(x).__name__}' object has no attribute 'dtype'")

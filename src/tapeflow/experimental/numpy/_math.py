"""Binary elementwise math: arithmetic, powers, ``maximum``/``minimum``/``clip``, ``where``, comparisons and logic,
``isclose``/``allclose``, bitwise functions, ``gcd``/``lcm`` (the unary functions are in ``_unary.py``).

Binary functions promote their operands with NumPy's rules (``tnp.add(1, 2.5)`` is float64, ``tnp.add(int32
tensor, 2.5)`` float64, ``tnp.add(float32 tensor, 2.5)`` float32) and apply TF's op; on bools ``add`` is logical or,
``multiply`` logical and.
"""

from __future__ import annotations

import numbers

import numpy as np

import tapeflow as _tf

from ..._core.dispatch import execute
from ..._core.errors import op_error, shape_str
from ...ops import math_ops as _ops
from ._arrays import array, asarray, promote, promote_binary
from ._dtypes import is_inexact, is_integer, result_type
from ._unary import _is_bool, _scalar, abs, exp, exp2, isnan, log1p, sqrt, square

pi = np.pi
e = np.e
inf = np.inf


def _bin_op(fn, a, b, promote_args=True):
    a, b = promote_binary(a, b) if promote_args else (array(a), array(b))
    return fn(a, b)


def add(x1, x2):
    """``x1 + x2`` after promotion; logical or on bools."""
    return _bin_op(lambda a, b: _tf.logical_or(a, b) if _is_bool(a) else _tf.add(a, b), x1, x2)


def subtract(x1, x2):
    """``x1 - x2`` after promotion."""
    return _bin_op(_tf.subtract, x1, x2)


def multiply(x1, x2):
    """``x1 * x2`` after promotion; logical and on bools."""
    return _bin_op(lambda a, b: _tf.logical_and(a, b) if _is_bool(a) else _tf.multiply(a, b), x1, x2)


def true_divide(x1, x2):
    """``x1 / x2`` after promotion: integers give float64 (TF's ``truediv``), bools the default float type."""
    def divide_(a, b):
        if _is_bool(a):
            float_ = result_type(float)
            a, b = _tf.cast(a, float_), _tf.cast(b, float_)
        return _tf.math.truediv(a, b)

    return _bin_op(divide_, x1, x2)


def divide(x1, x2):
    """``true_divide``."""
    return true_divide(x1, x2)


def _as_int8_if_bool(fn):
    def apply(a, b):
        if _is_bool(a):
            a, b = _tf.cast(a, _tf.int8), _tf.cast(b, _tf.int8)
        return fn(a, b)

    return apply


def floor_divide(x1, x2):
    """``x1 // x2`` after promotion (bools as int8)."""
    return _bin_op(_as_int8_if_bool(_tf.math.floordiv), x1, x2)


def mod(x1, x2):
    """``x1 % x2`` with the sign of ``x2`` (bools as int8)."""
    return _bin_op(_as_int8_if_bool(_tf.math.floormod), x1, x2)


def remainder(x1, x2):
    """``mod``."""
    return mod(x1, x2)


def divmod(x1, x2):  # noqa: A001 - NumPy's name
    """``(floor_divide(x1, x2), mod(x1, x2))``."""
    return floor_divide(x1, x2), mod(x1, x2)


def power(x1, x2):
    """``x1 ** x2`` after promotion."""
    return _bin_op(_tf.pow, x1, x2)


def float_power(x1, x2):
    """``power``."""
    return power(x1, x2)


def arctan2(x1, x2):
    """The angle of the point ``(x2, x1)``."""
    return _bin_op(_tf.math.atan2, x1, x2)


def maximum(x1, x2):
    """The elementwise maximum after promotion (a tensor against a Python zero is ``relu``, keeping its dtype);
    logical or on bools."""
    if (isinstance(x2, numbers.Real) and not isinstance(x2, bool) and x2 == 0 and isinstance(x1, _tf.Tensor)
            and x1.dtype != _tf.bool):
        return _tf.nn.relu(asarray(x1))
    return _bin_op(lambda a, b: _tf.logical_or(a, b) if _is_bool(a) else _tf.maximum(a, b), x1, x2)


def minimum(x1, x2):
    """The elementwise minimum after promotion; logical and on bools."""
    return _bin_op(lambda a, b: _tf.logical_and(a, b) if _is_bool(a) else _tf.minimum(a, b), x1, x2)


def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]``; either bound may be None.

    Raises:
        ValueError: when both bounds are None.
    """
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    return _tf.clip_by_value(*broadcast(*promote(a, a_min, a_max)))


def broadcast(*tensors):
    """Tensors broadcast to their common shape.

    Raises:
        InvalidArgumentError: TF's, for shapes that do not broadcast.
    """
    if len(tensors) <= 1:
        return list(tensors)
    common = tuple(tensors[0].shape)
    for t in tensors[1:]:
        try:
            common = np.broadcast_shapes(common, tuple(t.shape))
        except ValueError:
            raise op_error("BroadcastArgs", f"Incompatible shapes: {shape_str(common)} vs. {shape_str(t.shape)}") \
                from None
    return [_tf.broadcast_to(t, common) for t in tensors]


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y`` (promoted); with neither, the indices of nonzero elements.

    Raises:
        ValueError: when only one of ``x`` and ``y`` is given.
    """
    condition = asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        from ._indexing import nonzero

        return nonzero(condition)
    if x is not None and y is not None:
        x, y = promote(x, y)
        return _tf.where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)``."""
    return sqrt(square(x1) + square(x2))


def heaviside(x1, x2):
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``; a float result."""
    def step(a, b):
        return _tf.where(a < 0, _tf.constant(0, dtype=b.dtype),
                         _tf.where(a > 0, _tf.constant(1, dtype=b.dtype), b))

    y = _bin_op(step, x1, x2)
    if not is_inexact(y.dtype):
        y = y.astype(result_type(float))
    return y


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp(-abs(delta))))


def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta), x1 + x2, amax + log1p(exp2(-abs(delta))) / np.log(2))


# --------------------------------------------------------------------------------------------- comparisons


def _comparison(tf_fn, x1, x2, bool_as_int=False):
    dtype = result_type(x1, x2)
    x1 = array(x1, dtype=dtype)
    x2 = array(x2, dtype=dtype)
    if bool_as_int and _is_bool(x1):
        x1, x2 = _tf.cast(x1, _tf.int32), _tf.cast(x2, _tf.int32)
    return tf_fn(x1, x2)


def equal(x1, x2):
    """``x1 == x2`` after promotion."""
    return _comparison(_tf.equal, x1, x2)


def not_equal(x1, x2):
    """``x1 != x2`` after promotion."""
    return _comparison(_tf.not_equal, x1, x2)


def greater(x1, x2):
    """``x1 > x2`` after promotion (bools as int32)."""
    return _comparison(_tf.greater, x1, x2, True)


def greater_equal(x1, x2):
    """``x1 >= x2`` after promotion (bools as int32)."""
    return _comparison(_tf.greater_equal, x1, x2, True)


def less(x1, x2):
    """``x1 < x2`` after promotion (bools as int32)."""
    return _comparison(_tf.less, x1, x2, True)


def less_equal(x1, x2):
    """``x1 <= x2`` after promotion (bools as int32)."""
    return _comparison(_tf.less_equal, x1, x2, True)


def array_equal(a1, a2):
    """Whether both have the same shape and elements (a bool tensor)."""
    def same(x1, x2):
        if x1.shape.as_list() != x2.shape.as_list():
            return _tf.constant(False)
        return _tf.reduce_all(_tf.equal(x1, x2))

    return _comparison(same, a1, a2)


def _logical(tf_fn, x1, x2):
    return tf_fn(array(x1, dtype=np.bool_), array(x2, dtype=np.bool_))


def logical_and(x1, x2):
    """Elementwise and of the truth values."""
    return _logical(_tf.logical_and, x1, x2)


def logical_or(x1, x2):
    """Elementwise or of the truth values."""
    return _logical(_tf.logical_or, x1, x2)


def logical_xor(x1, x2):
    """Elementwise exclusive or of the truth values."""
    return _logical(_tf.math.logical_xor, x1, x2)


def logical_not(x):
    """Elementwise negation of the truth values."""
    return _tf.logical_not(array(x, dtype=np.bool_))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise (exact equality for integers and bools)."""
    def close(a, b):
        dtype = a.dtype
        if not is_inexact(dtype):
            return a == b
        rtol_ = _tf.convert_to_tensor(rtol, dtype.real_dtype)
        atol_ = _tf.convert_to_tensor(atol, dtype.real_dtype)
        result = _tf.abs(a - b) <= atol_ + rtol_ * _tf.abs(b)
        if equal_nan:
            result = result | (_tf.math.is_nan(a) & _tf.math.is_nan(b))
        return result

    return _bin_op(close, a, b)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (a bool tensor)."""
    return _tf.reduce_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# --------------------------------------------------------------------------------------------- integers


def _bitwise(op, x1, x2):
    def apply(a, b):
        boolean = _is_bool(a)
        if boolean:
            a, b = _tf.cast(a, _tf.int8), _tf.cast(b, _tf.int8)
        out = execute(op, (a, b))
        return _tf.cast(out, _tf.bool) if boolean else out

    return _bin_op(apply, x1, x2)


def bitwise_and(x1, x2):
    """Bitwise and (logical on bools)."""
    return _bitwise(_ops.BITWISE_AND, x1, x2)


def bitwise_or(x1, x2):
    """Bitwise or (logical on bools)."""
    return _bitwise(_ops.BITWISE_OR, x1, x2)


def bitwise_xor(x1, x2):
    """Bitwise exclusive or (logical on bools)."""
    return _bitwise(_ops.BITWISE_XOR, x1, x2)


def bitwise_not(x):
    """Bitwise not (logical on bools)."""
    return _scalar(lambda t: _tf.logical_not(t) if _is_bool(t) else execute(_ops.INVERT, (t,)), x)


def _gcd_tensors(x1, x2):
    if not is_integer(x1.dtype) or not is_integer(x2.dtype):
        raise ValueError("Arguments to gcd must be integers.")
    a, b = broadcast(_tf.abs(x1), _tf.abs(x2))

    def step(a, b):
        nonzero = b != 0
        safe = _tf.where(nonzero, b, _tf.ones_like(b))
        return _tf.where(nonzero, b, a), _tf.where(nonzero, _tf.math.floormod(a, safe), _tf.zeros_like(b))

    return _tf.while_loop(lambda a, b: _tf.reduce_any(b != 0), step, (a, b))[0]


def gcd(x1, x2):
    """The greatest common divisor of integers.

    Raises:
        ValueError: for non-integer arguments.
    """
    return _bin_op(_gcd_tensors, x1, x2)


def lcm(x1, x2):
    """The least common multiple of integers (0 when either is 0)."""
    def multiple(a, b):
        d = _gcd_tensors(a, b)
        zero = _tf.equal(d, 0)
        d_safe = _tf.where(zero, _tf.ones_like(d), d)
        return _tf.where(zero, _tf.zeros_like(d), _tf.abs(a) * (_tf.abs(b) // d_safe))

    return _bin_op(multiple, x1, x2)

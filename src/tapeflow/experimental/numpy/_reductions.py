"""Reductions: ``sum``, ``prod``, ``mean``, ``amax``/``max``, ``amin``/``min``, ``std``, ``var``, ``argmax``,
``argmin``, ``all``, ``any``, ``count_nonzero``, ``ptp``, ``cumsum``, ``cumprod``, ``average``, the ``nan*``
reductions, ``diff``, ``diagonal``, ``trace``.

NumPy's result dtypes, as TF computes them: sums and products of small integers and bools are int64 (uint64 for
unsigned; int32 and uint32 in the "safe" and "all" modes), means, variances and standard deviations of integers
are in the default float type, maxima and minima keep the dtype (bools reduce with ``any``/``all``).
"""

from __future__ import annotations

import numpy as np

import tapeflow as _tf

from ._arrays import array, asarray
from ._config import auto_conversion
from ._dtypes import is_inexact, result_type
from ._math import logical_not, where
from ._shapes import atleast_1d, broadcast_to, moveaxis, ravel
from ._unary import isnan

__all__ = ["sum", "prod", "mean", "amax", "amin", "max", "min", "std", "var", "argmax", "argmin", "all", "any",
           "count_nonzero", "ptp", "cumsum", "cumprod", "average", "nansum", "nanprod", "nanmean", "diff", "trace",
           "diagonal"]

_TO_INT, _TO_FLOAT = "int", "float"


def _reduce(tf_fn, a, axis=None, dtype=None, keepdims=None, promote_int=_TO_INT, tf_bool_fn=None,
            preserve_bool=False):
    if dtype:
        dtype = result_type(dtype)
    keepdims = bool(keepdims)
    a = asarray(a, dtype=dtype)
    if tf_bool_fn is not None and (dtype == _tf.bool or (preserve_bool and a.dtype == _tf.bool)):
        return tf_bool_fn(a, axis=axis, keepdims=keepdims)
    if dtype is None:
        np_dtype = np.dtype(a.dtype.as_numpy_dtype)
        if np_dtype.kind in "biu":
            if promote_int == _TO_INT:
                signed = np_dtype.kind != "u"
                bits = 8 if np_dtype.kind == "b" else np_dtype.itemsize * 8
                # NumPy's default integer (int64) in the NumPy modes; TF's int32 in the flexible ones.
                floor_bits = 32 if auto_conversion() else 64
                if bits < floor_bits:
                    a = _tf.cast(a, {(32, True): _tf.int32, (32, False): _tf.uint32, (64, True): _tf.int64,
                                     (64, False): _tf.uint64}[(floor_bits, signed)])
            elif promote_int == _TO_FLOAT:
                a = _tf.cast(a, result_type(float))
    if isinstance(axis, _tf.Tensor) and axis.dtype not in (_tf.int32, _tf.int64):
        axis = _tf.cast(axis, _tf.int64)
    return tf_fn(a, axis=axis, keepdims=keepdims)


def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001 - NumPy's names throughout
    """The sum over ``axis`` (all axes when None); small integers and bools sum as int64."""
    return _reduce(_tf.reduce_sum, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=_tf.reduce_any)


def prod(a, axis=None, dtype=None, keepdims=None):
    """The product over ``axis``; small integers and bools multiply as int64."""
    return _reduce(_tf.reduce_prod, a, axis=axis, dtype=dtype, keepdims=keepdims, tf_bool_fn=_tf.reduce_all)


def _no_out(out):
    if out is not None:
        raise ValueError("Setting out is not supported.")


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """The mean over ``axis``; integers and bools average in the default float type.

    Raises:
        ValueError: for ``out``.
    """
    _no_out(out)
    return _reduce(_tf.reduce_mean, a, axis=axis, dtype=dtype, keepdims=keepdims, promote_int=_TO_FLOAT)


def amax(a, axis=None, out=None, keepdims=None):
    """The maximum over ``axis``, in ``a``'s dtype (``any`` for bools).

    Raises:
        ValueError: for ``out``.
    """
    _no_out(out)
    return _reduce(_tf.reduce_max, a, axis=axis, keepdims=keepdims, promote_int=None, tf_bool_fn=_tf.reduce_any,
                   preserve_bool=True)


def amin(a, axis=None, out=None, keepdims=None):
    """The minimum over ``axis``, in ``a``'s dtype (``all`` for bools).

    Raises:
        ValueError: for ``out``.
    """
    _no_out(out)
    return _reduce(_tf.reduce_min, a, axis=axis, keepdims=keepdims, promote_int=None, tf_bool_fn=_tf.reduce_all,
                   preserve_bool=True)


def max(a, axis=None, keepdims=None):
    """``amax``."""
    return amax(a, axis=axis, keepdims=keepdims)


def min(a, axis=None, keepdims=None):
    """``amin``."""
    return amin(a, axis=axis, keepdims=keepdims)


def std(a, axis=None, keepdims=None):
    """The standard deviation over ``axis``."""
    return _reduce(_tf.math.reduce_std, a, axis=axis, keepdims=keepdims, promote_int=_TO_FLOAT)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """The variance over ``axis``, divided by ``N - ddof``.

    As in TF, a nonzero ``ddof`` needs ``dtype`` (the result is cast to it: without one, the cast fails with TF's
    TypeError).

    Raises:
        ValueError: for ``out``.
    """
    working_dtype = result_type(a, dtype) if dtype else None
    _no_out(out)
    if ddof != 0:
        def reduce_fn(x, axis, keepdims):
            centered = x - _tf.reduce_mean(x, axis=axis, keepdims=True)
            if x.dtype.is_complex:
                centered = _tf.cast(_tf.math.real(centered * _tf.math.conj(centered)), x.dtype)
            else:
                centered = _tf.square(centered)
            squares = _tf.reduce_sum(centered, axis=axis, keepdims=keepdims)
            if axis is None:
                n = _tf.size(x)
            else:
                axis = axis + len(x.shape) if axis < 0 else axis
                n = _tf.reduce_prod(_tf.gather(_tf.shape(x), axis))
            return _tf.cast(_tf.divide(squares, _tf.cast(n - ddof, x.dtype)), dtype)
    else:
        reduce_fn = _tf.math.reduce_variance
    result = _reduce(reduce_fn, a, axis=axis, dtype=working_dtype, keepdims=keepdims, promote_int=_TO_FLOAT)
    return _tf.cast(result, dtype) if dtype else result


def _arg_reduce(fn, a, axis):
    a = array(a)
    return fn(_tf.reshape(a, [-1]) if axis is None else atleast_1d(a), axis=axis)


def argmax(a, axis=None):
    """The index of the maximum (in the flattened array when ``axis`` is None), as int64."""
    return _arg_reduce(_tf.math.argmax, a, axis)


def argmin(a, axis=None):
    """The index of the minimum (in the flattened array when ``axis`` is None), as int64."""
    return _arg_reduce(_tf.math.argmin, a, axis)


def all(a, axis=None, keepdims=None):  # noqa: A001
    """Whether every element is true."""
    return _tf.reduce_all(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None):  # noqa: A001
    """Whether any element is true."""
    return _tf.reduce_any(asarray(a, dtype=bool), axis=axis, keepdims=bool(keepdims))


def count_nonzero(a, axis=None):
    """The number of nonzero elements, as int64."""
    return _tf.math.count_nonzero(array(a), axis)


def ptp(a, axis=None, keepdims=None):
    """The range (maximum minus minimum) over ``axis``."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


def _cumulative(tf_fn, a, axis, dtype):
    a = asarray(a, dtype=dtype)
    if dtype is None and a.dtype.is_integer:
        wider = np.promote_types(a.dtype.as_numpy_dtype, int)  # NumPy's: small integers accumulate as int64
        if wider != a.dtype.as_numpy_dtype:
            a = asarray(a, dtype=wider)
    if axis is None:
        a = ravel(a)
        axis = 0
    elif axis < 0:
        axis += len(a.shape)
    return tf_fn(a, axis)


def cumsum(a, axis=None, dtype=None):
    """The running sum along ``axis`` (over the flattened array when None)."""
    return _cumulative(_tf.math.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    """The running product along ``axis`` (over the flattened array when None)."""
    return _cumulative(_tf.math.cumprod, a, axis, dtype)


def average(a, axis=None, weights=None, returned=False):
    """The (weighted) mean over ``axis``, with the sum of the weights when ``returned``.

    Weights of ``a``'s shape weigh elements; a vector of weights weighs the positions along ``axis``. Integers
    average in a float type (through ``astype`` without weights: TF's AttributeError without NumPy behavior).

    Raises:
        ValueError: for an ``axis`` that is not one integer.
    """
    if axis is not None and not isinstance(axis, int):
        raise ValueError(f"Argument `axis` must be an integer. Received axis={axis} (of type {type(axis)})")
    a = array(a)
    default_float = result_type(float)
    if weights is None:
        if not is_inexact(a.dtype):
            a = a.astype(result_type(a.dtype, default_float))
        avg = _tf.reduce_mean(a, axis=axis)
        if returned:
            count = _tf.size(a) if axis is None else _tf.shape(a)[axis]
            weights_sum = _tf.cast(count, a.dtype)
    else:
        if is_inexact(a.dtype):
            out_dtype = result_type(a.dtype, weights)
        else:
            out_dtype = result_type(a.dtype, weights, default_float)
        a = array(a, out_dtype)
        weights = array(weights, out_dtype)
        if axis is None or len(a.shape) == len(weights.shape):
            weights_sum = _tf.reduce_sum(weights, axis=axis)
            avg = _tf.reduce_sum(a * weights, axis=axis) / weights_sum
        else:
            weights_sum = _tf.reduce_sum(weights)
            avg = _tf.tensordot(a, weights, [[axis], [0]]) / weights_sum
    avg = array(avg)
    if returned:
        return avg, broadcast_to(weights_sum, _tf.shape(avg))
    return avg


def _nan_reduction(reduction, init, name):
    def reduce_ignoring_nan(a, axis=None, dtype=None, keepdims=False):
        a = array(a)
        filler = array(init, dtype=a.dtype)
        return reduction(where(isnan(a), filler, a), axis=axis, dtype=dtype, keepdims=keepdims)

    reduce_ignoring_nan.__name__ = reduce_ignoring_nan.__qualname__ = name
    reduce_ignoring_nan.__doc__ = f"``{reduction.__name__}`` with NaNs counted as {init}."
    return reduce_ignoring_nan


nansum = _nan_reduction(sum, 0, "nansum")
nanprod = _nan_reduction(prod, 1, "nanprod")


def nanmean(a, axis=None, dtype=None, keepdims=None):
    """The mean of the elements that are not NaN."""
    a = array(a)
    if a.dtype.is_bool or a.dtype.is_integer:
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    kept = logical_not(isnan(a))
    if dtype is None:
        dtype = a.dtype.as_numpy_dtype
    count = sum(kept, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / count


def diff(a, n=1, axis=-1):
    """The ``n``-th differences along ``axis`` (``!=`` for bools).

    Raises:
        ValueError: for an axis out of range or a negative ``n``.
    """
    a = asarray(a)
    nd = len(a.shape)
    if (axis + nd if axis < 0 else axis) >= nd:
        raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds for input {a} of rank {nd}.")
    if n < 0:
        raise ValueError(f"Argument `order` must be a non-negative integer. Received: axis={n}")
    later = [slice(None)] * nd
    earlier = [slice(None)] * nd
    later[axis] = slice(1, None)
    earlier[axis] = slice(None, -1)
    op = _tf.not_equal if a.dtype == _tf.bool else _tf.subtract
    for _ in range(n):
        a = op(a[tuple(later)], a[tuple(earlier)])
    return a


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the matrices spanned by ``axis1`` and ``axis2`` (as the last axis)."""
    a = asarray(a)
    rank = len(a.shape)
    if offset == 0 and axis1 in (rank - 2, -2) and axis2 in (rank - 1, -1):
        return _tf.linalg.diag_part(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    rows, cols = a.shape[-2], a.shape[-1]
    if offset <= -rows or offset >= cols:
        return _tf.zeros(list(a.shape[:-1]) + [0], dtype=a.dtype)
    return _tf.linalg.diag_part(a, k=offset)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal."""
    if dtype:
        dtype = result_type(dtype)
    a = asarray(a, dtype)
    if offset == 0:
        rank = len(a.shape)
        if axis1 in (-2, rank - 2) and axis2 in (-1, rank - 1):
            return _tf.linalg.trace(a)
    return sum(diagonal(a, offset, axis1, axis2), -1, dtype)


"""Array creation: ``array``, ``asarray``, ``zeros``, ``ones``, ``full``, ``empty``, the ``*_like`` functions, ``eye``,
``identity``, ``tri``, ``arange``, ``linspace``, ``logspace``, ``meshgrid``.

As in TF, ``dtype=float`` (the default of ``zeros``, ``ones``, ``eye``) means float64, or float32 with
``prefer_float32``; values without a dtype get NumPy's (Python ints are int64, floats float64).
"""

from __future__ import annotations

import numpy as np

import tapeflow as _tf

from ._arrays import array, asarray, to_tensor
from ._dtypes import default_float_type, result_type, result_type_unary
from ._shapes import atleast_1d

__all__ = ["array", "asarray", "asanyarray", "ascontiguousarray", "copy", "empty", "empty_like", "zeros",
           "zeros_like", "ones", "ones_like", "full", "full_like", "eye", "identity", "tri", "arange", "linspace",
           "logspace", "geomspace", "meshgrid"]


def asanyarray(a, dtype=None):
    """``asarray`` (tensors have no subclasses to keep)."""
    return asarray(a, dtype)


def ascontiguousarray(a, dtype=None):
    """A copy of ``a`` with at least one dimension (tensors are always contiguous)."""
    return array(a, dtype, ndmin=1)


def copy(a):
    """A new tensor holding ``a``'s values."""
    return array(a, copy=True)


def zeros(shape, dtype=float):
    """A tensor of zeros (``np.zeros``); ``dtype=None`` gives the default float type."""
    dtype = result_type(dtype) if dtype else default_float_type()
    return _tf.zeros(shape, dtype=dtype)


def empty(shape, dtype=float):
    """``zeros``: tensors cannot hold uninitialised memory."""
    return zeros(shape, dtype)


def zeros_like(a, dtype=None):
    """Zeros of ``a``'s shape, of ``dtype`` or ``a``'s NumPy-rule dtype."""
    dtype = _tf.as_dtype(result_type_unary(a, dtype))
    return _tf.zeros_like(a, dtype)


def empty_like(a, dtype=None):
    """``zeros_like``."""
    return zeros_like(a, dtype)


def ones(shape, dtype=float):
    """A tensor of ones (``np.ones``)."""
    if dtype:
        dtype = result_type(dtype)
    return _tf.ones(shape, dtype=dtype)


def ones_like(a, dtype=None):
    """Ones of ``a``'s shape, of ``dtype`` or ``a``'s NumPy-rule dtype."""
    return _tf.ones_like(a, result_type_unary(a, dtype))


def full(shape, fill_value, dtype=None):
    """``fill_value`` broadcast to ``shape`` (``np.full``), of ``dtype`` or the value's own dtype."""
    if not isinstance(shape, _tf.Tensor):
        shape = asarray(to_tensor(shape, dtype_hint=np.int32))
    shape = atleast_1d(shape)
    return _tf.broadcast_to(asarray(fill_value, dtype=dtype), shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """``fill_value`` broadcast to ``a``'s shape, of ``dtype`` or ``a``'s dtype.

    Raises:
        ValueError: for another ``order``, ``subok=False`` or a ``shape`` (none of which TF supports).
    """
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or result_type(a)
    return _tf.broadcast_to(asarray(fill_value, dtype=dtype), _tf.shape(a))


def _diagonal_length(n, m, k):
    return max(0, min(n, m - k) if k >= 0 else min(n + k, m))


def eye(N, M=None, k=0, dtype=float):  # noqa: N803 - NumPy's argument names
    """An ``N x M`` matrix with ones on diagonal ``k`` (``np.eye``)."""
    if dtype:
        dtype = result_type(dtype)
    if not M:
        M = N
    N, M, k = int(N), int(M), int(k)
    if k >= M or -k >= N:
        return zeros([N, M], dtype=dtype)
    if k == 0:
        return _tf.eye(N, M, dtype=dtype)
    ones_ = _tf.ones([_diagonal_length(N, M, k)], dtype=dtype)
    return _tf.linalg.diag(ones_, num_rows=N, num_cols=M, k=k)


def identity(n, dtype=float):
    """The ``n x n`` identity matrix."""
    return eye(N=n, M=n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    """Ones at and below diagonal ``k`` of an ``N x M`` matrix (``np.tri``)."""
    M = M if M is not None else N
    dtype = result_type(dtype) if dtype is not None else result_type(float)
    if k < 0:
        lower = -k - 1
        if lower > N:
            return _tf.zeros([N, M], dtype)
        upper_part = _tf.linalg.band_part(_tf.ones([N, M], dtype=_tf.bool), lower, -1)
        return _tf.cast(_tf.logical_not(upper_part), dtype)
    filled = _tf.ones([N, M], dtype)
    return filled if k > M else _tf.linalg.band_part(filled, -1, k)


def arange(start, stop=None, step=1, dtype=None):
    """Values from ``start`` to ``stop`` by ``step`` (``np.arange``), computed by ``tf.range`` and cast to the
    largest type of the three (or ``dtype``).

    Raises:
        ValueError: for a zero ``step``.
    """
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = result_type(dtype)
    elif stop is None:
        dtype = result_type(start, step)
    else:
        dtype = result_type(start, step, stop)
    empty_up = step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0))
    empty_down = step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0))
    if empty_up or empty_down:
        return array([], dtype=dtype)
    return _tf.cast(_tf.range(start, limit=stop, delta=step), dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (``np.linspace``), with the step when ``retstep``.

    With NumPy 2, TF takes the dtype from ``start * 1.0`` and ``stop * 1.0`` whatever ``dtype`` says (a value
    that cannot be multiplied by a float fails there); ``dtype=None`` leaves the computed dtype.

    Raises:
        ValueError: for a negative ``num``.
    """
    if dtype:
        dtype = result_type([start * 1.0, stop * 1.0])
    start = array(start, dtype=dtype)
    stop = array(stop, dtype=dtype)
    if num < 0:
        raise ValueError("Argument `num` (number of samples) must be a non-negative integer. "
                         f"Received: num={num}")
    step = _tf.convert_to_tensor(np.nan)
    if endpoint:
        result = _tf.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = _tf.cast(stop, step.dtype) - step
            start = _tf.cast(start, new_stop.dtype)
            result = _tf.linspace(start, new_stop, num, axis=axis)
        else:
            result = _tf.linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.is_integer:
            result = _tf.math.floor(result)
        result = _tf.cast(result, dtype)
    return (result, step) if retstep else result


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base`` to the powers ``linspace(start, stop, num)`` (``np.logspace``); the dtype is that of ``start * 1.0``
    and ``stop * 1.0``, as TF computes it with NumPy 2."""
    dtype = result_type([start * 1.0, stop * 1.0])
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    return _tf.cast(_tf.pow(_tf.cast(base, result.dtype), result), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` evenly spaced on a log scale (``np.geomspace``); both bounds
    negative gives negative values."""
    from ._unary import log10, real, sign

    dtype = _tf.as_dtype(dtype) if dtype else result_type(start, stop, float(num), zeros((), dtype))
    computation = np.promote_types(dtype.as_numpy_dtype, np.float32)
    start = asarray(start, dtype=computation)
    stop = asarray(stop, dtype=computation)
    start_sign = 1 - sign(real(start))
    stop_sign = 1 - sign(real(stop))
    flip = 1 - start_sign * stop_sign // 2
    result = flip * logspace(log10(flip * start), log10(flip * stop), num, endpoint=endpoint, base=10.0,
                             dtype=computation, axis=0)
    if axis != 0:
        from ._shapes import moveaxis

        result = moveaxis(result, 0, axis)
    return _tf.cast(result, dtype)


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (``np.meshgrid``, ``tf.meshgrid``).

    Raises:
        ValueError: for ``sparse=True`` or ``copy=False``, which TF does not support.
    """
    sparse = kwargs.get("sparse", False)
    if sparse:
        raise ValueError("Function `meshgrid` does not support returning sparse arrays yet. "
                         f"Received: sparse={sparse}")
    copy_ = kwargs.get("copy", True)
    if not copy_:
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={copy_}")
    return _tf.meshgrid(*[asarray(x) for x in xi], indexing=kwargs.get("indexing", "xy"))


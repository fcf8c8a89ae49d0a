"""``to_categorical`` and ``normalize`` of ``tf.keras.utils`` (Keras 3.15).

Keras's split between NumPy and tensors is kept: ``to_categorical`` and ``normalize`` given a NumPy array (or, for
``to_categorical``, any non-tensor) compute in NumPy and return float64 NumPy arrays, with NumPy's own errors and
quirks (negative labels wrap around; ``normalize(..., axis=0)`` divides along the last axis); given tensors they use
tapeflow ops (``one_hot`` in float32, zero rows for out-of-range labels; an L2 ``normalize`` through ``rsqrt`` that
integer tensors reject, other orders cast integers to float first).
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_categorical", "normalize"]

_EPSILON = 1e-7


def _tf():
    import tapeflow

    return tapeflow


def to_categorical(x, num_classes=None):
    """One-hot encode integer labels along a new last axis (a trailing axis of size 1 is dropped first)."""
    tf = _tf()
    if tf.is_tensor(x):
        shape = x.shape
        if len(shape) > 1 and shape[-1] == 1:
            x = tf.reshape(x, tuple(shape[:-1]))
        return tf.one_hot(tf.cast(x, "int64"), num_classes, axis=-1, dtype="float32")
    x = np.array(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = tuple(shape[:-1])
    x = x.reshape(-1)
    if not num_classes:
        num_classes = np.max(x) + 1
    out = np.zeros((x.shape[0], num_classes))
    out[np.arange(x.shape[0]), x] = 1
    return np.reshape(out, shape + (num_classes,))


def _normalize_tensor(x, axis, order):
    tf = _tf()
    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    from .._loss_functions import _to_tensor

    x = _to_tensor(x)
    if len(x.shape) == 0:
        x = tf.expand_dims(x, axis=0)
    if order == 2:
        inv_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inv_norm, 1.0 / _EPSILON)
    ndim = len(x.shape)
    axes = tuple(range(ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    if any(a < -ndim or a >= ndim for a in axes):
        raise ValueError("All `axis` values must be in the range [-ndim, ndim). "
                         f"Received inputs with ndim={ndim}, while axis={axes}")
    if not x.dtype.is_floating:
        from ..metrics.base import floatx

        x = tf.cast(x, floatx())
    if len(axes) == 1:
        p = tf.constant(order, dtype=x.dtype)
        norm = tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), p), axis=axes[0], keepdims=True), 1.0 / p)
    elif len(axes) == 2:
        # Over two axes Keras takes a matrix norm: order 1 is the largest column sum of absolute values.
        if order != 1:
            raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={order}")
        row, col = (a + ndim if a < 0 else a for a in axes)
        norm = tf.reduce_max(tf.reduce_sum(tf.abs(x), axis=row, keepdims=True), axis=col, keepdims=True)
    else:
        raise ValueError(f"Invalid axis values. Received: axis={axes}")
    return x / tf.maximum(norm, _EPSILON)


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (NumPy arrays stay NumPy; zero norms leave zeros)."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        # Keras maps a falsy axis (``0`` too) to -1 here.
        axis = axis or -1
        return x / np.expand_dims(norm, axis)
    return _normalize_tensor(x, axis, order)

"""The function forms of ``tf.keras.losses`` (Keras 3.15), written on public tapeflow ops.

Each function returns the per-sample loss (the last axis reduced), leaving the batch reduction to the ``Loss``
classes. Keras's conventions kept here: ``y_true`` is cast to ``y_pred``'s dtype; probabilities are clipped to
``[epsilon, 1 - epsilon]`` with ``epsilon = 1e-7`` (gradients pass at the clip bounds, as ``clip_by_value``'s do);
where Keras builds a constant in float32 first and casts it (``log(2)`` in ``log_cosh``, the epsilon of
``mean_squared_logarithmic_error``), the float64 result carries the same float32 rounding.
"""

from __future__ import annotations

import warnings

EPSILON = 1e-7

__all__ = [
    "squeeze_or_expand_to_same_rank", "mean_squared_error", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "cosine_similarity", "huber", "log_cosh",
    "kl_divergence", "poisson", "hinge", "squared_hinge", "categorical_hinge", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy",
]


def _tf():
    import tapeflow

    return tapeflow


def _to_tensor(x, dtype=None):
    """Keras's ``convert_to_tensor``: a tensor of another dtype is cast, anything else converted."""
    tf = _tf()
    if dtype is not None:
        dtype = tf.as_dtype(dtype)
    if not tf.is_tensor(x):
        if dtype is not None and (dtype.is_integer or dtype.is_bool):
            return tf.cast(tf.convert_to_tensor(x), dtype)
        return tf.convert_to_tensor(x, dtype=dtype)
    if isinstance(x, tf.Variable):
        x = x.value() if dtype is None or x.dtype == dtype else x
    if dtype is not None and x.dtype != dtype:
        return tf.cast(x, dtype)
    return tf.convert_to_tensor(x)


def _pred_true(y_true, y_pred):
    y_pred = _to_tensor(y_pred)
    return _to_tensor(y_true, y_pred.dtype), y_pred


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Bring ranks that differ by one (a trailing axis of size 1) together, as Keras does before a loss."""
    tf = _tf()
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = tf.expand_dims(x2, axis=-1)
        else:
            x1 = tf.squeeze(x1, axis=-1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = tf.expand_dims(x1, axis=-1)
        else:
            x2 = tf.squeeze(x2, axis=-1)
    return x1, x2


def _mean(x, axis=-1):
    return _tf().reduce_mean(x, axis=axis)


def _f32_const(value, dtype):
    """A constant Keras builds in float32 and then casts to ``dtype`` (keeps its float32 rounding)."""
    tf = _tf()
    return tf.cast(tf.constant(value, dtype=tf.float32), dtype)


def mean_squared_error(y_true, y_pred):
    """Mean of ``(y_true - y_pred) ** 2`` over the last axis."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    return _mean(_tf().square(y_true - y_pred))


def mean_absolute_error(y_true, y_pred):
    """Mean of ``|y_true - y_pred|`` over the last axis."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    return _mean(_tf().abs(y_true - y_pred))


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(|y_true - y_pred| / max(|y_true|, epsilon))`` over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    epsilon = tf.constant(EPSILON, dtype=y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), epsilon))
    return 100.0 * _mean(diff)


def mean_squared_logarithmic_error(y_true, y_pred):
    """Mean of ``(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)) ** 2`` over the last axis."""
    tf = _tf()
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    epsilon = _f32_const(EPSILON, y_pred.dtype)
    first = tf.math.log(tf.maximum(y_pred, epsilon) + 1.0)
    second = tf.math.log(tf.maximum(y_true, epsilon) + 1.0)
    return _mean(tf.square(first - second))


def _l2_normalize(x, axis):
    tf = _tf()
    if len(x.shape) == 0:
        x = tf.expand_dims(x, axis=0)
    inv_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
    return x * tf.minimum(inv_norm, 1.0 / EPSILON)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Minus the cosine similarity of the L2-normalised inputs along ``axis`` (-1 for aligned vectors)."""
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    y_pred = _l2_normalize(y_pred, axis)
    y_true = _l2_normalize(y_true, axis)
    return -_tf().reduce_sum(y_true * y_pred, axis=axis)


def huber(y_true, y_pred, delta=1.0):
    """Huber loss: quadratic for ``|error| <= delta``, linear beyond; mean over the last axis."""
    tf = _tf()
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    delta = _to_tensor(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tf.abs(error)
    half = tf.constant(0.5, dtype=abs_error.dtype)
    loss = tf.where(abs_error <= delta, half * tf.square(error), delta * abs_error - half * tf.square(delta))
    return _mean(loss)


def log_cosh(y_true, y_pred):
    """Mean of ``log(cosh(y_pred - y_true))`` over the last axis, computed as ``x + softplus(-2x) - log 2``."""
    tf = _tf()
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pred_true(y_true, y_pred))
    log2 = tf.cast(tf.math.log(tf.constant(2.0)), y_pred.dtype)
    x = y_pred - y_true
    return _mean(x + tf.math.softplus(x * -2.0) - log2)


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred))`` over the last axis, both clipped to ``[epsilon, 1]``."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = tf.clip_by_value(y_true, EPSILON, 1)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """Mean of ``y_pred - y_true * log(y_pred + epsilon)`` over the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    epsilon = tf.constant(EPSILON, dtype=y_pred.dtype)
    return _mean(y_pred - y_true * tf.math.log(y_pred + epsilon))


def _hinge_labels(y_true):
    """Labels that are all 0 or 1 become -1 / 1; any other labels are used as given."""
    tf = _tf()
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0), tf.equal(y_true, 1)))
    return 2.0 * y_true - 1.0 if bool(is_binary) else y_true


def hinge(y_true, y_pred):
    """Mean of ``max(1 - y_true * y_pred, 0)`` over the last axis (0/1 labels mapped to -1/1)."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return _mean(tf.maximum(1.0 - y_true * y_pred, 0.0))


def squared_hinge(y_true, y_pred):
    """Mean of ``max(1 - y_true * y_pred, 0) ** 2`` over the last axis (0/1 labels mapped to -1/1)."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return _mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)))


def categorical_hinge(y_true, y_pred):
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` along the last axis."""
    tf = _tf()
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(neg - pos + 1.0, tf.constant(0.0, dtype=y_pred.dtype))


def _check_same_shape(target, output, at_least_rank_1=False):
    if at_least_rank_1 and len(target.shape) < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    if len(target.shape) != len(output.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    for e1, e2 in zip(target.shape, output.shape):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError("Arguments `target` and `output` must have the same shape. Received: "
                             f"target.shape={target.shape}, output.shape={output.shape}")


def _binary_crossentropy_elementwise(target, output, from_logits):
    tf = _tf()
    _check_same_shape(target, output)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = tf.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    bce = target * tf.math.log(output)
    bce += (1 - target) * tf.math.log(1 - output)
    return -bce


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over ``axis``; labels smoothed towards 0.5 by ``label_smoothing``."""
    tf = _tf()
    y_pred = _to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return tf.reduce_mean(_binary_crossentropy_elementwise(y_true, y_pred, from_logits), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Categorical cross-entropy along ``axis``; probabilities are renormalised to sum to 1, then clipped."""
    tf = _tf()
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_pred = _to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if y_pred.shape[-1] == 1:
        warnings.warn("In loss categorical_crossentropy, expected y_pred.shape to be (batch_size, num_classes) "
                      f"with num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider using "
                      "'binary_crossentropy' if you only have 2 classes.", SyntaxWarning, stacklevel=2)
    if label_smoothing:
        num_classes = tf.cast(y_true.shape[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)
    _check_same_shape(y_true, y_pred, at_least_rank_1=True)
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    output = y_pred / tf.reduce_sum(y_pred, axis, keepdims=True)
    output = tf.clip_by_value(output, EPSILON, 1.0 - EPSILON)
    return -tf.reduce_sum(y_true * tf.math.log(output), axis)


def _sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """The loss and, with ``ignore_class``, the mask of the entries that count (``None`` otherwise)."""
    tf = _tf()
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[axis] == 1:
        y_true = tf.squeeze(y_true, axis=axis)
    valid_mask = res_shape = None
    if ignore_class is not None:
        rank = len(y_pred.shape)
        class_axis = axis + rank if axis < 0 else axis
        res_shape = tuple(d for i, d in enumerate(y_pred.shape) if i != class_axis)
        y_pred = _to_tensor(y_pred)
        valid_mask = tf.not_equal(y_true, tf.cast(ignore_class, y_pred.dtype))
        y_true = tf.where(valid_mask, y_true, 0)
        y_pred = tf.where(tf.expand_dims(valid_mask, axis), y_pred, 0)
    if axis != -1 and axis != len(y_pred.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    target = tf.cast(_to_tensor(y_true), "int64")
    output = _to_tensor(y_pred)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}")
    if len(target.shape) != len(output.shape[:-1]):
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    for e1, e2 in zip(target.shape, output.shape[:-1]):
        if e1 is not None and e2 is not None and e1 != e2:
            raise ValueError("Arguments `target` and `output` must have the same shape up until the last "
                             f"dimension: target.shape={target.shape}, output.shape={output.shape}")
    if not from_logits:
        output = tf.math.log(tf.clip_by_value(output, EPSILON, 1 - EPSILON))
    res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if ignore_class is not None:
        valid_mask = tf.reshape(valid_mask, res_shape)
        res = tf.where(valid_mask, res, 0.0)
    return res, valid_mask


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy against integer labels; labels equal to ``ignore_class`` give a loss of 0."""
    return _sparse_categorical_crossentropy(y_true, y_pred, from_logits, ignore_class, axis)[0]


# Keras's short aliases are the same function objects.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh

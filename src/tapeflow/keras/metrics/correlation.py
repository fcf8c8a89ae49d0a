"""Correlation metrics of ``tf.keras.metrics`` (Keras 3.15): ``pearson_correlation`` and
``concordance_correlation`` per sample along an axis, and ``PearsonCorrelation``/``ConcordanceCorrelation``, their
weighted means over samples.
"""

from __future__ import annotations

from .._loss_functions import _to_tensor, squeeze_or_expand_to_same_rank
from .base import _EPSILON, _tf
from .base import MeanMetricWrapper as _MeanMetricWrapper

__all__ = ["pearson_correlation", "concordance_correlation", "PearsonCorrelation", "ConcordanceCorrelation"]


def _pair(y_true, y_pred):
    y_pred = _to_tensor(y_pred)
    y_true = _to_tensor(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson's correlation of ``y_true`` and ``y_pred`` along ``axis`` (population standard deviations)."""
    tf = _tf()
    y_true, y_pred = _pair(y_true, y_pred)
    t = y_true - tf.reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / tf.math.reduce_std(t, axis=axis, keepdims=True)
    p = p / tf.math.reduce_std(p, axis=axis, keepdims=True)
    return tf.reduce_mean(t * p, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``, as Keras computes it: the covariance term centres ``y_true``
    on the mean of ``y_pred``, and ``epsilon()`` is added to the denominator."""
    tf = _tf()
    y_true, y_pred = _pair(y_true, y_pred)
    true_mean = tf.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = tf.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_var = tf.math.reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = tf.math.reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    covar = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + tf.square(true_mean - pred_mean)
    return tf.reduce_mean(2 * covar / (norm + _EPSILON), axis=axis)


class PearsonCorrelation(_MeanMetricWrapper):
    """The (weighted) mean over samples of :func:`pearson_correlation` along ``axis``."""

    _config_keys = ("axis",)

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(fn=pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"


class ConcordanceCorrelation(_MeanMetricWrapper):
    """The (weighted) mean over samples of :func:`concordance_correlation` along ``axis``."""

    _config_keys = ("axis",)

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(fn=concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis
        self._direction = "up"

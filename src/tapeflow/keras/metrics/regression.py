"""Regression metrics of ``tf.keras.metrics`` (Keras 3.15): ``MeanSquaredError``, ``MeanAbsoluteError``,
``RootMeanSquaredError``, ``MeanAbsolutePercentageError``, ``MeanSquaredLogarithmicError``, ``LogCoshError``,
``CosineSimilarity`` and ``R2Score``.

The mean metrics are weighted means of the per-sample functions of ``_loss_functions``; their ``get_config`` lists
only what Keras lists (``CosineSimilarity`` leaves ``axis`` out, as Keras does). ``R2Score`` creates its per-column
state at the first update (from the inputs' last dimension) and refuses anything but 2-D inputs.
"""

from __future__ import annotations

import warnings

from .. import _loss_functions as _lf
from .._loss_functions import _to_tensor, squeeze_or_expand_to_same_rank
from .._loss_functions import mean_absolute_error as _mae_fn
from .._loss_functions import mean_squared_error as _mse_fn
from .base import LossMean, Mean, Metric, _tf, loss_function
from .base import MeanMetricWrapper as _MeanMetricWrapper

__all__ = ["MeanSquaredError", "MeanAbsoluteError", "RootMeanSquaredError", "MeanAbsolutePercentageError",
           "MeanSquaredLogarithmicError", "LogCoshError", "CosineSimilarity", "R2Score"]


class MeanSquaredError(_MeanMetricWrapper):
    """The (weighted) mean over samples of the mean squared error along the last axis."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(fn=_mse_fn, name=name, dtype=dtype)
        self._direction = "down"


class MeanAbsoluteError(_MeanMetricWrapper):
    """The (weighted) mean over samples of the mean absolute error along the last axis."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_mae_fn, name, dtype=dtype)
        self._direction = "down"


class RootMeanSquaredError(Mean):
    """The square root of the (weighted) mean of squared errors over all elements."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the squared errors (cast to the metric's dtype) to the running weighted mean."""
        tf = _tf()
        y_true = _lf._to_tensor(y_true, self._dtype)
        y_pred = _lf._to_tensor(y_pred, self._dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(tf.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self):
        """``sqrt(total / count)``."""
        return _tf().sqrt(super().result())


class MeanAbsolutePercentageError(LossMean):
    """The (weighted) mean of the per-sample mean absolute percentage error."""

    _loss = loss_function("mean_absolute_percentage_error")

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(name, dtype)


class MeanSquaredLogarithmicError(LossMean):
    """The (weighted) mean of the per-sample mean squared logarithmic error."""

    _loss = loss_function("mean_squared_logarithmic_error")

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name, dtype)


class LogCoshError(LossMean):
    """The (weighted) mean of the per-sample log-cosh error."""

    _loss = loss_function("log_cosh")

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name, dtype)


def _cosine_similarity(y_true, y_pred, axis=-1):
    # The metric's similarity is +1 for aligned vectors: the loss's value negated (same normalisation).
    return -_lf.cosine_similarity(y_true, y_pred, axis=axis)


class CosineSimilarity(_MeanMetricWrapper):
    """The (weighted) mean of the cosine similarity along ``axis`` (higher is better)."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine_similarity, name, dtype=dtype, axis=axis)
        self._direction = "up"


class R2Score(Metric):
    """The coefficient of determination per output column, ``1 - SS_res / SS_tot`` (0 where that is infinite),
    aggregated by ``class_aggregation`` (``"uniform_average"``, ``"variance_weighted_average"`` or ``None``), and
    adjusted for ``num_regressors`` when there are enough samples (else a warning and the plain score).

    Raises:
        ValueError: for an unknown aggregation, a negative ``num_regressors``, or 2-D-incompatible inputs.
    """

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one of {valid}. Received: "
                             f"class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value >= 0. Received: "
                             f"num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable(shape=(), initializer="zeros", name="num_samples")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        n = y_pred_shape[-1]
        self.squared_sum = self.add_variable(name="squared_sum", shape=[n], initializer="zeros")
        self.sum = self.add_variable(name="sum", shape=[n], initializer="zeros")
        self.total_mse = self.add_variable(name="residual", shape=[n], initializer="zeros")
        self.count = self.add_variable(name="count", shape=[n], initializer="zeros")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the weighted sums, squared sums, squared residuals and weights per column."""
        tf = _tf()
        y_true = _to_tensor(y_true, self.dtype)
        y_pred = _to_tensor(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        sample_weight = _to_tensor(1 if sample_weight is None else sample_weight, self.dtype)
        if len(sample_weight.shape) == 1:
            sample_weight = tf.expand_dims(sample_weight, axis=1)
        sample_weight = tf.cast(tf.broadcast_to(sample_weight, tf.shape(y_true)), y_true.dtype)
        weighted = y_true * sample_weight
        self.sum.assign(self.sum + tf.reduce_sum(weighted, axis=0))
        self.squared_sum.assign(self.squared_sum + tf.reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign(self.total_mse + tf.reduce_sum((y_true - y_pred) ** 2 * sample_weight, axis=0))
        self.count.assign(self.count + tf.reduce_sum(sample_weight, axis=0))
        self.num_samples.assign(self.num_samples + tf.cast(tf.size(y_true), self.num_samples.dtype))

    def result(self):
        """The aggregated (and possibly adjusted) R² score."""
        tf = _tf()
        total_sum = tf.convert_to_tensor(self.sum)
        mean = total_sum / self.count
        total = self.squared_sum - total_sum * mean
        raw = 1 - self.total_mse / total
        raw = tf.where(tf.math.is_inf(raw), tf.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = tf.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = tf.reduce_sum(total * raw) / tf.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors != 0:
            num_samples = float(self.num_samples.numpy())
            if self.num_regressors > num_samples - 1:
                warnings.warn("More independent predictors than datapoints in adjusted R2 score. Falling back to "
                              "standard R2 score.", stacklevel=2)
            elif self.num_regressors == num_samples - 1:
                warnings.warn("Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                              stacklevel=2)
            else:
                n = tf.cast(self.num_samples, "float32")
                p = tf.constant(self.num_regressors, dtype="float32")
                score = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
        return score

    def get_config(self):
        """Name, dtype, ``class_aggregation``, ``num_regressors``."""
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}

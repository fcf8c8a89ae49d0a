"""Keras 3.15 metrics over a confusion matrix or per-class counts: the IoU family, ``FBetaScore``/``F1Score``,
``R2Score``, and the correlation metrics ``PearsonCorrelation``/``ConcordanceCorrelation``.

Conventions kept from Keras: the IoU metrics count in ``int64`` by default (float weights are then truncated, with
Keras's warning when the weights are a float tensor) and return float32; ratios add ``epsilon()`` (1e-7) to their
denominators, so results are not exact fractions; ``FBetaScore`` and ``R2Score`` create their per-class state on
the first update (from the inputs' last dimension) and refuse anything but 2-D inputs.
"""

from __future__ import annotations

import warnings

from ._loss_functions import _to_tensor, squeeze_or_expand_to_same_rank
from ._metric_base import MeanMetricWrapper as _MeanMetricWrapper
from ._metric_base import Metric

__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "FBetaScore", "F1Score", "R2Score",
           "PearsonCorrelation", "ConcordanceCorrelation", "pearson_correlation", "concordance_correlation"]

_EPSILON = 1e-7


def _tf():
    import tapeflow

    return tapeflow


# ------------------------------------------------------------------------------------------------------ IoU


class IoU(Metric):
    """Intersection over union of the classes ``target_class_ids``: ``tp / (tp + fp + fn)`` from an accumulated
    ``num_classes x num_classes`` confusion matrix (rows: labels, columns: predictions), averaged over the target
    classes whose denominator is non-zero.

    Labels or predictions outside ``[0, num_classes)``, and labels equal to ``ignore_class``, are left out. With
    ``sparse_y_true``/``sparse_y_pred`` false, the class is the argmax along ``axis``.

    Raises:
        ValueError: when a target class id is ``>= num_classes``.
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int")
        self._direction = "up"
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(name="total_confusion_matrix", shape=(num_classes, num_classes),
                                          initializer="zeros", dtype=self.dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is "
                             f"[0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the (weighted) pairs ``(label, prediction)`` to the confusion matrix."""
        tf = _tf()
        if not self.sparse_y_true:
            y_true = tf.argmax(_to_tensor(y_true), axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tf.argmax(_to_tensor(y_pred), axis=self.axis)
        y_true = tf.reshape(_to_tensor(y_true, self.dtype), [-1]) if _rank(y_true) > 1 else _to_tensor(
            y_true, self.dtype)
        y_pred = tf.reshape(_to_tensor(y_pred, self.dtype), [-1]) if _rank(y_pred) > 1 else _to_tensor(
            y_pred, self.dtype)
        if sample_weight is None:
            sample_weight = 1
        elif (hasattr(sample_weight, "dtype") and "float" in str(sample_weight.dtype)
              and "int" in str(self.dtype)):
            warnings.warn("You are passing weight as `float`, but dtype is `int`. This may result in an incorrect "
                          "weight due to type casting Consider using integer weights.", stacklevel=2)
        sample_weight = _to_tensor(sample_weight, self.dtype)
        if len(sample_weight.shape) > 1:
            sample_weight = tf.reshape(sample_weight, [-1])
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(y_true))
        n = tf.constant(self.num_classes, dtype=y_true.dtype)
        in_bounds = ((y_true >= 0) & (y_true < n)) & ((y_pred >= 0) & (y_pred < n))
        if self.ignore_class is not None:
            in_bounds = in_bounds & tf.not_equal(y_true, tf.constant(self.ignore_class, dtype=y_true.dtype))
        zero = tf.zeros_like(y_true)
        y_true = tf.where(in_bounds, y_true, zero)
        y_pred = tf.where(in_bounds, y_pred, zero)
        sample_weight = tf.where(in_bounds, sample_weight, tf.zeros_like(sample_weight))
        indices = tf.cast(tf.stack([y_true, y_pred], axis=1), "int64")
        current = tf.scatter_nd(indices, sample_weight, (self.num_classes, self.num_classes))
        self.total_cm.assign(self.total_cm + current)

    def reset_state(self):
        """Zero the confusion matrix."""
        self.total_cm.assign(_tf().zeros(self.total_cm.shape, dtype=self.total_cm.dtype))

    def result(self):
        """The mean IoU of the target classes with a non-zero denominator (float32)."""
        tf = _tf()
        cm = tf.convert_to_tensor(self.total_cm)
        sum_over_row = tf.cast(tf.reduce_sum(cm, axis=0), self.dtype)
        sum_over_col = tf.cast(tf.reduce_sum(cm, axis=1), self.dtype)
        true_positives = tf.cast(tf.linalg.diag_part(cm), self.dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        ids = tf.constant(self.target_class_ids, dtype="int32")
        true_positives = tf.cast(tf.gather(true_positives, ids), "float32")
        denominator = tf.cast(tf.gather(denominator, ids), "float32")
        valid = tf.cast(denominator > 1e-9, "float32")
        iou = tf.where(tf.cast(valid, "bool"), true_positives / (denominator + _EPSILON), 0.0)
        return tf.reduce_sum(iou, axis=self.axis) / (tf.reduce_sum(valid) + _EPSILON)

    def get_config(self):
        """Name, dtype, and the constructor arguments."""
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


def _rank(x):
    return len(getattr(x, "shape", None) or ()) if hasattr(x, "shape") else len(_to_tensor(x).shape)


class BinaryIoU(IoU):
    """IoU for binary labels, with predictions thresholded: class 1 where ``y_pred >= threshold``."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Threshold ``y_pred`` (in float32), then count as ``IoU`` does."""
        tf = _tf()
        y_true = _to_tensor(y_true, self.dtype)
        y_pred = tf.cast(_to_tensor(y_pred, "float32") >= self.threshold, self.dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        """``target_class_ids``, ``threshold``, name and dtype."""
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype}


class MeanIoU(IoU):
    """The mean IoU over all ``num_classes`` classes (those with a non-zero denominator)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred,
                         axis=axis)

    def get_config(self):
        """The constructor arguments (no ``target_class_ids``)."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class OneHotIoU(IoU):
    """``IoU`` with one-hot labels (and, unless ``sparse_y_pred``, scores): classes are argmaxes along ``axis``."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        """The constructor arguments."""
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids, "name": self.name,
                "dtype": self.dtype, "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """``MeanIoU`` with one-hot labels (and, unless ``sparse_y_pred``, scores)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes=num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        """The constructor arguments."""
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


# ---------------------------------------------------------------------------------------------- F-scores


class FBetaScore(Metric):
    """The F-beta score ``(1 + beta²) p r / (beta² p + r)`` per class (``average=None``), or aggregated:
    ``"micro"`` (counts pooled over classes), ``"macro"`` (mean over classes), ``"weighted"`` (weighted by each
    class's label support). Predictions count as positive where ``y_pred > threshold``, or, without a threshold,
    where they equal their row's maximum (and are non-zero). Inputs are 2-D ``(batch, classes)``.

    Raises:
        ValueError: for an unknown ``average``, a ``beta`` that is not a positive float, a ``threshold`` that is
            not a float in ``(0, 1]``, or (at the first update) inputs that are not 2-D.
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError("Invalid `beta` argument value. It should be a Python float. Received: "
                             f"beta={beta} of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError("Invalid `threshold` argument value. It should be a Python float. Received: "
                                 f"threshold={threshold} of type '{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError("Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                                 f"Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError("FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        shape = () if self.average == "micro" else (y_pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives", "intermediate_weights"):
            setattr(self, name, self.add_variable(name=name, shape=shape, initializer="zeros", dtype=self.dtype))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the (weighted) true/false positive and false negative counts."""
        tf = _tf()
        y_true = _to_tensor(y_true, self.dtype)
        y_pred = _to_tensor(y_pred, self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            row_max = tf.reduce_max(y_pred, axis=-1, keepdims=True)
            y_pred = (y_pred >= row_max) & (tf.abs(y_pred) > 1e-9)
        else:
            y_pred = y_pred > self.threshold
        y_pred = tf.cast(y_pred, self.dtype)
        if sample_weight is not None:
            sample_weight = _to_tensor(sample_weight, self.dtype)

        def weighted_sum(value):
            if sample_weight is not None:
                value = value * tf.expand_dims(sample_weight, 1)
            return tf.reduce_sum(value, axis=self.axis)

        self.true_positives.assign(self.true_positives + weighted_sum(y_pred * y_true))
        self.false_positives.assign(self.false_positives + weighted_sum(y_pred * (1 - y_true)))
        self.false_negatives.assign(self.false_negatives + weighted_sum((1 - y_pred) * y_true))
        self.intermediate_weights.assign(self.intermediate_weights + weighted_sum(y_true))

    def result(self):
        """The score per class, or its aggregate."""
        tf = _tf()
        tp = tf.convert_to_tensor(self.true_positives)
        precision = tp / (tp + self.false_positives + _EPSILON)
        recall = tp / (tp + self.false_negatives + _EPSILON)
        beta_sq = self.beta ** 2
        score = precision * recall / (beta_sq * precision + recall + _EPSILON) * (1 + beta_sq)
        if self.average == "weighted":
            weights = tf.convert_to_tensor(self.intermediate_weights)
            score = tf.reduce_sum(score * (weights / (tf.reduce_sum(weights) + _EPSILON)))
        elif self.average is not None:
            score = tf.reduce_mean(score)
        return score

    def reset_state(self):
        """Zero the counts (once built)."""
        tf = _tf()
        for v in self.variables:
            v.assign(tf.zeros(v.shape, dtype=v.dtype))

    def get_config(self):
        """Name, dtype, ``average``, ``beta``, ``threshold``."""
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """``FBetaScore`` with ``beta=1``."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        """Name, dtype, ``average``, ``threshold``."""
        config = super().get_config()
        del config["beta"]
        return config


# ------------------------------------------------------------------------------------------------------ R²


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

    def reset_state(self):
        """Zero the state (once built)."""
        tf = _tf()
        for v in self.variables:
            v.assign(tf.zeros(v.shape, dtype=v.dtype))

    def get_config(self):
        """Name, dtype, ``class_aggregation``, ``num_regressors``."""
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


# -------------------------------------------------------------------------------------------- correlations


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

"""More ``tf.keras.metrics`` classes (Keras 3.15): regression, probabilistic and hinge means, and the
confusion-matrix condition counts.

The loss-based metrics are weighted means of the per-sample loss functions of ``_loss_functions``; their
``get_config`` lists only what Keras lists (``CosineSimilarity`` leaves ``axis`` out, as Keras does). The condition
counts (``TruePositives`` ...) keep one ``accumulator`` per threshold and return a scalar for a single threshold.
"""

from __future__ import annotations

from . import _loss_functions as _lf
from ._confusion import _evenly_distributed, _parse_thresholds, _update_counts
from ._loss_functions import squeeze_or_expand_to_same_rank
from ._metric_base import Mean, Metric
from ._metric_base import MeanMetricWrapper as _MeanMetricWrapper

__all__ = [
    "RootMeanSquaredError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "CosineSimilarity",
    "LogCoshError", "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "KLDivergence", "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge", "TruePositives", "FalsePositives",
    "TrueNegatives", "FalseNegatives",
]


def _tf():
    import tapeflow

    return tapeflow


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


class _LossMean(_MeanMetricWrapper):
    # Subclasses set ``_loss``, a per-sample function of _loss_functions.
    _loss = None

    def __init__(self, name=None, dtype=None):
        super().__init__(type(self)._loss, name, dtype=dtype)
        self._direction = "down"


def _named(fn_name):
    return staticmethod(getattr(_lf, fn_name))


class MeanAbsolutePercentageError(_LossMean):
    """The (weighted) mean of the per-sample mean absolute percentage error."""

    _loss = _named("mean_absolute_percentage_error")

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(name, dtype)


class MeanSquaredLogarithmicError(_LossMean):
    """The (weighted) mean of the per-sample mean squared logarithmic error."""

    _loss = _named("mean_squared_logarithmic_error")

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name, dtype)


class LogCoshError(_LossMean):
    """The (weighted) mean of the per-sample log-cosh error."""

    _loss = _named("log_cosh")

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name, dtype)


class KLDivergence(_LossMean):
    """The (weighted) mean of the per-sample Kullback-Leibler divergence."""

    _loss = _named("kl_divergence")

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(name, dtype)


class Poisson(_LossMean):
    """The (weighted) mean of the per-sample Poisson loss."""

    _loss = _named("poisson")

    def __init__(self, name="poisson", dtype=None):
        super().__init__(name, dtype)


class Hinge(_LossMean):
    """The (weighted) mean of the per-sample hinge loss (0/1 labels mapped to -1/1)."""

    _loss = _named("hinge")

    def __init__(self, name="hinge", dtype=None):
        super().__init__(name, dtype)


class SquaredHinge(_LossMean):
    """The (weighted) mean of the per-sample squared hinge loss."""

    _loss = _named("squared_hinge")

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(name, dtype)


class CategoricalHinge(_LossMean):
    """The (weighted) mean of the per-sample categorical hinge loss."""

    _loss = _named("categorical_hinge")

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(name, dtype)


def _cosine_similarity(y_true, y_pred, axis=-1):
    # The metric's similarity is +1 for aligned vectors: the loss's value negated (same normalisation).
    return -_lf.cosine_similarity(y_true, y_pred, axis=axis)


class CosineSimilarity(_MeanMetricWrapper):
    """The (weighted) mean of the cosine similarity along ``axis`` (higher is better)."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine_similarity, name, dtype=dtype, axis=axis)
        self._direction = "up"


class BinaryCrossentropy(_MeanMetricWrapper):
    """The (weighted) mean of the per-sample binary crossentropy."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(_lf.binary_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self._direction = "down"

    _config_keys = ("from_logits", "label_smoothing")


class CategoricalCrossentropy(_MeanMetricWrapper):
    """The (weighted) mean of the per-sample categorical crossentropy (one-hot labels)."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(_lf.categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self._direction = "down"

    _config_keys = ("from_logits", "label_smoothing", "axis")


class SparseCategoricalCrossentropy(_MeanMetricWrapper):
    """The (weighted) mean of the per-sample sparse categorical crossentropy (integer labels)."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None,
                 axis=-1):
        super().__init__(_lf.sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis
        self._direction = "down"

    _config_keys = ("from_logits", "ignore_class", "axis")


class _ConditionCount(Metric):
    _key = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _parse_thresholds(thresholds, 0.5)
        self._thresholds_distributed_evenly = _evenly_distributed(self.thresholds)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), initializer="zeros", name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add the (weighted) count of the condition at each threshold."""
        _update_counts({self._key: self.accumulator}, y_true, y_pred, self.thresholds, sample_weight=sample_weight,
                       evenly=self._thresholds_distributed_evenly)

    def result(self):
        """A scalar tensor for a single threshold; otherwise, as in Keras, the ``accumulator`` variable itself."""
        return self.accumulator[0] if len(self.thresholds) == 1 else self.accumulator

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    """The (weighted) number of positive labels predicted above each threshold."""

    _key = "tp"


class FalsePositives(_ConditionCount):
    """The (weighted) number of negative labels predicted above each threshold."""

    _key = "fp"


class TrueNegatives(_ConditionCount):
    """The (weighted) number of negative labels predicted at or below each threshold."""

    _key = "tn"


class FalseNegatives(_ConditionCount):
    """The (weighted) number of positive labels predicted at or below each threshold."""

    _key = "fn"

"""F-score metrics of ``tf.keras.metrics`` (Keras 3.15): ``FBetaScore`` and ``F1Score``.

As in Keras, they create their per-class counts at the first update (from the inputs' last dimension), refuse
anything but 2-D inputs, and add ``epsilon()`` (1e-7) to the denominators of precision, recall and the score.
"""

from __future__ import annotations

from .._loss_functions import _to_tensor
from .base import _EPSILON, Metric, _tf

__all__ = ["FBetaScore", "F1Score"]


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

"""Accuracy metrics of ``tf.keras.metrics`` (Keras 3.15): ``Accuracy``, the binary, categorical and sparse
categorical accuracies, the two top-k accuracies, and their per-sample function forms.

The function forms return float32 (``floatx()``) per sample whatever their inputs; the classes are weighted means
of them. Top-k counts ties in, as ``tf.math.in_top_k`` does.
"""

from __future__ import annotations

from .._loss_functions import _to_tensor, squeeze_or_expand_to_same_rank
from .base import MeanMetricWrapper as _MeanMetricWrapper
from .base import _tf, floatx

__all__ = [
    "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy", "TopKCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy",
]


def _convert(x, dtype=None):
    return _to_tensor(x, dtype)


def _argmax(x):
    return _tf().argmax(x, axis=-1, output_type="int32")


def _in_top_k(targets, predictions, k):
    """``tf.math.in_top_k``: the target's score has fewer than ``k`` scores strictly above it (ties count in).

    A non-finite target score or an out-of-range target gives ``False``, as on TF.
    """
    tf = _tf()
    if predictions.dtype != tf.float32:
        # TF's InTopKV2 kernel takes float32 scores only.
        from ..._core.convert import c_name

        raise tf.errors.InvalidArgumentError(
            None, None, "cannot compute InTopKV2 as input #0(zero-based) was expected to be a float tensor but "
            f"is a {c_name(predictions.dtype)} tensor [Op:InTopKV2] name: ")
    num_classes = predictions.shape[-1]
    targets = tf.cast(targets, "int32")
    valid = tf.logical_and(targets >= 0, targets < num_classes)
    picked = tf.one_hot(tf.where(valid, targets, tf.zeros_like(targets)), num_classes, True, False)
    zeros = tf.zeros_like(predictions)
    target_score = tf.reduce_sum(tf.where(picked, predictions, zeros), axis=-1)
    above = tf.reduce_sum(tf.cast(predictions > target_score[:, None], "int32"), axis=-1)
    finite = tf.math.is_finite(target_score)
    return tf.logical_and(tf.logical_and(valid, finite), above < k)


def _accuracy(y_true, y_pred):
    tf = _tf()
    y_pred = _convert(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Per element, 1.0 where ``y_pred > threshold`` agrees with ``y_true`` (compared in ``y_true``'s dtype)."""
    tf = _tf()
    y_pred = _convert(y_pred)
    y_true = _convert(y_true)
    threshold = _convert(threshold)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if y_pred.dtype != threshold.dtype:
        # Keras promotes the comparison to a common type; float32 covers integer predictions and thresholds.
        common = y_pred.dtype if y_pred.dtype.is_floating else threshold.dtype
        if not common.is_floating:
            common = tf.float32
        y_pred, threshold = tf.cast(y_pred, common), tf.cast(threshold, common)
    y_pred = tf.cast(y_pred > threshold, y_true.dtype)
    return tf.cast(tf.equal(y_true, y_pred), floatx())


def categorical_accuracy(y_true, y_pred):
    """Per sample, 1.0 where the argmax of the one-hot ``y_true`` is the argmax of ``y_pred``."""
    tf = _tf()
    y_true = _argmax(_convert(y_true))
    y_pred = _convert(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    true_shape = y_true.shape
    reshape = False
    if len(y_true.shape) == len(y_pred.shape):
        y_true = tf.squeeze(y_true, -1)
        reshape = True
    y_pred = tf.cast(_argmax(y_pred), y_true.dtype)
    matches = tf.cast(tf.equal(y_true, y_pred), floatx())
    return tf.reshape(matches, true_shape) if reshape else matches


def sparse_categorical_accuracy(y_true, y_pred):
    """Per sample, 1.0 where the integer label ``y_true`` is the argmax of ``y_pred``."""
    tf = _tf()
    y_pred = _convert(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    true_shape = y_true.shape
    reshape = False
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, -1)
        reshape = True
    y_pred = tf.cast(_argmax(y_pred), y_true.dtype)
    matches = tf.cast(tf.equal(y_true, y_pred), floatx())
    if reshape:
        matches = tf.reshape(matches, true_shape)
    if len(matches.shape) > 1 and matches.shape[-1] == 1:
        matches = tf.squeeze(matches, -1)
    return matches


def _per_row(y_true, y_pred, match):
    """``match(labels, scores)`` on rows, as Keras's top-k accuracies compute it: ``y_pred`` flattened to
    ``[-1, classes]``, ``y_true`` to ``[-1]``, and the float result given back ``y_true``'s shape."""
    tf = _tf()
    true_shape = y_true.shape
    if len(y_pred.shape) > 2:
        y_pred = tf.reshape(y_pred, [-1, y_pred.shape[-1]])
    reshape = len(y_true.shape) > 1
    if reshape:
        y_true = tf.reshape(y_true, [-1])
    matches = tf.cast(match(y_true, y_pred), floatx())
    return tf.reshape(matches, true_shape) if reshape else matches


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """Per sample, 1.0 where the one-hot ``y_true``'s class is among the ``k`` best scores (ties count in)."""
    y_pred = _convert(y_pred)
    y_true = _argmax(_convert(y_true, y_pred.dtype))
    return _per_row(y_true, y_pred, lambda labels, scores: _in_top_k(labels, scores, k))


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """Per sample, 1.0 where the label is among the ``k`` best scores, or (``from_sorted_ids``) among the first
    ``k`` ids of ``y_pred``."""
    tf = _tf()
    y_pred = _convert(y_pred)
    y_true = _convert(y_true, y_pred.dtype if from_sorted_ids else "int32")
    if from_sorted_ids:
        return _per_row(y_true, y_pred, lambda labels, ids: tf.reduce_any(
            tf.equal(tf.expand_dims(labels, 1), ids[:, :k]), axis=1))
    return _per_row(y_true, y_pred, lambda labels, scores: _in_top_k(labels, scores, k))


class Accuracy(_MeanMetricWrapper):
    """How often predictions equal labels (elementwise, weighted mean)."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(fn=_accuracy, name=name, dtype=dtype)
        self._direction = "up"


class BinaryAccuracy(_MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches binary labels."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(fn=binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold
        self._direction = "up"

    _config_keys = ("threshold",)


class CategoricalAccuracy(_MeanMetricWrapper):
    """How often the argmax of ``y_pred`` is the one-hot label's class."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(fn=categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"


class SparseCategoricalAccuracy(_MeanMetricWrapper):
    """How often the argmax of ``y_pred`` is the integer label."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(fn=sparse_categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"


class TopKCategoricalAccuracy(_MeanMetricWrapper):
    """How often the one-hot label's class is among the ``k`` best scores."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(fn=top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k
        self._direction = "up"

    _config_keys = ("k",)


class SparseTopKCategoricalAccuracy(_MeanMetricWrapper):
    """How often the integer label is among the ``k`` best scores (or the first ``k`` sorted ids)."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False):
        super().__init__(fn=sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)
        self.k = k
        self.from_sorted_ids = from_sorted_ids
        self._direction = "up"

    def get_config(self):
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config

"""Intersection-over-union metrics of ``tf.keras.metrics`` (Keras 3.15): ``IoU``, ``MeanIoU``, ``BinaryIoU``,
``OneHotIoU`` and ``OneHotMeanIoU``, over an accumulated confusion matrix.

Conventions kept from Keras: the IoU metrics count in ``int64`` by default (float weights are then truncated, with
Keras's warning when the weights are a float tensor) and return float32; the ratios add ``epsilon()`` (1e-7) to
their denominators, so results are not exact fractions.
"""

from __future__ import annotations

import warnings

from .._loss_functions import _to_tensor
from .base import _EPSILON, Metric, _tf

__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU"]


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

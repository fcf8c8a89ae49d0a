"""Confusion-matrix metrics of ``tf.keras.metrics`` (Keras 3.15): ``Precision``, ``Recall``, ``AUC`` and the
condition counts ``TruePositives``, ``FalsePositives``, ``TrueNegatives``, ``FalseNegatives``.

Counts are float32 variables of one entry per threshold; a prediction is positive at a threshold when it is
strictly above it. Keras's conventions kept: with ``top_k`` all but the ``k`` best scores of a sample are pushed
to ``-1e10`` (and the default threshold becomes ``-1e10``, so exactly those count as positive); ``class_id``
keeps one column; thresholds spread evenly over ``[0, 1]`` (AUC's default) see predictions clipped to ``[0, 1]``
first, as Keras's bucketed counting does. The condition counts keep one ``accumulator`` per threshold and return
a scalar for a single threshold.
"""

from __future__ import annotations

import numpy as np

from .._loss_functions import squeeze_or_expand_to_same_rank
from .base import _EPSILON, Metric, _tf

__all__ = ["Precision", "Recall", "AUC", "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"]

NEG_INF = -1e10


def _to_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _parse_thresholds(thresholds, default):
    if thresholds is not None:
        bad = [t for t in _to_list(thresholds) if t is None or t < 0 or t > 1]
        if bad:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")
    return _to_list(default if thresholds is None else thresholds)


def _evenly_distributed(thresholds):
    n = len(thresholds)
    if n < 3:
        return False
    return bool(np.allclose(thresholds, np.arange(n, dtype=np.float32) / (n - 1), atol=_EPSILON))


def _filter_top_k(x, k):
    tf = _tf()
    _, idx = tf.math.top_k(x, k)
    mask = tf.reduce_sum(tf.one_hot(idx, x.shape[-1], dtype=x.dtype), axis=-2)
    return x * mask + NEG_INF * (1 - mask)


def _update_counts(variables, y_true, y_pred, thresholds, top_k=None, class_id=None, sample_weight=None,
                   evenly=False, multi_label=False, label_weights=None):
    """Add the (weighted) counts of ``tp``/``fp``/``tn``/``fn`` (keys of ``variables``) at each threshold.

    With ``multi_label`` the counts are kept per label (the last axis of a rank-2 ``y_pred``).
    """
    tf = _tf()
    dtype = next(iter(variables.values())).dtype
    y_true = tf.cast(y_true, dtype)
    y_pred = tf.cast(y_pred, dtype)
    thresholds = tf.constant(thresholds, dtype=dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = tf.expand_dims(tf.cast(sample_weight, dtype), axis=-1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if len(y_pred.shape) == 1:
            raise ValueError("When class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                             f"num_classes), found shape: {y_pred.shape}")
        y_true = y_true[..., class_id:class_id + 1]
        y_pred = y_pred[..., class_id:class_id + 1]
    if evenly:
        y_pred = tf.clip_by_value(y_pred, 0.0, 1.0)
    flat = [1, -1] if not multi_label else [1, *y_pred.shape]
    preds = tf.reshape(y_pred, flat)
    labels = tf.reshape(tf.cast(y_true, "bool"), flat)
    pred_pos = preds > tf.reshape(thresholds, [-1] + [1] * (len(flat) - 1))
    label_pos = tf.broadcast_to(labels, tf.shape(pred_pos))
    weights = None
    if sample_weight is not None:
        weights = tf.reshape(tf.broadcast_to(sample_weight, tf.shape(y_pred)), flat)
    if label_weights is not None:
        label_weights = tf.reshape(tf.broadcast_to(tf.cast(label_weights, dtype), tf.shape(y_pred)), flat)
        weights = label_weights if weights is None else weights * label_weights
    conditions = {
        "tp": lambda: tf.logical_and(label_pos, pred_pos),
        "fp": lambda: tf.logical_and(tf.logical_not(label_pos), pred_pos),
        "tn": lambda: tf.logical_and(tf.logical_not(label_pos), tf.logical_not(pred_pos)),
        "fn": lambda: tf.logical_and(label_pos, tf.logical_not(pred_pos)),
    }
    for key, var in variables.items():
        hit = conditions[key]()
        if weights is None:
            counted = tf.cast(hit, dtype)
        else:
            counted = tf.where(hit, tf.broadcast_to(weights, tf.shape(hit)), tf.zeros_like(preds))
        var.assign(var + tf.reduce_sum(counted, axis=1))


class _PrecisionRecall(Metric):
    _other = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        self.thresholds = _parse_thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        self._thresholds_distributed_evenly = _evenly_distributed(self.thresholds)
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), initializer="zeros", name="true_positives")
        other = self.add_variable(shape=(n,), initializer="zeros", name=self._other)
        setattr(self, self._other, other)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count true positives and the other condition at each threshold (weighted by ``sample_weight``)."""
        _update_counts({"tp": self.true_positives, self._key: getattr(self, self._other)}, y_true, y_pred,
                       self.thresholds, top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight,
                       evenly=self._thresholds_distributed_evenly)

    def result(self):
        """``tp / (tp + other)`` per threshold (``0`` where nothing was counted); a scalar for one threshold."""
        tf = _tf()
        tp = tf.convert_to_tensor(self.true_positives)
        res = tf.math.divide_no_nan(tp, tp + tf.convert_to_tensor(getattr(self, self._other)))
        return res[0] if len(self.thresholds) == 1 else res

    def reset_state(self):
        tf = _tf()
        n = len(self.thresholds)
        self.true_positives.assign(tf.zeros((n,)))
        getattr(self, self._other).assign(tf.zeros((n,)))

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_PrecisionRecall):
    """``tp / (tp + fp)``: the share of predicted positives that are positive.

    Args:
        thresholds: a float or list of floats in ``[0, 1]``; ``0.5`` by default (``-1e10`` with ``top_k``).
        top_k: count only each sample's ``k`` best scores as candidates for positives.
        class_id: restrict to this column of multi-class predictions.
        name, dtype: as for ``Metric`` (the counts are float32 regardless).
    """

    _other = "false_positives"
    _key = "fp"


class Recall(_PrecisionRecall):
    """``tp / (tp + fn)``: the share of positives predicted positive (arguments as for ``Precision``)."""

    _other = "false_negatives"
    _key = "fn"


_CURVES = {"pr": "PR", "PR": "PR", "roc": "ROC", "ROC": "ROC", "prgain": "PRGAIN", "PRGAIN": "PRGAIN"}
_SUMMATIONS = {"interpolation": "interpolation", "Interpolation": "interpolation", "majoring": "majoring",
               "Majoring": "majoring", "minoring": "minoring", "Minoring": "minoring"}


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from counts at ``num_thresholds`` thresholds.

    Args:
        num_thresholds: thresholds spread evenly over ``[0, 1]`` (the ends widened by ``1e-7``); > 1.
        curve: ``"ROC"``, ``"PR"`` or ``"PRGAIN"``.
        summation_method: ``"interpolation"`` (trapezoids; for PR, Davis & Goadrich's interpolation),
            ``"majoring"`` or ``"minoring"``.
        name, dtype: as for ``Metric``.
        thresholds: explicit thresholds in ``[0, 1]`` instead of ``num_thresholds``.
        multi_label: count per label (rank-2 ``y_pred``) and average the per-label areas; otherwise all
            entries are pooled.
        num_labels: with ``multi_label``, create the state now rather than at the first update.
        label_weights: per-label weights (of the counts when pooled, of the average with ``multi_label``).
        from_logits: apply a sigmoid to predictions first.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        self._direction = "up"
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = _evenly_distributed(np.array([0.0] + thresholds + [1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        self._thresholds = np.array([0.0 - _EPSILON] + thresholds + [1.0 + _EPSILON])
        if curve not in _CURVES:
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]')
        if summation_method not in _SUMMATIONS:
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". '
                             'Expected values are ["interpolation", "majoring", "minoring"]')
        self.curve = _CURVES[curve]
        self.summation_method = _SUMMATIONS[summation_method]
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else _tf().constant(label_weights, dtype=self.dtype)
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build([None, num_labels])
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {len(shape)}. "
                                 f"Full shape received for `y_pred`: {shape}")
            self._num_labels = shape[1]
            var_shape = [self.num_thresholds, self._num_labels]
        else:
            var_shape = [self.num_thresholds]
        self._build_input_shape = shape
        for var in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, var, self.add_variable(shape=var_shape, initializer="zeros", name=var))
        self._built = True

    @property
    def thresholds(self):
        """The thresholds, the two widened ends included."""
        return list(self._thresholds)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Count tp, fp, tn, fn at every threshold (weighted by ``sample_weight`` and ``label_weights``)."""
        tf = _tf()
        if not self._built:
            y_pred = tf.convert_to_tensor(y_pred)
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = tf.math.sigmoid(y_pred)
        _update_counts({"tp": self.true_positives, "tn": self.true_negatives, "fp": self.false_positives,
                        "fn": self.false_negatives}, y_true, y_pred, self._thresholds,
                       sample_weight=sample_weight, evenly=self._thresholds_distributed_evenly,
                       multi_label=self.multi_label, label_weights=None if self.multi_label else self.label_weights)

    def _average(self, terms):
        tf = _tf()
        if not self.multi_label:
            return tf.reduce_sum(terms)
        by_label = tf.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return tf.reduce_mean(by_label)
        weights = tf.cast(self.label_weights, by_label.dtype)
        return tf.math.divide_no_nan(tf.reduce_sum(by_label * weights), tf.reduce_sum(weights))

    def _interpolate_pr_auc(self, tp, fp, fn):
        tf = _tf()
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = tf.math.divide_no_nan(dtp, tf.maximum(dp, 0.0))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = tf.where(tf.logical_and(p[: n - 1] > 0, p[1:] > 0),
                                tf.math.divide_no_nan(p[: n - 1], tf.maximum(p[1:], 0.0)), tf.ones_like(p[1:]))
        increment = tf.math.divide_no_nan(prec_slope * (dtp + intercept * tf.math.log(safe_p_ratio)),
                                          tf.maximum(tp[1:] + fn[1:], 0.0))
        return self._average(increment)

    def result(self):
        """The area, by ``summation_method`` over the curve's points at the thresholds."""
        tf = _tf()
        tp, fp, tn, fn = (tf.convert_to_tensor(v) for v in (self.true_positives, self.false_positives,
                                                            self.true_negatives, self.false_negatives))
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tf.math.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, tf.math.divide_no_nan(tp, tp + fp)
        else:
            scale = tf.math.divide_no_nan(tp + fn, tn + fp)
            recall_gain = 1.0 - scale * tf.math.divide_no_nan(fn, tp)
            precision_gain = 1.0 - scale * tf.math.divide_no_nan(fp, tp)
            recall_gain = tf.where(tf.equal(tp, 0.0), tf.zeros_like(tp), recall_gain)
            precision_gain = tf.where(tf.equal(tp, 0.0), tf.ones_like(tp), precision_gain)
            x, y = tf.maximum(recall_gain, 0.0), precision_gain
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(y[: n - 1], y[1:])
        else:
            heights = tf.maximum(y[: n - 1], y[1:])
        return self._average((x[: n - 1] - x[1:]) * heights)

    def reset_state(self):
        if not self._built:
            return
        tf = _tf()
        for v in (self.true_positives, self.false_positives, self.true_negatives, self.false_negatives):
            v.assign(tf.zeros(v.shape))

    def get_config(self):
        label_weights = self.label_weights
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": self.multi_label,
                  "num_labels": self.num_labels, "label_weights": label_weights, "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return {**super().get_config(), **config}


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

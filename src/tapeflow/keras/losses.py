"""``tf.keras.losses`` (Keras 3.15): ``Loss`` and its reductions, the loss classes, their function forms, ``get``.

A loss object converts both inputs to its ``dtype`` (``"float32"`` unless given), computes per-sample losses with
the function form, weights them by ``sample_weight`` (ranks reconciled as Keras does) and reduces them:
``"sum_over_batch_size"``/``"mean"`` divide the sum by the number of loss entries (``divide_no_nan``),
``"mean_with_sample_weight"`` by the sum of the weights, ``"sum"`` sums, ``"none"``/``None`` keep them.
Everything is built from tapeflow ops, so GradientTape differentiates through it.
"""

from __future__ import annotations

import inspect
import sys

from . import _masks, _state
from ._loss_functions import (
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    _sparse_categorical_crossentropy,
    _to_tensor,
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    kld,
    kullback_leibler_divergence,
    log_cosh,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
    squeeze_or_expand_to_same_rank,
)

__all__ = [
    "Loss", "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
    "CosineSimilarity", "Huber", "LogCosh", "KLDivergence", "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "mse", "MSE", "mae", "MAE", "mape", "MAPE", "msle", "MSLE", "kld", "KLD", "kullback_leibler_divergence",
    "logcosh", "cosine_similarity", "huber", "poisson", "hinge", "squared_hinge", "categorical_hinge",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy", "get",
]

_REDUCTIONS = {"sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight"}


def _tf():
    import tapeflow

    return tapeflow


def _floatx():
    from . import backend

    return backend.floatx() if hasattr(backend, "floatx") else "float32"


def _compute_dtype(dtype):
    """The compute dtype named by ``dtype`` (a dtype name, a ``tf.DType``, or a policy with ``compute_dtype``)."""
    if dtype is None:
        return _floatx()
    if hasattr(dtype, "compute_dtype"):
        return dtype.compute_dtype
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        return {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}.get(dtype, dtype)
    return _tf().as_dtype(dtype).name


def standardize_reduction(reduction):
    """Return ``reduction`` if Keras accepts it, else raise Keras's ``ValueError``."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. "
                         f"Received: reduction={reduction}")
    return reduction


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Reduce (already weighted) per-sample losses; a scalar or empty vector comes back as it is."""
    tf = _tf()
    if reduction is None or reduction == "none" or tuple(values.shape) in ((), (0,)):
        return values
    loss = tf.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = tf.cast(tf.reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = tf.cast(tf.reduce_prod(tf.shape(values)), loss.dtype)  # dynamic: a traced batch is None
        loss = tf.math.divide_no_nan(loss, divisor)
        loss = scale_loss_for_distribution(loss)
    return loss


def _replicas():
    """The current ``tf.distribute`` strategy's replica count, 1 when ``tf.distribute`` was never loaded."""
    context = sys.modules.get("tapeflow.distribute._context")
    return 1 if context is None else context.num_replicas_in_sync()


def scale_loss_for_distribution(value):
    """``value / num_replicas_in_sync`` under a strategy with several replicas (Keras on TensorFlow does so to each
    mean loss, so that the gradients the replicas sum make the mean over the global batch)."""
    n = _replicas()
    if n > 1:
        tf = _tf()
        value = value * tf.cast(1.0 / n, value.dtype)
    return value


def unscale_loss_for_distribution(value):
    """Undo :func:`scale_loss_for_distribution` (for the loss a metric reports)."""
    n = _replicas()
    if n > 1:
        tf = _tf()
        value = value * tf.cast(n, value.dtype)
    return value


def _apply_mask(sample_weight, mask, dtype, reduction):
    """Fold a mask into the weights; under a mean, kept entries are scaled so the mean is over them alone."""
    if mask is None:
        return sample_weight
    tf = _tf()
    if reduction in ("mean", "sum_over_batch_size"):
        total = tf.cast(tf.reduce_prod(tf.shape(mask)), dtype)
        valid = tf.reduce_sum(tf.cast(mask, dtype))
        float_mask = tf.where(tf.cast(mask, tf.bool), tf.math.divide_no_nan(total, valid), tf.constant(0, dtype))
    else:
        float_mask = tf.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = tf.cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    return sample_weight * float_mask


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction="sum_over_batch_size", dtype=None):
    """Weight ``values`` by ``sample_weight`` (and ``mask``), then reduce them with ``reduction``."""
    tf = _tf()
    reduction = standardize_reduction(reduction)
    values = _to_tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = _to_tensor(sample_weight, dtype)
    if mask is not None:
        mask = _to_tensor(mask, dtype)
    sample_weight = _apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = tf.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


class Loss:
    """Base class of Keras losses: subclasses define ``call(y_true, y_pred)`` returning per-sample losses."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or _state.auto_name(self.__class__.__name__)
        self.reduction = standardize_reduction(reduction)
        self._dtype = _compute_dtype(dtype)

    @property
    def dtype(self):
        """The dtype both inputs are converted to before the loss is computed (a string)."""
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        tf = _tf()
        in_mask = _masks.get_keras_mask(y_pred)  # the mask a masked model output carries (Keras's rule)
        with tf.name_scope(self.name):
            y_pred = _to_tensor(y_pred, self.dtype)
            y_true = _to_tensor(y_true, self.dtype)
            losses, mask = self._call_with_mask(y_true, y_pred)
            if in_mask is not None:
                mask = in_mask if mask is None else tf.logical_and(in_mask, mask)
            return reduce_weighted_values(losses, sample_weight=sample_weight, mask=mask,
                                          reduction=self.reduction, dtype=self.dtype)

    def _call_with_mask(self, y_true, y_pred):
        # Keras carries a loss mask on the tensor itself; tapeflow tensors take no attributes, so it travels here.
        return self.call(y_true, y_pred), None

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A ``Loss`` computing its per-sample values with a function form (and fixed keyword arguments)."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update({"fn": self.fn.__name__})
        config.update(self._fn_kwargs)
        return config

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


class _SimpleLoss(LossFunctionWrapper):
    """A wrapper whose config is the base ``Loss`` config alone (Keras omits extra arguments such as ``delta``)."""

    def get_config(self):
        return Loss.get_config(self)


def _simple(class_name, fn, default_name, doc):
    def __init__(self, reduction="sum_over_batch_size", name=default_name, dtype=None):
        LossFunctionWrapper.__init__(self, fn, name=name, reduction=reduction, dtype=dtype)

    return type(class_name, (_SimpleLoss,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                             "__qualname__": class_name})


MeanSquaredError = _simple("MeanSquaredError", mean_squared_error, "mean_squared_error",
                           "Mean of squared errors over the last axis, then reduced over the batch.")
MeanAbsoluteError = _simple("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                            "Mean of absolute errors over the last axis, then reduced over the batch.")
MeanAbsolutePercentageError = _simple("MeanAbsolutePercentageError", mean_absolute_percentage_error,
                                      "mean_absolute_percentage_error",
                                      "100 * mean(|error| / max(|y_true|, 1e-7)), then reduced over the batch.")
MeanSquaredLogarithmicError = _simple("MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
                                      "mean_squared_logarithmic_error",
                                      "Mean squared error of log(1 + max(y, 1e-7)), then reduced over the batch.")
LogCosh = _simple("LogCosh", log_cosh, "log_cosh", "Mean of log(cosh(error)), then reduced over the batch.")
Hinge = _simple("Hinge", hinge, "hinge", "Mean of max(1 - y_true * y_pred, 0) (0/1 labels become -1/1).")
SquaredHinge = _simple("SquaredHinge", squared_hinge, "squared_hinge",
                       "Mean of max(1 - y_true * y_pred, 0) ** 2 (0/1 labels become -1/1).")
CategoricalHinge = _simple("CategoricalHinge", categorical_hinge, "categorical_hinge",
                           "max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0) per sample.")
KLDivergence = _simple("KLDivergence", kl_divergence, "kl_divergence",
                       "sum(y_true * log(y_true / y_pred)) with both clipped to [1e-7, 1].")
Poisson = _simple("Poisson", poisson, "poisson", "Mean of y_pred - y_true * log(y_pred + 1e-7).")


class CosineSimilarity(_SimpleLoss):
    """Minus the cosine similarity along ``axis`` (values in [-1, 1]; -1 when the vectors align)."""

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None):
        LossFunctionWrapper.__init__(self, cosine_similarity, name=name, reduction=reduction, dtype=dtype,
                                     axis=axis)


class Huber(_SimpleLoss):
    """Huber loss: 0.5 * error**2 where |error| <= delta, delta * (|error| - 0.5 * delta) elsewhere."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        LossFunctionWrapper.__init__(self, huber, name=name, reduction=reduction, dtype=dtype, delta=delta)


class _CrossentropyLoss(LossFunctionWrapper):
    _extra = ()

    def get_config(self):
        config = Loss.get_config(self)
        config.update({key: getattr(self, key) for key in self._extra})
        return config


class BinaryCrossentropy(_CrossentropyLoss):
    """Binary cross-entropy on probabilities (clipped to [1e-7, 1 - 1e-7]) or logits, mean over ``axis``."""

    _extra = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, name=name, reduction=reduction, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CategoricalCrossentropy(_CrossentropyLoss):
    """Categorical cross-entropy against one-hot (or soft) labels, on probabilities or logits."""

    _extra = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class SparseCategoricalCrossentropy(_CrossentropyLoss):
    """Cross-entropy against integer labels; ``ignore_class`` entries are masked out of the mean."""

    _extra = ("from_logits", "ignore_class")

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size", axis=-1,
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def _call_with_mask(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return _sparse_categorical_crossentropy(y_true, y_pred, **self._fn_kwargs)


_BY_NAME = {cls.__name__: cls for cls in (
    Loss, MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    CosineSimilarity, Huber, LogCosh, KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy)}
_BY_NAME.update({fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
    cosine_similarity, huber, log_cosh, kl_divergence, poisson, hinge, squared_hinge, categorical_hinge,
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy)})
_BY_NAME.update({"bce": binary_crossentropy, "BCE": binary_crossentropy, "kld": kld, "KLD": KLD, "mae": mae,
                 "MAE": MAE, "mse": mse, "MSE": MSE, "mape": mape, "MAPE": MAPE, "msle": msle, "MSLE": MSLE})


def _from_config_dict(identifier):
    class_name = identifier.get("class_name")
    cls = _BY_NAME.get(class_name)
    if not inspect.isclass(cls):
        raise ValueError(f"Could not interpret loss identifier: {identifier}")
    return cls.from_config(dict(identifier.get("config") or {}))


def get(identifier):
    """A loss from a name (function or class name, or alias such as ``"mse"``), a config dict, or a callable.

    A class (named or given) is instantiated with its defaults; ``None`` gives ``None``.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = _from_config_dict(identifier)
    elif isinstance(identifier, str):
        obj = _BY_NAME.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


del kl_divergence, log_cosh, mean_squared_error, mean_absolute_error, mean_absolute_percentage_error
del mean_squared_logarithmic_error

"""``tf.keras.metrics`` (Keras 3.15): stateful metrics and the function forms, on public tapeflow ops.

A metric keeps its running state in non-trainable Keras variables, created under the metric's name
(``mean/total``, ``auc/true_positives``), and exposes ``update_state``, ``result`` and ``reset_state``; calling it
updates and returns the result. Conventions kept from Keras: the classes with a default name use that name as it is
(two ``Mean()`` are both ``"mean"``), only ``name=None`` draws a fresh name from the shared counter (``metric``,
``metric_1``, ``precision``, ``precision_1``); the metric's ``dtype`` is that of ``Mean``/``Sum`` state, while
confusion-matrix metrics (``Precision``, ``Recall``, ``AUC``) always count in float32; the per-sample function forms
return float32 whatever their inputs.

The metrics live in modules by kind: ``base`` (``Metric``, ``Mean``, ``Sum``), ``accuracy``, ``regression``,
``probabilistic``, ``hinge_metrics``, ``confusion`` (precision, recall, AUC, condition counts), ``iou``,
``f_score`` and ``correlation``.
"""

from __future__ import annotations

from .. import losses as _losses
from .accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from .base import Mean, Metric, Sum
from .confusion import AUC, FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives, TruePositives
from .correlation import ConcordanceCorrelation, PearsonCorrelation, concordance_correlation, pearson_correlation
from .f_score import F1Score, FBetaScore
from .hinge_metrics import CategoricalHinge, Hinge, SquaredHinge
from .iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from .probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
)
from .regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    R2Score,
    RootMeanSquaredError,
)

__all__ = [
    "Metric", "Mean", "Sum",
    "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy", "TopKCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy",
    "MeanSquaredError", "MeanAbsoluteError", "RootMeanSquaredError", "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError", "LogCoshError", "CosineSimilarity", "R2Score",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "KLDivergence", "Poisson",
    "Hinge", "SquaredHinge", "CategoricalHinge",
    "Precision", "Recall", "AUC", "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives",
    "IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU",
    "FBetaScore", "F1Score",
    "PearsonCorrelation", "ConcordanceCorrelation", "pearson_correlation", "concordance_correlation",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy", "categorical_hinge",
    "hinge", "squared_hinge", "huber", "kld", "kullback_leibler_divergence", "logcosh", "mae", "mape", "mse", "msle",
    "poisson",
]

# The loss functions that Keras also lists under ``keras.metrics`` (the same objects).
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
categorical_hinge = _losses.categorical_hinge
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
huber = _losses.huber
kld = _losses.kld
kullback_leibler_divergence = _losses.kullback_leibler_divergence
logcosh = _losses.logcosh
mae = _losses.mae
mape = _losses.mape
mse = _losses.mse
msle = _losses.msle
poisson = _losses.poisson

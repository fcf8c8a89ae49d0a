"""Probabilistic metrics of ``tf.keras.metrics`` (Keras 3.15): ``BinaryCrossentropy``, ``CategoricalCrossentropy``,
``SparseCategoricalCrossentropy``, ``KLDivergence`` and ``Poisson``.

Each is the weighted mean of a per-sample loss function of ``_loss_functions``; the crossentropies keep the loss's
options (``from_logits``, ``label_smoothing``, ``ignore_class``, ``axis``) and list them in ``get_config``.
"""

from __future__ import annotations

from .. import _loss_functions as _lf
from .base import LossMean, loss_function
from .base import MeanMetricWrapper as _MeanMetricWrapper

__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "KLDivergence",
           "Poisson"]


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


class KLDivergence(LossMean):
    """The (weighted) mean of the per-sample Kullback-Leibler divergence."""

    _loss = loss_function("kl_divergence")

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(name, dtype)


class Poisson(LossMean):
    """The (weighted) mean of the per-sample Poisson loss."""

    _loss = loss_function("poisson")

    def __init__(self, name="poisson", dtype=None):
        super().__init__(name, dtype)

"""Hinge metrics of ``tf.keras.metrics`` (Keras 3.15): ``Hinge``, ``SquaredHinge`` and ``CategoricalHinge``, the
weighted means of the per-sample hinge losses of ``_loss_functions``.

(Named ``hinge_metrics`` because ``tf.keras.metrics.hinge`` is the loss function.)
"""

from __future__ import annotations

from .base import LossMean, loss_function

__all__ = ["Hinge", "SquaredHinge", "CategoricalHinge"]


class Hinge(LossMean):
    """The (weighted) mean of the per-sample hinge loss (0/1 labels mapped to -1/1)."""

    _loss = loss_function("hinge")

    def __init__(self, name="hinge", dtype=None):
        super().__init__(name, dtype)


class SquaredHinge(LossMean):
    """The (weighted) mean of the per-sample squared hinge loss."""

    _loss = loss_function("squared_hinge")

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(name, dtype)


class CategoricalHinge(LossMean):
    """The (weighted) mean of the per-sample categorical hinge loss."""

    _loss = loss_function("categorical_hinge")

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(name, dtype)

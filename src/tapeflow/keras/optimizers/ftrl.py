"""Keras 3 ``Ftrl`` (Follow The Regularized Leader)."""

from __future__ import annotations

from ...ops.array_ops import cast
from ...ops.clip_ops import clip_by_value
from ...ops.math_ops import divide
from ...ops.math_ops import pow as _pow
from . import _kops as K
from ._common import common_kwargs, constant_initializer, slot
from .base import Optimizer

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """FTRL-proximal (``tf.keras.optimizers.Ftrl``), computed in the variable's dtype.

    With ``p = -learning_rate_power``, ``l2 = l2_regularization_strength + beta / (2 lr)`` and ``n`` the
    accumulator: ``n' = n + g**2``; ``z += g + 2 * l2_shrinkage * w - (n'**p - n**p) / lr * w``;
    ``w = (clip(z, -l1, l1) - z) / (n'**p / lr + 2 * l2)``; ``n = n'``. Slots: ``<var>_accumulator`` (starting at
    ``initial_accumulator_value``) and ``<var>_linear``. An ``IndexedSlices`` gradient is densified (its squares
    summed per row), so every row of the variable is recomputed, as Keras does.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        learning_rate_power: ``<= 0`` (-0.5).
        initial_accumulator_value: ``>= 0`` (0.1).
        l1_regularization_strength, l2_regularization_strength, l2_shrinkage_regularization_strength: ``>= 0``.
        beta: added to the L2 strength as ``beta / (2 lr)`` (0.0).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).

    Raises:
        ValueError: for a negative accumulator value or strength, or a positive ``learning_rate_power``.
    """

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        for arg, value, sign in (("initial_accumulator_value", initial_accumulator_value, "positive or zero"),
                                 ("learning_rate_power", learning_rate_power, "negative or zero"),
                                 ("l1_regularization_strength", l1_regularization_strength, "positive or zero"),
                                 ("l2_regularization_strength", l2_regularization_strength, "positive or zero"),
                                 ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                                  "positive or zero")):
            if (value > 0.0) if sign == "negative or zero" else (value < 0.0):
                raise ValueError(f"`{arg}` needs to be {sign}. Received: {arg}={value}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        """Create the ``accumulator`` and ``linear`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"],
            initializer=[constant_initializer(self.initial_accumulator_value), "zeros"])

    def update_step(self, gradient, variable, learning_rate):
        """One FTRL step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        accum = slot(self._accumulators, self, variable)
        linear = slot(self._linears, self, variable)
        power = -self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        grad_to_use = K.add(gradient, K.multiply(2 * self.l2_shrinkage_regularization_strength, variable))
        new_accum = K.add(accum, K.square(gradient))
        new_root = _pow(new_accum, power)
        self.assign_add(linear, grad_to_use - divide(new_root - _pow(accum, power), lr) * variable)
        quadratic = divide(new_root, lr) + 2 * l2_reg
        l1 = self.l1_regularization_strength
        clipped = clip_by_value(linear, -l1, l1)
        self.assign(variable, divide(clipped - linear, quadratic))
        self.assign(accum, new_accum)

    def get_config(self):
        """The base configuration plus the six FTRL arguments."""
        return {**super().get_config(), "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
                "beta": self.beta}

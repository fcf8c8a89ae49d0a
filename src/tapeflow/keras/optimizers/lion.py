"""Keras 3 ``Lion`` (EvoLved Sign Momentum)."""

from __future__ import annotations

from ...ops.array_ops import cast
from ...ops.math_ops import sign
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Lion"]


class Lion(Optimizer):
    """Lion (``tf.keras.optimizers.Lion``): ``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then
    ``m = beta_2 * m + (1 - beta_2) * g`` (betas cast to the variable's dtype first). Slot: ``<var>_momentum``.
    An ``IndexedSlices`` gradient is densified, as Keras adds it to the dense momentum.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_1: weight of the gradient in the step's sign (0.9); in ``(0, 1]``.
        beta_2: decay of the momentum (0.99).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).

    Raises:
        ValueError: when ``beta_1`` is not in ``(0, 1]``.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
                             f"to SignSGD. Received: beta_1={beta_1}.")

    def build(self, var_list):
        """Create the ``momentum`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        """One Lion step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        beta_1 = cast(self.beta_1, dtype)
        beta_2 = cast(self.beta_2, dtype)
        m = slot(self._momentums, self, variable)
        direction = K.add(m * beta_1, K.multiply(gradient, 1.0 - beta_1))
        self.assign_sub(variable, lr * sign(direction))
        self.assign(m, K.add(m * beta_2, K.multiply(gradient, 1.0 - beta_2)))

    def get_config(self):
        """The base configuration plus ``beta_1`` and ``beta_2``."""
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}

"""Keras 3 ``Adamax``: Adam with the infinity norm."""

from __future__ import annotations

from ...ops.array_ops import cast
from ...ops.math_ops import pow as _pow
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (``tf.keras.optimizers.Adamax``), computed in the variable's dtype.

    With ``t = iterations + 1``: ``m += (g - m) * (1 - beta_1)``; ``u = max(beta_2 * u, |g|)``;
    ``w -= lr * m / ((1 - beta_1**t) * (u + epsilon))``. Slots: ``<var>_momentum``, ``<var>_norm``. An
    ``IndexedSlices`` gradient is densified.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_1: decay of the first moment (0.9).
        beta_2: decay of the infinity norm (0.999).
        epsilon: added to the norm (1e-7).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``momentum`` and ``norm`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient, variable, learning_rate):
        """One Adamax step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        beta_1_power = _pow(cast(self.beta_1, dtype), cast(self.iterations + 1, dtype))
        m = slot(self._m, self, variable)
        u = slot(self._u, self, variable)
        self.assign_add(m, K.multiply(K.subtract(gradient, m), 1 - self.beta_1))
        self.assign(u, K.maximum(K.multiply(self.beta_2, u), K.abs(gradient)))
        self.assign_sub(variable, K.divide(K.multiply(lr, m), K.multiply(1 - beta_1_power, K.add(u, self.epsilon))))

    def get_config(self):
        """The base configuration plus ``beta_1``, ``beta_2``, ``epsilon``."""
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}

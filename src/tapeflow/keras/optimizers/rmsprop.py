"""Keras 3 ``RMSprop``: plain, with momentum, centered."""

from __future__ import annotations

from ...ops.array_ops import cast
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (``tf.keras.optimizers.RMSprop``), computed in the variable's dtype.

    ``v = rho * v + (1 - rho) * g**2``; ``increment = lr * g / sqrt(v + epsilon)`` (epsilon inside the root);
    centered: ``a = rho * a + (1 - rho) * g`` and the root of ``v - a**2 + epsilon``; with momentum,
    ``mom = momentum * mom + increment; w -= mom``, else ``w -= increment``. Slots: ``<var>_velocity``, then
    ``<var>_momentum`` (when ``momentum > 0``) and ``<var>_average_gradient`` (when centered). Without momentum,
    an ``IndexedSlices`` gradient changes only its rows (``scatter_sub``).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        rho: discount of the squared-gradient average (0.9).
        momentum: momentum (0.0).
        epsilon: added under the square root (1e-7).
        centered: normalise by the estimated variance instead of the second moment.
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        """Create the ``velocity`` slots, then ``momentum`` and ``average_gradient`` ones as configured, once."""
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum > 0 else []
        self._average_gradients = (self.add_optimizer_variables(var_list, "average_gradient")
                                   if self.centered else [])

    def update_step(self, gradient, variable, learning_rate):
        """One RMSprop step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        rho = self.rho
        velocity = slot(self._velocities, self, variable)
        self.assign(velocity, K.add(K.multiply(rho, velocity), K.multiply(1 - rho, K.square(gradient))))
        if self.centered:
            average = slot(self._average_gradients, self, variable)
            self.assign(average, K.add(K.multiply(rho, average), K.multiply(1 - rho, gradient)))
            denominator = K.add(K.subtract(velocity, K.square(average)), self.epsilon)
        else:
            denominator = K.add(velocity, self.epsilon)
        increment = K.divide(K.multiply(lr, gradient), K.sqrt(denominator))
        if self.momentum > 0:
            momentum = slot(self._momentums, self, variable)
            self.assign(momentum, K.add(K.multiply(self.momentum, momentum), increment))
            self.assign_sub(variable, momentum)
        else:
            self.assign_sub(variable, increment)

    def get_config(self):
        """The base configuration plus ``rho``, ``momentum``, ``epsilon``, ``centered``."""
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}

"""Keras 3 ``Adadelta``."""

from __future__ import annotations

from ...ops.array_ops import cast
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (``tf.keras.optimizers.Adadelta``), computed in the variable's dtype.

    ``G = rho * G + (1 - rho) * g**2``; ``delta = -sqrt(D + eps) * g / sqrt(G + eps)``;
    ``D = rho * D + (1 - rho) * delta**2``; ``w += lr * delta``. Slots: ``<var>_accumulated_grad``,
    ``<var>_accumulated_delta_var``. An ``IndexedSlices`` gradient changes only its rows of the variable.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        rho: the decay rate (0.95).
        epsilon: added under the square roots (1e-7).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``accumulated_grad`` and ``accumulated_delta_var`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, grad, variable, learning_rate):
        """One Adadelta step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        grad = K.cast(grad, dtype)
        rho = self.rho
        acc_grad = slot(self._accumulated_grads, self, variable)
        acc_delta = slot(self._accumulated_delta_vars, self, variable)

        def rms(x):
            return K.sqrt(K.add(x, self.epsilon))

        self.assign(acc_grad, K.add(K.multiply(rho, acc_grad), K.multiply(1 - rho, K.square(grad))))
        delta = K.negative(K.divide(K.multiply(rms(acc_delta), grad), rms(acc_grad)))
        self.assign(acc_delta, K.add(K.multiply(rho, acc_delta), K.multiply(1 - rho, K.square(delta))))
        self.assign_add(variable, K.multiply(lr, delta))

    def get_config(self):
        """The base configuration plus ``rho`` and ``epsilon``."""
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}

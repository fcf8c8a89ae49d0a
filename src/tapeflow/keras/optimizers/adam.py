"""Keras 3 ``Adam`` and ``AdamW`` (Adam with decoupled weight decay)."""

from __future__ import annotations

from ...ops.array_ops import cast
from ...ops.math_ops import pow as _pow
from ...ops.math_ops import sqrt
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (``tf.keras.optimizers.Adam``), computed in the variable's dtype.

    With ``t = iterations + 1``: ``m += (g - m) * (1 - beta_1)``, ``v += (g*g - v) * (1 - beta_2)``,
    ``w -= m * alpha / (sqrt(v) + epsilon)`` where ``alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)``: epsilon
    is added to the uncorrected ``sqrt(v)``. With ``amsgrad``, ``v_hat = max(v_hat, v)`` replaces ``v``.
    Slots: ``<var>_momentum``, ``<var>_velocity`` (and ``<var>_velocity_hat``). An ``IndexedSlices`` gradient is
    densified (its squares summed per row first, as Keras squares the slices).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_1: decay of the first moment (0.9).
        beta_2: decay of the second moment (0.999).
        epsilon: added to ``sqrt(v)`` (1e-7).
        amsgrad: use the running maximum of ``v``.
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list):
        """Create the ``momentum`` and ``velocity`` slots (and ``velocity_hat`` with ``amsgrad``), once."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(self, gradient, variable, learning_rate):
        """One Adam step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        step = cast(self.iterations + 1, dtype)
        beta_1_power = _pow(cast(self.beta_1, dtype), step)
        beta_2_power = _pow(cast(self.beta_2, dtype), step)
        m = slot(self._momentums, self, variable)
        v = slot(self._velocities, self, variable)
        alpha = lr * sqrt(1 - beta_2_power) / (1 - beta_1_power)
        self.assign_add(m, K.multiply(K.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(v, K.multiply(K.subtract(K.square(gradient), v), 1 - self.beta_2))
        if self.amsgrad:
            v_hat = slot(self._velocity_hats, self, variable)
            self.assign(v_hat, K.maximum(v_hat, v))
            v = v_hat
        self.assign_sub(variable, K.divide(K.multiply(m, alpha), K.add(K.sqrt(v), self.epsilon)))

    def get_config(self):
        """The base configuration plus ``beta_1``, ``beta_2``, ``epsilon``, ``amsgrad``."""
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay (``tf.keras.optimizers.AdamW``): each step first does
    ``w -= w * weight_decay * lr``, then the Adam step.

    Args:
        learning_rate: as for :class:`Adam` (default 0.001).
        weight_decay: the decay rate (0.004); it must be set.
        beta_1, beta_2, epsilon, amsgrad: as for :class:`Adam`.
        **kwargs: the common optimizer arguments.

    Raises:
        ValueError: when ``weight_decay`` is ``None``.
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, **common_kwargs(locals()), **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")

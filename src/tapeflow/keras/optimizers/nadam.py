"""Keras 3 ``Nadam``: Adam with Nesterov momentum (Dozat's momentum schedule)."""

from __future__ import annotations

from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast
from ...ops.math_ops import pow as _pow
from .._state import name_scope
from ..variables import Variable
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Nadam"]


class Nadam(Optimizer):
    """Nadam (``tf.keras.optimizers.Nadam``), computed in the variable's dtype.

    With ``mu_t = beta_1 * (1 - 0.5 * 0.96**t)`` and ``P`` the running product of the ``mu`` (a variable named
    ``<optimizer>/variable``, updated once per step before the variables): ``m += (g - m) * (1 - beta_1)``,
    ``v += (g*g - v) * (1 - beta_2)``, ``m_hat = mu_{t+1} * m / (1 - P * mu_{t+1}) + (1 - mu_t) * g / (1 - P)``,
    ``v_hat = v / (1 - beta_2**t)``, ``w -= m_hat * lr / (sqrt(v_hat) + epsilon)``. Slots: ``<var>_momentum``,
    ``<var>_velocity``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_1: decay of the first moment (0.9).
        beta_2: decay of the second moment (0.999).
        epsilon: added to ``sqrt(v_hat)`` (1e-7).
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
        """Create the ``momentum`` and ``velocity`` slots and the ``mu`` product (in the first variable's dtype)."""
        if self.built:
            return
        dtype = var_list[0].dtype if var_list else "float32"
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        with name_scope(self.name, caller=self):
            self._u_product = Variable(1.0, dtype=dtype)
        self._variables.append(self._u_product)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        u_product = self._u_product.value
        dtype = u_product.dtype
        mu = K.multiply(K.multiply(u_product, self.beta_1),
                        1.0 - 0.5 * _pow(_const(0.96, dtype), cast(self.iterations + 1, dtype)))
        self.assign(u_product, mu)
        super()._backend_update_step(grads, trainable_variables, learning_rate)

    def update_step(self, gradient, variable, learning_rate):
        """One Nadam step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        local_step = cast(self.iterations + 1, dtype)
        next_step = cast(self.iterations + 2, dtype)
        decay = cast(0.96, dtype)
        beta_1 = cast(self.beta_1, dtype)
        beta_2 = cast(self.beta_2, dtype)
        u_t = beta_1 * (1.0 - 0.5 * _pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * _pow(decay, next_step))
        u_product_t = cast(self._u_product.value, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = _pow(beta_2, local_step)
        m = slot(self._momentums, self, variable)
        v = slot(self._velocities, self, variable)
        self.assign_add(m, K.multiply(K.subtract(gradient, m), 1 - beta_1))
        self.assign_add(v, K.multiply(K.subtract(K.square(gradient), v), 1 - beta_2))
        m_hat = K.add(K.divide(K.multiply(u_t_1, m), 1 - u_product_t_1),
                      K.divide(K.multiply(1 - u_t, gradient), 1 - u_product_t))
        v_hat = K.divide(v, 1 - beta_2_power)
        self.assign_sub(variable, K.divide(K.multiply(m_hat, lr), K.add(K.sqrt(v_hat), self.epsilon)))

    def get_config(self):
        """The base configuration plus ``beta_1``, ``beta_2``, ``epsilon``."""
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


def _const(value, dtype):
    """A Python float taken straight into ``dtype`` (Keras's weak typing; no float32 detour)."""
    return convert_to_tensor(value, dtype=dtype)

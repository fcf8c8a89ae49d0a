"""Keras 3 ``Lamb`` (layer-wise adaptive large-batch optimization)."""

from __future__ import annotations

from ...ops.array_ops import cast, where
from ...ops.math_ops import greater, sqrt, square
from ...ops.math_ops import pow as _pow
from ...ops.reduction_ops import reduce_sum
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """Lamb (``tf.keras.optimizers.Lamb``): an Adam direction scaled per variable by a trust ratio.

    With ``t = iterations + 1``: ``m`` and ``v`` move as in Adam; ``u = (m / (1 - beta_1**t)) /
    (sqrt(v / (1 - beta_2**t)) + epsilon)``; ``r = ||w|| / ||u||`` (1 when either norm is 0); ``w -= r * lr * u``.
    Slots: ``<var>_momentum``, ``<var>_velocity``. An ``IndexedSlices`` gradient is densified.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_1: decay of the first moment (0.9).
        beta_2: decay of the second moment (0.999).
        epsilon: added to the corrected ``sqrt(v)`` (1e-7).
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
        """Create the ``momentum`` and ``velocity`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])

    def update_step(self, gradient, variable, learning_rate):
        """One Lamb step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        step = cast(self.iterations + 1, dtype)
        beta_1_power = _pow(cast(self.beta_1, dtype), step)
        beta_2_power = _pow(cast(self.beta_2, dtype), step)
        m = slot(self._momentums, self, variable)
        v = slot(self._velocities, self, variable)
        self.assign_add(m, K.multiply(K.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(v, K.multiply(K.subtract(K.square(gradient), v), 1 - self.beta_2))
        m_hat = m / (1.0 - beta_1_power)
        update = m_hat / (sqrt(v / (1.0 - beta_2_power)) + self.epsilon)
        w_norm = sqrt(reduce_sum(square(variable)))
        u_norm = sqrt(reduce_sum(square(update)))
        one = cast(1.0, dtype)
        ratio = where(greater(w_norm, 0), where(greater(u_norm, 0), w_norm / u_norm, one), one)
        self.assign_sub(variable, ratio * lr * update)

    def get_config(self):
        """The base configuration plus ``beta_1``, ``beta_2``, ``epsilon``."""
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}

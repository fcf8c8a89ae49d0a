"""Keras 3 ``Adagrad``."""

from __future__ import annotations

from ...ops.array_ops import cast
from . import _kops as K
from ._common import common_kwargs, constant_initializer, slot
from .base import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (``tf.keras.optimizers.Adagrad``): ``acc += g**2; w -= lr * g / sqrt(acc + epsilon)``.

    The ``<var>_accumulator`` slots start at ``initial_accumulator_value`` (cast through float32, as Keras's
    ``Constant`` initializer does). An ``IndexedSlices`` gradient updates only its rows of both the accumulator
    and the variable (repeated rows add their squares).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        initial_accumulator_value: the accumulators' starting value (0.1).
        epsilon: added under the square root (1e-7).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``accumulator`` slots, once."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=constant_initializer(self.initial_accumulator_value))

    def update_step(self, gradient, variable, learning_rate):
        """One Adagrad step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        accumulator = slot(self._accumulators, self, variable)
        self.assign_add(accumulator, K.square(gradient))
        self.assign_sub(variable, K.divide(K.multiply(lr, gradient), K.sqrt(K.add(accumulator, self.epsilon))))

    def get_config(self):
        """The base configuration plus ``initial_accumulator_value`` and ``epsilon``."""
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}

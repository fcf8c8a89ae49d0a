"""Keras 3 ``SGD``: plain, momentum and Nesterov gradient descent."""

from __future__ import annotations

from .base import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent with optional momentum (``tf.keras.optimizers.SGD``).

    Updates, with ``g`` the gradient and ``lr`` the learning rate:

    * plain: ``w -= g * lr``
    * momentum: ``v = -g * lr + v * momentum; w += v``
    * Nesterov: ``v = -g * lr + v * momentum; w += -g * lr + v * momentum`` (with the new ``v``)

    Raises:
        ValueError: when ``momentum`` is not a float in [0, 1].
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None,
                 name="SGD", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        super().build(variables)
        self.momentums = []
        if self.momentum != 0:
            for v in variables:
                self.momentums.append(self.add_variable_from_reference(v, "momentum"))

    def update_step(self, gradient, variable, learning_rate):
        if self.momentum != 0:
            m = self.momentums[self._get_variable_index(variable)]
            momentum = self.momentum
            m.assign(-gradient * learning_rate + m * momentum)
            if self.nesterov:
                variable.assign_add(-gradient * learning_rate + m * momentum)
            else:
                variable.assign_add(m)
        else:
            variable.assign_sub(gradient * learning_rate)

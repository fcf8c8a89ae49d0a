"""Keras 3 ``SGD``: gradient descent, with optional momentum and Nesterov momentum."""

from __future__ import annotations

from ..._core.indexed_slices import IndexedSlices
from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast
from ...ops.math_ops import multiply, subtract
from .base import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent with optional momentum (``tf.keras.optimizers.SGD``).

    With ``g`` the gradient, ``lr`` the learning rate and ``v`` the ``momentum`` slot (starting at 0):

    * plain (``momentum=0.0``): ``w -= g * lr``
    * momentum: ``v = v * momentum - g * lr; w += v``
    * Nesterov: ``v = v * momentum - g * lr; w += v * momentum - g * lr`` (with the new ``v``)

    Learning rate, gradient and momentum are cast to the variable's dtype first (the momentum, a Python float,
    through float32, as TF's ``cast`` converts it).

    Args:
        learning_rate: a Python float or a zero-argument callable (default 0.01).
        momentum: a Python float in [0, 1]; slots ``<optimizer>/<variable>_momentum`` exist only when it is not 0.
        nesterov: use Nesterov momentum (no effect without momentum).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).

    Raises:
        ValueError: when ``momentum`` is not a float in [0, 1] (``1`` is an int, so refused).
    """


    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None,
                 name=None, **kwargs):
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
        """Create the ``momentum`` slots (when ``momentum`` is not 0); a second call does nothing."""
        if self.built:
            return
        super().build(variables)
        self.momentums = self.add_optimizer_variables(variables, "momentum") if self.momentum != 0 else []

    def update_step(self, gradient, variable, learning_rate):
        """One SGD step on ``variable`` (a ``tf.Variable``).

        An ``IndexedSlices`` gradient (a gather's) updates only its rows without momentum (``scatter_sub``); with
        momentum, ``gradient * learning_rate`` is densified first, as Keras's sparse arithmetic does.
        """
        dtype = variable.dtype
        learning_rate = cast(learning_rate, dtype)
        if isinstance(gradient, IndexedSlices):
            scaled = IndexedSlices(multiply(cast(gradient.values, dtype), learning_rate), gradient.indices,
                                   gradient.dense_shape)
        else:
            scaled = multiply(cast(gradient, dtype), learning_rate)
        if self.momentum == 0:
            self.assign_sub(variable, scaled)
            return
        scaled = convert_to_tensor(scaled)
        m = self.momentums[self._get_variable_index(variable)]
        momentum = cast(self.momentum, dtype)
        # Keras's operand order, which fixes which op reports a shape mismatch (``Sub``, before any update).
        self.assign(m, subtract(multiply(m, momentum), scaled))
        if self.nesterov:
            self.assign_add(variable, subtract(multiply(m, momentum), scaled))
        else:
            self.assign_add(variable, m)

    def get_config(self):
        """The base configuration plus ``momentum`` and ``nesterov``."""
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}

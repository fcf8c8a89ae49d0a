"""Keras 3 ``Adafactor``: factored second moments for matrices and higher-rank variables."""

from __future__ import annotations

from ..._core.indexed_slices import IndexedSlices
from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast
from ...ops.manip_ops import expand_dims
from ...ops.math_ops import maximum, minimum, sqrt, square
from ...ops.math_ops import pow as _pow
from ...ops.reduction_ops import reduce_mean, reduce_prod, reduce_sum
from .._state import name_scope
from ..variables import Variable
from . import _kops as K
from ._common import common_kwargs, slot
from .base import Optimizer

__all__ = ["Adafactor"]


def _rms(x):
    """``sqrt(mean(x**2))``; for ``IndexedSlices``, Keras's mean: the rows' squares summed over the dense size."""
    if isinstance(x, IndexedSlices):
        total = reduce_sum(square(x.values))
        return sqrt(total / cast(reduce_prod(convert_to_tensor(x.dense_shape)), total.dtype))
    return sqrt(reduce_mean(square(x)))


class Adafactor(Optimizer):
    """Adafactor (``tf.keras.optimizers.Adafactor``), computed in the variable's dtype.

    With ``t = iterations + 1``: ``rho = min(lr, 1/sqrt(t))``, ``alpha = max(epsilon_2, rms(w)) * rho``,
    ``beta_2 = 1 - t**beta_2_decay`` and ``G = g**2 + epsilon_1``. A variable of rank >= 2 keeps row and column
    means of ``G`` (``r``, ``c``) and ``v = (r / mean(r)) ⊗ c``; a lower-rank one keeps ``v`` as a moving
    average of ``G``. Then ``u = g / sqrt(v)``, ``w -= alpha * u / max(1, rms(u) / clip_threshold)``.

    Variables, in Keras's order for each trainable variable: ``r`` and ``c`` named after the variable's ``name``
    (for rank < 2 they are unused scalar ``int32`` zeros, as Keras makes them), then ``<var>_velocity``.
    An ``IndexedSlices`` gradient is densified in the second moments (its rows squared first) and updates only
    its rows of the variable, as Keras's ops do on TensorFlow.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a zero-argument callable (default 0.001).
        beta_2_decay: exponent of the second-moment decay schedule (-0.8).
        epsilon_1: added to the squared gradient (1e-30).
        epsilon_2: lower bound of the variable's RMS in the step size (1e-3).
        clip_threshold: bound on the RMS of the normalised update (1.0).
        relative_step: cap the learning rate at ``1/sqrt(t)`` (it is capped so in ``rho`` anyway).
        **kwargs: the common optimizer arguments (see :class:`~tapeflow.keras.optimizers.Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
                 clip_threshold=1.0, relative_step=True, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **common_kwargs(locals()), **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def _placeholder(self, name):
        with name_scope(self.name, caller=self):
            variable = Variable(0, name=name, trainable=False)
        self._variables.append(variable)
        return variable

    def build(self, var_list):
        """Create ``r``, ``c`` and ``velocity`` for each variable, once."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for var in var_list:
            name = var.name
            skip = getattr(var, "overwrite_with_gradient", False)
            shape = tuple(var.shape)
            if len(shape) < 2:
                self._r.append(self._placeholder(name))
                self._c.append(self._placeholder(name))
            elif skip:
                self._r.append(None)
                self._c.append(None)
            else:
                dtype = var.dtype
                self._r.append(self.add_variable(shape=shape[:-1], dtype=dtype, name=name))
                self._c.append(self.add_variable(shape=shape[:-2] + shape[-1:], dtype=dtype, name=name))
            self._v.append(None if skip else self.add_variable_from_reference(var, name="velocity"))

    def update_step(self, gradient, variable, learning_rate):
        """One Adafactor step on ``variable`` (a ``tf.Variable``)."""
        dtype = variable.dtype
        lr = cast(learning_rate, dtype)
        gradient = K.cast(gradient, dtype)
        # Keras casts epsilon_2 (through float32, as tf.cast takes a Python float); the other constants meet
        # tensors as Python numbers and so keep their full precision in float64.
        epsilon_2 = cast(self.epsilon_2, dtype)
        one = cast(1.0, dtype)
        step = cast(self.iterations + 1, dtype)
        if not callable(self._learning_rate) and self.relative_step:
            lr = minimum(lr, 1 / sqrt(step))
        r = slot(self._r, self, variable)
        c = slot(self._c, self, variable)
        v = slot(self._v, self, variable)
        rho_t = minimum(lr, 1 / sqrt(step))
        alpha_t = maximum(epsilon_2, _rms(variable)) * rho_t
        regulated = K.add(K.square(gradient), self.epsilon_1)
        beta_2_t = 1 - _pow(step, self.beta_2_decay)
        if len(variable.shape) >= 2:
            self.assign(r, beta_2_t * r + (1 - beta_2_t) * reduce_mean(regulated, axis=-1))
            self.assign(c, beta_2_t * c + (1 - beta_2_t) * reduce_mean(regulated, axis=-2))
            self.assign(v, expand_dims(r / reduce_mean(r, axis=-1, keepdims=True), axis=-1) * expand_dims(c, -2))
        else:
            self.assign(v, beta_2_t * v + (1 - beta_2_t) * regulated)
        u_t = K.divide(gradient, sqrt(v))
        u_t_hat = K.divide(u_t, maximum(one, _rms(u_t) / self.clip_threshold))
        self.assign_sub(variable, K.multiply(alpha_t, u_t_hat))

    def get_config(self):
        """The base configuration plus the five Adafactor arguments."""
        return {**super().get_config(), "beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1,
                "epsilon_2": self.epsilon_2, "clip_threshold": self.clip_threshold,
                "relative_step": self.relative_step}


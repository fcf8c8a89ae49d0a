"""Keras 3's BatchNormalization and LayerNormalization on tapeflow ops.

BatchNormalization normalizes with the batch's mean and (biased) variance when called with ``training=True`` on a
trainable layer, updating ``moving = moving * momentum + batch * (1 - momentum)``; otherwise (inference, or a
frozen layer) it uses the moving statistics. LayerNormalization normalizes each example over ``axis`` as
``x * inv + (beta - mean * inv)`` with ``inv = gamma / sqrt(variance + epsilon)``, Keras's arrangement.
"""

from __future__ import annotations

from ...ops.array_ops import cast, reshape
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._dtypes import result_type
from .base import InputSpec, Layer
from .core import _ser_constraint, _ser_init, _ser_reg, _tf

__all__ = ["BatchNormalization", "LayerNormalization"]


def _broadcast_shape(ndim, axes, input_shape):
    shape = [1] * ndim
    for a in axes:
        shape[a] = input_shape[a]
    return shape


class BatchNormalization(Layer):
    """Normalize over every axis but ``axis`` with batch statistics in training, moving statistics otherwise.

    Raises:
        ValueError: for an ``axis`` outside the input's rank, or inputs whose rank or channel count differs from
            the ones the layer was built for.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        if renorm:
            raise ValueError("tapeflow's BatchNormalization does not implement `renorm=True`.")
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.moving_mean_initializer = _initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = _initializers.get(moving_variance_initializer)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.synchronized = synchronized
        self.supports_masking = True
        self.gamma = None
        self.beta = None

    def build(self, input_shape):
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim:
            raise ValueError(f"Axis {self.axis} is out of bounds for input shape {tuple(input_shape)}. "
                             f"Received: axis={self.axis}")
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self.add_weight(shape=shape, name="gamma", initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         trainable=True, autocast=False)
        if self.center:
            self.beta = self.add_weight(shape=shape, name="beta", initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        trainable=True, autocast=False)
        self.moving_mean = self.add_weight(shape=shape, name="moving_mean", initializer=self.moving_mean_initializer,
                                           trainable=False, autocast=False)
        self.moving_variance = self.add_weight(shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer, trainable=False,
                                               autocast=False)
        self.input_spec = InputSpec(ndim=ndim, axes={self.axis: input_shape[self.axis]})
        axis = self.axis % ndim
        self._reduction_axes = [i for i in range(ndim) if i != axis]
        self._param_shape = _broadcast_shape(ndim, [axis], list(input_shape))

    def call(self, inputs, training=None, mask=None):
        tf = _tf()
        dtype = "float64" if inputs.dtype.name == "float64" else "float32"  # integer inputs too, as in Keras
        inputs = cast(inputs, dtype)
        moving_mean = cast(self.moving_mean, dtype)
        moving_variance = cast(self.moving_variance, dtype)
        if training and self.trainable:
            mean, variance = tf.nn.moments(inputs, axes=self._reduction_axes)
            self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
            self.moving_variance.assign(moving_variance * self.momentum + variance * (1.0 - self.momentum))
        else:
            mean, variance = moving_mean, moving_variance
        shape = self._param_shape
        gamma = reshape(cast(self.gamma, dtype), shape) if self.scale else None
        beta = reshape(cast(self.beta, dtype), shape) if self.center else None
        out = tf.nn.batch_normalization(inputs, reshape(mean, shape), reshape(variance, shape), beta, gamma,
                                        self.epsilon)
        return cast(out, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale, "beta_initializer": _ser_init(self.beta_initializer),
                "gamma_initializer": _ser_init(self.gamma_initializer),
                "moving_mean_initializer": _ser_init(self.moving_mean_initializer),
                "moving_variance_initializer": _ser_init(self.moving_variance_initializer),
                "beta_regularizer": _ser_reg(self.beta_regularizer),
                "gamma_regularizer": _ser_reg(self.gamma_regularizer),
                "beta_constraint": _ser_constraint(self.beta_constraint),
                "gamma_constraint": _ser_constraint(self.gamma_constraint), "synchronized": self.synchronized,
                "renorm": self.renorm, "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("beta_initializer", "gamma_initializer", "moving_mean_initializer",
                    "moving_variance_initializer"):
            config[key] = _initializers.get(config[key])
        for key in ("beta_regularizer", "gamma_regularizer", "activity_regularizer"):
            if config.get(key) is not None:
                config[key] = _regularizers.get(config[key])
        return cls(**config)


class LayerNormalization(Layer):
    """Normalize each example over ``axis`` (an int or a list), then scale by ``gamma`` and shift by ``beta``."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.autocast = False  # as in Keras: inputs keep their dtype; call computes in at least float32
        if rms_scaling:
            raise ValueError("tapeflow's LayerNormalization does not implement the deprecated `rms_scaling=True`.")
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis}")
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.rms_scaling = rms_scaling
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.supports_masking = True
        self.gamma = None
        self.beta = None

    def _axes(self, ndim):
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        return sorted(a % ndim for a in axes)

    def build(self, input_shape):
        # Keras turns an int axis into a list once built (the config shows it so).
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        axes = self.axis
        shape = tuple(input_shape[a] for a in axes) if len(axes) > 1 else (input_shape[axes[0]],)
        if self.scale:
            self.gamma = self.add_weight(name="gamma", shape=shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         trainable=True, autocast=False)
        if self.center:
            self.beta = self.add_weight(name="beta", shape=shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        trainable=True, autocast=False)

    def call(self, inputs):
        tf = _tf()
        original = inputs.dtype
        # Keras computes in at least float32 (integer and float16 inputs too) and casts the result back to the
        # input's dtype before the compute dtype, so integer inputs come out truncated, as in Keras.
        wide = result_type(original, "float32")
        if wide != original.name:
            return cast(cast(self.call(cast(inputs, wide)), original), self.compute_dtype)
        ndim = inputs.shape.rank
        axes = self._axes(ndim)
        shape = _broadcast_shape(ndim, axes, inputs.shape.as_list())
        mean, variance = tf.nn.moments(inputs, axes=axes, keepdims=True)
        inv = tf.math.rsqrt(variance + self.epsilon)  # a Python epsilon converts exactly (cast would round it)
        if self.gamma is not None:
            inv = inv * reshape(cast(self.gamma, inputs.dtype), shape)
        res = -mean * inv
        if self.beta is not None:
            res = res + reshape(cast(self.beta, inputs.dtype), shape)
        return cast(inputs * inv + res, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        for axis in axes:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(f"Axis {axis} is out of bounds for input shape {input_shape}. "
                                 f"Received: axis={self.axis}")
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                "scale": self.scale, "rms_scaling": self.rms_scaling,
                "beta_initializer": _ser_init(self.beta_initializer),
                "gamma_initializer": _ser_init(self.gamma_initializer),
                "beta_regularizer": _ser_reg(self.beta_regularizer),
                "gamma_regularizer": _ser_reg(self.gamma_regularizer),
                "beta_constraint": _ser_constraint(self.beta_constraint),
                "gamma_constraint": _ser_constraint(self.gamma_constraint)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("beta_initializer", "gamma_initializer"):
            config[key] = _initializers.get(config[key])
        for key in ("beta_regularizer", "gamma_regularizer", "activity_regularizer"):
            if config.get(key) is not None:
                config[key] = _regularizers.get(config[key])
        return cls(**config)

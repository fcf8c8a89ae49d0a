"""Keras 3's convolution layers ``Conv1D`` and ``Conv2D`` on ``tf.nn.convolution`` (so GradientTape differentiates
them, dilated kernels included), plus the argument checks the pooling layers share.

TensorFlow's CPU convolution only takes channels-last data, so ``channels_first`` inputs are transposed to
channels-last and back (the values are the same as Keras's). Grouped convolutions (``groups > 1``) run one
convolution per group and concatenate them: TF's own grouped kernel has no CPU gradient (Keras compiles it with XLA),
and the split form is differentiable everywhere and gives the same numbers. LoRA (``lora_rank``) is not implemented:
passing it raises ``ValueError``.
"""

from __future__ import annotations

import numpy as np

from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import InputSpec, Layer
from .core import _kernel_bias_from_config, _ser_constraint, _ser_init, _ser_reg

__all__ = ["Conv1D", "Conv2D"]


def _tf():
    import tapeflow

    return tapeflow


def standardize_tuple(value, n, name, allow_zero=False):
    """``value`` (an int or ``n`` ints) as a tuple of ``n`` ints, with Keras's messages for bad values."""
    msg = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        out = (value,) * n
    else:
        try:
            out = tuple(value)
        except TypeError:
            raise ValueError(msg) from None
        if len(out) != n:
            raise ValueError(msg)
        for item in out:
            try:
                int(item)
            except (ValueError, TypeError):
                raise ValueError(f"{msg}including element {item} of type {type(item)}") from None
    bad = {v for v in out if (v < 0 if allow_zero else v <= 0)}
    if bad:
        raise ValueError(f"{msg}, including values {bad} that do not satisfy `value {'>= 0' if allow_zero else '> 0'}`")
    return out


def standardize_padding(value, allow_causal=False):
    """Lower-cased ``"valid"``/``"same"`` (``"causal"`` too for 1-D convolutions); lists pass unchanged."""
    if isinstance(value, (list, tuple)):
        return value
    padding = value.lower()
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        # Keras prints the set: its order is Python's set order, reproduced by formatting the same set
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {allowed}. Received: {padding}")
    return padding


def standardize_data_format(data_format):
    """``"channels_last"`` (Keras's default image data format) or the lower-cased ``data_format``."""
    if data_format is None:
        return "channels_last"
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return data_format


def to_channels_last(x):
    """Move axis 1 (channels) of ``x`` last."""
    rank = x.shape.rank
    return _tf().transpose(x, (0, *range(2, rank), 1))


def to_channels_first(x):
    """Move the last axis (channels) of ``x`` to axis 1."""
    rank = x.shape.rank
    return _tf().transpose(x, (0, rank - 1, *range(1, rank - 1)))


def _conv_output_shape(input_shape, filters, kernel_size, strides, padding, data_format, dilation_rate):
    """Keras's static output shape of a convolution (``None`` dims stay ``None``)."""
    input_shape = tuple(input_shape)
    if data_format == "channels_last":
        spatial, kernel_shape = input_shape[1:-1], kernel_size + (input_shape[-1], filters)
    else:
        spatial, kernel_shape = input_shape[2:], kernel_size + (input_shape[1], filters)
    if len(kernel_shape) != len(input_shape):
        raise ValueError(f"Kernel shape must have the same length as input, but received kernel of shape "
                         f"{kernel_shape} and input of shape {input_shape}.")
    none_dims = [i for i, d in enumerate(spatial) if d is None]
    size = np.array([-1 if d is None else d for d in spatial])
    dil = np.array(dilation_rate)
    if padding == "valid":
        out = np.floor((size - dil * (np.array(kernel_size) - 1) - 1) / strides) + 1
        for i, d in enumerate(out):
            if i not in none_dims and d <= 0:
                raise ValueError(f"Computed output size would be zero or negative. Received `inputs shape="
                                 f"{input_shape}`, `kernel shape={kernel_shape}`, `dilation_rate={dil}`, "
                                 f"`strides={strides}`, `padding={padding}`.")
    else:
        out = np.floor((size - 1) / strides) + 1
    out = [None if i in none_dims else int(d) for i, d in enumerate(out)]
    if data_format == "channels_last":
        return (input_shape[0], *out, filters)
    return (input_shape[0], filters, *out)


class _Conv(Layer):
    """An N-D convolution layer: ``activation(conv(inputs, kernel) + bias)``; ``kernel`` is
    ``kernel_size + (in_channels // groups, filters)``, ``bias`` is ``(filters,)``.

    Raises:
        ValueError: Keras's messages for non-positive ``filters``/``groups``, ``filters`` or input channels not
            divisible by ``groups``, zeros in ``kernel_size``/``strides``, strides > 1 with dilation > 1, a bad
            ``padding``/``data_format``, and inputs too small for the kernel.
    """

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        rank = self.rank
        self.filters = filters
        self.groups = groups
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = standardize_tuple(strides, rank, "strides")
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = standardize_padding(padding, allow_causal=rank == 1)
        self.data_format = standardize_data_format(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        if lora_rank:
            raise ValueError("LoRA (`lora_rank`) is not supported by tapeflow's convolution layers.")
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if self.filters is not None and self.filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             f"filters={self.filters}.")
        if self.groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={self.groups}.")
        if self.filters is not None and self.filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={self.groups}, filters={self.filters}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")

    def build(self, input_shape):
        channel_axis = -1 if self.data_format == "channels_last" else 1
        in_channels = input_shape[channel_axis]
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={channel_axis: in_channels})
        if in_channels % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {in_channels} channels (full input "
                             f"shape is {input_shape}).")
        self.compute_output_shape(input_shape)
        self._kernel = self.add_weight(name="kernel", shape=self.kernel_size + (in_channels // self.groups,
                                                                                  self.filters),
                                       initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                       constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)

    @property
    def kernel(self):
        """The convolution kernel (``AttributeError`` before the layer is built, as in Keras)."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `kernel`.")
        return self._kernel

    def _convolve(self, x, kernel, padding):
        """Channels-last convolution, one ``tf.nn.convolution`` per group."""
        tf = _tf()
        run = lambda a, k: tf.nn.convolution(a, k, strides=list(self.strides), padding=padding.upper(),  # noqa: E731
                                             dilations=list(self.dilation_rate))
        if self.groups == 1:
            return run(x, kernel)
        xs = tf.split(x, self.groups, axis=-1)
        ks = tf.split(kernel, self.groups, axis=-1)
        return tf.concat([run(a, k) for a, k in zip(xs, ks)], axis=-1)

    def call(self, inputs):
        tf = _tf()
        x = inputs if self.data_format == "channels_last" else to_channels_last(inputs)
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = tf.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        kernel = self.kernel
        kernel = kernel.value if hasattr(kernel, "value") else kernel
        if x.dtype is not kernel.dtype and x.shape.rank > 3:
            # Keras does not promote here: TF converts the kernel variable to the (integer) input's dtype and
            # refuses. (Rank-3 inputs reach the op with the kernel already read, and the op refuses instead.)
            raise ValueError(f"Incompatible type conversion requested to type {x.dtype.name} for `tf.Variable of "
                             f"type {kernel.dtype.name}. (Variable: {kernel!r})")
        out = self._convolve(x, kernel, padding)
        if self.use_bias:
            out = tf.add(out, self.bias.value if hasattr(self.bias, "value") else self.bias)
        if self.data_format == "channels_first":
            out = to_channels_first(out)
        if self.activation is not None:
            return self.activation(out)
        return out

    def compute_output_shape(self, input_shape):
        return _conv_output_shape(input_shape, self.filters, self.kernel_size, self.strides, self.padding,
                                  self.data_format, self.dilation_rate)

    def get_config(self):
        config = {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                  "strides": self.strides, "padding": self.padding, "data_format": self.data_format,
                  "dilation_rate": self.dilation_rate, "groups": self.groups,
                  "activation": _activations.serialize(self.activation), "use_bias": self.use_bias,
                  "kernel_initializer": _ser_init(self.kernel_initializer),
                  "bias_initializer": _ser_init(self.bias_initializer),
                  "kernel_regularizer": _ser_reg(self.kernel_regularizer),
                  "bias_regularizer": _ser_reg(self.bias_regularizer),
                  "activity_regularizer": _ser_reg(self.activity_regularizer),
                  "kernel_constraint": _ser_constraint(self.kernel_constraint),
                  "bias_constraint": _ser_constraint(self.bias_constraint)}
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**_kernel_bias_from_config(config))


class Conv1D(_Conv):
    """1-D convolution over ``(batch, steps, channels)`` inputs (``padding`` may also be ``"causal"``: the input is
    left-padded by ``dilation_rate * (kernel_size - 1)`` so an output never sees later steps)."""

    rank = 1


class Conv2D(_Conv):
    """2-D convolution over ``(batch, height, width, channels)`` inputs."""

    rank = 2

"""Keras 3's pooling layers: ``MaxPooling1D/2D``, ``AveragePooling1D/2D`` (on ``tf.nn.max_pool``/``avg_pool``) and
the global ``GlobalAveragePooling1D/2D``, ``GlobalMaxPooling1D/2D`` (means and maxima over the spatial axes).

Pooling layers have no weights and are built when made. TF's pooling kernels take channels-last data only, so
``channels_first`` inputs are transposed there and back, as Keras's TensorFlow backend does.
"""

from __future__ import annotations

import numpy as np

from .base import InputSpec, Layer
from .convolutional import standardize_data_format, standardize_tuple, to_channels_first, to_channels_last

__all__ = ["MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D"]


def _tf():
    import tapeflow

    return tapeflow


def _pool_output_shape(input_shape, pool_size, strides, padding, data_format):
    """Keras's static output shape of a pooling (``None`` dims stay ``None``)."""
    origin = list(input_shape)
    spatial = origin[1:-1] if data_format == "channels_last" else origin[2:]
    none_dims = [i for i, d in enumerate(spatial) if d is None]
    size = np.array([-1 if d is None else d for d in spatial])
    pool = np.array(pool_size)
    if padding == "valid":
        out = np.floor((size - pool) / strides) + 1
        for i, d in enumerate(out):
            if i not in none_dims and d <= 0:
                # Keras formats the shape as the NumPy array it made of it
                raise ValueError(f"Computed output size would be zero or negative. Received: `inputs.shape="
                                 f"{np.array(input_shape)}`, `pool_size={pool}`, `strides={strides}`, "
                                 f"`padding={padding}`.")
    elif padding == "same":
        out = np.floor((size - 1) / strides) + 1
    else:
        raise ValueError(f"Argument `padding` must be either 'valid' or 'same'. Received: padding={padding}")
    out = [None if i in none_dims else int(d) for i, d in enumerate(out)]
    if data_format == "channels_last":
        return (origin[0], *out, origin[-1])
    return (origin[0], origin[1], *out)


class _Pooling(Layer):
    """Max or average pooling over ``pool_size`` windows moved by ``strides`` (default ``pool_size``)."""

    dims = None
    mode = None

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = standardize_tuple(pool_size, self.dims, "pool_size")
        self.strides = standardize_tuple(pool_size if strides is None else strides, self.dims, "strides",
                                         allow_zero=True)
        self.pool_mode = self.mode
        self.padding = padding
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.dims + 2)
        self._build_at_init()

    def call(self, inputs):
        tf = _tf()
        x = inputs if self.data_format == "channels_last" else to_channels_last(inputs)
        pool = tf.nn.max_pool if self.pool_mode == "max" else tf.nn.avg_pool
        out = pool(x, self.pool_size, self.strides, self.padding.upper())
        return out if self.data_format == "channels_last" else to_channels_first(out)

    def compute_output_shape(self, input_shape):
        return _pool_output_shape(input_shape, self.pool_size, self.strides, self.padding, self.data_format)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}


class MaxPooling1D(_Pooling):
    """The maximum over windows of ``pool_size`` steps of ``(batch, steps, channels)`` inputs."""

    dims, mode = 1, "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class MaxPooling2D(_Pooling):
    """The maximum over ``pool_size`` windows of ``(batch, height, width, channels)`` inputs."""

    dims, mode = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling1D(_Pooling):
    """The mean over windows of ``pool_size`` steps (with ``"same"`` padding, of the window's in-bounds values)."""

    dims, mode = 1, "average"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling2D(_Pooling):
    """The mean over ``pool_size`` windows (with ``"same"`` padding, of the window's in-bounds values)."""

    dims, mode = 2, "average"

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name, **kwargs)


def _max(inputs, axis, keepdims):
    """Keras's ``ops.max``: the maximum, or for bool inputs whether any is true."""
    reduce = _tf().reduce_any if inputs.dtype.is_bool else _tf().reduce_max
    return reduce(inputs, axis=axis, keepdims=keepdims)


class _GlobalPooling(Layer):
    """A reduction over all spatial axes (kept as size 1 with ``keepdims``)."""

    dims = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.dims + 2)
        self._build_at_init()

    def _axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self.dims))

    @staticmethod
    def _float_mean_input(inputs):
        """Integer and bool inputs as float32: Keras's mean of integers is float32 whatever the layer's dtype."""
        if inputs.dtype.is_integer or inputs.dtype.is_bool:
            return _tf().cast(inputs, "float32")
        return inputs

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *((1,) * self.dims if self.keepdims else ()), input_shape[-1])
        return (input_shape[0], input_shape[1], *((1,) * self.dims if self.keepdims else ()))

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps axis; with a ``mask`` (``(batch, steps)``), over the unmasked steps only."""

    dims = 1

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        tf = _tf()
        axis = self._axes()[0]
        if mask is None:
            return tf.reduce_mean(self._float_mean_input(inputs), axis=axis, keepdims=self.keepdims)
        # Keras's masked mean: a sum of the inputs times the mask (in the inputs' dtype) over the mask's sum, with
        # TF's division (integer sums divide into float64, as in Keras on TF).
        mask = tf.cast(tf.expand_dims(mask, 2 if self.data_format == "channels_last" else 1), inputs.dtype)
        total = tf.reduce_sum(inputs * mask, axis=axis, keepdims=self.keepdims)
        return total / tf.reduce_sum(mask, axis=axis, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        """No mask passes through (the steps axis is gone)."""
        return None


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over the height and width axes."""

    dims = 2

    def call(self, inputs):
        return _tf().reduce_mean(self._float_mean_input(inputs), axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps axis."""

    dims = 1

    def call(self, inputs):
        return _max(inputs, axis=self._axes()[0], keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over the height and width axes."""

    dims = 2

    def call(self, inputs):
        return _max(inputs, axis=self._axes(), keepdims=self.keepdims)

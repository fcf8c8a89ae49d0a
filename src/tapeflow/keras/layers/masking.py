"""``tf.keras.layers.Masking``: mask the timesteps whose features all equal ``mask_value``."""

from __future__ import annotations

from .. import _masks
from .._dtypes import result_type
from .base import Layer

__all__ = ["Masking"]


def _tf():
    import tapeflow

    return tapeflow


class Masking(Layer):
    """Zero the timesteps (positions of the second-to-last axis) whose features all equal ``mask_value`` and attach
    the mask ``any(inputs != mask_value, axis=-1)`` to the output, for the layers downstream."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self._build_at_init()

    def _keep(self, inputs, keepdims):
        # Keras compares in the promoted dtype of the inputs and ``mask_value`` (integer inputs against a float
        # mask value compare as float32), where tf.not_equal would refuse to convert ``0.0`` to an int tensor.
        tf = _tf()
        dtype = result_type(inputs.dtype, self.mask_value)
        if dtype != inputs.dtype.name:
            inputs = tf.cast(inputs, dtype)
        return tf.reduce_any(tf.not_equal(inputs, tf.cast(self.mask_value, dtype)), axis=-1, keepdims=keepdims)

    def compute_mask(self, inputs, mask=None):
        return self._keep(inputs, keepdims=False)

    def call(self, inputs):
        tf = _tf()
        keep = self._keep(inputs, keepdims=True)
        dtype = result_type(inputs.dtype, 0)  # Keras's where(keep, inputs, 0): bool inputs come out int32
        if dtype != inputs.dtype.name:
            inputs = tf.cast(inputs, dtype)
        outputs = tf.where(keep, inputs, tf.zeros_like(inputs))
        _masks.set_keras_mask(outputs, tf.squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}

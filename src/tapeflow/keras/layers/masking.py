"""``tf.keras.layers.Masking``: mask the timesteps whose features all equal ``mask_value``."""

from __future__ import annotations

from .. import _masks
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

    def compute_mask(self, inputs, mask=None):
        return _tf().reduce_any(_tf().not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        tf = _tf()
        keep = tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        outputs = tf.where(keep, inputs, tf.zeros_like(inputs))
        _masks.set_keras_mask(outputs, tf.squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}

"""``tf.keras.layers``: the Keras 3 ``Layer`` base, ``InputSpec`` and the core layers."""

from .base import InputSpec, Layer
from .core import Activation, Add, Concatenate, Dense, Dropout, Embedding, Flatten, Reshape
from .normalization import BatchNormalization, LayerNormalization

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Flatten", "Reshape", "Dropout", "Add", "Concatenate",
           "Embedding", "BatchNormalization", "LayerNormalization"]

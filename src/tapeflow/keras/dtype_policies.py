"""``tf.keras.dtype_policies``: Keras 3's dtype policy classes and their (de)serialization (the quantized policies
are not implemented)."""

from .mixed_precision.policy import DTypePolicy, FloatDTypePolicy, deserialize, get, serialize

__all__ = ["DTypePolicy", "FloatDTypePolicy", "get", "serialize", "deserialize"]

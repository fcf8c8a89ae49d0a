"""``tf.keras.models``: ``Model`` (subclassed models), ``Sequential``, and ``Input``/``InputLayer``."""

from .model import Model
from .sequential import Input, InputLayer, KerasTensor, Sequential

__all__ = ["Model", "Sequential", "Input", "InputLayer", "KerasTensor"]

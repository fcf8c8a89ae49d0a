"""``tf.keras.models``: ``Model`` (subclassed and functional models), ``Sequential``, ``Input``/``InputLayer``."""

from .model import Model  # noqa: I001 - functional needs Model first
from .functional import Functional, Input, InputLayer, KerasTensor
from .sequential import Sequential

__all__ = ["Model", "Functional", "Sequential", "Input", "InputLayer", "KerasTensor"]

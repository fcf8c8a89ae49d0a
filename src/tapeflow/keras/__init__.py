"""``tf.keras``: the Keras 3 API that GradientTape programs use, on tapeflow."""

from . import backend, optimizers
from .variables import Variable

__all__ = ["backend", "optimizers", "Variable"]

"""``tf.keras``: the Keras 3 API that GradientTape programs use, on tapeflow."""

from . import activations, backend, initializers, layers, losses, metrics, optimizers, regularizers
from .variables import Variable

__all__ = ["activations", "backend", "initializers", "layers", "losses", "metrics", "optimizers", "regularizers",
           "Variable"]

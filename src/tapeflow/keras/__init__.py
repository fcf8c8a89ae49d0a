"""``tf.keras``: the Keras 3 API that GradientTape programs use, on tapeflow."""

from . import (
           activations,
           backend,
           callbacks,
           initializers,
           layers,
           losses,
           metrics,
           models,  # noqa: E402
           optimizers,
           random,
           regularizers,
           utils,
)
from .models import Input, Model, Sequential  # noqa: E402
from .variables import Variable

__all__ = ["activations", "backend", "callbacks", "initializers", "layers", "losses", "metrics", "optimizers",
           "regularizers", "Variable"]
__all__ += ["models", "Model", "Sequential", "Input"]
__all__ += ["utils"]
__all__ += ["random"]

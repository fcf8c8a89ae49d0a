"""``tf.keras``: the Keras 3 API that GradientTape programs use, on tapeflow."""

from . import (
           activations,
           backend,
           callbacks,
           datasets,
           dtype_policies,
           initializers,
           layers,
           losses,
           metrics,
           mixed_precision,
           models,  # noqa: E402
           optimizers,
           random,
           regularizers,
           saving,
           utils,
)
from .mixed_precision import DTypePolicy
from .models import Input, Model, Sequential  # noqa: E402
from .variables import Variable

__all__ = ["activations", "backend", "callbacks", "initializers", "layers", "losses", "metrics", "optimizers",
           "regularizers", "Variable"]
__all__ += ["models", "Model", "Sequential", "Input"]
__all__ += ["utils", "saving", "datasets"]
__all__ += ["random"]
__all__ += ["mixed_precision", "dtype_policies", "DTypePolicy"]

"""``tf.keras.optimizers``: Keras 3 optimizers and ``schedules``."""

from . import schedules
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .base import Optimizer
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale_optimizer import LossScaleOptimizer
from .nadam import Nadam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl",
           "Lion", "Lamb", "Adafactor", "LossScaleOptimizer", "schedules", "get"]

_BY_NAME = {cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl,
                                                   Lion, Lamb, Adafactor)}


def get(identifier):
    """An optimizer from its name (``"adam"``, any case), a ``{"class_name": ..., "config": {...}}`` dict, or an
    optimizer itself (``keras.optimizers.get``); the named ones come with their default settings.

    Raises:
        ValueError: ``Could not interpret optimizer identifier: ...`` for anything else.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, dict) and str(identifier.get("class_name", "")).lower() in _BY_NAME:
        return _BY_NAME[identifier["class_name"].lower()].from_config(dict(identifier.get("config") or {}))
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


class _Legacy:
    """``tf.keras.optimizers.legacy``: Keras 2 optimizers, which Keras 3 (and so TF 2.21) no longer has."""

    def __getattr__(self, name):
        raise ImportError("`keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to "
                          "continue using a `tf.keras.optimizers.legacy` optimizer, you can install the "
                          "`tf_keras` package (Keras 2) and set the environment variable "
                          "`TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when accessing "
                          "`tf.keras`.")


legacy = _Legacy()

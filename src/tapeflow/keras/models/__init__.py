"""``tf.keras.models``: ``Model`` (subclassed and functional models), ``Sequential``, ``Input``/``InputLayer``."""

from .model import Model  # noqa: I001 - functional needs Model first
from .functional import Functional, Input, InputLayer, KerasTensor
from .sequential import Sequential

__all__ = ["Model", "Functional", "Sequential", "Input", "InputLayer", "KerasTensor", "load_model", "save_model",
           "model_from_json"]


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved in a ``.keras`` file (or a Keras 2 ``.h5`` file); see ``tf.keras.saving.load_model``."""
    from ..saving import saving_lib

    return saving_lib.load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """``model.save(filepath)``: write a ``.keras`` file."""
    model.save(filepath, overwrite=overwrite, zipped=zipped, **kwargs)


def model_from_json(json_string, custom_objects=None):
    """A new model (fresh weights) from ``model.to_json()``'s string."""
    import json

    from ..saving.serialization_lib import deserialize_keras_object

    return deserialize_keras_object(json.loads(json_string), custom_objects=custom_objects)

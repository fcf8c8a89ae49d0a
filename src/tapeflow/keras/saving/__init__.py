"""``tf.keras.saving``: Keras 3's ``.keras`` and ``.weights.h5`` files and object configs.

``save_model``/``load_model`` write and read ``.keras`` archives (and read Keras 2 ``.h5`` files); the object
configs are ``serialize_keras_object``/``deserialize_keras_object``; custom classes are found through
``register_keras_serializable``, ``custom_object_scope`` and the ``custom_objects`` arguments. The files need
h5py (tapeflow's 'h5' extra); the configs do not.
"""

from ..utils.custom_objects import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from .saving_lib import load_model, load_weights, save_model, save_weights
from .serialization_lib import deserialize_keras_object, serialize_keras_object

__all__ = ["save_model", "load_model", "save_weights", "load_weights", "serialize_keras_object",
           "deserialize_keras_object", "register_keras_serializable", "get_registered_name", "get_registered_object",
           "get_custom_objects", "custom_object_scope", "CustomObjectScope"]

"""``tf.keras.utils`` (Keras 3.15): seeding, one-hot encoding, normalisation, the progress bar, ``pad_sequences``,
the custom-object registry, the ``(x, y, sample_weight)`` packing helpers and ``get_file`` (downloads with the
standard library). Nothing here needs tf.data, PIL or pydot.

The utilities live in modules by kind: ``numerical`` (``to_categorical``, ``normalize``), ``random_seed``,
``progbar``, ``sequences``, ``custom_objects``, ``packing`` and ``file_utils``; ``clear_session`` and
``standardize_dtype`` are Keras's global state and variable dtypes, re-exported.
"""

from .._state import clear_session
from ..variables import standardize_dtype
from .custom_objects import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from .file_utils import get_file
from .numerical import normalize, to_categorical
from .packing import pack_x_y_sample_weight, unpack_x_y_sample_weight
from .progbar import Progbar
from .random_seed import set_random_seed
from .sequences import pad_sequences

__all__ = ["set_random_seed", "to_categorical", "normalize", "Progbar", "get_file"]
__all__ += ["pad_sequences", "register_keras_serializable", "get_registered_name", "get_registered_object",
            "get_custom_objects", "custom_object_scope", "CustomObjectScope", "pack_x_y_sample_weight",
            "unpack_x_y_sample_weight", "clear_session", "standardize_dtype"]

__all__ += ["serialize_keras_object", "deserialize_keras_object"]


def __getattr__(name):
    # Keras exports its object configs here too; they live in ``tf.keras.saving`` (imported on first use, since
    # the saving package itself uses this package's registry).
    if name in ("serialize_keras_object", "deserialize_keras_object"):
        from ..saving import serialization_lib

        return getattr(serialization_lib, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

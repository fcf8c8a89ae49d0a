"""``tf.saved_model``: save an object's variables and traced functions to a directory, and load them back.

``save(obj, export_dir, signatures=None)`` writes a ``tf.Module``, Keras model or ``tf.train.Checkpoint``;
``load(export_dir)`` returns an object with its variables, functions and ``signatures``, without the classes that
wrote it. The directory is tapeflow's own format, documented in ``docs/saved_model.md``: the traced programs as
JSON over tapeflow's registered ops, their constants in an ``.npz`` archive, and the variables as a tapeflow
checkpoint at ``variables/variables`` (so ``tf.train.Checkpoint(obj).restore(export_dir + "/variables/variables")``
restores them into live objects). SavedModels written by TensorFlow (``saved_model.pb``) are not read.
"""

import types as _types

from ._load import contains_saved_model, load
from ._save import save
from .options import LoadOptions, SaveOptions, VariablePolicy

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions", "experimental", "SERVING",
           "DEFAULT_SERVING_SIGNATURE_DEF_KEY"]

experimental = _types.SimpleNamespace(VariablePolicy=VariablePolicy)

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

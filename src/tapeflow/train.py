"""``tf.train``: checkpoints (``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``; ``list_variables``,
``load_variable`` and ``load_checkpoint`` read one by key), and ``Example`` with its parts (``Features``,
``Feature``, ``BytesList``, ``FloatList``, ``Int64List``, ``SequenceExample`` ...: see ``tapeflow.io.example``).

tapeflow writes its own open format (a ``.npz`` archive with a JSON index, see ``tapeflow._core.checkpoint_io``),
not TensorFlow's binary one. Every write is atomic, so a crash never loses the previous checkpoint; a
``CheckpointManager``'s first save cleans up what a killed process left behind; a damaged file raises TF's
``DataLossError`` (a ``tf.errors.OpError``) and restores nothing; the ``checkpoint`` state file is TF's text format,
and a damaged one is logged and ignored, as TF does.
"""

from ._core.checkpoint import Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus
from ._core.checkpoint_manager import CheckpointManager, latest_checkpoint
from ._core.checkpoint_reader import list_variables, load_checkpoint, load_variable
from .io import example as _example

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "CheckpointLoadStatus", "list_variables",
           "load_checkpoint", "load_variable",
           "InitializationOnlyStatus", *_example.NAMES]


def __getattr__(name):
    # ``tf.train.Example`` and its parts: protocol buffer classes, made on first use (they need the ``tfrecord``
    # extra, which ``message_classes`` names when it is missing).
    if name in _example.NAMES:
        return _example.message_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

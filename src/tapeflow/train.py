"""``tf.train``: checkpoints (``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``).

tapeflow writes its own open format (a ``.npz`` archive with a JSON index, see ``tapeflow._core.checkpoint_io``),
not TensorFlow's binary one; every write is atomic, so a crash never loses the previous checkpoint.
"""

from ._core.checkpoint import Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus
from ._core.checkpoint_manager import CheckpointManager, latest_checkpoint

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "CheckpointLoadStatus",
           "InitializationOnlyStatus"]

"""``tf.ragged``: ragged tensors (``tapeflow/ops/ragged_tensor.py``) and the ops on them (``ops/ragged_ops.py``)."""

from . import ops as _ops  # noqa: F401 - every op module runs its @export lines first
from ._core.exports import install as _install

_install(globals(), "ragged")

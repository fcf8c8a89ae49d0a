"""``tf.sparse``: ``SparseTensor`` and the ops on it (``tapeflow/ops/sparse_ops.py``)."""

from . import ops as _ops  # noqa: F401 - every op module runs its @export lines first
from ._core.exports import install as _install

_install(globals(), "sparse")

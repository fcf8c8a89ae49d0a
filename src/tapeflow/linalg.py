"""``tf.linalg``: linear algebra."""

from .ops.linalg_ops import matmul, norm

__all__ = ["matmul", "norm"]

from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install  # noqa: E402

_install(globals(), "linalg")

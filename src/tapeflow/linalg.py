"""``tf.linalg``: linear algebra."""

from .ops.linalg_ops import matmul, norm

__all__ = ["matmul", "norm"]

from ._core.exports import install as _install  # noqa: E402

_install(globals(), "linalg")

"""``tf.linalg``: linear algebra."""

from .ops.linalg_ops import matmul, norm

__all__ = ["matmul", "norm"]

from ._core.exports import install  # noqa: E402

install(globals(), "linalg")

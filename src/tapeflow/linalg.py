"""``tf.linalg``: linear algebra."""

from .ops.linalg_ops import matmul, norm

__all__ = ["matmul", "norm"]

"""``tf.nn``: activations and neural-network functions."""

from .ops.nn_ops import relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh"]

from ._core.exports import install  # noqa: E402

install(globals(), "nn")

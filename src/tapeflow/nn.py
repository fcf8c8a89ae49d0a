"""``tf.nn``: activations and neural-network functions."""

from .ops.nn_ops import relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh"]

from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install  # noqa: E402

_install(globals(), "nn")

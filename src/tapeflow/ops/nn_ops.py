"""Neural-network functions: forward (NumPy) and gradient (tapeflow ops) side by side."""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.registry import FLOAT, defop
from ._convert import to_tensor
from .math_ops import relu, sigmoid, tanh
from .reduction_ops import reduce_sum

__all__ = ["softmax", "relu", "sigmoid", "tanh"]


@defop("Softmax", dtypes=FLOAT)
def SOFTMAX(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.add.reduce(e, axis=axis, keepdims=True)


@SOFTMAX.defvjp
def _softmax_grad(g, y, x, axis):
    # dx = (g - sum(g * y, axis)) * y
    return (g - reduce_sum(g * y, axis, keepdims=True)) * y


def softmax(logits, axis=None, name=None):
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably, along ``axis`` (default last)."""
    x = to_tensor(logits)
    axis = -1 if axis is None else int(axis)
    nd = x._value.ndim
    if not -nd <= axis < nd:
        raise errors.InvalidArgumentError(None, None, f"`dim` must be in the range [{-nd}, {nd}) where {nd} is the "
                                          f"number of dimensions in the input. Received: dim={axis}")
    return execute(SOFTMAX, (x,), {"axis": axis})

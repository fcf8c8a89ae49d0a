"""Ops that take a shape from another tensor when the program runs: ``BroadcastLike``, ``SumLike`` and
``ReshapeLike`` (and ``MeanGradLike`` in ``reduction_ops``).

Gradient rules size their results by their inputs' shapes: a sum's gradient is broadcast back to the summed
input's shape, a broadcast operand's gradient is summed down to its own. Eagerly, and in most traced programs, that
shape is a constant attribute. A loop body traced once and run on tensors whose shapes change between iterations
(a dataset's short last batch in ``for batch in dataset``) cannot fix it: there the rules call these ops instead,
with the tensor whose shape they want as a second operand (:func:`shape_varies` says when). The second operand
never gets a gradient: only its shape is read.
"""

from __future__ import annotations

import numpy as np

from .._core import state as _state
from .._core.dispatch import execute
from .._core.gradient_kinds import unbroadcast_array
from .._core.registry import ALL, NUMERIC, defop

__all__ = ["BROADCAST_LIKE", "SUM_LIKE", "RESHAPE_LIKE", "EXPAND_DIMS_AT", "SQUEEZE_AT", "shape_varies"]


def shape_varies(x):
    """Whether ``x``'s shape may differ between runs of the traced code being built (a loop body whose tensors
    change shape): a rule then sizes its results with the ops here rather than with ``x``'s present shape."""
    tracer = _state.STATE.tracer
    return tracer is not None and tracer.shape_dynamic and not tracer.static_shape(x).is_fully_defined()


@defop("BroadcastLike", dtypes=ALL, same_dtype=False)
def BROADCAST_LIKE(x, like):
    """``x`` broadcast to ``like``'s shape."""
    out = np.empty(np.shape(like), x.dtype)
    out[...] = x
    return out


@BROADCAST_LIKE.defvjp
def _broadcast_like_grad(g, y, x, like):
    return (g, None)  # the backward pass sums it back to x's shape


@defop("SumLike", dtypes=NUMERIC, same_dtype=False)
def SUM_LIKE(x, like):
    """``x`` summed down to ``like``'s shape (over leading axes and axes where ``like`` has 1), the adjoint of
    :data:`BROADCAST_LIKE`."""
    return unbroadcast_array(x, np.shape(like))


@SUM_LIKE.defvjp
def _sum_like_grad(g, y, x, like):
    return (execute(BROADCAST_LIKE, (g, x)), None)


@defop("ReshapeLike", dtypes=ALL, same_dtype=False)
def RESHAPE_LIKE(x, like):
    """``x`` reshaped to ``like``'s shape."""
    return np.reshape(x, np.shape(like))


@RESHAPE_LIKE.defvjp
def _reshape_like_grad(g, y, x, like):
    return (execute(RESHAPE_LIKE, (g, x)), None)


def _back_to_input(g, y, x, axis):
    return (execute(RESHAPE_LIKE, (g, x)),)


# ``tf.expand_dims`` and ``tf.squeeze`` of such a tensor: by axis, where eagerly they are reshapes to a shape
# worked out beforehand (registered under their own keys; errors name them as TF does).
EXPAND_DIMS_AT = defop("ExpandDimsAt", dtypes=ALL)(lambda x, axis: np.expand_dims(x, axis))
EXPAND_DIMS_AT.name = "ExpandDims"
EXPAND_DIMS_AT.defvjp(_back_to_input)
SQUEEZE_AT = defop("SqueezeAt", dtypes=ALL)(lambda x, axis: np.squeeze(x, axis))
SQUEEZE_AT.name = "Squeeze"
SQUEEZE_AT.defvjp(_back_to_input)

"""Losses for training on several replicas: ``tf.nn.scale_regularization_loss``, and the replica count
``tf.nn.compute_average_loss`` (``nn_ops.py``) divides by.

Each replica divides its summed loss by the *global* batch size (or its regularization loss by the number of
replicas), so that the gradients the replicas sum come out as the gradient of the mean over the global batch. The
replica count comes from the current ``tf.distribute`` strategy (1 outside every strategy); asking for it in a
strategy's cross-replica context is TF's ``RuntimeError``.
"""

from __future__ import annotations

import sys

from .._core.exports import export
from .._core.tensor import convert_to_tensor
from .array_ops import cast
from .reduction_ops import reduce_sum

__all__ = ["replicas_in_sync", "scale_regularization_loss"]


def replicas_in_sync(caller):
    """The current strategy's replica count (1 when ``tf.distribute`` was never loaded: no strategy can be
    current then)."""
    context = sys.modules.get("tapeflow.distribute._context")
    if context is None:
        return 1
    strategy, replica = context.current()
    if strategy is not None and replica is None and type(strategy).__name__ != "_DefaultDistributionStrategy":
        raise RuntimeError(f"You are calling `{caller}` in cross replica context, while it was expected to be "
                           "called in replica context.")
    return context.num_replicas_in_sync()


@export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """``regularization_loss`` summed and divided by the replica count.

    Raises:
        RuntimeError: in a strategy's cross-replica context.
    """
    loss = reduce_sum(convert_to_tensor(regularization_loss))
    return loss / cast(replicas_in_sync("scale_regularization_loss"), loss.dtype)

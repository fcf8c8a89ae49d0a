"""``import horovod.tensorflow.keras as hvd`` becomes ``import tapeflow.horovod.keras as hvd``: the same API as
:mod:`tapeflow.horovod` (``init``, ``rank``, ``size``, ``DistributedOptimizer``, ``callbacks`` ...)."""

from . import (  # noqa: F401 - re-exported
    Average,
    BroadcastGlobalVariablesCallback,
    Compression,
    DistributedOptimizer,
    MetricAverageCallback,
    Sum,
    allgather,
    allgather_object,
    allreduce,
    broadcast,
    broadcast_object,
    broadcast_variables,
    callbacks,
    init,
    is_initialized,
    local_rank,
    local_size,
    rank,
    shutdown,
    size,
)

__all__ = ["Average", "BroadcastGlobalVariablesCallback", "Compression", "DistributedOptimizer",
           "MetricAverageCallback", "Sum", "allgather", "allgather_object", "allreduce", "broadcast",
           "broadcast_object", "broadcast_variables", "callbacks", "init", "is_initialized", "local_rank",
           "local_size", "rank", "shutdown", "size"]

"""``tf.distribute``: data-parallel training with TensorFlow's strategies, across processes over MPI.

``MultiWorkerMirroredStrategy`` spans the processes of an ``mpiexec -n N`` job (one replica each);
``MirroredStrategy`` and ``OneDeviceStrategy`` run one replica in this process. See ``docs/distributed.md`` and
:mod:`tapeflow.distribute.strategies`. MPI (``mpi4py`` with an MPI library, the ``mpi`` extra) is loaded only when
the program was started by ``mpiexec`` with several processes.
"""

from ._input import (
    DistributedDataset,
    DistributedDatasetsFromFunction,
    DistributedIterator,
    InputContext,
    InputOptions,
    InputReplicationMode,
)
from .strategies import (
    DistributedValues,
    MirroredStrategy,
    MultiWorkerMirroredStrategy,
    OneDeviceStrategy,
    PerReplica,
    ReduceOp,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    ValueContext,
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)


class RunOptions:
    """Options for ``strategy.run`` (``tf.distribute.RunOptions``); accepted and kept."""

    def __init__(self, experimental_enable_dynamic_batch_size=True, experimental_bucketizing_dynamic_shape=False,
                 experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
        self.experimental_xla_options = experimental_xla_options


__all__ = ["DistributedDataset", "DistributedDatasetsFromFunction", "DistributedIterator", "DistributedValues",
           "InputContext", "InputOptions", "InputReplicationMode", "MirroredStrategy", "MultiWorkerMirroredStrategy",
           "OneDeviceStrategy", "PerReplica", "ReduceOp", "ReplicaContext", "RunOptions", "Strategy",
           "StrategyExtended", "ValueContext", "experimental_set_strategy", "get_replica_context", "get_strategy",
           "has_strategy", "in_cross_replica_context"]

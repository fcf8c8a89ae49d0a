"""``tf.distribute`` strategies with TensorFlow's semantics, on a CPU per process.

* ``MirroredStrategy`` and ``OneDeviceStrategy``: one replica, this process's CPU (as TF has on a CPU-only
  machine); no communication, also when several processes run (each is a strategy of its own, as in TF).
* ``MultiWorkerMirroredStrategy``: one replica per process of the job. Started by ``mpiexec -n N`` it has
  ``num_replicas_in_sync == N``; ``reduce``, ``gather``, ``ReplicaContext.all_reduce`` and Keras optimizers
  communicate over MPI (``_collective.py``). Started alone it has one replica and needs no MPI.

As in TF's multi-worker strategy, each process holds only its own (local) replica: ``run`` returns the local
replica's results as plain tensors, ``experimental_local_results`` a 1-tuple, and values from
``experimental_distribute_values_from_function`` are ``PerReplica`` with the local replica only. Variables created
in ``scope()`` start from rank 0's initial value on every rank (one broadcast at creation; the ranks must create
the same variables in the same order), and stay equal as long as every update is the same everywhere (which
all-reduced gradients give).
"""

from __future__ import annotations

import contextlib
import enum

import numpy as np

from .._core import nest
from .._core import variable as _variable
from .._core.logs import get_logger
from .._core.state import STATE
from .._core.tensor import constant, convert_to_tensor
from . import _context
from ._comm import LocalComm, world

__all__ = ["MirroredVariable", "ReduceOp", "Strategy", "StrategyExtended", "MirroredStrategy",
           "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "ReplicaContext", "DistributedValues", "PerReplica",
           "ValueContext", "get_strategy", "has_strategy", "in_cross_replica_context", "get_replica_context",
           "experimental_set_strategy"]

_LOCAL_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_EAGER_RUN = ("Using MirroredStrategy eagerly has significant overhead currently. We will be working on improving "
              "this in the future, but for now please wrap `call_for_each_replica` or `experimental_run` or `run` "
              "inside a tf.function to get the best performance.")
_CROSS_ONLY = "Method requires being in cross-replica context, use get_replica_context().merge_call()"


class ReduceOp(enum.Enum):
    """How values of the replicas combine: ``SUM`` or ``MEAN`` (``tf.distribute.ReduceOp``)."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The reduce op of a ``tf.VariableAggregation`` (``SUM`` or ``MEAN``)."""
        name = str(getattr(aggregation, "value", aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to`tf.distribute."
                             "ReduceOp` type")
        return ReduceOp(name)


def _reduce_op(op):
    return op if isinstance(op, ReduceOp) else ReduceOp(op.upper() if isinstance(op, str) else op)


class DistributedValues:
    """Values with one component per local replica (``tf.distribute.DistributedValues``)."""

    _kind = "DistributedValues"

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def __repr__(self):
        body = "".join(f"  {i}: {v!r}\n" for i, v in enumerate(self._values))
        return f"{self._kind}:{{\n{body}}}"

    __str__ = __repr__


class PerReplica(DistributedValues):
    """A value per local replica, as ``experimental_distribute_values_from_function`` makes them."""

    _kind = "PerReplica"


def _local(value):
    """The local replica's component of ``value`` (itself for a plain value)."""
    return value.values[0] if isinstance(value, DistributedValues) else value


class ValueContext:
    """What ``experimental_distribute_values_from_function`` passes its function (``tf.distribute.ValueContext``)."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync

    def __repr__(self):
        return (f"tf.distribute.ValueContext(replica id {self.replica_id_in_sync_group},  total replicas in sync: "
                f"{self.num_replicas_in_sync})")


class ReplicaContext:
    """The context ``strategy.run`` calls its function in (``tf.distribute.ReplicaContext``)."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index among all replicas, an ``int32`` tensor."""
        return constant(self._replica_id, dtype="int32")

    @property
    def devices(self):
        return (_LOCAL_DEVICE,)

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a nest of tensors) combined over all replicas by ``reduce_op`` (``SUM`` or ``MEAN``); in
        fused buffers, one allreduce for the whole nest."""
        op = _reduce_op(reduce_op)
        flat = [convert_to_tensor(v) for v in nest.flatten(value)]
        reduced = self._strategy._allreduce(flat, op is ReduceOp.MEAN)
        return nest.pack_sequence_as(value, reduced)

    def all_gather(self, value, axis, options=None):
        """Each tensor of ``value`` concatenated along ``axis`` over all replicas, in replica order."""
        return nest.map_structure(lambda v: self._strategy._gather(convert_to_tensor(v), axis), value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` in the cross-replica context (every replica calls it)."""
        _context.push(self._strategy, None)
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _context.pop()


class _MirroredReplicaContext(ReplicaContext):
    """The replica context of the mirrored strategies (TF's class name)."""


class _DefaultReplicaContext(ReplicaContext):
    @property
    def devices(self):
        return ("",)

    @property
    def replica_id_in_sync_group(self):
        """0, a Python int in the default replica context (as in TF)."""
        return 0


class StrategyExtended:
    """Strategy details (``strategy.extended``)."""

    def __init__(self, strategy, devices):
        self._container_strategy = strategy
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)
        self.experimental_require_static_shapes = False
        self.experimental_enable_get_next_as_optional = True

    @property
    def should_checkpoint(self):
        """Whether this process writes checkpoints (rank 0 only when several processes train)."""
        return self._container_strategy._comm.rank == 0

    should_save_summary = should_checkpoint


class Strategy:
    """A way to run a computation on several replicas (``tf.distribute.Strategy``); see the module docstring."""

    _mirrors = False  # whether variables made in its scope are MirroredVariables

    def __init__(self, comm=None, devices=(_LOCAL_DEVICE,)):
        self._comm = comm or LocalComm()
        self._extended = StrategyExtended(self, devices)

    @property
    def extended(self):
        return self._extended

    @property
    def cluster_resolver(self):
        return None

    @property
    def num_replicas_in_sync(self):
        return self._comm.size

    # --- contexts ------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _scope(self):
        strategy, replica = _context.current()
        if replica is not None and strategy is not None:
            raise RuntimeError(_CROSS_ONLY)
        if strategy is not None and strategy is not self:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {strategy!r} is not {self!r}")
        _context.push(self, None)
        try:
            yield self
        finally:
            _context.pop()

    def scope(self):
        """Enter the cross-replica context: variables created here are mirrored (see the module docstring), and
        Keras models and optimizers made here train across the replicas."""
        return self._scope()

    def _require_cross_replica(self):
        strategy, replica = _context.current()
        if replica is not None and strategy is not None:
            raise RuntimeError(_CROSS_ONLY)

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on the local replica, in its replica context; ``PerReplica`` arguments give
        their local component. Returns the local replica's results."""
        self._require_cross_replica()
        args = nest.map_structure(_local, args, expand_composites=False) if args else ()
        kwargs = nest.map_structure(_local, kwargs) if kwargs else {}
        _context.push(self, _MirroredReplicaContext(self, self._comm.rank))
        try:
            return fn(*args, **kwargs)
        finally:
            _context.pop()

    # --- cross-replica operations --------------------------------------------------------------------------
    def _allreduce(self, tensors, average, names=None):
        if self._comm.size == 1:
            return list(tensors)  # the mean of one replica's value is that value
        from ._collective import allreduce_tensors

        return allreduce_tensors(tensors, names, "SUM", average, comm=self._comm, what="all_reduce")

    def _gather(self, tensor, axis):
        if self._comm.size == 1:
            return tensor
        from ..ops.array_ops import transpose
        from ._collective import allgather_tensor

        rank = tensor.shape.rank
        axis = axis + rank if axis < 0 else axis
        if axis == 0:
            return allgather_tensor(tensor, comm=self._comm)
        perm = [axis] + [i for i in range(rank) if i != axis]
        back = list(np.argsort(perm))
        return transpose(allgather_tensor(transpose(tensor, perm), comm=self._comm), back)

    def reduce(self, reduce_op, value, axis):
        """``value`` combined over the replicas by ``reduce_op``; with ``axis``, also along that axis of each
        replica's value (``MEAN`` then divides by the total length of that axis over all replicas)."""
        self._require_cross_replica()
        op = _reduce_op(reduce_op)
        value = convert_to_tensor(_local(value))
        from ..ops.math_ops import cast
        from ..ops.reduction_ops import reduce_sum

        if axis is None:
            if self._comm.size == 1:
                return value
            return self._allreduce([value], op is ReduceOp.MEAN)[0]
        total = reduce_sum(value, axis)
        if op is ReduceOp.SUM:
            return self._allreduce([total], False)[0]
        count = constant(value.shape[axis] if value.shape[axis] is not None else 0, dtype="int64")
        total, count = self._allreduce([total, count], False)
        return total / cast(count, total.dtype)  # integers divide to float64, as TF's truediv

    def gather(self, value, axis):
        """Every replica's ``value`` concatenated along ``axis`` (sizes along ``axis`` may differ)."""
        self._require_cross_replica()
        return self._gather(convert_to_tensor(_local(value)), axis)

    def experimental_local_results(self, value):
        """The values of the local replicas, a tuple (one element here)."""
        return value.values if isinstance(value, DistributedValues) else (value,)

    def experimental_distribute_values_from_function(self, value_fn):
        """``PerReplica`` of ``value_fn(ValueContext)`` for each local replica."""
        value = value_fn(ValueContext(self._comm.rank, self.num_replicas_in_sync))
        return nest.map_structure(lambda v: PerReplica([v]), value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """``dataset`` of global batches, each split across the replicas: this process iterates its part."""
        from ._input import DistributedDataset

        return DistributedDataset(dataset, self, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)`` once per process: it shards and batches per replica itself."""
        from ._input import DistributedDatasetsFromFunction

        return DistributedDatasetsFromFunction(dataset_fn, self, options)

    # --- variables -----------------------------------------------------------------------------------------
    def _mirror(self, variable):
        """Give ``variable`` rank 0's initial value (every rank creates it; see the module docstring)."""
        from ._collective import check_agreement

        comm = self._comm
        value = variable._value
        check_agreement(comm, ((str(variable.name), np.shape(value), np.asarray(value).dtype.name),),
                        "Creating a variable in strategy.scope()")
        variable._value = comm.bcast(value, 0)


class _DefaultDistributionStrategy(Strategy):
    """The strategy current outside every ``scope()``: one replica, no communication."""

    def scope(self):
        return contextlib.nullcontext(self)


class MirroredStrategy(Strategy):
    """Synchronous training on this process's devices: one replica on the CPU (``tf.distribute.MirroredStrategy``).

    For several processes use ``MultiWorkerMirroredStrategy`` (or ``tapeflow.horovod``) under ``mpiexec``.
    """

    _mirrors = True

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__(LocalComm())

    def run(self, fn, args=(), kwargs=None, options=None):
        self._require_cross_replica()
        if STATE.tracer is None:  # TF's advice, logged on each eager call
            get_logger().warning(_EAGER_RUN)
        return super().run(fn, args, kwargs, options)


class OneDeviceStrategy(Strategy):
    """Everything on one device (``tf.distribute.OneDeviceStrategy``)."""

    def __init__(self, device):
        super().__init__(LocalComm())
        self._device = device


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training with one replica per process of an ``mpiexec`` job
    (``tf.distribute.MultiWorkerMirroredStrategy``); one replica, without MPI, when started alone."""

    _mirrors = True

    def __init__(self, cluster_resolver=None, communication_options=None):
        comm = world()
        device = _LOCAL_DEVICE if comm.size == 1 else f"/job:worker/replica:0/task:{comm.rank}/device:CPU:0"
        super().__init__(comm, (device,))


# --------------------------------------------------------------------------------------------- module functions


def get_strategy():
    """The current strategy: the one whose ``scope()`` is open, else the default strategy."""
    strategy, _ = _context.current()
    return strategy if strategy is not None else _context.default_strategy()


def has_strategy():
    """Whether a strategy other than the default is current."""
    strategy, _ = _context.current()
    return strategy is not None and not isinstance(strategy, _DefaultDistributionStrategy)


def in_cross_replica_context():
    """Whether code runs in a strategy's cross-replica context (inside ``scope()``, outside ``run``)."""
    strategy, replica = _context.current()
    return strategy is not None and replica is None


def get_replica_context():
    """The current ``ReplicaContext``: ``None`` in a cross-replica context, the default strategy's outside every
    strategy."""
    strategy, replica = _context.current()
    if strategy is None:
        return _DefaultReplicaContext(_context.default_strategy(), 0)
    return replica


class MirroredVariable(_variable.ResourceVariable):
    """A variable made in a mirrored strategy's scope: one copy per replica, kept equal (``values``: the local
    replica's copy); otherwise a ``tf.Variable``."""

    @property
    def values(self):
        return (self,)

    @property
    def synchronization(self):
        return _variable.VariableSynchronization.ON_WRITE

    def __repr__(self):
        return f"MirroredVariable:{{\n  0: {_variable.ResourceVariable.__repr__(self)}\n}}"

    __str__ = __repr__


def _on_variable_created(variable):
    strategy, _ = _context.current()
    if strategy is None or not strategy._mirrors:
        return
    if strategy._comm.size > 1:
        strategy._mirror(variable)
    if type(variable) is _variable.ResourceVariable:
        variable.__class__ = MirroredVariable


if not _variable.ON_CREATE:
    _variable.ON_CREATE.append(_on_variable_created)

_SET = []


def experimental_set_strategy(strategy):
    """Make ``strategy`` current (as if its ``scope()`` were entered) until the next call; ``None`` undoes it."""
    while _SET:
        _SET.pop().__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _SET.append(scope)

"""A Horovod-style API on MPI: ``import horovod.tensorflow as hvd`` becomes ``import tapeflow.horovod as hvd``.

Start the program with ``mpiexec -n N python train.py``; without ``mpiexec`` it runs as one process (``size() ==
1``) and needs no MPI. Gradients are averaged over the ranks in fused buffers (``tapeflow.distribute._collective``:
a few ``MPI_Allreduce`` calls per step, not one per variable), optionally sent as ``float16``
(``compression=hvd.Compression.fp16``). A typical loop::

    hvd.init()
    with tf.GradientTape() as tape:
        loss = loss_fn(model(x), y)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
"""

from __future__ import annotations

import numpy as np

from .._core.indexed_slices import IndexedSlices
from .._core.tensor import convert_to_tensor
from ..distribute import _collective
from ..distribute._comm import world
from . import callbacks
from .callbacks import BroadcastGlobalVariablesCallback, MetricAverageCallback

__all__ = ["init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size", "cross_rank",
           "cross_size", "Average", "Sum", "Min", "Max", "Product", "Compression", "allreduce", "grouped_allreduce",
           "allgather", "broadcast", "broadcast_variables", "broadcast_object", "allgather_object",
           "DistributedGradientTape", "DistributedOptimizer", "BroadcastGlobalVariablesCallback",
           "MetricAverageCallback", "callbacks", "mpi_built", "mpi_enabled"]

Average, Sum, Min, Max, Product = "Average", "Sum", "Min", "Max", "Product"
_MPI_OPS = {Average: "SUM", Sum: "SUM", Min: "MIN", Max: "MAX", Product: "PROD"}

_STATE = {"initialized": False}


class Compression:
    """How gradients travel: ``Compression.none`` as they are, ``Compression.fp16`` as ``float16``."""

    none = None
    fp16 = "fp16"


def init(comm=None):
    """Join the job ``mpiexec`` started (or a job of one process). Idempotent."""
    world()
    _STATE["initialized"] = True


def shutdown():
    """Leave the job (MPI itself finalizes at exit)."""
    _STATE["initialized"] = False


def is_initialized():
    return _STATE["initialized"]


def _comm():
    if not _STATE["initialized"]:
        raise ValueError("Horovod has not been initialized; use hvd.init().")
    return world()


def rank():
    """This process's rank in the job, 0 to ``size() - 1``."""
    return _comm().rank


def size():
    """The number of processes in the job."""
    return _comm().size


def local_rank():
    """This process's rank among the processes on its machine."""
    return _comm().local_rank


def local_size():
    """The number of processes on this machine."""
    return _comm().local_size


def cross_rank():
    """The index of this machine among the job's machines (ranks are placed machine by machine)."""
    return _comm().rank // max(_comm().local_size, 1)


def cross_size():
    """The number of machines in the job."""
    comm = _comm()
    return -(-comm.size // max(comm.local_size, 1))


def mpi_built():
    """Whether MPI can be used (the ``mpi`` extra is installed)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi_enabled():
    """Whether this job runs on MPI (started by ``mpiexec`` with several processes)."""
    return _comm().uses_mpi


def _op_and_average(average, op):
    if average is not None:
        if op is not None:
            raise ValueError("The op parameter supersedes average. Please provide only one of them.")
        op = Average if average else Sum
    op = Average if op is None else op
    if op not in _MPI_OPS:
        raise ValueError(f"Unknown reduction {op!r}: use hvd.Average, hvd.Sum, hvd.Min, hvd.Max or hvd.Product.")
    return op


def _scaled(tensors, factor):
    return tensors if factor is None or factor == 1.0 else [t * factor for t in tensors]


def grouped_allreduce(tensors, average=None, compression=Compression.none, op=None, prescale_factor=1.0,
                      postscale_factor=1.0, names=None):
    """Every tensor of ``tensors`` reduced over the ranks in one fused exchange (``hvd.grouped_allreduce``)."""
    op = _op_and_average(average, op)
    return _grouped([convert_to_tensor(t) for t in tensors], op, compression, prescale_factor, postscale_factor,
                    names)


def _grouped(tensors, op, compression, prescale_factor=1.0, postscale_factor=1.0, names=None, donated=None):
    """The fused exchange behind the reductions; ``donated``: ``_collective.donatable``'s flags (the caller drops
    those tensors, so their arrays may hold the results)."""
    tensors = _scaled(tensors, prescale_factor)
    out = _collective.allreduce_tensors(tensors, names, _MPI_OPS[op], op == Average, compression, comm=_comm(),
                                        what="hvd.allreduce", donated=donated)
    return _scaled(out, postscale_factor)


def allreduce(tensor, average=None, device_dense="", device_sparse="", compression=Compression.none, op=None,
              prescale_factor=1.0, postscale_factor=1.0, name=None):
    """``tensor`` reduced over the ranks: averaged by default (``op=hvd.Sum`` sums). An ``IndexedSlices`` is
    gathered instead (its rows from every rank; averaged by dividing the values by ``size()``)."""
    if isinstance(tensor, IndexedSlices):
        op = _op_and_average(average, op)
        values = allgather(tensor.values)
        if op == Average:
            values = values / np.asarray(size(), dtype=values.dtype.as_numpy_dtype)
        return IndexedSlices(values, allgather(tensor.indices), tensor.dense_shape)
    return grouped_allreduce([tensor], average, compression, op, prescale_factor, postscale_factor,
                             names=[name or "tensor"])[0]


def allgather(tensor, name=None):
    """Every rank's ``tensor`` concatenated along axis 0 in rank order (first dimensions may differ)."""
    return _collective.allgather_tensor(tensor, comm=_comm())


def broadcast(tensor, root_rank, name=None):
    """Rank ``root_rank``'s ``tensor`` on every rank."""
    return _collective.broadcast_tensor(tensor, root_rank, comm=_comm())


def broadcast_variables(variables, root_rank):
    """Assign rank ``root_rank``'s value to each of ``variables`` on every rank (one exchange per dtype)."""
    variables = list(variables)
    comm = _comm()
    if comm.size == 1 or not variables:
        return
    arrays = [np.asarray(v.numpy()) for v in variables]
    names = [str(getattr(v, "path", None) or v.name) for v in variables]
    _collective.check_agreement(comm, tuple((n, a.shape, a.dtype.name) for n, a in zip(names, arrays)),
                                "hvd.broadcast_variables")
    by_dtype = {}
    for i, a in enumerate(arrays):
        by_dtype.setdefault(a.dtype, []).append(i)
    for dtype, members in by_dtype.items():
        buffer = np.concatenate([arrays[i].ravel() for i in members]) if members else np.empty(0, dtype)
        buffer = comm.bcast(buffer, root_rank)
        offset = 0
        for i in members:
            n = arrays[i].size
            variables[i].assign(buffer[offset:offset + n].reshape(arrays[i].shape))
            offset += n


def broadcast_object(obj, root_rank=0, name=None):
    """Rank ``root_rank``'s Python object (pickled) on every rank."""
    return _comm().bcast_object(obj, root_rank)


def allgather_object(obj, name=None):
    """A list of every rank's Python object (pickled), in rank order."""
    return _comm().allgather_object(obj)


def _groups_of(n, num_groups, groups, sources):
    """The gradient positions of each fused exchange: all in one (the default), ``num_groups`` even slices, or the
    given ``groups`` of variables (each a list of variables; the rest in a last group)."""
    if groups is not None:
        ids = {id(v): i for i, v in enumerate(sources)}
        out = [[ids[id(v)] for v in group if id(v) in ids] for group in groups]
        listed = {i for group in out for i in group}
        rest = [i for i in range(n) if i not in listed]
        return [g for g in out + [rest] if g]
    if num_groups and num_groups > 1:
        return [list(part) for part in np.array_split(np.arange(n), min(num_groups, max(n, 1))) if len(part)]
    return [list(range(n))]


def _reduce_gradients(grads, sources, op, compression, sparse_as_dense, predivide=1.0, num_groups=0, groups=None,
                      donated=None):
    """``grads`` reduced over the ranks: ``None`` kept, ``IndexedSlices`` gathered (or densified first with
    ``sparse_as_dense``), the dense ones in one fused exchange per group. With ``predivide`` ``f`` an average
    divides by ``f`` before the sum and multiplies by ``f / size()`` after (Horovod's
    ``gradient_predivide_factor``)."""
    grads = list(grads)
    names = [str(getattr(v, "path", None) or getattr(v, "name", f"gradient_{i}")) for i, v in enumerate(sources)]
    if sparse_as_dense:
        grads = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in grads]
    out = list(grads)
    scale = (1.0, 1.0) if predivide == 1.0 or op != Average else (1.0 / predivide, predivide)
    for group in _groups_of(len(grads), num_groups, groups, sources):
        dense = [i for i in group if grads[i] is not None and not isinstance(grads[i], IndexedSlices)]
        if dense:
            reduced = _grouped([grads[i] for i in dense], op, compression, *scale, [names[i] for i in dense],
                               None if donated is None else [donated[i] for i in dense])
            for i, r in zip(dense, reduced):
                out[i] = r
    for i, g in enumerate(grads):
        if isinstance(g, IndexedSlices):
            out[i] = allreduce(g, op=op)
    return out


class DistributedGradientTape:
    """A ``GradientTape`` whose ``gradient`` reduces the gradients over the ranks (averaged by default).

    Args:
        gradtape: the tape (after its ``with`` block).
        device_dense, device_sparse: where Horovod would reduce (every op runs on the CPU here).
        compression: ``Compression.none`` or ``Compression.fp16``.
        sparse_as_dense: densify ``IndexedSlices`` gradients and allreduce them (else their rows are gathered).
        op: ``Average`` (default) or ``Sum`` (or ``Min``, ``Max``, ``Product``).
        gradient_predivide_factor: for an average, divide by it before the sum and multiply by it after.
        num_groups, groups: split the fused exchange into that many even groups, or into the given groups of
            variables (the default is one fused exchange, cut only at the fusion threshold).
    """

    def __init__(self, gradtape, device_dense="", device_sparse="", compression=Compression.none,
                 sparse_as_dense=False, op=None, gradient_predivide_factor=1.0, num_groups=0, groups=None):
        self._tape = gradtape
        self._compression = compression
        self._sparse_as_dense = sparse_as_dense
        self._op = _op_and_average(None, op)
        self._predivide = gradient_predivide_factor
        self._num_groups, self._groups = num_groups, groups
        _comm()

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        """The tape's gradients, reduced over the ranks (same nesting as ``sources``)."""
        from .._core import nest

        flat, op = self._local_gradients(target, sources, output_gradients, unconnected_gradients)
        reduced = self._reduce(flat, nest.flatten(sources), op)
        return nest.pack_sequence_as(sources, reduced) if nest.is_nested(sources) else reduced[0]

    def _local_gradients(self, target, sources, output_gradients=None, unconnected_gradients=None):
        """This rank's gradients as a flat list, and the reduction that makes them the result.

        An average over ``n`` ranks is taken as a sum of gradients of ``target / n``: the backward pass starts
        from ``1 / n`` instead of 1 (one scalar op), so the exchange needs no division pass over the gradients.
        (Exact for ``n`` a power of two; otherwise within float rounding of dividing the sum.)
        """
        from .._core import nest
        from ..ops.array_ops import fill, shape

        kwargs = {} if unconnected_gradients is None else {"unconnected_gradients": unconnected_gradients}
        op, n = self._op, _comm().size
        targets = nest.flatten(target)
        if (op == Average and n > 1 and self._predivide == 1.0
                and all(getattr(t, "dtype", None) is not None and t.dtype.is_floating for t in targets)):
            if output_gradients is None:
                seeds = [fill(shape(t), np.asarray(1.0 / n, t.dtype.as_numpy_dtype)) for t in targets]
            else:
                seeds = [None if g is None else g * np.asarray(1.0 / n, g.dtype.as_numpy_dtype)
                         for g in nest.flatten(output_gradients)]
            output_gradients = nest.pack_sequence_as(target, seeds) if nest.is_nested(target) else seeds[0]
            op = Sum
        grads = self._tape.gradient(target, sources, output_gradients=output_gradients, **kwargs)
        flat = nest.flatten(grads) if nest.is_nested(sources) else [grads]
        return flat, op

    def _reduce(self, flat, flat_sources, op):
        """``flat``, the local gradients (dropped by the caller), reduced over the ranks."""
        # Fresh gradients nothing else holds are reduced in place (no copy of the large ones); see ``donatable``.
        donated = _collective.donatable(flat)
        return _reduce_gradients(flat, flat_sources, op, self._compression, self._sparse_as_dense,
                                 self._predivide, self._num_groups, self._groups, donated)

    def __enter__(self):  # ``with hvd.DistributedGradientTape(tf.GradientTape()) as tape:`` records too
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._tape, name)


def DistributedOptimizer(optimizer, name=None, device_dense="", device_sparse="", compression=Compression.none,
                         sparse_as_dense=False, backward_passes_per_step=1, op=None, gradient_predivide_factor=1.0,
                         average_aggregated_gradients=False, num_groups=0, groups=None):  # noqa: N802 - Horovod's
    """A copy of the Keras ``optimizer`` (same class and config) that reduces the gradients over the ranks before
    applying them (averaged by default; the arguments as for :class:`DistributedGradientTape`).

    With ``backward_passes_per_step`` ``n > 1`` the gradients of ``n`` calls are added up locally and only every
    ``n``-th call reduces and applies them (divided by ``n`` with ``average_aggregated_gradients``); the calls in
    between change no variable.
    """
    op = _op_and_average(None, op)
    if backward_passes_per_step < 1:
        raise ValueError(f"backward_passes_per_step must be >= 1, got {backward_passes_per_step}")
    _comm()
    base = type(optimizer)

    def apply(self, grads, trainable_variables=None):
        variables = trainable_variables if trainable_variables is not None else self._trainable_variables
        grads = list(grads)
        if backward_passes_per_step > 1:
            grads = self._hvd_accumulate(grads)
            if grads is None:
                return None
        grads = _reduce_gradients(grads, list(variables), op, compression, sparse_as_dense,
                                  gradient_predivide_factor, num_groups, groups)
        return base.apply(self, grads, trainable_variables)

    def accumulate(self, grads):
        grads = [None if g is None else convert_to_tensor(g) for g in grads]
        held = self.__dict__.get("_hvd_held")
        held = grads if held is None else [a if g is None else g if a is None else a + g for a, g in zip(held, grads)]
        count = self.__dict__.get("_hvd_count", 0) + 1
        if count < backward_passes_per_step:
            self._hvd_held, self._hvd_count = held, count
            return None
        self._hvd_held, self._hvd_count = None, 0
        if average_aggregated_gradients:
            held = [None if g is None else g / float(backward_passes_per_step) for g in held]
        return held

    cls = type(base.__name__, (base,), {"apply": apply, "_hvd_accumulate": accumulate,
                                        "__module__": base.__module__, "__doc__": base.__doc__})
    config = optimizer.get_config()
    if name is not None:
        config["name"] = name
    return cls.from_config(config)

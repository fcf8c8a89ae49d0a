"""The process group that data-parallel training runs on: MPI's ``COMM_WORLD`` when the program was started by
``mpiexec`` with more than one process, else a group of one that needs no MPI at all.

Whether ``mpiexec`` started us is read from the environment the launchers set (MPICH's hydra: ``PMI_SIZE``; Open
MPI: ``OMPI_COMM_WORLD_SIZE``; PMIx launchers: ``PMIX_RANK``), so a plain ``python train.py`` never imports
``mpi4py`` (importing it initializes MPI, which takes time and may fail where no MPI is set up). Under ``mpiexec``
without the ``mpi`` extra the first collective raises an ``ImportError`` naming the extra.

Every exchange here moves NumPy buffers through mpi4py's buffer interface (``Allreduce``, ``Bcast``,
``Allgatherv`` on arrays): no pickling on the training path. Python objects (``broadcast_object``) are pickled.

When MPI runs with more than one process, an uncaught exception on any rank (in its main thread) prints
``rank R raised Type: message`` with its traceback and calls ``MPI_Abort``, which ends every rank at once: without
it the other ranks would wait forever in their next collective.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback

import numpy as np

__all__ = ["world", "launched_size", "LocalComm", "MPIComm"]

_OPS = ("SUM", "MAX", "MIN", "PROD")


def launched_size():
    """The number of processes the launcher started (1 when no MPI launcher started this one).

    ``TAPEFLOW_MPI=1`` forces MPI (a launcher this does not know); ``TAPEFLOW_MPI=0`` forbids it.
    """
    forced = os.environ.get("TAPEFLOW_MPI")
    if forced == "0":
        return 1
    for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"):
        value = os.environ.get(name)
        if value and value.isdigit():
            return int(value)
    if forced == "1" or "PMIX_RANK" in os.environ:
        return 2  # more than one, exact count from MPI itself
    return 1


class LocalComm:
    """A group of one process: every collective returns its input (what MPI does with one rank)."""

    rank = 0
    size = 1
    local_rank = 0
    local_size = 1
    uses_mpi = False

    def allreduce(self, array, op="SUM"):
        """``array`` reduced over the group (itself, as a new array)."""
        return np.array(array, copy=True)

    def allreduce_inplace(self, buffer, op="SUM"):
        """Reduce ``buffer`` over the group, in place."""

    def allreduce_into(self, array, out, op="SUM"):
        """``array`` reduced over the group, written into ``out``."""
        out[...] = array

    def bcast(self, array, root=0):
        """Rank ``root``'s ``array`` (itself here)."""
        return np.array(array, copy=True)

    def allgatherv(self, array):
        """Every rank's ``array`` concatenated along axis 0 in rank order (``array`` here)."""
        return np.array(array, copy=True)

    def bcast_object(self, obj, root=0):
        return obj

    def allgather_object(self, obj):
        return [obj]

    def barrier(self):
        pass

    def abort(self, code=1):
        os._exit(code)


def _mpi():
    from .._core.extras import require

    require("mpi4py", "Training on several processes (mpiexec)", extra="mpi")
    from mpi4py import MPI

    return MPI


class MPIComm:
    """``COMM_WORLD`` through mpi4py's buffer interface (see the module docstring)."""

    uses_mpi = True

    def __init__(self):
        MPI = _mpi()
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        # Ranks sharing this machine: MPI's own view (``MPI_COMM_TYPE_SHARED``), not a launcher variable.
        local = self.comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank = local.Get_rank()
        self.local_size = local.Get_size()
        local.Free()
        self._ops = {name: getattr(MPI, name) for name in _OPS}

    def _op(self, op):
        return self._ops[op]

    def allreduce(self, array, op="SUM"):
        array = np.ascontiguousarray(array)
        out = np.empty_like(array)
        self.comm.Allreduce(array, out, op=self._op(op))
        return out

    def allreduce_inplace(self, buffer, op="SUM"):
        """Reduce the contiguous ``buffer`` over every rank, in place (one ``MPI_Allreduce``)."""
        self.comm.Allreduce(self.MPI.IN_PLACE, buffer, op=self._op(op))

    def allreduce_into(self, array, out, op="SUM"):
        """Reduce the contiguous ``array`` over every rank into ``out`` (one ``MPI_Allreduce``)."""
        self.comm.Allreduce(array, out, op=self._op(op))

    def bcast(self, array, root=0):
        array = np.array(array, copy=True, order="C")
        self.comm.Bcast(array, root=root)
        return array

    def allgatherv(self, array):
        array = np.ascontiguousarray(array)
        rows = np.array(self.comm.allgather(array.shape[0] if array.ndim else 1), dtype=np.int64)
        inner = int(np.prod(array.shape[1:], dtype=np.int64)) if array.ndim else 1
        counts = rows * inner
        out = np.empty((int(rows.sum()),) + array.shape[1:], dtype=array.dtype)
        if out.size:
            displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
            self.comm.Allgatherv(array, [out, (counts, displs)])
        return out

    def bcast_object(self, obj, root=0):
        return self.comm.bcast(obj, root=root)

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def barrier(self):
        self.comm.Barrier()

    def abort(self, code=1):
        self.comm.Abort(code)


_WORLD = None
_LOCK = threading.Lock()


def world():
    """The process group of this program (made on first use; see the module docstring)."""
    global _WORLD
    if _WORLD is None:
        with _LOCK:
            if _WORLD is None:
                comm = MPIComm() if launched_size() > 1 else LocalComm()
                if comm.size > 1:
                    _install_abort_on_error(comm)
                _WORLD = comm
    return _WORLD


def _install_abort_on_error(comm):
    """Make an uncaught exception on this rank end the whole job (see the module docstring)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
        else:
            text = "".join(traceback.format_exception(kind, value, tb))
            sys.stderr.write(f"{text}tapeflow.distribute: rank {comm.rank} raised {kind.__name__}: {value}; "
                             f"aborting all {comm.size} ranks\n")
        sys.stderr.flush()
        sys.stdout.flush()
        comm.abort(1)

    # The main thread's only: a worker thread's error (a data pipeline's, which its consumer sees again) need not
    # end the job.
    sys.excepthook = hook

"""Collectives on tensors: fused allreduce, allgather and broadcast, as ops a traced function keeps.

**Fusion.** :func:`allreduce_arrays` packs the arrays of one call (all of a step's gradients) into a few large
contiguous buffers, one per dtype and at most ``TAPEFLOW_FUSION_THRESHOLD`` bytes each (64 MiB by default, as
Horovod's ``HOROVOD_FUSION_THRESHOLD``), and reduces each with a single ``MPI_Allreduce`` in place: a step costs a
few messages, not one per variable. The buffers are pooled (:class:`_Pool`), so they stay warm between steps.
An array its owner *donates* (``DistributedGradientTape``'s fresh gradients, see :func:`donatable`) of
``TAPEFLOW_FUSION_ALONE`` bytes or more (256 KiB by default) is instead reduced where it lies, a message of its
own: at that size the message's latency is small beside a copy into a buffer. ``compression="fp16"`` sends float
buffers as ``float16`` (half the bytes) and widens the result again; an average divides the result in place, once.

**Agreement.** Before the data moves, the ranks compare a 64-bit signature of what they are about to reduce (names,
shapes, dtypes) with one tiny ``MAX`` allreduce of ``(h, -h)``: equal signatures give ``max == min``. When they
differ (a rank built another model, or other variable shapes) every rank gathers the lists and raises the same
``InvalidArgumentError`` naming the variables that differ, instead of reducing mismatched buffers or waiting forever.

**In traced functions.** The collectives are stateful ops (never folded or dropped) whose forward talks to the
other ranks when the program runs. While ``tf.function`` traces, the forward only stands in (it returns its
input): the trace runs on one rank's own schedule (a rank may retrace for a last, smaller batch that another
rank does not have), so it must not communicate.
"""

from __future__ import annotations

import os
import sys
import zlib

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.registry import Op
from .._core.state import STATE
from .._core.tensor import EagerTensor, convert_to_tensor
from ._comm import world

__all__ = ["allreduce_arrays", "allreduce_tensors", "allgather_tensor", "broadcast_tensor", "check_agreement",
           "donatable", "fusion_threshold", "fusion_alone"]

_FLOATS = (np.float32, np.float64, np.float16)
_SIGNATURES = {}


def fusion_threshold():
    """The largest fused buffer, in bytes (``TAPEFLOW_FUSION_THRESHOLD``, else ``HOROVOD_FUSION_THRESHOLD``)."""
    for name in ("TAPEFLOW_FUSION_THRESHOLD", "HOROVOD_FUSION_THRESHOLD"):
        value = os.environ.get(name)
        if value:
            return max(int(value), 1)
    return 64 * 1024 * 1024


def _signature(entries):
    h = _SIGNATURES.get(entries)
    if h is None:
        h = zlib.crc32(repr(entries).encode()) | (zlib.adler32(repr(entries).encode()) << 32)
        h &= 0x7FFFFFFFFFFFFFFF
        if len(_SIGNATURES) > 4096:
            _SIGNATURES.clear()
        _SIGNATURES[entries] = h
    return h


def check_agreement(comm, entries, what):
    """Raise the same ``tf.errors.InvalidArgumentError`` on every rank when ``entries`` (a tuple of
    ``(name, shape, dtype)``) differ between ranks; ``what`` says which collective it was (see the module
    docstring)."""
    h = _signature(entries)
    probe = np.array([h, -h], dtype=np.int64)
    comm.allreduce_inplace(probe, "MAX")
    if probe[0] == -probe[1]:
        return
    lists = comm.allgather_object(entries)
    # An op error passes through the op dispatch unchanged (a ValueError would be rewrapped with shapes).
    raise errors.InvalidArgumentError(None, None, _difference_text(lists, what))


def _difference_text(lists, what):
    by_rank = [{name: (shape, dtype) for name, shape, dtype in entries} for entries in lists]
    names = []
    for table in by_rank:
        names += [n for n in table if n not in names]
    problems = []
    for name in names:
        seen = [table.get(name) for table in by_rank]
        if len(set(seen)) > 1:
            parts = ", ".join(f"rank {r}: " + ("missing" if s is None else f"shape {list(s[0])} {s[1]}")
                              for r, s in enumerate(seen))
            problems.append(f"'{name}' ({parts})")
    if not problems:  # the same names with the same shapes, in another order
        order = "; ".join(f"rank {r}: {[e[0] for e in entries]}" for r, entries in enumerate(lists))
        problems.append(f"the order differs ({order})")
    counts = ", ".join(f"rank {r}: {len(entries)}" for r, entries in enumerate(lists))
    return (f"{what}: the ranks disagree on the tensors to reduce ({counts} tensors); every rank must reduce the "
            f"same variables with the same shapes. Differences: " + "; ".join(problems[:20]))


def fusion_alone():
    """The size from which a tensor travels alone, in bytes (``TAPEFLOW_FUSION_ALONE``, 256 KiB by default)."""
    value = os.environ.get("TAPEFLOW_FUSION_ALONE")
    return max(int(value), 1) if value else 256 * 1024


def _plan(arrays, compression, donated):
    """The exchanges of one call: ``(positions, wire dtype)`` each. Arrays of one dtype share fused buffers, cut at
    the fusion threshold. A donated array (its owner lets it be overwritten) of ``fusion_alone()`` bytes or more is
    reduced where it lies, a message of its own: copying it into a buffer would cost more than the message latency
    it saves."""
    limit, alone = fusion_threshold(), fusion_alone()
    groups, open_groups = [], {}
    for i, a in enumerate(arrays):
        wire = np.dtype(np.float16) if compression == "fp16" and a.dtype.type in _FLOATS else a.dtype
        size = a.size * wire.itemsize
        if donated is not None and donated[i] and size >= alone and wire == a.dtype:
            groups.append([[i], size, None])  # ``None``: in place
            continue
        key = (wire, a.dtype)
        current = open_groups.get(key)
        if current is None or (current[1] and current[1] + size > limit):
            current = open_groups[key] = [[], 0, wire]
            groups.append(current)
        current[0].append(i)
        current[1] += size
    return [(members, wire) for members, _, wire in groups]


class _Pool:
    """Buffers to reduce into, kept warm between steps.

    A fresh buffer of a few megabytes costs more than the allreduce itself on one machine (the kernel maps and
    zeroes its pages on first touch: 2.5 ms against 0.5 ms for 4 MB here). The results of a call are views into a
    pooled buffer, so a buffer is free again once nothing holds those views: when its reference count is the pool's
    own (the caller kept last step's gradients: another buffer is used, never the one they live in).
    """

    def __init__(self, per_key=3):
        self._buffers = {}
        self._per_key = per_key

    def take(self, dtype, size):
        buffers = self._buffers.setdefault((dtype.str, size), [])
        for buffer in buffers:
            if sys.getrefcount(buffer) <= 3:  # the list, this loop's name, getrefcount's argument
                return buffer
        buffer = np.empty(size, dtype)
        if len(buffers) < self._per_key:
            buffers.append(buffer)
        return buffer


_POOL = _Pool()


def allreduce_arrays(arrays, names=None, op="SUM", average=False, compression=None, comm=None,
                     what="allreduce", donated=None):
    """Every rank's ``arrays`` reduced elementwise (``op``: ``SUM``, ``MAX``, ``MIN``, ``PROD``), divided by the
    number of ranks when ``average``; in fused buffers (see the module docstring). Returns new arrays, except that
    the large arrays ``donated`` (a flag per array) marks may be reduced in place and returned themselves."""
    comm = comm or world()
    arrays = [np.asarray(a) for a in arrays]
    if comm.size == 1:
        return [a.copy() for a in arrays]
    names = names or [f"tensor_{i}" for i in range(len(arrays))]
    check_agreement(comm, tuple((n, a.shape, a.dtype.name) for n, a in zip(names, arrays)), what)
    out = [None] * len(arrays)
    for members, wire in _plan(arrays, compression, donated):
        dtype = arrays[members[0]].dtype
        total = sum(arrays[i].size for i in members)
        if wire is None:  # a donated array, reduced where it lies
            buffer = arrays[members[0]].reshape(-1)
            comm.allreduce_inplace(buffer, op)
        else:
            packed = _POOL.take(wire, total)
            parts = [arrays[i].reshape(-1) for i in members]
            if len(parts) > 1:
                np.concatenate(parts, out=packed, casting="same_kind")
            else:
                packed[...] = parts[0]
            comm.allreduce_inplace(packed, op)
            buffer = packed
            if wire != dtype:
                buffer = _POOL.take(dtype, total)
                buffer[...] = packed  # widened before averaging: the division in the full precision
            del packed
        if average:  # one pass over the buffer, in place
            if dtype.type in _FLOATS:
                np.divide(buffer, comm.size, out=buffer)
            else:
                np.floor_divide(buffer, comm.size, out=buffer)
        if wire is None:
            out[members[0]] = arrays[members[0]]
            continue
        offset = 0
        for i in members:
            a = arrays[i]
            out[i] = buffer[offset:offset + a.size].reshape(a.shape)
            offset += a.size
    return out


def _tracing():
    return STATE.tracer is not None


def donatable(tensors):
    """A flag per tensor of the list ``tensors``: whether its array may be overwritten by the reduction, because
    nothing but that list can see it: an eager tensor, referenced by the list alone, whose own writable C-ordered
    array nothing else references, with no tape recording and no trace running (``None`` then). Gradients fresh
    from ``tape.gradient`` are so; a tensor the caller also holds, a cached constant or a view never is."""
    if STATE.tapes or STATE.tracer is not None:
        return None
    seen, flags = set(), []
    for i in range(len(tensors)):
        t = tensors[i]
        array = getattr(t, "_value", None)
        ok = (type(t) is EagerTensor and type(array) is np.ndarray and array.flags.owndata
              and array.flags.writeable and array.flags.c_contiguous and id(array) not in seen
              # references: the list and ``t`` (+ getrefcount's argument); the tensor and ``array`` (+ argument)
              and sys.getrefcount(t) == 3 and sys.getrefcount(array) == 3)
        seen.add(id(array))
        flags.append(ok)
    return flags


def allreduce_tensors(tensors, names=None, op="SUM", average=False, compression=None, comm=None,
                      what="allreduce", donated=None):
    """:func:`allreduce_arrays` on tensors, as one stateful op (kept by traced functions; differentiable: the
    gradient of a sum is the sum of the gradients). ``donated``: :func:`donatable`'s flags, for tensors the
    caller drops (their arrays may become the results)."""
    tensors = [convert_to_tensor(t) for t in tensors]
    if not tensors or (comm or world()).size == 1:
        return list(tensors)  # one rank: every reduction is the value itself
    names = list(names) if names is not None else None

    def forward(*values):
        if _tracing():
            out = [np.array(v, copy=True) for v in values]
        else:
            out = allreduce_arrays(values, names, op, average, compression, comm=comm, what=what,
                                   donated=donated if not STATE.tapes else None)
        return tuple(out) if len(out) > 1 else out[0]

    reduce_op = Op("CollectiveReduceV2", forward, num_outputs=len(tensors), same_dtype=False)
    reduce_op.multi_output = len(tensors) > 1
    reduce_op.stateful = True
    if op == "SUM":
        def vjp(g, ans, *inputs):
            gs = g if isinstance(g, tuple) else (g,)
            present = [i for i, x in enumerate(gs) if x is not None]
            reduced = allreduce_tensors([gs[i] for i in present], names and [names[i] for i in present],
                                        "SUM", average, compression, comm=comm, what=what)
            grads = [None] * len(gs)
            for i, r in zip(present, reduced):
                grads[i] = r
            return tuple(grads)

        reduce_op.vjp = vjp
    out = execute(reduce_op, tuple(tensors))
    return list(out) if isinstance(out, tuple) else [out]


def allgather_tensor(tensor, comm=None):
    """Every rank's ``tensor`` concatenated along axis 0, in rank order (sizes along axis 0 may differ)."""
    tensor = convert_to_tensor(tensor)

    def forward(value):
        if _tracing():
            return np.array(value, copy=True)
        return (comm or world()).allgatherv(value)

    gather_op = Op("CollectiveGatherV2", forward, same_dtype=False)
    gather_op.stateful = True
    return execute(gather_op, (tensor,))


def broadcast_tensor(tensor, root=0, comm=None):
    """Rank ``root``'s ``tensor`` on every rank (shapes and dtypes must agree)."""
    tensor = convert_to_tensor(tensor)
    name = getattr(tensor, "name", "tensor")

    def forward(value):
        if _tracing():
            return np.array(value, copy=True)
        group = comm or world()
        if group.size > 1:
            check_agreement(group, ((str(name), value.shape, value.dtype.name),), "broadcast")
        return group.bcast(value, root)

    bcast_op = Op("CollectiveBcastRecvV2", forward, same_dtype=False)
    bcast_op.stateful = True
    return execute(bcast_op, (tensor,))

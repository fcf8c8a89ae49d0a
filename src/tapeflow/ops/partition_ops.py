"""``tf.dynamic_partition`` and ``tf.dynamic_stitch``: data dealt into pieces by a partition index, and pieces
merged back by their indices. Each is the other's gradient, as in TF.

Both are ops whose output sizes follow their input values (a trace leaves those sizes unknown).
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import ALL, defop
from ._convert import to_tensor
from ._strings import attr_min_error
from .array_ops import cast, reshape, size, zeros_like
from .array_ops import range as _range
from .array_ops import shape as _shape
from .manip_ops import kernel_error

__all__ = ["dynamic_partition", "dynamic_stitch", "DYNAMIC_PARTITION", "DYNAMIC_STITCH"]


def _op_error(node, message, op):
    return kernel_error(op, message, None, node)  # (TF's function node names the op with its attributes)


@defop("DynamicPartition", dtypes=ALL, same_dtype=False, multi_output=True)
def DYNAMIC_PARTITION(data, partitions, num_partitions):
    flat_parts = np.reshape(partitions, -1)
    bad = np.nonzero((flat_parts < 0) | (flat_parts >= num_partitions))[0]
    if bad.size:
        i = np.unravel_index(int(bad[0]), np.shape(partitions))
        where = ",".join(str(int(k)) for k in i)
        raise _op_error(f"DynamicPartition_num_partitions_{num_partitions}",
                        f"partitions[{where}] = {int(flat_parts[bad[0]])} is not in [0, {num_partitions})",
                        "DynamicPartition")
    rows = np.reshape(data, (flat_parts.size,) + np.shape(data)[np.ndim(partitions):])
    return tuple(rows[flat_parts == p] for p in range(num_partitions))


DYNAMIC_PARTITION.value_sized = None  # every output's first dimension counts its partition


@DYNAMIC_PARTITION.defvjp
def _partition_grad(gs, ys, data, partitions, num_partitions):
    # Each piece's gradient goes back to the places its rows came from: a stitch by their flat positions.
    positions = reshape(_range(size(partitions)), _shape(partitions))
    indices = dynamic_partition(positions, partitions, num_partitions)
    pieces = [g if g is not None else zeros_like(y) for g, y in zip(gs, ys)]
    merged = execute(DYNAMIC_STITCH, tuple(indices) + tuple(pieces), {"n": num_partitions})
    return (reshape(merged, _shape(data)), None)


@defop("DynamicStitch", dtypes=ALL, same_dtype=False)
def DYNAMIC_STITCH(*args, n):
    indices, data = args[:n], args[n:]
    top = max((int(np.max(i)) for i in indices if np.size(i)), default=-1)
    inner = next((np.shape(d)[np.ndim(i):] for i, d in zip(indices, data)), ())
    dtype = np.result_type(*[np.asarray(d).dtype for d in data])
    out = np.zeros((top + 1,) + tuple(inner), dtype)
    for i, d in zip(indices, data):  # later pieces win where indices repeat, as in TF
        out[np.reshape(i, -1)] = np.reshape(d, (np.size(i),) + tuple(inner))
    return out


DYNAMIC_STITCH.value_sized = {0: (0,)}


@DYNAMIC_STITCH.defvjp
def _stitch_grad(g, y, *args, n):
    from .gather_ops import gather  # noqa: PLC0415 - gather builds on more than this module needs

    indices = args[:n]
    return (None,) * n + tuple(gather(g, cast(i, _dtypes.int32)) for i in indices)


def _attr_min_error(op, attr, value):
    # (TF raises it before its fast path: no `` name: `` suffix)
    return errors.without_name(attr_min_error(op, attr, value, 1))


@export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """The rows of ``data`` dealt into ``num_partitions`` tensors: row ``i`` (of the dimensions ``partitions``
    covers) goes to piece ``partitions[i]``, in order (``tf.dynamic_partition``)."""
    if getattr(data, "_tapeflow_ragged", False) or getattr(partitions, "_tapeflow_ragged", False):
        from .ragged_api import dynamic_partition as ragged_partition  # noqa: PLC0415

        return ragged_partition(data, partitions, num_partitions, name)
    data = to_tensor(data)
    parts = to_tensor(partitions, _dtypes.int32)
    if parts.dtype != _dtypes.int32:
        raise TypeError(f"Cannot convert {partitions!r} to EagerTensor of dtype int32")
    n = int(num_partitions)
    if n < 1:
        raise _attr_min_error("DynamicPartition", "num_partitions", n)
    ds, ps = data.shape.as_list(), parts.shape.as_list()
    if ds[:len(ps)] != ps:
        raise _op_error(f"DynamicPartition_num_partitions_{n}", "data.shape must start with partitions.shape, got "
                        f"data.shape = {errors.shape_str(ds)}, partitions.shape = {errors.shape_str(ps)}",
                        "DynamicPartition")
    return list(execute(DYNAMIC_PARTITION, (data, parts), {"num_partitions": n}))


@export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None):
    """The rows of ``data`` merged into one tensor: ``merged[indices[m][i]] = data[m][i]`` (later pieces win where
    indices repeat; ``tf.dynamic_stitch``)."""
    indices = [to_tensor(i, _dtypes.int32) for i in indices]
    data = [to_tensor(d) for d in data]
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must match length "
                         f"{len(indices)} of argument 'indices'.")
    if not indices:
        raise _attr_min_error("DynamicStitch", "N", 0)
    node = f"DynamicStitch_N_{len(indices)}"
    data = [d if d.dtype == data[0].dtype else cast(d, data[0].dtype) for d in data]  # (TF converts to the first's)
    for k, (i, d) in enumerate(zip(indices, data)):
        if d.shape.as_list()[:i.shape.rank] != i.shape.as_list():
            raise _op_error(node, f"data[{k}].shape = {errors.shape_str(d.shape.as_list())} does not start with "
                            f"indices[{k}].shape = {errors.shape_str(i.shape.as_list())}", "DynamicStitch")
        if np.size(i._value) and int(np.min(i._value)) < 0:
            raise _op_error(node, f"indices[{int(np.argmin(np.ravel(i._value)))}] is out of range", "DynamicStitch")
    return execute(DYNAMIC_STITCH, tuple(indices) + tuple(data), {"n": len(indices)})

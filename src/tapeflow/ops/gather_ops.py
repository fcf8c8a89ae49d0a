"""Gathers along an axis (``tf.gather``, ``tf.boolean_mask``, ``tf.nn.embedding_lookup``) and IndexedSlices.

The ``params`` gradient of an axis-0 gather is an :class:`~tapeflow._core.indexed_slices.IndexedSlices`, as in
TensorFlow: the gathered rows' gradients with their indices, repeated indices kept. The backward pass densifies it
before any rule that needs a dense gradient (``indexed_slices_to_tensor``) and concatenates the slices of several
gathers (``concat_slices``). Other gathers' gradients are dense, written with ``ScatterNd`` (``scatter_ops.py``).
Out-of-range indices raise TensorFlow's CPU kernel error; nothing is clamped or wrapped.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.dtypes import dtype_of
from .._core.exports import export
from .._core.indexed_slices import IndexedSlices
from .._core.opdefs import OPDEFS
from .._core.registry import defop
from .._core.shape import TensorShape
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import BOOLEAN_MASK, CAST, RESHAPE, identity, ones_like, reshape, transpose, where
from .manip_ops import CONCAT, concat
from .math_ops import NOT_EQUAL, maximum, sqrt
from .reduction_ops import reduce_sum
from .scatter_ops import (
    _INT16_32_64,
    _INT32_64,
    SCATTER_ND,
    _first_bad,
    _index_tensor,
    _named,
    _position,
    check_range,
    run_indexed,
)
from .segment_ops import UNSORTED_SEGMENT_SUM

__all__ = [
    "IndexedSlices", "gather", "boolean_mask", "embedding_lookup", "indexed_slices_to_tensor", "concat_slices",
]

export("IndexedSlices")(IndexedSlices)


# ------------------------------------------------------------------------------------------ GatherV2


@defop("GatherV2", same_dtype=False)
def GATHER(params, indices, axis, batch_dims):
    if indices.ndim == 0 and axis == 0 and batch_dims == 0:
        # One row (``xs[t]`` in a traced loop): checked and taken without NumPy's array machinery.
        i = int(indices)
        if not 0 <= i < params.shape[0]:
            check_range(indices, params.shape[0], "GatherV2")
        return params[i, ...].copy()
    check_range(indices, params.shape[axis], "GatherV2")
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    # Batched: move the gathered axis next to the (flattened) batch axes and index both at once.
    b = batch_dims
    batch = params.shape[:b]
    nb = int(np.prod(batch))
    p = np.moveaxis(params.reshape((nb,) + params.shape[b:]), axis - b + 1, 1)
    idx = indices.reshape((nb,) + indices.shape[b:])
    rows = np.arange(nb).reshape((nb,) + (1,) * (idx.ndim - 1))
    out = p[rows, idx]  # (nb, J..., outer..., inner...)
    j, outer = idx.ndim - 1, axis - b
    order = (0,) + tuple(range(1 + j, 1 + j + outer)) + tuple(range(1, 1 + j)) + tuple(range(1 + j + outer, out.ndim))
    out = out.transpose(order)
    return out.reshape(batch + out.shape[1:])


@GATHER.defvjp
def _gather_grad(g, y, params, indices, axis, batch_dims):
    pshape = params._value.shape
    if axis == 0:
        n = indices._value.size
        values = reshape(g, (n,) + pshape[1:])
        flat = indices if indices._value.ndim == 1 else reshape(indices, (n,))
        return IndexedSlices(values, flat, constant_of(np.array(pshape, dtype=np.int32))), None
    return _scatter_back(g, indices, pshape, axis, batch_dims), None


def _scatter_back(g, indices, pshape, axis, batch_dims):
    """The dense gradient of a gather along ``axis``: ``g``'s slices summed into their rows (duplicates add up).

    ``g`` is ``batch + outer + J + inner``; moving J in front of ``outer`` makes the rows ``ScatterNd`` slices.
    """
    b = batch_dims
    batch, outer, inner = pshape[:b], pshape[b:axis], pshape[axis + 1:]
    nb = int(np.prod(batch))
    iv = indices._value
    j = iv.ndim - b
    lead, mid = b, len(outer)
    perm = (tuple(range(lead)) + tuple(range(lead + mid, lead + mid + j)) + tuple(range(lead, lead + mid))
            + tuple(range(lead + mid + j, g._value.ndim)))
    if perm != tuple(range(len(perm))):
        g = transpose(g, perm)
    nj = int(np.prod(iv.shape[b:]))
    g = reshape(g, (nb * nj,) + outer + inner)
    # The rows come from the indices by an op (a traced gradient scatters each call's indices); the batch
    # coordinates in front of them depend on the shape only.
    rows = execute(RESHAPE, (indices,), {"shape": (nb * nj, 1)})
    if b:
        batch_rows = np.repeat(np.arange(nb, dtype=iv.dtype), nj)[:, None]
        coords = execute(CONCAT, (constant_of(batch_rows), rows), {"axis": 1})
        target = (nb, pshape[axis]) + outer + inner
    else:
        coords = rows
        target = (pshape[axis],) + outer + inner
    out = execute(SCATTER_ND, (coords, g), {"shape": target})
    out = reshape(out, batch + (pshape[axis],) + outer + inner)
    back = tuple(range(b)) + tuple(range(b + 1, b + 1 + len(outer))) + (b,) + tuple(
        range(b + 1 + len(outer), len(pshape)))
    return transpose(out, back) if back != tuple(range(len(back))) else out


def _axis_int(axis):
    if isinstance(axis, Tensor) or getattr(axis, "_tapeflow_variable", False):
        t = to_tensor(axis)
    else:
        t = convert_to_tensor(axis)
    if t.dtype.name not in _INT32_64:
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'Taxis' of {c_name(t.dtype)} is not in the list of allowed values: "
            f"int32, int64\n\t; NodeDef: {{{{node GatherV2}}}}; {OPDEFS.get('GatherV2', (None, ''))[1]} "
            "[Op:GatherV2]")
    return int(t._value)


def _gather(params, indices, axis, batch_dims, named):
    """``tf.gather`` after argument parsing: TF's checks in its order, then the op.

    A variable gathered along axis 0 is TF's ``ResourceGather`` (``Variable.sparse_read``), named so in errors.
    """
    op_name = "ResourceGather" if axis == 0 and getattr(params, "_tapeflow_variable", False) else "GatherV2"
    idx = _index_tensor(indices, "GatherV2", named=named)
    p = to_tensor(params)
    pv, iv = p._value, idx._value
    nd, ind = pv.ndim, iv.ndim
    name = _named(named)
    if nd == 0:
        raise errors.op_error("GatherV2", "params must be at least 1 dimensional", name=name)
    if not -nd <= axis < nd:
        raise errors.op_error("GatherV2", f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is "
                                          f"rank {nd}", name=name)
    axis %= nd
    if not -ind <= batch_dims <= ind:
        raise errors.op_error("GatherV2", f"Expected batch_dims in the range [{-ind}, {ind}], but got "
                                          f"{batch_dims}", name=name)
    if batch_dims < 0:
        batch_dims += ind
    if batch_dims > axis:
        raise errors.op_error("GatherV2", f"batch_dims ({batch_dims}) must be less than or equal to axis "
                                          f"({axis}).", name=name)
    for d in range(batch_dims):
        if pv.shape[d] != iv.shape[d]:
            raise errors.op_error("GatherV2", f"params.shape[{d}]: {pv.shape[d]} should be equal to "
                                              f"indices.shape[{d}]: {iv.shape[d]}", name=name)
    # The indices' range is the kernel's check (GatherV2's forward), worded here for the path and op name.
    return run_indexed(GATHER, (p, idx), {"axis": axis, "batch_dims": batch_dims}, named,
                       None if op_name == "GatherV2" else op_name)


@export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices`` (``tf.gather``); out-of-range indices raise (CPU).

    ``axis`` defaults to ``batch_dims``; with ``axis`` 0, ``batch_dims`` is ignored, as in TensorFlow. The gradient
    for ``params`` along axis 0 is an ``IndexedSlices``.
    """
    if getattr(params, "_tapeflow_ragged", False) or getattr(indices, "_tapeflow_ragged", False):
        from .ragged_ops import gather_ragged  # noqa: PLC0415 - the ragged modules build on this one

        return gather_ragged(params, indices, batch_dims if axis is None else axis, batch_dims)
    axis = _axis_int(batch_dims if axis is None else axis)
    if axis == 0:
        batch_dims = 0  # TF's axis-0 path (``sparse_read``) takes no batch_dims
    return _gather(params, indices, axis, int(batch_dims), errors.fast_path(params, indices))


# ------------------------------------------------------------------------------------------ boolean_mask


@export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The elements (or slices) of ``tensor`` where ``mask`` is true (``tf.boolean_mask``).

    ``mask`` covers ``tensor``'s dimensions ``axis`` .. ``axis + mask.ndim``; non-boolean masks select their
    non-zero elements. The gradient is dense, zero where nothing was selected.
    """
    t = to_tensor(tensor)
    m = convert_to_tensor(mask)
    mv = m._value
    if mv.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(axis._value if isinstance(axis, Tensor) else axis)
    covered = TensorShape(t._value.shape[axis:axis + mv.ndim])  # Python slicing, as TF's static check does
    if covered.as_list() != list(mv.shape):
        raise ValueError(f"Shapes {covered} and {TensorShape(mv.shape)} are incompatible")
    if mv.dtype != np.bool_:  # a numeric mask selects its non-zero elements
        m = execute(NOT_EQUAL, (m, constant_of(np.zeros((), mv.dtype))))
    return execute(BOOLEAN_MASK, (t, m), {"axis": axis % t._value.ndim})


# ------------------------------------------------------------------------------------------ embedding_lookup


def _clip_rows(x, ids_rank, max_norm):
    """``clip_by_norm`` over each looked-up embedding, as ``embedding_lookup``'s ``max_norm`` does."""
    axes = list(range(ids_rank, x._value.ndim))
    l2sum = reduce_sum(x * x, axes, keepdims=True)
    positive = l2sum > 0
    l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
    return identity(x * max_norm / maximum(l2norm, max_norm))


def _partition_div(ids, sizes):
    """TF's "div" partition of ``ids`` over tables of ``sizes`` rows: ``(table, row)`` per id, or its error."""
    n, total = len(sizes), sum(sizes)
    per, extras = total // n, total % n
    with np.errstate(divide="ignore"):
        table = np.maximum(ids // (per + 1), (ids - extras) // per if per else ids * 0)
        row = np.where(table < extras, ids % (per + 1), (ids - extras) % per if per else ids * 0)
    bad = (table < 0) | (table >= n)
    if bad.any():
        i = int(np.argmax(bad))
        prefix = f"{{{{function_node __wrapped__DynamicPartition_num_partitions_{n}_device_{errors.CPU_DEVICE}}}}}"
        raise errors.InvalidArgumentError(None, None, f"{prefix} partitions[{i}] = {int(table[i])} is not in "
                                          f"[0, {n}) [Op:DynamicPartition] name: ")
    return table, row


@export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` at ``ids`` (``tf.nn.embedding_lookup``): ``gather(params, ids)``.

    ``params`` may be a list of tables sharded with TF 2's "div" strategy (consecutive id ranges per table).
    With ``max_norm``, each embedding is scaled down to that L2 norm. The tables' gradients are ``IndexedSlices``.
    """
    tables = list(params) if isinstance(params, (list, tuple)) else [params]
    if not tables:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    ids = to_tensor(ids)  # converted first, as TF does (so its errors are those of tensor inputs)
    if len(tables) == 1:
        out = _gather(tables[0], ids, 0, 0, True)
        out = out if max_norm is None else _clip_rows(out, ids._value.ndim, max_norm)
        return identity(out)
    # Variables stay variables: each table's gather is then a sparse read of it, as in TF.
    tables = [p if isinstance(p, Tensor) or getattr(p, "_tapeflow_variable", False) else convert_to_tensor(p)
              for p in tables]
    idx = _index_tensor(ids, "GatherV2", named=True)
    iv = idx._value
    flat = iv.reshape(-1)
    table, row = _partition_div(flat, [p._value.shape[0] for p in tables])
    tail = tables[0]._value.shape[1:]
    out = None
    for k, p in enumerate(tables):
        pos = np.nonzero(table == k)[0]
        part = _gather(p, constant_of(row[pos].astype(iv.dtype)), 0, 0, True)
        # The tables' rows go back to their places in the flat output (what TF's DynamicStitch does).
        placed = execute(SCATTER_ND, (constant_of(pos[:, None]), part), {"shape": (flat.size,) + tail})
        out = placed if out is None else out + placed
    out = reshape(out, iv.shape + tail)
    return out if max_norm is None else _clip_rows(out, iv.ndim, max_norm)


# ------------------------------------------------------------------------------------------ IndexedSlices helpers

_SEGMENT_SUM_SIGNATURE = (
    "Op<name=UnsortedSegmentSum; signature=data:T, segment_ids:Tindices, num_segments:Tnumsegments -> output:T; "
    "attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, "
    "DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, "
    "DT_UINT32, DT_UINT64]; attr=Tindices:type,allowed=[DT_INT16, DT_INT32, DT_INT64]; attr=Tnumsegments:type,"
    "default=DT_INT32,allowed=[DT_INT32, DT_INT64]>")
_SEGMENT_SUM_T = ("float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
                  "qint16, quint16, uint16, complex128, half, uint32, uint64")


def _segment_sum_attr_error(attr, dtype, allowed):
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of {c_name(dtype)} is not in the list of allowed values: {allowed}\n"
        f"\t; NodeDef: {{{{node UnsortedSegmentSum}}}}; {_SEGMENT_SUM_SIGNATURE} [Op:UnsortedSegmentSum] name: ")


def indexed_slices_to_tensor(slices, dtype=None):
    """The dense tensor of an ``IndexedSlices``: its rows summed into zeros of ``dense_shape`` (recorded, so
    differentiable). Negative indices are dropped and too large ones raise, as TF's ``UnsortedSegmentSum`` does."""
    if dtype is not None and dtype_of(np.dtype(dtype.as_numpy_dtype)) != slices.dtype:
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtype.name} for IndexedSlices "
                         f"({slices}) with dtype {slices.dtype.name}")
    if slices.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` without dense_shape: "
                         f"{slices}")
    values = to_tensor(slices.values)
    indices = to_tensor(slices.indices)
    dense_shape = np.asarray(to_tensor(slices.dense_shape)._value)
    if dense_shape.ndim == 0:
        raise errors.op_error("StridedSlice", "Attempting to slice scalar input.", name="strided_slice/")
    vv, iv = values._value, indices._value
    if vv.dtype.kind in "bOSU":
        raise _segment_sum_attr_error("T", values.dtype, _SEGMENT_SUM_T)
    if indices.dtype.name not in _INT16_32_64:
        raise _segment_sum_attr_error("Tindices", indices.dtype, "int16, int32, int64")
    if np.shape(vv)[:iv.ndim] != iv.shape:
        raise errors.op_error("UnsortedSegmentSum", f"data.shape = {errors.shape_str(np.shape(vv))} does not start "
                                                    f"with segment_ids.shape = {errors.shape_str(iv.shape)}", name="")
    num = int(dense_shape[0])
    if iv.size and iv.max() >= num:
        pos = _first_bad(iv >= num) if iv.ndim else ()
        raise errors.op_error("UnsortedSegmentSum", f"segment_ids{_position(pos)} = {int(iv[pos])} is out of range "
                                                    f"[0, {num})", name="")
    # TF's UnsortedSegmentSum, with the indices as its input (a traced program sums by each call's indices): it
    # drops negative indices and adds up the rows of repeated ones in order, as the backward pass expects.
    return execute(UNSORTED_SEGMENT_SUM, (values, indices), {"num_segments": num})


def concat_slices(parts):
    """Several ``IndexedSlices`` of one tensor as one: values and indices concatenated in order (no summing).

    Mixed int32 and int64 indices become int64, as in TF's aggregation of sparse gradients.
    """
    indices = [to_tensor(p.indices) for p in parts]
    if len({i._value.dtype for i in indices}) > 1:
        indices = [execute(CAST, (i,), {"dtype": np.int64}) for i in indices]
    values = concat([to_tensor(p.values) for p in parts], 0)
    # Joined by an op, not in NumPy: a traced backward pass joins each call's indices.
    return IndexedSlices(values, execute(CONCAT, tuple(indices), {"axis": 0}), parts[0].dense_shape)


def _densify(slices, dtype=None):
    """Densify (``tf.convert_to_tensor``): the rows of repeated indices add up."""
    return indexed_slices_to_tensor(slices, dtype)


IndexedSlices._tapeflow_to_tensor = _densify
IndexedSlices._concat = staticmethod(concat_slices)

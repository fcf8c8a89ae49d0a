"""The rest of ``tf.sparse``: ``reshape``, ``slice``, ``concat``, ``retain``, ``fill_empty_rows``, ``expand_dims``,
``transpose``, ``softmax``, ``reduce_max``, ``to_indicator``, ``maximum``/``minimum``, ``mask``, ``map_values``,
``eye``.

Index work is done by ops (``SparseReshape``, ``SparseSliceMask``, ``SparseFillEmptyRows``, ``SparseToIndicator``)
or by integer tensor arithmetic, so traced functions compute each call's indices. Values move with
``SparsePermute`` (``sparse_ops.py``), whose gradient is dense, as TF's sparse gradients are.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.indexed_slices import IndexedSlices
from .._core.registry import defop
from ._convert import to_tensor
from .array_ops import cast, stack
from .array_ops import ones_like as _ones_like
from .array_ops import range as _range
from .array_ops import reshape as _reshape
from .gather_ops import boolean_mask, gather
from .manip_ops import concat
from .math_ops import equal, exp, logical_not
from .math_ops import maximum as _dense_maximum
from .math_ops import minimum as _dense_minimum
from .reduction_ops import reduce_any
from .reduction_ops import reduce_max as _dense_reduce_max
from .scatter_ops import gather_nd
from .segment_ops import unsorted_segment_max, unsorted_segment_sum
from .sparse_ops import SPARSE_INDEX_UNION, SPARSE_PERMUTE, SparseTensor, _ordered, to_dense

__all__ = ["reshape", "slice", "concat_sparse", "retain", "fill_empty_rows", "expand_dims", "transpose", "softmax",
           "reduce_max", "to_indicator", "maximum", "minimum", "mask", "map_values", "eye"]


@defop("SparseReshape", num_outputs=2, same_dtype=False)
def SPARSE_RESHAPE(indices, shape, new_shape):
    """The indices and shape of the same entries in ``new_shape`` (one dimension may be -1)."""
    old = [int(d) for d in np.asarray(shape)]
    asked = [int(d) for d in np.asarray(new_shape)]
    total = int(np.prod(old))
    if asked.count(-1) == 1:
        known = int(np.prod([d for d in asked if d != -1]))
        asked[asked.index(-1)] = total // known if known else 0
    if int(np.prod(asked)) != total:
        raise errors.op_error("SparseReshape", f"Input to reshape is a tensor with {total} dense values, but the "
                              f"requested shape has {int(np.prod(asked))}. input_shape=[{','.join(map(str, old))}] "
                              f"output_shape=[{','.join(map(str, new_shape))}]")
    flat = np.ravel_multi_index(np.asarray(indices).T, old) if np.size(indices) else np.zeros([0], np.int64)
    new = np.stack(np.unravel_index(flat, asked), axis=1) if len(asked) else np.zeros([len(flat), 0])
    return new.astype(np.int64).reshape(-1, len(asked)), np.asarray(asked, np.int64)


@export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    """The same entries in ``shape`` (row-major order kept; one dimension may be -1) (``tf.sparse.reshape``)."""
    indices, new_shape = execute(SPARSE_RESHAPE, (sp_input.indices, sp_input.dense_shape,
                                                  to_tensor(shape, _dtypes.int64)))
    return SparseTensor(indices, sp_input.values, new_shape)


@defop("SparseSliceMask", num_outputs=3, same_dtype=False)
def SPARSE_SLICE_MASK(indices, shape, start, size):
    """Which entries fall in the box ``[start, start + size)``, their indices in it, and its shape."""
    idx, shape = np.asarray(indices).reshape(-1, len(np.asarray(shape))), np.asarray(shape)
    lo = np.asarray(start)
    hi = np.minimum(lo + np.asarray(size), shape)
    keep = np.all((idx >= lo) & (idx < hi), axis=1) if idx.size else np.zeros([idx.shape[0]], bool)
    return keep, (idx[keep] - lo).astype(np.int64), np.maximum(hi - lo, 0).astype(np.int64)


SPARSE_SLICE_MASK.value_sized = {1: (0,)}  # (a trace leaves the sizes that follow the values unknown)


@export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """The entries inside the box ``[start, start + size)``, indexed from its corner (``tf.sparse.slice``)."""
    keep, indices, shape = execute(SPARSE_SLICE_MASK, (sp_input.indices, sp_input.dense_shape,
                                                       to_tensor(start, _dtypes.int64),
                                                       to_tensor(size, _dtypes.int64)))
    return SparseTensor(indices, boolean_mask(sp_input.values, keep), shape)


@export("sparse.concat")
def concat_sparse(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The sparse tensors put together along ``axis`` (``tf.sparse.concat``)."""
    rank = sp_inputs[0].dense_shape.shape[0]
    axis = int(axis) % rank
    offset = to_tensor(0, _dtypes.int64)
    parts = []
    for sp in sp_inputs:
        shift = stack([offset if d == axis else to_tensor(0, _dtypes.int64) for d in range(rank)])
        parts.append(sp.indices + shift)
        offset = offset + sp.dense_shape[axis]
    first = sp_inputs[0].dense_shape
    shape = stack([offset if d == axis else first[d] for d in range(rank)])
    return _ordered(concat(parts, 0), concat([sp.values for sp in sp_inputs], 0), shape)


@export("sparse.retain")
def retain(sp_input, to_retain):
    """The entries where ``to_retain`` (a bool per entry) holds (``tf.sparse.retain``)."""
    keep = to_tensor(to_retain, _dtypes.bool_)
    return SparseTensor(boolean_mask(sp_input.indices, keep), boolean_mask(sp_input.values, keep),
                        sp_input.dense_shape)


@defop("SparseFillEmptyRows", num_outputs=3, same_dtype=False)
def SPARSE_FILL_EMPTY_ROWS(indices, shape):
    """For the rows with no entry: the indices to add (``[row, 0, ...]``), which rows were empty, and the order
    that puts the original entries and the added ones in row-major order."""
    idx, shape = np.asarray(indices).reshape(-1, len(np.asarray(shape))), np.asarray(shape)
    empty = np.ones(int(shape[0]), bool)
    empty[idx[:, 0]] = False
    added = np.zeros((int(empty.sum()), len(shape)), np.int64)
    added[:, 0] = np.nonzero(empty)[0]
    both = np.concatenate([idx, added])
    order = np.lexsort(both.T[::-1]) if both.size else np.zeros([0], np.int64)
    return added, empty, order.astype(np.int64)


SPARSE_FILL_EMPTY_ROWS.value_sized = {0: (0,), 2: (0,)}


@export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """``sp_input`` with ``default_value`` at column 0 of each row that has no entry, and which rows had none
    (``tf.sparse.fill_empty_rows``)."""
    added, empty, order = execute(SPARSE_FILL_EMPTY_ROWS, (sp_input.indices, sp_input.dense_shape))
    fill = to_tensor(default_value, sp_input.dtype)
    n_added = added.shape[0]
    values = concat([sp_input.values, stack([fill] * n_added) if n_added else sp_input.values[:0]], 0)
    indices = concat([sp_input.indices, added], 0)
    return SparseTensor(gather(indices, order), execute(SPARSE_PERMUTE, (values, order)),
                        sp_input.dense_shape), empty


@export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """``sp_input`` with a dimension of length 1 inserted at ``axis`` (``tf.sparse.expand_dims``)."""
    rank = sp_input.dense_shape.shape[0]
    axis = -1 if axis is None else int(axis)
    axis = axis + rank + 1 if axis < 0 else axis
    n = sp_input.indices.shape[0]
    zeros = to_tensor(np.zeros([n, 1], np.int64))
    indices = concat([sp_input.indices[:, :axis], zeros, sp_input.indices[:, axis:]], 1)
    shape = concat([sp_input.dense_shape[:axis], to_tensor([1], _dtypes.int64), sp_input.dense_shape[axis:]], 0)
    return SparseTensor(indices, sp_input.values, shape)


@export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    """``sp_input`` with its dimensions permuted (reversed by default), entries in row-major order
    (``tf.sparse.transpose``)."""
    rank = sp_input.dense_shape.shape[0]
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.ravel(perm)]
    order = to_tensor(perm, _dtypes.int64)
    return _ordered(gather(sp_input.indices, order, axis=1), sp_input.values, gather(sp_input.dense_shape, order))


def _groups(sp_input, kept):
    """Each entry's group when the dimensions not in ``kept`` are reduced: a row-major number over ``kept``."""
    ids = to_tensor(0, _dtypes.int64)
    count = to_tensor(1, _dtypes.int64)
    for d in reversed(kept):
        ids = ids + sp_input.indices[:, d] * count
        count = count * sp_input.dense_shape[d]
    return ids, count


@export("sparse.softmax")
def softmax(sp_input, name=None):
    """The softmax of the entries of each row (over the last dimension, among the entries only)
    (``tf.sparse.softmax``)."""
    rank = sp_input.dense_shape.shape[0]
    ids, count = _groups(sp_input, list(range(rank - 1)))
    ids = cast(ids, _dtypes.int32)
    n = cast(count, _dtypes.int32)
    shifted = sp_input.values - gather(unsorted_segment_max(sp_input.values, ids, n), ids)
    e = exp(shifted)
    return sp_input.with_values(e / gather(unsorted_segment_sum(e, ids, n), ids))


@export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The largest entry over ``axis`` (all when ``None``), among the entries only (``tf.sparse.reduce_max``)."""
    if axis is None:
        return _dense_reduce_max(sp_input.values)
    rank = sp_input.dense_shape.shape[0]
    axes = {int(a) % rank for a in np.ravel(axis)}
    kept = [d for d in range(rank) if d not in axes]
    ids, count = _groups(sp_input, kept)
    out = unsorted_segment_max(sp_input.values, cast(ids, _dtypes.int32), cast(count, _dtypes.int32))
    shape = [sp_input.dense_shape[d] if d in kept else to_tensor(1, _dtypes.int64) for d in range(rank)] if \
        keepdims else [sp_input.dense_shape[d] for d in kept]
    return _reshape(out, cast(stack(shape), _dtypes.int32) if shape else to_tensor([], _dtypes.int32))


@defop("SparseToIndicator", same_dtype=False)
def SPARSE_TO_INDICATOR(indices, values, shape, vocab_size):
    """``out[..., v]`` true where row ``...`` holds the value ``v``."""
    shape = [int(d) for d in np.asarray(shape)]
    out = np.zeros(shape[:-1] + [int(vocab_size)], bool)
    idx = np.asarray(indices).reshape(-1, len(shape))
    out[tuple(idx[:, :-1].T) + (np.asarray(values),)] = True
    return out


SPARSE_TO_INDICATOR.value_sized = {0: None}


@export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor marking, for each row, the values its entries hold (``tf.sparse.to_indicator``)."""
    return execute(SPARSE_TO_INDICATOR, (sp_input.indices, sp_input.values, sp_input.dense_shape),
                   {"vocab_size": int(vocab_size)})


def _elementwise_union(a, b, fn):
    """``fn`` of ``a`` and ``b`` at the union of their entries, a missing entry counting as zero."""
    union = execute(SPARSE_INDEX_UNION, (a.indices, b.indices))
    return SparseTensor(union, gather_nd(fn(to_dense(a, validate_indices=False),
                                            to_dense(b, validate_indices=False)), union), a.dense_shape)


@export("sparse.maximum")
def maximum(sp_a, sp_b, name=None):
    """The larger of the two at each entry either holds, a missing entry counting as zero (``tf.sparse.maximum``).

    TF 2.21 fails with a ``TypeError`` when asked for this op's gradient; here gradients flow as through
    ``tf.maximum`` of the dense forms."""
    return _elementwise_union(sp_a, sp_b, _dense_maximum)


@export("sparse.minimum")
def minimum(sp_a, sp_b, name=None):
    """The smaller of the two at each entry either holds, a missing entry counting as zero (``tf.sparse.minimum``);
    gradients as for :func:`maximum`."""
    return _elementwise_union(sp_a, sp_b, _dense_minimum)


@export("sparse.mask")
def mask(a, mask_indices, name=None):
    """The ``IndexedSlices`` ``a`` without its rows at ``mask_indices`` (``tf.sparse.mask``)."""
    mask_indices = to_tensor(mask_indices, a.indices.dtype)
    masked = reduce_any(equal(a.indices[:, None], mask_indices[None, :]), axis=1)
    keep = logical_not(masked)
    return IndexedSlices(boolean_mask(a.values, keep), boolean_mask(a.indices, keep), a.dense_shape)


@export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the ``SparseTensor`` arguments (which must share their indices), the
    result keeping those indices (``tf.sparse.map_values``)."""
    sparse = [a for a in list(args) + list(kwargs.values()) if getattr(a, "_tapeflow_sparse", False)]
    if not sparse:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sparse[0]
    for other in sparse[1:]:
        same = other.indices.shape == first.indices.shape and bool(np.array_equal(
            np.asarray(other.indices._value), np.asarray(first.indices._value)))
        if not same:
            raise errors.InvalidArgumentError(None, None, "Expected all SparseTensors to have the same indices.")

    def values(a):
        return a.values if getattr(a, "_tapeflow_sparse", False) else a

    return first.with_values(op(*[values(a) for a in args], **{k: values(v) for k, v in kwargs.items()}))


@export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    """A ``SparseTensor`` identity matrix of ``num_rows`` by ``num_columns`` (``tf.sparse.eye``)."""
    rows = to_tensor(num_rows, _dtypes.int64)
    cols = rows if num_columns is None else to_tensor(num_columns, _dtypes.int64)
    diag = _range(_dense_minimum(rows, cols))
    return SparseTensor(stack([diag, diag], axis=1), _ones_like(diag, dtype=dtype), stack([rows, cols]))

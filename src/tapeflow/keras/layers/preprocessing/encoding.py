"""Integer indices to Keras's categorical encodings ("one_hot", "multi_hot", "count"), dense or sparse, as the
lookup and hashing layers compute them on TensorFlow.

The paths are Keras's own, since they give different shapes:

* "multi_hot" and "count" of inputs of rank 1 or 2 count the indices of each row (the last axis) into ``depth``
  bins (a bincount): rank 1 gives ``(depth,)``, rank 2 ``(rows, depth)``; indices outside ``[0, depth)`` (the
  largest int64, which the lookups give for the mask token) are dropped. Ragged and sparse inputs count the
  values of each row.
* Inputs of higher rank one-hot encode every index, then take the maximum ("multi_hot") or the sum ("count") over
  axis 1 (not the last axis: Keras's reduction axis).
* "one_hot" encodes every index on a new last axis, except that a last axis of size 1 is replaced.

Everything is written with tapeflow ops, so a traced function or a ``tf.data`` map computes each call's values.
"""

from __future__ import annotations

from ...._core import dtypes as _dtypes
from ....ops.ragged_tensor import RaggedTensor
from ....ops.sparse_ops import SparseTensor
from ._common import tf

__all__ = ["encode_categorical", "rank_of"]


def rank_of(x):
    """The rank of a dense, ragged or sparse tensor."""
    if isinstance(x, SparseTensor):
        return int(x.dense_shape.shape[0])
    return x.shape.rank


def _expand_last(x):
    t = tf()
    if isinstance(x, SparseTensor):
        return t.sparse.expand_dims(x, -1)
    return t.expand_dims(x, -1)


def _row_values(x, rank):
    """``(values, row ids, number of rows)`` of a ragged or sparse tensor of rank 1 or 2 (rank 1: one row)."""
    t = tf()
    if isinstance(x, RaggedTensor):
        return x.flat_values, x.value_rowids(), x.nrows(out_type=_dtypes.int64)
    values = x.values
    if rank == 1:
        return values, t.zeros_like(values, _dtypes.int64), t.constant(1, _dtypes.int64)
    return values, x.indices[:, 0], x.dense_shape[0]


def _bin_counts(x, rank, depth, binary, dtype):
    """The per-row counts of the indices of ``x`` (rank 1 or 2) into ``depth`` bins: ``(depth,)`` or
    ``(rows, depth)``, as ``tf.math.bincount(..., axis=-1)`` gives them."""
    t = tf()
    # As Keras sets it: the bins' axis is ``depth`` wide whatever the values (also in a traced function).
    static = (depth,) if rank == 1 else (None if isinstance(x, SparseTensor) else x.shape[0], depth)
    if not isinstance(x, (RaggedTensor, SparseTensor)):
        counts = t.math.bincount(x, minlength=depth, maxlength=depth, dtype=dtype, axis=-1, binary_output=binary)
        counts.set_shape(static)
        return counts
    values, rows, nrows = _row_values(x, rank)
    values = t.cast(values, _dtypes.int64)
    inside = t.logical_and(values >= 0, values < depth)
    # Each value adds 1 at (its row, its bin); values outside the bins add 0 at bin 0. The zeros' shape is an op
    # of the number of rows, so a traced function counts batches of any size.
    where = t.stack([t.cast(rows, _dtypes.int64), t.where(inside, values, t.zeros_like(values))], axis=1)
    ones = t.cast(inside, dtype)
    counts = t.tensor_scatter_nd_add(t.zeros(t.stack([t.cast(nrows, _dtypes.int64),
                                                      t.constant(depth, _dtypes.int64)]), dtype), where, ones)
    if binary:
        counts = t.minimum(counts, t.ones_like(counts))
    counts = counts[0] if rank == 1 and isinstance(x, SparseTensor) else counts
    counts.set_shape(static)
    return counts


def _one_hot(x, depth, dtype, sparse):
    t = tf()
    x = t.cast(x, _dtypes.int64) if not isinstance(x, RaggedTensor) else x.with_flat_values(
        t.cast(x.flat_values, _dtypes.int64))
    if isinstance(x, RaggedTensor):
        return t.ragged.map_flat_values(lambda v: t.one_hot(v, depth, dtype=dtype), x)
    if not sparse:
        return t.one_hot(x, depth, dtype=dtype)
    # Keras's sparse one-hot: an entry for every index (negative ones as 0 at bin 0), at the index's position
    # followed by its bin.
    flat = t.reshape(x, [-1])
    positions = t.where(t.ones_like(x, _dtypes.bool_))
    indices = t.concat([positions, t.expand_dims(t.maximum(flat, 0), -1)], axis=1)
    shape = t.concat([t.shape(x, out_type=_dtypes.int64), t.constant([depth], _dtypes.int64)], 0)
    return SparseTensor(indices, t.cast(flat >= 0, dtype), shape)


def encode_categorical(inputs, output_mode, depth, dtype, sparse=False):
    """``inputs`` (integer indices) encoded as ``output_mode`` over ``depth`` bins, in ``dtype`` (a
    ``SparseTensor`` with ``sparse``); "int" only casts."""
    t = tf()
    if output_mode == "int":
        return t.cast(inputs, dtype)
    rank = rank_of(inputs)
    if rank == 0:
        inputs = _expand_last(inputs)
        rank = 1
    if rank <= 2 and output_mode in ("multi_hot", "count"):
        counts = t.cast(_bin_counts(inputs, rank, depth, output_mode == "multi_hot", dtype), dtype)
        return t.sparse.from_dense(counts) if sparse else counts
    if isinstance(inputs, SparseTensor):
        raise ValueError(f"tapeflow's preprocessing layers do not encode `SparseTensor` inputs of rank {rank} with "
                         f"`output_mode='{output_mode}'`; pass a dense or ragged tensor.")
    if output_mode == "one_hot":
        shape = inputs.shape.as_list()
        if len(shape) > 1 and shape[-1] == 1:
            inputs = t.squeeze(inputs, axis=-1)
        return _one_hot(inputs, depth, dtype, sparse)
    # multi_hot / count of rank > 2: one-hot, then reduce over axis 1 (Keras's reduction axis).
    axis = 1 if rank > 1 else 0
    encoded = _one_hot(inputs, depth, dtype, False)
    out = t.reduce_max(encoded, axis=axis) if output_mode == "multi_hot" else t.reduce_sum(encoded, axis=axis)
    return t.sparse.from_dense(out) if sparse else out

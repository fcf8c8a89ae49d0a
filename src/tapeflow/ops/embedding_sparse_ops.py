"""Embedding lookups of sparse ids (``tf.nn.embedding_lookup_sparse``, ``tf.nn.safe_embedding_lookup_sparse``):
the rows of a table picked by the ids in each row of a ``SparseTensor``, combined (weighted) per row.

Both are written in tapeflow's ops (``unique``, ``gather``, ``segment_sum``), so the table's gradient is the
``IndexedSlices`` of the rows looked up, as in TF, and traced functions recompute the ids on every call.
"""

from __future__ import annotations

from .._core import dtypes as _dtypes
from .._core.exports import export
from .array_ops import cast, ones_like, reshape, where, zeros_like
from .counting_ops import unique
from .elementwise_ops import divide_no_nan
from .gather_ops import embedding_lookup, gather
from .manip_ops import concat
from .math_ops import greater, greater_equal, sqrt
from .reduction_ops import reduce_prod
from .segment_ops import segment_sum
from .sparse_manip_ops import fill_empty_rows, retain
from .sparse_manip_ops import reshape as sparse_reshape

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _per_row(x, rank):
    """``x`` (one number per looked-up row) shaped to broadcast over embeddings of ``rank`` dimensions."""
    return reshape(x, [-1] + [1] * (rank - 1))


@export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False):
    """For each row ``i`` of ``sp_ids`` (its first index), the embeddings ``params[id]`` of the row's ids combined
    by ``combiner``: ``"sum"`` (weighted by ``sp_weights`` when given), ``"mean"`` (the weighted sum over the sum of
    the weights) or ``"sqrtn"`` (over the root of the sum of squared weights). The result has one row per row id up
    to the largest that holds an id; rows without ids are zero (``tf.nn.embedding_lookup_sparse``)."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    segment_ids = cast(sp_ids.indices[:, 0], _dtypes.int32)
    ids, where_in_ids = unique(sp_ids.values)
    rows = gather(embedding_lookup(params, ids, max_norm=max_norm), where_in_ids)
    rank = rows.shape.rank
    if sp_weights is None:
        weights = cast(zeros_like(segment_ids) + 1, rows.dtype)
    else:
        weights = cast(sp_weights.values, rows.dtype)
        rows = rows * _per_row(weights, rank)
    total = segment_sum(rows, segment_ids)
    if combiner == "sum":
        return total
    scale = segment_sum(weights, segment_ids) if combiner == "mean" else sqrt(segment_sum(weights * weights,
                                                                                         segment_ids))
    if sp_weights is None:  # TF's kernel multiplies by 1 / n (or 1 / sqrt(n)): the same rounding
        return total * _per_row(divide_no_nan(ones_like(scale), scale), rank)
    return divide_no_nan(total, _per_row(scale, rank))


@export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """:func:`embedding_lookup_sparse` made total: ids below 0 are dropped (and, unless ``combiner`` is
    ``"sum"``, ids whose weight is not positive), rows left without ids get the embedding of ``default_id`` or
    zeros, ids of rank above 2 are looked up per row of their leading dimensions, and the result has one
    embedding for every row (``tf.nn.safe_embedding_lookup_sparse``)."""
    tables = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else [embedding_weights]
    if embedding_weights is None or not tables:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    original_shape = sparse_ids.dense_shape
    rank = original_shape.shape[0]
    if rank > 2:
        flat = [reduce_prod(original_shape[:-1]), original_shape[-1]]
        sparse_ids = sparse_reshape(sparse_ids, flat)
        sparse_weights = None if sparse_weights is None else sparse_reshape(sparse_weights, flat)
    keep = greater_equal(sparse_ids.values, cast(0, sparse_ids.dtype))
    if sparse_weights is not None:
        if combiner != "sum":
            keep = keep & greater(sparse_weights.values, cast(0, sparse_weights.dtype))
        sparse_weights = retain(sparse_weights, keep)
    sparse_ids = retain(sparse_ids, keep)
    sparse_ids, row_empty = fill_empty_rows(sparse_ids, 0 if default_id is None else default_id)
    if sparse_weights is not None:
        sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
    result = embedding_lookup_sparse(tables if len(tables) > 1 else tables[0], sparse_ids, sparse_weights,
                                     combiner=combiner, max_norm=max_norm)
    if default_id is None:
        result = where(_per_row(row_empty, result.shape.rank), zeros_like(result), result)
    return reshape(result, concat([cast(original_shape[:-1], _dtypes.int32),
                                   cast(reshape(result.shape.as_list()[1:], [-1]), _dtypes.int32)], 0))

"""``tf.ragged`` and what TF's ops do with a ``RaggedTensor``: ``tf.ragged.constant``, ``map_flat_values``,
indexing, elementwise ops (unary ones on the flat values; binary ones on two ragged tensors of one partition, or
a ragged tensor and a dense one broadcast to it), and reductions over ragged and uniform dimensions.

The public functions of the op set send a ragged argument here (``math_ops._unary_api`` and ``_binary_api``,
``elementwise_ops._public``, ``reduction_ops._reduce``, the operators of ``RaggedTensor``), so the common path for
dense tensors pays one type test at most.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor, convert_to_tensor
from ._convert import to_tensor
from .array_ops import cast, reshape, zeros_like
from .array_ops import range as _range
from .array_ops import shape as _shape
from .assert_ops import assert_equal
from .gather_ops import gather
from .manip_ops import concat, expand_dims
from .math_ops import greater, maximum, minimum, truediv
from .ragged_tensor import RAGGED_ROW_POSITIONS, RaggedTensor
from .reduction_ops import cumsum
from .segment_ops import unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sum

__all__ = ["constant", "map_flat_values", "is_ragged", "binary", "reduce", "getitem", "concat_ragged", "stack_ragged",
           "gather_ragged", "boolean_mask", "ragged_range", "where_ragged", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "RAGGED_RANGE"]


def is_ragged(value):
    return getattr(value, "_tapeflow_ragged", False)


# ------------------------------------------------------------------------------------------ tf.ragged.constant


def _depths(pylist):
    """The nesting depth of the scalars in ``pylist`` (``None`` when it holds none) and of its deepest list."""
    scalar, deepest = set(), [0]

    def walk(x, depth):
        if isinstance(x, (list, tuple)):
            deepest[0] = max(deepest[0], depth + 1)
            for item in x:
                walk(item, depth + 1)
        else:
            scalar.add(depth)

    walk(pylist, 0)
    if len(scalar) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return (scalar.pop() if scalar else None), deepest[0]


@export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dtypes.int64):
    """A ragged tensor of the nested Python lists ``pylist`` (``tf.ragged.constant``): its first ``ragged_rank``
    dimensions after the outermost are ragged (all but the scalars' by default), the rest uniform (of
    ``inner_shape`` when given)."""
    scalar_depth, deepest = _depths(pylist)
    inner = () if inner_shape is None else tuple(inner_shape)
    depth = deepest + len(inner) if scalar_depth is None else scalar_depth
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - len(inner)) if depth > 1 else 0
    if ragged_rank == 0 or depth <= 1:
        return convert_to_tensor(pylist, dtype)
    if ragged_rank >= depth:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    lengths = [[] for _ in range(ragged_rank)]
    values = []

    def walk(row, level):
        lengths[level].append(len(row))
        for item in row:
            if level + 1 == ragged_rank:
                values.append(item)
            else:
                walk(item, level + 1)

    for row in pylist:
        walk(row, 0)
    flat = convert_to_tensor(values, dtype) if values else convert_to_tensor(
        np.zeros((0,) + inner, (_dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32).as_numpy_dtype))
    if inner and values:
        flat = reshape(flat, (-1,) + inner)
    splits_dtype = _dtypes.as_dtype(row_splits_dtype)
    return RaggedTensor.from_nested_row_lengths(flat, [to_tensor(np.asarray(n, np.int64), splits_dtype)
                                                       for n in lengths], validate=False)


@export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the ragged arguments (which must share their row partitions), the
    result given their partitions (``tf.ragged.map_flat_values``)."""
    ragged = [a for a in list(args) + list(kwargs.values()) if is_ragged(a)]
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        _check_same_partition(ragged[0], other)

    def flat(a):
        return a.flat_values if is_ragged(a) else a

    return ragged[0].with_flat_values(op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def _check_same_partition(a, b):
    """TF's check that two ragged tensors share their row partitions, as it words its failure."""
    if a.ragged_rank != b.ragged_rank:
        raise ValueError(f"Ragged ranks differ: {a.ragged_rank} and {b.ragged_rank}")
    for sa, sb in zip(a.nested_row_splits, b.nested_row_splits):
        if sa is sb:
            continue
        if sa.shape == sb.shape and sa.dtype == sb.dtype:  # TF compares the splits themselves (its message shows them)
            assert_equal(sa, sb)
        else:
            assert_equal(to_tensor([False]), to_tensor(True))
    if a.flat_values.shape[1:] != b.flat_values.shape[1:]:
        assert_equal(to_tensor([False]), to_tensor(True))


# ------------------------------------------------------------------------------------------ elementwise


def binary(fn, x, y):
    """``fn(x, y)`` for an elementwise ``fn`` where ``x`` or ``y`` is ragged: on the flat values of two ragged
    tensors of one partition, or with a dense operand broadcast to the ragged one."""
    if is_ragged(x) and is_ragged(y):
        _check_same_partition(x, y)
        return x.with_flat_values(fn(x.flat_values, y.flat_values))
    rt, other = (x, y) if is_ragged(x) else (y, x)
    other = to_tensor(other, rt.dtype) if not isinstance(other, Tensor) else other
    flat = rt.flat_values
    if other.shape.rank <= flat.shape.rank - 1:  # only the uniform inner dimensions: broadcast as they are
        expanded = other
    else:
        expanded = _per_value(other, rt)
    return rt.with_flat_values(fn(flat, expanded) if is_ragged(x) else fn(expanded, flat))


def _per_value(dense, rt):
    """``dense`` (of ``rt``'s rank, or less) broadcast to one slice per flat value of ``rt``."""
    rank = rt.shape.rank
    if dense.shape.rank < rank:
        dense = reshape(dense, [1] * (rank - dense.shape.rank) + dense.shape.as_list())
    if dense.shape[1] != 1:
        # TF compares the row splits a uniform row length would give with the ragged ones, and fails so.
        length = cast(_shape(dense)[1], rt.row_splits_dtype)
        uniform = _range(rt.nrows() + 1, dtype=rt.row_splits_dtype) * length
        assert_equal(uniform, rt.row_splits)
    rows = reshape(dense, [dense.shape[0]] + dense.shape.as_list()[2:])  # the ragged dimension (1) dropped
    if rows.shape[0] == 1:
        per_value = gather(rows, zeros_like(rt.value_rowids()))
    else:
        per_value = gather(rows, rt.value_rowids())
    return _per_value(per_value, rt.values) if is_ragged(rt.values) else per_value


# ------------------------------------------------------------------------------------------ reductions

_SEGMENT = {"Sum": unsorted_segment_sum, "Max": unsorted_segment_max, "Min": unsorted_segment_min,
            "Prod": unsorted_segment_prod}


def _segment(kind, values, ids, n):
    """Rows of ``values`` (a tensor, or a ragged tensor whose rows are ragged) reduced by segment ``ids`` into
    ``n`` rows; a ragged row of the result is as long as the longest row reduced into it."""
    if not is_ragged(values):
        if kind == "Any":
            return greater(unsorted_segment_sum(cast(values, _dtypes.int32), ids, n), 0)
        if kind == "All":
            return unsorted_segment_sum(cast(~values, _dtypes.int32), ids, n) == 0
        return _SEGMENT[kind](values, ids, n)
    lengths = values.row_lengths()
    longest = unsorted_segment_max(lengths, ids, n)
    longest = maximum(longest, cast(0, longest.dtype))  # (a segment with no rows: empty)
    splits = concat([cast(to_tensor([0]), longest.dtype), cumsum(longest)], 0)
    rows, positions = execute(RAGGED_ROW_POSITIONS, (values.row_splits,))
    inner_ids = gather(cast(splits[:-1], _dtypes.int64), gather(cast(ids, _dtypes.int64), rows)) + positions
    inner = _segment(kind, values.values, cast(inner_ids, _dtypes.int32), cast(splits[-1], _dtypes.int32))
    return RaggedTensor.from_row_splits(inner, cast(splits, values.row_splits_dtype), validate=False)


def _reduce_axis(kind, rt, axis):
    if axis == 0:  # every row into one: a segment reduction with one segment
        ids = cast(_range(rt.nrows()) * 0, _dtypes.int32)
        return _segment(kind, rt, ids, 1)[0]
    if axis == 1:
        return _segment(kind, rt.values, cast(rt.value_rowids(), _dtypes.int32), cast(rt.nrows(), _dtypes.int32))
    if is_ragged(rt.values):
        return rt.with_values(_reduce_axis(kind, rt.values, axis - 1))
    return rt.with_values(_dense_reduce(kind, rt.values, axis - 1))


def reduce(kind, rt, axis=None, keepdims=False):
    """TF's reduction ``kind`` (``"Sum"``, ``"Mean"``, ``"Max"``, ``"Min"``, ``"Prod"``, ``"All"``, ``"Any"``) of
    a ragged tensor over ``axis``: over its ragged dimensions by segments of its values, over its uniform ones on
    its values; empty rows give the reduction's identity (the lowest value for a maximum, NaN for a mean, which is
    a true division: float64 for integers, as TF's)."""
    if kind == "Mean":
        total = reduce("Sum", rt, axis, keepdims)
        ones = rt.with_flat_values(zeros_like(rt.flat_values) + cast(1, rt.dtype))
        return truediv(total, reduce("Sum", ones, axis, keepdims))
    if axis is None:
        return _dense_reduce(kind, rt.flat_values, None)
    rank = rt.shape.rank
    requested = [int(a) for a in np.ravel(axis)]
    for a in requested:
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(None, None, f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
    out = rt
    for a in sorted({a % rank for a in requested}, reverse=True):  # innermost first: the outer axes keep place
        out = _reduce_axis(kind, out, a) if is_ragged(out) else _dense_reduce(kind, out, a)
        if keepdims:
            out = _kept(out, a)
    return out


def _kept(value, axis):
    """``value`` with a dimension of size 1 inserted at ``axis`` (a reduced axis kept)."""
    if not is_ragged(value):
        return expand_dims(value, axis)
    if axis == 0:
        splits = concat([cast(to_tensor([0]), value.row_splits_dtype), reshape(value.nrows(), [1])], 0)
        return RaggedTensor.from_row_splits(value, splits, validate=False)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(value, cast(1, value.row_splits_dtype), validate=False)
    return value.with_values(_kept(value.values, axis - 1))


def _dense_reduce(kind, x, axis):
    from . import reduction_ops  # noqa: PLC0415 - reduction_ops sends ragged inputs here

    return {"Sum": reduction_ops.reduce_sum, "Max": reduction_ops.reduce_max, "Min": reduction_ops.reduce_min,
            "Prod": reduction_ops.reduce_prod, "All": reduction_ops.reduce_all,
            "Any": reduction_ops.reduce_any}[kind](x, axis=axis)


# ------------------------------------------------------------------------------------------ indexing


def _gather_rows(rt, rows):
    """The rows ``rows`` (an int64 vector) of ``rt``, in that order."""
    lengths = gather(rt.row_lengths(), rows)
    splits = concat([cast(to_tensor([0]), lengths.dtype), cumsum(lengths)], 0)
    new_rows, positions = execute(RAGGED_ROW_POSITIONS, (splits,))
    starts = gather(cast(rt.row_splits[:-1], _dtypes.int64), rows)
    value_index = gather(starts, new_rows) + positions
    values = _gather_rows(rt.values, value_index) if is_ragged(rt.values) else gather(rt.values, value_index)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _row_bounds(key, n):
    start, stop, step = key.indices(n)
    return start, stop, step


def _slice_rows(rt, key):
    """``rt[key]`` for a slice of its rows."""
    n = int(rt.nrows()._value)
    start, stop, step = _row_bounds(key, n)
    rows = to_tensor(np.arange(start, stop, step, dtype=np.int64))
    if step == 1:  # a contiguous run of rows: its values as one slice
        splits = rt.row_splits[start:max(stop, start) + 1]
        lo = splits[0] if splits.shape[0] else cast(0, rt.row_splits_dtype)
        values = rt.values[lo:splits[-1]] if splits.shape[0] else rt.values[:0]
        return RaggedTensor.from_row_splits(values, splits - lo if splits.shape[0] else splits[:0] + [0],
                                            validate=False)
    return _gather_rows(rt, rows)


def _slice_within_rows(rt, key):
    """``rt[:, key]``: each row of the ragged dimension sliced by ``key`` (a slice with step 1)."""
    if key.step not in (None, 1):
        raise ValueError("Slicing a ragged dimension with a step is not supported")
    lengths = cast(rt.row_lengths(), _dtypes.int64)
    zero = zeros_like(lengths)

    def bound(b, default):
        if b is None:
            return default
        b = cast(to_tensor(b), _dtypes.int64) + zero
        return minimum(maximum(b + lengths, zero), lengths) if int(np.asarray(b._value).ravel()[0]) < 0 else \
            minimum(b, lengths)

    lo = bound(key.start, zero)
    hi = maximum(bound(key.stop, lengths), lo)
    new_lengths = hi - lo
    splits = concat([cast(to_tensor([0]), _dtypes.int64), cumsum(new_lengths)], 0)
    new_rows, positions = execute(RAGGED_ROW_POSITIONS, (splits,))
    index = gather(cast(rt.row_splits[:-1], _dtypes.int64) + lo, new_rows) + positions
    values = _gather_rows(rt.values, index) if is_ragged(rt.values) else gather(rt.values, index)
    return RaggedTensor.from_row_splits(values, cast(splits, rt.row_splits_dtype), validate=False)


def getitem(rt, key):
    """``rt[key]``: rows by index or slice, then the next dimensions (a ragged one by slices only)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (rt.shape.rank - len(key) + 1) + key[i + 1:]
    if not key:
        return rt
    first, rest = key[0], key[1:]
    if isinstance(first, slice):
        out = rt if first == slice(None) else _slice_rows(rt, first)
        if not rest:
            return out
        second, rest = rest[0], rest[1:]
        if not isinstance(second, slice):
            raise ValueError("Cannot index into an inner ragged dimension.")
        out = out if second == slice(None) else _slice_within_rows(out, second)
        if rest:
            inner = out.values[(slice(None),) + rest] if not is_ragged(out.values) else \
                getitem(out.values, (slice(None),) + rest)
            out = out.with_values(inner)
        return out
    i = int(np.asarray(to_tensor(first)._value))
    n = int(rt.nrows()._value)
    if not -n <= i < n:
        raise IndexError(f"Row key {i} out of bounds")
    i = i + n if i < 0 else i
    row = rt.values[rt.row_splits[i]:rt.row_splits[i + 1]]
    return getitem(row, rest) if rest and is_ragged(row) else row[rest] if rest else row


# ------------------------------------------------------------------------------------------ structure


def _as_ragged(value, ragged_rank, splits_dtype):
    """``value`` as a ragged tensor of ``ragged_rank`` (a dense tensor's rows, uniform, made ragged)."""
    if is_ragged(value):
        return value
    return RaggedTensor.from_tensor(to_tensor(value), ragged_rank=ragged_rank, row_splits_dtype=splits_dtype)


def _rows_joined(parts):
    """Ragged tensors of one ragged rank, their rows one after another (a concat along axis 0)."""
    flat = concat([p.flat_values for p in parts], 0)
    levels = [concat([p.nested_row_lengths()[k] for p in parts], 0) for k in range(parts[0].ragged_rank)]
    return RaggedTensor.from_nested_row_lengths(flat, levels, validate=False)


def concat_ragged(values, axis):
    """``tf.concat`` where a value is ragged: along axis 0 the rows follow each other; along another axis, row
    ``i`` of the result joins row ``i`` of every value."""
    first = next(v for v in values if is_ragged(v))
    rank = first.shape.rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    parts = [_as_ragged(v, first.ragged_rank, first.row_splits_dtype) for v in values]
    if axis == 0:
        return _rows_joined(parts)
    # row i of each part in turn (a stack along axis 1), then each group of rows joined at ``axis``
    return _merge_axis(stack_ragged(parts, axis=1), axis)


def _merge_axis(rt, axis):
    """``rt`` (a stack along ``axis``) with that axis joined into the next."""
    if axis == 1:
        return rt.merge_dims(1, 2)
    return rt.with_values(_merge_axis(rt.values, axis - 1))


@export("ragged.stack")
def stack_ragged(values, axis=0, name=None):
    """``values`` (ragged, or dense made ragged) stacked along a new ``axis`` (``tf.ragged.stack``)."""
    first = next((v for v in values if is_ragged(v)), None)
    if first is None:
        values = [RaggedTensor.from_tensor(to_tensor(v)) for v in values]
        first = values[0]
    parts = [_as_ragged(v, first.ragged_rank, first.row_splits_dtype) for v in values]
    rank = first.shape.rank + 1
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    n = len(parts)
    joined = _rows_joined(parts)
    if axis == 0:
        sizes = [cast(reshape(p.nrows(), [1]), joined.row_splits_dtype) for p in parts]
        return RaggedTensor.from_row_lengths(joined, concat(sizes, 0), validate=False)
    if axis == 1:  # row i of each part, in turn: a gather of the joined rows, in groups of n
        nrows = parts[0].nrows()
        order = reshape(_range(n, dtype=_dtypes.int64)[None, :] * cast(nrows, _dtypes.int64) +
                        _range(cast(nrows, _dtypes.int64))[:, None], [-1])
        rows = _gather_rows(joined, order)
        return RaggedTensor.from_uniform_row_length(rows, cast(n, rows.row_splits_dtype), validate=False)
    inner = stack_ragged([p.values for p in parts], axis=axis - 1)
    return parts[0].with_values(inner)


def gather_ragged(params, indices, axis=0, batch_dims=0):
    """``tf.gather`` where ``params`` or ``indices`` is ragged. Along axis 0: rows of ragged ``params`` at
    ``indices`` (nested as the indices are), or slices of dense ``params`` at ragged ``indices``. Along axis 1
    of a ragged ``params``: the values at those positions of every row (``batch_dims=1``: of its own row); of a
    dense ``params`` with ragged ``indices``: the indices' rows of positions, for every row of ``params``."""
    axis, batch_dims = int(axis), int(batch_dims)
    if axis == 0:
        if is_ragged(indices):
            return indices.with_flat_values(gather_ragged(params, indices.flat_values))
        if not is_ragged(params):
            return gather(params, indices)
        idx = cast(to_tensor(indices), _dtypes.int64)
        rows = _gather_rows(params, reshape(idx, [-1]))
        for size in reversed(idx.shape.as_list()[1:]):
            rows = RaggedTensor.from_uniform_row_length(rows, cast(size, rows.row_splits_dtype), validate=False)
        return rows
    if axis == 1 and is_ragged(params) and params.ragged_rank == 1:
        starts = cast(params.row_splits[:-1], _dtypes.int64)
        if batch_dims == 1:  # row i's own positions
            if is_ragged(indices):
                rows_of_idx = indices.value_rowids()
                flat = cast(indices.flat_values, _dtypes.int64)
                return indices.with_flat_values(gather(params.values, gather(starts, rows_of_idx) + flat))
            return gather(params.values, starts[:, None] + cast(to_tensor(indices), _dtypes.int64))
        # (as TF's: positions are offsets into the flat values, unchecked against their row's length)
        return gather(params.values, starts[:, None] + cast(to_tensor(indices), _dtypes.int64)[None, :])
    if axis == 1 and not is_ragged(params) and is_ragged(indices) and batch_dims == 0:
        dense = gather(params, indices.flat_values, axis=1)  # [rows of params, every index value, ...]
        n = to_tensor(params).shape[0]
        nested = [cast(_range(n) * 0, indices.row_splits_dtype) + cast(indices.nrows(), indices.row_splits_dtype)]
        from .manip_ops import tile  # noqa: PLC0415

        nested += [tile(lengths, [n]) for lengths in indices.nested_row_lengths()]
        flat = reshape(dense, [-1] + dense.shape.as_list()[2:])
        return RaggedTensor.from_nested_row_lengths(flat, nested, validate=False)
    raise ValueError(f"tf.gather of a ragged tensor along axis={axis} with batch_dims={batch_dims} is not "
                     "supported by tapeflow")


@export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """The values of ``data`` (ragged or dense) where ``mask`` is true, the rows kept: a ragged result whose
    rows hold what the mask kept of them (``tf.ragged.boolean_mask``)."""
    from .gather_ops import boolean_mask as dense_mask  # noqa: PLC0415

    if is_ragged(mask):
        data = _as_ragged(data, mask.ragged_rank, mask.row_splits_dtype)
        if mask.ragged_rank > 1:  # the outer partitions kept, the innermost rows masked
            return data.with_values(boolean_mask(data.values, mask.values))
        keep = mask.flat_values
        values = dense_mask(data.flat_values, keep)
        lengths = unsorted_segment_sum(cast(keep, mask.row_splits_dtype), cast(mask.value_rowids(), _dtypes.int32),
                                       cast(mask.nrows(), _dtypes.int32))
        return RaggedTensor.from_row_lengths(values, lengths, validate=False)
    mask = to_tensor(mask)
    if mask.shape.rank == 1:  # whole rows kept or dropped
        if is_ragged(data):
            from .array_ops import where as _where  # noqa: PLC0415

            return _gather_rows(data, reshape(_where(mask), [-1]))
        return dense_mask(data, mask)
    return boolean_mask(data, RaggedTensor.from_tensor(mask))


@defop("RaggedRange", num_outputs=2, same_dtype=False)
def RAGGED_RANGE(starts, limits, deltas, splits_dtype):
    """Row splits and values of the rows ``range(starts[i], limits[i], deltas[i])`` (broadcast together)."""
    s, lim, d = np.broadcast_arrays(starts, limits, deltas)
    dtype = np.result_type(s, lim, d)
    rows = [np.arange(a, b, c, dtype=dtype) for a, b, c in zip(s.ravel(), lim.ravel(), d.ravel())]
    values = np.concatenate(rows) if rows else np.zeros(0, dtype)
    return np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(splits_dtype), values


RAGGED_RANGE.value_sized = {1: (0,)}  # (a trace leaves the sizes that follow the values unknown)


@export("ragged.range")
def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dtypes.int64):
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (``tf.ragged.range``; one argument: the limits)."""
    if limits is None:
        starts, limits = 0, starts
    given = [to_tensor(v) if isinstance(v, Tensor) else convert_to_tensor(v, dtype) for v in (starts, limits, deltas)]
    common = dtype or _dtypes.as_dtype(np.result_type(*[t._value.dtype for t in given]))
    splits, values = execute(RAGGED_RANGE, tuple(cast(t, common) for t in given),
                             {"splits_dtype": _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype})
    return RaggedTensor.from_row_splits(values, splits, validate=False)


@export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value, from row splits (``tf.ragged.row_splits_to_segment_ids``)."""
    splits = to_tensor(splits) if isinstance(splits, Tensor) else to_tensor(splits, _dtypes.int64)
    rows = execute(RAGGED_ROW_POSITIONS, (splits,))[0]
    return cast(rows, out_type or splits.dtype)


@export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits from the (sorted) row of each value (``tf.ragged.segment_ids_to_row_splits``)."""
    ids = to_tensor(segment_ids) if isinstance(segment_ids, Tensor) else to_tensor(segment_ids, _dtypes.int64)
    from .counting_ops import bincount  # noqa: PLC0415

    n = None if num_segments is None else cast(to_tensor(num_segments), _dtypes.int32)
    counts = bincount(cast(ids, _dtypes.int32), minlength=n, maxlength=n, dtype=out_type or ids.dtype)
    return concat([cast(to_tensor([0]), counts.dtype), cumsum(counts)], 0)


def where_ragged(condition, x, y):
    """``tf.where`` with a ragged argument: elementwise over the flat values of one row partition (the one-argument
    form gives the indices of the true values, as of the dense form)."""
    if x is None and y is None:
        from .array_ops import where as _where  # noqa: PLC0415

        return _where(condition.to_tensor())
    first = next(v for v in (condition, x, y) if is_ragged(v))
    parts = [v if is_ragged(v) else _per_value_like(v, first) for v in (condition, x, y)]
    for p in parts:
        if is_ragged(p):
            _check_same_partition(first, p)
    from .array_ops import where as _where  # noqa: PLC0415

    return first.with_flat_values(_where(*[p.flat_values if is_ragged(p) else p for p in parts]))


def _per_value_like(value, rt):
    """A dense or scalar operand of a ragged ``where``, broadcast to one slice per flat value."""
    value = to_tensor(value)
    if value.shape.rank <= rt.flat_values.shape.rank - 1:
        return value
    return _per_value(value, rt)

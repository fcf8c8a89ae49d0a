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

__all__ = ["constant", "map_flat_values", "is_ragged", "binary", "reduce", "getitem"]


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
        same = sa.shape == sb.shape and bool(np.array_equal(np.asarray(sa._value), np.asarray(sb._value)))
        assert_equal(to_tensor([same]), to_tensor(True))


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


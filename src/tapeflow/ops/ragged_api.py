"""TF's public functions on ragged tensors beyond ``ragged_ops``' elementwise math, reductions and indexing: the
ragged half of each API that ``_ragged_dispatch.API`` sends here when an argument is a ``RaggedTensor`` (or a
``DynamicRaggedShape``).

Each function keeps the signature of the function it serves. Elementwise functions (string ops, clipping, casts,
``add_n`` ...) run on the flat values of arguments of one row partition; structural ones (``tile``, ``reverse``,
``expand_dims`` ...) build the new partitions and the flat values from tapeflow's ops, so tapes differentiate
them and ``tf.function`` traces them.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from ._convert import to_tensor
from .array_ops import cast, reshape, zeros_like
from .array_ops import fill as _fill
from .array_ops import ones as _ones
from .array_ops import range as _range
from .array_ops import reshape as _reshape
from .array_ops import size as _size
from .array_ops import zeros as _zeros
from .gather_ops import gather
from .manip_ops import concat
from .manip_ops import expand_dims as _expand_dims
from .manip_ops import reverse as _reverse
from .manip_ops import squeeze as _squeeze
from .manip_ops import tile as _dense_tile
from .math_ops import floormod, maximum, sqrt, truediv
from .ragged_ops import _check_same_partition, _gather_rows, _kept, _per_value_like, _segment, binary, is_ragged
from .ragged_ops import reduce as _ragged_reduce
from .ragged_tensor import RAGGED_ROW_POSITIONS, RaggedTensor
from .reduction_ops import cumsum as _cumsum

__all__ = ["elementwise", "binary_elementwise", "tile", "reverse", "expand_dims", "squeeze", "rank", "size",
           "one_hot", "embedding_lookup", "split", "cumsum", "unsorted_segment", "dynamic_partition",
           "gather_nd", "matmul", "reshape_ragged", "shaped", "softmax", "bincount", "reduce_join",
           "string_format", "assert_equal", "map_fn"]


# ------------------------------------------------------------------------------------------ elementwise


def elementwise(fn, *args, **kwargs):
    """``fn`` on the flat values of its ragged arguments, which must share one row partition (lists of tensors are
    looked into, as ``tf.strings.join`` and ``tf.add_n`` take them); other arguments are passed as they are."""
    first = []

    def flat(a):
        if is_ragged(a):
            if first:
                _check_same_partition(first[0], a)
            else:
                first.append(a)
            return a.flat_values
        if type(a) in (list, tuple):
            return type(a)(flat(b) for b in a)
        return a

    new_args = [flat(a) for a in args]
    new_kwargs = {k: flat(v) for k, v in kwargs.items()}
    return first[0].with_flat_values(fn(*new_args, **new_kwargs))


def binary_elementwise(fn, x, y, *args, **kwargs):
    """``fn(x, y, ...)`` for a binary elementwise ``fn``: a dense operand is broadcast to the ragged one."""
    return binary(lambda a, b: fn(a, b, *args, **kwargs), x, y)


def sigmoid_cross_entropy_with_logits(fn, labels=None, logits=None, name=None):
    return binary(lambda a, b: fn(labels=a, logits=b), labels, logits)


def add_n(fn, inputs, name=None):
    """``tf.add_n`` of ragged tensors of one partition, on their flat values (a dense input goes in as it is, and
    TF's kernel refuses one of another shape)."""
    return elementwise(fn, inputs)


# ------------------------------------------------------------------------------------------ reordering rows


def _within_rows(rt, lengths, index_of):
    """A ragged tensor whose row ``r`` has ``lengths[r]`` items, item ``p`` of it being item ``index_of(rows,
    positions, starts, old lengths)`` of ``rt.values`` (``rows``, ``positions`` per new item)."""
    lengths = cast(lengths, _dtypes.int64)
    splits = concat([cast(to_tensor([0]), _dtypes.int64), _cumsum(lengths)], 0)
    rows, positions = execute(RAGGED_ROW_POSITIONS, (splits,))
    starts = gather(cast(rt.row_splits[:-1], _dtypes.int64), rows)
    old = gather(cast(rt.row_lengths(), _dtypes.int64), rows)
    index = index_of(rows, positions, starts, old)
    values = _gather_rows(rt.values, index) if is_ragged(rt.values) else gather(rt.values, index)
    return RaggedTensor.from_row_splits(values, cast(splits, rt.row_splits_dtype), validate=False)


def _axis(axis, rank, what="axis"):
    a = int(axis)
    if not -rank <= a < rank:
        raise ValueError(f"{what}={a} out of bounds: expected {-rank}<={what}<{rank}")
    return a % rank


def tile(fn, input, multiples, name=None):
    """``tf.tile``: the flat values' uniform dimensions tiled, then each ragged dimension's rows repeated in
    place (innermost first), then the rows repeated ``multiples[0]`` times."""
    rt = input
    m = [int(k) for k in np.ravel(to_tensor(multiples)._value)]
    rank = rt.shape.rank
    if len(m) < rank:  # (TF's ragged tile reads past the end of the multiples)
        raise IndexError(f"index {len(m)} is out of bounds for axis 0 with size {len(m)}")
    if len(m) != rank:
        raise ValueError(f"Expected multiples argument to be a vector of length {rank} but got length {len(m)}")
    return _tile_ragged(rt, m)


def _tile_ragged(rt, m):
    if not is_ragged(rt):
        return rt if all(k == 1 for k in m) else _dense_tile(rt, m)
    inner = _tile_ragged(rt.values, [1] + m[2:])  # the values (rows of the next dimension) tiled first
    rt = rt.with_values(inner)
    if m[1] != 1:
        rt = _within_rows(rt, rt.row_lengths() * m[1],
                          lambda rows, positions, starts, old: starts + floormod(positions, maximum(old, 1)))
    if m[0] == 0:
        rt = rt[:0]
    elif m[0] != 1:
        rt = _concat_rows([rt] * m[0])
    return rt


def _concat_rows(parts):
    from .ragged_ops import concat_ragged  # noqa: PLC0415

    return concat_ragged(parts, 0)


def reverse(fn, tensor, axis, name=None):
    """``tf.reverse``: rows reversed (axis 0), items within each row (a ragged axis), or the flat values'
    uniform dimensions."""
    rt = tensor
    rank = rt.shape.rank
    axes = [int(a) for a in np.ravel(to_tensor(axis)._value)]
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise ValueError(f"axis[{i}]={a} out of bounds: expected {-rank}<=axis[{i}]<{rank}")
    for a in sorted({a % rank for a in axes}):
        rt = _reverse_axis(rt, a)
    return rt


def _reverse_axis(rt, axis):
    if not is_ragged(rt):
        return _reverse(rt, [axis])
    if axis == 0:
        return _gather_rows(rt, _range(rt.nrows(out_type=_dtypes.int64) - 1, -1, -1, dtype=_dtypes.int64))
    if axis == 1:
        return _within_rows(rt, rt.row_lengths(), lambda rows, positions, starts, old: starts + old - 1 - positions)
    return rt.with_values(_reverse_axis(rt.values, axis - 1))


# ------------------------------------------------------------------------------------------ dimensions


def expand_dims(fn, input, axis, name=None):
    rt = input
    rank = rt.shape.rank
    a = int(axis)
    if not -(rank + 1) <= a <= rank:
        raise ValueError(f"axis={a} out of bounds: expected {-(rank + 1)}<=axis<{rank + 1}")
    a %= rank + 1
    if a == 0:
        return RaggedTensor.from_uniform_row_length(rt, rt.nrows(), nrows=1, validate=False) if \
            rt.shape[0] is None else RaggedTensor.from_uniform_row_length(rt, int(rt.shape[0]), nrows=1,
                                                                          validate=False)
    return _expanded(rt, a)


def _expanded(rt, a):
    if a == 1:
        return _kept(rt, 1)
    if is_ragged(rt.values):
        return rt.with_values(_expanded(rt.values, a - 1))
    return rt.with_values(_expand_dims(rt.values, a - 1))


def squeeze(fn, input, axis=None, name=None):
    """``tf.squeeze`` of size-1 dimensions: uniform inner ones of the flat values, or a ragged one whose rows all
    hold one item (TF's check fails otherwise)."""
    rt = input
    if axis is None:
        raise ValueError("Ragged.squeeze must have an axis argument.")
    rank = rt.shape.rank
    axes = sorted({_axis(a, rank) for a in np.ravel(axis)}, reverse=True)
    for a in axes:
        rt = _squeeze_axis(rt, a)
    return rt


def _squeeze_axis(rt, a):
    if not is_ragged(rt):
        return _squeeze(rt, [a])
    if a == 0:
        if int(rt.nrows()._value) != 1:
            _not_squeezable(0)
        return rt.values[rt.row_splits[0]:rt.row_splits[1]] if is_ragged(rt.values) else rt.values
    if a == 1:
        lengths = np.asarray(rt.row_lengths()._value)
        if not np.all(lengths == 1):
            _not_squeezable(1)
        if is_ragged(rt.values):
            return RaggedTensor.from_row_splits(rt.values.values, gather(rt.values.row_splits, rt.row_splits),
                                                validate=False)
        return rt.values
    if is_ragged(rt.values):
        return rt.with_values(_squeeze_axis(rt.values, a - 1))
    return rt.with_values(_squeeze(rt.values, [a - 1]))


def _not_squeezable(a):
    raise errors.InvalidArgumentError(None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                                  f"Summarized data: b'the given axis (axis = {a}) is not "
                                                  "squeezable!'")


def rank(fn, input, name=None):
    return to_tensor(np.int32(input.shape.rank))


def size(fn, input, out_type=None, name=None):
    return _size(input.flat_values, out_type=out_type)


def one_hot(fn, indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    if axis is not None and axis != -1 and axis <= indices.ragged_rank:
        raise ValueError(f"axis ({axis}) must be greater than indices.ragged_rank ({indices.ragged_rank}).")
    inner = None if axis is None or axis == -1 else axis - indices.ragged_rank
    return indices.with_flat_values(fn(indices.flat_values, depth, on_value, off_value, inner, dtype))


def embedding_lookup(fn, params, ids, max_norm=None, name=None):
    return ids.with_flat_values(fn(params, ids.flat_values, max_norm=max_norm))


def split(fn, value, num_or_size_splits, axis=0, num=None, name="split"):
    """``tf.split`` of a ragged tensor's rows (a ragged dimension cannot be split, as in TF)."""
    rt = value
    if _axis(axis, rt.shape.rank) != 0:
        from .ragged_shape import shape_of_ragged  # noqa: PLC0415

        raise ValueError(f"Cannot split a ragged dimension. Got `value` with shape {shape_of_ragged(rt)!r} and "
                         f"`axis` {axis}.")
    n = int(rt.nrows()._value)
    sizes = np.ravel(to_tensor(num_or_size_splits)._value).astype(np.int64)
    if sizes.size == 1 and np.ndim(to_tensor(num_or_size_splits)._value) == 0:
        count = int(sizes[0])
        if n % count:
            raise ValueError(f"Cannot exactly split the RaggedTensor into {count} parts")
        sizes = np.full(count, n // count)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    return [rt[int(a):int(b)] for a, b in zip(bounds[:-1], bounds[1:])]


def cumsum(fn, x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumsum`` along a ragged tensor's dimension: over the padded dense form, cut back to the rows'
    lengths (as TF computes it, so padding never reaches a result); along a uniform inner one, on the values."""
    rt = x
    a = _axis(axis, rt.shape.rank)
    if a > rt.ragged_rank:
        return rt.with_flat_values(fn(rt.flat_values, a - rt.ragged_rank, exclusive, reverse))
    dense = fn(rt.to_tensor(), a, exclusive, reverse)
    return RaggedTensor.from_tensor(dense, lengths=rt.nested_row_lengths(), row_splits_dtype=rt.row_splits_dtype) \
        if rt.ragged_rank > 1 else RaggedTensor.from_tensor(dense, lengths=rt.row_lengths(),
                                                             row_splits_dtype=rt.row_splits_dtype)


# ------------------------------------------------------------------------------------------ segments, partitions


def unsorted_segment(kind):
    """TF's ragged ``unsorted_segment_*``: rows of ragged ``data`` reduced by segment into ragged rows as long as
    the longest row reduced into each."""

    def segment(fn, data, segment_ids, num_segments, name=None):
        ids = cast(to_tensor(segment_ids), _dtypes.int32)
        n = cast(to_tensor(num_segments), _dtypes.int32)
        if kind in ("Sum", "Max", "Min", "Prod"):
            return _segment(kind, data, ids, n)
        total = _segment("Sum", data, ids, n)
        ones = data.with_flat_values(zeros_like(data.flat_values) + cast(1, data.dtype))
        count = _segment("Sum", ones, ids, n)
        count = count.with_flat_values(maximum(count.flat_values, cast(1, data.dtype)))
        if kind == "SqrtN":
            count = count.with_flat_values(sqrt(count.flat_values))
        return total.with_flat_values(truediv(total.flat_values, count.flat_values))

    return segment


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``tf.dynamic_partition`` with ragged data: by rows (dense partitions: ragged pieces), or by values (ragged
    partitions of the same row partition: dense pieces of the flat values)."""
    from .partition_ops import dynamic_partition as dense_partition  # noqa: PLC0415
    from .ragged_ops import boolean_mask  # noqa: PLC0415

    if is_ragged(partitions):
        if not is_ragged(data):
            raise TypeError("partitions is ragged but data is not")
        _check_same_partition(data, partitions)
        return dense_partition(data.flat_values, partitions.flat_values, num_partitions)
    parts = cast(to_tensor(partitions), _dtypes.int32)
    n = int(num_partitions)
    bad = np.ravel(parts._value)
    if bad.size and (bad.min() < 0 or bad.max() >= n):
        dense_partition(_zeros(parts.shape), parts, n)  # TF's error, from the kernel
    return [boolean_mask(data, parts == p) for p in range(n)]


def gather_nd(fn, params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """``tf.gather_nd`` of a ragged ``params`` at dense ``indices``: each index row walks down the partitions
    (row, then position in it ...); a full index gives a value, a partial one a (ragged) row."""
    if batch_dims:
        raise ValueError("batch_dims != 0 is not supported for ragged gather_nd yet")
    idx = cast(to_tensor(indices), _dtypes.int64)
    if is_ragged(indices):
        raise TypeError("ragged indices are not supported by gather_nd with ragged params")
    lead = idx.shape.as_list()[:-1]
    depth = idx.shape.as_list()[-1]
    flat_idx = reshape(idx, [-1, depth])
    node, pos = params, flat_idx[:, 0]
    k = 1
    while k < depth and is_ragged(node):
        pos = gather(cast(node.row_splits, _dtypes.int64), pos) + flat_idx[:, k]
        node = node.values
        k += 1
    if k < depth:  # the rest indexes the flat values' uniform dimensions
        from .scatter_ops import gather_nd as dense_gather_nd  # noqa: PLC0415

        out = dense_gather_nd(node, concat([pos[:, None], flat_idx[:, k:]], 1))
    else:
        out = _gather_rows(node, pos) if is_ragged(node) else gather(node, pos)
    if len(lead) == 1:
        return out
    if is_ragged(out):
        raise ValueError("gather_nd with ragged params and indices of rank > 2 giving ragged rows is not supported")
    return reshape(out, lead + out.shape.as_list()[1:])


def matmul(fn, a, b, *args, **kwargs):
    """``tf.matmul`` of ragged matrices (rank 2: every row of one length): on their dense forms, a dense result."""
    for name, t in (("a", a), ("b", b)):
        if is_ragged(t) and t.shape.rank != 2:
            raise ValueError(f"ragged matmul supports rank-2 operands; `{name}` has rank {t.shape.rank}")
    dense = [t.to_tensor() if is_ragged(t) else t for t in (a, b)]
    return fn(dense[0], dense[1], *args, **kwargs)


# ------------------------------------------------------------------------------------------ shapes


def reshape_ragged(fn, tensor, shape, name=None):
    """``tf.reshape`` of a ragged tensor (its values in row-major order) or to a ``DynamicRaggedShape``."""
    values = tensor.flat_values if is_ragged(tensor) else to_tensor(tensor)
    if getattr(shape, "_tapeflow_ragged_shape", False):
        return _shaped(_reshape(values, _inner(shape)), shape)
    if is_ragged(tensor) and tensor.flat_values.shape.rank > 1:
        values = _reshape(values, [-1])
    return fn(values, shape)


def _inner(shape):
    return [int(d) for d in np.asarray(shape.inner_shape._value)]


def _shaped(flat, shape):
    """``flat`` (of ``shape``'s inner shape) cut by ``shape``'s row partitions."""
    splits = [p.row_splits() for p in shape.row_partitions]
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False) if splits else flat


def shaped(kind):
    """``tf.zeros``, ``tf.ones`` or ``tf.fill`` of a ``DynamicRaggedShape``: a ragged tensor of that shape."""

    def make(fn, shape, *args, **kwargs):
        if not getattr(shape, "_tapeflow_ragged_shape", False):
            return fn(shape, *args, **kwargs)
        inner = _inner(shape)
        maker = {"zeros": _zeros, "ones": _ones, "fill": _fill}[kind]
        return _shaped(maker(inner, *args, **kwargs), shape)

    return make


# ------------------------------------------------------------------------------------------ nn


def softmax(fn, logits, axis=None, name=None):
    """``tf.nn.softmax`` over a ragged dimension, as TF writes it: ``exp(x - max) / sum``."""
    a = -1 if axis is None else axis
    if _axis(a, logits.shape.rank) > logits.ragged_rank:
        return logits.with_flat_values(fn(logits.flat_values, a if a < 0 else a - logits.ragged_rank))
    from .math_ops import exp, subtract  # noqa: PLC0415

    top = _ragged_reduce("Max", logits, a, True)
    e = exp(binary(subtract, logits, top))
    return binary(truediv, e, _ragged_reduce("Sum", e, a, True))


# ------------------------------------------------------------------------------------------ counting, strings


def bincount(fn, arr, weights=None, minlength=None, maxlength=None, dtype=_dtypes.int32, name=None, axis=None,
             binary_output=False):
    """``tf.math.bincount`` of a ragged tensor: of all its values, or (``axis=-1``) per row, each value counted at
    ``row * width + value`` of one flat count."""
    flat = arr.flat_values
    w = weights.flat_values if is_ragged(weights) else weights
    if axis in (None, 0):
        return fn(flat, w, minlength, maxlength, dtype, axis=None, binary_output=binary_output)
    if axis != -1:
        raise errors.InvalidArgumentError(None, None, f"Unsupported axis value {axis}. Only 0 and -1 are supported.")
    if arr.ragged_rank != 1:
        raise ValueError("bincount with axis=-1 takes a ragged tensor of rank 2")
    values = np.asarray(flat._value)
    width = int(values.max()) + 1 if values.size else 0
    if minlength is not None:
        width = max(width, int(np.asarray(to_tensor(minlength)._value)))
    if maxlength is not None:
        width = min(width, int(np.asarray(to_tensor(maxlength)._value)))
    nrows = int(arr.nrows()._value)
    rows = cast(arr.value_rowids(), flat.dtype)
    keep = flat < width
    from .gather_ops import boolean_mask  # noqa: PLC0415

    ids = boolean_mask(rows * width + flat, keep)
    w = None if w is None else boolean_mask(w, keep)
    counts = fn(ids, w, nrows * width, nrows * width, dtype, binary_output=binary_output)
    return reshape(counts, [nrows, width])


def reduce_join(fn, inputs, axis=None, keepdims=False, separator="", name=None):
    """``tf.strings.reduce_join`` of a ragged tensor: over a ragged dimension by ``unsorted_segment_join`` of its
    rows (an empty row joins to ``""``), over the others on its values."""
    from .string_ops import unsorted_segment_join  # noqa: PLC0415

    rt = inputs
    if axis is None:
        return fn(rt.flat_values, None, keepdims, separator)
    rank = rt.shape.rank
    out = rt
    for a in sorted({_axis(x, rank) for x in np.ravel(axis)}, reverse=True):
        if not is_ragged(out):
            out = fn(out, a, False, separator)
        elif a == 0:
            ids = cast(zeros_like(out.value_rowids()) if not is_ragged(out.values) else out.value_rowids() * 0,
                       _dtypes.int32)
            joined = _join_rows(out, ids, 1, separator, unsorted_segment_join)
            out = joined[0]
        elif a == 1:
            out = _join_rows(out.values, cast(out.value_rowids(), _dtypes.int32), cast(out.nrows(), _dtypes.int32),
                             separator, unsorted_segment_join)
        else:
            out = out.with_values(reduce_join(fn, out.values, a - 1, False, separator)) if is_ragged(out.values) \
                else out.with_values(fn(out.values, a - 1, False, separator))
        if keepdims:
            out = _kept(out, a)
    return out


def _join_rows(values, ids, n, separator, segment_join):
    """Rows of ``values`` (dense, or ragged: then position by position) joined by segment ``ids`` into ``n``."""
    if not is_ragged(values):
        return segment_join(values, ids, n, separator=separator)
    rows, positions = execute(RAGGED_ROW_POSITIONS, (values.row_splits,))
    longest = _segment("Max", values.row_lengths(), ids, n)
    splits = concat([cast(to_tensor([0]), longest.dtype), _cumsum(maximum(longest, 0))], 0)
    slot = gather(cast(splits[:-1], _dtypes.int64), gather(cast(ids, _dtypes.int64), rows)) + positions
    inner = _join_rows(values.values, cast(slot, _dtypes.int32), cast(splits[-1], _dtypes.int32), separator,
                       segment_join)
    return RaggedTensor.from_row_splits(inner, cast(splits, values.row_splits_dtype), validate=False)


def string_format(fn, template, inputs, placeholder="{}", summarize=3, name=None):
    """``tf.strings.format`` with ragged inputs: each printed as TF prints a ragged tensor there (nested lists,
    ``summarize`` items at either end of each row)."""
    if isinstance(inputs, (list, tuple)):
        items = list(inputs)
    else:
        items = [inputs]
    parts = template.split(placeholder)
    if len(parts) - 1 != len(items):
        return fn(template, inputs, placeholder, summarize)
    texts = []
    for item in items:
        if is_ragged(item):
            texts.append(_ragged_text(item, summarize))
        else:
            texts.append(fn(placeholder, [item], placeholder, summarize))
    from .string_ops import join  # noqa: PLC0415

    pieces = [parts[0]]
    for text, after in zip(texts, parts[1:]):
        pieces += [text, after]
    return join(pieces)


def _ragged_text(rt, summarize):
    """A ragged tensor printed as ``[[1, 2], [], [3]]`` with TF's elision, built from string ops."""
    from .string_format_ops import as_string  # noqa: PLC0415
    from .string_ops import join, unsorted_segment_join  # noqa: PLC0415

    flat = rt.flat_values
    if flat.shape.rank > 1:
        raise ValueError("tf.strings.format of a ragged tensor with uniform inner dimensions is not supported")
    if flat.dtype == _dtypes.string:
        from .string_regex import regex_replace  # noqa: PLC0415

        text = join(["'", regex_replace(flat, "'", "\\\\'"), "'"])
    elif flat.dtype.is_floating:
        text = as_string(flat, precision=6)
    else:
        text = as_string(flat)
    rows = _joined(rt.with_flat_values(text), summarize, unsorted_segment_join, join)  # one string per row
    bounds = concat([_zeros([1], _dtypes.int64), reshape(_size(rows, _dtypes.int64), [1])], 0)
    whole = RaggedTensor.from_row_splits(rows, bounds, validate=False)
    return _joined(whole, summarize, unsorted_segment_join, join)[0]


def _joined(rt, summarize, segment_join, join):
    if is_ragged(rt.values):
        rt = rt.with_values(_joined(rt.values, summarize, segment_join, join))
    values = rt.values
    if summarize is not None and summarize >= 0:
        lengths = rt.row_lengths()
        rows, positions = execute(RAGGED_ROW_POSITIONS, (rt.row_splits,))
        length = gather(cast(lengths, _dtypes.int64), rows)
        head = positions < summarize
        tail = positions >= length - summarize
        keep = head | tail
        marker = (positions == summarize) & (length > 2 * summarize)
        from .array_ops import where  # noqa: PLC0415
        from .gather_ops import boolean_mask  # noqa: PLC0415

        shown = where(marker, to_tensor(b"..."), values)
        keep = keep | marker
        values = boolean_mask(shown, keep)
        ids = boolean_mask(rows, keep)
    else:
        ids = rt.value_rowids()
    inside = segment_join(values, cast(ids, _dtypes.int32), cast(rt.nrows(), _dtypes.int32), separator=", ")
    return join(["[", inside, "]"])


# ------------------------------------------------------------------------------------------ checks


def assert_equal(fn, x, y, *args, **kwargs):
    """``tf.debugging.assert_equal`` of ragged tensors: the same partitions, then equal flat values."""
    if is_ragged(x) and is_ragged(y):
        _check_same_partition(x, y)
        return fn(x.flat_values, y.flat_values, *args, **kwargs)
    rt, other = (x, y) if is_ragged(x) else (y, x)
    return fn(rt.flat_values, _per_value_like(other, rt), *args, **kwargs)


def map_fn(fn, *args, **kwargs):
    from .functional_ops import map_fn_ragged  # noqa: PLC0415

    return map_fn_ragged(*args, **kwargs)

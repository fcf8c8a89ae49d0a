"""Ragged tensors to and from dense and sparse tensors: ``from_tensor``, ``from_sparse``, ``to_tensor``,
``to_sparse``, ``bounding_shape`` and ``merge_dims``, written in tapeflow ops (the dense form is a scatter of the
flat values at their (row, position ...) indices, so its gradient reaches them)."""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core.dispatch import execute
from .._core.indexed_slices import IndexedSlices
from .._core.registry import ALL, defop
from .._core.state import STATE
from .._core.tensor import Tensor, constant_of
from ._convert import to_tensor
from .array_ops import broadcast_to, cast, reshape, stack, where, zeros_like
from .array_ops import range as _range
from .array_ops import shape as _shape
from .gather_ops import boolean_mask, gather
from .manip_ops import concat
from .math_ops import logical_not, maximum, minimum, not_equal
from .reduction_ops import reduce_all, reduce_max, reduce_sum
from .scatter_ops import gather_nd
from .sparse_ops import SparseTensor

__all__ = ["from_tensor", "from_sparse", "dense", "to_sparse", "bounding_shape", "merge_dims", "rows_of",
           "outer_dims"]


def outer_dims(x):
    """The sizes of ``x``'s dimensions for :func:`rows_of`: the static ones as ints, the unknown ones (inside a
    traced function) as scalar ops of ``tf.shape``."""
    dims = x.shape.as_list()
    if None not in dims:
        return dims
    dynamic = _shape(x, out_type=_dtypes.int64)
    return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]


def rows_of(values, row_splits, outer_shape):
    """The flat ``values`` cut into rows by ``row_splits``, one row per element of a tensor of ``outer_shape``: a
    ragged tensor whose outer dimensions are ``outer_shape`` (uniform) and whose last is ragged; for a scalar
    ``outer_shape`` (one row), that row itself."""
    from .ragged_tensor import RaggedTensor  # noqa: PLC0415

    outer = list(outer_shape)
    if not outer:
        return values
    result = RaggedTensor.from_row_splits(values, row_splits, validate=False)
    for size in reversed(outer[1:]):
        result = RaggedTensor.from_uniform_row_length(result, cast(to_tensor(size), row_splits.dtype),
                                                      validate=False)
    return result


@defop("RaggedTensorToTensor", dtypes=ALL, same_dtype=False)
def RAGGED_TO_DENSE(values, index, dense_shape, default):
    """A tensor of ``dense_shape`` holding ``default``, with ``values[i]`` at ``index[i]``."""
    out = np.empty(tuple(int(d) for d in np.asarray(dense_shape)), np.asarray(values).dtype)
    out[...] = default
    if len(index):
        out[tuple(np.asarray(index).T)] = values
    return out


RAGGED_TO_DENSE.value_sized = {0: None}  # (its shape is its dense_shape input's value)


@RAGGED_TO_DENSE.defvjp
def _ragged_to_dense_grad(g, y, values, index, dense_shape, default):
    # As TF's: the values' gradient is the IndexedSlices of every value (the rows picked from ``g``), the default
    # value's what ``g`` holds where no value went.
    picked = gather_nd(g, index)
    n = values._value.shape[0]
    rows = IndexedSlices(picked, constant_of(np.arange(n, dtype=np.int32)),
                         constant_of(np.array(values._value.shape, np.int32)))
    rest = reduce_sum(g) - reduce_sum(picked) if default._value.ndim == 0 else None
    return rows, None, None, rest


def _row_positions(splits):
    from .ragged_tensor import RAGGED_ROW_POSITIONS  # noqa: PLC0415 - the class module imports this one lazily

    return execute(RAGGED_ROW_POSITIONS, (splits,))


def _known(static, dynamic):
    """A dimension's static size where the tensor's shape knows it (so the result's shape shows it), else its
    size as a tensor."""
    return dynamic if static is None else static


def from_tensor(cls, tensor, lengths, padding, ragged_rank, row_splits_dtype):
    """``RaggedTensor.from_tensor``."""
    tensor = to_tensor(tensor)
    splits_dtype = _dtypes.as_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if ragged_rank > 1:  # the inner dimensions first, on the rows flattened one level
        shape = _shape(tensor, out_type=splits_dtype)
        inner = from_tensor(cls, reshape(tensor, [-1] + tensor.shape.as_list()[2:]), None, padding,
                            ragged_rank - 1, splits_dtype)
        return cls.from_uniform_row_length(inner, _known(tensor.shape[1], shape[1]), nrows=shape[0], validate=False)
    shape = _shape(tensor, out_type=splits_dtype)
    nrows, ncols = shape[0], shape[1]
    flat = reshape(tensor, [-1] + tensor.shape.as_list()[2:])
    if lengths is None and padding is None:
        return cls.from_uniform_row_length(flat, _known(tensor.shape[1], ncols), nrows=nrows, validate=False)
    if padding is not None:
        pad = cast(to_tensor(padding), tensor.dtype)
        differs = not_equal(tensor, pad)
        if tensor.shape.rank > 2:  # an inner element is padding when all of it is
            differs = logical_not(reduce_all(logical_not(differs), axis=list(range(2, tensor.shape.rank))))
        # a row's length: one past its last value that is not padding (0 for a row of padding only)
        positions = broadcast_to(cast(_range(ncols), splits_dtype) + 1, shape[:2])
        lengths = reduce_max(where(differs, positions, zeros_like(positions)), axis=1)
    lengths = minimum(cast(to_tensor(lengths), splits_dtype), ncols)
    columns = cast(_range(ncols), splits_dtype)
    keep = reshape(columns[None, :] < lengths[:, None], [-1])
    return cls.from_row_lengths(boolean_mask(flat, keep), lengths, validate=False)


def from_sparse(cls, st, row_splits_dtype):
    """``RaggedTensor.from_sparse``: rows of a 2-D sparse tensor in row-major order."""
    if st.dense_shape.shape[0] != 2:
        raise ValueError("rank(st_input) must be 2.")
    rows = cast(st.indices[:, 0], _dtypes.int32)
    from .counting_ops import bincount  # noqa: PLC0415

    n = cast(st.dense_shape[0], _dtypes.int32)
    lengths = bincount(rows, minlength=n, maxlength=n, dtype=_dtypes.as_dtype(row_splits_dtype))
    return cls.from_row_lengths(st.values, lengths, validate=False)


def _indices(rt):
    """Each flat value's index in the dense form: ``[nvals, ragged_rank + 1]``, and the dense shape's ragged
    part (``[nrows, longest row, ...]``)."""
    splits = rt.nested_row_splits
    rows, pos = _row_positions(splits[0])
    index = [rows, pos]
    sizes = [rt.nrows(out_type=_dtypes.int64), _longest(splits[0])]
    for inner in splits[1:]:
        inner_rows, inner_pos = _row_positions(inner)
        index = [gather(c, inner_rows) for c in index] + [inner_pos]
        sizes.append(_longest(inner))
    return stack([cast(c, _dtypes.int64) for c in index], axis=1), sizes


def _longest(splits):
    lengths = cast(splits[1:] - splits[:-1], _dtypes.int64)
    return reduce_max(concat([lengths, cast(to_tensor([0]), _dtypes.int64)], 0))


def bounding_shape(rt, axis, out_type):
    """``RaggedTensor.bounding_shape``."""
    _, sizes = _indices(rt)
    inner = cast(_shape(rt.flat_values)[1:], _dtypes.int64)
    shape = concat([stack(sizes), inner], 0)
    out_type = _dtypes.as_dtype(out_type) if out_type is not None else rt.row_splits_dtype
    shape = cast(shape, out_type)
    return shape if axis is None else gather(shape, axis)


def dense(rt, default_value, shape):
    """``RaggedTensor.to_tensor``: the values scattered into a tensor of the bounding shape (or ``shape``) filled
    with ``default_value``."""
    flat = rt.flat_values
    index, sizes = _indices(rt)
    dense_shape = concat([stack(sizes), cast(_shape(flat)[1:], _dtypes.int64)], 0)
    values = flat
    if shape is not None:
        wanted = [None if d is None else int(d) for d in (shape.as_list() if hasattr(shape, "as_list")
                                                          else list(shape))]
        dims = [dense_shape[k] if d is None else cast(to_tensor(d), _dtypes.int64) for k, d in enumerate(wanted)]
        dense_shape = stack(dims)
        k = index.shape[1]
        inside = reduce_all(index < dense_shape[None, :k], axis=1)
        index, values = boolean_mask(index, inside), boolean_mask(flat, inside)
        if flat.shape.rank > 1:  # uniform inner dimensions cut or padded too
            from .pad_ops import pad  # noqa: PLC0415

            values = values[(slice(None),) + tuple(slice(0, w) for w in wanted[k:])]
            grow = [[0, 0]] + [[0, maximum(cast(to_tensor(w), _dtypes.int64) - values.shape[j + 1], 0)]
                               for j, w in enumerate(wanted[k:])]
            values = pad(values, grow, constant_values=0 if default_value is None else default_value)
    default = cast(to_tensor(0 if default_value is None else default_value), flat.dtype)
    out = execute(RAGGED_TO_DENSE, (values, index, cast(dense_shape, _dtypes.int64), default))
    tracer = STATE.tracer
    if tracer is not None:
        # In a traced function the sizes the values give are not fixed: the ragged dimensions (and the rows, where
        # unknown) show as None, as in TF, unless ``shape`` fixes them.
        dims = rt.shape.as_list()
        if shape is not None:
            dims = [d if w is None else w for d, w in zip(dims, wanted)]
        if None in dims:
            tracer.static_shapes[out._id] = tuple(dims)
    return out


def to_sparse(rt):
    """``RaggedTensor.to_sparse``."""
    index, sizes = _indices(rt)
    flat = rt.flat_values
    if flat.shape.rank > 1:
        raise ValueError("to_sparse of a ragged tensor with uniform inner dimensions is not supported here")
    return SparseTensor(index, flat, stack(sizes))


def merge_dims(rt, outer_axis, inner_axis):
    """``RaggedTensor.merge_dims``: dimensions ``outer_axis`` to ``inner_axis`` made one."""
    rank = rt.shape.rank
    outer = outer_axis + rank if outer_axis < 0 else outer_axis
    inner = inner_axis + rank if inner_axis < 0 else inner_axis
    if not 0 <= outer <= inner < rank:
        raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                         f"({inner_axis})")
    if outer == inner:
        return rt
    if outer == 1:  # each row's dimensions 1..inner made one: the partitions below composed into one
        splits, values = rt.row_splits, rt.values
        for _ in range(inner - 1):
            if isinstance(values, Tensor):  # a uniform dimension: its rows run on in the values
                size = values.shape[1]
                values = reshape(values, [-1] + values.shape.as_list()[2:])
                splits = splits * cast(size, splits.dtype)
            else:
                splits = gather(values.row_splits, splits)
                values = values.values
        return type(rt).from_row_splits(values, splits, validate=False)
    if outer == 0:  # everything down to ``inner`` flattened: the values below those partitions
        result = rt
        for _ in range(min(inner, rt.ragged_rank)):
            result = result.values
        if isinstance(result, Tensor) and inner > rt.ragged_rank:
            extra = inner - rt.ragged_rank
            result = reshape(result, [-1] + result.shape.as_list()[extra + 1:])
        return result
    return rt.with_values(merge_dims(rt.values, outer - 1, inner - 1))


"""Composite components of dataset elements (``SparseTensor``, ``RaggedTensor``): slicing, batching and
unbatching them, their specs.

A composite component stays one leaf of the element, its spec a ``tf.SparseTensorSpec`` or ``tf.RaggedTensorSpec``,
as in TF.

- Sparse: rows are cut and joined on NumPy copies of its three parts. ``from_tensor_slices`` and ``unbatch`` give
  row ``i`` (the entries whose first index is ``i``, without that index, in the remaining dense shape); ``batch``
  prefixes each element's entries with its position and takes, dimension by dimension, the largest dense shape.
- Ragged: a row of a ragged tensor of ragged rank 1 is a dense tensor (its spec a ``RaggedTensorSpec`` of ragged
  rank 0, as TF keeps it), of a higher ragged rank a ragged tensor; ``batch`` (and ``ragged_batch`` for dense
  elements) stacks rows under a new ragged dimension: their flat values and each level's row lengths joined.
"""

from __future__ import annotations

import numpy as np

from .._core.shape import TensorShape
from .._core.tensor import Tensor, convert_to_tensor, wrap
from ..ops.manip_ops import concat
from ..ops.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..ops.sparse_ops import SparseTensor, SparseTensorSpec

__all__ = ["is_composite", "is_composite_spec", "is_sparse", "is_sparse_spec", "first_dim", "rows", "batch",
           "sliced_spec", "batched_spec", "unknown_sizes", "dummy", "numpy_value", "ragged_rows_spec"]


def is_sparse(value):
    return isinstance(value, SparseTensor)


def is_sparse_spec(spec):
    return isinstance(spec, SparseTensorSpec)


def is_composite(value):
    return isinstance(value, (SparseTensor, RaggedTensor))


def is_composite_spec(spec):
    return isinstance(spec, (SparseTensorSpec, RaggedTensorSpec))


def _parts(st):
    return np.asarray(st.indices._value), st.values._value, np.asarray(st.dense_shape._value)


def _sparse(indices, values, shape):
    return SparseTensor(wrap(np.ascontiguousarray(indices, np.int64)), convert_to_tensor(values),
                        wrap(np.asarray(shape, np.int64)))


def first_dim(value):
    """The number of rows of a composite component."""
    if isinstance(value, RaggedTensor):
        return int(np.asarray(value.nrows()._value))
    if value.dense_shape._value.shape[0] == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    return int(value.dense_shape._value[0])


def rows(value):
    """Row ``i`` of a composite component for every ``i``: a sparse tensor of one dimension less, or a ragged
    tensor's row (dense for ragged rank 1)."""
    if isinstance(value, RaggedTensor):
        yield from _ragged_rows(value)
        return
    indices, values, shape = _parts(value)
    order = np.argsort(indices[:, 0], kind="stable") if len(indices) else np.zeros(0, np.int64)
    indices, values = indices[order], values[order]
    bounds = np.searchsorted(indices[:, 0], np.arange(int(shape[0]) + 1)) if len(indices) else \
        np.zeros(int(shape[0]) + 1, np.int64)
    for i in range(int(shape[0])):
        lo, hi = bounds[i], bounds[i + 1]
        yield _sparse(indices[lo:hi, 1:], values[lo:hi], shape[1:])


def _ragged_rows(rt):
    splits = np.asarray(rt.row_splits._value)
    values = rt.values
    dense = isinstance(values, Tensor)
    array = np.asarray(values._value) if dense else None
    for i in range(len(splits) - 1):
        if dense:  # a dense row straight from the values (no op per element)
            yield convert_to_tensor(array[splits[i]:splits[i + 1]], dtype=values.dtype)
        else:
            yield rt[i]


def batch(elements, spec):
    """The components ``elements`` of a batch (of spec ``spec``) joined under a new first dimension."""
    if isinstance(spec, RaggedTensorSpec) or isinstance(elements[0], RaggedTensor):
        return _stack_ragged(elements, spec.row_splits_dtype if isinstance(spec, RaggedTensorSpec) else None)
    parts = [_parts(st) for st in elements]
    shape = np.max(np.stack([p[2] for p in parts]), axis=0) if parts else np.zeros(0, np.int64)
    indices = [np.concatenate([np.full((len(p[0]), 1), k, np.int64), p[0]], axis=1) for k, p in enumerate(parts)]
    values = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    rank = len(shape)
    return _sparse(np.concatenate(indices) if indices else np.zeros((0, rank + 1)), values,
                   np.concatenate([[len(parts)], shape]))


def _stack_ragged(elements, splits_dtype):
    """Rows (dense tensors, or ragged tensors of one ragged rank) as one ragged tensor, a row each."""
    from .._core import dtypes  # noqa: PLC0415

    splits_dtype = splits_dtype or dtypes.int64
    outer = np.asarray([first_dim(e) if isinstance(e, RaggedTensor) else e._value.shape[0] for e in elements],
                       np.int64)
    if all(isinstance(e, RaggedTensor) for e in elements):
        flat = concat([e.flat_values for e in elements], 0)
        levels = [concat([e.nested_row_lengths()[k] for e in elements], 0) for k in range(elements[0].ragged_rank)]
    else:
        flat, levels = concat(list(elements), 0), []
    lengths = [convert_to_tensor(outer, splits_dtype)] + [convert_to_tensor(np.asarray(v._value), splits_dtype)
                                                          for v in levels]
    return RaggedTensor.from_nested_row_lengths(flat, lengths, validate=False)


def ragged_rows_spec(spec, lead, splits_dtype):
    """The spec of ``ragged_batch``: a dense component's rows under a new ragged dimension."""
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(TensorShape([lead]).concatenate(spec.shape), spec.dtype, spec.ragged_rank + 1,
                                spec.row_splits_dtype)
    return RaggedTensorSpec(TensorShape([lead, None]).concatenate(spec.shape[1:]) if spec.shape.rank else
                            TensorShape([lead]), spec.dtype, 1 if spec.shape.rank else 0, splits_dtype)


def sliced_spec(spec):
    """The spec of one row of a composite component of ``spec``."""
    dims = spec.shape.dims
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(None if dims is None else dims[1:], spec.dtype, max(spec.ragged_rank - 1, 0),
                                spec.row_splits_dtype)
    return SparseTensorSpec(None if dims is None else dims[1:], spec.dtype)


def batched_spec(spec, lead):
    """The spec of a batch of ``lead`` (``None``: unknown) composite components of ``spec``."""
    shape = TensorShape([lead]).concatenate(spec.shape)
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(shape, spec.dtype, spec.ragged_rank + 1, spec.row_splits_dtype)
    return SparseTensorSpec(shape, spec.dtype)


def unknown_sizes(spec):
    """A sparse spec with its sizes unknown (its rank kept); any other spec as it is."""
    if not is_sparse_spec(spec) or spec.shape.rank is None:
        return spec
    return SparseTensorSpec([None] * spec.shape.rank, spec.dtype)


def dummy(spec, unknown):
    """A composite component fitting ``spec`` to probe a function with (unknown dimensions ``unknown``)."""
    dims = [] if spec.shape.rank is None else [unknown if d is None else d for d in spec.shape.dims]
    if isinstance(spec, RaggedTensorSpec):
        if spec.ragged_rank == 0:
            return convert_to_tensor(np.zeros(dims, spec.dtype.as_numpy_dtype))
        return RaggedTensor._stand_in(spec)
    return _sparse(np.zeros((0, len(dims)), np.int64), np.zeros(0, spec.dtype.as_numpy_dtype), dims)


def numpy_value(value):
    """What ``as_numpy_iterator`` gives for a composite component in TF 2.21: a sparse tensor's dense value, a
    ragged tensor's rows (``RaggedTensor.numpy``)."""
    if isinstance(value, RaggedTensor):
        return value.numpy()
    indices, values, shape = _parts(value)
    out = np.zeros(tuple(int(d) for d in shape), values.dtype)
    if len(indices):
        out[tuple(indices.T)] = values
    return out

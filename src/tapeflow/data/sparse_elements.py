"""``SparseTensor`` components of dataset elements: slicing, batching and unbatching them, their specs.

A sparse component stays one leaf of the element (its spec a ``tf.SparseTensorSpec``), as in TF. Its rows are
cut and joined on NumPy copies of its three parts: ``from_tensor_slices`` and ``unbatch`` give row ``i`` (the
entries whose first index is ``i``, without that index, in the remaining dense shape); ``batch`` prefixes each
element's entries with its position and takes, dimension by dimension, the largest dense shape of the batch.
"""

from __future__ import annotations

import numpy as np

from .._core.shape import TensorShape
from .._core.tensor import convert_to_tensor, wrap
from ..ops.sparse_ops import SparseTensor, SparseTensorSpec

__all__ = ["is_sparse", "is_sparse_spec", "first_dim", "rows", "batch", "sliced_spec", "batched_spec",
           "unknown_sizes", "dummy", "numpy_value"]


def is_sparse(value):
    return isinstance(value, SparseTensor)


def is_sparse_spec(spec):
    return isinstance(spec, SparseTensorSpec)


def _parts(st):
    return np.asarray(st.indices._value), st.values._value, np.asarray(st.dense_shape._value)


def _sparse(indices, values, shape):
    return SparseTensor(wrap(np.ascontiguousarray(indices, np.int64)), convert_to_tensor(values),
                        wrap(np.asarray(shape, np.int64)))


def first_dim(st):
    """The number of rows of ``st`` (its dense shape's first dimension)."""
    if st.dense_shape._value.shape[0] == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    return int(st.dense_shape._value[0])


def rows(st):
    """Row ``i`` of ``st`` for every ``i``, each a sparse tensor of one dimension less."""
    indices, values, shape = _parts(st)
    order = np.argsort(indices[:, 0], kind="stable") if len(indices) else np.zeros(0, np.int64)
    indices, values = indices[order], values[order]
    bounds = np.searchsorted(indices[:, 0], np.arange(int(shape[0]) + 1)) if len(indices) else \
        np.zeros(int(shape[0]) + 1, np.int64)
    for i in range(int(shape[0])):
        lo, hi = bounds[i], bounds[i + 1]
        yield _sparse(indices[lo:hi, 1:], values[lo:hi], shape[1:])


def batch(elements):
    """The sparse tensors ``elements`` (of one rank) as one, with a leading dimension over them."""
    parts = [_parts(st) for st in elements]
    shape = np.max(np.stack([p[2] for p in parts]), axis=0) if parts else np.zeros(0, np.int64)
    indices = [np.concatenate([np.full((len(p[0]), 1), k, np.int64), p[0]], axis=1) for k, p in enumerate(parts)]
    values = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    rank = len(shape)
    return _sparse(np.concatenate(indices) if indices else np.zeros((0, rank + 1)), values,
                   np.concatenate([[len(parts)], shape]))


def sliced_spec(spec):
    """The spec of one row of a sparse component of ``spec``."""
    dims = spec.shape.dims
    return SparseTensorSpec(None if dims is None else dims[1:], spec.dtype)


def batched_spec(spec, lead):
    """The spec of a batch of ``lead`` (``None``: unknown) sparse components of ``spec``."""
    return SparseTensorSpec(TensorShape([lead]).concatenate(spec.shape), spec.dtype)


def unknown_sizes(spec):
    """A sparse spec with its sizes unknown (its rank kept); any other spec as it is."""
    if not is_sparse_spec(spec) or spec.shape.rank is None:
        return spec
    return SparseTensorSpec([None] * spec.shape.rank, spec.dtype)


def dummy(spec, unknown):
    """A sparse tensor with no entries fitting ``spec`` (unknown dimensions set to ``unknown``)."""
    dims = [] if spec.shape.rank is None else [unknown if d is None else d for d in spec.shape.dims]
    return _sparse(np.zeros((0, len(dims)), np.int64), np.zeros(0, spec.dtype.as_numpy_dtype), dims)


def numpy_value(st):
    """What ``as_numpy_iterator`` gives for a sparse component in TF 2.21: its dense value."""
    indices, values, shape = _parts(st)
    out = np.zeros(tuple(int(d) for d in shape), values.dtype)
    if len(indices):
        out[tuple(indices.T)] = values
    return out

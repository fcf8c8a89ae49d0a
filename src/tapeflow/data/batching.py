"""Batching transformations: ``batch``, ``padded_batch``, ``unbatch`` and ``window``.

Components are stacked and split through NumPy (one array per component and batch), not tensor by tensor.
"""

from __future__ import annotations

import collections

import numpy as np

from .._core import errors
from .._core.dtypes import string
from .._core.shape import TensorShape
from .._core.tensor import convert_to_tensor, wrap
from . import composite_elements as composite
from . import spec as _spec
from .dataset import INFINITE, UNKNOWN, KernelError, _op_error, _scalar, _Unary, _VariantDataset


def _stack(tensors, component, dtype, fused):
    """The batch of ``tensors`` (one component of each element) as one tensor.

    ``fused``: the batch follows a ``map``, which TF's default optimizations fuse into one kernel
    (``MapAndBatch``) that copies elements by their number of values: its error differs, and elements of one
    size but different shapes are taken in the first element's shape."""
    arrays = [t._value for t in tensors]
    first_dims = np.shape(arrays[0])
    if all(np.shape(a) == first_dims for a in arrays):  # the usual case, without a TensorShape per element
        arr = np.stack(arrays)
        return convert_to_tensor(arr, dtype=string) if dtype == string else wrap(arr)
    first = tensors[0].shape
    for i, t in enumerate(tensors[1:], 1):
        if t.shape.dims == first.dims:
            continue
        if not fused:
            raise KernelError(errors.InvalidArgumentError,
                              f"Cannot batch tensors with different shapes in component {component}. First "
                              f"element had shape {_dims_text(first)} and element {i} had shape "
                              f"{_dims_text(t.shape)}.")
        if t.shape.num_elements() != first.num_elements():
            raise KernelError(errors.InvalidArgumentError,
                              f"Cannot add tensor to the batch: number of elements does not match. Shapes are: "
                              f"[tensor]: {_dims_text(first)}, [batch]: {_dims_text(t.shape)}")
        arrays[i] = np.reshape(arrays[i], first.dims)
    arr = np.stack(arrays)
    return convert_to_tensor(arr, dtype=string) if dtype == string else convert_to_tensor(arr)


def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape.dims) + "]"


def _batch_card(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


class _BatchDataset(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._size = int(_scalar(batch_size))
        if self._size <= 0:
            raise _op_error(errors.InvalidArgumentError, "BatchDatasetV2", "Batch size must be greater than zero.")
        self._drop = bool(_scalar(drop_remainder))
        lead = self._size if self._drop else None
        super().__init__(input_dataset, _spec.map_structure(
            lambda s: composite.batched_spec(s, lead) if composite.is_composite_spec(s) else
            _spec.TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype), input_dataset.element_spec))

    def _cardinality(self):
        return _batch_card(self._input._cardinality(), self._size, self._drop)

    def _elements(self):
        batch = []
        for element in self._input._elements():
            batch.append(_spec.flatten(element))
            if len(batch) == self._size:
                yield self._make(batch)
                batch = []
        if batch and not self._drop:
            yield self._make(batch)

    def _make(self, batch):
        """One batch from the flattened elements ``batch``."""
        spec = self._input.element_spec
        fused = getattr(type(self._input), "_FUSES_WITH_BATCH", False)
        return _spec.pack(spec, [composite.batch([b[c] for b in batch], s) if composite.is_composite_spec(s) else
                                 _stack([b[c] for b in batch], c, s.dtype, fused)
                                 for c, s in enumerate(_spec.flatten(spec))])


class _RaggedBatchDataset(_BatchDataset):
    """``ragged_batch``: dense components batched into ragged tensors (one row each), composite ones batched."""

    _TF_NAME = "_BatchDataset"  # (TF maps each element to a ragged one, then batches)

    def __init__(self, input_dataset, batch_size, drop_remainder, row_splits_dtype):
        from .._core import dtypes  # noqa: PLC0415

        self._splits_dtype = dtypes.as_dtype(row_splits_dtype)
        super().__init__(input_dataset, batch_size, drop_remainder)
        lead = self._size if self._drop else None
        self._element_spec = _spec.map_structure(
            lambda s: composite.batched_spec(s, lead) if composite.is_sparse_spec(s) else
            composite.ragged_rows_spec(s, lead, self._splits_dtype), input_dataset.element_spec)

    def _make(self, batch):
        spec = self.element_spec
        return _spec.pack(spec, [composite.batch([b[c] for b in batch], s)
                                 for c, s in enumerate(_spec.flatten(spec))])


class _PaddedBatchDataset(_BatchDataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        for s in _spec.flatten(spec):
            if composite.is_composite_spec(s):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce tensor elements but "
                                f"type spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{s!r}`.")
        self._shapes = (_spec.map_structure(lambda s: s.shape, spec) if padded_shapes is None
                        else _spec.pack(spec, [TensorShape(s) for s in _flat_like(spec, padded_shapes)]))
        self._pads = (_spec.map_structure(lambda s: None, spec) if padding_values is None
                      else _spec.pack(spec, _flat_like(spec, padding_values)))
        for shape, s in zip(_spec.flatten(self._shapes) if isinstance(spec, (tuple, dict)) else [self._shapes],
                            _spec.flatten(spec)):
            if not shape.is_compatible_with(s.shape):
                raise ValueError(f"The padded shape {shape} is not compatible with the shape {s.shape} of the "
                                 f"corresponding input component.")
        super().__init__(input_dataset, batch_size, drop_remainder)
        lead = self._size if self._drop else None
        self._element_spec = _spec.map_structure(
            lambda s, shape: _spec.TensorSpec(TensorShape([lead]).concatenate(shape), s.dtype), spec, self._shapes)

    def _make(self, batch):
        spec = self._input.element_spec
        nested = isinstance(spec, (tuple, dict))
        shapes = _spec.flatten(self._shapes) if nested else [self._shapes]
        pads = _spec.flatten(self._pads) if nested else [self._pads]
        return _spec.pack(spec, [self._pad([b[c] for b in batch], s, shapes[c], pads[c])
                                 for c, s in enumerate(_spec.flatten(spec))])

    @staticmethod
    def _pad(tensors, s, shape, pad):
        arrays = [np.asarray(t.numpy()) for t in tensors]
        rank = arrays[0].ndim
        target = [max(a.shape[k] for a in arrays) if shape.rank is None or shape.dims[k] is None
                  else shape.dims[k] for k in range(rank)]
        if pad is None:
            fill = b"" if s.dtype == string else 0
        else:
            fill = _scalar(pad)
        np_dtype = object if s.dtype == string else s.dtype.as_numpy_dtype
        out = np.full([len(arrays)] + target, fill, dtype=np_dtype)
        for i, a in enumerate(arrays):
            if any(d > t for d, t in zip(a.shape, target)):
                raise KernelError(errors.DataLossError,
                                  "Attempted to pad to a smaller size than the input element.")
            out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
        return convert_to_tensor(out, dtype=string) if s.dtype == string else convert_to_tensor(out)


def _flat_like(spec, value):
    if isinstance(spec, (tuple, dict)):
        return _spec.flatten(value) if not isinstance(value, list) else value
    return [value]


class _UnbatchDataset(_Unary):
    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        for s in _spec.flatten(spec):
            if s.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        known = [s.shape.dims[0] for s in _spec.flatten(spec) if s.shape.rank and s.shape.dims[0] is not None]
        if len(set(known)) > 1:
            raise ValueError(f"`unbatch()` is only supported for datasets of elements whose components have a "
                             f"matching leading dimension. Encountered both {known[0]} and "
                             f"{next(d for d in known if d != known[0])}.")
        super().__init__(input_dataset, _spec.map_structure(
            lambda s: composite.sliced_spec(s) if composite.is_composite_spec(s) else
            _spec.TensorSpec(s.shape[1:] if s.shape.rank is not None else None, s.dtype), spec))

    def _cardinality(self):
        n = self._input._cardinality()
        firsts = {None if s.shape.rank is None else s.shape.dims[0]
                  for s in _spec.flatten(self._input.element_spec)}
        if n >= 0 and len(firsts) == 1 and None not in firsts:  # every element splits into the same number
            return n * firsts.pop()
        return INFINITE if n == INFINITE else UNKNOWN

    def _elements(self):
        spec = self.element_spec
        for element in self._input._elements():
            leaves = _spec.flatten(element)
            arrays = [None if composite.is_composite(t) else np.asarray(t.numpy()) for t in leaves]
            sizes = [composite.first_dim(t) if a is None else a.shape[0] for t, a in zip(leaves, arrays)]
            n = sizes[0]
            for k, size in enumerate(sizes):
                if size != n:
                    raise KernelError(errors.InvalidArgumentError,
                                      f"Input element must have the same batch size in each component. Component 0 "
                                      f"had size {n} but component {k} had size {size}.")
            split = [composite.rows(t) if a is None else None for t, a in zip(leaves, arrays)]
            for i in range(n):
                yield _spec.pack(spec, [next(r) if r is not None else convert_to_tensor(a[i], dtype=t.dtype)
                                        for a, t, r in zip(arrays, leaves, split)])


class _WindowDataset(_Unary):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size = int(_scalar(size))
        self._shift = self._size if shift is None else int(_scalar(shift))
        self._stride = int(_scalar(stride))
        for what, value in (("size", self._size), ("shift", self._shift), ("stride", self._stride)):
            if value <= 0:
                raise _op_error(errors.InvalidArgumentError, "WindowDataset",
                                f"Window {what} must be greater than zero.")
        self._drop = bool(_scalar(drop_remainder))
        super().__init__(input_dataset, _spec.map_structure(lambda s: _spec.DatasetSpec(s),
                                                            input_dataset.element_spec))

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _elements(self):
        spec = self._input.element_spec
        leaves_spec = _spec.flatten(spec)
        span = (self._size - 1) * self._stride + 1
        buf = collections.deque()
        it = self._input._elements()
        done = False
        while True:
            while not done and len(buf) < span:
                try:
                    buf.append(next(it))
                except StopIteration:
                    done = True
            if not buf:
                return
            window = list(buf)[::self._stride][:self._size]
            if len(window) < self._size and self._drop:
                return
            flat = [_spec.flatten(e) for e in window]
            yield _spec.pack(spec, [_VariantDataset([f[c] for f in flat], s) for c, s in enumerate(leaves_spec)])
            for _ in range(self._shift):
                if buf:
                    buf.popleft()
                elif not done:
                    try:
                        next(it)
                    except StopIteration:
                        done = True

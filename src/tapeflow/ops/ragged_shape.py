"""The shape of a ragged tensor: ``tf.experimental.DynamicRaggedShape`` (what ``tf.shape`` gives for one) and the
``tf.experimental.RowPartition`` objects it holds, one per ragged dimension.

A dynamic ragged shape is its row partitions (the row splits of each ragged dimension, outermost first) and its
``inner_shape`` (the dense shape of the flat values). Its ``lengths`` are the number of rows, then for each ragged
dimension the tuple of its row lengths, then the uniform inner sizes.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core.exports import export
from . import _ragged_dispatch
from ._convert import to_tensor
from .array_ops import cast, reshape
from .array_ops import shape as _shape

__all__ = ["DynamicRaggedShape", "RowPartition", "shape_of_ragged"]


@export("experimental.RowPartition")
class RowPartition:
    """How one ragged dimension cuts its values into rows: its ``row_splits`` (``tf.experimental.RowPartition``)."""

    def __init__(self, row_splits, internal=False):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the factory methods "
                             "instead (e.g., RowPartition.from_row_lengths())")
        self._row_splits = row_splits

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None):
        splits = to_tensor(row_splits, _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.int64)
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None):
        lengths = np.asarray(to_tensor(row_lengths)._value)
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return cls.from_row_splits(splits, validate, dtype)

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        return self._row_splits[1:] - self._row_splits[:-1]

    def nrows(self):
        return _shape(self._row_splits, out_type=self._row_splits.dtype)[0] - 1

    @property
    def dtype(self):
        return self._row_splits.dtype

    def __repr__(self):
        return f"tf.RowPartition(row_splits={np.asarray(self._row_splits._value)})"


@export("experimental.DynamicRaggedShape")
class DynamicRaggedShape:
    """The shape of a ragged (or dense) tensor: its row partitions and the shape of its flat values
    (``tf.experimental.DynamicRaggedShape``)."""

    _tapeflow_ragged_shape = True

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True, static_inner_shape=None):
        self._row_partitions = tuple(row_partitions)
        inner = to_tensor(inner_shape, _dtypes.int64) if not hasattr(inner_shape, "_value") else inner_shape
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else (
            self._row_partitions[0].dtype if self._row_partitions else inner.dtype)
        self._inner_shape = cast(inner, self._dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of ``t``: a ragged tensor's partitions and flat values' shape, or a dense tensor's shape."""
        if getattr(t, "_tapeflow_ragged", False):
            return shape_of_ragged(t, dtype)
        t = to_tensor(t)
        return cls((), _shape(t, out_type=_dtypes.int64), dtype=dtype or _dtypes.int64)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=_dtypes.int64):
        """The shape of ``lengths``: ints for uniform dimensions, tuples of row lengths for ragged ones."""
        lengths = list(lengths)
        # The dimensions up to the last ragged one (or ``num_row_partitions``) are row partitions; the uniform
        # ones after it are the flat values' inner shape.
        last = max((i for i, n in enumerate(lengths) if isinstance(n, (tuple, list))), default=0)
        if num_row_partitions is not None:
            last = max(last, int(num_row_partitions))
        partitions, total = [], int(lengths[0]) if lengths else 0
        for length in lengths[1:last + 1]:
            if isinstance(length, (tuple, list)):
                partitions.append(RowPartition.from_row_lengths(list(length), dtype=dtype))
                total = int(np.sum(length))
            else:
                partitions.append(RowPartition.from_row_splits(np.arange(total + 1) * int(length), dtype=dtype))
                total *= int(length)
        inner = [total] + [int(n) for n in lengths[last + 1:]] if partitions else [int(n) for n in lengths]
        return cls(partitions, np.asarray(inner, np.int64), dtype=dtype)

    @property
    def row_partitions(self):
        return self._row_partitions

    @property
    def inner_shape(self):
        return self._inner_shape

    @property
    def num_row_partitions(self):
        return len(self._row_partitions)

    @property
    def rank(self):
        return self.num_row_partitions + int(self._inner_shape.shape[0])

    @property
    def inner_rank(self):
        return int(self._inner_shape.shape[0])

    @property
    def dtype(self):
        return self._dtype

    def with_dtype(self, dtype):
        return DynamicRaggedShape(self._row_partitions, self._inner_shape, dtype=dtype)

    def static_lengths(self, ragged_lengths=True):
        """The lengths: the number of rows, each ragged dimension's row lengths (a tuple, or ``None``), the uniform
        inner sizes."""
        inner = np.asarray(self._inner_shape._value).tolist()
        if not self._row_partitions:
            return inner
        out = [int(np.asarray(self._row_partitions[0].nrows()._value))]
        for p in self._row_partitions:
            lengths = tuple(np.asarray(p.row_lengths()._value).tolist())
            out.append(lengths if ragged_lengths else None)
        return out + inner[1:]

    def is_uniform(self, axis):
        lengths = self.static_lengths()
        return not isinstance(lengths[axis], tuple)

    def __getitem__(self, index):
        lengths = self.static_lengths()
        if isinstance(index, slice):
            return self._sliced(index, lengths)
        index = int(index)
        if isinstance(lengths[index], tuple):
            raise ValueError(f"Index {index} is not uniform")
        return cast(to_tensor(lengths[index]), self._dtype)

    def _sliced(self, index, lengths):
        """``shape[start:stop]``: a prefix keeps the partitions it covers; a slice from further in must hold only
        uniform dimensions (TF's rule)."""
        start, stop, step = index.indices(len(lengths))
        if step != 1:
            raise ValueError("Cannot slice a DynamicRaggedShape with a step")
        if start > 0:
            if any(isinstance(n, tuple) for n in lengths[start:stop]) or start <= self.num_row_partitions:
                raise ValueError("All relevant dimensions must be uniform")
            return DynamicRaggedShape((), np.asarray(lengths[start:stop], np.int64), dtype=self._dtype)
        k = max(stop, 0)
        if k <= self.num_row_partitions + 1:
            kept = self._row_partitions[:max(k - 1, 0)]
            if k == 0:
                return DynamicRaggedShape((), np.zeros([0], np.int64), dtype=self._dtype)
            nvals = kept[-1].row_splits()[-1] if kept else self._row_partitions[0].nrows() if \
                self._row_partitions else self._inner_shape[0]
            return DynamicRaggedShape(kept, reshape(cast(nvals, _dtypes.int64), [1]), dtype=self._dtype)
        inner = self._inner_shape[:k - self.num_row_partitions]
        return DynamicRaggedShape(self._row_partitions, inner, dtype=self._dtype)

    def __repr__(self):
        parts = [str(x) if not isinstance(x, tuple) else "(" + ", ".join(map(str, x)) + ")"
                 for x in self.static_lengths()]
        return f"<DynamicRaggedShape lengths=[{', '.join(parts)}] num_row_partitions={self.num_row_partitions}>"


@export("type_spec_from_value")
def type_spec_from_value(value):
    """The type spec of ``value``: a ``TensorSpec`` for a tensor, a ``SparseTensorSpec`` or ``RaggedTensorSpec``
    for a composite tensor (``tf.type_spec_from_value``)."""
    spec = getattr(value, "_type_spec", None)
    if spec is not None:
        return spec
    from .._core.tensor_spec import TensorSpec  # noqa: PLC0415

    t = to_tensor(value)
    return TensorSpec(t.shape, t.dtype)


def shape_of_ragged(rt, out_type=None):
    """``tf.shape`` of a ragged tensor: its ``DynamicRaggedShape`` (int32 by default, as ``tf.shape``)."""
    dtype = _dtypes.int32 if out_type is None else _dtypes.as_dtype(out_type)
    # (the partitions take the shape's dtype, as TF's: a ragged tensor made from the shape has int32 splits)
    partitions = [RowPartition(cast(s, dtype), internal=True) for s in rt.nested_row_splits]
    return DynamicRaggedShape(partitions, _shape(rt.flat_values, out_type=_dtypes.int64), dtype=dtype)


_ragged_dispatch.register(DynamicRaggedShape)  # (``tf.zeros``, ``tf.reshape`` ... take one)

"""``tf.IndexedSlices``: a sparse gradient, some rows (``indices``) of a dense tensor of shape ``dense_shape``.

Gathers give their ``params`` gradient in this form, so that a training step over a large embedding table touches
only the rows it read. Indices may repeat (nothing is deduplicated); densifying, with ``tf.convert_to_tensor``,
sums the rows of repeated indices. Like TensorFlow's, the class is a plain holder: it stores what it is given
without converting it, supports unary minus and nothing else arithmetic, and prints its three parts.

Densifying (``_tapeflow_to_tensor``) and joining several slices of one tensor (``_concat``, for the backward pass)
are ops: ``ops/gather_ops.py`` installs them on the class.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dtypes
from .exports import export
from .shape import TensorShape
from .tensor import Tensor

__all__ = ["IndexedSlices", "IndexedSlicesSpec"]


class IndexedSlices:
    """A sparse representation of a tensor: ``values`` are its rows at ``indices`` (``tf.IndexedSlices``).

    Args:
        values: the rows, shape ``[n] + dense_shape[1:]``.
        indices: a 1-D integer tensor of ``n`` row numbers (they may repeat; repeated rows add up).
        dense_shape: the shape of the dense tensor (optional; needed to densify).
    """

    _tapeflow_indexed_slices = True

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return self._values.device

    @property
    def name(self):
        return self._values.name

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def shape(self) -> TensorShape:
        """The dense shape as a ``TensorShape`` (unknown without ``dense_shape``)."""
        dense_shape = self._dense_shape
        if dense_shape is None:
            return TensorShape(None)
        if isinstance(dense_shape, Tensor):
            return TensorShape([int(d) for d in dense_shape._value])
        # TF reads the static value of a tensor only; a plain list fails in its shape inference.
        raise AttributeError(f"'{type(dense_shape).__name__}' object has no attribute 'get_shape'")

    def consumers(self):
        return []

    # --- a composite tensor (``nest.py``): a traced function takes and returns its tensors ----------------
    _tapeflow_composite = True

    def _components(self):
        parts = (self._values, self._indices)
        return parts if self._dense_shape is None else parts + (self._dense_shape,)

    def _from_components(self, components):
        """Slices of the same kind over ``components`` (taken as they are)."""
        return IndexedSlices(*components) if len(components) == 3 else IndexedSlices(components[0], components[1])

    def _component_shapes(self):
        inner = tuple(self._values._value.shape[1:])
        shapes = ((None,) + inner, (None,))
        return shapes if self._dense_shape is None else shapes + (tuple(self._dense_shape._value.shape),)

    def _spec(self):
        return IndexedSlicesSpec(self.shape, self.dtype, self._indices.dtype,
                                 None if self._dense_shape is None else self._dense_shape.dtype)

    _type_spec = property(_spec)

    def _static_spec(self, graph_constants, static_shape=None):
        """The spec a graph gives these slices: the dense shape where the graph fixes it, else unknown sizes."""
        known = None if self._dense_shape is None else graph_constants.get(self._dense_shape._id)
        if known is not None:
            shape = TensorShape([int(d) for d in known])
        elif self._dense_shape is None:
            shape = TensorShape(None)
        else:
            shape = TensorShape([None] * int(self._dense_shape._value.shape[0]))
        return IndexedSlicesSpec(shape, self.dtype, self._indices.dtype,
                                 None if self._dense_shape is None else self._dense_shape.dtype)

    @staticmethod
    def _stand_in(spec):
        """Slices of ``spec`` to trace a function on: one row, at index 0."""
        from .tensor import constant_of  # noqa: PLC0415 - tensor.py builds on this module's peers

        dims = [1 if d is None else d for d in (spec.shape.dims or [1])]
        values = constant_of(np.zeros([1] + dims[1:], spec.dtype.as_numpy_dtype))
        indices = constant_of(np.zeros([1], spec.indices_dtype.as_numpy_dtype))
        if spec.dense_shape_dtype is None:
            return IndexedSlices(values, indices)
        return IndexedSlices(values, indices, constant_of(np.asarray(dims, spec.dense_shape_dtype.as_numpy_dtype)))

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"


@export("IndexedSlicesSpec")
class IndexedSlicesSpec:
    """The type of an ``IndexedSlices``: the dense ``shape``, the values' ``dtype``, and the dtypes of its indices
    and dense shape (``tf.IndexedSlicesSpec``)."""

    def __init__(self, shape=None, dtype=_dtypes.float32, indices_dtype=_dtypes.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._indices_dtype = _dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape([None] if indices_shape is None else indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    indices_dtype = property(lambda self: self._indices_dtype)
    dense_shape_dtype = property(lambda self: self._dense_shape_dtype)
    value_type = property(lambda self: IndexedSlices)

    def _key(self):
        dims = None if self._shape.dims is None else tuple(self._shape.dims)
        return (dims, self._dtype, self._indices_dtype, self._dense_shape_dtype)

    def __eq__(self, other):
        return type(other) is IndexedSlicesSpec and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"IndexedSlicesSpec({self._shape!r}, {self._dtype!r}, {self._indices_dtype!r}, "
                f"{self._dense_shape_dtype!r}, {self._indices_shape!r})")

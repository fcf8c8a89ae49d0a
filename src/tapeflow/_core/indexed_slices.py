"""``tf.IndexedSlices``: a sparse gradient, some rows (``indices``) of a dense tensor of shape ``dense_shape``.

Gathers give their ``params`` gradient in this form, so that a training step over a large embedding table touches
only the rows it read. Indices may repeat (nothing is deduplicated); densifying, with ``tf.convert_to_tensor``,
sums the rows of repeated indices. Like TensorFlow's, the class is a plain holder: it stores what it is given
without converting it, supports unary minus and nothing else arithmetic, and prints its three parts.

Densifying (``_tapeflow_to_tensor``) and joining several slices of one tensor (``_concat``, for the backward pass)
are ops: ``ops/gather_ops.py`` installs them on the class.
"""

from __future__ import annotations

from .shape import TensorShape
from .tensor import Tensor

__all__ = ["IndexedSlices"]


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

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

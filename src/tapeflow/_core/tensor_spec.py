"""``tf.TensorSpec``: the type of a tensor (a possibly partial shape, a dtype, an optional name).

Datasets describe their elements with it (``element_spec``), ``from_generator`` takes it as ``output_signature``, and a
traced function's ``input_signature`` is made of it.
"""

from __future__ import annotations

from .dtypes import as_dtype, float32
from .shape import TensorShape
from .tensor import Tensor, convert_to_tensor

__all__ = ["TensorSpec", "relaxed_shape"]


class TensorSpec:
    """The type of a tensor: its (possibly partial) shape, dtype and an optional name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor``: its full shape and dtype."""
        tensor = convert_to_tensor(tensor)
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_value):
        """Whether a spec or a tensor fits this spec: same dtype, compatible shape."""
        if not isinstance(spec_or_value, TensorSpec):
            if not isinstance(spec_or_value, Tensor):
                try:
                    spec_or_value = convert_to_tensor(spec_or_value)
                except (TypeError, ValueError):
                    return False
            spec_or_value = TensorSpec(spec_or_value.shape, spec_or_value.dtype)
        return self._dtype == spec_or_value.dtype and self._shape.is_compatible_with(spec_or_value.shape)

    def most_specific_common_supertype(self, others):
        """The spec every one of ``others`` and this one fit (differing dimensions become ``None``), or None."""
        shape = self._shape
        for o in others:
            if not isinstance(o, TensorSpec) or o.dtype != self._dtype:
                return None
            shape = relaxed_shape(shape, o.shape)
        return TensorSpec(shape, self._dtype, self._name if all(o.name == self._name for o in others) else None)

    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype == other._dtype and self._name == other._name
                and self._shape.dims == other._shape.dims)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        dims = self._shape.dims
        return hash((None if dims is None else tuple(dims), self._dtype.name, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return TensorSpec, (self._shape.dims, self._dtype, self._name)


def relaxed_shape(a, b):
    """The most specific shape both ``a`` and ``b`` fit."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.dims, b.dims)])

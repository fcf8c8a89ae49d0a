"""``tf.TensorShape``: a possibly partially known shape."""

from __future__ import annotations

__all__ = ["TensorShape", "as_shape"]


class TensorShape:
    """The shape of a tensor: a tuple of ``int`` or ``None`` dimensions, or an unknown rank (``dims is None``)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (list, tuple)):
            self._dims = tuple(_dim(d) for d in dims)
        else:
            try:
                self._dims = tuple(_dim(d) for d in dims)
            except TypeError:
                self._dims = (_dim(dims),)

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank_at_least(self, rank):
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def _tapeflow_to_tensor(self, dtype=None):
        """``tf.convert_to_tensor(shape)``: the dimensions as int32 (int64 on request); only a fully known shape
        converts, as in TF."""
        from .dtypes import int32, int64
        from .tensor import constant

        if self._dims is None or None in self._dims:
            raise ValueError(f"Cannot convert a partially known TensorShape {self} to a Tensor.")
        if dtype is not None and dtype not in (int32, int64):
            raise TypeError(f"Cannot convert TensorShape {self} to dtype {dtype}. Allowed dtypes are tf.int32 and "
                            "tf.int64.")
        return constant(list(self._dims), dtype or int32)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a Dimension-like object
        d = d.value
    try:
        return int(d.__index__())
    except AttributeError:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                        f"'{d!r}' with type '{type(d)!r}'") from None


def as_shape(shape) -> TensorShape:
    """``shape`` as a :class:`TensorShape` (lists, tuples, ints, None and TensorShapes are accepted)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)

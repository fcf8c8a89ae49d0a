"""``tf.RaggedTensor``: a tensor whose rows have different lengths, stored as TensorFlow stores it.

A ragged tensor is its ``values`` (a tensor, or a ragged tensor for several ragged dimensions) cut into rows by
``row_splits`` (row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``). Its ``flat_values`` hold every value;
its ``nested_row_splits`` one partition per ragged dimension. Everything derived from it (dense form, row lengths,
slices, reductions in ``ragged_ops.py``) is computed with tapeflow ops over those tensors, so gradients reach
``flat_values`` and traced functions compute each call's partition. Index work that has no TF-level op of its own
is the op ``RaggedRowPositions`` (each value's row and position in its row).

As a composite tensor (``_core/nest.py``) its components are ``flat_values`` then the row splits, outermost
first, and its spec is a ``tf.RaggedTensorSpec``.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.shape import TensorShape
from .._core.state import STATE
from .._core.tensor import Tensor
from . import _ragged_dispatch
from ._convert import to_tensor
from .array_ops import cast, reshape
from .array_ops import shape as _shape
from .assert_ops import assert_equal, assert_non_negative
from .manip_ops import concat
from .reduction_ops import cumsum

__all__ = ["RaggedTensor", "RaggedTensorSpec", "RAGGED_ROW_POSITIONS"]

_PRIVATE = ("RaggedTensor constructor is private; please use one of the factory methods instead (e.g., "
            "RaggedTensor.from_row_lengths())")


@defop("RaggedRowPositions", num_outputs=2, same_dtype=False)
def RAGGED_ROW_POSITIONS(row_splits):
    """For each value of a ragged dimension cut by ``row_splits``: its row, and its position in that row."""
    splits = np.asarray(row_splits).astype(np.int64)
    lengths = np.diff(splits)
    rows = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    return rows, np.arange(len(rows), dtype=np.int64) - splits[:-1][rows] if len(rows) else rows


RAGGED_ROW_POSITIONS.value_sized = {0: (0,), 1: (0,)}  # (a trace leaves value-made sizes unknown)


def _splits_tensor(value, dtype=None):
    """Row splits (or lengths, ids ...) as an integer tensor: int64 from Python values, a tensor's own int32 or
    int64 otherwise."""
    if isinstance(value, Tensor):
        return value if value.dtype in (_dtypes.int32, _dtypes.int64) else cast(value, _dtypes.int64)
    try:
        return to_tensor(value, dtype or _dtypes.int64)
    except (TypeError, ValueError):  # a list holding int32 tensors: int64 is only a hint, as in TF
        return cast(to_tensor(value), dtype or _dtypes.int64)


def _values_of(values):
    return values if isinstance(values, RaggedTensor) else to_tensor(values)


def _static_int(value):
    """``value`` as a Python int where it is known when the tensor is built (a Python or NumPy int, or an eager
    tensor outside a trace), else ``None``."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Tensor) and STATE.tracer is None and value.shape.rank == 0:
        return int(np.asarray(value._value))
    return None


def _nvals(values, dtype):
    """The number of rows of ``values`` (its first dimension) as a scalar of the splits' dtype."""
    if isinstance(values, RaggedTensor):
        return cast(values.nrows(), dtype)
    return cast(_shape(values)[0], dtype)


@export("RaggedTensor")
class RaggedTensor:
    """A tensor with ragged dimensions: ``values`` cut into rows by ``row_splits`` (``tf.RaggedTensor``). Build
    one with ``tf.ragged.constant`` or a factory method (``from_row_lengths``, ``from_row_splits`` ...)."""

    _tapeflow_ragged = True
    _tapeflow_composite = True
    _uniform_row_length = None  # a Python int where every row has this known length (then it is in .shape)

    def __init__(self, values, row_partition, internal=False):
        if not internal:
            raise ValueError(_PRIVATE)
        self._values = values
        self._row_splits = row_partition

    # ------------------------------------------------------------------------------------------ factories

    @classmethod
    def _make(cls, values, row_splits, uniform_row_length=None):
        rt = cls(values, row_splits, internal=True)
        rt._uniform_row_length = uniform_row_length
        return rt

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``; ``row_splits`` starts at 0, never decreases and
        ends at the number of values."""
        values, splits = _values_of(values), _splits_tensor(row_splits)
        if validate:
            message = "Arguments to from_row_splits do not form a valid RaggedTensor:"
            assert_equal(splits[:1], cast(0, splits.dtype), message=message + "zero")
            assert_non_negative(splits[1:] - splits[:-1], message=message + "monotonic")
            _check_partition(values, splits)
        return cls._make(values, splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of ``row_lengths[i]`` values each, in order."""
        values, lengths = _values_of(values), _splits_tensor(row_lengths)
        if validate:
            assert_non_negative(lengths, message="Arguments to from_row_lengths do not form a valid "
                                                 "RowPartition")
        splits = concat([cast(to_tensor([0]), lengths.dtype), cumsum(lengths)], 0)
        if validate:
            _check_partition(values, splits)
        return cls._make(values, splits)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value ``j`` in row ``value_rowids[j]`` (ids never decrease); ``nrows`` rows (one past the last id by
        default), the rows without values empty."""
        values, ids = _values_of(values), _splits_tensor(value_rowids)
        if validate:
            assert_non_negative(ids[1:] - ids[:-1], message="Arguments to from_value_rowids do not form a valid "
                                                            "RowPartition")
        from .counting_ops import bincount  # noqa: PLC0415 - counting builds on more than this module needs

        n = (ids[-1] + 1 if ids.shape[0] else cast(to_tensor(0), ids.dtype)) if nrows is None else \
            cast(to_tensor(nrows), ids.dtype)
        counts = bincount(cast(ids, _dtypes.int32), minlength=cast(n, _dtypes.int32),
                          maxlength=cast(n, _dtypes.int32), dtype=ids.dtype)
        return cls.from_row_lengths(values, counts, validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Row ``i`` from ``row_starts[i]`` to the next start (the last to the end of ``values``)."""
        values, starts = _values_of(values), _splits_tensor(row_starts)
        return cls.from_row_splits(values, concat([starts, reshape(_nvals(values, starts.dtype), [1])], 0),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Row ``i`` ending at ``row_limits[i]`` (starting where the previous one ends)."""
        values, limits = _values_of(values), _splits_tensor(row_limits)
        return cls.from_row_splits(values, concat([cast(to_tensor([0]), limits.dtype), limits], 0),
                                   validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of ``uniform_row_length`` values each."""
        values = _values_of(values)
        length = _splits_tensor(uniform_row_length)
        n = _nvals(values, length.dtype) // length if nrows is None else cast(to_tensor(nrows), length.dtype)
        from .array_ops import range as _range  # noqa: PLC0415

        rt = cls.from_row_splits(values, _range(n + 1, dtype=length.dtype) * length, validate=validate)
        rt._uniform_row_length = _static_int(uniform_row_length)
        return rt

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """One ragged dimension per row splits, outermost first."""
        result = _values_of(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """One ragged dimension per row lengths, outermost first."""
        result = _values_of(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None,
                                 validate=True):
        """One ragged dimension per value row ids (and row count), outermost first."""
        ids = list(nested_value_rowids)
        counts = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        result = _values_of(flat_values)
        for rowids, n in reversed(list(zip(ids, counts))):
            result = cls.from_value_rowids(result, rowids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=_dtypes.int64):
        """The rows of a dense ``tensor``: whole, cut to ``lengths``, or without their trailing ``padding``;
        with ``ragged_rank`` > 1 the next dimensions are made ragged the same way."""
        from .ragged_convert import from_tensor  # noqa: PLC0415 - the conversions build on this class

        return from_tensor(cls, tensor, lengths, padding, ragged_rank, row_splits_dtype)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dtypes.int64):
        """The rows of a 2-D ``SparseTensor`` in row-major order, each its entries (``RaggedTensor.from_sparse``)."""
        from .ragged_convert import from_sparse  # noqa: PLC0415

        return from_sparse(cls, st_input, row_splits_dtype)

    # ------------------------------------------------------------------------------------------ properties

    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def shape(self):
        """``[nrows, None, ...]``: the ragged dimensions unknown, the uniform inner ones known."""
        nrows = self._row_splits.shape[0]
        outer, rt = [None if nrows is None else nrows - 1], self
        while isinstance(rt, RaggedTensor):
            outer.append(rt._uniform_row_length)
            rt = rt._values
        return TensorShape(outer).concatenate(self.flat_values.shape[1:])

    def get_shape(self):
        return self.shape

    # ------------------------------------------------------------------------------------------ partitions

    def row_lengths(self, axis=1, name=None):
        """The length of each row (of the ragged dimension ``axis``)."""
        if axis in (1, -self.shape.rank + 1) or axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if not isinstance(self._values, RaggedTensor):
            raise ValueError(f"axis={axis} is not a ragged dimension")
        return self.with_values(self._values.row_lengths(axis - 1))

    def nested_row_lengths(self, name=None):
        return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    def nrows(self, out_type=None, name=None):
        n = _shape(self._row_splits, out_type=self._row_splits.dtype)[0] - 1
        return n if out_type is None else cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def value_rowids(self, name=None):
        """The row of each value."""
        return cast(execute(RAGGED_ROW_POSITIONS, (self._row_splits,))[0], self._row_splits.dtype)

    def nested_value_rowids(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds every row: ``[nrows, longest row, ...]``."""
        from .ragged_convert import bounding_shape  # noqa: PLC0415

        return bounding_shape(self, axis, out_type)

    # ------------------------------------------------------------------------------------------ new values

    def with_values(self, new_values):
        """The same row partition over ``new_values``."""
        return RaggedTensor._make(_values_of(new_values), self._row_splits, self._uniform_row_length)

    def with_flat_values(self, new_values):
        """The same nested row partitions over ``new_values``."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """The same tensor with its row splits of ``dtype`` (int32 or int64)."""
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) else \
            self._values
        return RaggedTensor._make(values, cast(self._row_splits, dtype), self._uniform_row_length)

    def merge_dims(self, outer_axis, inner_axis):
        """Dimensions ``outer_axis`` to ``inner_axis`` made one."""
        from .ragged_convert import merge_dims  # noqa: PLC0415

        return merge_dims(self, outer_axis, inner_axis)

    # ------------------------------------------------------------------------------------------ conversions

    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor: rows padded with ``default_value`` (0) to the bounding shape, or cut or padded to
        ``shape``."""
        from .ragged_convert import dense  # noqa: PLC0415

        return dense(self, default_value, shape)

    def to_sparse(self, name=None):
        """The ``SparseTensor`` of the values at their (row, position ...) indices."""
        from .ragged_convert import to_sparse  # noqa: PLC0415

        return to_sparse(self)

    def numpy(self):
        """Rows as NumPy arrays: one array when they are all as long, else an object array of rows (as TF)."""
        values = self._values.numpy()
        splits = np.asarray(self._row_splits._value)
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        ragged = any(len(r) != len(rows[0]) for r in rows)
        return np.array(rows, dtype=object if ragged else None)

    def to_list(self):
        """The values as nested Python lists."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            np.asarray(self._values._value).tolist()
        splits = np.asarray(self._row_splits._value).tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def __repr__(self):
        with np.printoptions(formatter={"all": _formatter}):
            text = _formatter(self.numpy())
        return f"<tf.RaggedTensor {text}>"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __getitem__(self, key):
        from .ragged_ops import getitem  # noqa: PLC0415

        return getitem(self, key)

    __hash__ = object.__hash__  # (``==`` is elementwise, as on tensors; a ragged tensor is still a dict key)

    # --- a composite tensor (``_core/nest.py``): what tf.function and tf.data see of it -------------------

    def _components(self):
        return (self.flat_values,) + self.nested_row_splits

    def _from_components(self, components):
        """A ragged tensor of the same kind over ``components`` (taken as they are)."""
        result = components[0]
        for splits in reversed(components[1:]):
            out = object.__new__(RaggedTensor)
            out._values, out._row_splits = result, splits
            result = out
        return result

    def _component_shapes(self):
        inner = tuple(self.flat_values._value.shape[1:])
        return ((None,) + inner,) + tuple((None,) for _ in self.nested_row_splits)

    def _spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    _type_spec = property(_spec)

    def _static_spec(self, graph_constants, static_shape):
        """The spec a graph gives this tensor: its number of rows where the graph fixes it (the static length of
        its row splits), the static inner dimensions of its values."""
        n = static_shape(self._row_splits)
        nrows = None if n.rank is None or n.dims[0] is None else n.dims[0] - 1
        inner = static_shape(self.flat_values)
        inner = inner[1:] if inner.rank is not None else TensorShape(None)
        shape = TensorShape([nrows] + [None] * self.ragged_rank).concatenate(inner)
        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    @staticmethod
    def _stand_in(spec):
        """A ragged tensor of ``spec`` to trace a function on: every row of one value (unknown sizes 1)."""
        if spec.shape.rank is None:
            raise ValueError(f"A RaggedTensorSpec of unknown rank cannot be traced: {spec!r}")
        dims = [1 if d is None else d for d in spec.shape.dims]
        k = spec.ragged_rank
        flat = np.zeros([int(np.prod(dims[:k + 1]))] + dims[k + 1:], spec.dtype.as_numpy_dtype)
        splits_dtype = spec.row_splits_dtype.as_numpy_dtype
        nested = [np.arange(int(np.prod(dims[:i + 1])) + 1, dtype=splits_dtype) * dims[i + 1]
                  for i in range(k)]
        return RaggedTensor.from_nested_row_splits(flat, [to_tensor(s) for s in nested], validate=False)


def _binary_operator(name, swap=False):
    """A Python operator of ``RaggedTensor``: TF's elementwise function on the flat values (``ragged_ops``)."""
    def operator(self, other):
        from . import math_ops  # noqa: PLC0415
        from .ragged_ops import binary  # noqa: PLC0415

        fn = getattr(math_ops, name)
        return binary(fn, other, self) if swap else binary(fn, self, other)

    return operator


for _name, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "truediv"),
                   ("floordiv", "floordiv"), ("mod", "floormod"), ("pow", "pow")]:
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _binary_operator(_fn, swap=True))
for _name, _fn in [("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                   ("eq", "equal"), ("ne", "not_equal"), ("and", "logical_and"), ("or", "logical_or"),
                   ("xor", "logical_xor")]:
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(-self.flat_values)
RaggedTensor.__abs__ = lambda self: self.with_flat_values(abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(~self.flat_values)


def _check_partition(values, splits):
    """TF's check that the last split is the number of values."""
    assert_equal(splits[-1:], _nvals(values, splits.dtype),
                 message="Arguments to _from_row_partition do not form a valid RaggedTensor")


def _formatter(x):
    """TF's text of a ragged tensor's rows: each NumPy row as ``array2string`` with commas, empty rows as ``[]``."""
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size > 0 else repr(x.tolist())
    return str(x)


@export("RaggedTensorSpec")
class RaggedTensorSpec:
    """The type of a ``RaggedTensor``: ``shape`` (ragged dimensions ``None``), ``dtype``, ``ragged_rank`` and
    ``row_splits_dtype`` (``tf.RaggedTensorSpec``)."""

    def __init__(self, shape=None, dtype=_dtypes.float32, ragged_rank=None, row_splits_dtype=_dtypes.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        rank = self._shape.rank
        self._ragged_rank = (rank - 1 if rank is not None else 1) if ragged_rank is None else int(ragged_rank)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    value_type = property(lambda self: RaggedTensor)

    def _key(self):
        dims = None if self._shape.dims is None else tuple(self._shape.dims)
        return (dims, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def __eq__(self, other):
        return type(other) is RaggedTensorSpec and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")



_ragged_dispatch.register(RaggedTensor)  # (TF's functions listed in its API table take these)

"""``tf.SparseTensor`` and the first of ``tf.sparse``: ``to_dense``, ``from_dense``, ``reorder``, ``reduce_sum``,
``add``, ``sparse_dense_matmul``.

A sparse tensor is three tensors: ``indices`` (int64 ``[n, rank]``, in row-major order for most ops), ``values``
(``[n]``) and ``dense_shape`` (int64 ``[rank]``). The ops here are written with tapeflow's ops over them (the
checks and the index work are ops of their own: ``SparseToDense``, ``SparseReorderPermutation``,
``SparseIndexUnion``), so gradients reach ``values`` and the dense operands, and traced functions compute each
call's indices. Values move with ``SparsePermute`` (``values[perm]``), whose gradient is the upstream gradient
put back by the inverse permutation (``tf.math.invert_permutation``): dense, as TF's are, where a ``gather``
would give ``IndexedSlices``. ``sparse_dense_matmul`` multiplies through the dense form of the sparse operand:
its values are TF's, its memory that of the dense matrix.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import ALL, defop
from .._core.shape import TensorShape
from .._core.tensor import Tensor, convert_to_tensor
from ._convert import to_tensor
from .array_ops import broadcast_to, cast, where
from .gather_ops import gather
from .linalg_ops import matmul
from .math_ops import not_equal
from .reduction_ops import reduce_sum as _reduce_sum
from .scatter_ops import gather_nd

__all__ = ["SparseTensor", "SparseTensorSpec", "to_dense", "from_dense", "reorder", "reduce_sum", "add",
           "sparse_dense_matmul", "invert_permutation"]


@export("SparseTensor", "sparse.SparseTensor")
class SparseTensor:
    """A tensor stored as its non-default entries: ``indices`` (int64 ``[n, rank]``), ``values`` (``[n]``) and
    ``dense_shape`` (int64 ``[rank]``) (``tf.SparseTensor``)."""

    _tapeflow_sparse = True

    def __init__(self, indices, values, dense_shape):
        self._indices = to_tensor(indices, _dtypes.int64) if not isinstance(indices, Tensor) else cast(
            indices, _dtypes.int64)
        self._values = to_tensor(values)
        self._dense_shape = to_tensor(dense_shape, _dtypes.int64) if not isinstance(dense_shape, Tensor) else \
            cast(dense_shape, _dtypes.int64)
        if self._indices.shape.rank != 2 or self._values.shape.rank != 1 or self._dense_shape.shape.rank != 1:
            raise ValueError(f"Shapes of indices {self._indices.shape}, values {self._values.shape} and dense_shape "
                             f"{self._dense_shape.shape} are not [n, rank], [n] and [rank].")

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return TensorShape([int(d) for d in np.asarray(self._dense_shape._value).tolist()])

    def get_shape(self):
        return self.shape

    # --- a composite tensor (``_core/nest.py``): what tf.function and tf.data see of it -------------------
    _tapeflow_composite = True

    def _components(self):
        return (self._indices, self._values, self._dense_shape)

    def _from_components(self, components):
        """A sparse tensor of the same kind over ``components`` (taken as they are: a traced function's result
        template holds placeholders for them)."""
        out = object.__new__(SparseTensor)
        out._indices, out._values, out._dense_shape = components
        return out

    def _component_shapes(self):
        """The components' shapes as one spec covers them: any number of entries, this rank."""
        rank = self._dense_shape._value.shape[0]
        return ((None, rank), (None,), (rank,))

    def _spec(self):
        """``tf.SparseTensorSpec`` of this tensor: its dense shape and dtype."""
        return SparseTensorSpec(self.shape, self.dtype)

    @staticmethod
    def _stand_in(spec):
        """A sparse tensor of ``spec`` to trace a function on: one entry, at the origin (unknown sizes 1)."""
        if spec.shape.rank is None:
            raise ValueError(f"A SparseTensorSpec of unknown rank cannot be traced: {spec!r}")
        dims = [1 if d is None else d for d in spec.shape.dims]
        return SparseTensor(np.zeros((1, len(dims)), np.int64), np.zeros(1, spec.dtype.as_numpy_dtype), dims)

    _type_spec = property(_spec)

    def _static_spec(self, graph_constants, static_shape=None):
        """The spec a graph gives this tensor: its dense shape where the graph fixes it (a constant among
        ``graph_constants``), else a shape of unknown sizes of its rank (TF's static shape of a computed one)."""
        dense_shape = graph_constants.get(self._dense_shape._id)
        if dense_shape is not None:
            return SparseTensorSpec([int(d) for d in np.ravel(dense_shape)], self.dtype)
        return SparseTensorSpec([None] * int(self._dense_shape._value.shape[0]), self.dtype)

    def with_values(self, new_values):
        """The same indices and shape with ``new_values``."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    __str__ = __repr__

    def __mul__(self, other):
        """The entries times ``other`` (a scalar, or a dense tensor broadcast to the dense shape)."""
        other = to_tensor(other, self.dtype)
        if other.shape.rank:
            other = gather_nd(broadcast_to(other, self._dense_shape), self._indices)
        return self.with_values(self._values * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = to_tensor(other, self.dtype)
        if other.shape.rank:
            other = gather_nd(broadcast_to(other, self._dense_shape), self._indices)
        return self.with_values(self._values / other)

    def __neg__(self):
        return self.with_values(-self._values)


@export("SparseTensorSpec", "sparse.SparseTensorSpec")
class SparseTensorSpec:
    """The type of a ``SparseTensor``: its dense ``shape`` (``None`` where unknown) and ``dtype``
    (``tf.SparseTensorSpec``)."""

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def value_type(self):
        return SparseTensor

    def __eq__(self, other):
        return type(other) is SparseTensorSpec and self._shape == other._shape and self._dtype == other._dtype

    def __hash__(self):
        return hash((tuple(self._shape.dims) if self._shape.dims is not None else None, self._dtype))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def _is_sparse(x):
    return getattr(x, "_tapeflow_sparse", False)


def _dense(sp):
    """``sp`` densified whatever the order of its entries (the ops below do not ask for row-major order)."""
    return to_dense(sp, validate_indices=False)


def _index_text(row):
    return ",".join(str(int(v)) for v in row)


@defop("SparseToDense", dtypes=ALL, same_dtype=False)
def SPARSE_TO_DENSE(indices, dense_shape, values, default_value, validate_indices):
    """The dense tensor: ``values`` at ``indices``, ``default_value`` elsewhere (checked as TF's kernel checks)."""
    shape = tuple(int(d) for d in np.asarray(dense_shape))
    idx = np.asarray(indices).reshape(-1, len(shape))
    if validate_indices:
        for k, row in enumerate(idx):
            if any(v < 0 or v >= d for v, d in zip(row, shape)):
                raise errors.op_error("SparseToDense", f"indices[{k}] = [{_index_text(row)}] is out of bounds: need "
                                      f"0 <= index < [{_index_text(shape)}]")
            if k and tuple(row) <= tuple(idx[k - 1]):
                raise errors.op_error("SparseToDense", f"indices[{k}] = [{_index_text(row)}] is out of order. Many "
                                      "sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
                                      "correctly ordered copy.\n\n")
    out = np.full(shape, np.asarray(default_value), dtype=np.asarray(values).dtype)
    if idx.size:
        out[tuple(idx.T)] = values
    return out


SPARSE_TO_DENSE.value_sized = {0: None}  # (its shape is its dense_shape input's value)


@SPARSE_TO_DENSE.defvjp
def _sparse_to_dense_grad(g, y, indices, dense_shape, values, default_value, validate_indices):
    picked = gather_nd(g, indices)
    return None, None, picked, _reduce_sum(g) - _reduce_sum(picked)


@export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense form of ``sp_input`` (``tf.sparse.to_dense``)."""
    default = to_tensor(0 if default_value is None else default_value, sp_input.dtype)
    return execute(SPARSE_TO_DENSE, (sp_input.indices, sp_input.dense_shape, sp_input.values, default),
                   {"validate_indices": bool(validate_indices)})


@export("sparse.from_dense")
def from_dense(tensor, name=None):
    """The non-zero entries of ``tensor`` as a ``SparseTensor`` (``tf.sparse.from_dense``)."""
    t = convert_to_tensor(tensor)
    indices = where(not_equal(t, to_tensor(0, t.dtype) if t.dtype != _dtypes.string else to_tensor(b"")))
    from .array_ops import shape as _shape  # noqa: PLC0415

    return SparseTensor(indices, gather_nd(t, indices), cast(_shape(t), _dtypes.int64))


@defop("SparseReorderPermutation", same_dtype=False)
def SPARSE_REORDER_PERMUTATION(indices):
    """The order that sorts ``indices`` row-major (stable)."""
    idx = np.asarray(indices)
    if idx.shape[0] == 0:
        return np.zeros([0], np.int64)
    return np.lexsort(idx.T[::-1]).astype(np.int64)


@defop("InvertPermutation", same_dtype=False)
def INVERT_PERMUTATION(x):
    """``y`` with ``y[x[i]] = i``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise errors.op_error("InvertPermutation", "invert_permutation expects a 1D vector.", name=None)
    seen = np.zeros(x.size, bool)
    for v in x.tolist():  # TF's kernel reports the first bad entry, in order
        if not 0 <= v < x.size:
            raise errors.op_error("InvertPermutation", f"{v} is not between 0 and {x.size}", name=None)
        if seen[v]:
            raise errors.op_error("InvertPermutation", f"{v} is duplicated in the input.", name=None)
        seen[v] = True
    out = np.empty_like(x)
    out[x] = np.arange(x.size, dtype=x.dtype)
    return out


@export("math.invert_permutation", "invert_permutation")
def invert_permutation(x, name=None):
    """The inverse of the permutation ``x`` (``tf.math.invert_permutation``)."""
    return execute(INVERT_PERMUTATION, (to_tensor(x),))


@defop("SparsePermute", dtypes=ALL, same_dtype=False)
def SPARSE_PERMUTE(values, perm):
    """``values[perm]``."""
    return np.asarray(values)[np.asarray(perm)]


@SPARSE_PERMUTE.defvjp
def _sparse_permute_grad(g, y, values, perm):
    return execute(SPARSE_PERMUTE, (g, execute(INVERT_PERMUTATION, (perm,)))), None


def _ordered(indices, values, dense_shape):
    """A ``SparseTensor`` of these entries in row-major order."""
    perm = execute(SPARSE_REORDER_PERMUTATION, (indices,))
    return SparseTensor(gather(indices, perm), execute(SPARSE_PERMUTE, (values, perm)), dense_shape)


@export("sparse.reorder")
def reorder(sp_input, name=None):
    """``sp_input`` with its entries in row-major order (``tf.sparse.reorder``)."""
    return _ordered(sp_input.indices, sp_input.values, sp_input.dense_shape)


@export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of the entries over ``axis`` (all when ``None``), dense or, with ``output_is_sparse``, as a
    ``SparseTensor`` of the groups that hold entries (``tf.sparse.reduce_sum``)."""
    dense = _reduce_sum(_dense(sp_input), axis=axis, keepdims=bool(keepdims))
    if not output_is_sparse:
        return dense
    rank = sp_input.shape.rank
    axes = range(rank) if axis is None else [a % rank for a in np.ravel(axis)]
    kept = [d for d in range(rank) if d not in axes]
    groups = execute(SPARSE_INDEX_UNION, (gather(sp_input.indices, to_tensor(kept, _dtypes.int64), axis=1),
                                          to_tensor(np.zeros([0, len(kept)], np.int64))))
    return SparseTensor(groups, gather_nd(dense, groups), cast(to_tensor(np.asarray(dense.shape.as_list())),
                                                               _dtypes.int64))


@defop("SparseIndexUnion", same_dtype=False)
def SPARSE_INDEX_UNION(a, b):
    """The distinct rows of ``a`` and ``b``, row-major."""
    rows = np.concatenate([np.asarray(a).reshape(-1, np.shape(a)[-1]), np.asarray(b).reshape(-1, np.shape(a)[-1])])
    return np.unique(rows, axis=0).astype(np.int64) if rows.size else rows.astype(np.int64)


SPARSE_INDEX_UNION.value_sized = {0: (0,)}  # (a trace leaves the sizes that follow the values unknown)


@export("sparse.add")
def add(a, b, threshold=0):
    """``a + b``: a ``SparseTensor`` when both are sparse (the union of their entries), else dense
    (``tf.sparse.add``)."""
    if _is_sparse(a) and _is_sparse(b):
        total = _dense(a) + _dense(b)
        union = execute(SPARSE_INDEX_UNION, (a.indices, b.indices))
        return SparseTensor(union, gather_nd(total, union), a.dense_shape)
    sparse, dense = (a, b) if _is_sparse(a) else (b, a)
    return _dense(sparse) + to_tensor(dense, sparse.dtype)


@export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` with ``sp_a`` sparse (either operand may be sparse, as in TF); gradients reach the dense
    operand and the sparse one's values (``tf.sparse.sparse_dense_matmul``)."""
    a_dense = _dense(sp_a) if _is_sparse(sp_a) else to_tensor(sp_a)
    b_dense = _dense(b) if _is_sparse(b) else to_tensor(b)
    # (a sparse operand's own static shape: inside a trace its dense form's sizes are left unknown)
    (a0, a1) = (sp_a if _is_sparse(sp_a) else a_dense).shape.as_list()
    (b0, b1) = (b if _is_sparse(b) else b_dense).shape.as_list()
    inner_a, inner_b = (a0 if adjoint_a else a1), (b1 if adjoint_b else b0)
    if inner_a != inner_b and None not in (inner_a, inner_b):
        raise errors.op_error("SparseTensorDenseMatMul", f"Cannot multiply A and B because inner dimension does not "
                              f"match: {inner_a} vs. {inner_b}.  Did you forget a transpose?  Dimensions of A: "
                              f"[{a0}, {a1}).  Dimensions of B: [{b0},{b1}]")
    return matmul(a_dense, b_dense, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


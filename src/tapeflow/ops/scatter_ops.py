"""N-dimensional gathers and scatters: ``GatherNd``, ``ScatterNd``, ``TensorScatter*`` and variable updates.

``GatherNd`` and ``ScatterNd`` are each other's gradients (duplicated indices add up in the scatter), so every
gradient here is written with them and second derivatives come for free. ``GatherNd`` with ``[n, 1]`` indices
gives its ``params`` gradient as an ``IndexedSlices``, as in TensorFlow. Index errors are TensorFlow's CPU kernel
errors: out-of-range rows raise, nothing is clamped.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import errors
from .._core import sizes as _sizes
from .._core.convert import c_name, to_dtype
from .._core.dispatch import EMPTY, execute
from .._core.exports import export
from .._core.indexed_slices import IndexedSlices
from .._core.opdefs import OPDEFS
from .._core.registry import defop
from .._core.shape import TensorShape
from .._core.state import STATE
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import cast, reshape, zeros_like
from .manip_ops import CONCAT
from .math_ops import equal, negative

__all__ = [
    "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
    "tensor_scatter_nd_max", "tensor_scatter_nd_min", "scatter_variable", "scatter_nd_variable",
]

_INT16_32_64 = ("int16", "int32", "int64")
_INT32_64 = ("int32", "int64")


# ------------------------------------------------------------------------------------------ shared checks


def _index_tensor(indices, op_name, allowed=_INT16_32_64, named=False):
    """``indices`` as an integer tensor, refused as TF's attr check refuses other dtypes."""
    t = to_tensor(indices)
    if t.dtype.name not in allowed:
        raise errors.InvalidArgumentError(None, None, errors.with_name(
            f"Value for attr 'Tindices' of {c_name(t.dtype)} is not in the list of allowed values: "
            f"{', '.join(allowed)}\n\t; NodeDef: {{{{node {op_name}}}}}; {OPDEFS.get(op_name, (None, ''))[1]} "
            f"[Op:{op_name}]", _named(named)))
    return t


def _position(pos):
    return "[" + ",".join(str(int(p)) for p in pos) + "]" if len(pos) else ""  # a scalar index: "indices = 5"


def _first_bad(bad):
    """The position (a tuple) of the first true element of ``bad`` in C order."""
    return np.unravel_index(int(np.argmax(bad.reshape(-1))), bad.shape)


def _named(named):
    return "" if named else None


# Index values are checked where the op runs (its forward), not in the API function that calls it: a traced program
# runs only the forwards, and must refuse another call's out-of-range indices as eager execution does.


def index_error(op_name, message):
    """The error an op's forward raises for an index out of range: TF's kernel error, as the fast path words it.

    ``kernel_message`` keeps the kernel's text, for API functions that word it for their own path or op name
    (:func:`run_indexed`).
    """
    exc = errors.op_error(op_name, message, name="")
    exc.kernel_message = message
    return exc


def run_indexed(op, inputs, attrs, named, op_name=None):
    """``execute(op, inputs, attrs)``, an index error of its forward worded for the API's path (``named``: the
    fast path) and op name (``op_name``, when TF names another op: ``ResourceGather``)."""
    try:
        return execute(op, inputs, attrs)
    except errors.InvalidArgumentError as exc:
        message = getattr(exc, "kernel_message", None)
        if message is None or (named and op_name is None):
            raise
        raise errors.op_error(op_name or op.name, message, name=_named(named)) from None


def check_range(indices, n, op_name):
    """Refuse indices outside ``[0, n)`` as TF's gather kernels do (the first bad one in C order)."""
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        pos = _first_bad((indices < 0) | (indices >= n)) if indices.ndim else ()
        raise index_error(op_name, f"indices{_position(pos)} = {int(indices[pos])} is not in [0, {n})")


def _check_nd_bounds(indices, shape, op_name, what="shape", suffix=""):
    """Refuse index rows that do not address an element or slice of ``shape`` (negative ones included)."""
    k = indices.shape[-1]
    if not indices.size or k == 0:
        return
    limits = np.asarray(shape[:k], dtype=np.int64)
    bad = np.any((indices < 0) | (indices >= limits), axis=-1)
    if bad.any():
        pos = _first_bad(bad) if bad.ndim else ()
        row = ", ".join(str(int(i)) for i in indices[pos])
        where_ = f"indices{_position(pos)}" if bad.ndim else "indices"
        raise index_error(op_name, f"{where_} = [{row}] does not index into {what} {errors.shape_str(shape)}{suffix}")


def _nd_index(indices):
    """``indices[..., k]`` rows as a NumPy advanced-indexing tuple."""
    return tuple(np.moveaxis(indices, -1, 0))


# ------------------------------------------------------------------------------------------ GatherNd


@defop("GatherNd", same_dtype=False)
def GATHER_ND(params, indices):
    _check_nd_bounds(indices, params.shape, "GatherNd", "param shape", ", node name: GatherNd")
    k = indices.shape[-1]
    if k == 0:
        return np.broadcast_to(params, indices.shape[:-1] + params.shape).copy()
    out = params[_nd_index(indices)]
    return out.copy() if isinstance(out, np.ndarray) and out.base is params else out


@GATHER_ND.defvjp
def _gather_nd_grad(g, y, params, indices):
    pshape = params._value.shape
    iv = indices._value
    if iv.ndim == 2 and iv.shape[1] == 1:
        shape_dtype = np.int64 if iv.dtype == np.int64 else np.int32
        dense_shape = constant_of(np.array(pshape, dtype=shape_dtype))
        return IndexedSlices(g, reshape(indices, (iv.shape[0],)), dense_shape), None
    return execute(SCATTER_ND, (indices, g), {"shape": pshape}), None


@export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Elements or slices of ``params`` addressed by the index rows ``indices[..., :]`` (``tf.gather_nd``).

    With ``batch_dims`` the leading dimensions of both are batch dimensions. Out-of-range rows raise.
    """
    batch_dims = int(batch_dims)
    # TF's batched gather_nd is Python building on tensors: its errors are always the named kind.
    named = errors.fast_path(params, indices) or batch_dims > 0
    idx = _index_tensor(indices, "GatherNd", named=named)
    p = to_tensor(params)
    iv, pv = idx._value, p._value
    if iv.ndim == 0:
        raise errors.op_error("GatherNd", "indices must be at least a vector", name="")
    if pv.ndim == 0:
        raise errors.op_error("GatherNd", "params must be at least a vector", name="")
    if batch_dims < 0:
        raise ValueError("tf.gather_nd does not allow negative batch_dims.")
    if batch_dims:
        if batch_dims >= iv.ndim:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = {iv.ndim}")
        if pv.shape[:batch_dims] != iv.shape[:batch_dims]:
            raise errors.op_error("Reshape", f"Input to reshape is a tensor with {int(np.prod(iv.shape[:batch_dims]))} "
                                             f"values, but the requested shape has "
                                             f"{int(np.prod(pv.shape[:batch_dims]))}", name="")
        # Batched rows are plain rows with the batch coordinates in front (what TF's Python wrapper builds): the
        # coordinates depend on the shape only, the rows are joined by an op (a traced program joins each call's).
        grids = np.meshgrid(*[np.arange(d, dtype=iv.dtype) for d in iv.shape[:-1]], indexing="ij")
        coords = np.stack(grids[:batch_dims], axis=-1)
        idx = execute(CONCAT, (constant_of(coords), idx), {"axis": iv.ndim - 1})
        iv = idx._value
    name = _named(named)
    if iv.shape[-1] > pv.ndim:
        raise errors.op_error("GatherNd", f"index innermost dimension length must be <= params rank; saw: "
                                          f"{iv.shape[-1]} vs. {pv.ndim}", name=name)
    if pv.size == 0 and int(np.prod(iv.shape[:-1])) > 0 and iv.shape[-1] > 0:
        raise errors.op_error("GatherNd", f"Requested more than 0 entries, but params is empty.  Params shape: "
                                          f"{errors.shape_str(pv.shape)}", name=name)
    return run_indexed(GATHER_ND, (p, idx), EMPTY, named)


# ------------------------------------------------------------------------------------------ ScatterNd


def _check_scatter_nd(out_shape, iv, uv, op_name, named=False):
    """ScatterNd's shape checks, in its order and wording (``batch_dim``/``slice_dim`` are TF's names)."""
    name = _named(named)
    if iv.ndim == 0:
        raise errors.op_error(op_name, f"Indices shape must have rank at least one. Found:{errors.shape_str(())}",
                              name=name)
    slice_dim, batch_dim = iv.shape[-1], iv.ndim - 1
    count = int(np.prod(iv.shape[:-1]))
    if count and (slice_dim == 0 or int(np.prod(out_shape)) == 0 or not out_shape):
        raise errors.op_error(op_name, "Indices and updates specified for empty output shape", name=name)
    us, ps = uv.shape, tuple(out_shape)

    def prefix():
        return errors.op_error(op_name, f"Dimensions [0,{batch_dim}) of indices[shape={errors.shape_str(iv.shape)}] "
                                        f"must match dimensions [0,{batch_dim}) of updates[shape="
                                        f"{errors.shape_str(us)}]", name=name)

    def suffix():
        return errors.op_error(op_name, f"Dimensions [{slice_dim},{len(ps)}) of input[shape={errors.shape_str(ps)}] "
                                        f"must match dimensions [{batch_dim},{len(us)}) of updates[shape="
                                        f"{errors.shape_str(us)}]", name=name)

    if len(us) < batch_dim:
        raise prefix()
    if len(ps) < slice_dim + (len(us) - batch_dim) or len(us) != batch_dim + len(ps) - slice_dim:
        raise suffix()
    if us[:batch_dim] != iv.shape[:batch_dim]:
        raise prefix()
    if us[batch_dim:] != ps[slice_dim:]:
        raise suffix()


def _empty_like_zero(shape, dtype):
    if dtype.kind in "OSU":
        out = _sizes.empty(shape, object)
        out.fill(b"")
        return out
    return _sizes.zeros(shape, dtype)


@defop("ScatterNd", same_dtype=False)
def SCATTER_ND(indices, updates, shape):
    _check_nd_bounds(indices, shape, "ScatterNd")
    out = _empty_like_zero(shape, updates.dtype)
    if indices.size:
        np.add.at(out, _nd_index(indices), updates)
    return out


@SCATTER_ND.defvjp
def _scatter_nd_grad(g, y, indices, updates, shape):
    return None, execute(GATHER_ND, (g, indices))


def _shape_list(shape, like):
    """The output shape; a Python shape takes the indices' dtype, wrapping as TF's conversion wraps it (an int32
    ``[2**32 + 1]`` is ``[1]``)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        arr = np.asarray(shape._value)
    elif isinstance(shape, (list, tuple, int, np.integer)):
        arr = np.asarray(to_dtype(shape, like))
    else:
        arr = np.asarray(shape)
    return tuple(int(d) for d in arr.reshape(-1))


@export("scatter_nd")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A zero tensor of ``shape`` with ``updates`` added at the index rows ``indices`` (``tf.scatter_nd``).

    Updates at repeated indices add up; out-of-range rows raise.
    """
    named = errors.fast_path(indices, updates, shape)
    idx = _index_tensor(indices, "ScatterNd", named=named)
    upd = to_tensor(updates)
    if isinstance(shape, Tensor) and shape.dtype != idx.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute ScatterNd as input #2(zero-based) was expected to be a "
            f"{c_name(idx.dtype)} tensor but is a {c_name(shape.dtype)} tensor [Op:ScatterNd]")
    out_shape = _shape_list(shape, idx.dtype)
    _sizes.check_dims("ScatterNd", out_shape, _named(named))
    if not math.prod(out_shape) and upd._value.size and idx._value.size:
        raise errors.op_error("ScatterNd", f"Indices and updates specified for empty output.  indices shape: "
                              f"{errors.shape_str(idx._value.shape)}", name=_named(named))
    _check_scatter_nd(out_shape, idx._value, upd._value, "ScatterNd", named)
    # The path's wording applies to the forward's index errors as well.
    return errors.call_on_path(named, execute, SCATTER_ND, (idx, upd), {"shape": out_shape})


# ------------------------------------------------------------------------------------------ TensorScatter*


def _check_tensor_scatter(tv, iv, uv, op_name, named):
    """The TensorScatter ops' checks, in their order and wording."""
    name = _named(named)
    if iv.ndim == 0:
        raise errors.op_error(op_name, "Indices shape must have rank at least one. Found:[]", name=name)
    outer = iv.ndim - 1
    if uv.shape[:outer] != iv.shape[:outer] or uv.ndim < outer:
        raise errors.op_error(op_name, f"Outer dimensions of indices and update must match. Indices shape: "
                                       f"{errors.shape_str(iv.shape)}, updates shape:{errors.shape_str(uv.shape)}",
                              name=name)
    ix = iv.shape[-1]
    if uv.ndim - outer != tv.ndim - ix:
        raise errors.op_error(op_name, f"Inner dimensions of output shape must match inner dimensions of updates "
                                       f"shape. Output: {errors.shape_str(tv.shape)} updates: "
                                       f"{errors.shape_str(uv.shape)}", name=name)
    if uv.shape[outer:] != tv.shape[ix:]:
        raise errors.op_error(op_name, f"The inner {tv.ndim - ix} dimensions of output.shape="
                                       f"{errors.shape_str(tv.shape)} must match the inner {uv.ndim - outer} "
                                       f"dimensions of updates.shape={errors.shape_str(uv.shape)}", name=name)
    if int(np.prod(iv.shape[:-1])) and (ix == 0 or tv.size == 0 or tv.ndim == 0):
        raise errors.op_error(op_name, "Indices and updates specified for empty output shape", name=name)


def _tensor_scatter_forward(op_name, kind):
    def forward(tensor, indices, updates):
        _check_nd_bounds(indices, tensor.shape, op_name)
        out = np.array(tensor, copy=True)
        if indices.size:
            where_ = _nd_index(indices)
            if kind is None:
                out[where_] = updates
            else:
                kind.at(out, where_, updates)
        return out

    return forward


TENSOR_SCATTER_UPDATE = defop("TensorScatterUpdate", same_dtype=False)(
    _tensor_scatter_forward("TensorScatterUpdate", None))
TENSOR_SCATTER_ADD = defop("TensorScatterAdd", same_dtype=False)(
    _tensor_scatter_forward("TensorScatterAdd", np.add))
TENSOR_SCATTER_SUB = defop("TensorScatterSub", same_dtype=False)(
    _tensor_scatter_forward("TensorScatterSub", np.subtract))
TENSOR_SCATTER_MAX = defop("TensorScatterMax", same_dtype=False)(
    _tensor_scatter_forward("TensorScatterMax", np.maximum))
TENSOR_SCATTER_MIN = defop("TensorScatterMin", same_dtype=False)(
    _tensor_scatter_forward("TensorScatterMin", np.minimum))


@TENSOR_SCATTER_UPDATE.defvjp(needs=True)
def _tensor_scatter_update_grad(g, y, tensor, indices, updates, needs):
    # Overwritten elements get no gradient; every update (duplicates too, as in TF) gets g at its index.
    tensor_grad = execute(TENSOR_SCATTER_UPDATE, (g, indices, zeros_like(updates))) if needs[0] else None
    return tensor_grad, None, execute(GATHER_ND, (g, indices)) if needs[2] else None


@TENSOR_SCATTER_ADD.defvjp(needs=True)
def _tensor_scatter_add_grad(g, y, tensor, indices, updates, needs):
    return g, None, execute(GATHER_ND, (g, indices)) if needs[2] else None


@TENSOR_SCATTER_SUB.defvjp(needs=True)
def _tensor_scatter_sub_grad(g, y, tensor, indices, updates, needs):
    return g, None, negative(execute(GATHER_ND, (g, indices))) if needs[2] else None


def _tensor_scatter_extreme_grad(g, y, tensor, indices, updates, needs):
    # Ties between the tensor's element and updates (or among updates) share the gradient equally, as in TF.
    dtype = g.dtype
    x_ind = cast(equal(tensor, y), dtype)
    y_ind = cast(equal(updates, execute(GATHER_ND, (y, indices))), dtype)
    count = x_ind + execute(SCATTER_ND, (indices, y_ind), {"shape": tensor._value.shape})
    tensor_grad = g * x_ind / count if needs[0] else None
    updates_grad = execute(GATHER_ND, (g / count, indices)) * y_ind if needs[2] else None
    return tensor_grad, None, updates_grad


TENSOR_SCATTER_MAX.defvjp(_tensor_scatter_extreme_grad, needs=True)
TENSOR_SCATTER_MIN.defvjp(_tensor_scatter_extreme_grad, needs=True)


def _not_found(op_name, t, idx):
    # TF lists every registered kernel after this line; the first line says which one is missing.
    return errors.NotFoundError(None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
                                            f"[T=DT_{t.dtype.name.upper()}, Tindices=DT_{idx.dtype.name.upper()}, "
                                            f"bad_indices_policy=\"\"]")


def _tensor_scatter(op, allowed, tensor, indices, updates):
    named = errors.fast_path(tensor, indices, updates)
    t = to_tensor(tensor)
    idx = _index_tensor(indices, op.name, allowed, named=named)
    upd = to_tensor(updates) if isinstance(updates, Tensor) or getattr(updates, "_tapeflow_variable", False) \
        else convert_to_tensor(updates, dtype_hint=t.dtype)
    if upd.dtype != t.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute {op.name} as input #2(zero-based) was expected to be a {c_name(t.dtype)} "
            f"tensor but is a {c_name(upd.dtype)} tensor [Op:{op.name}]")
    if op is TENSOR_SCATTER_UPDATE:
        if idx.dtype.name not in _INT32_64:  # allowed by the op, but TF has no CPU kernel for them
            raise _not_found(op.name, t, idx)
    else:
        kinds = "biufc" if op in (TENSOR_SCATTER_ADD, TENSOR_SCATTER_SUB) else "iuf"
        if t._value.dtype.kind not in kinds:
            raise _not_found(op.name, t, idx)
    _check_tensor_scatter(t._value, idx._value, upd._value, op.name, named)
    return run_indexed(op, (t, idx, upd), EMPTY, named)


@export("tensor_scatter_nd_update")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the elements or slices at ``indices`` replaced by ``updates`` (``tf.tensor_scatter_nd_update``).

    Of repeated indices the last update wins (TF's CPU kernel); out-of-range rows raise.
    """
    return _tensor_scatter(TENSOR_SCATTER_UPDATE, _INT16_32_64 + ("uint16",), tensor, indices, updates)


@export("tensor_scatter_nd_add")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` added at ``indices``; repeated indices add up (``tf.tensor_scatter_nd_add``)."""
    return _tensor_scatter(TENSOR_SCATTER_ADD, _INT32_64, tensor, indices, updates)


@export("tensor_scatter_nd_sub")
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` subtracted at ``indices`` (``tf.tensor_scatter_nd_sub``)."""
    return _tensor_scatter(TENSOR_SCATTER_SUB, _INT32_64, tensor, indices, updates)


@export("tensor_scatter_nd_max")
def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """The element-wise maximum of ``tensor`` and ``updates`` at ``indices`` (``tf.tensor_scatter_nd_max``).

    The gradient of a tie is shared equally between the tied values.
    """
    return _tensor_scatter(TENSOR_SCATTER_MAX, _INT32_64, tensor, indices, updates)


@export("tensor_scatter_nd_min")
def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """The element-wise minimum of ``tensor`` and ``updates`` at ``indices`` (``tf.tensor_scatter_nd_min``)."""
    return _tensor_scatter(TENSOR_SCATTER_MIN, _INT32_64, tensor, indices, updates)


# ------------------------------------------------------------------------------------------ variable updates

_SCATTER_UFUNCS = {"add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum, "mul": np.multiply,
                   "div": np.divide, "update": None}
_SCATTER_OPS = {"add": "ResourceScatterAdd", "sub": "ResourceScatterSub", "max": "ResourceScatterMax",
                "min": "ResourceScatterMin", "mul": "ResourceScatterMul", "div": "ResourceScatterDiv",
                "update": "ResourceScatterUpdate"}


def _scatter_rows(old, iv, values, kind):
    """``old`` with the rows ``iv`` combined with ``values`` by ``kind`` (a new array; repeated indices combine one
    after the other), checked as TF's ``ResourceScatter*`` kernels check."""
    op_name = _SCATTER_OPS[kind]
    check_range(iv, old.shape[0] if np.ndim(old) else 0, op_name)
    if np.ndim(values) and np.shape(values) != iv.shape + old.shape[1:]:
        raise errors.op_error(op_name, f"Must have updates.shape = indices.shape + params.shape[1:] or "
                                       f"updates.shape = [], got updates.shape {errors.shape_str(np.shape(values))}, "
                                       f"indices.shape {errors.shape_str(iv.shape)}, params.shape "
                                       f"{errors.shape_str(old.shape)}", name="")
    new = np.array(old, copy=True)
    ufunc = _SCATTER_UFUNCS[kind]
    if ufunc is None:
        new[iv] = values
    else:
        ufunc.at(new, iv, values)
    return new


def _scatter_rows_op(kind):
    def forward(old, iv, values):
        return _scatter_rows(old, iv, values, kind)

    return defop(_SCATTER_OPS[kind], same_dtype=False)(forward)


# A variable's scatter inside a traced function, one op per kind under TF's names (``ResourceScatterSub``): the new
# value as an op of the value read, then assigned (the program computes it on every call; eagerly the variable is
# updated directly).
SCATTER_ROWS = {kind: _scatter_rows_op(kind) for kind in _SCATTER_OPS}


def scatter_variable(var, kind, sparse_delta):
    """``var.scatter_<kind>(sparse_delta)``: combine the rows of an ``IndexedSlices`` into ``var`` in place.

    Rows of repeated indices combine one after the other (they add up for ``add``/``sub``). A failed update
    changes nothing.
    """
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: {sparse_delta}")
    idx = _index_tensor(sparse_delta.indices, _SCATTER_OPS[kind], _INT32_64, named=True)
    values = convert_to_tensor(sparse_delta.values, var.dtype)
    if STATE.tracer is not None:
        holder = getattr(var, "_parent", var)
        holder.assign(execute(SCATTER_ROWS[kind], (holder.read_value(), idx, values)))
        return holder._unread()
    var._value = _scatter_rows(var._value, idx._value, values._value, kind)
    return getattr(var, "_parent", var)._unread()


def scatter_nd_variable(var, kind, indices, updates):
    """``var.scatter_nd_<kind>(indices, updates)``: ``tensor_scatter_nd_<kind>`` written back into ``var``."""
    op_name = {"add": "ResourceScatterNdAdd", "sub": "ResourceScatterNdSub", "update": "ResourceScatterNdUpdate",
               "max": "ResourceScatterNdMax", "min": "ResourceScatterNdMin"}[kind]
    named = errors.fast_path(indices, updates)
    idx = _index_tensor(indices, op_name, _INT32_64, named=named)
    upd = convert_to_tensor(updates, var.dtype)
    old = var._value
    _check_scatter_nd(np.shape(old), idx._value, upd._value, op_name, named)
    try:
        _check_nd_bounds(idx._value, np.shape(old), op_name)
    except errors.InvalidArgumentError as exc:
        raise errors.op_error(op_name, exc.kernel_message, name=_named(named)) from None
    op = {"add": TENSOR_SCATTER_ADD, "sub": TENSOR_SCATTER_SUB, "update": TENSOR_SCATTER_UPDATE,
          "max": TENSOR_SCATTER_MAX, "min": TENSOR_SCATTER_MIN}[kind]
    if STATE.tracer is not None:  # traced: the new value as an op, then assigned (see ``SCATTER_ROWS``)
        holder = getattr(var, "_parent", var)
        holder.assign(execute(op, (holder.read_value(), idx, upd)))
        return holder._unread()
    var._value = op.forward(np.asarray(old), idx._value, upd._value)
    return getattr(var, "_parent", var)._unread()

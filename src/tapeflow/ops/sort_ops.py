"""Sorting: ``tf.math.top_k``, ``tf.sort`` and ``tf.argsort``, forward (NumPy) and gradient side by side.

Order conventions are TF's: descending sorts keep equal elements in index order (``top_k`` is stable), and so do
ascending ones (TF sorts ``-x`` descending). Gradients reach the values only, each sorted element's gradient going
back to the position it came from.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._core import dtypes, errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import ALL, REAL, defop
from .._core.tensor import EagerTensor, Tensor, convert_to_tensor
from ._convert import to_tensor
from ._nan_order import nan_rows, top_k_row
from .array_ops import TRANSPOSE
from .manip_ops import attr_error
from .math_ops import INVERT, NEG

__all__ = ["top_k", "sort", "argsort", "TopKV2"]

TopKV2 = namedtuple("TopKV2", ["values", "indices"])  # TF's result type (``tf.math.top_k(...).values``)


def _descending_order(x, axis):
    """Indices sorting ``x`` along ``axis`` in descending order, equal elements in index order."""
    if x.dtype.kind == "f":
        return np.argsort(-x, axis=axis, kind="stable")  # negation is exact for floats (and keeps -0.0 == 0.0)
    n = x.shape[axis]  # integers: -x would overflow, so sort the reversed line ascending and map back
    return np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _lines(shape, axis):
    """Index arrays selecting every line along ``axis`` (broadcast against an index array on that axis).

    Plain fancy indexing: NumPy's ``take_along_axis`` costs several times more on small arrays.
    """
    return tuple(np.arange(d).reshape((-1,) + (1,) * (len(shape) - 1 - i)) if i != axis else None
                 for i, d in enumerate(shape))


def _take(x, indices, axis):
    if x.ndim == 1:
        return x[indices]
    key = _lines(indices.shape, axis % x.ndim)
    return x[tuple(indices if k is None else k for k in key)]


def _put(out, indices, values, axis):
    if out.ndim == 1:
        out[indices] = values
    else:
        key = _lines(indices.shape, axis % out.ndim)
        out[tuple(indices if k is None else k for k in key)] = values
    return out


# ------------------------------------------------------------------------------------------ gather/scatter on an axis


@defop("GatherAlongAxis", dtypes=ALL, same_dtype=False)
def GATHER_ALONG_AXIS(x, indices, axis):
    """``x`` picked along ``axis`` at ``indices`` (``np.take_along_axis``): the values of a sort or top-k."""
    return _take(x, indices, axis)


@GATHER_ALONG_AXIS.defvjp
def _gather_along_axis_grad(g, y, x, indices, axis):
    return execute(SCATTER_ALONG_AXIS, (g, indices), {"axis": axis, "size": x._value.shape[axis]}), None


@defop("ScatterAlongAxis", dtypes=ALL, same_dtype=False)
def SCATTER_ALONG_AXIS(g, indices, axis, size):
    """``g`` put along ``axis`` at ``indices`` (distinct within each line) into zeros of length ``size``."""
    shape = list(g.shape)
    shape[axis] = size
    return _put(np.zeros(shape, g.dtype), indices, g, axis)


@SCATTER_ALONG_AXIS.defvjp
def _scatter_along_axis_grad(gg, y, g, indices, axis, size):
    return execute(GATHER_ALONG_AXIS, (gg, indices), {"axis": axis}), None


# ------------------------------------------------------------------------------------------ top_k


@defop("TopKV2", num_outputs=2, dtypes=REAL, same_dtype=False)
def TOP_K(x, k, index_type):
    order = _descending_order(x, -1)[..., :k]
    rows = nan_rows(x)
    if rows is not None:  # NaN: TF's kernel's own order (see ``_nan_order``)
        for r in rows:
            order[tuple(r)] = top_k_row(x[tuple(r)], k)
    return _take(x, order, -1), order.astype(index_type)


@TOP_K.defvjp
def _top_k_grad(gs, ys, x, k, index_type):
    g = gs[0]
    if g is None:
        return (None,)
    return (execute(SCATTER_ALONG_AXIS, (g, ys[1]), {"axis": -1, "size": x._value.shape[-1]}),)


_INDEX_TYPES = frozenset({"int16", "int32", "int64"})


@export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):
    """The ``k`` largest entries along the last axis and their indices (``tf.math.top_k``).

    Returns ``TopKV2(values, indices)``; equal values come in index order, the gradient reaches ``values``
    only. With ``sorted=False`` TF returns them in an internal heap order; tapeflow returns them sorted.
    """
    native = errors.fast_path(input, k)
    x = to_tensor(input)
    if not isinstance(sorted, bool):
        raise TypeError(f"Expected bool for argument 'sorted' not {sorted!r}.")
    if type(k) is int and index_type is dtypes.int32 and type(x) is EagerTensor:
        shape = x._value.shape  # the common call: only the kernel's own checks apply
        if 0 <= k <= (shape[-1] if shape else -1) and x._value.dtype.num in TOP_K.allowed_nums:
            return TopKV2(*execute(TOP_K, (x,), {"k": k, "index_type": np.int32}))
    if isinstance(k, Tensor):
        kt = k
    elif native and isinstance(k, float):
        kt = convert_to_tensor(k, dtypes.int32)  # TF's fast path converts a Python k to int32, or refuses it
    else:
        kt = convert_to_tensor(k, dtype_hint=dtypes.int32)
    index_type = dtypes.as_dtype(index_type)
    try:
        if x._value.dtype.num not in TOP_K.allowed_nums:
            execute(TOP_K, (x,), {"k": 0, "index_type": np.int32})  # TF's dtype error for the values
        if kt.dtype.name not in _INDEX_TYPES:
            raise attr_error("TopKV2", "Tk", kt.dtype, "")
        if index_type.name not in _INDEX_TYPES:
            raise attr_error("TopKV2", "index_type", index_type, "")
        if kt._value.ndim:
            raise errors.op_error("TopKV2", f"k must be scalar, got shape {errors.shape_str(kt._value.shape)}")
        k = int(kt._value)
        shape = x._value.shape
        if k < 0:
            raise errors.op_error("TopKV2", f"Need k >= 0, got {k}")
        if not shape:
            raise errors.op_error("TopKV2", "input must be >= 1-D, got shape []")
        if shape[-1] < k:
            raise errors.op_error("TopKV2", f"input must have at least k columns. Had {shape[-1]}, needed {k}")
    except errors.InvalidArgumentError as exc:
        raise exc if native else errors.without_name(exc) from None
    values, indices = execute(TOP_K, (x,), {"k": k, "index_type": index_type.as_numpy_dtype})
    return TopKV2(values, indices)


# ------------------------------------------------------------------------------------------ sort, argsort


def _sort_order(values, axis, direction):
    """Check the arguments as TF's ``tf.sort`` does and return ``(x, order, axis)``, ``order`` an int32 tensor."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                         f"direction={direction}")
    a = np.asarray(axis._value if hasattr(axis, "_value") else convert_to_tensor(axis)._value)
    if a.ndim:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={a}.")
    axis = int(a)
    x = to_tensor(values)
    kind = x._value.dtype.kind
    rank = x._value.ndim
    # TF sorts by top_k of -x (ascending) or x (descending): the first op to refuse a dtype words the error.
    if direction == "ASCENDING" and kind not in "uifc":
        execute(NEG, (x,))
    if not -rank <= axis < rank:
        raise errors.op_error("StridedSlice", f"slice index {axis + rank if axis < 0 else axis} of dimension 0 out of "
                              "bounds.", name="strided_slice/")
    if x._value.dtype.num not in TOP_K.allowed_nums:
        execute(TOP_K, (x,), {"k": 0, "index_type": np.int32})
    axis %= rank
    return x, _order(x, axis, direction == "DESCENDING"), axis


def _order(x, axis, descending):
    """The indices sorting ``x`` along ``axis``, as TF finds them: ``TopKV2`` of every element of each line, on the
    lines moved to the last axis. Ops, not NumPy, so that a traced program sorts the values of each call.

    An ascending sort is the descending sort of values whose order is reversed: ``-x`` for floats (exact, and the
    NaN rows then land where TF's kernel puts them), ``~x == -1 - x`` for integers (no overflow at the lowest value).
    Equal elements keep their index order either way (top-k is stable).
    """
    nd = x._value.ndim
    perm = None if axis == nd - 1 else tuple(i for i in range(nd) if i != axis) + (axis,)
    if perm is not None:
        x = execute(TRANSPOSE, (x,), {"perm": perm})
    if not descending:
        x = execute(NEG if x._value.dtype.kind == "f" else INVERT, (x,))
    order = execute(TOP_K, (x,), {"k": x._value.shape[-1], "index_type": np.int32})[1]
    if perm is not None:
        order = execute(TRANSPOSE, (order,), {"perm": tuple(int(i) for i in np.argsort(perm))})
    return order


@export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (``tf.sort``); the gradient goes back to each element's original place.

    Raises:
        ValueError: for a direction other than ``"ASCENDING"``/``"DESCENDING"`` or a non-scalar axis.
    """
    x, order, axis = _sort_order(values, axis, direction)
    return execute(GATHER_ALONG_AXIS, (x, order), {"axis": axis})


@export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """int32 indices that sort ``values`` along ``axis``; equal elements keep their order, whatever ``stable``
    says (``tf.argsort``)."""
    return _sort_order(values, axis, direction)[1]

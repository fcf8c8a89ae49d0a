"""Tensors built from indices, ranges and diagonals: one_hot, sequence_mask, meshgrid, linspace, eye, and
``tf.linalg.diag`` / ``diag_part`` / ``set_diag`` / ``band_part``.

The diagonal ops follow TF's V3 kernels: ``k`` is one diagonal offset or a ``(low, high)`` pair, several
diagonals are stacked from ``high`` down to ``low``, and ``align`` says how shorter diagonals sit in their row.
MatrixDiagV3 and MatrixDiagPartV3 are each other's gradient (both linear), so second derivatives come for free.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core import sizes as _sizes
from .._core.convert import c_name, cannot_convert
from .._core.dispatch import execute
from .._core.exports import export
from .._core.opdefs import OPDEFS
from .._core.registry import ALL, FLOAT, defop
from .._core.sizes import wrap_int
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import matching, to_tensor
from .array_ops import BROADCAST_TO, CAST, RESHAPE, cast, ones, reshape, zeros
from .array_ops import range as _range
from .manip_ops import attr_error, expand_dims, kernel_error, value_of
from .math_ops import LESS, MUL, multiply
from .reduction_ops import SUM

__all__ = ["one_hot", "sequence_mask", "meshgrid", "linspace", "eye", "diag", "diag_part", "set_diag",
           "band_part"]


# ------------------------------------------------------------------------------------------ one_hot


@defop("OneHot", dtypes=ALL, same_dtype=False)
def ONE_HOT(indices, on_value, off_value, depth, axis):
    shape = list(indices.shape)
    shape.insert(len(shape) if axis == -1 else axis, depth)
    out = _sizes.empty(shape, np.asarray(on_value).dtype)  # the output first: an OOM names its shape
    out[...] = off_value
    lines = out if axis == -1 else np.moveaxis(out, axis, -1)  # a view with the depth axis last
    ok = (indices >= 0) & (indices < depth)  # out-of-range indices stay all off_value
    lines[(np.nonzero(ok) if ok.ndim else ()) + (indices[ok],)] = on_value
    return out


# OneHot is not differentiable in TF: no rule, so gradients through it are None.


@export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length ``depth`` at ``indices`` along ``axis`` (default: a new last axis)
    (``tf.one_hot``); out-of-range indices give all ``off_value``. The dtype comes from ``dtype``, else from the
    given values, else float32."""
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    if on is not None or off is not None:
        if dtype is not None:
            for label, t in (("on_value", on), ("off_value", off)):
                if t is not None and t.dtype != dtype:
                    raise TypeError(f"dtype {t.dtype} of {label} does not match dtype parameter {dtype}")
        else:
            dtype = on.dtype if on is not None else off.dtype
    elif dtype is None:
        dtype = _dtypes.float32
    on = convert_to_tensor(1, dtype) if on is None else on
    off = convert_to_tensor(0, dtype) if off is None else off
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of off_value")
    sfx = errors.error_name(name, indices, depth, on_value, off_value)
    idx = to_tensor(indices)
    if idx._value.dtype.name not in ("uint8", "int8", "int32", "int64"):
        raise attr_error("OneHot", "TI", idx.dtype, sfx)
    d = value_of(depth, _dtypes.int32)
    if d.ndim:
        raise kernel_error("OneHot", f"depth must be a scalar, but got: {errors.shape_str(d.shape)}", sfx)
    for label, t in (("on_value", on), ("off_value", off)):
        if t._value.ndim:
            raise kernel_error("OneHot", f"{label} must be a scalar, but got: {errors.shape_str(t._value.shape)}",
                               sfx)
    nd = idx._value.ndim
    axis = -1 if axis is None else int(axis)
    if axis != -1 and not 0 <= axis < nd + 1:
        raise kernel_error("OneHot", f"Expected axis to be -1 or between [0, {nd + 1}).  But received: {axis}", sfx)
    if int(d) < 0:
        raise kernel_error("OneHot", f"depth must be non-negative, got: {int(d)}", sfx)
    return errors.call_on_path(sfx is not None, execute, ONE_HOT, (idx, on, off), {"depth": int(d), "axis": axis})


# ------------------------------------------------------------------------------------------ sequence_mask


@export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool_, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (default: the largest length) (``tf.sequence_mask``).

    Not differentiable; a non-bool ``dtype`` casts the mask.
    """
    lengths = to_tensor(lengths)
    lv = lengths._value
    if maxlen is None:
        top = np.max(lv) if lv.size else lv.dtype.type(0)
        m = constant_of(np.maximum(lv.dtype.type(0), top))
    else:
        m = to_tensor(maxlen)
        if m._value.ndim:
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {m} with "
                             f"shape '{m.shape}' instead")
    mv = m._value
    row = _range(mv.dtype.type(0), m, mv.dtype.type(1), dtype=m.dtype)
    # The comparison with the lengths is an op (a traced program compares each call's lengths); the row of
    # positions depends on ``maxlen`` only, which shapes the result.
    column = execute(RESHAPE, (lengths,), {"shape": lv.shape + (1,)})
    if lv.dtype != mv.dtype:
        column = execute(CAST, (column,), {"dtype": mv.dtype.type})
    out = execute(LESS, (row, column))
    dtype = _dtypes.as_dtype(dtype)
    return out if dtype == _dtypes.bool_ else cast(out, dtype)


# ------------------------------------------------------------------------------------------ meshgrid


@export("meshgrid")
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D ``args`` (``tf.meshgrid``); ``indexing="xy"`` (default) swaps the first two
    axes of the result, ``"ij"`` does not. Built, as in TF, by multiplying each reshaped input by ones."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    n = len(args)
    if not n:
        return []
    xs = [to_tensor(x) for x in args]
    out = [reshape(x, (1,) * i + (-1,) + (1,) * (n - i - 1)) for i, x in enumerate(xs)]
    shapes = [x._value.size for x in xs]
    if indexing == "xy" and n > 1:
        out[0] = reshape(out[0], (1, -1) + (1,) * (n - 2))
        out[1] = reshape(out[1], (-1, 1) + (1,) * (n - 2))
        shapes[0], shapes[1] = shapes[1], shapes[0]
    ones_ = ones(shapes, xs[0].dtype)
    return [multiply(x, ones_) for x in out]


# ------------------------------------------------------------------------------------------ linspace


@defop("LinSpace", dtypes=FLOAT)
def LINSPACE(start, stop, num, axis):
    steps = max(num - 1, 1)
    s, e = np.expand_dims(start, axis), np.expand_dims(stop, axis)
    delta = (e - s) / s.dtype.type(steps)
    shape = [1] * s.ndim
    shape[axis] = -1
    inner = s + delta * np.arange(1, steps, dtype=s.dtype).reshape(shape)
    out = np.concatenate([s, inner, e], axis)
    return np.take(out, np.arange(num), axis)


@LINSPACE.defvjp
def _linspace_grad(g, y, start, stop, num, axis):
    # Element i is start * (1 - i / steps) + stop * i / steps, the ends exactly start and stop.
    shape = [1] * g._value.ndim
    shape[axis] = num
    dt = g._value.dtype
    w_stop = (np.arange(num) / max(num - 1, 1)).astype(dt).reshape(shape)
    attrs = {"axis": (axis,), "keepdims": False}
    gs = execute(SUM, (execute(MUL, (g, constant_of(1 - w_stop))),), attrs)
    ge = execute(SUM, (execute(MUL, (g, constant_of(w_stop))),), attrs)
    return gs, ge


_LINSPACE_TYPES = {"i": np.float64, "u": np.float64}


@export("linspace")
def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive, along a new ``axis`` (``tf.linspace``).

    ``start`` and ``stop`` broadcast against each other; integer ends give float64 values, as in TF.
    Differentiable in ``start`` and ``stop``.
    """
    start = to_tensor(start)
    try:
        stop = convert_to_tensor(stop, start.dtype)
    except ValueError as exc:
        raise ValueError(f"stop: {exc}") from None
    n = num if isinstance(num, Tensor) else convert_to_tensor(num, dtype_hint=_dtypes.int32)
    if n._value.dtype.kind not in "iu":
        raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = {n} of dtype: "
                        f"{n.dtype}")
    n = wrap_int(int(n._value), 32)  # TF takes num as int32: 2**32 + 5 values are 5 values there
    kind = start._value.dtype.kind
    if kind in "iu":
        wide = start._value.dtype.itemsize >= 4
        target = _dtypes.float64 if wide else _dtypes.float32
        start, stop = cast(start, target), cast(stop, target)
    try:
        shape = np.broadcast_shapes(start._value.shape, stop._value.shape)
    except ValueError:
        raise errors.op_error("BroadcastArgs", f"Incompatible shapes: {errors.shape_str(start._value.shape)} vs. "
                              f"{errors.shape_str(stop._value.shape)}") from None
    if start._value.shape != shape:
        start = execute(BROADCAST_TO, (start,), {"shape": shape})
    if stop._value.shape != shape:
        stop = execute(BROADCAST_TO, (stop,), {"shape": shape})
    nd = len(shape)
    axis = int(axis)
    if not -nd - 1 <= axis <= nd:
        expand_dims(start, axis)  # raises TF's ExpandDims error
    axis = axis + nd + 1 if axis < 0 else axis
    if n < 0:
        raise errors.op_error("Range", f"Requires start <= limit when delta > 0: 1/{-1}")
    # TF builds the inner points from an int64 range(1, num - 1), its first allocation of num's size.
    _sizes.reserve("Range", (max(n - 2, 0),), np.int64)
    return execute(LINSPACE, (start, stop), {"num": n, "axis": axis})


# ------------------------------------------------------------------------------------------ eye


@export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None):
    """An identity matrix, ``num_rows`` x ``num_columns`` (default square), repeated over ``batch_shape``
    (``tf.eye``)."""
    square = num_columns is None
    num_columns = num_rows if num_columns is None else num_columns
    if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
        num_rows, num_columns = int(value_of(num_rows)), int(value_of(num_columns))
    elif not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (num_rows, num_columns)):
        raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                        f"num_rows={num_rows}, num_columns={num_columns}")
    batch = [] if batch_shape is None else list(batch_shape)
    batch = [int(b) for b in batch]
    dtype = _dtypes.as_dtype(dtype)
    if dtype == _dtypes.string:
        raise cannot_convert(1, dtype)
    n = min(num_rows, num_columns)
    # TF's composition, whose allocations come in this order: Fill of the diagonal's ones, then the matrices,
    # a MatrixDiagV3 (square) or a Fill of zeros whose diagonal is set.
    ones(batch + [n], dtype)
    shape = batch + [num_rows, num_columns]
    if square:
        out = _sizes.allocating("MatrixDiagV3", "diag", _sizes.zeros, shape, dtype.as_numpy_dtype)
    else:
        out = zeros(shape, dtype)._value
    out[..., np.arange(n), np.arange(n)] = 1
    return constant_of(out)


# ------------------------------------------------------------------------------------------ diagonals


def _side(align):
    """Whether superdiagonals and subdiagonals are left-aligned, from TF's ``"RIGHT_LEFT"``-style names."""
    sup, sub = align.split("_")
    return sup == "LEFT", sub == "LEFT"


def _layout(rows, cols, lo, hi, align, max_len):
    """Index arrays ``(row_in_stack, pos_in_row, matrix_row, matrix_col)`` for every element of diagonals
    ``lo..hi`` of a ``rows`` x ``cols`` matrix, packed in rows of ``max_len`` as TF aligns them."""
    left_sup, left_sub = _side(align)
    parts = []
    for d in range(hi, lo - 1, -1):
        n = min(rows + min(0, d), cols - max(0, d))
        if n <= 0:
            continue
        left = (d >= 0 and left_sup) or (d <= 0 and left_sub)
        j = np.arange(n)
        parts.append((np.full(n, hi - d), j + (0 if left else max_len - n), j + max(0, -d), j + max(0, d)))
    if not parts:
        return tuple(np.zeros(0, np.intp) for _ in range(4))
    return tuple(np.concatenate(p) for p in zip(*parts))


@defop("MatrixDiagV3", dtypes=ALL)
def MATRIX_DIAG(diagonal, padding_value, k, num_rows, num_cols, align):
    lo, hi = k
    single = lo == hi
    batch = diagonal.shape[:-1] if single else diagonal.shape[:-2]
    out = np.full(batch + (num_rows, num_cols), padding_value, dtype=diagonal.dtype)
    di, pos, r, c = _layout(num_rows, num_cols, lo, hi, align, diagonal.shape[-1])
    out[..., r, c] = diagonal[..., pos] if single else diagonal[..., di, pos]
    return out


@MATRIX_DIAG.defvjp
def _matrix_diag_grad(g, y, diagonal, padding_value, k, num_rows, num_cols, align):
    zero = constant_of(g._value.dtype.type(0))
    return execute(MATRIX_DIAG_PART, (g, zero), {"k": k, "align": align}), None


@defop("MatrixDiagPartV3", dtypes=ALL)
def MATRIX_DIAG_PART(x, padding_value, k, align):
    lo, hi = k
    rows, cols = x.shape[-2:]
    max_len = max(min(rows + min(hi, 0), cols - max(lo, 0)), 0)
    lead = () if lo == hi else (hi - lo + 1,)
    out = np.full(x.shape[:-2] + lead + (max_len,), padding_value, dtype=x.dtype)
    di, pos, r, c = _layout(rows, cols, lo, hi, align, max_len)
    if lo == hi:
        out[..., pos] = x[..., r, c]
    else:
        out[..., di, pos] = x[..., r, c]
    return out


@MATRIX_DIAG_PART.defvjp
def _matrix_diag_part_grad(g, y, x, padding_value, k, align):
    rows, cols = x._value.shape[-2:]
    zero = constant_of(g._value.dtype.type(0))
    attrs = {"k": k, "num_rows": rows, "num_cols": cols, "align": align}
    return execute(MATRIX_DIAG, (g, zero), attrs), None


@defop("MatrixSetDiagV3", dtypes=ALL)
def MATRIX_SET_DIAG(x, diagonal, k, align):
    lo, hi = k
    rows, cols = x.shape[-2:]
    out = x.copy()
    di, pos, r, c = _layout(rows, cols, lo, hi, align, diagonal.shape[-1])
    out[..., r, c] = diagonal[..., pos] if lo == hi else diagonal[..., di, pos]
    return out


@MATRIX_SET_DIAG.defvjp(needs=True)
def _matrix_set_diag_grad(g, y, x, diagonal, needs, k, align):
    gx = execute(MATRIX_SET_DIAG, (g, constant_of(np.zeros_like(diagonal._value))), {"k": k, "align": align}) \
        if needs[0] else None
    gd = execute(MATRIX_DIAG_PART, (g, constant_of(g._value.dtype.type(0))), {"k": k, "align": align}) \
        if needs[1] else None
    return gx, gd


_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _check_align(align, op, sfx):
    if align not in _ALIGNS:
        text = (f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
                + ", ".join(f'"{a}"' for a in _ALIGNS) + f"\n\t; NodeDef: {{{{node {op}}}}}; {OPDEFS[op][1]} [Op:{op}]")
        raise errors.InvalidArgumentError(None, None, errors.with_name(text, sfx))


def _diag_index(k, op, sfx):
    kv = value_of(k, _dtypes.int32).reshape(-1).tolist()
    if not 1 <= len(kv) <= 2:
        raise kernel_error(op, f"diag_index must have only one or two elements, received {len(kv)} elements.", sfx)
    lo, hi = kv[0], kv[-1]
    if lo > hi:
        raise kernel_error(op, f"lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}", sfx)
    return int(lo), int(hi)


def _check_bounds(shape, lo, hi, op, sfx):
    rows, cols = shape[-2:]
    for label, v in (("lower", lo), ("upper", hi)):
        if not (-rows < v < cols or v == 0):
            stop = "." if op == "MatrixDiagPartV3" and label == "lower" else ""  # TF's wording varies so
            raise kernel_error(op, f"{label}_diag_index is out of bound: {v}{stop} It must be between {-rows} and "
                               f"{cols}", sfx)


def _matrix_band(x, k, align, op, sfx):
    """The diagonals ``(lo, hi)`` that ``k`` selects in the matrices of ``x``, checked in TF's order."""
    _check_align(align, op, sfx)
    shape = x._value.shape
    if len(shape) < 2:
        raise kernel_error(op, f"input must be at least 2-dim, received shape: {errors.shape_str(shape)}", sfx)
    lo, hi = _diag_index(k, op, sfx)
    _check_bounds(shape, lo, hi, op, sfx)
    return lo, hi


def _padding(x, padding_value, op, sfx):
    p = matching(x, padding_value)[1]
    if p.dtype != x.dtype:
        where = 4 if op == "MatrixDiagV3" else 2  # TF's inputs: (diagonal, k, num_rows, num_cols, padding_value)
        raise errors.InvalidArgumentError(None, None, errors.with_name(
            f"cannot compute {op} as input #{where}(zero-based) was expected to be a {c_name(x.dtype)} "
            f"tensor but is a {c_name(p.dtype)} tensor [Op:{op}]", sfx))
    return p


@export("linalg.diag")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A batch of matrices with ``diagonal`` on diagonal ``k`` (or a ``(low, high)`` band, stacked from ``high``
    down) and ``padding_value`` elsewhere (``tf.linalg.diag``); sizes are inferred when left at -1."""
    x = to_tensor(diagonal)
    sfx = errors.error_name(name, diagonal, k, num_rows, num_cols, padding_value)
    _check_align(align, "MatrixDiagV3", sfx)
    lo, hi = _diag_index(k, "MatrixDiagV3", sfx)
    shape = x._value.shape
    if not shape:
        raise kernel_error("MatrixDiagV3", f"diagonal must be at least 1-dim, received shape: "
                           f"{errors.shape_str(shape)}", sfx)
    if lo != hi and (len(shape) < 2 or shape[-2] != hi - lo + 1):
        raise kernel_error("MatrixDiagV3", "The number of diagonals provided in the input does not match the "
                           "lower_diag_index and upper_diag_index range.", sfx)
    max_len = shape[-1]
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    rows, cols = int(value_of(num_rows, _dtypes.int32)), int(value_of(num_cols, _dtypes.int32))
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows:
        raise kernel_error("MatrixDiagV3", "The number of rows is too small.", sfx)
    if cols < min_cols:
        raise kernel_error("MatrixDiagV3", "The number of columns is too small.", sfx)
    if rows != min_rows and cols != min_cols:
        raise kernel_error("MatrixDiagV3", "The number of rows or columns is not consistent with the specified "
                           "d_lower, d_upper, and diagonal.", sfx)
    p = _padding(x, padding_value, "MatrixDiagV3", sfx)
    return execute(MATRIX_DIAG, (x, p), {"k": (lo, hi), "num_rows": rows, "num_cols": cols, "align": align})


@export("linalg.diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """Diagonal ``k`` (or the ``(low, high)`` band, stacked from ``high`` down, short ones padded with
    ``padding_value``) of each matrix in ``input`` (``tf.linalg.diag_part``)."""
    x = to_tensor(input)
    sfx = errors.error_name(name, input, k, padding_value)
    lo, hi = _matrix_band(x, k, align, "MatrixDiagPartV3", sfx)
    p = _padding(x, padding_value, "MatrixDiagPartV3", sfx)
    return execute(MATRIX_DIAG_PART, (x, p), {"k": (lo, hi), "align": align})


@export("linalg.set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` with diagonal ``k`` (or the ``(low, high)`` band) replaced by ``diagonal``
    (``tf.linalg.set_diag``)."""
    x, d = matching(input, diagonal)
    sfx = errors.error_name(name, input, diagonal, k)
    lo, hi = _matrix_band(x, k, align, "MatrixSetDiagV3", sfx)
    shape = x._value.shape
    rows, cols = shape[-2:]
    max_len = max(min(rows + min(hi, 0), cols - max(lo, 0)), 0)
    if lo != hi and (d._value.ndim < 2 or d._value.shape[-2] != hi - lo + 1):
        raise kernel_error("MatrixSetDiagV3", "The number of diagonals provided in `diag` is not consistent with "
                           "`lower_diag_index` and `upper_diag_index`", sfx)
    expected = shape[:-2] + (() if lo == hi else (hi - lo + 1,)) + (max_len,)
    if d._value.shape != expected:
        raise kernel_error("MatrixSetDiagV3", "Either first dimensions of diagonal don't match input.shape[:-2], or "
                           "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                           f"[lower_diag_index:upper_diag_index].\nInput shape: {errors.shape_str(shape)}\nDiagonal "
                           f"shape: {errors.shape_str(d._value.shape)}\nExpected diagonal shape: "
                           f"{errors.shape_str(expected)}", sfx)
    return execute(MATRIX_SET_DIAG, (x, d), {"k": (lo, hi), "align": align})


@defop("MatrixBandPart", dtypes=ALL)
def MATRIX_BAND_PART(x, num_lower, num_upper):
    rows, cols = x.shape[-2:]
    offset = np.arange(rows)[:, None] - np.arange(cols)  # row - column: > 0 below the diagonal
    keep = ((num_lower < 0) | (offset <= num_lower)) & ((num_upper < 0) | (-offset <= num_upper))
    return np.where(keep, x, np.zeros((), x.dtype))


@MATRIX_BAND_PART.defvjp
def _matrix_band_part_grad(g, y, x, num_lower, num_upper):
    return (execute(MATRIX_BAND_PART, (g,), {"num_lower": num_lower, "num_upper": num_upper}),)


def _band_index(v, like):
    if isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False):
        return value_of(v)
    return value_of(v, _dtypes.dtype_of(like.dtype) if like is not None else _dtypes.int64)


@export("linalg.band_part")
def band_part(input, num_lower, num_upper, name=None):
    """``input`` with everything outside a band zeroed: ``num_lower`` subdiagonals and ``num_upper``
    superdiagonals are kept (negative: all of them) (``tf.linalg.band_part``)."""
    x = to_tensor(input)
    sfx = errors.error_name(name, input, num_lower, num_upper)
    tensors = [v for v in (num_lower, num_upper) if isinstance(v, Tensor)]
    like = tensors[0]._value if tensors else None
    lower, upper = _band_index(num_lower, like), _band_index(num_upper, like)
    for t in (lower, upper):
        if t.dtype.kind not in "iu":
            raise attr_error("MatrixBandPart", "Tindex", _dtypes.dtype_of(t.dtype), sfx)
    if lower.dtype != upper.dtype:
        raise errors.InvalidArgumentError(None, None, errors.with_name(
            f"cannot compute MatrixBandPart as input #2(zero-based) was expected to be a "
            f"{lower.dtype.name} tensor but is a {upper.dtype.name} tensor [Op:MatrixBandPart]", sfx))
    shape = x._value.shape
    if len(shape) < 2:
        raise kernel_error("MatrixBandPart", f"input must be at least 2-dim, received shape: "
                           f"{errors.shape_str(shape)}", sfx)
    for label, t in (("num_lower", lower), ("num_upper", upper)):
        if t.ndim:
            raise kernel_error("MatrixBandPart", f"{label} must be scalar, got shape {errors.shape_str(t.shape)}", sfx)
    rows, cols = shape[-2:]
    if int(lower) > rows:
        raise kernel_error("MatrixBandPart", f"num_lower must be negative or less or equal to number of rows ({rows}) "
                           f"got: {int(lower)}", sfx)
    if int(upper) > cols:
        raise kernel_error("MatrixBandPart", f"num_upper must be negative or less or equal to number of columns "
                           f"({cols}) got: {int(upper)}", sfx)
    return execute(MATRIX_BAND_PART, (x,), {"num_lower": int(lower), "num_upper": int(upper)})

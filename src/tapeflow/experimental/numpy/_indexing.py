"""Selection and rearrangement: ``take``, ``take_along_axis``, ``sort``, ``argsort``, ``diag``, ``diagflat``, ``tril``,
``triu``, ``pad``, ``nonzero``, ``select``, ``compress``, and NumPy-style indexing of tensors (integer and boolean
arrays as indices), which NumPy behavior turns on for ``t[...]``.

Selections are gathers and masks, so gradients flow back to the selected elements.
"""

from __future__ import annotations

import numbers

import numpy as np

import tapeflow as _tf

from ...ops import array_ops as _array_ops
from ._arrays import array, asarray, promote
from ._config import auto_conversion
from ._creation import tri
from ._math import broadcast, where
from ._shapes import atleast_1d, moveaxis, ravel, swapaxes

__all__ = ["take", "take_along_axis", "sort", "argsort", "diag", "diagflat", "tril", "triu", "pad", "nonzero",
           "select", "compress", "diag_indices", "ix_"]


def take(a, indices, axis=None, out=None, mode="clip"):
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None); out-of-range indices
    are clipped (``mode="clip"``, TF's default) or wrapped (``mode="wrap"``).

    Raises:
        ValueError: for ``out``, ``mode="raise"`` (not supported) or an unknown mode.
    """
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = asarray(a)
    indices = asarray(indices)
    if axis is None:
        a = _tf.reshape(a, [-1])
        axis = 0
    axis_size = _tf.shape(a, out_type=indices.dtype)[axis]
    if mode == "clip":
        indices = _tf.clip_by_value(indices, 0, axis_size - 1)
    elif mode == "wrap":
        indices = _tf.math.floormod(indices, axis_size)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return _tf.gather(a, indices, axis=axis)


def take_along_axis(arr, indices, axis):
    """The elements of ``arr`` at ``indices`` along ``axis``, the other axes broadcast (``np.take_along_axis``)."""
    arr = asarray(arr)
    indices = asarray(indices)
    if axis is None:
        return take_along_axis(arr.ravel(), indices, 0)
    rank = len(arr.shape)
    axis = axis + rank if axis < 0 else axis
    arr_shape, idx_shape = list(arr.shape), list(indices.shape)
    common = list(np.broadcast_shapes(tuple(arr_shape[:axis] + [1] + arr_shape[axis + 1:]),
                                      tuple(idx_shape[:axis] + [1] + idx_shape[axis + 1:])))
    arr = _tf.broadcast_to(arr, common[:axis] + [arr_shape[axis]] + common[axis + 1:])
    indices = _tf.broadcast_to(indices, common[:axis] + [idx_shape[axis]] + common[axis + 1:])
    indices = _tf.where(indices < 0, indices + arr_shape[axis], indices)
    last = axis == rank - 1
    if not last:
        arr, indices = swapaxes(arr, axis, -1), swapaxes(indices, axis, -1)
    moved_shape = list(indices.shape)
    flat_arr = _tf.reshape(arr, [-1, arr.shape[-1]])
    flat_idx = _tf.reshape(indices, [-1, moved_shape[-1]])
    result = _tf.reshape(_tf.gather(flat_arr, flat_idx, batch_dims=1), moved_shape)
    return result if last else swapaxes(result, axis, -1)


def sort(a, axis=-1, kind="quicksort", order=None):
    """``a`` sorted along ``axis`` (the flattened array when None).

    Raises:
        ValueError: for a ``kind`` other than "quicksort", or an ``order``.
    """
    if kind != "quicksort":
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" is supported. '
                         f"Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if axis is None:
        return _tf.sort(_tf.reshape(a, [-1]), 0)
    return _tf.sort(a, axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    """The indices that sort ``a`` along ``axis`` (int64; ``kind="stable"`` keeps ties in order).

    Raises:
        ValueError: for another ``kind``, or an ``order``.
        TypeError: for complex values.
    """
    if kind not in ("quicksort", "stable"):
        raise ValueError('Invalid value for argument `kind`. Only kind="quicksort" and kind="stable" are supported. '
                         f"Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = array(a)
    if a.dtype.is_complex:
        raise TypeError(f"argsort does not support complex64/complex128 dtypes. Received dtype: {a.dtype}")
    if len(a.shape) == 0:
        found = _tf.constant([0])
    elif axis is None:
        found = _tf.argsort(_tf.reshape(a, [-1]), 0, stable=kind == "stable")
    else:
        found = _tf.argsort(a, axis, stable=kind == "stable")
    return array(found, dtype=int if auto_conversion() else np.intp)


def diag(v, k=0):
    """The matrix with ``v`` on diagonal ``k`` (``v`` a vector), or diagonal ``k`` of ``v`` (a matrix).

    Raises:
        ValueError: for more than two dimensions.
    """
    v = asarray(v)
    if len(v.shape) > 2:
        raise ValueError(f"Shape {v.shape} must have rank at most 2")
    if len(v.shape) == 1:
        if v.shape[0] == 0:
            return _tf.zeros([abs(k), abs(k)], dtype=v.dtype)
        return _tf.linalg.diag(v, k=k)
    rows, cols = v.shape
    if k <= -rows or k >= cols:
        v, k = _tf.zeros([0, 0], dtype=v.dtype), 0
    return _tf.linalg.diag_part(v, k=k)


def diagflat(v, k=0):
    """The matrix with flattened ``v`` on diagonal ``k``."""
    return diag(_tf.reshape(asarray(v), [-1]), k)


def _triangle(m, k, name, lower):
    m = asarray(m)
    shape = m.shape.as_list()
    if len(shape) < 2:
        raise ValueError(f"Argument to {name} must have rank at least 2")
    zero = _tf.constant(0, m.dtype)
    mask = _tf.broadcast_to(tri(*shape[-2:], k=k if lower else k - 1, dtype=bool), _tf.shape(m))
    return _tf.where(mask, m, zero) if lower else _tf.where(mask, zero, m)


def tril(m, k=0):
    """``m`` with the elements above diagonal ``k`` zeroed (on the last two axes).

    Raises:
        ValueError: for fewer than two dimensions.
    """
    return _triangle(m, k, "tril", True)


def triu(m, k=0):
    """``m`` with the elements below diagonal ``k`` zeroed (on the last two axes).

    Raises:
        ValueError: for fewer than two dimensions.
    """
    return _triangle(m, k, "triu", False)


def pad(array, pad_width, mode, **kwargs):  # noqa: A002 - NumPy's argument name
    """``array`` padded by ``pad_width`` (one ``[before, after]`` pair per axis) in mode "constant" (with
    ``constant_values``), "reflect" or "symmetric".

    Raises:
        ValueError: for another mode.
    """
    constant_values = kwargs.get("constant_values", 0)
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    return _tf.pad(asarray(array), asarray(pad_width, dtype=np.int32), mode=mode.upper(),
                   constant_values=constant_values)


def nonzero(a):
    """The indices of the nonzero elements, one int64 vector per axis."""
    a = atleast_1d(a)
    return _tf.unstack(_tf.where(_tf.cast(a, _tf.bool)), len(a.shape), axis=1)


def select(condlist, choicelist, default=0):
    """Per element, the choice of the first condition that holds, else ``default``.

    Raises:
        ValueError: for lists of different lengths, or empty ones.
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = promote(default, *choicelist)
    output = choices[0]
    for cond, choice in zip(condlist[::-1], choices[1:][::-1]):
        output = where(cond, choice, output)
    return output


def compress(condition, a, axis=None):
    """The slices of ``a`` along ``axis`` where ``condition`` holds (missing conditions count as false).

    Raises:
        ValueError: for a condition that is not a vector.
    """
    condition = asarray(condition, dtype=bool)
    a = asarray(a)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array.")
    if a.ndim == 0:
        a = ravel(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    if axis < 0:
        axis += a.ndim
    missing = a.shape[axis] - condition.shape[0]
    if missing > 0:
        condition = _tf.concat([condition, _tf.fill([missing], False)], axis=0)
    return _tf.boolean_mask(a, condition, axis=axis)


def diag_indices(n, ndim=2):  # noqa: A002 - NumPy's argument name
    """The indices of the main diagonal of an ``n``-sided array of ``ndim`` dimensions: ``ndim`` int32 ranges.

    Raises:
        ValueError: for a negative ``n`` or ``ndim``.
    """
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (_tf.range(n),) * ndim


def ix_(*args):
    """Open-mesh index arrays from vectors (boolean vectors give their true positions).

    Raises:
        ValueError: for an argument that is not a vector of integers or bools.
    """
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if len(a.shape) != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {len(a.shape)}")
        shape = [1] * len(args)
        shape[i] = -1
        if a.dtype == _tf.bool:
            out.append(_tf.reshape(nonzero(a)[0], shape))
        elif a.dtype.is_integer:
            out.append(_tf.reshape(a, shape))
        else:
            raise ValueError(f"Only integer and bool dtypes are supported, got {a.dtype}")
    return out


# --------------------------------------------------------------------------------------------- t[...]

_SLICE_ERROR = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean "
                "arrays are valid indices")


def _as_index(idx):
    """An index that is not a slice, ``...`` or ``None``: ``(int or tensor, is_scalar)``."""
    if isinstance(idx, numbers.Integral):
        return idx, True
    data = asarray(idx)
    if data.dtype == _tf.bool:
        if len(data.shape) != 1:
            raise NotImplementedError(f"Need rank 1 for bool index {idx}")
        data = _tf.reshape(_tf.where(data), [-1])
    np_dtype = data.dtype.as_numpy_dtype
    if not np.issubdtype(np_dtype, np.integer):
        raise IndexError(_SLICE_ERROR + f", got {idx!r}")
    if data.dtype not in (_tf.int64, _tf.int32):
        promoted = np.promote_types(np.int32, np_dtype)
        if promoted not in (np.int32, np.int64):
            raise IndexError(_SLICE_ERROR + f", got {idx!r}")
        data = _tf.cast(data, promoted)
    return data, len(data.shape) == 0


def _as_spec_tuple(spec):
    if isinstance(spec, (list, tuple)):
        for s in spec:
            if s is None or s is Ellipsis or isinstance(s, (list, tuple, slice)) or (
                    isinstance(s, (np.ndarray, _tf.Tensor)) and s.ndim != 0):
                return tuple(spec)
    return (spec,)


def numpy_getitem(tensor, spec):
    """``tensor[spec]`` with NumPy's rules: the basic part (ints, slices, ``...``, ``None``) as a strided slice, the
    advanced part (integer and boolean arrays) as a gather over the axes it indexes."""
    if isinstance(spec, (bool, np.bool_)) or (isinstance(spec, (_tf.Tensor, np.ndarray)) and spec.dtype == _tf.bool):
        return _tf.boolean_mask(tensor, spec)
    if not isinstance(spec, tuple):
        spec = _as_spec_tuple(spec)
    basic, advanced, shrinks, seen_ellipsis = [], [], [], False
    for position, s in enumerate(spec):
        if isinstance(s, slice) or s is Ellipsis or s is None:
            seen_ellipsis = seen_ellipsis or s is Ellipsis
            basic.append(s)
            continue
        index, scalar = _as_index(s)
        if scalar:
            basic.append(index)
            shrinks.append(position)
        else:
            basic.append(slice(None))
            advanced.append((position, index, seen_ellipsis))
    result = _array_ops.getitem(tensor, tuple(basic))
    if not advanced:
        return result
    by_dim = {}
    for position, index, after_ellipsis in advanced:
        if after_ellipsis:
            by_dim[position - len(spec) + sum(1 for x in shrinks if x > position)] = index
        else:
            by_dim[position - sum(1 for x in shrinks if x < position)] = index
    dims = sorted(by_dim)
    contiguous = not (dims[0] < 0 <= dims[-1]) and all(b == a + 1 for a, b in zip(dims, dims[1:]))
    indices = broadcast(*promote(*[by_dim[d] for d in dims]))
    rank = len(result.shape)
    if not contiguous:
        result = moveaxis(result, dims, list(range(len(dims))))
        stacked = _tf.stack(indices, axis=-1)
        sizes = _tf.constant(result.shape.as_list()[:len(dims)], stacked.dtype)
        return _tf.gather_nd(result, _tf.where(stacked < 0, stacked + sizes, stacked))
    dims = [d + rank if d < 0 else d for d in dims]
    sizes = [result.shape[d] for d in dims]
    flat = _tf.cast(indices[0], _tf.int32) if len(dims) == 1 else _tf.cast(_tf.stack(indices, axis=-1), _tf.int32)
    flat = _tf.where(flat < 0, flat + _tf.constant(sizes, _tf.int32), flat)
    axis = dims[0]
    if len(dims) > 1:
        scales = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
        flat = _tf.reduce_sum(flat * _tf.constant(scales, _tf.int32), axis=-1)
        shape = result.shape.as_list()
        result = _tf.reshape(result, shape[:axis] + [-1] + shape[axis + len(dims):])
    return _tf.gather(result, flat, axis=axis)

"""Shape manipulation: ``reshape``, ``ravel``, ``transpose``, ``swapaxes``, ``moveaxis``, ``expand_dims``, ``squeeze``,
``atleast_*d``, ``concatenate``, the stacks, the splits, ``tile``, ``repeat``, ``broadcast_to``, the flips, ``roll``,
``rot90``, and ``shape``/``ndim``/``size``.

Each is one or a few of tapeflow's differentiable ops (reshape, transpose, concat, gather ...), so gradients reach
the arguments. Axes and shapes given as Python values are resolved in Python, as TF does when the rank is known.
"""

from __future__ import annotations

import builtins

import numpy as np

import tapeflow as _tf

from ._arrays import array, asarray, promote
from ._dtypes import result_type

__all__ = ["reshape", "ravel", "flatten", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze",
           "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "stack", "hstack", "vstack", "dstack", "append",
           "split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "broadcast_to", "broadcast_arrays", "flip",
           "fliplr", "flipud", "roll", "rot90", "shape", "ndim", "size", "isscalar"]


def _rank(t) -> int:
    return len(t.shape)


def reshape(a, newshape, order="C"):
    """``a`` with a new shape (``np.reshape``); ``order="F"`` fills it column-major.

    Raises:
        ValueError: for an ``order`` other than "C" and "F".
    """
    if order not in {"C", "F"}:
        raise ValueError(f"Unsupported order argument {order}")
    a = asarray(a)
    if isinstance(newshape, int):
        newshape = [newshape]
    if order == "F":
        return _tf.transpose(_tf.reshape(_tf.transpose(a), newshape[::-1]))
    return _tf.reshape(a, newshape)


def reshape_method(a, *newshape, **kwargs):
    """``t.reshape(2, 3)`` or ``t.reshape((2, 3))``, with NumPy behavior enabled.

    Raises:
        ValueError: for keyword arguments other than ``order``.
    """
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


def ravel(a):
    """``a`` flattened to one dimension."""
    return _tf.reshape(asarray(a), [-1])


def flatten(a, order="C"):
    """``a`` flattened, row-major ("C", "A", "K") or column-major ("F").

    Raises:
        ValueError: for another ``order``.
    """
    a = asarray(a)
    if order in ("C", "A", "K"):
        return _tf.reshape(a, [-1])
    if order == "F":
        return _tf.reshape(_tf.transpose(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


def transpose(a, axes=None):
    """``a`` with its axes reversed, or permuted by ``axes``."""
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return _tf.transpose(a, perm=axes)


def swapaxes(a, axis1, axis2):
    """``a`` with two axes exchanged."""
    a = asarray(a)
    rank = _rank(a)
    axis1 = axis1 + rank if axis1 < 0 else axis1
    axis2 = axis2 + rank if axis2 < 0 else axis2
    perm = list(range(rank))
    perm[axis1], perm[axis2] = axis2, axis1
    return _tf.transpose(a, perm)


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to the places ``destination``; the others keep their order.

    Raises:
        ValueError: when ``source`` and ``destination`` differ in length.
    """
    if not source and not destination:
        return a
    a = asarray(a)
    source = (source,) if isinstance(source, int) else source
    destination = (destination,) if isinstance(destination, int) else destination
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    rank = _rank(a)
    source = tuple(s + rank if s < 0 else s for s in source)
    destination = tuple(d + rank if d < 0 else d for d in destination)
    perm = [i for i in range(rank) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return _tf.transpose(a, perm)


def expand_dims(a, axis):
    """``a`` with a dimension of size 1 inserted at ``axis``."""
    return _tf.expand_dims(asarray(a), axis=axis)


def squeeze(a, axis=None):
    """``a`` without its dimensions of size 1 (or only ``axis``)."""
    return _tf.squeeze(asarray(a), axis)


def _atleast(n, new_shape, arys):
    def one(x):
        x = asarray(x)
        if n > _rank(x):
            x = reshape(x, new_shape(list(x.shape)))
        return asarray(x)

    out = [one(x) for x in arys]
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each argument with at least one dimension (one tensor, or a list for several)."""
    return _atleast(1, lambda s: [1] * (1 - len(s)) + s, arys)


def atleast_2d(*arys):
    """Each argument with at least two dimensions, new ones in front."""
    return _atleast(2, lambda s: [1] * (2 - len(s)) + s, arys)


def atleast_3d(*arys):
    """Each argument with at least three dimensions: a vector becomes ``1 x n x 1``, a matrix ``n x m x 1``."""
    return _atleast(3, lambda s: [1, 1, 1] if not s else [1, s[0], 1] if len(s) == 1 else s + [1], arys)


def concatenate(arys, axis=0):
    """The arrays joined along ``axis``, promoted to their common dtype.

    Raises:
        ValueError: for no arrays.
    """
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError(f"Need at least one array to concatenate. Received empty input: arys={arys}")
    dtype = result_type(*arys)
    return _tf.concat([array(x, dtype=dtype) for x in arys], axis)


def stack(arrays, axis=0):
    """The arrays joined along a new axis; a single tensor is unstacked along its first axis first."""
    if isinstance(arrays, _tf.Tensor):
        arrays = asarray(arrays)
        return arrays if axis == 0 else swapaxes(arrays, 0, axis)
    return asarray(_tf.stack(promote(*arrays), axis))


def hstack(tup):
    """The arrays joined along their second axis (the first, for vectors)."""
    arrays = promote(*[atleast_1d(a) for a in tup])
    return _tf.concat(arrays, axis=0 if _rank(arrays[0]) == 1 else 1)


def vstack(tup):
    """The arrays, as rows of at least two dimensions, joined along the first axis."""
    return _tf.concat(promote(*[atleast_2d(a) for a in tup]), axis=0)


def dstack(tup):
    """The arrays, given at least three dimensions, joined along the third axis."""
    return _tf.concat(promote(*[atleast_3d(a) for a in tup]), axis=2)


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` along ``axis`` (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def _boundaries_to_sizes(a, boundaries, axis):
    if axis >= len(a.shape):
        raise ValueError(f"axis {axis} is out of bound for shape {a.shape}")
    total = a.shape[axis]
    sizes, used, prev = [], 0, 0
    for i, b in enumerate(boundaries):
        size_ = b - prev
        if size_ < 0:
            raise ValueError(f"The {i}-th boundary {b} is smaller than the previous boundary {prev}")
        size_ = builtins.min(size_, builtins.max(0, total - used))
        sizes.append(size_)
        used += size_
        prev = b
    sizes.append(builtins.max(0, total - used))
    return sizes


def split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis`` into equal sections, or at the given indices (``np.split``)."""
    ary = asarray(ary)
    if not isinstance(indices_or_sections, int):
        indices_or_sections = _boundaries_to_sizes(ary, indices_or_sections, axis)
    return _tf.split(ary, indices_or_sections, axis=axis)


def _split_on(axis, name):
    def split_along(ary, indices_or_sections):
        new_axis = 0 if axis == 1 and _tf.rank(ary) == 1 else axis
        if isinstance(indices_or_sections, int):
            length = ary.shape[new_axis]
            if length is not None and length % indices_or_sections:
                raise ValueError("array split does not result in an equal division")
        return split(ary, indices_or_sections, axis=new_axis)

    split_along.__name__ = split_along.__qualname__ = name
    split_along.__doc__ = f"``split`` along axis {axis} (``np.{name}``; vectors split along their only axis)."
    return split_along


vsplit = _split_on(0, "vsplit")
hsplit = _split_on(1, "hsplit")
dsplit = _split_on(2, "dsplit")


def tile(a, reps):
    """``a`` repeated ``reps`` times along each axis (``np.tile``); the shorter of the two is padded with ones in
    front."""
    a = array(a)
    reps = np.reshape(np.asarray(reps, dtype=np.int32), [-1]).tolist()
    rank = _rank(a)
    reps = [1] * builtins.max(rank - len(reps), 0) + reps
    a = _tf.reshape(a, [1] * builtins.max(len(reps) - rank, 0) + list(a.shape))
    return _tf.tile(a, reps)


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (flattened when ``axis`` is None).

    As TF builds it: every element broadcast to the largest count, then masked down to its own count, so the
    gradient of each copy flows back to its element (densely).
    """
    a = asarray(a)
    repeats = asarray(repeats)
    if axis is None:
        a = _tf.reshape(a, [-1])
        axis = 0
    rank = len(a.shape)
    axis = axis + rank if axis < 0 else axis
    counts = _tf.broadcast_to(_tf.cast(repeats, _tf.int32), [a.shape[axis]])
    longest = _tf.reduce_max(counts) if a.shape[axis] else 0
    spread = _tf.expand_dims(a, axis + 1)
    shape = list(a.shape)
    spread = _tf.broadcast_to(spread, shape[:axis + 1] + [int(longest)] + shape[axis + 1:])
    return _tf.boolean_mask(spread, _tf.sequence_mask(counts, longest), axis=axis)


def broadcast_to(array, shape):  # noqa: A002 - NumPy's argument name
    """``array`` broadcast to ``shape``."""
    from ._creation import full

    return full(shape, array)


def broadcast_arrays(*args, **kwargs):
    """The arguments broadcast against each other.

    Raises:
        ValueError: for ``subok=True`` or any other keyword argument.
    """
    if kwargs.pop("subok", False):
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs.keys()}")
    args = [asarray(arg) for arg in args]
    if len(args) <= 1:
        return args
    common = np.broadcast_shapes(*[tuple(arg.shape) for arg in args])
    return [_tf.broadcast_to(arg, common) for arg in args]


def flip(m, axis=None):
    """``m`` reversed along ``axis`` (along every axis when None)."""
    m = asarray(m)
    rank = _rank(m)
    if axis is None:
        return _tf.reverse(m, list(range(rank)))
    return _tf.reverse(m, [axis + rank if axis < 0 else axis])


def fliplr(m):
    """``m`` reversed along its second axis."""
    return flip(m, 1)


def flipud(m):
    """``m`` reversed along its first axis."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``a`` rotated by ``shift`` along ``axis`` (over the flattened array when None)."""
    a = asarray(a)
    if axis is not None:
        return _tf.roll(a, shift, axis)
    return _tf.reshape(_tf.roll(_tf.reshape(a, [-1]), shift, 0), _tf.shape(a))


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    rank = int(_tf.rank(m))
    ax1, ax2 = (ax + rank if ax < 0 else ax for ax in axes)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(rank))
    perm[ax1], perm[ax2] = ax2, ax1
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


def shape(a):
    """The shape of ``a`` as a ``TensorShape``."""
    return asarray(a).shape


def ndim(a):
    """The number of dimensions of ``a``."""
    return asarray(a).ndim


def isscalar(num):
    """Whether ``num`` has no dimensions."""
    return ndim(num) == 0


def size(x, axis=None):
    """The number of elements of ``x`` (a NumPy integer).

    Raises:
        NotImplementedError: for ``axis``, which TF does not support.
    """
    if axis is not None:
        raise NotImplementedError("axis argument is not supported in the current `np.size` implementation")
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = asarray(x)
    return np.prod(x.shape.as_list(), dtype=int)

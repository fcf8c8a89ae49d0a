"""Shape manipulation: concat, split, squeeze, expand_dims, tile, reverse, roll, strided_slice.

Forward (NumPy) and gradient (tapeflow ops) side by side. Every op here is linear in its tensor input, and each
gradient rule is another op of this family (concat <-> split, reverse <-> reverse ...), so second derivatives
come for free. Integer arguments (axes, sizes, multiples) are attributes, checked in the public functions with
the wording of TF's kernels. ``pad_ops`` (pad, slice) and ``construct_ops`` (one_hot ... diag) complete the
family; the argument helpers here serve all three.
"""

from __future__ import annotations

import builtins
import re

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.exports import export
from .._core.opdefs import OPDEFS
from .._core.registry import ALL, defop
from .._core.sizes import check_built, empty, wrap_int
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import IDENTITY, RESHAPE, STRIDED_SLICE, zeros_like
from .math_ops import NEG
from .reduction_ops import SUM
from .shape_like_ops import EXPAND_DIMS_AT, RESHAPE_LIKE, SQUEEZE_AT, shape_varies

__all__ = ["concat", "split", "squeeze", "expand_dims", "tile", "reverse", "roll", "strided_slice"]


# ------------------------------------------------------------------------------------------ argument helpers


def kernel_error(op, message, name, node=None):
    """An error raised by ``op``'s kernel (``node`` names TF's function node when it differs: ``ConcatV2_N_2``)."""
    text = f"{{{{function_node __wrapped__{node or op}_device_{errors.CPU_DEVICE}}}}} {message} [Op:{op}]"
    return errors.InvalidArgumentError(None, None, errors.with_name(text, name))


def attr_error(op, attr, dtype, name):
    """TF's error for an argument whose dtype the op's ``attr`` does not allow (allowed list from TF's opdef)."""
    sig = OPDEFS[op][1]
    found = re.search(rf"attr={attr}:type,(?:default=\w+,)?allowed=\[([^\]]*)\]", sig)
    allowed = ", ".join(t[3:].lower() for t in found.group(1).split(", "))
    text = (f"Value for attr '{attr}' of {c_name(dtype)} is not in the list of allowed values: {allowed}\n"
            f"\t; NodeDef: {{{{node {op}}}}}; {sig} [Op:{op}]")
    return errors.InvalidArgumentError(None, None, errors.with_name(text, name))


def value_of(arg, dtype=None):
    """An argument as NumPy: tensors and variables as they are, other values converted (to ``dtype`` if given)."""
    if isinstance(arg, Tensor):
        v = arg._value
    elif getattr(arg, "_tapeflow_variable", False):
        v = arg.read_value()._value
    elif dtype is not None:
        v = convert_to_tensor(arg, dtype)._value
    elif isinstance(arg, (np.ndarray, np.generic)):
        v = arg
    else:
        v = convert_to_tensor(arg)._value
    return np.asarray(v)


def axis_value(arg):
    """A scalar (or size-1) int32 argument as NumPy, with a fast path for Python ints."""
    if type(arg) is int:
        return np.asarray(arg)
    return value_of(arg, _dtypes.int32)


def int_values(arg, op, attr, name, allowed="iu", like=None, default=_dtypes.int32):
    """An integer argument (int32/int64 in TF) as a NumPy array; TF's attr error for other dtypes.

    ``like``: an already converted argument of the same TF type attribute, whose dtype Python values take.
    ``default``: the attribute's default type in TF's opdef (None if it has none), which Python lists take when
    they fit it (so ``[]`` is an int32 list, and ``[2.0]`` stays a float one).
    """
    if isinstance(arg, (list, tuple)):
        try:
            quick = np.array(arg)  # the common case, nested Python ints, without the full conversion
        except ValueError:
            quick = np.array(())  # ragged: the full conversion below reports it
        if quick.dtype.kind == "i":
            if like is not None:
                return quick.astype(like.dtype)  # converted to the other argument's dtype: wraps, as in TF
            # A list that does not fit int32 is int64, as TF infers it: never wrapped (``tile(x, [2**32 + 1])``).
            small = not quick.size or (quick.min() >= -2**31 and quick.max() < 2**31)
            if default is not None and small:
                return quick.astype(default.as_numpy_dtype)
            return quick.astype(np.int32 if small else np.int64)
    if like is not None and not isinstance(arg, Tensor) and not getattr(arg, "_tapeflow_variable", False):
        return value_of(arg, _dtypes.dtype_of(like.dtype))
    if default is not None and isinstance(arg, (list, tuple)):
        try:
            return value_of(arg, default)
        except (TypeError, ValueError):
            pass
    v = value_of(arg)
    if v.dtype.kind not in allowed or v.dtype.kind == "b":
        raise attr_error(op, attr, _dtypes.dtype_of(v.dtype), name)
    return v


def scalar_if_0d(v):
    """A NumPy result with rank-0 values as NumPy scalars, as tensors hold them."""
    return v[()] if v.ndim == 0 else v


# ------------------------------------------------------------------------------------------ concat, split


@defop("ConcatV2", dtypes=ALL)
def CONCAT(*values, axis):
    return np.concatenate(values, axis)


@CONCAT.defvjp
def _concat_grad(g, y, *values, axis):
    sizes = tuple(v._value.shape[axis] for v in values)
    return execute(SPLIT_V, (g,), {"sizes": sizes, "axis": axis})


def _concat_check(values, axis, sfx):
    node = f"ConcatV2_N_{len(values)}"
    first = values[0]._value
    nd = first.ndim
    if not -nd <= axis < nd and axis != 0:
        raise kernel_error("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range [{-nd}, {nd}), "
                           f"but got {axis}", sfx, node)
    axis %= max(nd, 1)
    for i, t in enumerate(values):
        v = t._value
        if v.ndim == 0:
            raise kernel_error("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)", sfx, node)
        if i == 0:
            continue
        if v.ndim != nd:
            raise kernel_error("ConcatV2", f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                               f"{errors.shape_str(first.shape)} vs. shape[{i}] = {errors.shape_str(v.shape)}",
                               sfx, node)
        for d in range(nd):
            if d != axis and v.shape[d] != first.shape[d]:
                raise kernel_error("ConcatV2", f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                                   f"{errors.shape_str(first.shape)} vs. shape[{i}] = {errors.shape_str(v.shape)}",
                                   sfx, node)
    return axis


def _matching_list(values):
    """``values`` as tensors of one dtype: the first tensor's, else the first value's; others must fit it."""
    first = next((v for v in values if isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False)), values[0])
    dtype = to_tensor(first).dtype
    return tuple(to_tensor(v) if isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False)
                 else convert_to_tensor(v, dtype) for v in values)


@export("concat")
def concat(values, axis, name="concat"):
    """Join ``values`` along ``axis`` (``tf.concat``); one value comes back as its identity, as in TF."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if any(getattr(v, "_tapeflow_ragged", False) for v in values):
        from .ragged_ops import concat_ragged  # noqa: PLC0415 - the ragged modules build on this one

        return concat_ragged(values, axis)
    sfx = errors.error_name(name, axis)
    if len(values) == 1:
        ax = axis_value(axis)
        if ax.ndim:
            raise ValueError(f"Shape {tuple(ax.shape)} must have rank 0")
        return execute(IDENTITY, (to_tensor(values[0]),))
    if not values:
        raise errors.InvalidArgumentError(
            None, None, "OpKernel 'ConcatV2' has constraint on attr 'T' not in NodeDef '[N=0, Tidx=DT_INT32]', "
            "KernelDef: 'goo.gle/debugonly  op: \"ConcatV2\" device_type: \"CPU\" constraint { name: \"T\" "
            "allowed_values { list { type: DT_QINT32 } } } host_memory_arg: \"axis\"' [Op:ConcatV2] name: concat")
    if any(isinstance(v, (list, tuple, np.generic)) for v in values):
        sfx = None
    tensors = _matching_list(values)
    ax = int_values(axis, "ConcatV2", "Tidx", sfx) if isinstance(axis, Tensor) else axis_value(axis)
    if ax.ndim > 1 or ax.size != 1:
        raise kernel_error("ConcatV2", f"axis tensor should be a scalar integer, but got shape "
                           f"{errors.shape_str(ax.shape)}", sfx, f"ConcatV2_N_{len(values)}")
    dt = tensors[0]._value.dtype
    for i, t in enumerate(tensors):
        if t._value.dtype != dt:
            raise errors.InvalidArgumentError(None, None, errors.with_name(
                f"cannot compute ConcatV2 as input #{i}(zero-based) was expected to be a "
                f"{c_name(tensors[0].dtype)} tensor but is a {c_name(t.dtype)} tensor [Op:ConcatV2]", sfx))
    axis = _concat_check(tensors, int(ax.reshape(())), sfx)
    return execute(CONCAT, tensors, {"axis": axis})


def _split_forward(x, sizes, axis):
    lead = (builtins.slice(None),) * axis
    out, start = [], 0
    for n in sizes:
        out.append(x[lead + (builtins.slice(start, start + n),)].copy())
        start += n
    return tuple(out)


def _split_grad(gs, ys, x, sizes, axis):
    parts = [g if g is not None else zeros_like(y) for g, y in zip(gs, ys)]
    if len(parts) == 1:
        return (parts[0],)
    return (execute(CONCAT, tuple(parts), {"axis": axis}),)


# One op per TF op; both return as many outputs as there are pieces (a tuple even for one piece).
SPLIT = defop("Split", dtypes=ALL, multi_output=True)(_split_forward)
SPLIT.defvjp(_split_grad)
SPLIT_V = defop("SplitV", dtypes=ALL, multi_output=True)(_split_forward)
SPLIT_V.defvjp(_split_grad)


def _split_axis(x, axis, op, node, sfx):
    a = axis_value(axis)
    if a.ndim:
        raise kernel_error(op, f"split_dim must be a scalar but has rank {a.ndim}", sfx, node)
    a = int(a)
    nd = x._value.ndim
    if not -nd <= a < nd:
        raise kernel_error(op, f"-input rank(-{nd}) <= split_dim < input rank ({nd}), but got {a}", sfx, node)
    return a % nd


def _num_split_error(op, n, sfx):
    sig = OPDEFS[op][1]
    text = (f"Value for attr 'num_split' of {n} must be at least minimum 1\n\t; NodeDef: {{{{node {op}}}}}; {sig} "
            f"[Op:{op}]")
    return errors.InvalidArgumentError(None, None, errors.with_name(text, sfx))


@export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split ``value`` along ``axis`` into ``num_or_size_splits`` equal pieces or pieces of the given sizes
    (one size may be -1: the rest) (``tf.split``); returns a list of tensors."""
    x = to_tensor(value)
    sfx = errors.error_name(name, axis)
    n = num_or_size_splits
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)):
        n = int(n)
        if n < 1:
            raise _num_split_error("Split", n, sfx if n == 0 else None)
        node = f"Split_num_split_{n}"
        a = _split_axis(x, axis, "Split", node, sfx)
        dim = x._value.shape[a]
        if dim % n:
            raise kernel_error("Split", f"Number of ways to split should evenly divide the split dimension, but got "
                               f"split_dim {a} (size = {dim}) and num_split {n}", sfx, node)
        return list(execute(SPLIT, (x,), {"sizes": (dim // n,) * n, "axis": a}))
    if isinstance(n, Tensor) and n._value.ndim == 0 or np.ndim(n) == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. Argument "
                         f"provided: {n!s}")
    raw = value_of(n)
    count = num if num is not None else raw.shape[0] if raw.ndim else 1
    if count < 1:
        raise _num_split_error("SplitV", count, sfx)
    sizes = int_values(n, "SplitV", "Tlen", sfx, default=None)
    node = f"SplitV_num_split_{count}"
    a = _split_axis(x, axis, "SplitV", node, sfx)
    if sizes.ndim != 1 or sizes.size != count:
        raise kernel_error("SplitV", f"size of the split_tensor must be 1-D and have the same elements as outputs "
                           f"got {sizes.ndim} -D and {sizes.size} elements", sfx, node)
    dim = x._value.shape[a]
    sizes = [int(s) for s in sizes]
    if count == 1:
        if sizes[0] != dim:
            raise kernel_error("SplitV", f"If there is only one output, it must have the same size as the input. "
                               f"Input size: {dim} output size: {sizes[0]}", sfx, node)
        return [execute(IDENTITY, (x,))]
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise kernel_error("SplitV", "There can only be one -1 in the input.", sfx, node)
    for i, s in enumerate(sizes):
        if s < -1:
            raise kernel_error("SplitV", f"Split size at index {i} must be >= 0. Got: {s}", sfx, node)
    known = sum(s for s in sizes if s != -1)
    if (unknown and known > dim) or (not unknown and known != dim):
        raise kernel_error("SplitV", "Determined shape must either match input shape along split_dim exactly if "
                           "fully specified, or be less than the size of the input along split_dim if not fully "
                           f"specified.  Got: {known}", sfx, node)
    if unknown:
        sizes[unknown[0]] = dim - known
    return list(execute(SPLIT_V, (x,), {"sizes": tuple(sizes), "axis": a}))


# ------------------------------------------------------------------------------------------ squeeze, expand_dims


def _reshape_back(g, y, x, shape):
    """The gradient of an op that only changes the shape (Squeeze, ExpandDims): ``g`` in the input's shape."""
    if shape_varies(x):
        return (execute(RESHAPE_LIKE, (g, x)),)
    return (execute(RESHAPE, (g,), {"shape": x._value.shape}),)


# The public functions work out the output shape; the op itself is a reshape to it.
SQUEEZE = defop("Squeeze", dtypes=ALL)(RESHAPE.forward)
SQUEEZE.defvjp(_reshape_back)


@export("squeeze")
def squeeze(input, axis=None, name=None):
    """``input`` without its size-1 dimensions, or only those in ``axis`` (``tf.squeeze``)."""
    x = to_tensor(input)
    shape = x._value.shape
    nd = len(shape)
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        if isinstance(axis, (Tensor, np.ndarray)):
            raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
        items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        # An attribute: floats are truncated, and (like NumPy scalars) take TF's slow path (no name suffix).
        slow = any(isinstance(a, (float, np.generic)) for a in items)
        sfx = None if slow else "" if name is None else name
        axes = []
        for a in items:
            a = int(a)
            if not -nd <= a < nd:
                raise kernel_error("Squeeze", f"Tried to squeeze dim index {a} for tensor with {nd} dimensions.", sfx)
            a %= nd
            if shape[a] != 1:
                raise kernel_error("Squeeze", f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape[a]}",
                                   sfx)
            axes.append(a)
    if shape_varies(x):
        return execute(SQUEEZE_AT, (x,), {"axis": tuple(axes)})
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return execute(SQUEEZE, (x,), {"shape": out})


EXPAND_DIMS = defop("ExpandDims", dtypes=ALL)(RESHAPE.forward)
EXPAND_DIMS.defvjp(_reshape_back)


@export("expand_dims")
def expand_dims(input, axis, name=None):
    """``input`` with a size-1 dimension inserted at ``axis`` (``-1`` appends one) (``tf.expand_dims``)."""
    x = to_tensor(input)
    sfx = errors.error_name(name, axis)
    a = axis_value(axis) if not isinstance(axis, Tensor) else int_values(axis, "ExpandDims", "Tdim",
                                                                                          sfx)
    if a.size != 1:
        raise kernel_error("ExpandDims", "'dim' must be a tensor with a single value", sfx)
    a = int(a.reshape(()))
    shape = x._value.shape
    nd = len(shape)
    if not -nd - 1 <= a <= nd:
        raise kernel_error("ExpandDims", f"Tried to expand dim index {a} for tensor with {nd} dimensions.", sfx)
    a = a + nd + 1 if a < 0 else a
    if shape_varies(x):
        return execute(EXPAND_DIMS_AT, (x,), {"axis": a})
    return execute(EXPAND_DIMS, (x,), {"shape": shape[:a] + (1,) + shape[a:]})


# ------------------------------------------------------------------------------------------ tile


@defop("Tile", dtypes=ALL)
def TILE(x, multiples):
    if not multiples:
        return x
    # The output is allocated first (an OOM names its shape, as TF's does), then filled by broadcasting x over
    # the (m0, d0, m1, d1 ...) view of it.
    out = empty(tuple(m * d for m, d in zip(multiples, x.shape)), x.dtype)
    split = tuple(v for m, d in zip(multiples, x.shape) for v in (m, d))
    out.reshape(split)[...] = x.reshape(tuple(v for d in x.shape for v in (1, d)))
    return out


@TILE.defvjp
def _tile_grad(g, y, x, multiples):
    # The tiled copies become their own axes (m0, d0, m1, d1 ...), which are summed away.
    shape = x._value.shape
    split = tuple(v for m, d in zip(multiples, shape) for v in (m, d))
    g = execute(RESHAPE, (g,), {"shape": split})
    return (execute(SUM, (g,), {"axis": tuple(range(0, len(split), 2)), "keepdims": False}),)


@export("tile")
def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[i]`` times along each axis ``i`` (``tf.tile``)."""
    x = to_tensor(input)
    sfx = errors.error_name(name, multiples)
    m = int_values(multiples, "Tile", "Tmultiples", sfx)
    if m.ndim != 1:
        raise kernel_error("Tile", f"Expected multiples to be 1-D, but got shape {errors.shape_str(m.shape)}", sfx)
    nd = x._value.ndim
    if m.size != nd:
        raise kernel_error("Tile", f"Expected multiples argument to be a vector of length {nd} but got length "
                           f"{m.size}", sfx)
    for i, k in enumerate(m.tolist()):
        if k < 0:
            raise kernel_error("Tile", f"Expected multiples[{i}] >= 0, but got {k}", sfx)
    multiples = tuple(int(k) for k in m.tolist())
    # TF multiplies in int64 (wrapping) and builds the shape one dimension at a time.
    dims = [wrap_int(d * k) for d, k in zip(x._value.shape, multiples)]
    check_built("Tile", dims, sfx)
    if any(d != a * k for d, a, k in zip(dims, x._value.shape, multiples)):
        # A size wrapped to 0 (4 * 2**62): empty, as in TF.
        return zeros_like(constant_of(np.zeros(dims, x._value.dtype)))
    return errors.call_on_path(sfx is not None, execute, TILE, (x,), {"multiples": multiples})


# ------------------------------------------------------------------------------------------ reverse, roll


@defop("ReverseV2", dtypes=ALL)
def REVERSE(x, axis):
    return np.flip(x, axis).copy() if axis else x


@REVERSE.defvjp
def _reverse_grad(g, y, x, axis):
    return (execute(REVERSE, (g,), {"axis": axis}),)


@export("reverse")
def reverse(tensor, axis, name=None):
    """``tensor`` with the order of elements along each axis in ``axis`` reversed (``tf.reverse``)."""
    x = to_tensor(tensor)
    sfx = errors.error_name(name, axis)
    a = int_values(axis, "ReverseV2", "Tidx", sfx)
    if a.ndim != 1:
        raise kernel_error("ReverseV2", f"'dims' must be 1-dimension, not {a.ndim}", sfx)
    nd = x._value.ndim
    seen = []
    for i, k in enumerate(a.tolist()):
        if not -nd <= k < nd:
            raise kernel_error("ReverseV2", f"'axis'[{i}] = {k} is out of valid range [0, {nd - 1}", sfx)
        k %= nd
        if k in seen:
            raise kernel_error("ReverseV2", f"axis {k} specified more than once.", sfx)
        seen.append(k)
    return execute(REVERSE, (x,), {"axis": tuple(seen)})


@defop("Roll", dtypes=ALL, same_dtype=False)
def ROLL(x, shift, axis):
    """``x`` rolled by ``shift`` (an input, as in TF: a traced program rolls by each call's shift), one int per
    axis of ``axis``."""
    return np.roll(x, tuple(int(v) for v in np.reshape(shift, -1)), axis)


@ROLL.defvjp
def _roll_grad(g, y, x, shift, axis):
    return execute(ROLL, (g, execute(NEG, (shift,))), {"axis": axis}), None


@export("roll")
def roll(input, shift, axis, name=None):
    """``input`` with elements shifted cyclically by ``shift`` along ``axis`` (both ints or lists) (``tf.roll``)."""
    x = to_tensor(input)
    sfx = errors.error_name(name, shift, axis)
    s = int_values(shift, "Roll", "Tshift", sfx, default=None)
    a = int_values(axis, "Roll", "Taxis", sfx, default=None)
    nd = x._value.ndim
    if nd == 0:
        raise kernel_error("Roll", "input must be 1-D or higher", sfx)
    if s.ndim > 1:
        raise kernel_error("Roll", f"shift must be a scalar or a 1-D vector. Found: {errors.shape_str(s.shape)}", sfx)
    if a.ndim > 1:
        raise kernel_error("Roll", f"axis must be a scalar or a 1-D vector. Found: {errors.shape_str(a.shape)}", sfx)
    if s.size != a.size:
        raise kernel_error("Roll", "shift and axis must have the same size", sfx)
    axes = []
    for k in a.reshape(-1).tolist():
        k = k + nd if k < 0 else k
        if not 0 <= k < nd:
            raise kernel_error("Roll", f"axis {k} is out of range", sfx)
        axes.append(k)
    shift = to_tensor(shift) if isinstance(shift, Tensor) or getattr(shift, "_tapeflow_variable", False) else \
        constant_of(s)
    return execute(ROLL, (x, shift), {"axis": tuple(axes)})


# ------------------------------------------------------------------------------------------ strided_slice


def _bits(mask, n):
    return [bool(mask >> i & 1) for i in range(n)]


@export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """``input_[begin:end:strides]`` per axis, with TF's bit masks (``tf.strided_slice``).

    Bit ``i`` of ``begin_mask``/``end_mask`` ignores ``begin[i]``/``end[i]``; of ``ellipsis_mask`` makes entry
    ``i`` an ellipsis; of ``new_axis_mask`` inserts an axis; of ``shrink_axis_mask`` takes index ``begin[i]``
    and drops the axis. Runs the same op as ``input_[...]``.
    """
    x = to_tensor(input_)
    sfx = errors.error_name(name, begin, end, strides)
    b = int_values(begin, "StridedSlice", "Index", sfx, default=None)
    e = int_values(end, "StridedSlice", "Index", sfx, like=b)
    s = np.ones_like(b) if strides is None else int_values(strides, "StridedSlice", "Index", sfx, like=b)
    if b.ndim != 1 or e.shape != b.shape or s.shape != b.shape:
        raise kernel_error("StridedSlice", "Expected begin, end, and strides to be 1D equal size tensors, but got "
                           f"shapes {errors.shape_str(b.shape)}, {errors.shape_str(e.shape)}, and "
                           f"{errors.shape_str(s.shape)} instead.", sfx)
    n = b.size
    ell, new, shrink = _bits(ellipsis_mask, n), _bits(new_axis_mask, n), _bits(shrink_axis_mask, n)
    bm, em = _bits(begin_mask, n), _bits(end_mask, n)
    index = []
    for i in range(n):
        if ell[i]:
            index.append(Ellipsis)
        elif new[i]:
            index.append(None)
        elif shrink[i]:
            index.append(int(b[i]))
        else:
            index.append(builtins.slice(None if bm[i] else int(b[i]), None if em[i] else int(e[i]), int(s[i])))
    index = tuple(index)
    check_strided_index(x._value.shape, index, sfx, strides=s.tolist())
    return execute(STRIDED_SLICE, (x,), {"index": index})


def check_strided_index(shape, index, sfx, strides=None):
    """Refuse a normalised index (ints, slices, None, Ellipsis) as TF's StridedSlice kernel does."""
    nd = len(shape)
    if sum(1 for k in index if k is Ellipsis) > 1:
        raise kernel_error("StridedSlice", "Multiple ellipses in slice spec not allowed", sfx)
    consumed = sum(1 for k in index if k is not None and k is not Ellipsis)
    if nd == 0 and consumed:
        raise kernel_error("StridedSlice", "Attempting to slice scalar input.", sfx)
    if consumed > nd:
        raise kernel_error("StridedSlice", f"Index out of range using input dim {nd}; input has only {nd} dims", sfx)
    axis = 0
    for i, k in enumerate(index):
        if k is Ellipsis:
            axis += nd - consumed
            continue
        if k is None:
            continue
        step = strides[i] if strides is not None else (k.step if isinstance(k, builtins.slice) else 1)
        if step == 0:
            raise kernel_error("StridedSlice", f"strides[{i}] must be non-zero", sfx)
        if isinstance(k, int) and step < 0:
            raise kernel_error("StridedSlice", "only stride 1 allowed on non-range indexing.", sfx)
        if isinstance(k, int) and not -shape[axis] <= k < shape[axis]:
            shown = k + shape[axis] if k < 0 else k
            raise kernel_error("StridedSlice", f"slice index {shown} of dimension {axis} out of bounds.", sfx)
        axis += 1

"""Padding and slicing: ``tf.pad`` (Pad, PadV2, MirrorPad) and ``tf.slice`` (Slice).

Pad and Slice are each other's gradient; MirrorPad's gradient folds the mirrored borders back (MirrorPadGrad),
and MirrorPad is the gradient of that fold, so every rule here is twice differentiable.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._core import errors
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import ALL, defop
from .._core.sizes import check_built, wrap_int
from .._core.tensor import Tensor
from ._convert import matching, to_tensor
from .manip_ops import int_values, kernel_error, scalar_if_0d

__all__ = ["pad", "slice"]


# ------------------------------------------------------------------------------------------ pad, slice


def _pad_constant(x, paddings, value):
    # Filling a fresh array and assigning the centre is several times quicker than np.pad.
    if not paddings:
        return x
    out = np.full(tuple(d + a + b for d, (a, b) in zip(x.shape, paddings)), value, dtype=x.dtype)
    out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, paddings))] = x
    return out


@defop("Pad", dtypes=ALL)
def PAD(x, paddings):
    return _pad_constant(x, paddings, b"" if x.dtype.kind == "O" else 0)


@PAD.defvjp
def _pad_grad(g, y, x, paddings):
    return (execute(SLICE, (g,), {"begin": tuple(p[0] for p in paddings), "size": x._value.shape}),)


@defop("PadV2", dtypes=ALL)
def PAD_V2(x, constant_values, paddings):
    return _pad_constant(x, paddings, constant_values)


@PAD_V2.defvjp
def _pad_v2_grad(g, y, x, constant_values, paddings):
    # TF gives the padding value no gradient (None), though it appears in the output.
    return execute(SLICE, (g,), {"begin": tuple(p[0] for p in paddings), "size": x._value.shape}), None


_MIRROR = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}


@defop("MirrorPad", dtypes=ALL)
def MIRROR_PAD(x, paddings, mode):
    return scalar_if_0d(np.pad(x, paddings, mode=_MIRROR[mode])) if paddings else x


@MIRROR_PAD.defvjp
def _mirror_pad_grad(g, y, x, paddings, mode):
    return (execute(MIRROR_PAD_GRAD, (g,), {"paddings": paddings, "mode": mode}),)


@defop("MirrorPadGrad", dtypes=ALL)
def MIRROR_PAD_GRAD(g, paddings, mode):
    # Fold each padded border back onto the elements it mirrors, one axis at a time.
    off = 1 if mode == "REFLECT" else 0
    out = g
    for axis, (before, after) in enumerate(paddings):
        n = out.shape[axis] - before - after
        moved = np.moveaxis(out, axis, 0)
        core = moved[before:before + n].copy()
        if before:
            core[off:off + before] += moved[:before][::-1]
        if after:
            core[n - off - after:n - off] += moved[before + n:][::-1]
        out = np.moveaxis(core, 0, axis)
    return scalar_if_0d(np.ascontiguousarray(out))


@MIRROR_PAD_GRAD.defvjp
def _mirror_pad_grad_grad(gg, y, g, paddings, mode):
    return (execute(MIRROR_PAD, (gg,), {"paddings": paddings, "mode": mode}),)


def _check_paddings(x, p, op, sfx):
    if p.ndim != 2 or p.shape[1] != 2:
        raise kernel_error(op, f"paddings must be a matrix with 2 columns: {errors.shape_str(p.shape)}", sfx)
    shape = x._value.shape
    if p.shape[0] != len(shape):
        raise kernel_error(op, f"The first dimension of paddings must be the rank of inputs"
                           f"{errors.shape_str(p.shape)} {errors.shape_str(shape)}", sfx)
    word = "paddings" if op == "MirrorPad" else "Paddings"
    for before, after in p.tolist():
        if before < 0 or after < 0:
            raise kernel_error(op, f"{word} must be non-negative: {before} {after}", sfx)
    p = tuple((int(b), int(a)) for b, a in p.tolist())
    if op != "MirrorPad":  # (MirrorPad's paddings are bounded by the input's dimensions)
        # TF adds in int64 (wrapping) and builds the output shape one dimension at a time.
        check_built(op, [wrap_int(b + d + a) for d, (b, a) in zip(shape, p)], sfx)
    return p


@export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tensor`` padded by ``paddings[i] = [before, after]`` along each axis (``tf.pad``).

    ``mode`` is ``"CONSTANT"`` (with ``constant_values``), ``"REFLECT"`` (mirrored without the border element)
    or ``"SYMMETRIC"`` (with it), in any case. The padding value gets no gradient, as in TF.
    """
    x = to_tensor(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    sfx = errors.error_name(name, paddings)
    if mode != "CONSTANT":
        p = _check_paddings(x, int_values(paddings, "MirrorPad", "Tpaddings", sfx), "MirrorPad", sfx)
        shape = x._value.shape
        for axis, (before, after) in enumerate(p):
            if mode == "REFLECT" and (before >= shape[axis] or after >= shape[axis]):
                raise kernel_error("MirrorPad", f"paddings must be less than the dimension size: {before}, {after} "
                                   f"not less than {shape[axis]}", sfx)
            if mode == "SYMMETRIC" and (before > shape[axis] or after > shape[axis]):
                raise kernel_error("MirrorPad", f"paddings must be no greater than the dimension size: {before}, "
                                   f"{after} greater than {shape[axis]}", sfx)
        return errors.call_on_path(sfx is not None, execute, MIRROR_PAD, (x,), {"paddings": p, "mode": mode})
    zero = (not isinstance(constant_values, Tensor) and not getattr(constant_values, "_tapeflow_variable", False)
            and np.ndim(constant_values) == 0 and constant_values == np.zeros_like(constant_values))
    if zero:
        p = _check_paddings(x, int_values(paddings, "Pad", "Tpaddings", sfx), "Pad", sfx)
        return errors.call_on_path(sfx is not None, execute, PAD, (x,), {"paddings": p})
    c = matching(x, constant_values)[1]
    sfx = errors.error_name(name, paddings, constant_values)
    if c.dtype != x.dtype:
        raise errors.InvalidArgumentError(None, None, errors.with_name(
            f"cannot compute PadV2 as input #2(zero-based) was expected to be a {c_name(x.dtype)} "
            f"tensor but is a {c_name(c.dtype)} tensor [Op:PadV2]", sfx))
    p = _check_paddings(x, int_values(paddings, "PadV2", "Tpaddings", sfx), "PadV2", sfx)
    if c._value.ndim:
        raise kernel_error("PadV2", f"constant_values must be a scalar. Found: {errors.shape_str(c._value.shape)}",
                           sfx)
    return errors.call_on_path(sfx is not None, execute, PAD_V2, (x, c), {"paddings": p})


@defop("Slice", dtypes=ALL)
def SLICE(x, begin, size):
    out = x[tuple(builtins.slice(b, b + s) for b, s in zip(begin, size))]
    return out.copy() if isinstance(out, np.ndarray) else out


@SLICE.defvjp
def _slice_grad(g, y, x, begin, size):
    shape = x._value.shape
    return (execute(PAD, (g,), {"paddings": tuple((b, d - b - s) for b, s, d in zip(begin, size, shape))}),)


@export("slice")
def slice(input_, begin, size, name=None):
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the end) (``tf.slice``)."""
    x = to_tensor(input_)
    sfx = errors.error_name(name, begin, size)
    b = int_values(begin, "Slice", "Index", sfx, default=None)
    s = int_values(size, "Slice", "Index", sfx, like=b)
    shape = x._value.shape
    nd = len(shape)
    if b.ndim != 1 or s.ndim != 1 or b.size != nd or s.size != nd:
        raise kernel_error("Slice", f"Expected begin and size arguments to be 1-D tensors of size {nd}, but got "
                           f"shapes {errors.shape_str(b.shape)} and {errors.shape_str(s.shape)} instead.", sfx)
    begin, size = [], []
    for i, (bi, si, d) in enumerate(zip(b.tolist(), s.tolist(), shape)):
        if si == -1:
            si = d - bi
        if d == 0:
            if bi != 0 or si != 0:
                raise kernel_error("Slice", f"Expected begin[{i}] == 0 (got {bi}) and size[{i}] == 0 (got {si}) when "
                                   f"input.dim_size({i}) == 0", sfx)
        else:
            if not 0 <= bi <= d:
                raise kernel_error("Slice", f"Expected begin[{i}] in [0, {d}], but got {bi}", sfx)
            if not 0 <= si <= d - bi:
                raise kernel_error("Slice", f"Expected size[{i}] in [0, {d - bi}], but got {si}", sfx)
        begin.append(int(bi))
        size.append(int(si))
    return execute(SLICE, (x,), {"begin": tuple(begin), "size": tuple(size)})

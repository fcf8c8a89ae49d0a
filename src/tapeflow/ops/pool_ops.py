"""Pooling (``tf.nn.max_pool1d``, ``max_pool2d``, ``avg_pool1d``, ``avg_pool2d``): forward (NumPy) and gradient
(tapeflow ops) side by side, and the N-D kernels the 3-D ops (``pool3d_ops``) share.

Each kernel makes one vectorised pass per window tap (one NumPy call per tap, each over the whole batch), on
strided views of the padded input. TF's CPU conventions hold (2-D; ``pool3d_ops`` says where 3-D differs):

* max pooling ignores NaN and never returns less than the dtype's lowest finite value (``-inf`` becomes it);
* its gradient goes to the first maximum of each window in row-major order (a later tap wins only when strictly
  greater; padding never does), summed where windows overlap;
* average pooling with SAME padding divides by the number of real (unpadded) elements in each window.

Gradients are TF's ops ``MaxPoolGrad`` (whose gradient is ``MaxPoolGradGrad`` and back) and ``AvgPoolGrad``.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor
from ._convert import to_tensor
from ._windows import (
    check_string_attrs,
    compute_dtype,
    convert_padding,
    crop_spatial,
    get_sequence,
    kernel_error,
    no_format_decode,
    pad_spatial,
    padded_shape,
    spatial_sequences,
    string_attr,
    tap,
    taps,
    unimplemented,
    window_dim,
)
from .array_ops import RESHAPE, zeros_like
from .shape_like_ops import EXPAND_DIMS_AT, SQUEEZE_AT, shape_varies

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


class Pool:
    """Per spatial dimension: window, stride, output size, (before, after) pads; and the input shape."""

    __slots__ = ("ksize", "strides", "out", "pads", "in_shape", "depth")


_SIDES = (("Top", "Bottom"), ("Left", "Right"))


def _pool_geometry(op_name, x_shape, ksize, strides, padding, explicit_paddings, data_format, avg):
    """TF's pooling checks (``PoolParameters`` and the kernels' constructors), in their order; the geometry."""
    kind = "AvgPoolingOp" if avg else "MaxPoolingOp"
    if data_format != "NHWC":
        raise kernel_error(op_name, f"Default {kind} only supports NHWC on device type CPU")
    if len(ksize) != 4:
        raise kernel_error(op_name, "Sliding window ksize field must specify 4 dimensions")
    if len(strides) != 4:
        raise kernel_error(op_name, "Sliding window stride field must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise unimplemented(op_name, "Pooling is not yet supported on the batch dimension.")
    if padding == "EXPLICIT":
        if any(p < 0 for p in explicit_paddings):
            raise kernel_error(op_name, "All elements of explicit_paddings must be nonnegative")
        if any(explicit_paddings[i] for i in (0, 1, 6, 7)):
            raise kernel_error(op_name, "Nonzero explicit padding in the batch or depth dimensions is not supported")
    if any(k <= 0 for k in ksize):
        if avg:
            raise kernel_error(op_name, f"ksize must be a positive int32 value, got:{min(ksize)}")
        raise kernel_error(op_name, "Sliding window ksize must be positive. The specified or inferred ksize is: "
                                    + ",".join(str(k) for k in ksize))
    if len(x_shape) != 4:
        raise kernel_error(op_name, f"tensor_in_shape must have 2 spatial dimensions. {len(x_shape)} 0")
    for s in strides:
        if s <= 0:
            raise kernel_error(op_name, f"Stride must be > 0, but got {s}")
    geo = Pool()
    geo.in_shape = tuple(x_shape)
    geo.depth = 1
    if ksize[3] != 1:
        if ksize[1] != 1 or ksize[2] != 1:
            raise unimplemented(op_name, "MaxPooling supports exactly one of pooling across depth or pooling across "
                                         "width/height.")
        if x_shape[3] % ksize[3]:
            raise unimplemented(op_name, "Depthwise max pooling requires the depth window to evenly divide the "
                                         "input depth")
        if strides[3] != ksize[3]:
            raise unimplemented(op_name, "Depthwise max pooling requires the depth window to equal the depth stride")
        if avg:
            raise unimplemented(op_name, "Non-spatial pooling is not yet supported. Volunteers? :)")
        geo.depth = ksize[3]
    if padding == "EXPLICIT":
        for k in range(2):
            for j in range(2):
                p = explicit_paddings[2 * (k + 1) + j]
                if p >= ksize[k + 1]:
                    raise kernel_error(op_name, f"{_SIDES[k][j]} padding {p} needs to be smaller than the window "
                                                f"size {ksize[k + 1]}")
    geo.ksize, geo.strides = tuple(ksize[1:3]), tuple(strides[1:3])
    out, pads = [], []
    for k in range(2):
        pair = (explicit_paddings[2 * k + 2], explicit_paddings[2 * k + 3]) if padding == "EXPLICIT" else None
        o, b, a = window_dim(op_name, x_shape[k + 1], ksize[k + 1], strides[k + 1], 1, padding, pair)
        out.append(o)
        pads.append((b, a))
    geo.out, geo.pads = tuple(out), tuple(pads)
    return geo


def _attrs_geometry(op_name, shape, attrs, avg):
    return _pool_geometry(op_name, shape, attrs["ksize"], attrs["strides"], attrs["padding"],
                          attrs.get("explicit_paddings", ()), attrs.get("data_format", "NHWC"), avg)


def _ones(geo):
    return (1,) * len(geo.ksize)


def axis_shape(k, nd):
    """The shape that puts a vector along spatial dimension ``k`` of an (N, *nd spatial, C) array."""
    return (1,) * (k + 1) + (-1,) + (1,) * (nd - k)


def _valid_masks(geo):
    """Per tap, a (1, *out, 1) mask of the output positions whose window tap falls inside the input (not padding),
    or ``None`` when nothing is padded."""
    if not any(b or a for b, a in geo.pads):
        return None
    masks = []
    for index in taps(geo.ksize):
        m = None
        for k, i in enumerate(index):
            pos = np.arange(geo.out[k]) * geo.strides[k] + i
            b = geo.pads[k][0]
            ok = (pos >= b) & (pos < b + geo.in_shape[k + 1])
            ok = ok.reshape(axis_shape(k, len(index)))
            m = ok if m is None else m & ok
        masks.append(m)
    return masks


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _depth_split(x, k):
    return x.reshape(x.shape[:-1] + (x.shape[-1] // k, k))


def max_forward(x, geo):
    """Max over each window; NaN skipped, never below the dtype's lowest finite value (TF's CPU kernels)."""
    low = _lowest(x.dtype)
    if geo.depth != 1:
        return np.fmax.reduce(_depth_split(x, geo.depth), axis=-1, initial=low)
    out_shape = (x.shape[0],) + geo.out + (x.shape[-1],)
    if 0 in out_shape:
        return np.zeros(out_shape, x.dtype)
    xp = pad_spatial(x, geo.pads, low)
    out = None
    for index in taps(geo.ksize):
        v = xp[tap(index, geo.strides, _ones(geo), geo.out)]
        out = np.fmax(v, low) if out is None else np.fmax(out, v, out=out)
    return out


def _argmax(x, geo):
    """The tap index (row-major) of each window's first maximum, as TF's CPU gradient kernels choose it."""
    xp = pad_spatial(x, geo.pads)
    masks = _valid_masks(geo)
    all_taps = taps(geo.ksize)
    kind = np.int8 if len(all_taps) < 128 else np.int32
    best = arg = have = None
    # np.where, not np.copyto(..., where=): the masked copy is ten times slower.
    for t, index in enumerate(all_taps):
        v = xp[tap(index, geo.strides, _ones(geo), geo.out)]
        if best is None:
            best, arg = v, np.zeros(v.shape, kind)
            have = None if masks is None else masks[0]
            continue
        upd = v > best
        if masks is not None:
            upd = masks[t] & (upd | ~have)
            have = have | masks[t]
        best = np.where(upd, v, best)
        arg = np.where(upd, kind(t), arg)
    return arg


def _max_grad(x, g, geo):
    if geo.depth != 1:
        raise unimplemented("MaxPoolGrad", "MaxPoolingGrad is not yet supported on the depth dimension.")
    if 0 in g.shape or 0 in x.shape:
        return np.zeros(x.shape, g.dtype)
    arg = _argmax(x, geo)
    dxp = np.zeros(padded_shape(x.shape, geo.pads), g.dtype)
    zero = g.dtype.type(0)
    for t, index in enumerate(taps(geo.ksize)):
        dxp[tap(index, geo.strides, _ones(geo), geo.out)] += np.where(arg == t, g, zero)
    return crop_spatial(dxp, geo.pads, x.shape)


def _max_grad_grad(x, gg, geo):
    if geo.depth != 1:
        raise unimplemented("MaxPoolGradGrad", "MaxPoolingGradGrad is not yet supported on the depth dimension.")
    out_shape = (x.shape[0],) + geo.out + (x.shape[-1],)
    out = np.zeros(out_shape, gg.dtype)
    if 0 in out_shape:
        return out
    arg = _argmax(x, geo)
    gp = pad_spatial(gg, geo.pads)
    for t, index in enumerate(taps(geo.ksize)):
        out = np.where(arg == t, gp[tap(index, geo.strides, _ones(geo), geo.out)], out)
    return out


# ------------------------------------------------------------------------------------------ MaxPool


@defop("MaxPool")
def MAX_POOL(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    return max_forward(x, _attrs_geometry("MaxPool", x.shape, locals(), False))


def _grad_op_geometry(op_name, x, attrs):
    return _attrs_geometry(op_name, x.shape, attrs, False)


@defop("MaxPoolGrad")
def MAX_POOL_GRAD(x, y, g, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    return _max_grad(x, g, _grad_op_geometry("MaxPoolGrad", x, locals()))


@defop("MaxPoolGradGrad")
def MAX_POOL_GRAD_GRAD(x, y, gg, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    check_string_attrs("MaxPoolGradGrad", padding=padding, data_format=data_format)
    return _max_grad_grad(x, gg, _grad_op_geometry("MaxPoolGradGrad", x, locals()))


def max_pool_grads(forward, grad, grad_grad, grad_grad_attrs=None):
    """Register TF's gradient rules of a max-pool family: the forward's gradient is ``grad(x, y, g)``, which is
    piecewise constant in ``x`` and ``y`` (zeros) and linear in ``g`` (``grad_grad``), and back.
    ``grad_grad_attrs`` filters the attributes ``grad``'s rule passes on."""

    @forward.defvjp
    def _forward_grad(g, y, x, **attrs):
        no_format_decode(attrs)
        return (execute(grad, (x, y, g), attrs),)

    @grad.defvjp
    def _grad_grad(gg, dx, x, y, g, **attrs):
        passed = attrs if grad_grad_attrs is None else grad_grad_attrs(attrs)
        return zeros_like(x), zeros_like(y), execute(grad_grad, (x, y, gg), passed)

    @grad_grad.defvjp
    def _grad_grad_grad(g3, out, x, y, gg, **attrs):
        return zeros_like(x), zeros_like(y), execute(grad, (x, y, g3), attrs)


def _without_explicit(attrs):
    # As in TF, the explicit paddings are not passed on: MaxPoolGradGrad then refuses padding "EXPLICIT".
    return {k: v for k, v in attrs.items() if k != "explicit_paddings"}


max_pool_grads(MAX_POOL, MAX_POOL_GRAD, MAX_POOL_GRAD_GRAD, _without_explicit)


# ------------------------------------------------------------------------------------------ AvgPool


def _counts(geo):
    """(1, *out, 1): how many real (unpadded) input elements each window covers."""
    c = None
    nd = len(geo.ksize)
    for k in range(nd):
        start = np.arange(geo.out[k]) * geo.strides[k] - geo.pads[k][0]
        n = np.minimum(start + geo.ksize[k], geo.in_shape[k + 1]) - np.maximum(start, 0)
        n = n.reshape(axis_shape(k, nd))
        c = n if c is None else c * n
    return c


def _avg_forward(x, geo):
    ct = compute_dtype(x)
    out_shape = (x.shape[0],) + geo.out + (x.shape[-1],)
    if 0 in out_shape:
        return np.zeros(out_shape, x.dtype)
    xp = pad_spatial(x.astype(ct, copy=False), geo.pads)
    acc = None
    for index in taps(geo.ksize):
        v = xp[tap(index, geo.strides, _ones(geo), geo.out)]
        acc = v.copy() if acc is None else np.add(acc, v, out=acc)
    acc /= _counts(geo).astype(ct)
    return acc.astype(x.dtype, copy=False)


def broadcast_windows(geo, k):
    """``(start, size)`` per output position of dimension ``k`` as TF's portable ``AvgPoolGrad`` kernel takes
    them: a window that starts in the padding and is longer than the input spreads over the whole input (while
    the forward averages over the window's real elements only)."""
    start = np.arange(geo.out[k]) * geo.strides[k]
    pad, ksize, n = geo.pads[k][0], geo.ksize[k], geo.in_shape[k + 1]
    size = np.where(start < pad, ksize + start - pad, ksize)
    start = np.where(start < pad, 0, start - pad)
    size = np.where(start + ksize > n, np.minimum(n - start, ksize), size)
    return start, size


def _avg_grad_spread(g, in_shape, geo, ct):
    """Average-pool gradient from per-dimension coverage matrices (one small contraction each, no window loop)."""
    nd = len(geo.ksize)
    mats, counts = [], None
    for k in range(nd):
        start, size = broadcast_windows(geo, k)
        i = np.arange(in_shape[k + 1])
        mats.append(((i >= start[:, None]) & (i < (start + size)[:, None])).astype(ct))
        size = size.reshape(axis_shape(k, nd))
        counts = size if counts is None else counts * size
    gd = g.astype(ct) / counts.astype(ct)
    outs, ins = "opq"[:nd], "ijk"[:nd]
    spec = ",".join(o + i for o, i in zip(outs, ins)) + f",n{outs}c->n{ins}c"
    return np.einsum(spec, *mats, gd, optimize=True).astype(g.dtype, copy=False)


def spreads(geo, in_shape):
    """Whether TF's gradient kernels spread some window over more than its extent: a window that starts in the
    padding and is longer than the input covers the whole input there (see :func:`broadcast_windows`)."""
    return any(k > n and b for k, n, (b, _) in zip(geo.ksize, in_shape[1:-1], geo.pads))


def avg_grad(g, in_shape, geo):
    """TF's CPU average-pool gradient: each output's gradient shared out evenly over its (broadcast) window."""
    ct = compute_dtype(g)
    if 0 in g.shape or 0 in in_shape:
        return np.zeros(in_shape, g.dtype)
    if spreads(geo, in_shape):
        return _avg_grad_spread(g, in_shape, geo, ct)
    gd = g.astype(ct) / _counts(geo).astype(ct)
    dxp = np.zeros(padded_shape(in_shape, geo.pads), ct)
    for index in taps(geo.ksize):
        dxp[tap(index, geo.strides, _ones(geo), geo.out)] += gd
    return crop_spatial(dxp, geo.pads, in_shape).astype(g.dtype, copy=False)


@defop("AvgPool")
def AVG_POOL(x, ksize, strides, padding, data_format="NHWC"):
    return _avg_forward(x, _attrs_geometry("AvgPool", x.shape, locals(), True))


@defop("AvgPoolGrad")
def AVG_POOL_GRAD(g, orig_input_shape, ksize, strides, padding, data_format="NHWC"):
    in_shape = tuple(orig_input_shape)
    geo = _attrs_geometry("AvgPoolGrad", in_shape, locals(), True)
    return avg_grad(g, in_shape, geo)


def avg_pool_grads(forward, grad):
    """Register TF's gradient rules of an average-pool family: ``grad`` spreads the output gradient over the input
    shape; it is linear, and its own gradient is the forward pooling."""

    @forward.defvjp
    def _forward_grad(g, y, x, **attrs):
        no_format_decode(attrs)
        return (execute(grad, (g,), attrs | {"orig_input_shape": x._value.shape}),)

    @grad.defvjp
    def _grad_grad(gg, dx, g, orig_input_shape, **attrs):
        return (execute(forward, (gg,), attrs),)


avg_pool_grads(AVG_POOL, AVG_POOL_GRAD)


# ------------------------------------------------------------------------------------------ public functions


def pool_attrs(op_name, ksize, strides, padding, explicit, data_format):
    padding = string_attr(padding, "padding")
    check_string_attrs(op_name, padding=padding, data_format=data_format)
    attrs = {"ksize": tuple(int(k) for k in ksize), "strides": tuple(int(s) for s in strides), "padding": padding,
             "data_format": data_format}
    if explicit:
        attrs["explicit_paddings"] = tuple(int(p) for p in explicit)
    return attrs


def is_tensor(x):
    return isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False)


def _no_vect_c_explicit(padding, data_format):
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError(f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: "
                         f"padding={padding}")


def max_pool2d_full(x, ksize, strides, padding, data_format):
    """``max_pool2d`` once ``ksize``/``strides`` may already be full lists (``tf.nn.max_pool`` passes them)."""
    data_format, (ksize, strides) = spatial_sequences(2, data_format, "NHWC", ksize=ksize, strides=strides)
    padding, explicit = convert_padding(padding)
    # MaxPool's T defaults to float32: TF converts non-tensor input (even a float64 array) to it.
    x = to_tensor(x) if is_tensor(x) else to_tensor(x, dtypes.float32)
    return execute(MAX_POOL, (x,), pool_attrs("MaxPool", ksize, strides, padding, explicit, data_format))


@export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max pooling over NHWC ``input``; ``padding`` "SAME", "VALID" or explicit pairs (each smaller than the
    window). NaN is skipped, and the gradient goes to each window's first maximum, as on TF's CPU."""
    _no_vect_c_explicit(padding, data_format)
    return max_pool2d_full(input, ksize, strides, padding, data_format)


def _expand(t, axis):
    shape = t._value.shape
    if shape_varies(t):  # a traced program whose sizes vary: no fixed shape (the 1-D pools over 2-D ones)
        return execute(EXPAND_DIMS_AT, (t,), {"axis": axis})
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + (1,) + shape[axis:]})


def _squeeze(t, axis):
    shape = t._value.shape
    if shape_varies(t):
        return execute(SQUEEZE_AT, (t,), {"axis": (axis % len(shape),)})
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + shape[axis + 1:]})


def _pool1d_format(data_format):
    if data_format is None:
        data_format = "NWC"
    ci = 1 if data_format.startswith("NC") else 2
    expanding = 1 if data_format == "NWC" else 2
    return ci, expanding, "NHWC" if data_format == "NWC" else "NCHW"


@export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling over ``[batch, width, channels]``, run as TF does: a 2-D max pool over an inserted height of
    1 (so its errors name ``MaxPool``)."""
    _no_vect_c_explicit(padding, data_format)
    ci, expanding, fmt = _pool1d_format(data_format)
    ksize = [1] + get_sequence(ksize, 1, ci, "ksize")
    strides = [1] + get_sequence(strides, 1, ci, "strides")
    padding, explicit = convert_padding(padding, 3)
    if padding == "EXPLICIT":
        explicit = [0, 0] + explicit
    x = _expand(to_tensor(input), expanding)
    out = execute(MAX_POOL, (x,), pool_attrs("MaxPool", ksize, strides, padding, explicit, fmt))
    return _squeeze(out, expanding)


def avg_pool2d_full(x, ksize, strides, padding, data_format):
    data_format, (ksize, strides) = spatial_sequences(2, data_format, "NHWC", ksize=ksize, strides=strides)
    x = to_tensor(x)
    return execute(AVG_POOL, (x,), pool_attrs("AvgPool", ksize, strides, padding, (), data_format))


@export("nn.avg_pool2d")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Average pooling over NHWC ``input`` ("SAME" or "VALID"); with SAME, each window's mean is over its real
    (unpadded) elements only, as in TF."""
    return avg_pool2d_full(input, ksize, strides, padding, data_format)


@export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling over ``[batch, width, channels]``, as a 2-D average pool over an inserted height of 1."""
    ci, expanding, fmt = _pool1d_format(data_format)
    ksize = [1] + get_sequence(ksize, 1, ci, "ksize")
    strides = [1] + get_sequence(strides, 1, ci, "strides")
    x = _expand(to_tensor(input), expanding)
    out = execute(AVG_POOL, (x,), pool_attrs("AvgPool", ksize, strides, padding, (), fmt))
    return _squeeze(out, expanding)

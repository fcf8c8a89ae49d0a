"""3-D pooling (``tf.nn.max_pool3d``, ``avg_pool3d``) and the rank-generic ``tf.nn.max_pool`` / ``avg_pool``:
forward (NumPy) and gradient (tapeflow ops) side by side, on the N-D kernels of ``pool_ops``.

TF's 3-D CPU kernels are not its 2-D ones, and their conventions differ:

* they exist for float32 only (float16 and float64 raise, as TF's NotFoundError or dtype error);
* max pooling skips NaN and floors at the lowest finite value, as in 2-D; but its gradient goes to *every*
  element within 1e-5 of the window's maximum (never to NaN or an infinite maximum), each window taken as TF's
  gradient kernels take it (see ``pool_ops.broadcast_windows``); while ``MaxPool3DGradGrad`` picks the first
  element exactly equal to the maximum;
* average pooling leaves out elements equal to the lowest finite value (TF's padding marker), from the sum and
  the count alike (a window of nothing else averages to NaN); its gradient divides by the window's size.

Gradients are TF's ops ``MaxPool3DGrad`` (whose gradient is ``MaxPool3DGradGrad`` and back) and
``AvgPool3DGrad``.
"""

from __future__ import annotations

import numpy as np

from .._core.dispatch import _allowed_error, execute
from .._core.dtypes import dtype_of
from .._core.exports import export
from .._core.registry import defop
from ._convert import to_tensor
from ._windows import (
    check_string_attrs,
    crop_spatial,
    get_sequence,
    kernel_error,
    pad_spatial,
    string_attr,
    tap,
    taps,
    unimplemented,
    window_dim,
)
from .linalg_ops import no_kernel
from .pool_ops import (
    Pool,
    avg_grad,
    avg_pool1d,
    avg_pool2d_full,
    avg_pool_grads,
    broadcast_windows,
    is_tensor,
    max_forward,
    max_pool1d,
    max_pool2d_full,
    max_pool_grads,
    spreads,
)

__all__ = ["max_pool3d", "avg_pool3d", "max_pool", "avg_pool"]

_ONES = (1, 1, 1)
_NEAR = 1e-5  # TF's MaxPool3DGrad: an element this close to the maximum gets the gradient

# ------------------------------------------------------------------------------------------ geometry


def _geometry(op_name, x_shape, attrs, kernel="Pooling3DOp"):
    """TF's 3-D pooling checks (constructor, then compute), in their order; the geometry."""
    ksize, strides, padding = attrs["ksize"], attrs["strides"], attrs["padding"]
    if attrs.get("data_format", "NDHWC") not in ("NDHWC", None):
        raise kernel_error(op_name, f"Default {kernel} only supports NDHWC on device type CPU")
    if len(ksize) != 5:
        raise kernel_error(op_name, "Sliding window ksize field must specify 5 dimensions")
    if any(k <= 0 for k in ksize):
        raise kernel_error(op_name, "Sliding window ksize field must have non-negative dimensions")
    if len(strides) != 5:
        raise kernel_error(op_name, "Sliding window stride field must specify 5 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise unimplemented(op_name, "Pooling is not yet supported on the batch dimension.")
    if ksize[4] != 1 or strides[4] != 1:
        raise unimplemented(op_name, "Pooling is not yet supported on the depth dimension.")
    if len(x_shape) != 5:
        raise kernel_error(op_name, "tensor_in must be 5-dimensional")
    geo = Pool()
    geo.in_shape, geo.depth = tuple(x_shape), 1
    geo.ksize, geo.strides = tuple(ksize[1:4]), tuple(strides[1:4])
    out, pads = [0] * 3, [(0, 0)] * 3
    for i in (3, 2, 1):  # TF's 3-D kernels size width first, then height, then depth
        if strides[i] <= 0:
            raise kernel_error(op_name, f"Stride must be > 0, but got {strides[i]}")
        o, b, a = window_dim(op_name, x_shape[i], ksize[i], strides[i], 1, padding, None)
        out[i - 1], pads[i - 1] = o, (b, a)
    geo.out, geo.pads = tuple(out), tuple(pads)
    return geo


# ------------------------------------------------------------------------------------------ kernels


def _near_max(v, y):
    return np.abs(v - y) < v.dtype.type(_NEAR)


def _max_grad(x, y, g, geo):
    """Every element within 1e-5 of its window's maximum gets that window's gradient (summed over windows)."""
    if 0 in g.shape or 0 in x.shape:
        return np.zeros(x.shape, g.dtype)
    zero = g.dtype.type(0)
    if not spreads(geo, x.shape):
        xp = pad_spatial(x, geo.pads, np.nan)  # NaN is near nothing: the padding never takes a gradient
        dxp = np.zeros(xp.shape, g.dtype)
        for index in taps(geo.ksize):
            at = tap(index, geo.strides, _ONES, geo.out)
            dxp[at] += np.where(_near_max(xp[at], y), g, zero)
        return crop_spatial(dxp, geo.pads, x.shape)
    # Some window spreads past its extent: gather each tap's input position per window, scatter with add.at.
    windows = [broadcast_windows(geo, k) for k in range(3)]
    dx = np.zeros(x.shape, g.dtype)
    for index in taps(geo.ksize):
        where, valid = [slice(None)], None
        for k, (j, (start, size)) in enumerate(zip(index, windows)):
            shape = [1, 1, 1]
            shape[k] = -1
            where.append(np.minimum(start + j, x.shape[k + 1] - 1).reshape(shape))
            ok = (j < size).reshape(shape)
            valid = ok if valid is None else valid & ok
        v = x[tuple(where)]
        np.add.at(dx, tuple(where), np.where(valid[..., None] & _near_max(v, y), g, zero))
    return dx


def _max_grad_grad(x, y, gg, geo):
    """Per window, ``gg`` at the first element (row-major) exactly equal to the maximum; 0 where none is."""
    out = np.zeros(y.shape, gg.dtype)
    if 0 in out.shape:
        return out
    xp = pad_spatial(x, geo.pads, np.nan)
    gp = pad_spatial(gg, geo.pads)
    found = np.zeros(y.shape, bool)
    for index in taps(geo.ksize):
        at = tap(index, geo.strides, _ONES, geo.out)
        hit = ~found & (xp[at] == y)
        out = np.where(hit, gp[at], out)
        found |= hit
    return out


def _avg_forward(x, geo):
    """The mean over each window of the elements that are not the lowest finite value (TF's padding marker)."""
    out_shape = (x.shape[0],) + geo.out + (x.shape[-1],)
    if 0 in out_shape:
        return np.zeros(out_shape, x.dtype)
    low = np.finfo(x.dtype).min
    xp = pad_spatial(x, geo.pads, low)
    acc, count = np.zeros(out_shape, x.dtype), np.zeros(out_shape, x.dtype)
    zero = x.dtype.type(0)
    for index in taps(geo.ksize):
        v = xp[tap(index, geo.strides, _ONES, geo.out)]
        real = v != low
        acc += np.where(real, v, zero)
        count += real
    with np.errstate(invalid="ignore", divide="ignore"):
        return acc / count


# ------------------------------------------------------------------------------------------ MaxPool3D


@defop("MaxPool3D")
def MAX_POOL3D(x, ksize, strides, padding, data_format="NDHWC"):
    return max_forward(x, _geometry("MaxPool3D", x.shape, locals()))


@defop("MaxPool3DGrad")
def MAX_POOL3D_GRAD(x, y, g, ksize, strides, padding, data_format="NDHWC"):
    return _max_grad(x, y, g, _geometry("MaxPool3DGrad", x.shape, locals(), "MaxPooling3dGradOp"))


@defop("MaxPool3DGradGrad")
def MAX_POOL3D_GRAD_GRAD(x, y, gg, ksize, strides, padding, data_format="NDHWC"):
    return _max_grad_grad(x, y, gg, _geometry("MaxPool3DGradGrad", x.shape, locals(), "MaxPooling3dGradGradOp"))


max_pool_grads(MAX_POOL3D, MAX_POOL3D_GRAD, MAX_POOL3D_GRAD_GRAD)


# ------------------------------------------------------------------------------------------ AvgPool3D


@defop("AvgPool3D")
def AVG_POOL3D(x, ksize, strides, padding, data_format="NDHWC"):
    return _avg_forward(x, _geometry("AvgPool3D", x.shape, locals()))


@defop("AvgPool3DGrad")
def AVG_POOL3D_GRAD(g, orig_input_shape, ksize, strides, padding, data_format="NDHWC"):
    in_shape = tuple(orig_input_shape)
    return avg_grad(g, in_shape, _geometry("AvgPool3DGrad", in_shape, locals(), "AvgPooling3dGradOp"))


avg_pool_grads(AVG_POOL3D, AVG_POOL3D_GRAD)


# TF's CPU has 3-D pooling kernels for float32 only (and bfloat16): the public functions refuse other dtypes as
# TF does (below). The NumPy kernels are dtype-generic, so the ops also take float64, which lets the op database
# check them against finite differences.
for _op in (MAX_POOL3D, MAX_POOL3D_GRAD):
    if _op.allowed_nums is not None:
        _op.allowed_nums = _op.allowed_nums | {np.dtype(np.float64).num}
        _op.accepted = None

_KERNELS = {
    "MaxPool3D": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_BFLOAT16, DT_HALF]", "CPU; T in [DT_BFLOAT16]",
                  "CPU; T in [DT_FLOAT]"),
    "AvgPool3D": ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_BFLOAT16, DT_HALF]", "CPU; T in [DT_BFLOAT16]",
                  "CPU; T in [DT_FLOAT]"),
}


def _pool3d(op, x, ksize, strides, padding, data_format):
    """TF's generated ``max_pool3d``/``avg_pool3d`` wrappers: attribute checks in TF's order (data format, dtype,
    padding), then the CPU kernel lookup."""
    x = to_tensor(x)
    padding = string_attr(padding, "padding")
    if data_format is not None:  # None is kept: the op runs as NDHWC, and its gradient fails as TF's does
        check_string_attrs(op.name, data_format=string_attr(data_format, "data_format"))
    dt = x._value.dtype
    if op.allowed is not None and dtype_of(dt).name not in op.allowed:
        raise _allowed_error(op, (x,))
    check_string_attrs(op.name, padding=padding)
    attrs = {"ksize": tuple(int(k) for k in ksize), "strides": tuple(int(s) for s in strides), "padding": padding,
             "data_format": data_format}
    if dt in (np.float16, np.float64):
        text = (f'T=DT_{"HALF" if dt == np.float16 else "DOUBLE"}, data_format="{data_format or "NDHWC"}", '
                f'ksize={list(attrs["ksize"])}, padding="{padding}", strides={list(attrs["strides"])}')
        raise no_kernel(op.name, text, _KERNELS[op.name])
    return execute(op, (x,), attrs)


def _sequences(ksize, strides, data_format, ci_last):
    """The 3-D wrappers' defaults: ``data_format`` None is NDHWC, ``ksize``/``strides`` spread over 5 dimensions."""
    data_format = "NDHWC" if data_format is None else data_format
    ci = 1 if data_format.startswith("NC") else ci_last
    return get_sequence(ksize, 3, ci, "ksize"), get_sequence(strides, 3, ci, "strides"), data_format


@export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max pooling over NDHWC ``input`` ("SAME" or "VALID"), float32 only as on TF's CPU. The gradient goes to
    every element within 1e-5 of its window's maximum (TF's 3-D kernel), not to the first one."""
    ksize, strides, data_format = _sequences(ksize, strides, data_format, 4)
    return _pool3d(MAX_POOL3D, input, ksize, strides, padding, data_format)


@export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Average pooling over NDHWC ``input`` ("SAME" or "VALID"), float32 only as on TF's CPU; SAME windows average
    their real elements (TF's 3-D kernel also leaves out elements equal to the lowest float32)."""
    # TF's avg_pool3d counts the channel as axis 3 (which only matters for NCDHW, where it is 1 anyway)
    ksize, strides, data_format = _sequences(ksize, strides, data_format, 3)
    return _pool3d(AVG_POOL3D, input, ksize, strides, padding, data_format)


# ------------------------------------------------------------------------------------------ rank-generic


def _rank(x):
    n = len(np.shape(x._value if is_tensor(x) else x)) - 2
    if not 1 <= n <= 3:
        shape = x.shape if is_tensor(x) else to_tensor(x).shape
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={shape} of rank {n + 2}.")
    return n


@export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling of rank-3, 4 or 5 ``input`` (``max_pool1d``, ``max_pool2d``, ``max_pool3d``); ``ksize`` and
    ``strides`` given for the spatial dimensions (1 or n values) or all of them (n + 2)."""
    n = _rank(input)
    ci = n + 1 if data_format is None else 1 if data_format.startswith("NC") else n + 1
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError(f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: "
                         f"padding={padding}")
    ksize = get_sequence(ksize, n, ci, "ksize")
    strides = get_sequence(strides, n, ci, "strides")
    if isinstance(padding, (list, tuple)) and n == 3:
        raise ValueError(f"Explicit padding is not supported with an input tensor of rank 5. Received: "
                         f"padding={padding}")
    if n == 1:
        return max_pool1d(input, ksize, strides, padding, data_format)
    if n == 2:
        return max_pool2d_full(input, ksize, strides, padding, data_format)
    return _pool3d(MAX_POOL3D, input, ksize, strides, padding, data_format)


@export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling of rank-3, 4 or 5 ``input`` (``avg_pool1d``, ``avg_pool2d``, ``avg_pool3d``)."""
    x = to_tensor(input)
    n = _rank(x)
    ci = n + 1 if data_format is None else 1 if data_format.startswith("NC") else n + 1
    ksize = get_sequence(ksize, n, ci, "ksize")
    strides = get_sequence(strides, n, ci, "strides")
    if n == 1:
        return avg_pool1d(x, ksize, strides, padding, data_format)
    if n == 2:
        return avg_pool2d_full(x, ksize, strides, padding, data_format)
    return _pool3d(AVG_POOL3D, x, ksize, strides, padding, data_format)

"""Depthwise convolution (``tf.nn.depthwise_conv2d``): forward (NumPy) and gradient (tapeflow ops) side by side.

Each input channel ``c`` is convolved with its own ``filter[:, :, c, :]``; output channel ``c * multiplier + m``.
The kernels make one multiply-add per filter tap and multiplier over whole (N, H, W, C) blocks. Gradients are
TF's ops ``DepthwiseConv2dNativeBackpropInput`` / ``...BackpropFilter``, each with its rule (second order works).
Dilations take TF's space-to-batch route (``_windows.with_space_to_batch``), so they differentiate, and with
strides > 1 give TF's own result (strided over the phases, not over the input).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor
from ._convert import to_tensor
from ._windows import (
    check_string_attrs,
    compute_dtype,
    conv_attrs,
    conv_grads,
    convert_padding,
    crop_spatial,
    geometry,
    int_list,
    kernel_error,
    pad_spatial,
    padded_shape,
    string_attr,
    tap,
    taps,
    unimplemented,
    with_space_to_batch,
)

__all__ = ["depthwise_conv2d"]


def _depthwise_geometry(op_name, x_shape, f_shape, strides, padding, explicit_paddings, data_format, dilations,
                        forward=False):
    """TF's checks, in their order; the forward checks the data format only once it has work to do."""
    if len(strides) != 4:
        raise kernel_error(op_name, "Sliding window strides field must specify 4 dimensions")
    if strides[0] != 1 or strides[3] != 1:
        raise kernel_error(op_name, "Current implementation does not yet support strides in the batch and depth "
                                    "dimensions.")
    if strides[1] <= 0 or strides[2] <= 0:
        raise kernel_error(op_name, f"Stride must be > 0, but got {min(strides[1], strides[2])}")
    if strides[1] != strides[2]:
        raise kernel_error(op_name, "Current implementation only supports equal length strides in the row and "
                                    "column dimensions.")
    if padding == "EXPLICIT":
        if any(p < 0 for p in explicit_paddings):
            raise kernel_error(op_name, "All elements of explicit_paddings must be nonnegative")
        if any(explicit_paddings[i] for i in (0, 1, 6, 7)):
            raise kernel_error(op_name, "Nonzero explicit padding in the batch or depth dimensions is not supported")
    if data_format != "NHWC" and not forward:
        raise _nhwc_only(op_name)
    if len(x_shape) != 4:
        raise kernel_error(op_name, f"input must be 4-dimensional{errors.shape_str(x_shape)}")
    if len(f_shape) != 4:
        raise kernel_error(op_name, f"filter must be 4-dimensional: {errors.shape_str(f_shape)}")
    c, spatial = (1, [2, 3]) if data_format == "NCHW" else (3, [1, 2])
    if x_shape[c] != f_shape[2]:
        raise kernel_error(op_name, f"input and filter must have the same depth: {x_shape[c]} vs {f_shape[2]}")
    return geometry(op_name, [x_shape[i] for i in spatial], f_shape[:2], strides, dilations, padding,
                    explicit_paddings, spatial)


def _nhwc_only(op_name):
    return unimplemented(op_name, "Depthwise convolution on CPU is only supported for NHWC format")


def _per_multiplier(dy, c, m):
    """The output gradient split by channel multiplier: ``m`` contiguous (N, *out, C) blocks."""
    dy5 = dy.reshape(dy.shape[:-1] + (c, m))
    return [dy5[..., 0].reshape(dy.shape[:-1] + (c,))] if m == 1 else [np.ascontiguousarray(dy5[..., k])
                                                                         for k in range(m)]


def _depthwise_forward(x, f, geo):
    """One multiply-add per filter tap and multiplier, each over whole (N, *out, C) blocks."""
    n, c, m = x.shape[0], f.shape[2], f.shape[3]
    ct = compute_dtype(x)
    acc = np.zeros((m, n) + geo.out + (c,), ct)
    if acc.size:
        xp = pad_spatial(x.astype(ct, copy=False), geo.pads)
        f = f.astype(ct, copy=False)
        tmp = np.empty(acc.shape[1:], ct)
        for index in taps(geo.ksize):
            s = xp[tap(index, geo.strides, geo.dilations, geo.out)]
            for k in range(m):
                acc[k] += np.multiply(s, f[index + (slice(None), k)], out=tmp)
    out = acc[0] if m == 1 else np.moveaxis(acc, 0, -1)
    return out.reshape((n,) + geo.out + (c * m,)).astype(x.dtype, copy=False)


def _depthwise_backprop_input(dy, f, in_shape, geo):
    c, m = f.shape[2], f.shape[3]
    ct = compute_dtype(dy)
    dxp = np.zeros(padded_shape(in_shape, geo.pads), ct)
    if dy.size:
        dys = _per_multiplier(dy.astype(ct, copy=False), c, m)
        f = f.astype(ct, copy=False)
        tmp = np.empty(dys[0].shape, ct)
        for index in taps(geo.ksize):
            block = dxp[tap(index, geo.strides, geo.dilations, geo.out)]
            for k in range(m):
                block += np.multiply(dys[k], f[index + (slice(None), k)], out=tmp)
    return crop_spatial(dxp, geo.pads, in_shape).astype(dy.dtype, copy=False)


def _depthwise_backprop_filter(x, dy, f_shape, geo):
    c, m = f_shape[2], f_shape[3]
    ct = compute_dtype(x)
    dw = np.zeros(f_shape, ct)
    if dy.size:
        dys = _per_multiplier(dy.astype(ct, copy=False), c, m)
        xp = pad_spatial(x.astype(ct, copy=False), geo.pads)
        for index in taps(geo.ksize):
            s = xp[tap(index, geo.strides, geo.dilations, geo.out)]
            for k in range(m):
                dw[index + (slice(None), k)] = np.einsum("nhwc,nhwc->c", s, dys[k])
    return dw.astype(x.dtype, copy=False)


@defop("DepthwiseConv2dNative")
def DEPTHWISE(x, f, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    geo = _depthwise_geometry("DepthwiseConv2dNative", x.shape, f.shape, strides, padding, explicit_paddings,
                              data_format, dilations, forward=True)
    n, cm = x.shape[0], f.shape[2] * f.shape[3]
    out_shape = (n, cm) + geo.out if data_format == "NCHW" else (n,) + geo.out + (cm,)
    if 0 in out_shape:  # TF's kernel returns an empty output before it checks the data format
        return np.zeros(out_shape, x.dtype)
    if data_format != "NHWC":
        raise _nhwc_only("DepthwiseConv2dNative")
    return _depthwise_forward(x, f, geo)


def _depthwise_backprop_geometry(op_name, in_shape, f_shape, dy_shape, attrs):
    geo = _depthwise_geometry(op_name, in_shape, f_shape, attrs["strides"], attrs["padding"],
                              attrs.get("explicit_paddings", ()), attrs.get("data_format", "NHWC"),
                              attrs.get("dilations", (1, 1, 1, 1)))
    want = (in_shape[0],) + geo.out + (f_shape[2] * f_shape[3],)
    if tuple(dy_shape) != want:
        raise kernel_error(op_name, f"{op_name}: out_backprop has shape {errors.shape_str(dy_shape)}, expected "
                                    f"{errors.shape_str(want)}")
    return geo


@defop("DepthwiseConv2dNativeBackpropInput")
def DEPTHWISE_BACKPROP_INPUT(f, dy, input_sizes, **attrs):
    in_shape = tuple(input_sizes)
    geo = _depthwise_backprop_geometry("DepthwiseConv2dNativeBackpropInput", in_shape, f.shape, dy.shape, attrs)
    return _depthwise_backprop_input(dy, f, in_shape, geo)


@defop("DepthwiseConv2dNativeBackpropFilter")
def DEPTHWISE_BACKPROP_FILTER(x, dy, filter_sizes, **attrs):
    f_shape = tuple(filter_sizes)
    geo = _depthwise_backprop_geometry("DepthwiseConv2dNativeBackpropFilter", x.shape, f_shape, dy.shape, attrs)
    return _depthwise_backprop_filter(x, dy, f_shape, geo)


conv_grads(DEPTHWISE, DEPTHWISE_BACKPROP_INPUT, DEPTHWISE_BACKPROP_FILTER)

# ------------------------------------------------------------------------------------------ public function


def _native(x, f, strides, padding, data_format):
    """TF's ``depthwise_conv2d_native`` wrapper (a list of 4 strides, no dilations)."""
    padding, explicit = convert_padding(padding)
    strides = int_list(strides, "strides", "depthwise_conv2d_native")
    padding = string_attr(padding, "padding")
    check_string_attrs("DepthwiseConv2dNative", padding=padding, data_format=data_format)
    return execute(DEPTHWISE, (x, f), conv_attrs(strides, padding, explicit, data_format, (1, 1, 1, 1)))


@export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Depthwise 2-D convolution: each input channel ``c`` convolved with its own ``filter[:, :, c, :]``, output
    channel ``c * multiplier + m``. ``strides`` is a list of 4. Dilations take TF's space-to-batch route
    (differentiable); combined with strides > 1 (TF warns) that route gives TF's own irregular result."""
    x = to_tensor(input)
    f = to_tensor(filter)
    rate = [1, 1] if dilations is None else dilations
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        warnings.warn(f"When dilation rate is greater than 1, then all values of strides must be 1. Received: "
                      f"`dilation rate` {rate} and `strides` {strides}", stacklevel=2)
    rate = [int(r) for r in np.asarray(rate._value if isinstance(rate, Tensor) else rate).reshape(-1)]
    if data_format is None:
        data_format = "NHWC"
    start = 2 if data_format.startswith("NC") else 1
    rank = start + len(rate) if start == 1 else start + len(rate) - 1
    if len(x.shape) < rank:
        raise ValueError(f"`input.shape.rank` must be at least {rank}. Received: input.shape={x.shape} with rank "
                         f"{len(x.shape)}")
    if any(r < 1 for r in rate):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={np.array(rate, np.int32)}")
    build = lambda pad: lambda t: _native(t, f, strides, pad, data_format)  # noqa: E731
    if all(r == 1 for r in rate):
        return build(padding)(x)
    return with_space_to_batch(x, rate, padding, f.shape.as_list(), list(range(start, start + len(rate))),
                               data_format, build)

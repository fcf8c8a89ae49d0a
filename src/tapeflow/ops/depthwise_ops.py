"""Depthwise convolution (``tf.nn.depthwise_conv2d``): forward (NumPy) and gradient (tapeflow ops) side by side.

Each input channel ``c`` is convolved with its own ``filter[:, :, c, :]``; output channel ``c * multiplier + m``.
The kernels make one multiply-add per filter tap and multiplier over whole (N, H, W, C) blocks. Gradients are
TF's ops ``DepthwiseConv2dNativeBackpropInput`` / ``...BackpropFilter``, each with its rule (second order works).
Dilations are differentiable, as with TF's space-to-batch route (whose values the dilated kernel gives directly).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from ._convert import to_tensor
from ._windows import (
    check_string_attrs,
    compute_dtype,
    conv_attrs,
    convert_padding,
    crop_spatial,
    geometry,
    int_list,
    kernel_error,
    pad_spatial,
    string_attr,
    tap,
    taps,
    unimplemented,
)

__all__ = ["depthwise_conv2d"]


def _depthwise_geometry(op_name, x_shape, f_shape, strides, padding, explicit_paddings, data_format, dilations):
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
    if data_format != "NHWC":
        raise unimplemented(op_name, "Depthwise convolution on CPU is only supported for NHWC format")
    if len(x_shape) != 4:
        raise kernel_error(op_name, f"input must be 4-dimensional{errors.shape_str(x_shape)}")
    if len(f_shape) != 4:
        raise kernel_error(op_name, f"filter must be 4-dimensional: {errors.shape_str(f_shape)}")
    if x_shape[3] != f_shape[2]:
        raise kernel_error(op_name, f"input and filter must have the same depth: {x_shape[3]} vs {f_shape[2]}")
    return geometry(op_name, x_shape[1:3], f_shape[:2], strides, dilations, padding, explicit_paddings, [1, 2])


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
    padded = (in_shape[0],) + tuple(d + b + a for d, (b, a) in zip(in_shape[1:3], geo.pads)) + (c,)
    dxp = np.zeros(padded, ct)
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
                              data_format, dilations)
    return _depthwise_forward(x, f, geo)


@DEPTHWISE.defvjp
def _depthwise_grad(g, y, x, f, needs, **attrs):
    gx = execute(DEPTHWISE_BACKPROP_INPUT, (f, g), attrs | {"input_sizes": x._value.shape}) if needs[0] else None
    gf = execute(DEPTHWISE_BACKPROP_FILTER, (x, g), attrs | {"filter_sizes": f._value.shape}) if needs[1] else None
    return gx, gf


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


@DEPTHWISE_BACKPROP_INPUT.defvjp
def _depthwise_backprop_input_grad(g, y, f, dy, needs, input_sizes, **attrs):
    gf = execute(DEPTHWISE_BACKPROP_FILTER, (g, dy), attrs | {"filter_sizes": f._value.shape}) if needs[0] else None
    gdy = execute(DEPTHWISE, (g, f), attrs) if needs[1] else None
    return gf, gdy


@defop("DepthwiseConv2dNativeBackpropFilter")
def DEPTHWISE_BACKPROP_FILTER(x, dy, filter_sizes, **attrs):
    f_shape = tuple(filter_sizes)
    geo = _depthwise_backprop_geometry("DepthwiseConv2dNativeBackpropFilter", x.shape, f_shape, dy.shape, attrs)
    return _depthwise_backprop_filter(x, dy, f_shape, geo)


@DEPTHWISE_BACKPROP_FILTER.defvjp
def _depthwise_backprop_filter_grad(g, y, x, dy, needs, filter_sizes, **attrs):
    gx = execute(DEPTHWISE_BACKPROP_INPUT, (g, dy), attrs | {"input_sizes": x._value.shape}) if needs[0] else None
    gdy = execute(DEPTHWISE, (x, g), attrs) if needs[1] else None
    return gx, gdy


# ------------------------------------------------------------------------------------------ public function


@export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Depthwise 2-D convolution: each input channel ``c`` convolved with its own ``filter[:, :, c, :]``, output
    channel ``c * multiplier + m``. ``strides`` is a list of 4; dilations are differentiable (as in TF)."""
    x = to_tensor(input)
    f = to_tensor(filter)
    rate = [1, 1] if dilations is None else list(dilations)
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        warnings.warn(f"When dilation rate is greater than 1, then all values of strides must be 1. Received: "
                      f"`dilation rate` {rate} and `strides` {strides}", stacklevel=2)
        raise NotImplementedError("tapeflow's depthwise_conv2d does not combine dilations with strides > 1")
    padding, explicit = convert_padding(padding)
    strides = int_list(strides, "strides", "depthwise_conv2d_native")
    padding = string_attr(padding, "padding")
    if data_format is None:
        data_format = "NHWC"
    check_string_attrs("DepthwiseConv2dNative", padding=padding, data_format=data_format)
    if len(rate) != 2:
        rate = (rate * 2)[:2]
    dil = (1, 1) + tuple(rate) if data_format == "NCHW" else (1,) + tuple(rate) + (1,)
    return execute(DEPTHWISE, (x, f), conv_attrs(strides, padding, explicit, data_format, dil))

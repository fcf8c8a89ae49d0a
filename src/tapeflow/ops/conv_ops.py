"""Convolutions (``tf.nn.conv1d``, ``conv2d``, ``convolution``, ``conv2d_transpose``): forward (NumPy) and
gradient (tapeflow ops) side by side. Depthwise convolution is in ``depthwise_ops``, pooling in ``pool_ops``, the
window arithmetic they share in ``_windows``.

The forwards are im2col: a strided window view of the padded input, copied once into a matrix, times the
filter in one BLAS matmul. Gradients are TensorFlow's own backprop ops (``Conv2DBackpropInput``,
``Conv2DBackpropFilter``), each with its gradient rule, so second derivatives work.

TF's CPU kernels set what is allowed: NHWC only (NCHW raises), and the gradient of a dilated or grouped
``conv2d`` raises, while ``tf.nn.convolution`` differentiates dilated filters (TF takes the space-to-batch route
there; here the same values come from the dilated kernel directly).
"""

from __future__ import annotations

import weakref

import numpy as np

from .._core import dtypes, errors
from .._core.convert import cannot_convert
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor
from . import depthwise_ops, pool_ops  # noqa: F401  (registered with the convolutions)
from ._convert import matching, to_tensor
from ._windows import (
    check_string_attrs,
    compute_dtype,
    conv_attrs,
    convert_padding,
    geometry,
    get_sequence,
    kernel_error,
    pad_spatial,
    string_attr,
    tap,
    taps,
    unimplemented,
    windows,
)
from .array_ops import RESHAPE

__all__ = ["conv1d", "conv2d", "convolution", "conv2d_transpose"]

# ------------------------------------------------------------------------------------------ conv geometry


def _check_conv_attrs(op_name, strides, dilations, padding, explicit_paddings, data_format, nd, name, op_label):
    """The checks TF's conv kernels make when they are built, in their order."""
    if len(strides) != nd + 2:
        raise kernel_error(op_name, f"Sliding window strides field must specify {nd + 2} dimensions", name=name)
    if len(dilations) != nd + 2:
        raise kernel_error(op_name, f"Sliding window dilations field must specify {nd + 2} dimensions", name=name)
    c = 1 if data_format.startswith("NC") else nd + 1
    if strides[0] != 1 or strides[c] != 1:
        raise unimplemented(op_name, "Current implementation does not yet support strides in the batch and depth "
                                     "dimensions.", name)
    spatial = [i for i in range(nd + 2) if i not in (0, c)]
    if any(strides[i] <= 0 for i in spatial):
        raise kernel_error(op_name, "Row and column strides should be larger than 0.", name=name)
    if dilations[0] != 1 or dilations[c] != 1:
        raise unimplemented(op_name, "Current implementation does not yet support dilations in the batch and "
                                     "depth dimensions.", name)
    if any(dilations[i] <= 0 for i in spatial):
        raise kernel_error(op_name, "Dilated rates should be larger than 0.", name=name)
    if padding == "EXPLICIT":
        if len(explicit_paddings) != 2 * (nd + 2):
            raise kernel_error(op_name, f"explicit_paddings attribute must contain {2 * (nd + 2)} values, but got: "
                                        f"{len(explicit_paddings)}", name=name)
        if any(p < 0 for p in explicit_paddings):
            raise kernel_error(op_name, "All elements of explicit_paddings must be nonnegative", name=name)
        if any(explicit_paddings[2 * i] or explicit_paddings[2 * i + 1] for i in (0, c)):
            raise kernel_error(op_name, "Nonzero explicit padding in the batch or depth dimensions is not supported",
                               name=name)
    if data_format != "NHWC":
        raise unimplemented(op_name, f"The {op_label} op currently only supports the NHWC tensor format on the "
                                     f"CPU. The op was given the format: {data_format}", name)
    return spatial


def _conv_geometry(x_shape, f_shape, strides, padding, explicit_paddings, data_format, dilations, nd=2):
    op_name = "Conv2D" if nd == 2 else "Conv3D"
    spatial = _check_conv_attrs(op_name, strides, dilations, padding, explicit_paddings, data_format, nd, "",
                                op_name)
    if len(x_shape) != nd + 2:
        raise kernel_error(op_name, f"convolution input must be {nd + 2}-dimensional: {errors.shape_str(x_shape)}")
    if len(f_shape) != nd + 2:
        raise kernel_error(op_name, f"convolution filter must be {nd + 2}-dimensional: {errors.shape_str(f_shape)}")
    in_depth, f_depth, out_depth = x_shape[-1], f_shape[-2], f_shape[-1]
    if f_depth <= 0:
        raise kernel_error(op_name, f"filter depth must be stricly positive, got {f_depth}")
    if in_depth % f_depth:
        raise kernel_error(op_name, f"input depth must be evenly divisible by filter depth: {in_depth} vs {f_depth}")
    groups = in_depth // f_depth
    if out_depth % groups:
        raise kernel_error(op_name, f"output depth must be evenly divisible by number of groups: {out_depth} vs "
                                    f"{groups}")
    geo = geometry(op_name, x_shape[1:-1], f_shape[:-2], strides, dilations, padding, explicit_paddings, spatial)
    geo.groups = groups
    return geo


def _im2col(x, geo):
    """The (N * prod(out), prod(ksize) * C) patch matrix of ``x``."""
    xp = pad_spatial(x, geo.pads)
    cols = windows(xp, geo.ksize, geo.strides, geo.dilations, geo.out)
    return cols.reshape(-1, int(np.prod(geo.ksize)) * x.shape[-1])


# The forward's patch matrix, kept for the filter gradient of the same input (a training step's backward pass),
# as a hand-written layer would keep it. Only while a tape records; an entry goes when it is used or when its
# input array is freed, and the total stays under a budget.
_COLS: dict = {}
_COLS_BUDGET = 1 << 27  # bytes


def _geo_key(geo):
    return (geo.ksize, geo.strides, geo.dilations, geo.pads, geo.out)


def _keep_cols(x, geo, cols):
    if not STATE.tapes or cols.nbytes > _COLS_BUDGET:
        return
    while _COLS and sum(e[2].nbytes for e in _COLS.values()) + cols.nbytes > _COLS_BUDGET:
        _COLS.pop(next(iter(_COLS)))
    key = id(x)
    _COLS[key] = (weakref.ref(x, lambda ref, k=key: _forget(k, ref)), _geo_key(geo), cols)


def _forget(key, ref):
    entry = _COLS.get(key)
    if entry is not None and entry[0] is ref:
        del _COLS[key]


def _take_cols(x, geo):
    entry = _COLS.get(id(x))
    if entry is not None and entry[0]() is x and entry[1] == _geo_key(geo):
        del _COLS[id(x)]
        return entry[2]
    return _im2col(x, geo)


def _conv_forward(x, f, geo):
    n, cout, dt = x.shape[0], f.shape[-1], x.dtype
    ct = compute_dtype(x)
    if n == 0 or cout == 0 or 0 in geo.out:
        return np.zeros((n,) + geo.out + (cout,), x.dtype)
    xc, f = x.astype(ct, copy=False), f.astype(ct, copy=False)
    cols = _im2col(xc, geo)
    g = geo.groups
    if g == 1:
        out = cols @ f.reshape(-1, cout)
        if xc is x:
            _keep_cols(x, geo, cols)
    else:
        taps_, cg = int(np.prod(geo.ksize)), f.shape[-2]
        cols = cols.reshape(-1, taps_, g, cg).transpose(2, 0, 1, 3).reshape(g, -1, taps_ * cg)
        wg = f.reshape(taps_ * cg, g, cout // g).transpose(1, 0, 2)
        out = np.matmul(cols, wg).transpose(1, 0, 2)
    return out.reshape((n,) + geo.out + (cout,)).astype(dt, copy=False)


def _conv_backprop_input(dy, f, in_shape, geo):
    """col2im: per filter tap, one matmul of the output gradient with the tap's weights, added onto the strided
    slice of the (padded) input it came from. Taps one at a time keep each added block contiguous, which is
    twice as fast as one big matmul whose columns are scattered afterwards."""
    ct = compute_dtype(dy)
    if 0 in in_shape or 0 in dy.shape:
        return np.zeros(in_shape, dy.dtype)
    c, cout = in_shape[-1], f.shape[-1]
    dym = dy.astype(ct, copy=False).reshape(-1, cout)
    ft = np.ascontiguousarray(f.astype(ct, copy=False).swapaxes(-1, -2))  # (*ksize, cout, c)
    padded = (in_shape[0],) + tuple(d + b + a for d, (b, a) in zip(in_shape[1:-1], geo.pads)) + (c,)
    dxp = np.zeros(padded, ct)
    buf = np.empty((dym.shape[0], c), ct)
    block = buf.reshape(dy.shape[:-1] + (c,))
    for index in taps(geo.ksize):
        np.matmul(dym, ft[index], out=buf)
        dxp[tap(index, geo.strides, geo.dilations, geo.out)] += block
    dx = dxp[(slice(None),) + tuple(slice(b, b + d) for d, (b, _) in zip(in_shape[1:-1], geo.pads))]
    return dx.astype(dy.dtype, copy=False)  # a view of the padded buffer: no copy on the hot path


def _conv_backprop_filter(x, dy, f_shape, geo):
    ct = compute_dtype(x)
    if 0 in x.shape or 0 in dy.shape:
        return np.zeros(f_shape, x.dtype)
    cols = _take_cols(x, geo) if ct == x.dtype else _im2col(x.astype(ct), geo)
    dw = cols.T @ dy.astype(ct, copy=False).reshape(-1, f_shape[-1])
    return dw.reshape(f_shape).astype(x.dtype, copy=False)


# ------------------------------------------------------------------------------------------ Conv2D


_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations")


@defop("Conv2D")
def CONV2D(x, f, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), strict=True):
    geo = _conv_geometry(x.shape, f.shape, strides, padding, explicit_paddings, data_format, dilations)
    return _conv_forward(x, f, geo)


def _backprop_attrs(attrs):
    return {k: attrs[k] for k in _CONV_ATTRS if k in attrs} | {"strict": attrs.get("strict", True)}


def _strict_failure(attrs, f_shape, in_depth):
    """TF's CPU backprop kernels refuse dilations and groups: the gradient must raise as TF's does."""
    if not attrs.get("strict", True):
        return False
    return any(d != 1 for d in attrs["dilations"]) or f_shape[-2] != in_depth


@CONV2D.defvjp
def _conv2d_grad(g, y, x, f, needs, **attrs):
    battrs = _backprop_attrs(attrs)
    fails = _strict_failure(attrs, f._value.shape, x._value.shape[-1])
    gx = gf = None
    if needs[0] or fails:  # TF computes the input side first, and its errors come from there
        gx = execute(CONV2D_BACKPROP_INPUT, (f, g), battrs | {"input_sizes": x._value.shape})
    if needs[1]:
        gf = execute(CONV2D_BACKPROP_FILTER, (x, g), battrs | {"filter_sizes": f._value.shape})
    return gx, gf


def _backprop_geometry(op_name, label, in_shape, f_shape, dy_shape, strides, padding, explicit_paddings,
                       data_format, dilations, strict, nd=2):
    """The checks of TF's CPU ``Conv2DCustomBackprop{Input,Filter}`` kernels, then the forward's geometry."""
    if data_format != "NHWC":
        raise kernel_error(op_name, f"{label} only supports NHWC.")
    if len(strides) != nd + 2:
        raise kernel_error(op_name, f"Sliding window strides field must specify {nd + 2} dimensions")
    if strides[0] != 1 or strides[-1] != 1:
        raise unimplemented(op_name, "Current implementation does not yet support strides in the batch and depth "
                                     "dimensions.")
    if any(s <= 0 for s in strides[1:-1]):
        raise kernel_error(op_name, "Row and column strides should be larger than 0.")
    if strict and any(d != 1 for d in dilations):
        raise kernel_error(op_name, "Current CPU implementations do not yet support dilation rates larger than 1.")
    if padding == "EXPLICIT" and any(p < 0 for p in explicit_paddings):
        raise kernel_error(op_name, "All elements of explicit_paddings must be nonnegative")
    where = label[:-2]
    for what, shape in (("input", in_shape), ("filter", f_shape), ("out_backprop", dy_shape)):
        if len(shape) != nd + 2:
            raise kernel_error(op_name, f"{where}: {what} must be {nd + 2}-dimensional")
    if in_shape[0] != dy_shape[0]:
        raise kernel_error(op_name, f"{where}: input and out_backprop must have the same batch size. Input batch: "
                                    f"{in_shape[0]}, outbackprop batch: {dy_shape[0]}, batch_dim: 0")
    if f_shape[-2] <= 0 or in_shape[-1] % f_shape[-2]:
        raise kernel_error(op_name, f"{where}: input depth must be evenly divisible by filter depth")
    if f_shape[-1] != dy_shape[-1]:
        raise kernel_error(op_name, f"{where}: filter and out_backprop must have the same out_depth")
    spatial = list(range(1, nd + 1))
    geo = geometry(op_name, in_shape[1:-1], f_shape[:-2], strides, dilations, padding, explicit_paddings, spatial,
                    "")
    for k in range(nd):
        if geo.out[k] != dy_shape[1 + k]:
            raise kernel_error(op_name, f"{where}: Size of out_backprop doesn't match computed: actual = "
                                        f"{dy_shape[1 + k]}, computed = {geo.out[k]} spatial_dim: {1 + k} input: "
                                        f"{in_shape[1 + k]} filter: {f_shape[k]} output: {dy_shape[1 + k]} stride: "
                                        f"{geo.strides[k]} dilation: {geo.dilations[k]}")
    geo.groups = in_shape[-1] // f_shape[-2]
    return geo


@defop("Conv2DBackpropInput")
def CONV2D_BACKPROP_INPUT(f, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                          dilations=(1, 1, 1, 1), strict=True):
    in_shape = tuple(input_sizes)
    geo = _backprop_geometry("Conv2DBackpropInput", "Conv2DCustomBackpropInputOp", in_shape, f.shape, dy.shape,
                             strides, padding, explicit_paddings, data_format, dilations, strict)
    if geo.groups != 1:
        raise kernel_error("Conv2DBackpropInput", "Gradients for grouped convolutions are not supported on CPU. "
                           "Please file a feature request if you run into this issue. Computed input depth "
                           f"{in_shape[-1]} doesn't match filter input depth {f.shape[-2]}")
    return _conv_backprop_input(dy, f, in_shape, geo)


@CONV2D_BACKPROP_INPUT.defvjp
def _conv2d_backprop_input_grad(g, y, f, dy, needs, input_sizes, **attrs):
    gf = execute(CONV2D_BACKPROP_FILTER, (g, dy), attrs | {"filter_sizes": f._value.shape}) if needs[0] else None
    gdy = execute(CONV2D, (g, f), attrs) if needs[1] else None
    return gf, gdy


@defop("Conv2DBackpropFilter")
def CONV2D_BACKPROP_FILTER(x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                           dilations=(1, 1, 1, 1), strict=True):
    f_shape = tuple(filter_sizes)
    geo = _backprop_geometry("Conv2DBackpropFilter", "Conv2DCustomBackpropFilterOp", x.shape, f_shape, dy.shape,
                             strides, padding, explicit_paddings, data_format, dilations, strict)
    return _conv_backprop_filter(x, dy, f_shape, geo)


@CONV2D_BACKPROP_FILTER.defvjp
def _conv2d_backprop_filter_grad(g, y, x, dy, needs, filter_sizes, **attrs):
    gx = execute(CONV2D_BACKPROP_INPUT, (g, dy), attrs | {"input_sizes": x._value.shape}) if needs[0] else None
    gdy = execute(CONV2D, (x, g), attrs) if needs[1] else None
    return gx, gdy


# ------------------------------------------------------------------------------------------ public functions


def _run_batched(op, x, f, attrs, inner_rank=3):
    """Run a 4-D op on ``x``, folding extra leading batch dimensions into one (TF's ``squeeze_batch_dims``)."""
    shape = x._value.shape
    if len(shape) <= inner_rank + 1:
        return execute(op, (x, f), attrs)
    batch = shape[:-inner_rank]
    flat = execute(RESHAPE, (x,), {"shape": (-1,) + shape[-inner_rank:]})
    out = execute(op, (flat, f), attrs)
    return execute(RESHAPE, (out,), {"shape": batch + out._value.shape[1:]})


def _conv2d(input, filters, strides, padding, data_format, dilations, strict=True):
    padding, explicit = convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    ci = 1 if data_format.startswith("NC") else 3
    strides = get_sequence(strides, 2, ci, "strides")
    dilations = get_sequence(dilations, 2, ci, "dilations")
    x, f = matching(input, filters)
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv2D", padding=padding, data_format=data_format)
    return _run_batched(CONV2D, x, f, conv_attrs(strides, padding, explicit, data_format, dilations, strict))


@export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as TF) of NHWC ``input`` with ``[h, w, in, out]`` ``filters``.

    ``padding`` is "SAME", "VALID" or explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]``. As on TF's
    CPU, NCHW raises, and gradients of dilated or grouped (``in`` dividing the input depth) filters raise.
    """
    return _conv2d(input, filters, strides, padding, data_format, dilations)


def _conv1d(input, filters, stride, padding, data_format, dilations, strict=True):
    if data_format is None or data_format in ("NHWC", "NWC"):
        data_format, spatial_start, ci = "NHWC", -3, 2
    elif data_format in ("NCHW", "NCW"):
        data_format, spatial_start, ci = "NCHW", -2, 1
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    strides = [1] + get_sequence(stride, 1, ci, "stride")
    dilations = [1] + get_sequence(dilations, 1, ci, "dilations")
    x, f = matching(input, filters)
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv2D", padding=padding, data_format=data_format)
    x = _expand(x, spatial_start)
    f = _expand(f, 0)
    out = _run_batched(CONV2D, x, f, conv_attrs(strides, padding, (), data_format, dilations, strict))
    return _squeeze(out, spatial_start)


def _expand(t, axis):
    shape = t._value.shape
    axis = axis % (len(shape) + 1)
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + (1,) + shape[axis:]})


def _squeeze(t, axis):
    shape = t._value.shape
    axis = axis % len(shape)
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + shape[axis + 1:]})


@export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of ``[batch, width, in]`` ``input`` with ``[width, in, out]`` ``filters``, run as TF
    does: a conv2d over an inserted height of 1 (so its errors name ``Conv2D``)."""
    return _conv1d(input, filters, stride, padding, data_format, dilations)


@export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,
                name=None):
    """N-D convolution, the rank taken from ``filters`` (1-D and 2-D here). Unlike ``conv2d``, dilated filters
    are differentiable (TF's space-to-batch route) and may not be combined with strides > 1."""
    f = filters if isinstance(filters, Tensor) or getattr(filters, "_tapeflow_variable", False) else \
        to_tensor(filters)
    x = input if isinstance(input, Tensor) or getattr(input, "_tapeflow_variable", False) else to_tensor(input)
    f_rank = len(f.shape)
    x_rank = len(x.shape)
    n = f_rank - 2 if f_rank else x_rank - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
    num_batch = x_rank - n - 1 if x_rank else 1
    channels_last = data_format is None or not data_format.startswith("NC")
    ci = num_batch + n if channels_last else num_batch
    dilated = dilations is not None and any(d != 1 for d in get_sequence(dilations, n, ci, "dilations"))
    full_dil = get_sequence(dilations, n, ci, "dilations")
    full_strides = get_sequence(strides, n, ci, "strides")
    if dilated:
        if not isinstance(padding, str) or padding not in ("SAME", "VALID"):
            if isinstance(padding, str):
                raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        sp = full_strides[2:] if ci == 1 else full_strides[1:-1]
        dl = full_dil[2:] if ci == 1 else full_dil[1:-1]
        if any(s != 1 for s in sp):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={np.array(sp)} and dilation_rate={np.array(dl)}")
    elif not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if n == 1:
        return _conv1d(x, f, full_strides, padding, data_format, full_dil, strict=not dilated)
    if n == 2:
        return _conv2d(x, f, full_strides, padding, data_format, full_dil, strict=not dilated)
    raise NotImplementedError("tapeflow's tf.nn.convolution covers 1-D and 2-D convolutions")


def _shape_values(output_shape):
    """``output_shape`` as TF's op wrapper converts an int32 input (``TypeError`` for floats)."""
    if isinstance(output_shape, Tensor):
        v = output_shape._value
        if v.dtype != np.int32:
            raise errors.InvalidArgumentError(
                None, None, "cannot compute Conv2DBackpropInput as input #0(zero-based) was expected to be a int32 "
                f"tensor but is a {dtypes.dtype_of(v.dtype).name} tensor [Op:Conv2DBackpropInput] name: ")
        return tuple(int(d) for d in v.reshape(-1))
    values = list(output_shape)
    for d in values:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise cannot_convert(output_shape, dtypes.int32)
    return tuple(int(d) for d in values)


@export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The transpose (gradient) of ``conv2d``: maps ``input`` shaped like conv2d's output back to
    ``output_shape``, with ``filters`` ``[h, w, out_channels, in_channels]`` (TF's ``Conv2DBackpropInput``)."""
    if data_format is None:
        data_format = "NHWC"
    ci = 1 if data_format.startswith("NC") else 3
    strides = get_sequence(strides, 2, ci, "strides")
    dilations = get_sequence(dilations, 2, ci, "dilations")
    padding, explicit = convert_padding(padding)
    sizes = _shape_values(output_shape)
    f, dy = matching(filters, input)
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv2DBackpropInput", padding=padding, data_format=data_format)
    if len(sizes) == 2 and len(dy.shape) == 4 and len(f.shape) == 4:
        sizes = (dy.shape[0],) + sizes + (f.shape[2],)
    elif len(sizes) != 4:
        raise kernel_error("Conv2DBackpropInput", "Conv2DBackpropInput requires input_sizes to contain 4 values or "
                           f"2 values, but got: {len(sizes)}", name=None)
    attrs = conv_attrs(strides, padding, explicit, data_format, dilations) | {"input_sizes": sizes}
    try:
        return execute(CONV2D_BACKPROP_INPUT, (f, dy), attrs)
    except errors.OpError as exc:
        raise _without_name(exc) from None


def _without_name(exc):
    """TF's ``conv2d_transpose`` reports kernel errors without the `` name: `` suffix its gradient path adds."""
    text = str(exc)
    if text.endswith(" name: ") and text.startswith("{{function_node"):
        return type(exc)(None, None, text[: -len(" name: ")])
    return exc

"""Convolutions (``tf.nn.conv1d``, ``conv2d``, ``conv2d_transpose``, ``conv1d_transpose``): forward (NumPy) and
gradient (tapeflow ops) side by side, and the N-D kernels the 3-D ops (``conv3d_ops``) share. Depthwise convolution
is in ``depthwise_ops``, pooling in ``pool_ops``, the window arithmetic they share in ``_windows``.

The forwards are im2col: a strided window view of the padded input, copied once into a matrix, times the
filter in one BLAS matmul. Gradients are TensorFlow's own backprop ops (``Conv2DBackpropInput``,
``Conv2DBackpropFilter``), each with its gradient rule, so second derivatives work.

TF's CPU kernels set what is allowed: NHWC only (NCHW raises), and the gradient of a dilated or grouped
``conv2d`` raises (``tf.nn.convolution`` differentiates dilated filters: it takes TF's space-to-batch route, see
``conv3d_ops``).
"""

from __future__ import annotations

import weakref

import numpy as np

from .._core import dtypes, errors
from .._core.convert import c_name, cannot_convert
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import REGISTRY, defop
from .._core.state import STATE
from .._core.tensor import Tensor
from . import depthwise_ops, pool_ops  # noqa: F401  (registered with the convolutions)
from ._convert import matching, to_tensor
from ._windows import (
    check_outer_ones,
    check_string_attrs,
    compute_dtype,
    conv_attrs,
    conv_grads,
    convert_padding,
    geometry,
    get_sequence,
    kernel_error,
    pad_spatial,
    padded_shape,
    spatial_sequences,
    string_attr,
    tap,
    taps,
    unimplemented,
    windows,
    without_name,
)
from .array_ops import RESHAPE
from .shape_like_ops import EXPAND_DIMS_AT, SQUEEZE_AT, shape_varies

__all__ = ["conv1d", "conv2d", "conv2d_transpose", "conv1d_transpose"]

# ------------------------------------------------------------------------------------------ conv geometry


def _check_conv_attrs(strides, dilations, padding, explicit_paddings, data_format):
    """The checks TF's Conv2D kernel makes when it is built, in their order."""
    op = "Conv2D"
    if len(strides) != 4:
        raise kernel_error(op, "Sliding window strides field must specify 4 dimensions")
    if len(dilations) != 4:
        raise kernel_error(op, "Sliding window dilations field must specify 4 dimensions")
    c = 1 if data_format.startswith("NC") else 3
    spatial = [i for i in range(4) if i not in (0, c)]
    check_outer_ones(op, strides, c, spatial, "strides", "Row and column strides should be larger than 0.",
                     errors.UnimplementedError)
    check_outer_ones(op, dilations, c, spatial, "dilations", "Dilated rates should be larger than 0.",
                     errors.UnimplementedError)
    if padding == "EXPLICIT":
        if len(explicit_paddings) != 8:
            raise kernel_error(op, f"explicit_paddings attribute must contain 8 values, but got: "
                                   f"{len(explicit_paddings)}")
        if any(p < 0 for p in explicit_paddings):
            raise kernel_error(op, "All elements of explicit_paddings must be nonnegative")
        if any(explicit_paddings[2 * i] or explicit_paddings[2 * i + 1] for i in (0, c)):
            raise kernel_error(op, "Nonzero explicit padding in the batch or depth dimensions is not supported")
    return c, spatial


def _conv_geometry(x_shape, f_shape, strides, padding, explicit_paddings, data_format, dilations):
    op = "Conv2D"
    c, spatial = _check_conv_attrs(strides, dilations, padding, explicit_paddings, data_format)
    if len(x_shape) != 4:
        raise kernel_error(op, f"convolution input must be 4-dimensional: {errors.shape_str(x_shape)}")
    if len(f_shape) != 4:
        raise kernel_error(op, f"convolution filter must be 4-dimensional: {errors.shape_str(f_shape)}")
    in_depth, f_depth, out_depth = x_shape[c], f_shape[-2], f_shape[-1]
    if f_depth <= 0:
        raise kernel_error(op, f"filter depth must be stricly positive, got {f_depth}")
    if in_depth % f_depth:
        raise kernel_error(op, f"input depth must be evenly divisible by filter depth: {in_depth} vs {f_depth}")
    groups = in_depth // f_depth
    if out_depth % groups:
        raise kernel_error(op, f"output depth must be evenly divisible by number of groups: {out_depth} vs "
                               f"{groups}")
    geo = geometry(op, [x_shape[i] for i in spatial], f_shape[:-2], strides, dilations, padding,
                   explicit_paddings, spatial)
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
    _COLS[key] = (weakref.ref(x, lambda ref, k=key, forget=_forget: forget(k, ref)), _geo_key(geo), cols)


def _forget(key, ref, cols=_COLS):
    # ``cols`` bound at definition: a weakref callback can run while the interpreter shuts down, when this module's
    # globals are already gone.
    entry = cols.get(key)
    if entry is not None and entry[0] is ref:
        del cols[key]


def _take_cols(x, geo):
    entry = _COLS.get(id(x))
    if entry is not None and entry[0]() is x and entry[1] == _geo_key(geo):
        del _COLS[id(x)]
        return entry[2]
    return _im2col(x, geo)


def conv_forward(x, f, geo):
    """The convolution of N-D ``x`` (N, *spatial, C) with ``f`` (*ksize, C / groups, out) over ``geo``."""
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


def conv_backprop_input(dy, f, in_shape, geo):
    """col2im: per filter tap, one matmul of the output gradient with the tap's weights, added onto the strided
    slice of the (padded) input it came from. Taps one at a time keep each added block contiguous, which is
    twice as fast as one big matmul whose columns are scattered afterwards."""
    ct = compute_dtype(dy)
    if 0 in in_shape or 0 in dy.shape:
        return np.zeros(in_shape, dy.dtype)
    c, cout = in_shape[-1], f.shape[-1]
    dym = dy.astype(ct, copy=False).reshape(-1, cout)
    ft = np.ascontiguousarray(f.astype(ct, copy=False).swapaxes(-1, -2))  # (*ksize, cout, c)
    dxp = np.zeros(padded_shape(in_shape, geo.pads), ct)
    buf = np.empty((dym.shape[0], c), ct)
    block = buf.reshape(dy.shape[:-1] + (c,))
    for index in taps(geo.ksize):
        np.matmul(dym, ft[index], out=buf)
        dxp[tap(index, geo.strides, geo.dilations, geo.out)] += block
    dx = dxp[(slice(None),) + tuple(slice(b, b + d) for d, (b, _) in zip(in_shape[1:-1], geo.pads))]
    return dx.astype(dy.dtype, copy=False)  # a view of the padded buffer: no copy on the hot path


def conv_backprop_filter(x, dy, f_shape, geo):
    ct = compute_dtype(x)
    if 0 in x.shape or 0 in dy.shape:
        return np.zeros(f_shape, x.dtype)
    cols = _take_cols(x, geo) if ct == x.dtype else _im2col(x.astype(ct), geo)
    dw = cols.T @ dy.astype(ct, copy=False).reshape(-1, f_shape[-1])
    return dw.reshape(f_shape).astype(x.dtype, copy=False)


# ------------------------------------------------------------------------------------------ Conv2D


@defop("Conv2D")
def CONV2D(x, f, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1)):
    geo = _conv_geometry(x.shape, f.shape, strides, padding, explicit_paddings, data_format, dilations)
    n, cout = x.shape[0], f.shape[-1]
    out_shape = (n, cout) + geo.out if data_format == "NCHW" else (n,) + geo.out + (cout,)
    if 0 in out_shape:  # TF's kernel returns an empty output before its CPU launcher checks the format
        return np.zeros(out_shape, x.dtype)
    if data_format != "NHWC":
        raise unimplemented("Conv2D", "The Conv2D op currently only supports the NHWC tensor format on the CPU. The "
                                      f"op was given the format: {data_format}")
    return conv_forward(x, f, geo)


def _backprop_geometry(op_name, label, in_shape, f_shape, dy_shape, strides, padding, explicit_paddings,
                       data_format, dilations):
    """The checks of TF's CPU ``Conv2DCustomBackprop{Input,Filter}`` kernels, then the forward's geometry."""
    if data_format != "NHWC":
        raise kernel_error(op_name, f"{label} only supports NHWC.")
    if len(strides) != 4:
        raise kernel_error(op_name, "Sliding window strides field must specify 4 dimensions")
    if strides[0] != 1 or strides[-1] != 1:
        raise unimplemented(op_name, "Current implementation does not yet support strides in the batch and depth "
                                     "dimensions.")
    if any(s <= 0 for s in strides[1:-1]):
        raise kernel_error(op_name, "Row and column strides should be larger than 0.")
    if any(d != 1 for d in dilations):
        raise kernel_error(op_name, "Current CPU implementations do not yet support dilation rates larger than 1.")
    if padding == "EXPLICIT" and any(p < 0 for p in explicit_paddings):
        raise kernel_error(op_name, "All elements of explicit_paddings must be nonnegative")
    where = label[:-2]
    for what, shape in (("input", in_shape), ("filter", f_shape), ("out_backprop", dy_shape)):
        if len(shape) != 4:
            raise kernel_error(op_name, f"{where}: {what} must be 4-dimensional")
    if in_shape[0] != dy_shape[0]:
        raise kernel_error(op_name, f"{where}: input and out_backprop must have the same batch size. Input batch: "
                                    f"{in_shape[0]}, outbackprop batch: {dy_shape[0]}, batch_dim: 0")
    if f_shape[-2] <= 0 or in_shape[-1] % f_shape[-2]:
        raise kernel_error(op_name, f"{where}: input depth must be evenly divisible by filter depth")
    if f_shape[-1] != dy_shape[-1]:
        raise kernel_error(op_name, f"{where}: filter and out_backprop must have the same out_depth")
    geo = geometry(op_name, in_shape[1:-1], f_shape[:-2], strides, dilations, padding, explicit_paddings, [1, 2])
    _check_backprop_sizes(op_name, where, geo, in_shape, f_shape, dy_shape)
    geo.groups = in_shape[-1] // f_shape[-2]
    return geo


def _check_backprop_sizes(op_name, where, geo, in_shape, f_shape, dy_shape):
    """TF's check that the output gradient has the forward's output size in each spatial dimension."""
    for k, out in enumerate(geo.out):
        if out != dy_shape[1 + k]:
            raise kernel_error(op_name, f"{where}: Size of out_backprop doesn't match computed: actual = "
                                        f"{dy_shape[1 + k]}, computed = {out} spatial_dim: {1 + k} input: "
                                        f"{in_shape[1 + k]} filter: {f_shape[k]} output: {dy_shape[1 + k]} stride: "
                                        f"{geo.strides[k]} dilation: {geo.dilations[k]}")


@defop("Conv2DBackpropInput")
def CONV2D_BACKPROP_INPUT(f, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                          dilations=(1, 1, 1, 1)):
    in_shape = tuple(input_sizes)
    geo = _backprop_geometry("Conv2DBackpropInput", "Conv2DCustomBackpropInputOp", in_shape, f.shape, dy.shape,
                             strides, padding, explicit_paddings, data_format, dilations)
    if geo.groups != 1:
        raise kernel_error("Conv2DBackpropInput", "Gradients for grouped convolutions are not supported on CPU. "
                           "Please file a feature request if you run into this issue. Computed input depth "
                           f"{in_shape[-1]} doesn't match filter input depth {f.shape[-2]}")
    return conv_backprop_input(dy, f, in_shape, geo)


@defop("Conv2DBackpropFilter")
def CONV2D_BACKPROP_FILTER(x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                           dilations=(1, 1, 1, 1)):
    f_shape = tuple(filter_sizes)
    geo = _backprop_geometry("Conv2DBackpropFilter", "Conv2DCustomBackpropFilterOp", x.shape, f_shape, dy.shape,
                             strides, padding, explicit_paddings, data_format, dilations)
    return conv_backprop_filter(x, dy, f_shape, geo)


def _cpu_refuses(attrs, x, f):
    """TF's CPU backprop kernels refuse dilations and groups: the gradient must raise as TF's does."""
    return any(d != 1 for d in attrs["dilations"]) or f.shape[-2] != x.shape[-1]


conv_grads(CONV2D, CONV2D_BACKPROP_INPUT, CONV2D_BACKPROP_FILTER, input_first=_cpu_refuses)

# ------------------------------------------------------------------------------------------ public functions


def run_batched(op, x, f, attrs, inner_rank):
    """Run ``op`` on ``x``, folding extra leading batch dimensions into one (TF's ``squeeze_batch_dims``)."""
    shape = x._value.shape
    if len(shape) <= inner_rank + 1:
        return execute(op, (x, f), attrs)
    batch = shape[:-inner_rank]
    flat = execute(RESHAPE, (x,), {"shape": (-1,) + shape[-inner_rank:]})
    out = execute(op, (flat, f), attrs)
    return execute(RESHAPE, (out,), {"shape": batch + out._value.shape[1:]})


def conv2d_full(input, filters, strides, padding, data_format, dilations):
    """``conv2d`` once ``strides``/``dilations`` may already be full lists (``tf.nn.convolution`` passes them)."""
    padding, explicit = convert_padding(padding)
    data_format, (strides, dilations) = spatial_sequences(2, data_format, "NHWC", strides=strides,
                                                          dilations=dilations)
    x, f = matching(input, filters)
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv2D", padding=padding, data_format=data_format)
    return run_batched(CONV2D, x, f, conv_attrs(strides, padding, explicit, data_format, dilations), 3)


@export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as TF) of NHWC ``input`` with ``[h, w, in, out]`` ``filters``.

    ``padding`` is "SAME", "VALID" or explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]``. As on TF's
    CPU, NCHW raises, and gradients of dilated or grouped (``in`` dividing the input depth) filters raise.
    """
    return conv2d_full(input, filters, strides, padding, data_format, dilations)


def _format_1d(data_format):
    """``(2-D data format, inserted axis, channel index)`` of a 1-D data format, as TF's 1-D wrappers map it."""
    if data_format is None or data_format in ("NHWC", "NWC"):
        return "NHWC", 1, 2
    if data_format in ("NCHW", "NCW"):
        return "NCHW", 2, 1
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")


def conv1d_full(input, filters, stride, padding, data_format, dilations):
    data_format, axis, ci = _format_1d(data_format)
    strides = [1] + get_sequence(stride, 1, ci, "stride")
    dilations = [1] + get_sequence(dilations, 1, ci, "dilations")
    x, f = matching(input, filters)
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv2D", padding=padding, data_format=data_format)
    # conv1d counts the inserted axis from the end (extra batch dimensions come first), the transpose from the front
    out = run_batched(CONV2D, _expand(x, axis - 4), _expand(f, 0),
                      conv_attrs(strides, padding, (), data_format, dilations), 3)
    return _squeeze(out, axis - 4)


def _expand(t, axis):
    shape = t._value.shape
    axis = axis % (len(shape) + 1)
    if shape_varies(t):  # a traced program whose sizes vary: no fixed shape (the 1-D ops over 2-D ones)
        return execute(EXPAND_DIMS_AT, (t,), {"axis": axis})
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + (1,) + shape[axis:]})


def _squeeze(t, axis):
    shape = t._value.shape
    axis = axis % len(shape)
    if shape_varies(t):
        return execute(SQUEEZE_AT, (t,), {"axis": (axis,)})
    return execute(RESHAPE, (t,), {"shape": shape[:axis] + shape[axis + 1:]})


@export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of ``[batch, width, in]`` ``input`` with ``[width, in, out]`` ``filters``, run as TF
    does: a conv2d over an inserted height of 1 (so its errors name ``Conv2D``)."""
    return conv1d_full(input, filters, stride, padding, data_format, dilations)


# ------------------------------------------------------------------------------------------ transposes


def shape_values(output_shape, op_name, kinds=("int32",)):
    """``output_shape`` as TF's op wrapper converts its ``input_sizes`` input: an integer tensor of ``kinds``
    (``TypeError`` for float lists where only int32 is taken, TF's attr error where int64 is taken too)."""
    if isinstance(output_shape, Tensor) or getattr(output_shape, "_tapeflow_variable", False):
        v = np.asarray(output_shape._value)
        if v.dtype.name not in kinds:
            if len(kinds) > 1:
                raise _tshape_error(op_name, v.dtype)
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to be a int32 "
                f"tensor but is a {dtypes.dtype_of(v.dtype).name} tensor [Op:{op_name}] name: ")
        return tuple(int(d) for d in v.reshape(-1))
    values = list(output_shape)
    for d in values:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            if len(kinds) > 1 and isinstance(d, (float, np.floating)):
                raise _tshape_error(op_name, np.dtype(np.float32))
            raise cannot_convert(output_shape, dtypes.int32)
    return tuple(int(d) for d in values)


def _tshape_error(op_name, dtype):
    return errors.InvalidArgumentError(
        None, None, f"Value for attr 'Tshape' of {c_name(dtypes.dtype_of(dtype))} is not in the list of allowed "
        f"values: int32, int64\n\t; NodeDef: {{{{node {op_name}}}}}; {REGISTRY[op_name].tf_signature()} "
        f"[Op:{op_name}] name: ")


def check_filter_dtype(op_name, f, dy):
    """TF converts ``filter`` before ``out_backprop`` (inputs #1 and #2 after ``input_sizes``): a mismatch names
    ``out_backprop``."""
    if f.dtype != dy.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute {op_name} as input #2(zero-based) was expected to be a {c_name(f.dtype)} "
            f"tensor but is a {c_name(dy.dtype)} tensor [Op:{op_name}] name: ")


def _conv2d_backprop_input(dy, f, sizes, strides, padding, explicit, data_format, dilations):
    op = "Conv2DBackpropInput"
    padding = string_attr(padding, "padding")
    check_string_attrs(op, padding=padding, data_format=data_format)
    check_filter_dtype(op, f, dy)
    if len(dy.shape) != 4:  # TF's kernel checks the output gradient's rank first, naming input_sizes
        raise kernel_error(op, f"input_sizes must be 4-dimensional, got: {len(dy.shape)}")
    if len(sizes) == 2:
        sizes = (dy.shape[0],) + sizes + (f.shape[2] if len(f.shape) > 2 else 0,)
    elif len(sizes) != 4:
        raise kernel_error(op, f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but "
                               f"got: {len(sizes)}")
    attrs = conv_attrs(strides, padding, explicit, data_format, dilations) | {"input_sizes": sizes}
    return execute(CONV2D_BACKPROP_INPUT, (f, dy), attrs)


@export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The transpose (gradient) of ``conv2d``: maps ``input`` shaped like conv2d's output back to
    ``output_shape``, with ``filters`` ``[h, w, out_channels, in_channels]`` (TF's ``Conv2DBackpropInput``)."""
    data_format, (strides, dilations) = spatial_sequences(2, data_format, "NHWC", strides=strides,
                                                          dilations=dilations)
    padding, explicit = convert_padding(padding)
    sizes = shape_values(output_shape, "Conv2DBackpropInput")
    f, dy = matching(filters, input)
    try:
        return _conv2d_backprop_input(dy, f, sizes, strides, padding, explicit, data_format, dilations)
    except errors.OpError as exc:  # TF's conv2d_transpose reports kernel errors without the name suffix
        raise (without_name(exc) if str(exc).startswith("{{function_node") else exc) from None


@export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The transpose of ``conv1d``: ``input`` ``[batch, width, out_channels]`` back to ``output_shape``, with
    ``filters`` ``[width, in_channels, out_channels]``; run as TF does, a ``Conv2DBackpropInput`` over an
    inserted height of 1."""
    if data_format not in (None, "NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    data_format, axis, ci = _format_1d(data_format)
    strides = [1] + get_sequence(strides, 1, ci, "stride")
    dilations = [1] + get_sequence(dilations, 1, ci, "dilations")
    dy = _expand(to_tensor(input), axis)
    f = _expand(to_tensor(filters), 0)
    sizes = shape_values(output_shape, "Conv2DBackpropInput")
    sizes = sizes[:axis] + (1,) + sizes[axis:]
    out = _conv2d_backprop_input(dy, f, sizes, strides, padding, (), data_format, dilations)
    return _squeeze(out, axis)

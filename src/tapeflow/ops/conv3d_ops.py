"""3-D convolution (``tf.nn.conv3d``, ``conv3d_transpose``) and the rank-generic entry points
(``tf.nn.convolution``, ``conv_transpose``): forward (NumPy) and gradient (tapeflow ops) side by side.

``Conv3D`` runs the N-D im2col kernels of ``conv_ops``; its gradients are TF's ``Conv3DBackpropInputV2`` and
``Conv3DBackpropFilterV2``, each with its own rule (second order works). As on TF's CPU, NCDHW, dilations and
grouped filters raise (after an empty output has been returned, as TF's kernel returns it first).

``tf.nn.convolution`` with dilations takes TF's space-to-batch route (``_windows.with_space_to_batch``): the
dilated filter becomes a plain VALID convolution of the input's phases, so it differentiates in every rank and
fails where TF's route fails (``BatchToSpaceND`` when the output would be cropped below zero).
"""

from __future__ import annotations

from collections.abc import Sized

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor
from ._convert import matching, to_tensor
from ._windows import (
    Geometry,
    attr_min_error,
    check_outer_ones,
    check_string_attrs,
    conv_grads,
    get_sequence,
    int_list,
    kernel_error,
    string_attr,
    window_dim,
    with_space_to_batch,
    without_name,
)
from .conv_ops import (
    check_filter_dtype,
    conv1d_full,
    conv1d_transpose,
    conv2d_full,
    conv2d_transpose,
    conv_backprop_filter,
    conv_backprop_input,
    conv_forward,
    run_batched,
    shape_values,
)

__all__ = ["conv3d", "conv3d_transpose", "conv_transpose", "convolution"]

# ------------------------------------------------------------------------------------------ geometry


def _spatial_geometry(op_name, in_shape, ksize, strides, dilations, padding, spatial, dy_shape=None, where=""):
    """Output size and pads of each spatial dimension (depth first, as TF's 3-D kernels go); with ``dy_shape``,
    each dimension is also checked against the output gradient's size before the next is computed."""
    geo = Geometry()
    geo.strides = tuple(strides[i] for i in spatial)
    geo.dilations = tuple(dilations[i] for i in spatial)
    geo.ksize, geo.groups = tuple(ksize), 1
    out, pads = [], []
    for k, i in enumerate(spatial):
        s = geo.strides[k]
        if s <= 0:
            raise kernel_error(op_name, f"Stride must be > 0, but got {s}")
        o, b, a = window_dim(op_name, in_shape[i], ksize[k], s, geo.dilations[k], padding, None)
        if dy_shape is not None and o != dy_shape[i]:
            raise kernel_error(op_name, f"{where}: Size of out_backprop doesn't match computed: actual = "
                                        f"{dy_shape[i]}, computed = {o} spatial_dim: {i} input: {in_shape[i]} "
                                        f"filter: {ksize[k]} output: {dy_shape[i]} stride: {s} dilation: "
                                        f"{geo.dilations[k]}")
        out.append(o)
        pads.append((b, a))
    geo.out, geo.pads = tuple(out), tuple(pads)
    return geo


def _channel(data_format):
    return 1 if data_format == "NCDHW" else 4  # None (left to the op's default) is NDHWC


def _conv3d_geometry(x_shape, f_shape, strides, padding, data_format, dilations):
    """TF's ``Conv3DOp`` checks, constructor then compute, in their order."""
    op = "Conv3D"
    if len(strides) != 5:
        raise kernel_error(op, "Sliding window strides field must specify 5 dimensions")
    c = _channel(data_format)
    spatial = [1, 2, 3] if c == 4 else [2, 3, 4]
    check_outer_ones(op, strides, c, spatial, "strides", "Spatial strides should be larger than 0.")
    if len(dilations) != 5:
        raise kernel_error(op, "Dilation rates field must specify 5 dimensions")
    check_outer_ones(op, dilations, c, spatial, "dilation rates", "Dilated rates should be larger than 0.")
    if len(x_shape) != 5:
        raise kernel_error(op, "input must be 5-dimensional")
    if len(f_shape) != 5:
        raise kernel_error(op, "filter must be 5-dimensional")
    if f_shape[3] == 0:
        raise kernel_error(op, "filter_depth must be non-zero")
    if x_shape[c] % f_shape[3]:
        raise kernel_error(op, f"Input depth must be evenly divisible by filter depth: {x_shape[c]} vs {f_shape[3]}")
    if 0 in f_shape:
        raise kernel_error(op, "filter must not have zero elements (i.e. all dimensions must be non-zero)")
    return _spatial_geometry(op, x_shape, f_shape[:3], strides, dilations, padding, spatial)


def _backprop_geometry(op_name, in_shape, f_shape, dy_shape, strides, padding, data_format, dilations):
    """The checks of TF's CPU ``Conv3DBackprop{Input,Filter}Op`` kernels, in their order."""
    kind = op_name[len("Conv3DBackprop"):-2]  # "Input" or "Filter"
    if data_format != "NDHWC":
        raise kernel_error(op_name, f"Conv3DBackprop{kind}OpV2 only supports NDHWC on the CPU.")
    if len(dilations) != 5:
        raise kernel_error(op_name, "Dilation rates field must specify 5 dimensions")
    if dilations[0] != 1 or dilations[4] != 1:
        raise kernel_error(op_name, "Current implementation does not yet support dilation rates in the batch and "
                                    "depth dimensions.")
    if any(d != 1 for d in dilations[1:4]):
        raise kernel_error(op_name, "Current CPU implementation does not yet support dilation rates larger than 1.")
    if len(strides) != 5:
        raise kernel_error(op_name, "Sliding window strides field must specify 5 dimensions")
    if strides[0] != 1 or strides[4] != 1:
        raise kernel_error(op_name, "Current implementation does not yet support strides in the batch and depth "
                                    "dimensions.")
    for d in (in_shape if kind == "Input" else f_shape):
        if d < 0:
            raise kernel_error(op_name, f"Dimension {d} must be >= 0")
    for what, shape in (("input", in_shape), ("filter_sizes", f_shape), ("out_backprop", dy_shape)):
        if len(shape) != 5:
            raise kernel_error(op_name, f"{what} tensor must have 5 dimensions")
    if in_shape[4] != f_shape[3]:
        raise kernel_error(op_name, f"input and filter_sizes must have the same number of channels. Got "
                                    f"{in_shape[4]} for input and {f_shape[3]} for filter_sizes")
    if dy_shape[4] != f_shape[4]:
        raise kernel_error(op_name, f"out_backprop and filter_sizes must have the same number of channels. Got "
                                    f"{dy_shape[4]} for out_backprop and {f_shape[4]} for filter_sizes")
    where = f"Conv3DBackprop{kind}Op"
    if in_shape[0] != dy_shape[0]:
        raise kernel_error(op_name, f"{where}: input and out_backprop must have the same batch size. Input batch: "
                                    f"{in_shape[0]}, outbackprop batch: {dy_shape[0]}, batch_dim: 0")
    return _spatial_geometry(op_name, in_shape, f_shape[:3], strides, dilations, padding, [1, 2, 3], dy_shape,
                             where)


# ------------------------------------------------------------------------------------------ Conv3D


@defop("Conv3D")
def CONV3D(x, f, strides, padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1)):
    geo = _conv3d_geometry(x.shape, f.shape, strides, padding, data_format, dilations)
    n, cout = x.shape[0], f.shape[4]
    out_shape = (n, cout) + geo.out if data_format == "NCDHW" else (n,) + geo.out + (cout,)
    if 0 in out_shape:  # TF's kernel returns before its CPU launcher checks anything more
        return np.zeros(out_shape, x.dtype)
    if data_format not in ("NDHWC", None):
        raise kernel_error("Conv3D", "CPU implementation of Conv3D currently only supports the NHWC tensor format.")
    if any(d != 1 for d in geo.dilations):
        raise kernel_error("Conv3D", "CPU implementation of Conv3D currently only supports dilated rates of 1.")
    if f.shape[3] != x.shape[4]:
        raise kernel_error("Conv3D", f"Number of channels in filter ({f.shape[3]}) must match last dimension of "
                                     f"input ({x.shape[4]})")
    return conv_forward(x, f, geo)


@defop("Conv3DBackpropInputV2")
def CONV3D_BACKPROP_INPUT(f, dy, input_sizes, strides, padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1)):
    in_shape = tuple(input_sizes)
    geo = _backprop_geometry("Conv3DBackpropInputV2", in_shape, f.shape, dy.shape, strides, padding, data_format,
                             dilations)
    return conv_backprop_input(dy, f, in_shape, geo)


@defop("Conv3DBackpropFilterV2")
def CONV3D_BACKPROP_FILTER(x, dy, filter_sizes, strides, padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1)):
    f_shape = tuple(filter_sizes)
    geo = _backprop_geometry("Conv3DBackpropFilterV2", x.shape, f_shape, dy.shape, strides, padding, data_format,
                             dilations)
    return conv_backprop_filter(x, dy, f_shape, geo)


conv_grads(CONV3D, CONV3D_BACKPROP_INPUT, CONV3D_BACKPROP_FILTER)

# ------------------------------------------------------------------------------------------ public functions


def _conv3d(input, filters, strides, padding, data_format, dilations):
    """TF's generated ``conv3d`` wrapper (lists of ints, no spreading of single values), batch dimensions
    beyond one folded (TF's ``_conv3d_expanded_batch``). ``data_format=None`` reaches the op as TF lets it: the
    forward runs NDHWC, the gradient raises TF's AttributeError."""
    x, f = matching(input, filters)
    strides = () if strides is None else int_list(strides, "strides", "conv3d")
    dilations = int_list(dilations, "dilations", "conv3d")
    padding = string_attr(padding, "padding")
    check_string_attrs("Conv3D", padding=padding)
    if data_format is not None:  # None is kept: the op runs as NDHWC, and its gradient fails as TF's does
        check_string_attrs("Conv3D", data_format=string_attr(data_format, "data_format"))
    if len(strides) < 5:
        raise attr_min_error("Conv3D", "strides", len(strides), 5)
    attrs = {"strides": strides, "padding": padding, "data_format": data_format, "dilations": dilations}
    return run_batched(CONV3D, x, f, attrs, 4)


@export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of NDHWC ``input`` with ``[d, h, w, in, out]`` ``filters``; ``strides`` (and
    ``dilations``) are lists of 5. As on TF's CPU, NCDHW, dilations and grouped filters raise."""
    return _conv3d(input, filters, strides, padding, data_format, [1] * 5 if dilations is None else dilations)


@export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC", dilations=None,
                     name=None):
    """The transpose (gradient) of ``conv3d``: ``input`` shaped like conv3d's output back to ``output_shape``,
    with ``filters`` ``[d, h, w, out_channels, in_channels]`` (TF's ``Conv3DBackpropInputV2``)."""
    op = "Conv3DBackpropInputV2"
    if data_format is None:
        data_format = "NDHWC"
    ci = 1 if data_format.startswith("NC") else 4
    strides = get_sequence(strides, 3, ci, "strides")
    dilations = get_sequence(dilations, 3, ci, "dilations")
    if isinstance(output_shape, Tensor):  # a tensor of the wrong type is refused before the op runs
        sizes = shape_values(output_shape, op, ("int32", "int64"))
    try:  # TF reports this op's errors without the name suffix
        if not isinstance(output_shape, Tensor):
            sizes = shape_values(output_shape, op, ("int32", "int64"))
        f, dy = matching(filters, input)
        padding = string_attr(padding, "padding")
        check_string_attrs(op, padding=padding, data_format=data_format)
        check_filter_dtype(op, f, dy)
        attrs = {"strides": tuple(int(s) for s in strides), "padding": padding, "data_format": data_format,
                 "dilations": tuple(int(d) for d in dilations), "input_sizes": sizes}
        return execute(CONV3D_BACKPROP_INPUT, (f, dy), attrs)
    except errors.OpError as exc:
        raise without_name(exc) from None


@export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """The transpose of ``tf.nn.convolution``: ``conv1d_transpose``, ``conv2d_transpose`` or
    ``conv3d_transpose``, picked by the length of ``output_shape``."""
    if isinstance(output_shape, Tensor):
        n = output_shape._value.shape[0] - 2
    elif isinstance(output_shape, Sized):
        n = len(output_shape) - 2
    else:
        raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: output_shape={output_shape}")
    if not 1 <= n <= 3:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={output_shape} of "
                         f"length {n + 2}.")
    op = (conv1d_transpose, conv2d_transpose, conv3d_transpose)[n - 1]
    return op(input, filters, output_shape, strides, padding=padding, data_format=data_format, dilations=dilations)


def _plain(n, x, f, strides, padding, data_format, dilations):
    """The convolution without space-to-batch (TF's ``conv1d``, ``_conv2d_expanded_batch``,
    ``_conv3d_expanded_batch``, each handing ``padding`` to the generated op: no explicit padding lists)."""
    padding = string_attr(padding, "padding")
    if n == 1:
        return conv1d_full(x, f, strides, padding, data_format, dilations)
    if n == 2:
        return conv2d_full(x, f, strides, padding, data_format, dilations)
    return _conv3d(x, f, strides, padding, data_format, dilations)


_FORMATS = {1: ("NWC", {"NCW", "NWC", "NCHW", "NHWC"}, "'NWC' or 'NCW'"),
            2: ("NHWC", {"NHWC", "NCHW"}, "'NHWC' or 'NCHW'"),
            3: ("NDHWC", {"NDHWC", "NCDHW"}, "'NDHWC' or 'NCDHW'")}


def _phase_conv(n, f, data_format):
    """TF's ``_NonAtrousConvolution`` builder: the VALID convolution run on the space-to-batch phases."""

    def build(padding):
        default, allowed, names = _FORMATS[n]
        if data_format is not None and data_format not in allowed:
            raise ValueError(f"`data_format` must be {names}. Received: data_format={data_format}")
        fmt = default if data_format is None else data_format

        def run(t):
            try:  # TF reports errors of this inner convolution without the name suffix
                return _plain(n, t, f, [1] * (n + 2), padding, fmt, [1] * (n + 2))
            except errors.OpError as exc:
                raise without_name(exc) from None

        return run

    return build


def _positive(name, values):
    arr = np.array(values, dtype=np.int32)
    if np.any(arr < 1):
        raise ValueError(f"all values of `{name}` must be positive. Received: {name}={arr}")
    return arr


@export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):
    """N-D convolution, the rank (1, 2 or 3 spatial dimensions) taken from ``filters``. Dilated filters take
    TF's space-to-batch route (differentiable in every rank), and may not be combined with strides > 1."""
    f = filters if isinstance(filters, Tensor) or getattr(filters, "_tapeflow_variable", False) else \
        to_tensor(filters)
    x = input if isinstance(input, Tensor) or getattr(input, "_tapeflow_variable", False) else to_tensor(input)
    f_rank, x_rank = len(f.shape), len(x.shape)
    n = f_rank - 2 if f_rank else x_rank - 2
    num_batch = x_rank - n - 1 if x_rank else 1
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
    channels_last = data_format is None or not data_format.startswith("NC")
    ci = num_batch + n if channels_last else num_batch
    full_dil = get_sequence(dilations, n, ci, "dilations")
    full_strides = get_sequence(strides, n, ci, "strides")
    if dilations is None or all(d == 1 for d in full_dil):
        return _plain(n, x, f, full_strides, padding, data_format, full_dil)
    # TF's Convolution helper: its checks, then with_space_to_batch.
    sp = full_strides[2:] if ci == 1 else full_strides[1:-1]
    dl = full_dil[2:] if ci == 1 else full_dil[1:-1]
    if x_rank < n + 2:
        raise ValueError(f"`input.shape.rank` must be >= than `num_spatial_dims + 2`. Received: input.shape="
                         f"{x.shape} of rank {x_rank} and num_spatial_dims={n}")
    in_channels, f_channels = x.shape.as_list()[ci], f.shape.as_list()[n]
    if f_channels and in_channels % f_channels:
        raise ValueError("The number of input channels is not divisible by the corresponding number of output "
                         f"filters. Received: input.shape={x.shape} with {in_channels} channels and filters.shape="
                         f"{f.shape} with {f_channels} output filters.")
    dl_arr, sp_arr = _positive("dilation_rate", dl), _positive("strides", sp)
    if np.any(sp_arr > 1) and np.any(dl_arr > 1):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={sp_arr} and dilation_rate={dl_arr}")
    start = num_batch if channels_last else num_batch + 1
    return with_space_to_batch(to_tensor(x), [int(d) for d in dl], padding, f.shape.as_list(),
                               list(range(start, start + n)), data_format, _phase_conv(n, f, data_format))

"""Window geometry shared by convolutions (``conv_ops``, ``conv3d_ops``, ``depthwise_ops``) and pooling
(``pool_ops``, ``pool3d_ops``): TF's Python-side argument rules (``strides``/``ksize`` sequences, explicit padding
lists), its output-size and padding arithmetic, its attribute and kernel error texts, strided views of every window
tap, the gradient rules the convolution families share, and TF's space-to-batch route for dilated filters.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._core import errors
from .._core.dispatch import execute
from .._core.registry import REGISTRY
from .array_ops import RESHAPE, STRIDED_SLICE, TRANSPOSE
from .pad_ops import PAD

__all__ = [
    "get_sequence", "spatial_sequences", "convert_padding", "int_list", "string_attr", "attr_error",
    "check_string_attrs", "attr_min_error", "check_outer_ones", "kernel_error", "unimplemented", "window_dim",
    "padded_shape", "pad_spatial", "crop_spatial", "windows", "tap", "taps", "compute_dtype", "Geometry", "geometry",
    "conv_attrs", "conv_grads", "no_format_decode", "without_name", "with_space_to_batch",
]

def get_sequence(value, n, channel_index, name):
    """``strides``/``ksize``/``dilations`` as a full per-dimension list, TF's Python-side rule: one value or
    ``n`` values cover the spatial dimensions (batch and channel get 1), ``n + 2`` values are taken as given."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (list, tuple)):
        value = list(value)
    elif hasattr(value, "__len__"):
        value = list(np.asarray(value).tolist()) if not isinstance(value, str) else list(value)
    else:
        value = [value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def spatial_sequences(n, data_format, default, **values):
    """``(data_format, [full sequence of each value])``: ``data_format`` ``None`` becomes ``default``, and each
    ``ksize``/``strides``/``dilations`` value is spread over the ``n + 2`` dimensions as TF's wrappers do."""
    if data_format is None:
        data_format = default
    ci = 1 if data_format.startswith("NC") else n + 1
    return data_format, [get_sequence(v, n, ci, name) for name, v in values.items()]


def convert_padding(padding, expected_length=4):
    """``(padding, explicit_paddings)``: a list of ``[before, after]`` pairs becomes ``"EXPLICIT"``, flattened."""
    explicit = []
    if isinstance(padding, str) and padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must "
                         "be a list.")
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError("When `padding` is a list, each element of `padding` must be a list/tuple of size "
                                 f"2. Received: padding={padding} with element at index {i} of type {type(pair)}")
            if len(pair) != 2:
                raise ValueError("When `padding` is a list, each element of `padding` must be a list/tuple of size "
                                 f"2. Received: padding={padding} with element at index {i} of size {len(pair)}")
            explicit.extend(pair)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. Received: "
                             f"padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    return padding, explicit


def int_list(value, arg, op_fn):
    """An attribute list of ints, as TF's op wrappers convert it (``TypeError`` for anything else)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{arg}' argument to '{op_fn}' Op, not {value!r}.")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"Expected int for argument '{arg}' not {v!r}.")
        out.append(int(v))
    return tuple(out)


def string_attr(value, arg):
    if not isinstance(value, (str, bytes)):
        raise TypeError(f"Expected string for argument '{arg}' not {value!r}.")
    return value.decode() if isinstance(value, bytes) else value


@functools.lru_cache(maxsize=None)
def _allowed_strings(op_name, attr):
    """The allowed values of a string attribute, as quoted in the op's TF signature (``None``: not listed)."""
    sig = REGISTRY[op_name].tf_signature() or ""
    found = re.search(rf'attr={attr}:string(?:,default="[^"]*")?,allowed=\[([^\]]*)\]', sig)
    return found.group(1) if found else None


def attr_error(op_name, attr, value):
    """TF's error for a string attribute outside the op's allowed values (checked before the kernel runs)."""
    sig = REGISTRY[op_name].tf_signature() or f"Op<name={op_name}>"
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed values: "
        f"{_allowed_strings(op_name, attr) or ''}\n\t; NodeDef: {{{{node {op_name}}}}}; {sig} [Op:{op_name}] name: ")


def check_string_attrs(op_name, **attrs):
    for attr, value in attrs.items():
        allowed = _allowed_strings(op_name, attr)
        if allowed is not None and f'"{value}"' not in allowed.split(", "):
            raise attr_error(op_name, attr, value)


def attr_min_error(op_name, attr, length, minimum):
    """TF's error for a list attribute shorter than the op definition allows (checked before the kernel)."""
    sig = REGISTRY[op_name].tf_signature() or f"Op<name={op_name}>"
    return errors.InvalidArgumentError(
        None, None, f"Length for attr '{attr}' of {length} must be at least minimum {minimum}\n\t; NodeDef: "
        f"{{{{node {op_name}}}}}; {sig} [Op:{op_name}] name: ")


def check_outer_ones(op_name, values, c, spatial, what, positive, cls=None):
    """TF's kernel checks of a ``strides``/``dilations`` attribute: 1 in the batch and channel dimensions (``what``
    names it in TF's message, raised as ``cls``), > 0 in the spatial ones (``positive`` is TF's message)."""
    if values[0] != 1 or values[c] != 1:
        raise kernel_error(op_name, f"Current implementation does not yet support {what} in the batch and depth "
                                    "dimensions.", cls)
    if any(values[i] <= 0 for i in spatial):
        raise kernel_error(op_name, positive)


def kernel_error(op_name, message, cls=None, name=""):
    return errors.op_error(op_name, message, cls, name=name)


def unimplemented(op_name, message, name=""):
    return errors.op_error(op_name, message, errors.UnimplementedError, name=name)


def _trunc_div(a, b):
    return a // b if a >= 0 else -((-a) // b)


def window_dim(op_name, size, k, s, d, padding, pads, name=""):
    """``(out, pad_before, pad_after)`` of one spatial dimension, as TF's ``GetWindowedOutputSizeVerbose``."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = (size + s - 1) // s
        need = max(0, (out - 1) * s + eff - size)
        return out, need // 2, need - need // 2
    before, after = pads if padding == "EXPLICIT" else (0, 0)
    out = _trunc_div(size + before + after - eff + s, s)
    if out < 0:
        raise kernel_error(op_name, f"Computed output size would be negative: {out} [input_size: {size}, "
                                    f"effective_filter_size: {eff}, stride: {s}]", name=name)
    return out, before, after


def padded_shape(shape, pads):
    """``shape`` (N, *spatial, C) grown by ``pads`` ((before, after) per spatial dimension)."""
    return (shape[0],) + tuple(d + b + a for d, (b, a) in zip(shape[1:-1], pads)) + (shape[-1],)


def pad_spatial(x, pads, value=0):
    """``x`` (N, *spatial, C) padded by ``pads`` ((before, after) per spatial dimension) with ``value``."""
    if not any(b or a for b, a in pads):
        return x
    shape = padded_shape(x.shape, pads)
    out = np.zeros(shape, x.dtype) if value == 0 else np.full(shape, value, x.dtype)
    out[(slice(None),) + tuple(slice(b, b + d) for d, (b, _) in zip(x.shape[1:-1], pads))] = x
    return out


def crop_spatial(xp, pads, shape):
    if not any(b or a for b, a in pads):
        return xp
    return np.ascontiguousarray(xp[(slice(None),) + tuple(slice(b, b + d) for d, (b, _) in zip(shape[1:-1], pads))])


def windows(xp, ksize, strides, dilations, out):
    """The (N, *out, *ksize, C) view of every filter tap at every output position (no copy)."""
    st = xp.strides
    sp = st[1:-1]
    shape = (xp.shape[0],) + tuple(out) + tuple(ksize) + (xp.shape[-1],)
    strides_ = (st[0],) + tuple(s * b for s, b in zip(strides, sp)) + tuple(d * b for d, b in zip(dilations, sp)) \
        + (st[-1],)
    return as_strided(xp, shape, strides_, writeable=False)


def tap(index, strides, dilations, out):
    """The slice of the padded input read by filter tap ``index`` at every output position."""
    return (slice(None),) + tuple(slice(i * d, i * d + (o - 1) * s + 1, s)
                                  for i, s, d, o in zip(index, strides, dilations, out)) + (slice(None),)


def taps(ksize):
    return list(np.ndindex(*ksize))


def compute_dtype(x):
    """float16 is accumulated in float32, as TF's CPU kernels do."""
    return np.float32 if x.dtype == np.float16 else x.dtype


class Geometry:
    """Per spatial dimension: strides, dilations, kernel size, output size, (before, after) pads."""

    __slots__ = ("strides", "dilations", "ksize", "out", "pads", "groups")


def geometry(op_name, in_spatial, ksize, strides, dilations, padding, explicit_paddings, spatial, name=""):
    geo = Geometry()
    geo.strides = tuple(strides[i] for i in spatial)
    geo.dilations = tuple(dilations[i] for i in spatial)
    geo.ksize = tuple(ksize)
    out, pads = [], []
    for k, i in enumerate(spatial):
        pair = (explicit_paddings[2 * i], explicit_paddings[2 * i + 1]) if padding == "EXPLICIT" else None
        o, b, a = window_dim(op_name, in_spatial[k], ksize[k], geo.strides[k], geo.dilations[k], padding, pair, name)
        out.append(o)
        pads.append((b, a))
    geo.out, geo.pads = tuple(out), tuple(pads)
    return geo


def conv_attrs(strides, padding, explicit, data_format, dilations):
    attrs = {"strides": tuple(int(s) for s in strides), "padding": padding, "data_format": data_format,
             "dilations": tuple(int(d) for d in dilations)}
    if explicit:
        attrs["explicit_paddings"] = tuple(int(p) for p in explicit)
    return attrs


# ------------------------------------------------------------------------------------------ gradient rules


def conv_grads(forward, backprop_input, backprop_filter, input_first=None):
    """Register the gradient rules of a convolution family (TF's own for each of its three ops).

    The forward's input and filter gradients are the two backprop ops; each backprop op is linear in both of its
    inputs, so its gradients are the other backprop op and the forward again (which is what makes second order
    work). ``input_first(attrs, x, f)`` says when the input side must run even if only the filter gradient is
    wanted: TF computes it first, and its error is the one TF reports.
    """

    @forward.defvjp(needs=True)
    def _forward_grad(g, y, x, f, needs, **attrs):
        no_format_decode(attrs)
        gx = gf = None
        if needs[0] or (input_first is not None and input_first(attrs, x._value, f._value)):
            gx = execute(backprop_input, (f, g), attrs | {"input_sizes": x._value.shape})
        if needs[1]:
            gf = execute(backprop_filter, (x, g), attrs | {"filter_sizes": f._value.shape})
        return gx, gf

    @backprop_input.defvjp(needs=True)
    def _backprop_input_grad(g, y, f, dy, needs, input_sizes, **attrs):
        gf = execute(backprop_filter, (g, dy), attrs | {"filter_sizes": f._value.shape}) if needs[0] else None
        gdy = execute(forward, (g, f), attrs) if needs[1] else None
        return gf, gdy

    @backprop_filter.defvjp(needs=True)
    def _backprop_filter_grad(g, y, x, dy, needs, filter_sizes, **attrs):
        gx = execute(backprop_input, (g, dy), attrs | {"input_sizes": x._value.shape}) if needs[0] else None
        gdy = execute(forward, (x, g), attrs) if needs[1] else None
        return gx, gdy


def no_format_decode(attrs):
    """TF's 3-D gradient functions decode the op's ``data_format``; an op run with ``data_format=None`` (TF's
    generated wrappers let it through) has none, and its gradient fails as TF's does."""
    if "data_format" in attrs and attrs["data_format"] is None:
        raise AttributeError("'NoneType' object has no attribute 'decode'")


def without_name(exc):
    """The error without the `` name: `` suffix, for the paths where TF's wrappers report none."""
    text = str(exc)
    if isinstance(exc, errors.OpError) and text.endswith(" name: "):
        return type(exc)(None, None, text[: -len(" name: ")])
    return exc


# ------------------------------------------------------------------------------------------ space to batch


def _space_to_batch(x, block, pads):
    """TF's ``SpaceToBatchND`` written with tapeflow's pad, reshape and transpose (so it differentiates)."""
    if any(p < 0 for pair in pads for p in pair):
        raise kernel_error("SpaceToBatchND", "Paddings must be non-negative")
    m = len(block)
    rest = x._value.ndim - 1 - m
    if any(b or a for b, a in pads):
        x = execute(PAD, (x,), {"paddings": ((0, 0),) + tuple(pads) + ((0, 0),) * rest})
    shape = x._value.shape
    inner = tuple(d // r for d, r in zip(shape[1:m + 1], block))
    # The batch as -1: a traced program then serves every batch size (the other sizes are the trace's own). Not
    # for an empty tensor, whose -1 NumPy cannot work out.
    batch = -1 if x._value.size else shape[0]
    split = (batch,) + sum(((d, r) for d, r in zip(inner, block)), ()) + shape[m + 1:]
    perm = tuple(range(2, 2 * m + 1, 2)) + (0,) + tuple(range(1, 2 * m, 2)) + tuple(range(2 * m + 1, len(split)))
    x = execute(TRANSPOSE, (execute(RESHAPE, (x,), {"shape": split}),), {"perm": perm})
    return execute(RESHAPE, (x,), {"shape": (batch if batch == -1 else batch * int(np.prod(block)),) + inner +
                                   shape[m + 1:]})


def _batch_to_space(y, block, crops):
    """TF's ``BatchToSpaceND``, the inverse of :func:`_space_to_batch`, cropping the end of each block dimension."""
    m = len(block)
    shape = y._value.shape
    full = tuple(d * r for d, r in zip(shape[1:m + 1], block))
    for i, (d, (b, a)) in enumerate(zip(full, crops)):
        if d - b - a < 0:
            raise kernel_error("BatchToSpaceND", f"cropped_shape[{i}]={d - b - a} must be non-negative")
    # The batch as -1 (unless empty, see above) and the crop as a strided slice: a traced program then serves every
    # batch size.
    batch = -1 if y._value.size else shape[0] // int(np.prod(block))
    split = tuple(block) + (batch,) + shape[1:]
    perm = (m,) + sum(((m + 1 + i, i) for i in range(m)), ()) + tuple(range(2 * m + 1, len(split)))
    y = execute(TRANSPOSE, (execute(RESHAPE, (y,), {"shape": split}),), {"perm": perm})
    y = execute(RESHAPE, (y,), {"shape": (batch,) + full + shape[m + 1:]})
    if not any(a for _, a in crops):
        return y
    index = (slice(None),) + tuple(slice(b, d - a) for d, (b, a) in zip(full, crops))
    return execute(STRIDED_SLICE, (y,), {"index": index})


def with_space_to_batch(x, rates, padding, filter_shape, spatial_dims, data_format, build_op):
    """TF's ``with_space_to_batch`` for dilation ``rates`` (> 0, not all 1) over ``spatial_dims``: the input is
    padded and its ``rates`` phases moved into the batch (SpaceToBatchND), ``build_op("VALID")`` runs on that, and
    the phases go back (BatchToSpaceND). With strides > 1 this is TF's own, irregular, result.
    """
    m = len(rates)
    padding, explicit = convert_padding(padding)
    if padding == "SAME":
        total = [(k - 1) * r for k, r in zip(filter_shape[:m], rates)]
        base = [(t // 2, t - t // 2) for t in total]
    elif padding == "VALID":
        base = [(0, 0)] * m
    elif padding == "EXPLICIT":
        pairs = np.array(explicit).reshape([m + 2, 2])
        base = [tuple(int(p) for p in pair) for pair in (pairs[2:] if data_format and data_format.startswith("NC")
                                                          else pairs[1:-1])]
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    op = build_op("VALID")
    nb = max(spatial_dims)
    block, pads, crops = [1] * nb, [(0, 0)] * nb, [(0, 0)] * nb
    for r, d, (b, a) in zip(rates, spatial_dims, base):
        extra = (r - (x._value.shape[d] + b + a) % r) % r
        block[d - 1], pads[d - 1], crops[d - 1] = r, (b, a + extra), (0, extra)
    return _batch_to_space(op(_space_to_batch(x, block, pads)), block, crops)

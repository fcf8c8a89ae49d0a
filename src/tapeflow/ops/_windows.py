"""Window geometry shared by convolutions (``conv_ops``) and pooling (``pool_ops``): TF's Python-side argument
rules (``strides``/``ksize`` sequences, explicit padding lists), its output-size and padding arithmetic, its
attribute and kernel error texts, and strided views of every window tap.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._core import errors
from .._core.registry import REGISTRY

__all__ = [
    "get_sequence", "convert_padding", "int_list", "string_attr", "attr_error", "check_string_attrs",
    "kernel_error", "unimplemented", "window_dim", "pad_spatial", "crop_spatial", "windows", "tap", "taps",
    "compute_dtype", "Geometry", "geometry", "conv_attrs",
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
        raise TypeError(f"Expected list for '{arg}' argument to '{op_fn}' Op, not {value}.")
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


def pad_spatial(x, pads, value=0):
    """``x`` (N, *spatial, C) padded by ``pads`` ((before, after) per spatial dimension) with ``value``."""
    if not any(b or a for b, a in pads):
        return x
    shape = (x.shape[0],) + tuple(d + b + a for d, (b, a) in zip(x.shape[1:-1], pads)) + (x.shape[-1],)
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


def conv_attrs(strides, padding, explicit, data_format, dilations, strict=True):
    attrs = {"strides": tuple(int(s) for s in strides), "padding": padding, "data_format": data_format,
             "dilations": tuple(int(d) for d in dilations)}
    if explicit:
        attrs["explicit_paddings"] = tuple(int(p) for p in explicit)
    if not strict:
        attrs["strict"] = False
    return attrs

"""Numbers to text and back, and text built from strings: ``tf.strings.to_number``, ``as_string``, ``format`` and
``ngrams``.

``to_number`` parses as TF's ``safe_strto*`` functions do: surrounding ASCII whitespace allowed, floats also in
hexadecimal (``0x1p3``) and as ``inf``/``infinity``/``nan`` in any case, integers in decimal only and refused when
they do not fit. ``as_string`` is C's ``printf`` with TF's flags (Python's ``%`` operator is the same formatter,
except that C ignores the ``0`` flag for infinities and NaNs and prints NaN's sign). ``format`` prints tensors as
``tf.print`` does (``print_ops.summarize_value``). ``ngrams`` of a dense tensor is dense (a ragged input is not
available yet).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor
from ._convert import to_tensor
from ._strings import attr_type_error, call, converted, fail, fast, new_like, run, string_tensor, strings_of, to_object
from .print_ops import summarize_value

__all__ = ["to_number", "as_string", "string_format", "ngrams"]

_SPACE = b" \t\n\v\f\r"
_DECIMAL = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SPECIAL = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")


def _parse(s, np_dtype):
    text = s.strip(_SPACE)
    if np_dtype.kind == "f":
        if _DECIMAL.fullmatch(text) or _SPECIAL.fullmatch(text):
            value = float(text)
        elif _HEX.fullmatch(text):
            value = float.fromhex(text.decode())
        else:
            value = None
        if value is not None:
            with np.errstate(over="ignore"):  # past float32's range is an infinity, as in TF
                return np_dtype.type(value)
    elif _INTEGER.fullmatch(text) and not (np_dtype.kind == "u" and text.startswith(b"-")):
        value = int(text)
        info = np.iinfo(np_dtype)
        if info.min <= value <= info.max:
            return value
    raise errors.op_error("StringToNumber", "StringToNumberOp could not correctly convert string: "
                          f"{s.decode('utf-8', 'replace')}")


@defop("StringToNumber", same_dtype=False)
def STRING_TO_NUMBER(x, out_type):
    """Each string parsed as a number of ``out_type``."""
    return np.array([_parse(s, np.dtype(out_type)) for s in strings_of(x)], out_type).reshape(np.shape(x))


_NUMBER_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")


@export("strings.to_number")
def to_number(input, out_type=_dtypes.float32, name=None):
    """Each string of ``input`` as a number of ``out_type`` (float32, float64, int32, int64, uint32 or uint64);
    a string that is not one is an ``InvalidArgumentError`` (``tf.strings.to_number``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "StringToNumber")
    dtype = _dtypes.as_dtype(out_type)
    if dtype.name not in _NUMBER_TYPES:
        call(quick, name, fail, attr_type_error("StringToNumber", dtype, "out_type"))
    return run(STRING_TO_NUMBER, (x,), {"out_type": dtype.as_numpy_dtype}, quick, name)


# ------------------------------------------------------------------------------------------ as_string


_FLAGS = re.compile(r"%([-+ #0]*)(.*)")


def _printf(spec, value):
    """C's ``printf`` of one number with ``spec`` (``"%+08.3f"``)."""
    if isinstance(value, float) and not math.isfinite(value):
        flags, rest = _FLAGS.fullmatch(spec).groups()  # C pads infinities and NaNs with spaces, never zeros
        text = f"%{flags.replace('0', '')}{rest}" % math.copysign(math.inf, value)
        return text.replace("inf", "nan") if math.isnan(value) else text  # with NaN's sign, as C prints it
    return spec % value


def _as_string_check(dtype, precision, scientific, shortest, fill):
    """TF's checks of ``as_string``'s arguments, in TF's order."""
    if len(fill) > 1:
        fail(errors.op_error("AsString", "Fill string must be one or fewer characters"))
    if scientific and shortest:
        fail(errors.op_error("AsString", "Cannot select both scientific and shortest notation"))
    if dtype.is_integer or dtype == _dtypes.bool_:
        if scientific or shortest:
            fail(errors.op_error("AsString", "scientific and shortest format not supported for datatype "
                                 f"{dtype.name}"))
        if precision > -1:
            fail(errors.op_error("AsString", f"precision not supported for datatype {dtype.name}"))
    if fill and fill not in " +-0#":
        fail(errors.op_error("AsString", f'Fill argument not supported: "{fill}"'))


@defop("AsString", same_dtype=False)
def AS_STRING(x, precision, scientific, shortest, width, fill):
    """Each element as text, formatted as C's ``printf`` with TF's flags."""
    x = np.asarray(x)
    if x.dtype.kind == "O":
        return new_like(x, strings_of(x))
    if x.dtype.kind == "b":
        return new_like(x, [b"true" if v else b"false" for v in x.reshape(-1)])
    spec = "%" + fill + (str(width) if width > -1 else "")
    if x.dtype.kind in "iu":
        return new_like(x, [((spec + "d") % int(v)).encode() for v in x.reshape(-1)])
    spec += (f".{precision}" if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
    if x.dtype.kind == "c":
        return new_like(x, [f"({_printf(spec, float(v.real))},{_printf(spec, float(v.imag))})".encode()
                            for v in x.reshape(-1)])
    return new_like(x, [_printf(spec, float(v)).encode() for v in x.reshape(-1)])


@export("strings.as_string", "as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each element of ``input`` as a string: numbers as C's ``printf`` writes them (``precision`` digits after
    the point, ``scientific`` or ``shortest`` notation, at least ``width`` characters, ``fill`` one of the flags
    ``" "``, ``"+"``, ``"-"``, ``"0"``, ``"#"``), booleans as ``true``/``false``, complex numbers as
    ``(re,im)`` (``tf.strings.as_string``)."""
    quick = fast(input)
    x = to_tensor(input)
    call(quick, name, _as_string_check, x.dtype, int(precision), bool(scientific), bool(shortest), fill)
    return run(AS_STRING, (x,), {"precision": int(precision), "scientific": bool(scientific),
                                 "shortest": bool(shortest), "width": int(width), "fill": fill}, quick, name)


# ------------------------------------------------------------------------------------------ format


def _format_forward(*values, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = [pieces[0].encode()]
    for value, piece in zip(values, pieces[1:]):
        out += [summarize_value(value, summarize), piece.encode()]
    return np.array(b"".join(out), dtype=object)


STRING_FORMAT = defop("StringFormat", same_dtype=False)(_format_forward)


@export("strings.format")
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """``template`` with each ``placeholder`` replaced by one of ``inputs`` (a tensor or a list of them), printed
    as ``tf.print`` prints it with ``summarize`` entries at either end of each dimension (``-1``: all); a scalar
    string tensor (``tf.strings.format``)."""
    if isinstance(inputs, (Tensor, np.ndarray)) or not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has {len(inputs)}. Please "
                         "ensure the number of placeholders in template matches inputs length.")
    xs = tuple(to_tensor(v) for v in inputs)
    return run(STRING_FORMAT, xs, {"template": template, "placeholder": placeholder,
                                   "summarize": int(summarize)}, True, name)


# ------------------------------------------------------------------------------------------ ngrams


def _row_ngrams(row, widths, separator, left, right, pad_width, preserve_short):
    out = []
    for w in widths:
        pad = min(pad_width if pad_width >= 0 else w - 1, w - 1)
        seq = [left] * pad + row + [right] * pad
        out += [separator.join(seq[i:i + w]) for i in range(len(seq) - w + 1)]
    if preserve_short and not out and row:
        pad = min(pad_width if pad_width >= 0 else widths[0] - 1, widths[0] - 1)
        out = [separator.join([left] * pad + row + [right] * pad)]
    return out


@defop("StringNGrams", num_outputs=2, same_dtype=False)
def STRING_NGRAMS(data, data_splits, separator, ngram_widths, left_pad, right_pad, pad_width,
                  preserve_short_sequences):
    """The n-grams of each row of the strings ``data`` (row ``i`` is ``data[splits[i]:splits[i + 1]]``), for each
    width in turn, joined by ``separator``: the n-grams, and their rows' splits (TF's op)."""
    values = np.asarray(data, dtype=object).reshape(-1)
    splits = np.asarray(data_splits)
    grams = [_row_ngrams(list(values[splits[i]:splits[i + 1]]), ngram_widths, separator, left_pad, right_pad,
                         pad_width, preserve_short_sequences) for i in range(len(splits) - 1)]
    counts = [len(g) for g in grams]
    out_splits = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).astype(splits.dtype)
    return to_object([g for row in grams for g in row], [sum(counts)]), out_splits


def _text(v):
    return v if isinstance(v, bytes) else v.encode()


@export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The n-grams of the strings along the last axis of ``data``: every run of ``ngram_width`` (an int, or a list
    of them, one after the other) consecutive strings joined by ``separator``, with ``pad_values`` (one string, or
    a pair for the start and the end) added ``padding_width`` times (default ``width - 1``) at either end
    (``tf.strings.ngrams``); a ragged ``data`` gives the n-grams of each row, ragged."""
    if pad_values is None:
        left = right = b""
    elif isinstance(pad_values, (list, tuple)):
        if not all(isinstance(v, (str, bytes)) for v in pad_values[:2]):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left, right = _text(pad_values[0]), _text(pad_values[1])
    elif isinstance(pad_values, (str, bytes)):
        left = right = _text(pad_values)
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    ragged = getattr(data, "_tapeflow_ragged", False)
    if not ragged:
        data = converted(data, "data: ")
        if data.shape.rank == 0:
            raise ValueError("Data must have rank>0")
    pad = 0 if pad_values is None else -1 if padding_width is None else int(padding_width)
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for w in widths:
        if w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    attrs = {"separator": _text(separator), "ngram_widths": tuple(int(w) for w in widths), "left_pad": left,
             "right_pad": right, "pad_width": pad, "preserve_short_sequences": bool(preserve_short_sequences)}
    return _ragged_ngrams(data, attrs, name) if ragged else _dense_ngrams(data, attrs, name)


def _ragged_ngrams(rt, attrs, name):
    """The n-grams of each innermost row of a ragged tensor: a ragged tensor of the same rows."""
    from .ragged_tensor import RaggedTensor  # noqa: PLC0415 - the ragged modules build on this package

    if rt.ragged_rank > 1:
        return rt.with_values(_ragged_ngrams(rt.values, attrs, name))
    values = converted(rt.values, "data: ")
    out, splits = run(STRING_NGRAMS, (values, rt.row_splits), attrs, True, name)
    return RaggedTensor.from_row_splits(out, splits, validate=False)


def _dense_ngrams(x, attrs, name):
    """The n-grams along the last axis of a dense tensor: its rows are all as long, so the result is dense."""
    from .array_ops import cast, reshape, shape, zeros  # noqa: PLC0415 - array_ops imports this package's modules
    from .array_ops import range as _range  # noqa: PLC0415
    from .manip_ops import concat  # noqa: PLC0415
    from .reduction_ops import reduce_prod  # noqa: PLC0415

    flat = reshape(x, [-1])
    length = x.shape[-1]
    dims = shape(x, out_type=_dtypes.int64)
    if length == 0:
        splits = zeros(reduce_prod(dims[:-1]) + 1, _dtypes.int64)
    else:
        step = dims[-1] if length is None else length
        splits = _range(cast(0, _dtypes.int64), cast(shape(flat, out_type=_dtypes.int64)[0] + 1, _dtypes.int64),
                        step)
    out, _ = run(STRING_NGRAMS, (flat, splits), attrs, True, name)
    if length is None:
        per_row = -1
    else:  # every row has ``length`` strings, so as many n-grams as a row of that length gives
        per_row = len(_row_ngrams([b""] * length, attrs["ngram_widths"], b"", b"", b"", attrs["pad_width"],
                                  attrs["preserve_short_sequences"]))
    return reshape(out, concat([dims[:-1], [per_row]], 0))

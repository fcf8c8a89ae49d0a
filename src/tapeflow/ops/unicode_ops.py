"""Unicode text: ``tf.strings.unicode_decode`` (and ``_with_offsets``), ``unicode_encode``, ``unicode_split``
(and ``_with_offsets``) and ``unicode_transcode``.

TensorFlow decodes with ICU converters. Python's codecs read the same encodings the same way, down to what counts
as one malformed sequence (the "maximal subpart" each ``errors="replace"`` turns into one replacement character),
so decoding here runs Python's decoder with an error handler that marks each malformed sequence; the marks become
``replacement_char`` (``"replace"``), nothing (``"ignore"``) or TF's error (``"strict"``). A ``UTF-16`` or
``UTF-32`` input without a byte order mark is big-endian, as in ICU.

Decoding a vector or higher gives a ``tf.RaggedTensor`` (a row per string), as in TF; a scalar gives TF's dense
vector. ``unicode_encode`` of a dense tensor is dense.
"""

from __future__ import annotations

import codecs
import threading

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import convert_to_tensor
from ._strings import call, check_choice, fast, new_like, run, string_tensor, strings_of, to_object, typed_input

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_split",
           "unicode_split_with_offsets", "unicode_transcode"]

_MARK = "\ud800"  # a lone surrogate: no decoder yields one for valid input, so it can stand for a malformed span
_SPANS = threading.local()


def _mark(exc):
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _SPANS.spans.append(exc.end - exc.start)
    return _MARK, exc.end


codecs.register_error("tapeflow.mark", _mark)

_ALIASES = {"utf8": "utf-8", "utf16be": "utf-16-be", "utf16le": "utf-16-le", "utf32be": "utf-32-be",
            "utf32le": "utf-32-le", "iso88591": "latin-1", "latin1": "latin-1", "usascii": "ascii",
            "ascii": "ascii", "utf16": "utf-16", "utf32": "utf-32"}


def _codec(encoding, op_name):
    """Python's codec for an ICU encoding name, or TF's error."""
    key = "".join(c for c in encoding.lower() if c.isalnum())
    name = _ALIASES.get(key)
    if name is None:
        try:
            name = codecs.lookup(encoding).name
        except LookupError:
            raise errors.op_error(op_name, f"Could not create converter for input encoding: {encoding}") from None
    return name


def _with_bom(s, codec):
    """A ``UTF-16``/``UTF-32`` input's codec and body: its byte order mark's order, else big-endian (ICU)."""
    width = 2 if codec == "utf-16" else 4
    for order in ("be", "le"):
        mark = ("\ufeff").encode(f"{codec}-{order}")
        if s.startswith(mark):
            return f"{codec}-{order}", s[len(mark):], width
    return f"{codec}-be", s, 0


def _decode(s, codec, errs, replacement, control, op_name):
    """The code points of ``s`` and where each starts in it."""
    skip = 0
    if codec in ("utf-16", "utf-32"):
        codec, s, skip = _with_bom(s, codec)
    _SPANS.spans = []
    text = s.decode(codec, "tapeflow.mark")
    points, starts, at, spans = [], [], skip, iter(_SPANS.spans)
    for ch in text:
        if ch == _MARK:
            width = next(spans)
            if errs == "strict":
                raise errors.op_error(op_name, "Invalid formatting on input string")
            if errs == "replace":
                points.append(replacement)
                starts.append(at)
        else:
            width = len(ch.encode(codec))
            cp = ord(ch)
            points.append(replacement if control and cp < 0x20 else cp)
            starts.append(at)
        at += width
    return points, starts


def _check_replacement(replacement, op_name):
    if not 0 <= replacement <= 0x10FFFF:
        raise errors.op_error(op_name, "replacement_char out of unicode codepoint range")


def _decode_forward(op_name, offsets):
    def forward(x, input_encoding, errors, replacement_char, replace_control_characters):
        _check_replacement(replacement_char, op_name)
        codec = _codec(input_encoding, op_name)
        rows = [_decode(s, codec, errors, replacement_char, replace_control_characters, op_name)
                for s in strings_of(x)]
        splits = np.cumsum([0] + [len(p) for p, _ in rows]).astype(np.int64)
        values = np.array([c for p, _ in rows for c in p], np.int32)
        if not offsets:
            return splits, values
        return splits, values, np.array([o for _, st in rows for o in st], np.int64)

    forward.__name__ = op_name
    return forward


UNICODE_DECODE = defop("UnicodeDecode", num_outputs=2, same_dtype=False)(_decode_forward("UnicodeDecode", False))
UNICODE_DECODE_WITH_OFFSETS = defop("UnicodeDecodeWithOffsets", num_outputs=3, same_dtype=False)(
    _decode_forward("UnicodeDecodeWithOffsets", True))
UNICODE_DECODE.value_sized = {1: (0,)}  # (a trace leaves the sizes that follow the values unknown)
UNICODE_DECODE_WITH_OFFSETS.value_sized = {1: (0,), 2: (0,)}


def _decoded(op, op_name, input, input_encoding, errors, replacement_char, replace_control_characters, name):
    x = call(True, name, string_tensor, input, op_name)
    call(True, name, check_choice, op_name, "errors", errors)
    from .array_ops import reshape  # noqa: PLC0415 - array_ops imports this package's modules

    out = run(op, (reshape(x, [-1]),), {"input_encoding": input_encoding, "errors": errors,
                                        "replacement_char": int(replacement_char),
                                        "replace_control_characters": bool(replace_control_characters)}, True, name)
    from .ragged_convert import outer_dims, rows_of  # noqa: PLC0415 - the ragged modules build on this package

    splits, rest = out[0], out[1:]
    return tuple(rows_of(part, splits, outer_dims(x)) for part in rest)


@export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533, replace_control_characters=False,
                   name=None):
    """The Unicode code points (int32) of the scalar string ``input`` in ``input_encoding``; malformed bytes become
    ``replacement_char`` (``errors="replace"``), are dropped (``"ignore"``) or raise (``"strict"``); with
    ``replace_control_characters`` the C0 controls are replaced too (``tf.strings.unicode_decode``)."""
    return _decoded(UNICODE_DECODE, "UnicodeDecode", input, input_encoding, errors, replacement_char,
                    replace_control_characters, name)[0]


@export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,
                                replace_control_characters=False, name=None):
    """``unicode_decode`` and the byte offset (int64) where each character starts
    (``tf.strings.unicode_decode_with_offsets``)."""
    values, starts = _decoded(UNICODE_DECODE_WITH_OFFSETS, "UnicodeDecodeWithOffsets", input, input_encoding,
                                 errors, replacement_char, replace_control_characters, name)
    return values, starts


# ------------------------------------------------------------------------------------------ encoding

_OUTPUT = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _valid(cp):
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def _encode_row(points, codec, errs, replacement, op_name):
    chars = []
    for cp in points:
        if not _valid(cp):
            if errs == "strict":
                raise errors.op_error(op_name, "Code point is out of range for Unicode, or is a surrogate.")
            if errs == "ignore":
                continue
            cp = replacement
        chars.append(chr(cp))
    return "".join(chars).encode(codec)


@defop("UnicodeEncode", same_dtype=False)
def UNICODE_ENCODE(x, errors, output_encoding, replacement_char):
    """Each row (the last dimension) of code points as one string in ``output_encoding``."""
    _check_replacement(replacement_char, "UnicodeEncode")
    x = np.asarray(x)
    rows = x.reshape(-1, x.shape[-1]) if x.size else np.zeros((int(np.prod(x.shape[:-1])), 0), np.int32)
    return to_object([_encode_row([int(c) for c in r], _OUTPUT[output_encoding], errors, replacement_char,
                                  "UnicodeEncode") for r in rows], x.shape[:-1])


@export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """The rows (last axis) of the int32 code points ``input`` as strings in ``output_encoding`` (``"UTF-8"``,
    ``"UTF-16-BE"`` or ``"UTF-32-BE"``); code points outside Unicode and surrogates become ``replacement_char``
    (``errors="replace"``), are dropped (``"ignore"``) or raise (``"strict"``) (``tf.strings.unicode_encode``)."""
    # converted without a dtype, as TF does: the kernel's input check then refuses floats and int64
    x = call(True, name, typed_input, convert_to_tensor(input), "UnicodeEncode", 0, _dtypes.int32)
    if x.shape.rank == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    call(True, name, check_choice, "UnicodeEncode", "output_encoding", output_encoding)
    call(True, name, check_choice, "UnicodeEncode", "errors", errors)
    return run(UNICODE_ENCODE, (x,), {"errors": errors, "output_encoding": output_encoding,
                                      "replacement_char": int(replacement_char)}, True, name)


def _split(with_offsets, input, input_encoding, errors, replacement_char, name):
    op, op_name = ((UNICODE_DECODE_WITH_OFFSETS, "UnicodeDecodeWithOffsets") if with_offsets else
                   (UNICODE_DECODE, "UnicodeDecode"))
    decoded = _decoded(op, op_name, input, input_encoding, errors, replacement_char, False, name)
    from .manip_ops import expand_dims  # noqa: PLC0415

    # each character on its own, encoded back in the input's encoding (TF's way: a malformed byte comes out as the
    # replacement character's encoding)
    points = decoded[0]
    flat = points.flat_values if getattr(points, "_tapeflow_ragged", False) else points
    chars = unicode_encode(expand_dims(flat, -1), input_encoding, errors, replacement_char)
    chars = points.with_flat_values(chars) if getattr(points, "_tapeflow_ragged", False) else chars
    return (chars, decoded[1]) if with_offsets else chars


@export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """The characters of the scalar string ``input`` (in ``input_encoding``), each a string
    (``tf.strings.unicode_split``); malformed bytes as in ``unicode_decode``."""
    return _split(False, input, input_encoding, errors, replacement_char, name)


@export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """``unicode_split`` and the byte offset (int64) where each character starts
    (``tf.strings.unicode_split_with_offsets``)."""
    return _split(True, input, input_encoding, errors, replacement_char, name)


# ------------------------------------------------------------------------------------------ transcoding


@defop("UnicodeTranscode", same_dtype=False)
def UNICODE_TRANSCODE(x, input_encoding, output_encoding, errors, replacement_char, replace_control_characters):
    """Each string read in ``input_encoding`` and written in ``output_encoding``."""
    _check_replacement(replacement_char, "UnicodeTranscode")
    codec = _codec(input_encoding, "UnicodeTranscode")
    out = []
    for s in strings_of(x):
        points, _ = _decode(s, codec, errors, replacement_char, replace_control_characters, "UnicodeTranscode")
        out.append(_encode_row(points, _OUTPUT[output_encoding], "replace", replacement_char, "UnicodeTranscode"))
    return new_like(x, out)


@export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,
                      replace_control_characters=False, name=None):
    """Each string of ``input`` re-encoded from ``input_encoding`` to ``output_encoding`` (``"UTF-8"``,
    ``"UTF-16-BE"`` or ``"UTF-32-BE"``); malformed input as in ``unicode_decode``
    (``tf.strings.unicode_transcode``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "UnicodeTranscode")
    call(quick, name, check_choice, "UnicodeTranscode", "output_encoding", output_encoding)
    call(quick, name, check_choice, "UnicodeTranscode", "errors", errors)
    return run(UNICODE_TRANSCODE, (x,), {"input_encoding": input_encoding, "output_encoding": output_encoding,
                                         "errors": errors, "replacement_char": int(replacement_char),
                                         "replace_control_characters": bool(replace_control_characters)},
               quick, name)


"""``tf.strings`` on bytes: ``length``, ``join``, ``reduce_join``, ``upper``, ``lower``, ``strip``, ``substr``,
``to_number``, ``split`` and ``bytes_split`` (of a scalar), and ``tf.io.encode_base64`` / ``decode_base64``.

Each is an op of TF's name with TF's kernel behaviour, computed element by element on the object arrays of
``bytes`` that hold string tensors (``_strings.py`` has the shared argument handling and error wording). None has
a gradient: strings carry none, and the numbers ``length`` and ``to_number`` make are cut off from them in TF too.

``split`` and ``bytes_split`` of a vector or higher return a ``tf.RaggedTensor`` (a row per string), as in TF; a
scalar gives TF's dense vector.
"""

from __future__ import annotations

import base64
import binascii
import re

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.exports import export
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor, convert_to_tensor
from ._convert import matching
from ._strings import (
    attr_type_error,
    call,
    check_choice,
    converted,
    fail,
    fast,
    new_like,
    run,
    string_tensor,
    strings_of,
    to_object,
    typed_input,
)

__all__ = ["length", "join", "reduce_join", "upper", "lower", "strip", "substr", "split",
           "bytes_split", "encode_base64", "decode_base64", "unsorted_segment_join", "decode_raw"]

_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes: a character is any other byte and these


def _chars(s):
    """The number of UTF-8 characters in ``s`` as TF counts them: the bytes that do not continue a character."""
    return len(s) - len(s.translate(None, bytes(range(0x80)) + bytes(range(0xC0, 0x100))))


@defop("StringLength", same_dtype=False)
def STRING_LENGTH(x, unit):
    """Each string's length in bytes, or in UTF-8 characters."""
    count = len if unit == "BYTE" else _chars
    return np.array([count(s) for s in strings_of(x)], np.int32).reshape(np.shape(x))


@export("strings.length")
def length(input, name=None, unit="BYTE"):
    """The length of each string of ``input``: in bytes (``unit="BYTE"``) or in UTF-8 characters
    (``"UTF8_CHAR"``) (``tf.strings.length``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "StringLength")
    call(quick, name, check_choice, "StringLength", "unit", unit)
    return run(STRING_LENGTH, (x,), {"unit": unit}, quick, name)


# ------------------------------------------------------------------------------------------ joining


def _join_forward(*xs, separator):
    shape = None
    for x in xs:
        if np.ndim(x):
            if shape is None:
                shape = np.shape(x)
            elif np.shape(x) != shape:
                raise errors.InvalidArgumentError(
                    None, None, f"{{{{function_node __wrapped__StringJoin_N_{len(xs)}_device_{errors.CPU_DEVICE}}}}} "
                    f"Input shapes do not match: {errors.shape_str(shape)} vs. {errors.shape_str(np.shape(x))} "
                    "[Op:StringJoin] name: ")
    shape = () if shape is None else shape
    parts = [np.broadcast_to(np.asarray(x, dtype=object), shape).reshape(-1) for x in xs]
    n = int(np.prod(shape))
    return to_object([separator.join(p[i] for p in parts) for i in range(n)], shape)


STRING_JOIN = defop("StringJoin", same_dtype=False)(_join_forward)


def _separator(separator):
    if isinstance(separator, bytes):
        return separator
    if not isinstance(separator, str):
        raise TypeError(f"Expected string for argument 'separator' not {separator!r}.")
    return separator.encode()


@export("strings.join")
def join(inputs, separator="", name=None):
    """Join the strings of the tensors in ``inputs`` element by element with ``separator`` between them; the tensors
    have one shape, or are scalars (``tf.strings.join``)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Expected list for 'inputs' argument to 'string_join' Op, not {inputs!r}.")
    sep = _separator(separator)
    quick = fast(*inputs)
    xs = tuple(call(quick, name, string_tensor, x, "StringJoin", i) for i, x in enumerate(inputs))
    return run(STRING_JOIN, xs, {"separator": sep}, quick, name)


def _reduction_order(rank, axes):
    """The reduced dimensions, checked, in TF's order (the first listed varies fastest)."""
    out = []
    for a in axes:
        d = a + rank if a < 0 else a
        if not 0 <= d < rank:
            raise errors.op_error("ReduceJoin", f"Invalid reduction dimension {a} for input with {rank} "
                                  "dimension(s)", errors.OutOfRangeError)
        if d in out:
            raise errors.op_error("ReduceJoin", f"Duplicate reduction dimension {a}")
        out.append(d)
    return out


@defop("ReduceJoin", same_dtype=False)
def REDUCE_JOIN(x, axes, keep_dims, separator):
    """Join the strings along the dimensions ``axes`` (the first of them varying fastest)."""
    x = np.asarray(x, dtype=object)
    reduced = _reduction_order(x.ndim, [int(a) for a in np.ravel(axes)])
    kept = [d for d in range(x.ndim) if d not in reduced]
    moved = np.transpose(x, kept + reduced[::-1]) if x.ndim else x
    rows = moved.reshape(int(np.prod([x.shape[d] for d in kept])), -1)
    out = to_object([separator.join(row) for row in rows], [x.shape[d] for d in kept])
    if keep_dims:
        out = out.reshape([1 if d in reduced else x.shape[d] for d in range(x.ndim)])
    return out


@export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join the strings of ``inputs`` along ``axis`` (all axes by default) with ``separator`` between them;
    ``keepdims`` keeps the joined axes with length 1 (``tf.strings.reduce_join``)."""
    quick = fast(axis)
    # TF converts ``inputs`` without a dtype (``[[]]`` is a float tensor) and lets the kernel refuse a non-string
    x = call(True, name, string_tensor, convert_to_tensor(inputs), "ReduceJoin")
    if axis is None:
        axes = np.arange(x.shape.rank - 1, -1, -1, dtype=np.int32)
    else:
        axes = np.asarray(axis.numpy() if hasattr(axis, "numpy") else axis, np.int32)
    return run(REDUCE_JOIN, (x,), {"axes": tuple(int(a) for a in np.ravel(axes)), "keep_dims": bool(keepdims),
                                   "separator": _separator(separator)}, quick, name)


@defop("UnsortedSegmentJoin", same_dtype=False)
def UNSORTED_SEGMENT_JOIN(x, segment_ids, num_segments, separator):
    """The rows of ``x`` (over the dimensions ``segment_ids`` covers) joined by segment, in order."""
    x = np.asarray(x, dtype=object)
    ids = np.asarray(segment_ids).reshape(-1)
    n = int(num_segments)
    if n < 0:
        raise errors.op_error("UnsortedSegmentJoin", f"Number of segments must be non-negative but got {n}",
                              wrapped=True)
    lead = np.ndim(segment_ids)
    for d in range(lead):
        if np.shape(segment_ids)[d] != x.shape[d]:
            # (TF's kernel prints the segment dimension twice)
            raise errors.op_error("UnsortedSegmentJoin", f"Segment dimension is {np.shape(segment_ids)[d]} while "
                                  f"input dimension is {np.shape(segment_ids)[d]} in rank {d}", wrapped=True)
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise errors.op_error("UnsortedSegmentJoin", "segment_ids are not allowed to exceed num_segments or to "
                              "have negative values.", wrapped=True)
    inner = x.shape[lead:]
    rows = x.reshape((ids.size, -1))
    pieces = [[[] for _ in range(rows.shape[1])] for _ in range(n)]
    for row, seg in zip(rows, ids.tolist()):
        for j, s in enumerate(row):
            pieces[seg][j].append(s)
    return to_object([separator.join(p) for seg in pieces for p in seg], (n,) + tuple(inner))


UNSORTED_SEGMENT_JOIN.value_sized = {0: (0,)}  # (the segment count is a value)


@export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of ``inputs`` joined by segment with ``separator`` between them: segment ``k`` joins, in order,
    the rows whose ``segment_ids`` are ``k``; a segment with no rows is ``""``
    (``tf.strings.unsorted_segment_join``)."""
    quick = fast(inputs, segment_ids, num_segments)
    x = call(quick, name, string_tensor, converted(inputs, ""), "UnsortedSegmentJoin")
    ids = convert_to_tensor(segment_ids)
    n = int(np.asarray(convert_to_tensor(num_segments)._value))
    if isinstance(num_segments, Tensor) and STATE.tracer is not None:
        STATE.tracer._frozen()  # a count computed while tracing becomes a number of the program (as segment sums)
    return run(UNSORTED_SEGMENT_JOIN, (x, ids), {"num_segments": n, "separator": _separator(separator)}, quick,
               name)


# ------------------------------------------------------------------------------------------ case and spaces


def _case(name, ascii_fn, text_fn):
    def forward(x, encoding):
        if encoding not in ("", "utf-8"):
            raise errors.op_error(name, f"only utf-8 or '' (no encoding) is supported, received {encoding}")
        if encoding == "":
            return new_like(x, [ascii_fn(s) for s in strings_of(x)])
        # Unicode's full case mappings (``ß`` -> ``SS``), bytes that are not UTF-8 read as U+FFFD
        return new_like(x, [text_fn(s.decode("utf-8", "replace")).encode() for s in strings_of(x)])

    forward.__name__ = name
    return forward


STRING_UPPER = defop("StringUpper", same_dtype=False)(_case("StringUpper", bytes.upper, str.upper))
STRING_LOWER = defop("StringLower", same_dtype=False)(_case("StringLower", bytes.lower, str.lower))


@export("strings.upper")
def upper(input, encoding="", name=None):
    """Each string in upper case: ASCII letters only, or with ``encoding="utf-8"`` every letter by Unicode's case
    mappings (``tf.strings.upper``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "StringUpper")
    return run(STRING_UPPER, (x,), {"encoding": encoding}, quick, name)


@export("strings.lower")
def lower(input, encoding="", name=None):
    """Each string in lower case: ASCII letters only, or with ``encoding="utf-8"`` every letter by Unicode's case
    mappings (``tf.strings.lower``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "StringLower")
    return run(STRING_LOWER, (x,), {"encoding": encoding}, quick, name)


@defop("StringStrip", same_dtype=False)
def STRING_STRIP(x):
    """Each string without its leading and trailing ASCII whitespace."""
    return new_like(x, [s.strip() for s in strings_of(x)])


@export("strings.strip")
def strip(input, name=None):
    """Each string without its leading and trailing whitespace (space, tab, line feed, vertical tab, form feed,
    carriage return) (``tf.strings.strip``)."""
    quick = fast(input)
    return run(STRING_STRIP, (call(quick, name, string_tensor, input, "StringStrip"),), {}, quick, name)


# ------------------------------------------------------------------------------------------ base64

_WEB_SAFE = re.compile(rb"[A-Za-z0-9_-]*")


@defop("EncodeBase64", same_dtype=False)
def ENCODE_BASE64(x, pad):
    """Each string in web-safe base64 (``-`` and ``_`` for ``+`` and ``/``), ``=``-padded when ``pad``."""
    out = [base64.urlsafe_b64encode(s) for s in strings_of(x)]
    return new_like(x, out if pad else [s.rstrip(b"=") for s in out])


def _unbase64(s):
    # As TF reads it: whole groups of four first, then the last one to four characters, where (a group of four
    # only) one or two "=" may end the text
    head = ((len(s) - 1) // 4) * 4 if s else 0
    body, tail = s[:head], s[head:]
    if not _WEB_SAFE.fullmatch(body):
        raise errors.op_error("DecodeBase64", "Invalid character found in base64.")
    if len(tail) == 4 and tail.endswith(b"="):
        tail = tail[:-2] if tail.endswith(b"==") else tail[:-1]
    if len(tail) == 1:
        raise errors.op_error("DecodeBase64", "Base64 string length cannot be 1 modulo 4.")
    if not _WEB_SAFE.fullmatch(tail):
        raise errors.op_error("DecodeBase64", "Invalid character found in base64.")
    body += tail
    try:
        return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
    except binascii.Error:
        raise errors.op_error("DecodeBase64", "Invalid character found in base64.") from None


@defop("DecodeBase64", same_dtype=False)
def DECODE_BASE64(x):
    """Each web-safe base64 string decoded (with or without its padding)."""
    return new_like(x, [_unbase64(s) for s in strings_of(x)])


@export("io.encode_base64")
def encode_base64(input, pad=False, name=None):
    """Each string in web-safe base64 (``-`` and ``_`` in place of ``+`` and ``/``); ``pad`` adds the ``=``
    padding (``tf.io.encode_base64``)."""
    quick = fast(input)
    x = call(quick, name, string_tensor, input, "EncodeBase64")
    return run(ENCODE_BASE64, (x,), {"pad": bool(pad)}, quick, name)


@export("io.decode_base64")
def decode_base64(input, name=None):
    """Each web-safe base64 string decoded; the ``=`` padding may be there or not (``tf.io.decode_base64``)."""
    quick = fast(input)
    return run(DECODE_BASE64, (call(quick, name, string_tensor, input, "DecodeBase64"),), {}, quick, name)


_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64", "complex64",
              "complex128", "bool")


def _raw(x, out_type, little_endian, width):
    """Each string's bytes read as ``out_type`` values (``width`` bytes each string, all of one length)."""
    dtype = np.dtype(out_type).newbyteorder("<" if little_endian else ">")
    strings = strings_of(x)
    rows = np.frombuffer(b"".join(strings), dtype=dtype).reshape(len(strings), width // dtype.itemsize) \
        if strings else np.zeros((0, 0), dtype)
    return rows.astype(np.dtype(out_type)).reshape(np.shape(x) + (rows.shape[1],))


@defop("DecodeRaw", same_dtype=False)
def DECODE_RAW(x, out_type, little_endian):
    strings = strings_of(x)
    width = len(strings[0]) if strings else 0
    size = np.dtype(out_type).itemsize
    if width % size:
        name = _dtypes.as_dtype(out_type).name
        raise errors.op_error("DecodeRaw", f"Input to DecodeRaw has length {width} that is not a multiple of {size}, "
                              f"the size of {name}", wrapped=True)
    for i, s in enumerate(strings):
        if len(s) != width:
            raise errors.op_error("DecodeRaw", f"DecodeRaw requires input strings to all be the same size, but "
                                  f"element {i} has size {width} != {len(s)}", wrapped=True)
    return _raw(x, out_type, little_endian, width)


@defop("DecodePaddedRaw", same_dtype=False)
def DECODE_PADDED_RAW(x, out_type, little_endian, fixed_length):
    size = np.dtype(out_type).itemsize
    if fixed_length % size:
        raise errors.op_error("DecodePaddedRaw", f"fixed_length ({fixed_length}) must be a multiple of the size of "
                              f"out_type ({size})", wrapped=True)
    padded = new_like(x, [s[:fixed_length].ljust(fixed_length, b"\0") for s in strings_of(x)])
    return _raw(padded, out_type, little_endian, fixed_length)


DECODE_RAW.value_sized = {0: (-1,)}  # (the last dimension counts a string's bytes)
DECODE_PADDED_RAW.value_sized = {0: (-1,)}


@export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string's bytes read as a vector of ``out_type`` values (a new last dimension); the strings must have one
    length, or are cut or zero-padded to ``fixed_length`` bytes (``tf.io.decode_raw``)."""
    quick = fast(input_bytes)
    x = call(quick, name, string_tensor, converted(input_bytes, ""), "DecodeRaw")
    out = _dtypes.as_dtype(out_type)
    if out.name not in _RAW_TYPES:
        raise errors.without_name(attr_type_error("DecodeRaw", out, "out_type"))  # (TF checks before its fast path)
    attrs = {"out_type": out.as_numpy_dtype, "little_endian": bool(little_endian)}
    if fixed_length is None:
        return run(DECODE_RAW, (x,), attrs, quick, name)
    return run(DECODE_PADDED_RAW, (x,), {**attrs, "fixed_length": int(fixed_length)}, quick, name)


# ------------------------------------------------------------------------------------------ splitting


def _split_result(pieces):
    indices = np.array([[i, j] for i, row in enumerate(pieces) for j in range(len(row))], np.int64).reshape(-1, 2)
    values = to_object([p for row in pieces for p in row], [len(indices)])
    return indices, values, np.array([len(pieces), max((len(r) for r in pieces), default=0)], np.int64)


@defop("StringSplitV2", num_outputs=3, same_dtype=False)
def STRING_SPLIT_V2(x, sep, maxsplit):
    """The strings of a vector split on ``sep`` (on runs of whitespace when empty), at most ``maxsplit`` times
    (``-1``: no limit), as a sparse tensor's indices, values and dense shape."""
    return _split_result([s.split(sep or None, maxsplit) for s in strings_of(x)])


STRING_SPLIT_V2.value_sized = {0: (0,), 1: (0,)}


@defop("StringSplit", num_outputs=3, same_dtype=False)
def STRING_SPLIT(x, delimiter, skip_empty):
    """The strings of a vector split into bytes (empty ``delimiter``) or on every byte of ``delimiter``, as a
    sparse tensor's indices, values and dense shape."""
    rows = []
    for s in strings_of(x):
        if not delimiter:
            parts = [s[i:i + 1] for i in range(len(s))]
        else:
            parts = re.split(b"[" + re.escape(delimiter) + b"]", s)
        rows.append([p for p in parts if p] if skip_empty else parts)
    return _split_result(rows)


STRING_SPLIT.value_sized = {0: (0,), 1: (0,)}


def _pieces(x, indices, values):
    """The pieces of each string of ``x`` (a sparse result's ``indices`` and ``values`` over its flattened
    strings): a vector for a scalar, else a ragged tensor of ``x``'s shape and one ragged dimension."""
    from .array_ops import range as _range  # noqa: PLC0415 - array_ops imports this package's modules
    from .array_ops import reshape, size  # noqa: PLC0415
    from .counting_ops import searchsorted  # noqa: PLC0415
    from .ragged_convert import outer_dims, rows_of  # noqa: PLC0415 - the ragged modules build on this package

    # The pieces come row by row: row i starts after the pieces of the rows before it. The number of strings is
    # an op, so a traced function splits batches of any size.
    starts = _range(size(x, out_type=_dtypes.int64) + 1)
    splits = searchsorted(reshape(indices[:, 0], [1, -1]), reshape(starts, [1, -1]), out_type=_dtypes.int64)
    return rows_of(values, reshape(splits, [-1]), outer_dims(x))


@export("strings.split")
def split(input, sep=None, maxsplit=-1, name=None):
    """The pieces of the scalar string ``input`` between occurrences of ``sep`` (or between runs of whitespace,
    which are dropped at either end, when ``sep`` is None), at most ``maxsplit + 1`` of them when ``maxsplit`` is
    not ``-1`` (``tf.strings.split``); a vector or higher gives TF's ragged result, not available yet."""
    x = converted(input, "input: ")
    from .array_ops import reshape  # noqa: PLC0415 - array_ops imports this package's modules

    sep_bytes = b"" if sep is None else _separator(sep) if not hasattr(sep, "numpy") else sep.numpy()
    indices, values, _ = run(STRING_SPLIT_V2, (reshape(x, [-1]),), {"sep": sep_bytes, "maxsplit": int(maxsplit)},
                             fast(input), name)
    return _pieces(x, indices, values)


@export("strings.bytes_split")
def bytes_split(input, name=None):
    """The bytes of the scalar string ``input``, each a string (``tf.strings.bytes_split``); a vector or higher
    gives TF's ragged result, not available yet."""
    x = converted(input, "")
    from .array_ops import reshape  # noqa: PLC0415

    indices, values, _ = run(STRING_SPLIT, (reshape(x, [-1]),), {"delimiter": b"", "skip_empty": False}, True,
                             name)
    return _pieces(x, indices, values)


# ------------------------------------------------------------------------------------------ substrings


def _char_starts(s):
    """Where each UTF-8 character of ``s`` starts, as TF steps over them (a lead byte and the continuation bytes
    after it; the first byte always starts one)."""
    return [i for i in range(len(s)) if i == 0 or not 0x80 <= s[i] < 0xC0]


def _piece(s, pos, size, utf8, where):
    if utf8:
        n = _chars(s)
        p = pos + n if pos < 0 else pos
        if not 0 <= p <= n:
            raise errors.op_error("Substr", f"pos {pos} out of range for string at index {where}")
        if size < 0:
            return b""
        starts = _char_starts(s)
        start = starts[p] if p < len(starts) else len(s)
        end = starts[p + size] if p + size < len(starts) else len(s)
        return s[start:end]
    n = len(s)
    p = pos + n if pos < 0 else pos
    if not 0 <= p <= n:
        raise errors.op_error("Substr", f"pos {pos} out of range for string b'{s.decode('utf-8', 'replace')}' "
                              f"at index {where}")
    return s[p:] if size < 0 else s[p:p + size]  # a negative length reaches the end, as TF's unsigned length does


@defop("Substr", same_dtype=False)
def SUBSTR(x, pos, size, unit):
    """The substring of each string from ``pos`` (from the end when negative) of ``size`` bytes or UTF-8
    characters; ``pos`` and ``size`` broadcast against the strings (at most to a matrix, as in TF)."""
    xs, ps = np.shape(x), np.shape(pos)
    if ps != np.shape(size):
        raise errors.op_error("Substr", f"pos and len should have the same shape, got: {errors.shape_str(ps)} vs. "
                              f"{errors.shape_str(np.shape(size))}")
    utf8 = unit == "UTF8_CHAR"
    if xs == ps or not ps:
        shape, where = xs, str
    else:
        try:
            shape = np.broadcast_shapes(xs, ps)
        except ValueError:
            raise errors.op_error("Substr", f"Incompatible shapes: {errors.shape_str(xs)} vs. "
                                  f"{errors.shape_str(ps)}") from None
        if len(shape) > 2:
            raise errors.op_error("Substr", f"Substr broadcast not implemented for {len(shape)} dimensions",
                                  errors.UnimplementedError)
        if len(shape) == 1:
            where = str
        elif utf8:  # TF names the row only here
            where = lambda i: str(i // shape[1])  # noqa: E731
        else:
            where = lambda i: f"({i // shape[1]}, {i % shape[1]})"  # noqa: E731
    strings = np.broadcast_to(np.asarray(x, dtype=object), shape).reshape(-1)
    starts = np.broadcast_to(pos, shape).reshape(-1)
    sizes = np.broadcast_to(size, shape).reshape(-1)
    return to_object([_piece(s, int(p), int(n), utf8, where(i)) for i, (s, p, n) in
                      enumerate(zip(strings, starts, sizes))], shape)


SUBSTR.allowed = SUBSTR.allowed_nums = None  # TF's ``T`` is the type of ``pos`` and ``len``, checked below


@export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TF's argument name
    """The substring of each string of ``input`` that starts at ``pos`` (counted from the end when negative) and
    has ``len`` bytes (``unit="BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``), cut short at the string's end.
    ``pos`` and ``len`` have one shape, the strings' or one that broadcasts with it (``tf.strings.substr``)."""
    quick = fast(input, pos, len)
    x = call(quick, name, string_tensor, input, "Substr")
    p, n = matching(pos, len)
    call(quick, name, check_choice, "Substr", "unit", unit)
    if p.dtype not in (_dtypes.int32, _dtypes.int64):
        call(quick, name, fail, attr_type_error("Substr", p.dtype))
    if n.dtype != p.dtype:
        call(quick, name, typed_input, n, "Substr", 2, p.dtype)
    return run(SUBSTR, (x, p, n), {"unit": unit}, quick, name)

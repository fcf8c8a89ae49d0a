"""``tf.print``: TensorFlow 2.21's eager printing, as one op (``PrintV2``) that prints from NumPy values.

**The op.** ``PrintV2`` takes as inputs exactly the tensors among the printed values, in the order they appear
(variables are read first, ``IndexedSlices`` densified); everything else is in its attributes:

``templates``
    one template per printed argument: a string argument itself, any other argument as ``pprint`` shows it with a
    placeholder where each tensor goes (so Python and NumPy values become text here, as TF makes them);
``placeholder``
    the placeholder text, ``"{}"`` unless that occurs in the arguments (then digits are added, as TF does);
``sep``, ``end``
    what joins the arguments, and what ends the line;
``summarize``
    how many elements each dimension shows at either end (negative: all of them);
``verbatim``
    true when the one argument is a scalar string tensor, which TF prints as it is (unquoted, unescaped);
``output_stream``
    ``"stdout"``, ``"stderr"``, ``"log(info)"``, ``"log(warning)"``, ``"log(error)"`` or ``"file://<path>"``.

It has no outputs and no gradient. TensorFlow splits the work in two ops (``StringFormat`` makes one string
tensor, ``PrintV2`` prints it); one op whose inputs are the tensors themselves lets a tracer see what is printed.

**Where the text goes.** TF writes to the process's file descriptors from C++; tapeflow writes to the
``sys.stdout`` or ``sys.stderr`` object current when the op runs, and flushes it, so that pytest's ``capsys`` and
notebooks capture it. Bytes that are not UTF-8 (in string tensors) reach a text stream backslash-escaped; a file
gets them as they are. The log levels write TF's C++ log line (``I0000 00:00:<time> <thread> logging_ops.cc:169]
...``) to ``sys.stderr``, filtered by ``TF_CPP_MIN_LOG_LEVEL`` as TF filters it; tapeflow has no
``tf.compat.v1.logging``, so these streams are chosen with the level numbers TF also takes (``logging.INFO``, 20;
absl's ``0``, ``-1``, ``-2`` ...).

**How a tensor prints.** Each dimension shows its first and last ``summarize`` entries around ``...`` (where the
tensor has at most ``summarize`` elements in all, that count is the limit instead), rows of a matrix on their own
lines, one blank line more per outer dimension. Floats print with 6 significant digits when those read back to the
same value, else 9 (float64: 15, else 17), subnormal values as zero (TF's kernels flush them); float16 prints as
float32. Booleans print as ``1`` and ``0``, strings double-quoted and C-escaped (bytes of 0x80 and up kept), and
complex values as ``?``, which is all TF 2.21 prints for them.
"""

from __future__ import annotations

import collections
import errno
import os
import struct
import sys
import threading
import time

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor, convert_to_tensor

__all__ = ["print_v2", "PRINT", "summarize_value"]

_DEFAULT_STREAM = object()  # ``sys.stderr`` as it is when ``tf.print`` is called, not when this module loaded

# The level numbers TF takes for its log streams: Python's (``logging.INFO`` ...) and absl's.
_LEVELS = ((20, "log(info)"), (0, "log(info)"), (30, "log(warning)"), (-1, "log(warning)"),
           (40, "log(error)"), (-2, "log(error)"))

_STREAM_HELP = ("Supported streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
                "tf.logging.error. File needs to be in the form of 'file://<filepath>'.")

_INT64 = 1 << 63


# ------------------------------------------------------------------------------------------ elements


def _escape_table():
    """The C escape of each byte, as TF quotes string elements: named escapes for the usual controls and
    quotes, three octal digits for the other control bytes, every byte from 0x80 on kept (UTF-8 safe)."""
    table = [bytes([b]) for b in range(256)]
    for b in list(range(0x20)) + [0x7F]:
        table[b] = b"\\%03o" % b
    for char, text in {"\n": b"\\n", "\r": b"\\r", "\t": b"\\t", '"': b'\\"', "'": b"\\'", "\\": b"\\\\"}.items():
        table[ord(char)] = text
    return table


_ESCAPES = _escape_table()


def _string_element(value):
    if isinstance(value, str):
        value = value.encode()
    return b'"' + b"".join([_ESCAPES[b] for b in value]) + b'"'


def _reads_back_float32(text, value):
    """Whether the decimal ``text`` reads back (rounded once, to nearest float32) as ``value``."""
    d = float(text)
    try:
        f = struct.unpack("f", struct.pack("f", d))[0]
    except OverflowError:  # beyond float32's range: reads back as infinity
        return False
    if f != d:
        # ``d`` is already rounded once; rounding it again to float32 can only err when it lies exactly halfway
        # between two float32 values. Then the exact decimal decides.
        up = np.nextafter(np.float32(f), np.float32(np.inf if d > f else -np.inf))
        if (f + float(up)) / 2 == d:
            from fractions import Fraction  # noqa: PLC0415 - rarely needed; kept out of ``import tapeflow``

            exact = Fraction(text)
            if exact != Fraction(d):
                f = max(f, float(up)) if exact > Fraction(d) else min(f, float(up))
    return f == value


def _float_element(value, digits, more, reads_back):
    """``%g`` with ``digits`` significant digits when they read back to ``value``, else with ``more``."""
    if value != value:
        return "-nan" if np.signbit(value) else "nan"
    text = "%.*g" % (digits, value)
    if value in (np.inf, -np.inf) or reads_back(text, value):
        return text
    return "%.*g" % (more, value)


def _float32_text(value):
    return _float_element(value, 6, 9, _reads_back_float32)


def _float64_text(value):
    return _float_element(value, 15, 17, lambda text, v: float(text) == v)


def _element_formatter(arr):
    """``(array, fn)``: the array to print from and how one of its elements prints (as ``str``)."""
    kind = arr.dtype.kind
    if kind == "f":
        if arr.dtype.itemsize <= 4:
            arr = arr.astype(np.float32)  # float16 prints through float32, exactly converted
            tiny, fn = np.finfo(np.float32).tiny, _float32_text
        else:
            tiny, fn = np.finfo(np.float64).tiny, _float64_text
        subnormal = (arr != 0) & (np.abs(arr) < tiny)
        if subnormal.any():  # TF's CPU kernels run with denormals flushed: they print as signed zeros
            arr = np.where(subnormal, np.copysign(np.zeros_like(arr), arr), arr)
        return arr, lambda v: fn(float(v))
    if kind == "b":
        return arr, lambda v: "1" if v else "0"
    if kind in "iu":
        return arr, lambda v: str(int(v))
    return arr, _string_element


def _spacing(dim, rank):
    """What separates two entries of dimension ``dim``: a space between elements, else line breaks (one per
    inner dimension) and an indent past the brackets already open."""
    if dim == rank - 1:
        return " "
    return "\n" * (rank - dim - 1) + " " * (dim + 1)


def _dims(arr, dim, rank, ends, fmt, out):
    """Append the text of ``arr``, an entry at depth ``dim`` of a tensor of rank ``rank``, to ``out``."""
    if dim == rank:
        out.append(fmt(arr))  # an element (indexing an object array gives the element itself, not an array)
        return
    gap = _spacing(dim, rank)
    n = arr.shape[0]
    out.append("[")
    for i in range(min(ends, n)):
        if i:
            out.append(gap)
        _dims(arr[i], dim + 1, rank, ends, fmt, out)
    if n > 2 * ends:
        out.append(gap)  # also after an empty head (``summarize=0`` shows ``[ ...]``)
        out.append("...")
    for i in range(max(ends, n - ends), n):
        out.append(gap)
        _dims(arr[i], dim + 1, rank, ends, fmt, out)
    out.append("]")


def summarize_value(value, summarize):
    """The text (bytes) TF prints for a tensor holding ``value`` (a NumPy value) with ``summarize`` per end."""
    arr = np.asarray(value)
    size = arr.size
    limit = size if summarize < 0 else min(summarize, size)
    if arr.dtype.kind == "c":
        # TF 2.21 has no element text for complex values: a "?" for each of the first ``limit``, flat.
        text = " ".join(["?"] * limit) + ("..." if limit < size else "")
        return (f"[{text}]" if arr.ndim else text).encode()
    arr, fmt = _element_formatter(arr)
    if arr.ndim == 0:
        pieces = [fmt(arr[()]) for _ in range(limit)] + (["..."] if size > limit else [])
    else:
        pieces = []
        _dims(arr, 0, arr.ndim, limit, fmt, pieces)
    return b"".join([p if type(p) is bytes else p.encode() for p in pieces])


# ------------------------------------------------------------------------------------------ writing


def _log_line(stream, text):
    """TF's C++ log line for the ``log(...)`` streams, unless ``TF_CPP_MIN_LOG_LEVEL`` filters its level."""
    level, letter, line = {"log(info)": (0, "I", 169), "log(warning)": (1, "W", 171),
                           "log(error)": (2, "E", 173)}[stream]
    try:
        minimum = int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0"))
    except ValueError:
        minimum = 0
    if level < minimum:
        return None
    return b"%s0000 00:00:%.6f %7d logging_ops.cc:%d] %s\n" % (
        letter.encode(), time.time(), threading.get_native_id(), line, text)


def _file_error(path, exc):
    kinds = {"ENOENT": errors.NotFoundError, "EISDIR": errors.FailedPreconditionError,
             "ENOTDIR": errors.FailedPreconditionError, "EACCES": errors.PermissionDeniedError,
             "EPERM": errors.PermissionDeniedError, "EROFS": errors.PermissionDeniedError,
             "ENOSPC": errors.ResourceExhaustedError}
    cls = kinds.get(errno.errorcode.get(exc.errno, ""), errors.UnknownError)
    return errors.op_error("PrintV2", f"{path}; {exc.strerror}", cls=cls, name="")


def _write(stream, text):
    if stream.startswith("file://"):
        path = stream[len("file://"):]
        if not path:
            raise errors.op_error("PrintV2", "Unknown output stream: , Valid streams are: stdout stderr log(info) "
                                  "log(warning) log(error)", name="")
        try:
            with open(path, "ab") as f:
                f.write(text)
        except OSError as exc:
            raise _file_error(path, exc) from None
        return
    if stream.startswith("log("):
        text = _log_line(stream, text)
        if text is None:
            return
        stream = "stderr"
    target = sys.stdout if stream == "stdout" else sys.stderr
    target.write(text.decode("utf-8", "backslashreplace"))
    target.flush()


def _print_forward(*values, templates, placeholder, sep, summarize, verbatim, output_stream, end):
    """Format ``values`` into the template and write the line to ``output_stream``; no outputs.

    While ``tf.function`` traces, nothing is printed: the traced program prints each time it runs, as TF's graph
    does.
    """
    if STATE.tracer is not None:
        return ()
    if verbatim:
        text = np.asarray(values[0])[()]
        text = text.encode() if isinstance(text, str) else bytes(text)
    else:
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        pieces = template.split(placeholder)
        if len(pieces) != len(values) + 1:
            raise errors.op_error("StringFormat", f"num placeholders in template and num inputs must match: "
                                  f"{len(pieces) - 1} vs. {len(values)}", name="")
        out = [pieces[0].encode()]
        for value, piece in zip(values, pieces[1:]):
            out.append(summarize_value(value, summarize))
            out.append(piece.encode())
        text = b"".join(out)
    _write(output_stream, text + (end if isinstance(end, bytes) else end.encode()))
    return ()


# No outputs (an empty tuple from the forward) and no gradient rule: gradients stop here, as at TF's PrintV2.
PRINT = defop("PrintV2", num_outputs=0, same_dtype=False, stateful=True)(_print_forward)


# ------------------------------------------------------------------------------------------ the template


def _is_tensor(x):
    return isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False) is True or getattr(
        x, "_tapeflow_indexed_slices", False) is True


def _flatten(structure, out):
    """The leaves of ``structure`` as TF's nest finds them: lists and tuples in order, dicts by sorted key (keys
    that do not sort raise the ``TypeError`` ``sorted`` raises, as in TF)."""
    if isinstance(structure, dict):
        for key in sorted(structure):
            _flatten(structure[key], out)
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            _flatten(item, out)
    else:
        out.append(structure)
    return out


def _pack(structure, leaves):
    """``structure`` rebuilt with the next leaves of the iterator ``leaves`` (the inverse of :func:`_flatten`):
    a dict takes them by sorted key and keeps its own key order, as TF's nest rebuilds it."""
    if isinstance(structure, dict):
        values = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        if isinstance(structure, collections.defaultdict):
            rebuilt = type(structure)(structure.default_factory)
            rebuilt.update((key, values[key]) for key in structure)
            return rebuilt
        return type(structure)((key, values[key]) for key in structure)
    if isinstance(structure, (list, tuple)):
        items = [_pack(item, leaves) for item in structure]
        if isinstance(structure, tuple) and hasattr(structure, "_fields"):  # a namedtuple
            return type(structure)(*items)
        return type(structure)(items)
    return next(leaves)


def _placeholder(text):
    """``"{}"``, lengthened by digits from a fixed seed until it does not occur in ``text`` (TF's choice)."""
    import random  # noqa: PLC0415 - imported on the first print, not by ``import tapeflow``

    placeholder = "{}"
    rng = random.Random(5)
    while placeholder in text:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _sorted_ordered_dicts(x):
    return collections.OrderedDict(sorted(x.items())) if isinstance(x, collections.OrderedDict) else x


def _templates(inputs):
    """``(templates, placeholder, tensors)`` for the printed ``inputs``: TF's template of each argument."""
    import pprint  # noqa: PLC0415 - imported on the first print, not by ``import tapeflow``

    # The placeholder must not occur in the text of the arguments without their tensors (an OrderedDict's keys
    # sorted, as TF sorts them for this text only).
    free = []
    for x in inputs:
        x = _sorted_ordered_dicts(x)
        leaves = _flatten(x, [])
        free.append(pprint.pformat(_pack(x, iter(["" if _is_tensor(v) else v for v in leaves]))))
    placeholder = _placeholder(" ".join(free))
    templates, tensors = [], []
    for x in inputs:
        leaves = _flatten(x, [])
        marks = []
        for v in leaves:
            if _is_tensor(v):
                tensors.append(v)
                marks.append(placeholder)
            else:
                marks.append(v)
        templates.append(x if isinstance(x, str) else pprint.pformat(_pack(x, iter(marks))))
    return templates, placeholder, tensors


# ------------------------------------------------------------------------------------------ tf.print


def _summarize_attr(summarize):
    if summarize is None:
        return 3
    if isinstance(summarize, str):
        raise TypeError(f"Expected int for argument 'summarize' not {summarize!r}.")
    try:
        n = int(summarize)
    except (ValueError, TypeError):
        raise TypeError(f"Expected int for argument 'summarize' not {summarize!r}.") from None
    if not -_INT64 <= n < _INT64:
        raise OverflowError("int too big to convert")
    return n


def _stream_attr(output_stream):
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    # Built per call: ``sys.stdout`` and ``sys.stderr`` are the objects current now (pytest swaps them).
    streams = {sys.stdout: "stdout", sys.stderr: "stderr"}
    streams.update(_LEVELS)
    found = streams.get(output_stream)
    if not found:
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. {_STREAM_HELP}")
    return found


@export("print")
def print_v2(*inputs, output_stream=_DEFAULT_STREAM, summarize=3, sep=" ", end=os.linesep, name=None, **kwargs):
    """Print ``inputs`` as TensorFlow 2.21's ``tf.print`` does; returns ``None``.

    Args:
        *inputs: what to print, separated by ``sep``: tensors, variables, Python and NumPy values, and lists,
            tuples and dicts of them (shown as ``pprint`` shows them, dicts sorted by key, each tensor in TF's
            summarized form). A lone scalar string tensor prints as it is, without quotes.
        output_stream: ``sys.stderr`` (default) or ``sys.stdout`` as they are at the call, a log level (20, 30 or
            40 as in ``logging``; absl's 0, -1, -2), or ``"file://<path>"`` to append to a file.
        summarize: how many entries each dimension shows at either end (``None``: 3; negative: all).
        sep: the text between the printed inputs.
        end: the text after the last one (``None``: a newline).
        name: unused, as in eager TF (TF appends it to errors the op raises).

    Raises:
        ValueError: for an unknown keyword argument or output stream.
        TypeError: for a ``summarize`` that is not an integer, an ``end`` that is not a string, or dict keys that
            do not sort.
        tf.errors.NotFoundError: (and kin) when the file cannot be opened.
    """
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    if name:
        name + "_format"  # noqa: B018 - TF derives a name here, so a name that is not a string fails here
    if output_stream is _DEFAULT_STREAM:
        output_stream = sys.stderr
    stream = _stream_attr(output_stream)
    only = inputs[0] if len(inputs) == 1 else None
    verbatim = (only is not None and not getattr(only, "_tapeflow_indexed_slices", False) and _is_tensor(only)
                and only.shape.ndims == 0 and only.dtype.name == "string")
    if verbatim:
        # Nothing is formatted: ``sep`` and ``summarize`` go unused (and unchecked, as in TF).
        templates, placeholder, tensors, sep, summarize = ("{}",), "{}", [only], "", -1
    else:
        templates, placeholder, tensors = _templates(inputs)
        if not isinstance(sep, str):
            # What TF does with it, for TF's error (a bytes ``sep`` cannot join text); an object whose ``join``
            # does make text stands for the joined template.
            templates, sep = (sep.join(templates).replace("'" + placeholder + "'", placeholder),), ""
        templates = tuple(templates)
        summarize = _summarize_attr(summarize)
    if end is None:
        end = "\n"
    if not isinstance(end, (str, bytes)):
        raise TypeError(f"Expected string for argument 'end' not {end!r}.")
    values = tuple([convert_to_tensor(t) for t in tensors])  # variables are read here, slices densified
    attrs = {"templates": templates, "placeholder": placeholder, "sep": sep, "summarize": summarize,
             "verbatim": verbatim, "output_stream": stream, "end": end}
    try:
        execute(PRINT, values, attrs)
    except errors.OpError as exc:
        if name and exc.message.endswith(" name: "):
            raise type(exc)(None, None, exc.message + str(name)) from None
        raise
    return None

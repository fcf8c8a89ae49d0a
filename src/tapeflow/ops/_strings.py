"""What the string ops share: taking arguments as TF's op wrappers take them, and wording errors as TF does.

**Arguments.** A string op's ``input:string`` is a fixed type, not an attribute: a Python value is converted to a
string tensor (``Cannot convert [1, 2] to EagerTensor of dtype string`` when it holds no strings), and a tensor of
another dtype is refused by the kernel's input check (``cannot compute StringLength as input #0(zero-based) was
expected to be a string tensor but is a float tensor``).

**The ``name:`` suffix.** TF's generated wrappers run an op on their C fast path when every tensor argument is a
tensor or a NumPy array; a Python string, list or tuple (or a NumPy scalar) sends them down the fallback path,
whose errors lack the `` name: <name>`` suffix (see ``_core/errors.py``). The ops here raise their errors with the
suffix and :func:`call` takes it off, or puts the call's ``name`` in, as the path the arguments took would.

**Elements.** A string tensor's value is a NumPy object array of ``bytes``; each op works element by element over
``arr.flat`` and builds a new object array of the input's shape (a 0-d array for a scalar).
"""

from __future__ import annotations

import re

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.opdefs import OPDEFS
from .._core.tensor import Tensor, convert_to_tensor
from ._convert import to_tensor

__all__ = ["fast", "call", "converted", "strings_of", "string_tensor", "typed_input", "attr_choice_error",
           "attr_min_error", "new_like", "to_object", "attr_type_error", "fail", "check_choice", "run"]

_SLOW = (str, bytes, list, tuple, np.generic)


def fast(*args):
    """Whether TF's wrapper runs on its fast path for these (unconverted) tensor arguments: not for Python strings,
    lists, tuples or NumPy scalars."""
    return not any(isinstance(a, _SLOW) for a in args)


def _suffixed(exc, fast_path, name):
    msg = exc.message
    if not msg.endswith(" name: "):
        return exc
    base = msg[:-7]
    return type(exc)(None, None, f"{base} name: {name or ''}" if fast_path else base)


def call(fast_path, name, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, with its op errors given the `` name:`` suffix of TF's fast path (or none, on the
    fallback path)."""
    try:
        return fn(*args, **kwargs)
    except errors.OpError as exc:
        raise _suffixed(exc, fast_path, name) from None


def run(op, inputs, attrs, fast_path, name):
    """``execute(op, inputs, attrs)``, its errors worded for the path TF would have taken (:func:`call`)."""
    return call(fast_path, name, execute, op, inputs, attrs)


def typed_input(x, op_name, index, dtype):
    """``x`` as a ``dtype`` tensor for input ``index`` of ``op_name`` (an input of fixed type): a Python value is
    converted to ``dtype``, a tensor of another dtype is refused with the kernel's input error."""
    if isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False):
        t = to_tensor(x)
        if t.dtype != dtype:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
                f"{c_name(dtype)} tensor but is a {c_name(t.dtype)} tensor [Op:{op_name}] name: ")
        return t
    if isinstance(x, np.ndarray) and x.dtype.kind not in "OSU" and dtype == _dtypes.string:
        t = to_tensor(x)
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
            f"string tensor but is a {c_name(t.dtype)} tensor [Op:{op_name}] name: ")
    return convert_to_tensor(x, dtype)


def converted(value, prefix):
    """``value`` as a string tensor, as TF's Python functions convert it before any op: a tensor of another dtype
    is a ``ValueError`` that names the argument with ``prefix`` (``"input: "``)."""
    try:
        return convert_to_tensor(value, _dtypes.string)
    except ValueError as exc:
        raise ValueError(prefix + str(exc)) from None


def string_tensor(x, op_name, index=0):
    """``x`` as a string tensor for input ``index`` of ``op_name`` (see :func:`typed_input`)."""
    return typed_input(x, op_name, index, _dtypes.string)


def _allowed_of(op_name, attr):
    summary = OPDEFS[op_name][1]
    found = re.search(rf"attr={attr}:[^;>]*?allowed=(\[[^\]]*\])", summary)
    return summary, found.group(1)[1:-1]


def attr_choice_error(op_name, attr, value):
    """TF's error for a string attribute outside its allowed values (``unit="CHAR"``)."""
    summary, allowed = _allowed_of(op_name, attr)
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed values: {allowed}\n"
        f"\t; NodeDef: {{{{node {op_name}}}}}; {summary} [Op:{op_name}] name: ")


def check_choice(op_name, attr, value):
    """Raise :func:`attr_choice_error` unless ``value`` is one of the attribute's allowed values."""
    _, allowed = _allowed_of(op_name, attr)
    if f'"{value}"' not in [a.strip() for a in allowed.split(",")]:
        raise attr_choice_error(op_name, attr, value)


_SHORT_TYPES = {"DT_FLOAT": "float", "DT_DOUBLE": "double", "DT_HALF": "half"}


def attr_type_error(op_name, dtype, attr="T"):
    """TF's error for a type attribute outside its allowed types (``pos`` of ``tf.strings.substr`` a float)."""
    summary, allowed = _allowed_of(op_name, attr)
    names = ", ".join(_SHORT_TYPES.get(t.strip(), t.strip()[3:].lower()) for t in allowed.split(","))
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of {c_name(dtype)} is not in the list of allowed values: {names}\n"
        f"\t; NodeDef: {{{{node {op_name}}}}}; {summary} [Op:{op_name}] name: ")


def fail(exc):
    """Raise ``exc`` (for :func:`call`, which words it for the path taken)."""
    raise exc


def attr_min_error(op_name, attr, value, minimum):
    """TF's error for an integer attribute below its minimum (``num_buckets=0``)."""
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of {value} must be at least minimum {minimum}\n\t; NodeDef: "
        f"{{{{node {op_name}}}}}; {OPDEFS[op_name][1]} [Op:{op_name}] name: ")


def new_like(arr, values):
    """An object array of ``arr``'s shape holding ``values`` (an iterable in ``arr.flat`` order)."""
    out = np.empty(np.shape(arr), dtype=object)
    out.reshape(-1)[:] = list(values) if out.size else []
    return out


def strings_of(arr):
    """The elements of a string value, flat, as ``bytes``."""
    return list(np.asarray(arr, dtype=object).reshape(-1))


def to_object(items, shape):
    """``items`` (bytes) as an object array of ``shape``."""
    out = np.empty(len(items), dtype=object)
    out[:] = items if items else []
    return out.reshape(shape)

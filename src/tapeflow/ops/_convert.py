"""Argument conversion for ops, following TensorFlow's eager rules.

TF never promotes between tensors: inputs that share the op's ``T`` take the dtype of the first tensor among
them, and Python and NumPy values are converted to it (Python values exactly, NumPy values with a cast). With
no tensor among them, the first value's inferred dtype wins.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes
from .._core.convert import to_dtype
from .._core.state import loud, next_id, quiet
from .._core.tensor import EagerTensor, Tensor, _contains_tensor, constant_of, convert_to_tensor

__all__ = ["to_tensor", "matching", "operand_like"]

_new = object.__new__


def to_tensor(x, dtype=None) -> Tensor:
    """``x`` as a tensor (variables are read, so the read is recorded)."""
    if dtype is None:
        if type(x) is EagerTensor:
            return x
        if x._tapeflow_variable if isinstance(x, Tensor) else getattr(x, "_tapeflow_variable", False):
            return x._read()  # the common variable argument (``tf.matmul(h, w)``), without the conversion layers
    return convert_to_tensor(x, dtype)


def operand_like(value, like: Tensor, strict=False, lenient=False) -> Tensor:
    """Convert the other operand of a binary op to ``like``'s dtype (TF's ``convert_to_tensor(y, dtype=...)``).

    A value that does not fit ``like``'s dtype, lossy (``2.5`` for an int32 tensor) or of a foreign kind (a string
    or complex number next to a float tensor, a number next to a string tensor), is refused with TF's
    ``Cannot convert ... to EagerTensor of dtype ...``. ``lenient`` infers such a value instead (what ``+`` and
    ``tf.add`` do: TF's Add wrapper converts the other operand with only a dtype hint, and the op then reports the
    dtype clash). ``strict`` is the default behaviour, kept as a name for the comparisons.
    """
    t = type(value)
    np_dtype = like._value.dtype
    if t is float or t is int:
        kind = np_dtype.kind
        if kind == "f" or kind == "c":
            out = _new(EagerTensor)  # the hot case (``x * 0.5``): built inline
            out._value = scalar_of(value, np_dtype)
            out._id = next_id()
            return out
    elif t is np_dtype.type:
        out = _new(EagerTensor)  # a NumPy scalar of the tensor's own type (``lr * g``, ``lr = np.float32(0.01)``)
        out._value = value
        out._id = next_id()
        return out
    if isinstance(value, Tensor):
        return value
    if getattr(value, "_tapeflow_variable", False):
        return value._read()
    dtype = dtypes.dtype_of(np_dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return constant_of(to_dtype(value, dtype))
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return convert_to_tensor(value, dtype)
    if lenient:
        try:
            return constant_of(to_dtype(value, dtype, infer_foreign=True))
        except (TypeError, ValueError):
            return convert_to_tensor(value)
    try:
        return constant_of(to_dtype(value, dtype))
    except (TypeError, ValueError):
        if getattr(value, "_tapeflow_weak", False):  # see ``_converted``
            return value.tensor
        raise


def _converted(value, dtype):
    """A non-tensor operand as a constant of ``dtype``; a weak tensor (``tf.experimental.numpy``), which converts to
    nothing, is looked at only when that fails, so the operators' path pays nothing for it."""
    try:
        return constant_of(to_dtype(value, dtype))
    except (TypeError, ValueError):
        if getattr(value, "_tapeflow_weak", False):
            return value.tensor
        raise


_SCALARS = {}


def scalar_of(value, np_dtype):
    """``np_dtype.type(value)``, remembered: a loop's constants (``0.01 * g``) recur every step, and NumPy
    scalars are immutable. Zeros (whose sign the key would lose) and NaNs are never remembered."""
    key = (value, np_dtype.num)
    found = _SCALARS.get(key)
    if found is None:
        token = quiet()  # 1e40 as float32 is inf, silently, as in TF
        try:
            found = np_dtype.type(value)
        finally:
            loud(token)
        if value and value == value and len(_SCALARS) < 1024:
            _SCALARS[key] = found
    return found


def matching(*values, lenient=False):
    """Convert ``values`` to tensors of one dtype, as TF's generated op wrappers do (``args_to_matching_eager``).

    The first tensor's dtype (or, with no tensor, the first value's inferred dtype) is required of the others:
    ``Cannot convert 2.5 to EagerTensor of dtype int32``. ``lenient`` (``tf.add`` only) lets a value that does
    not fit keep its own inferred dtype, so the op then reports the clash, as TF's AddV2 fallback does.
    """
    if len(values) == 2 and type(values[0]) is EagerTensor and type(values[1]) is EagerTensor:
        return values  # two tensors (``tf.multiply(g, lr)`` in an optimizer): nothing to convert
    for i, v in enumerate(values):
        if isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False):
            like = to_tensor(v)
            return tuple(like if j == i else operand_like(w, like, lenient=lenient) for j, w in enumerate(values))
    first = convert_to_tensor(values[0])
    out = [first]
    for v in values[1:]:
        if not lenient:
            out.append(_converted(v, first.dtype))
            continue
        try:
            out.append(constant_of(to_dtype(v, first.dtype)))
        except (TypeError, ValueError):
            out.append(convert_to_tensor(v))
    return tuple(out)

"""Numerics checks: ``tf.debugging.check_numerics`` (TF's ``CheckNumerics`` op), ``assert_all_finite``,
``is_numeric_tensor`` and the monotonicity tests ``tf.math.is_non_decreasing`` / ``is_strictly_increasing``.

The check-numerics *mode* (``enable_check_numerics``) lives in :mod:`.numerics_mode`.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, defop
from .._core.tensor import Tensor, convert_to_tensor
from ._convert import to_tensor
from .array_ops import RESHAPE, STRIDED_SLICE
from .math_ops import GREATER, GREATER_EQUAL
from .reduction_ops import ALL

__all__ = ["check_numerics", "assert_all_finite", "is_numeric_tensor", "is_non_decreasing",
           "is_strictly_increasing", "nonfinite_kinds"]


def nonfinite_kinds(value, signed):
    """What TF's CheckNumerics kernels say a non-finite ``value`` had (``"Inf and NaN"``), or ``None`` if finite.

    ``signed`` gives CheckNumericsV2's wording, which tells ``-Inf`` from ``+Inf``.
    """
    finite = np.isfinite(value)
    if finite.all():
        return None
    isnan = np.isnan(value)
    nan = isnan.any()
    inf = ~(finite | isnan)
    if not signed:
        return " and ".join((["Inf"] if inf.any() else []) + (["NaN"] if nan else []))
    parts = []
    if (inf & (value < 0)).any():
        parts.append("-Inf")
    if (inf & (value > 0)).any():
        parts.append("+Inf")
    if nan:
        parts.append("NaN")
    # TF lists two kinds with "and", three with an Oxford comma.
    return parts[0] if len(parts) == 1 else " and ".join(parts) if len(parts) == 2 else (
        f"{parts[0]}, {parts[1]}, and {parts[2]}")


def _check_forward(x, message):
    kinds = nonfinite_kinds(x, signed=False)
    if kinds is not None:
        raise errors.op_error("CheckNumerics", f"{message} : Tensor had {kinds} values", name="")
    return x


# TF's op is stateful and passes its input through unchanged when every element is finite.
CHECK_NUMERICS = defop("CheckNumerics", dtypes=FLOAT)(_check_forward)


@CHECK_NUMERICS.defvjp
def _check_numerics_grad(g, ans, x, message):
    # TF checks the incoming gradient too, naming the forward message as the bytes attribute it stores.
    text = f"Not a number (NaN) or infinity (Inf) values detected in gradient. {message.encode()!r}"
    return (execute(CHECK_NUMERICS, (g,), {"message": text}),)


def _renamed(exc, name):
    """``exc`` with TF's `` name: <name>`` suffix (the forward raises it with an empty name)."""
    msg = exc.message
    if name and msg.endswith(" name: "):
        return type(exc)(None, None, msg + name)
    return exc


@export("debugging.check_numerics")
def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged if it holds no NaN or Inf, else TF's InvalidArgumentError naming ``message``.

    Floating dtypes only (TF's ``CheckNumerics``); the gradient passes through and is checked the same way.
    """
    fast = errors.fast_path(tensor)
    x = to_tensor(tensor)
    try:
        return execute(CHECK_NUMERICS, (x,), {"message": str(message)})
    except errors.InvalidArgumentError as exc:
        raise (_renamed(exc, name) if fast else errors.without_name(exc)) from None


@export("debugging.assert_all_finite")
def assert_all_finite(x, message, name=None):
    """``x`` unchanged if it is finite everywhere: ``tf.debugging.assert_all_finite`` (a ``check_numerics``)."""
    return check_numerics(x, message, name=name)


@export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a tensor of a numeric dtype (integer, floating or complex; not bool or string)."""
    if not isinstance(tensor, Tensor):
        return False
    dt = tensor.dtype
    return bool(dt.is_integer or dt.is_floating or dt.is_complex) and not dt.is_bool


def _monotone(x, strict):
    t = convert_to_tensor(x)
    if not is_numeric_tensor(t):
        raise TypeError(f"Expected x to be numeric, instead found: {t!s}")
    # Ops on the flattened values, as TF composes it (a traced program compares each call's values): each element
    # against the one before; no pairs (fewer than two elements) is true.
    flat = execute(RESHAPE, (t,), {"shape": (-1,)})
    later = execute(STRIDED_SLICE, (flat,), {"index": (slice(1, None),)})
    earlier = execute(STRIDED_SLICE, (flat,), {"index": (slice(None, -1),)})
    pairs = execute(GREATER if strict else GREATER_EQUAL, (later, earlier))
    return execute(ALL, (pairs,), {"axis": None, "keepdims": False})


@export("math.is_non_decreasing")
def is_non_decreasing(x, name=None):
    """Whether the elements of ``x``, flattened in row-major order, never decrease (``True`` when empty)."""
    return _monotone(x, strict=False)


@export("math.is_strictly_increasing")
def is_strictly_increasing(x, name=None):
    """Whether the elements of ``x``, flattened in row-major order, strictly increase (``True`` when empty)."""
    return _monotone(x, strict=True)

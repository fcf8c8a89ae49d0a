"""``tf.debugging.enable_check_numerics``: fail at the first op, forward or backward, that makes a NaN or Inf.

Design (zero cost when off, nothing edited in the dispatcher): every op runs ``op.forward`` and every backward
step reads ``op.vjp``, and both are slots of :class:`~tapeflow._core.registry.Op`. Enabling replaces those two
slot descriptors on the class with checking ones that hand out wrapped functions; disabling puts the original
descriptors back, so a disabled program runs exactly the code it ran before. Because the class itself is patched,
ops registered while checking is on are covered too. The backward pass's "raw" NumPy mode, which computes some
gradients without running ops, is switched off meanwhile so that every gradient op is checked as well.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from .._core import errors
from .._core.exports import export
from .._core.registry import Op
from .._core.state import line_of, user_frame
from .._core.tensor import wrap
from .numerics_ops import nonfinite_kinds

__all__ = ["enable_check_numerics", "disable_check_numerics"]

# Ops TF's callback never checks: ones that only move values around (its "safe ops"), the identity, and the
# check itself. Variable reads are identities too.
_SKIP = frozenset({
    "Identity", "IdentityN", "CheckNumerics", "CheckNumericsV2", "ReadVariableOp", "Concat", "ConcatV2",
    "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape", "Slice", "Squeeze", "Stack", "StridedSlice",
    "StridedSliceGrad", "Transpose", "Unpack",
})
# Outputs TF leaves unchecked: batch-norm statistics and reserve spaces, which may legitimately hold anything.
_IGNORED_OUTPUTS = frozenset(
    [("FusedBatchNorm", s) for s in (1, 2, 3, 4)] + [("FusedBatchNormV2", s) for s in (1, 2, 3, 4)]
    + [("FusedBatchNormV3", s) for s in (1, 2, 3, 4, 5)])


class _Local(threading.local):
    """Per thread, as in TF: whether checking is on, its limits, and the gradient rules running."""

    def __init__(self):
        self.enabled = False
        self.path_length_limit = 50
        self.grad_of = []  # (op, its recorded output) of each gradient rule running, innermost last


_LOCAL = _Local()
_LOCK = threading.Lock()
_installed = {"threads": 0, "saved": None, "raw": None}


def _limit(path, limit):
    # TF shortens long file paths in its reports to their last ``limit`` characters.
    return path if limit is None or len(path) <= limit else "..." + path[len(path) - limit:]


def _where(limit):
    where = line_of(user_frame(2))
    if where is None:
        return "an unknown line"
    file, _, line = where.rpartition(":")
    return f"{_limit(file, limit)}:{line}"


def _recorded_line(op, ans, limit):
    """The user's line where the op whose gradient is running was recorded, found on the tape being
    differentiated (searched only when reporting an error, so recording pays nothing for it)."""
    from .._core.dispatch import Recording

    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, Recording):
                for rec in value.records:
                    if rec[2] is ans:
                        where = line_of(rec[4])
                        if where is None:
                            return None
                        file, _, line = where.rpartition(":")
                        return f"{_limit(file, limit)}:{line}"
        frame = frame.f_back
    return None


def _report(op, slot, out, values):
    """TF's eager report for a non-finite output, plus where it happened in the user's code."""
    n_out = op.num_outputs if op.multi_output else 1
    text = "\n\n!!! Detected Infinity or NaN in output %d of eagerly-executing op \"%s\" (# of outputs: %d) !!!\n" % (
        slot, op.name, n_out)
    t = wrap(out)
    text += f"  dtype: {t.dtype}\n  shape: {t.shape}\n"
    isinf = np.isinf(out)
    neg, pos, nan = int((isinf & (out < 0)).sum()), int((isinf & (out > 0)).sum()), int(np.isnan(out).sum())
    if neg:
        text += f"  # of -Inf elements: {neg}\n"
    if pos:
        text += f"  # of +Inf elements: {pos}\n"
    if nan:
        text += f"  # of +NaN elements: {nan}\n"
    if len(values) > 1:
        text += f"\n  Input tensors ({len(values)}):\n"
        for i, v in enumerate(values):
            text += f"         {i}: {wrap(np.asarray(v))!s}\n"
    elif len(values) == 1:
        text += f"\n  Input tensor: {wrap(np.asarray(values[0]))!s}\n"
    # tapeflow's addition: TF reports a stack only for graphs; eagerly, the user's line is what helps.
    limit = _LOCAL.path_length_limit
    where = f"  tapeflow: op \"{op.name}\" at {_where(limit)}"
    if _LOCAL.grad_of:
        fwd_op, ans = _LOCAL.grad_of[-1]
        recorded = _recorded_line(fwd_op, ans, limit)
        where += f", in the gradient of op \"{fwd_op.name}\"" + (f" recorded at {recorded}" if recorded else "")
    text += f"\n{where}\n\n"
    kinds = nonfinite_kinds(out, signed=True)
    return errors.op_error("CheckNumericsV2", f"{text} : Tensor had {kinds} values", name="")


def _check(op, out, values):
    if not op.multi_output:
        if out.dtype.kind == "f" and not np.isfinite(out).all():
            raise _report(op, 0, out, values)
        return
    for slot, o in enumerate(out):
        if (getattr(o, "dtype", None) is not None and o.dtype.kind == "f" and (op.name, slot) not in _IGNORED_OUTPUTS
                and not np.isfinite(o).all()):
            raise _report(op, slot, o, values)


def _checking_forward(op, forward):
    if op.name in _SKIP:
        return forward

    def checked(*values, **attrs):
        out = forward(*values, **attrs)
        if _LOCAL.enabled:
            _check(op, out, values)
        return out

    checked._tapeflow_unchecked = forward
    checked.__doc__ = forward.__doc__
    return checked


def _checking_vjp(op, rule):
    def checked(*args, **kwargs):
        stack = _LOCAL.grad_of
        stack.append((op, args[1]))
        try:
            return rule(*args, **kwargs)
        finally:
            stack.pop()

    checked._tapeflow_unchecked = rule
    return checked


class _CheckedSlot:
    """Stands in for one of ``Op``'s slot descriptors: reads return a checking wrapper of the stored function
    (memoised per op), writes store the unwrapped function."""

    def __init__(self, member, make):
        self.member = member
        self.make = make
        self.cache = {}

    def __get__(self, op, owner=None):
        if op is None:
            return self
        fn = self.member.__get__(op, owner)
        if fn is None:
            return None
        hit = self.cache.get(op)
        if hit is not None and hit[0] is fn:
            return hit[1]
        wrapped = self.make(op, fn)
        self.cache[op] = (fn, wrapped)
        return wrapped

    def __set__(self, op, value):
        self.member.__set__(op, getattr(value, "_tapeflow_unchecked", value))

    def __delete__(self, op):
        self.member.__delete__(op)


def _install():
    saved = {"forward": Op.__dict__["forward"], "vjp": Op.__dict__["vjp"]}
    _installed["saved"] = saved
    Op.forward = _CheckedSlot(saved["forward"], _checking_forward)
    Op.vjp = _CheckedSlot(saved["vjp"], _checking_vjp)
    from .._core import backprop

    if hasattr(backprop, "RAW_BACKWARD"):
        _installed["raw"] = backprop.RAW_BACKWARD
        backprop.RAW_BACKWARD = False


def _uninstall():
    saved = _installed["saved"]
    Op.forward = saved["forward"]
    Op.vjp = saved["vjp"]
    _installed["saved"] = None
    from .._core import backprop

    if _installed["raw"] is not None:
        backprop.RAW_BACKWARD = _installed["raw"]
        _installed["raw"] = None


@export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Make every op that outputs a floating NaN or Inf raise, forward or in a gradient, on this thread.

    Raises ``tf.errors.InvalidArgumentError`` worded as TF's eager check (``{{function_node
    __wrapped__CheckNumericsV2...}}``, "!!! Detected Infinity or NaN in output 0 of eagerly-executing op ...",
    dtype, shape, counts of -Inf/+Inf/NaN, the inputs, and ``: Tensor had ... values [Op:CheckNumericsV2]``).
    tapeflow adds one line before the end, ``tapeflow: op "<Op>" at <file>:<line>`` naming the user's line that
    ran the op, and for an op inside a gradient rule ``, in the gradient of op "<Op>" recorded at <file>:<line>``.
    File paths are shortened to ``path_length_limit`` characters as TF shortens its stack traces;
    ``stack_height_limit`` is accepted for TF compatibility (tapeflow reports one frame, the user's). As in TF,
    ops that only move values (reshape, transpose, gather, maximum, identity...) are not checked, nor integer or
    complex outputs. Idempotent; costs nothing once disabled again.
    """
    if _LOCAL.enabled:
        _LOCAL.path_length_limit = path_length_limit
        return
    with _LOCK:
        if _installed["threads"] == 0:
            _install()
        _installed["threads"] += 1
    _LOCAL.path_length_limit = path_length_limit
    _LOCAL.enabled = True


@export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Turn off :func:`enable_check_numerics` on this thread (a no-op when it is not on)."""
    if not _LOCAL.enabled:
        return
    _LOCAL.enabled = False
    with _LOCK:
        _installed["threads"] -= 1
        if _installed["threads"] == 0:
            _uninstall()


def check_numerics_enabled():
    """Whether :func:`enable_check_numerics` is on in this thread."""
    return _LOCAL.enabled

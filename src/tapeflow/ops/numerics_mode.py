"""``tf.debugging.enable_check_numerics``: fail at the first op, forward or backward, that makes a NaN or Inf.

Design (zero cost when off, nothing patched): enabling puts a :class:`_Checker` first in this thread's stack of
recording observers (``STATE.tapes``, see ``_core/observers.py``), the stack every tape and forward accumulator sits
in. Its set of tracked ids contains every id, so ``execute`` hands it every op with an input, and it checks the
outputs before any tape after it records the op. Because something observes, a backward pass runs its rules as ops
(not on arrays), so every gradient op is checked too. Disabling takes the checker out again: the program then runs
exactly the code it ran before.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from .._core import errors
from .._core.equation import op_of
from .._core.exports import export
from .._core.registry import Op
from .._core.state import STATE, line_of, user_frame
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
    """Per thread, as in TF: this thread's checker (``None`` when checking is off) and its limits."""

    def __init__(self):
        self.checker = None
        self.path_length_limit = 50


_LOCAL = _Local()


def _limit(path, limit):
    # TF shortens long file paths in its reports to their last ``limit`` characters.
    return path if limit is None or len(path) <= limit else "..." + path[len(path) - limit:]


def _where(limit):
    where = line_of(user_frame(2))
    if where is None:
        return "an unknown line"
    file, _, line = where.rpartition(":")
    return f"{_limit(file, limit)}:{line}"


def _gradient_in_progress(limit):
    """``(op, "file:line")`` of the recorded op whose gradient rule is running, or ``None`` outside a backward pass.

    Found only when reporting an error, so checking costs the backward pass nothing: the innermost frame of a
    reversed scan in the core has the record it is processing in its locals (``op``, ``outputs`` and ``_where``, the
    line the record was made at).
    """
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("tapeflow._core."):
            local = frame.f_locals
            op = local.get("op")
            if isinstance(op, Op) and "outputs" in local and "_where" in local:
                where = line_of(local["_where"])
                if where is not None:
                    file, _, line = where.rpartition(":")
                    where = f"{_limit(file, limit)}:{line}"
                return op, where
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
    running = _gradient_in_progress(limit)
    if running is not None:
        fwd_op, recorded = running
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


class _EveryId:
    """A set that contains every tensor id: an observer with it as ``tracked`` is handed every op."""

    __slots__ = ()

    def __contains__(self, tensor_id):
        return True

    def add(self, tensor_id):
        pass

    def discard(self, tensor_id):
        pass


class _Checker:
    """The observer :func:`enable_check_numerics` puts first in this thread's ``STATE.tapes``.

    It has a recording's interface (``tracked``, ``records.append``, ``watch_variable``) but keeps nothing: each op
    ``execute`` hands it is checked and dropped. ``sees_every_op`` keeps it in place where the core narrows the
    observers (``tf.recompute_grad`` runs its function with recording stopped, but still checked).
    """

    __slots__ = ("tracked", "records", "roots", "variables", "watch_accessed")

    sees_every_op = True

    def __init__(self):
        self.tracked = _EveryId()
        self.records = self
        self.roots = frozenset()
        self.variables = {}
        self.watch_accessed = False

    def watch_variable(self, var):  # part of the interface; variable reads are never checked
        pass

    def append(self, eq):
        """``execute`` ran an op (``eq``, its stored equation): check its outputs."""
        op = op_of(eq[0])
        if op.name in _SKIP:
            return
        _check(op, eq[5], list(eq[7::2]))


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
    _LOCAL.path_length_limit = path_length_limit
    if _LOCAL.checker is None:
        _LOCAL.checker = _Checker()
        STATE.tapes.insert(0, _LOCAL.checker)  # first: an op that fails its check is recorded by no tape


@export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Turn off :func:`enable_check_numerics` on this thread (a no-op when it is not on)."""
    checker = _LOCAL.checker
    if checker is None:
        return
    _LOCAL.checker = None
    tapes = STATE.tapes
    for i in range(len(tapes) - 1, -1, -1):
        if tapes[i] is checker:
            del tapes[i]
            break


def check_numerics_enabled():
    """Whether :func:`enable_check_numerics` is on in this thread."""
    return _LOCAL.checker is not None

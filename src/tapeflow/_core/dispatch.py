"""The one dispatch point: every op, from every public function and operator, runs through :func:`execute`.

``execute`` checks dtypes, runs the op's NumPy forward, wraps the result, and reports the op through the hook
(``observers.py``): it records the op on each recording observer of this thread (tapes, forward accumulators, the
numerics check) that tracks one of its inputs, and tells the listeners (the provenance log) of an op none took.
With no tape active the cost above NumPy is a few attribute reads and one tensor allocation.

A tape's recording is a :class:`~tapeflow._core.recording.Recording`: its equations plus the set of tensor ids it
tracks (watched tensors and variables, and every output of a recorded op). A tape keeps each equation in its stored
form (``equation.py``): a plain tuple of ids and arrays, cheap to build on the per-op path and one the cyclic
garbage collector stops scanning. Every recording observer gets that form.
"""

from __future__ import annotations

import sys

import numpy as np

from . import errors
from .convert import c_name
from .dtypes import TRAINABLE_NUMS, dtype_of
from .observers import report_op
from .registry import defop
from .state import ERRSTATE, PACKAGE_DIR, RESTORE, SILENCE, SILENT, STATE, next_id, user_frame
from .tensor import EagerTensor, wrap

_getframe = sys._getframe

_new = object.__new__

_NOWHERE = (None, None)

__all__ = ["execute", "READ_VARIABLE", "EMPTY"]

EMPTY = {}


def _dtype_error(op, inputs):
    first = dtype_of(inputs[0]._value.dtype)
    for i, t in enumerate(inputs):
        dt = dtype_of(t._value.dtype)
        if dt != first:
            if STATE.tracer is not None:
                # While ``tf.function`` traces, TF builds a graph node, whose inputs are checked by name.
                names = _input_names(op)
                if len(names) > i:
                    return TypeError(f"Input '{names[i]}' of '{op.name}' Op has type {dt.name} that does not match "
                                     f"type {first.name} of argument '{names[0]}'.")
            return errors.InvalidArgumentError(
                None, None, f"cannot compute {op.name} as input #{i}(zero-based) was expected to be a "
                f"{c_name(first)} tensor but is a {c_name(dt)} tensor [Op:{op.name}] name: ")
    return None


def _input_names(op):
    """The input names of TF's op definition (``x``, ``y`` for ``AddV2``), or ``()``."""
    summary = op.tf_signature()
    if summary is None or "signature=" not in summary:
        return ()
    inputs = summary.split("signature=", 1)[1].split(" -> ", 1)[0]
    return tuple(part.split(":", 1)[0].strip() for part in inputs.split(","))


def _allowed_error(op, inputs):
    dt = dtype_of(inputs[0]._value.dtype)
    names, dt_names = op.allowed_text()
    summary = op.tf_signature() or (f"Op<name={op.name}; signature={op.signature}; attr=T:type,"
                                    f"allowed=[{dt_names}]>")
    return errors.InvalidArgumentError(
        None, None, f"Value for attr 'T' of {c_name(dt)} is not in the list of allowed values: {names}\n"
        f"\t; NodeDef: {{{{node {op.name}}}}}; {summary} [Op:{op.name}] name: ")


def _check_allowed(op, dt, inputs):
    """Raise TF's error if ``op`` does not take ``dt`` (its first input's dtype); else remember ``dt`` as accepted."""
    allowed = op.allowed_nums
    if allowed is not None and dt.num not in allowed:
        raise _allowed_error(op, inputs)
    op.accepted = dt


def _forward_error(op, exc, values, attrs):
    if isinstance(exc, MemoryError):  # an allocation that cannot be satisfied: TF's OOM, naming the op and shape
        return errors.oom(op.name, exc)
    if op.on_error is not None:
        err = op.on_error(exc, values, attrs)
        if err is not None:
            return err
    shapes = ", ".join(errors.shape_str(getattr(v, "shape", ())) for v in values)
    kinds = ", ".join(dtype_of(v.dtype).name for v in values if hasattr(v, "dtype"))
    return errors.op_error(op.name, f"{exc} (input shapes: {shapes}; dtypes: {kinds})")


_FORWARD_ERRORS = (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError, MemoryError,
                   OverflowError, KeyError)
_FAILURES = _FORWARD_ERRORS + (errors.OpError,)


def _failed(op, exc, inputs, values, attrs):
    """A forward that failed: TF's error, raised. While a function is traced, the error belongs to the program
    instead (TF runs no kernel while it traces): the trace takes note of it and goes on with a stand-in value (the
    first input), and the program raises it when it runs the op, unless nothing needs the op and it is dropped
    (TF prunes it too), or the op sits in a branch the program does not take. Shapes that cannot go together at
    all (TF finds them while it builds the graph) raise TF's ``ValueError`` at once."""
    err = exc if isinstance(exc, errors.OpError) else _forward_error(op, exc, values, attrs)
    tracer = STATE.tracer
    if tracer is None:
        raise err from None
    static = tracer.construction_error(op, inputs, attrs)
    if static is not None:
        raise static from None
    tracer.failed(err)
    stand_in = values[0] if values else np.zeros((), np.float32)
    return tuple([stand_in] * op.num_outputs) if op.multi_output else stand_in


def execute(op, inputs, attrs=EMPTY):
    """Run ``op`` on ``inputs`` (a tuple of tensors) with ``attrs``; return its tensor output(s).

    Raises TensorFlow's errors for wrong dtypes and for failures of the forward computation. A failed op
    records nothing, so the tapes stay usable.
    """
    n = len(inputs)
    if n == 2:
        # The hot case (binary elementwise ops, and matmuls with flags in gradients), spelled out: every attribute
        # read counts here.
        x, y = inputs
        xv = x._value
        yv = y._value
        dt = xv.dtype
        # Builtin NumPy dtypes are singletons: identity is the cheap common case.
        if yv.dtype is not dt and op.same_dtype and yv.dtype.num != dt.num:
            raise _dtype_error(op, inputs)
        if dt is not op.accepted:  # the dtype this op last accepted: one identity test on the hot path
            _check_allowed(op, dt, inputs)
        token = SILENCE(SILENT) if op.quiet and ERRSTATE() is not SILENT else None
        try:
            out = op.forward(xv, yv, **attrs) if attrs else op.forward(xv, yv)
        except _FAILURES as exc:
            out = _failed(op, exc, inputs, [xv, yv], attrs)
        finally:
            if token is not None:
                RESTORE(token)
    elif n == 1:
        # The other hot case: unary ops and reductions (attributes are passed by keyword).
        x = inputs[0]
        xv = x._value
        if xv.dtype is not op.accepted:
            _check_allowed(op, xv.dtype, inputs)
        token = SILENCE(SILENT) if op.quiet and ERRSTATE() is not SILENT else None
        try:
            out = op.forward(xv, **attrs) if attrs else op.forward(xv)
        except _FAILURES as exc:
            out = _failed(op, exc, inputs, [xv], attrs)
        finally:
            if token is not None:
                RESTORE(token)
    else:
        # No input, or three and more: the whole op report (recording observers, else listeners).
        out = _forward(op, inputs, attrs)
        result = tuple([wrap(o) for o in out]) if op.multi_output else wrap(out)
        report_op(op, inputs, result, attrs)
        return result
    if op.multi_output:
        result = tuple([wrap(o) for o in out])
        report_op(op, inputs, result, attrs)  # the whole op report: recording observers, else listeners
        return result
    result = _new(EagerTensor)
    result._value = out
    result._id = next_id()
    tapes = STATE.tapes
    if tapes:
        # ``observers.report_op`` for one or two inputs and one output, inlined: a Python call fewer on every
        # recorded op. Record on every recording observer that tracks an input.
        stored = None
        for rec in tapes:
            tracked = rec.tracked
            if x._id not in tracked and (n == 1 or y._id not in tracked):  # (``y`` is bound when there are two)
                continue
            if stored is None:
                # The user's line (``state.user_frame``): usually the caller of the API function that called
                # ``execute``, so that frame is tried inline before any walk up the stack.
                try:
                    f = _getframe(2)
                except ValueError:  # a shallow stack (``execute`` called from the top level)
                    f = None
                if f is not None and not f.f_code.co_filename.startswith(PACKAGE_DIR):
                    code, lasti = f.f_code, f.f_lasti
                else:
                    code, lasti = user_frame(3) or _NOWHERE
                # The equation's stored form (``equation.py``): one flat tuple of ids and arrays, no tensor
                # objects, so a long tape holds nothing the cyclic garbage collector must scan. Spelled out for one
                # and two inputs (``report_op`` builds the others with ``equation.store``): this is the per-op path.
                if n == 2:
                    stored = (op.key, attrs or None, code, lasti, result._id, out, x._id, xv, y._id, yv)
                else:
                    stored = (op.key, attrs or None, code, lasti, result._id, out, x._id, xv)
            rec.records.append(stored)  # built above: no allocation between the load and the append (recording.py)
            if out.dtype.num in TRAINABLE_NUMS:
                tracked.add(result._id)
        if stored is not None:
            return result
    # The listeners' half of ``observers.report_op``, inlined: an op no recording observer took (recorded ones are
    # in the recordings). The provenance log keeps where it ran, for ``debug.explain``.
    note = tapes.hear.op_ran  # the listeners are on the same per-thread object: no second thread-local read
    if note is not None:
        note(op, inputs, result)
    return result


def _forward(op, inputs, attrs):
    """Check and run ``op``'s forward for any arity and attributes."""
    if inputs:
        dt = inputs[0]._value.dtype
        if len(inputs) > 1 and op.same_dtype:
            for t in inputs:
                other = t._value.dtype
                if other is not dt and other.num != dt.num:
                    raise _dtype_error(op, inputs)
        allowed = op.allowed_nums
        if allowed is not None and dt.num not in allowed:
            raise _allowed_error(op, inputs)
    token = SILENCE(SILENT) if op.quiet and ERRSTATE() is not SILENT else None
    try:
        return op.forward(*[t._value for t in inputs], **attrs)
    except _FAILURES as exc:
        return _failed(op, exc, inputs, [t._value for t in inputs], attrs)
    finally:
        if token is not None:
            RESTORE(token)


def _read_forward(value):
    return value


def _read_grad(g, ans, var):
    return (g,)


# Reading a variable is a recorded identity from the variable's id to the tensor read: gradients for the
# variable are the sum over its reads, and a value read before the tape started stays unconnected.
READ_VARIABLE = defop("ReadVariableOp", same_dtype=False)(_read_forward)
READ_VARIABLE.defvjp(_read_grad)

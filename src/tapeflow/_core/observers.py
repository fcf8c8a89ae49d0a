"""The interception point: everything that happens to tensors and variables is reported through one per-thread hook.

Every op run, variable read, assignment, custom-gradient call, constant made, value leaving for NumPy or Python,
variable created and set of gradients returned is reported to this thread's observers, all kept on one per-thread
object, ``STATE.tapes`` (a ``state.Observers``). Nothing else changes behaviour: no class is patched and no module
global is flipped. There are two kinds of observer, so that a passive one costs a hot path no more than the
attribute reads the provenance log's module flag cost before, and never makes a backward pass run its rules as ops.

**Recording observers** are the items of ``STATE.tapes`` (innermost last): tapes (``recording.Recording``), forward
accumulators (``forward_mode._Accumulating``), the numerics check (``ops/numerics_mode.py``) and, while a
custom-gradient function runs, the watcher that learns which variables it reads. One offers:

``tracked``
    a set of tensor and variable ids (``in``, ``add``): an op with an input in it is handed to ``records``, and the
    op's floating or complex outputs are added to it;
``records``
    what takes each such op's stored equation (``equation.py``) by ``append``: a list, or the observer itself
    (a ``Recording``'s list is sealed by collections, see ``recording.py``: append an equation built beforehand);
``watch_accessed``, ``variables``, ``watch_variable(var)``
    whether a read auto-watches a trainable variable, the variables watched (id to variable), and how to watch one;
``tangents`` (optional)
    tangents by id (a forward accumulator): a custom-gradient call whose results have tangents reaches it as
    identities from those results to the call's outputs, not as the custom record;
``sees_every_op`` (optional)
    true for an observer that stays while recording is stopped (``tf.recompute_grad``'s forward pass).

While any recording observer is active, a backward pass runs its rules as ops, so that they are recorded too. Code
that narrows the list for a while (forward mode, ``recompute_grad``) changes it in place and restores it.

**Listeners** are passive: they take effects and keep their own account of them (the provenance log behind
``tapeflow.debug.explain``, ``provenance.py``; next, the tracer's effects). A listener offers any of the methods
named in ``state.REPORTS``, each optional, plus ``user_code_only`` (optional, true: not told while
``GradientTape.gradient`` runs its backward pass, whose ops are no user's code). It starts and stops listening with
:func:`listen` and :func:`unlisten`, on this thread or on every thread; :func:`suspend` and :func:`resume` silence
the listeners of user code only around code that is not the user's. Producers read ``STATE.tapes.hear.<report>``:
``None`` when no listener takes that report, else one callable (the listener's own function when it is the only
taker).

The reports (report function: producer; what recording observers get; what listeners get):

:func:`report_op`: ``dispatch.execute``
    recording observers whose ``tracked`` holds an input get ``records.append(eq)``; when none took the op, the
    listeners get ``op_ran(op, inputs, result)``.
:func:`report_read`: ``Variable._read``
    recording observers auto-watch the variable and record a read equation; with no recording observer active,
    listeners get ``variable_read(variable, tensor)``.
:func:`report_assign`: ``assign``, ``assign_add``, ``assign_sub``, slice assignment, the scatters
    listeners only, ``variable_assigned(variable, method, value)`` (``value``: a tensor, another value, or
    ``None``). Tapes and forward accumulators never record assignments, which are not differentiable (as in TF).
:func:`report_custom_gradient`: ``tf.custom_gradient``
    recording observers get the call's record (identities, for one with ``tangents``); listeners get
    ``custom_gradient_called(op, inputs, outputs)``.
:func:`report_constant`: ``tf.constant``, ``tf.convert_to_tensor`` of Python or NumPy values, also inside rules
    listeners only, ``constant_made(tensor)``.
:func:`report_leave`: ``.numpy()``, ``np.asarray``, ``bool()``, ``float()``, ``int()``, ``tf.constant(tensor)``
    listeners only, ``value_left(value, how)``.
:func:`report_variable`: ``tf.Variable(...)``
    listeners only, ``variable_created(variable)``.
:func:`report_gradients`: ``GradientTape.gradient``
    listeners only, ``gradients_returned(tape, targets, sources, grads)`` (flat lists, ``grads`` as returned:
    tensors, ``IndexedSlices`` or ``None``), told while the tape still holds its recording.

Hot paths inline their report, with a comment naming it: ``execute`` (ops of one or two inputs and one output),
``Variable._read``, ``assign_sub`` and ``Variable._update``, and ``tensor.py``, which sits below this module
(``equation.py``, which this module imports, imports tensors).
"""

from __future__ import annotations

import sys

from . import primitives as P
from .dtypes import TRAINABLE_NUMS
from .equation import READ, store
from .state import EVERYWHERE, HEARINGS, LOCK, PACKAGE_DIR, STATE, user_frame

__all__ = ["listen", "unlisten", "listeners", "suspend", "resume", "report_op", "report_read",
           "report_assign", "report_custom_gradient", "report_constant", "report_leave", "report_variable",
           "report_gradients"]

_EMPTY = {}
_getframe = sys._getframe


# ------------------------------------------------------------------------------------------ listening


def listen(listener, everywhere=False):
    """Make ``listener`` hear this thread's reports, or every thread's (and new threads') with ``everywhere``.

    A listener already listening keeps its place.
    """
    with LOCK:
        if everywhere:
            if listener not in EVERYWHERE:
                EVERYWHERE.append(listener)
            hearings = list(HEARINGS)
        else:
            hearings = [STATE.tapes.listeners]
        for hearing in hearings:
            if listener not in hearing.members:
                hearing.update(hearing.members + (listener,))


def unlisten(listener, everywhere=False):
    """Stop ``listener`` hearing this thread's reports, or every thread's with ``everywhere`` (a no-op where it
    does not listen)."""
    with LOCK:
        if everywhere:
            if listener in EVERYWHERE:
                EVERYWHERE.remove(listener)
            hearings = list(HEARINGS)
        else:
            hearings = [STATE.tapes.listeners]
        for hearing in hearings:
            if listener in hearing.members:
                hearing.update(tuple([m for m in hearing.members if m is not listener]))


def listeners():
    """This thread's listeners, in the order they started listening."""
    return STATE.tapes.listeners.members


def suspend():
    """Stop this thread's listeners of user code only hearing, for code that is no user's (a backward pass, an
    optimizer's update); returns the token :func:`resume` takes (``None`` when they do not hear already).

    ``GradientTape.gradient`` inlines the pair. The swap needs no lock: it only changes which of this thread's two
    :class:`~tapeflow._core.state.Hearing` objects ``STATE.tapes.hear`` names, and a change of listeners updates
    both.
    """
    hook = STATE.tapes
    hear = hook.hear
    quiet = hear.quiet
    if quiet is None:
        return None
    hook.hear = quiet
    return hear


def resume(token):
    """Undo :func:`suspend`."""
    if token is not None:
        STATE.tapes.hear = token


# ------------------------------------------------------------------------------------------ reports


def report_op(op, inputs, result, attrs=_EMPTY):
    """``op`` ran on ``inputs`` (a tuple of tensors) with ``attrs`` and gave ``result`` (a tensor, or a tuple of them
    for a multi-output op): record it on every recording observer that tracks an input, else tell the listeners.

    ``execute`` calls it for ops of no input, of three or more, or of several outputs and inlines it for the others. The
    user's line is looked for from the frame of ``execute``'s caller's caller on (``execute`` <- API function <-
    user), as in ``execute``.
    """
    stored = None
    tapes = STATE.tapes
    for rec in tapes:
        tracked = rec.tracked
        for t in inputs:
            if t._id in tracked:
                break
        else:
            continue
        if stored is None:
            try:
                f = _getframe(3)
            except ValueError:  # a shallow stack
                f = None
            if f is not None and not f.f_code.co_filename.startswith(PACKAGE_DIR):
                where = (f.f_code, f.f_lasti)
            else:
                where = user_frame(4)
            stored = store(op, inputs, result, attrs, where)
        rec.records.append(stored)  # built above: no allocation between the load and the append (recording.py)
        for o in result if op.multi_output else (result,):
            if o._value.dtype.num in TRAINABLE_NUMS:
                tracked.add(o._id)
    if stored is None:
        note = tapes.hear.op_ran
        if note is not None:
            note(op, inputs, result)


def report_read(variable, tensor):
    """``tensor`` was read from ``variable`` (``Variable._read`` inlines this).

    Each recording observer that asks for it (``watch_accessed``) auto-watches a trainable variable at its first
    read, and one that tracks the variable records the read as an identity from the variable's id (``READ``).
    Reads keep no line (``where`` is None): the op that uses the value records the user's line. With no recording
    observer active, the listeners are told.
    """
    tapes = STATE.tapes
    if tapes:
        vid = variable._id
        value = tensor._value
        for rec in tapes:
            tracked = rec.tracked
            if vid not in tracked:
                if not rec.watch_accessed or not variable._trainable or vid in rec.variables:
                    continue
                rec.watch_variable(variable)
                if vid not in tracked:  # an integer variable: watched, but carries no gradient
                    continue
            eq = (READ, None, None, None, tensor._id, value, vid, value)  # built before ``records`` is loaded
            rec.records.append(eq)
            tracked.add(tensor._id)
    else:
        note = tapes.hear.variable_read
        if note is not None:
            note(variable, tensor)


def report_assign(variable, method, value):
    """``variable.<method>(value)`` is changing the variable (``value``: what is assigned, a tensor or not, or
    ``None``); ``method`` is ``"assign"``, ``"assign_add"``, ``"assign_sub"``, ``"slice_assign"`` or a scatter's name.

    Reported after the assignment is checked and before the variable changes. Only listeners are told: assignments
    are not differentiable, and no tape records them (as in TensorFlow).
    """
    note = STATE.tapes.hear.variable_assigned
    if note is not None:
        note(variable, method, value)


def report_custom_gradient(op, inputs, outputs, attrs, results=()):
    """A custom-gradient function was called: ``op`` (its record's op) on ``inputs`` gave the fresh tensors
    ``outputs`` (a list), from what the function returned, ``results``.

    Each recording observer that tracks an input gets the call's record, with the user's line; an observer with
    ``tangents`` for ``results`` (a forward accumulator) gets identities from them to the outputs instead, since
    forward mode differentiates the function's own ops and never uses its ``grad_fn``. Then the listeners are told.
    """
    if not outputs:
        return
    record = None
    tapes = STATE.tapes
    for rec in tapes:
        tracked = rec.tracked
        for t in inputs:
            if t._id in tracked:
                break
        else:
            continue
        tangents = getattr(rec, "tangents", None)
        if tangents is not None and any(getattr(r, "_id", None) in tangents for r in results):
            for r, o in zip(results, outputs):
                if getattr(r, "_id", None) in tangents:
                    rec.records.append(store(P.IDENTITY, (r,), o, _EMPTY, None))
                    tracked.add(o._id)
            continue
        if record is None:
            out = tuple(outputs) if op.multi_output else outputs[0]
            record = store(op, inputs, out, attrs, user_frame(2))
        rec.records.append(record)
        for o in outputs:
            if o._value.dtype.num in TRAINABLE_NUMS:
                tracked.add(o._id)
    note = tapes.hear.custom_gradient_called
    if note is not None:
        note(op, inputs, tuple(outputs))


def report_constant(tensor):
    """``tensor`` was made from a Python or NumPy value (``tensor.py`` inlines this)."""
    note = STATE.tapes.hear.constant_made
    if note is not None:
        note(tensor)


def report_leave(value, how):
    """The value of ``value`` (a tensor or variable) left for NumPy or Python; ``how`` says how (``".numpy()"``...)."""
    note = STATE.tapes.hear.value_left
    if note is not None:
        note(value, how)


def report_variable(variable):
    """``variable`` was created."""
    note = STATE.tapes.hear.variable_created
    if note is not None:
        note(variable)


def report_gradients(tape, targets, sources, grads):
    """``tape.gradient`` is returning ``grads`` for the flat ``targets`` and ``sources`` (``tape.py`` inlines this)."""
    note = STATE.tapes.hear.gradients_returned
    if note is not None:
        note(tape, targets, sources, grads)

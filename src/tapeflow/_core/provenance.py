"""Where values came from when no tape recorded them: a bounded, array-free log for ``tapeflow.debug.explain``.

A tape records only what it watches, so on its own it cannot say why a path is missing: the op that broke it ran
before the ``with`` block, or the value went through ``.numpy()``, or a variable was assigned instead of used.
This module keeps the little history needed to answer that:

* ``TABLE``, a ring of ``SIZE`` slots indexed by ``tensor id & MASK`` (ids come from one counter, so the slot of
  an id is reused only ``SIZE`` ids later): ``(id, op, input ids, where)`` for the output of every op no tape
  recorded (:func:`note_op`; a recording tape's own ops are in its skeleton); ``(id, READ, (variable id,), None)``
  for variable reads outside tapes; ``(id, GRADIENT, (), None)`` for what ``gradient()`` returned;
  ``(id, CONST, (), where)`` for tensors made from Python or NumPy values by ``tf.constant`` and
  ``tf.convert_to_tensor``; ``(id, VARIABLE, (), where, name)`` for variables.
* ``EVENTS``, a ring of ``EVENT_SIZE`` slots: ``(stamp, kind, subject id, value id, where, detail)`` for
  assignments (``ASSIGN``: variable id, id of the assigned tensor or None, method name) and values leaving for
  NumPy or Python (``LEAVE``: tensor or variable id, None, how). ``stamp`` is an id taken from the same counter
  as tensor ids, so events and tensors are ordered in time.

Both rings hold integers, op objects, strings and ``(code, lasti)`` pairs only: no arrays and no references to
tensors, so memory stays flat however long a training loop runs. Old entries are overwritten; an explanation
that needs them says less (``unused`` instead of ``outside_tape``, say) but is never wrong about what it names.

The log is a listener of the hook (``observers.py``): :data:`LOG`, whose reports are the ``note_*`` functions below,
listens on every thread from import on. Nothing calls it directly. It hears user code only (``user_code_only``), so
it does not hear the ops of a backward pass ``GradientTape.gradient`` runs on its thread. Capture costs a tuple and a
store per unrecorded op, plus a walk up the stack for its line; ``tapeflow.debug.provenance(False)``
(:func:`set_enabled`) stops the log listening, on every thread.
"""

from __future__ import annotations

from . import observers
from .state import EVERYWHERE, next_id, user_frame

__all__ = ["LOG", "note_op", "note_gradients", "note_read",
           "note_const", "note_variable", "note_assign", "note_leave", "set_enabled", "enabled",
           "producer", "events", "clear", "resize", "SIZE", "EVENT_SIZE"]

# Markers in the op column of TABLE for entries that are not ops (compared by identity).
READ = "read"
CONST = "constant"
VARIABLE = "variable"
GRADIENT = "gradient"
# Event kinds.
ASSIGN = "assign"
LEAVE = "leave"

SIZE = 1 << 12
MASK = SIZE - 1
EVENT_SIZE = 1 << 10
EVENT_MASK = EVENT_SIZE - 1

TABLE = [None] * SIZE
EVENTS = [None] * EVENT_SIZE
_event_index = [0]


def note_op(op, inputs, result, where=None):
    """Log that ``op`` ran on ``inputs`` (tensors) and gave ``result`` (a tensor, or a tuple for multi-output ops).

    The op report (``op_ran``) for ops no tape recorded (recorded ones are in the tapes' skeletons). The user's line
    costs a walk up the stack, paid unless an input derives from a gradient and none is a variable read (``lr * g``,
    an optimizer's update: not a path anyone asks about).
    """
    n = len(inputs)
    if n == 2:
        ids = (inputs[0]._id, inputs[1]._id)
    elif n == 1:
        ids = (inputs[0]._id,)
    else:
        ids = tuple([t._id for t in inputs])
    if where is None:
        derived = False
        for i in ids:
            e = TABLE[i & MASK]
            if e is not None and e[3] is None and e[0] == i:
                if e[1] is READ:  # a variable takes part (``w = w - lr * g``, the classic mistake): keep the line
                    derived = False
                    break
                derived = True  # derived from a gradient
        if not derived:
            where = user_frame(3)
    if type(result) is tuple:
        for o in result:
            i = o._id
            TABLE[i & MASK] = (i, op, ids, where)
    else:
        i = result._id
        TABLE[i & MASK] = (i, op, ids, where)


def note_gradients(tape, targets, sources, grads):
    """Mark what ``gradient()`` returned: ops on these values skip the walk for a line (see :func:`note_op`)."""
    for g in grads:
        if g is not None:
            try:
                i = g._id
            except AttributeError:  # an IndexedSlices
                continue
            TABLE[i & MASK] = (i, GRADIENT, (), None)


def note_read(variable, tensor):
    """A read of ``variable`` outside tapes gave ``tensor`` (the op that uses it carries the user's line)."""
    i = tensor._id
    TABLE[i & MASK] = (i, READ, (variable._id,), None)


def note_const(tensor):
    """``tensor`` was made from a Python or NumPy value (``tf.constant``, ``tf.convert_to_tensor``)."""
    i = tensor._id
    TABLE[i & MASK] = (i, CONST, (), user_frame(3))


def note_variable(variable):
    """A variable was created: its line (for an integer or non-trainable variable) and its name."""
    i = variable._id
    TABLE[i & MASK] = (i, VARIABLE, (), user_frame(3), variable._name)


def _event(kind, subject, value, detail, where):
    k = _event_index[0]
    _event_index[0] = k + 1
    EVENTS[k & EVENT_MASK] = (next_id(), kind, subject, value, where, detail)


def note_assign(variable, method, value):
    """``variable.<method>(value)`` ran: the variable's value now derives from ``value`` (a tensor or not).

    Not logged when ``value`` derives from a gradient (an optimizer's ``v.assign_sub(lr * g)``): such a value is
    never on a path from a source to a target, and a training loop then adds no event per step.
    """
    vid = getattr(value, "_id", None)
    if vid is None:
        return
    e = TABLE[vid & MASK]
    if e is not None and e[0] == vid and e[3] is None and e[1] is not READ:
        return
    _event(ASSIGN, variable._id, vid, method, user_frame(3))


def note_leave(value, how):
    """The value of the tensor or variable ``value`` left for NumPy or Python (``how``: ``".numpy()"``...)."""
    _event(LEAVE, value._id, None, how, user_frame(3))


class _Log:
    """The log as a listener of the hook (``observers.py``): each report it takes is one of the ``note_*``
    functions, which producers then call directly (static methods: no bound method in between)."""

    __slots__ = ()

    user_code_only = True  # a backward pass's ops are no user's code
    op_ran = staticmethod(note_op)
    variable_read = staticmethod(note_read)
    variable_assigned = staticmethod(note_assign)
    constant_made = staticmethod(note_const)
    value_left = staticmethod(note_leave)
    variable_created = staticmethod(note_variable)
    gradients_returned = staticmethod(note_gradients)

    def __repr__(self):
        return "<provenance log>"


#: The provenance log's listener; it listens on every thread while capture is enabled.
LOG = _Log()
observers.listen(LOG, everywhere=True)


# ------------------------------------------------------------------------------------------ switches


def set_enabled(flag):
    """Turn capture on or off on every thread (the log starts or stops listening); returns the previous setting."""
    previous = enabled()
    if flag:
        observers.listen(LOG, everywhere=True)
    else:
        observers.unlisten(LOG, everywhere=True)
    return previous


def enabled():
    """Whether capture is enabled: the log listens on every thread (it does not hear a backward pass even then)."""
    return LOG in EVERYWHERE



# ------------------------------------------------------------------------------------------ queries


def producer(tensor_id):
    """The TABLE entry ``(id, op, input ids, where)`` for ``tensor_id``, or ``None`` (never logged, or overwritten)."""
    entry = TABLE[tensor_id & MASK]
    if entry is not None and entry[0] == tensor_id:
        return entry
    return None


def events():
    """The logged events still in the ring, oldest first."""
    k = _event_index[0]
    if k <= EVENT_SIZE:
        return [e for e in EVENTS[:k] if e is not None]
    start = k & EVENT_MASK
    return [e for e in EVENTS[start:] + EVENTS[:start] if e is not None]


def clear():
    """Forget everything logged (tests use it to start from a clean table)."""
    TABLE[:] = [None] * SIZE
    EVENTS[:] = [None] * EVENT_SIZE
    _event_index[0] = 0


def resize(size=1 << 12, event_size=1 << 10):
    """Give the rings new sizes (powers of two) and clear them; returns the previous ``(size, event_size)``.

    The defaults keep the last 4096 tensor ids (each slot costs about 150 bytes once used: at most 0.6 MB)
    and 1024 events; a bigger table keeps history for longer forward passes.
    """
    global SIZE, MASK, EVENT_SIZE, EVENT_MASK
    if size & (size - 1) or event_size & (event_size - 1) or size < 2 or event_size < 2:
        raise ValueError(f"ring sizes must be powers of two, got {size} and {event_size}")
    previous = SIZE, EVENT_SIZE
    SIZE, MASK, EVENT_SIZE, EVENT_MASK = size, size - 1, event_size, event_size - 1
    TABLE[:] = [None] * SIZE
    EVENTS[:] = [None] * EVENT_SIZE
    _event_index[0] = 0
    return previous

"""Per-thread execution state: the hook every report goes through, and where in user code an op ran.

``STATE.tapes`` is the interception point (``observers.py`` documents its protocol): one :class:`Observers` per
thread, kept for the thread's life. It is

* a list of the *recording observers*, innermost last (named for the first of them): tapes, forward accumulators,
  the numerics check and the variable watcher of a custom-gradient call. Each op with an input one of them tracks is
  handed to it. Tapes are thread-local, as in TensorFlow: an op records only on the observers its own thread has
  active. While the list is not empty, a backward pass runs its rules as ops, so that they are recorded and checked.
  Code that narrows it for a while changes it in place and restores it, never replaces it;
* with ``listeners``: this thread's :class:`Hearing`, the *listeners* (passive observers such as the provenance log)
  and, for each report, who takes it. Listeners never make a backward pass run its rules as ops;
* and ``hear``: the :class:`Hearing` producers read, ``listeners`` or its ``quiet`` form while
  ``GradientTape.gradient`` runs a backward pass (listeners of user code only, such as the provenance log, do not
  hear it).

One object for both kinds matters for speed: a ``threading.local`` attribute costs several times a module
attribute, so ``execute`` and ``Variable._read`` read ``STATE.tapes`` once and, with no recording observer active,
find the listeners on the same object (``tapes.hear.op_ran``).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import weakref

__all__ = ["STATE", "REPORTS", "Hearing", "Observers", "next_id", "user_frame", "line_of", "quiet", "loud",
           "PACKAGE_DIR"]

#: The reports a listener may take, each by the name of the method that takes it (``observers.py``).
REPORTS = ("op_ran", "variable_read", "variable_assigned", "custom_gradient_called", "constant_made", "value_left",
           "variable_created", "gradients_returned")


def _teller(takers):
    """One callable that tells every function in ``takers`` (``None`` for none, the function itself for one)."""
    if not takers:
        return None
    if len(takers) == 1:
        return takers[0]  # the usual case (the provenance log alone): producers call it directly
    takers = tuple(takers)

    def tell(*args):
        for take in takers:
            take(*args)

    return tell


class Hearing:
    """Who hears each report on one thread: ``members`` (the listeners, in the order they started listening) and,
    for each name in :data:`REPORTS`, ``None`` when no member takes that report, else the callable that tells every
    member that does. A producer reads it (``STATE.tapes.hear.op_ran``) and calls it when it is not ``None``.

    ``quiet`` is the same for the members that also hear a backward pass (those without a true ``user_code_only``
    attribute); it is ``None`` on a quiet one. Both objects keep their identity for the thread's life: a change of
    listeners rewrites their attributes in place, so swapping ``STATE.tapes.hear`` between them needs no lock.
    """

    __slots__ = REPORTS + ("members", "quiet", "__weakref__")

    def __init__(self, members, loud=True):
        self.quiet = Hearing((), loud=False) if loud else None
        self.update(members)

    def update(self, members):
        """Make ``members`` (a tuple of listeners) the ones that hear (``observers.listen`` calls it under ``LOCK``)."""
        self.members = members
        for name in REPORTS:
            setattr(self, name, _teller([getattr(m, name) for m in members if getattr(m, name, None) is not None]))
        if self.quiet is not None:
            self.quiet.update(tuple([m for m in members if not getattr(m, "user_code_only", False)]))


#: Guards changes of listeners: a change made for every thread reaches threads being set up at the same moment.
LOCK = threading.Lock()
#: The listeners every thread has (``observers.listen(..., everywhere=True)``); a new thread starts with them.
EVERYWHERE = []
#: Every live thread's ``STATE.tapes.listeners`` (weakly: a thread's state goes with the thread).
HEARINGS = weakref.WeakSet()


class Observers(list):
    """One thread's hook: its recording observers (the list, innermost last), ``listeners`` (its :class:`Hearing`)
    and ``hear`` (the :class:`Hearing` producers read: ``listeners``, or ``listeners.quiet``). See the module
    docstring."""

    __slots__ = ("listeners", "hear")


class _ThreadState(threading.local):
    """``tapes``: this thread's :class:`Observers`; ``tracer``: its trace in progress (``tf.function``) or ``None``."""

    def __init__(self):
        with LOCK:
            hearing = Hearing(tuple(EVERYWHERE))
            HEARINGS.add(hearing)
        tapes = Observers()
        tapes.listeners = tapes.hear = hearing
        self.tapes = tapes
        self.tracer = None  # the trace in progress on this thread (``tapeflow.compiler``), if any


STATE = _ThreadState()

# Every tensor and variable gets a unique integer identity. ``id()`` would be reused after garbage collection,
# which could make a tape believe a new tensor was watched.
next_id = itertools.count(1).__next__

try:
    # NumPy 2 keeps its floating-point error state in a context variable; setting it directly costs ~0.1 us
    # where ``np.errstate`` costs ~2 us, which matters on the per-op path.
    from numpy._core._multiarray_umath import _make_extobj
    from numpy._core._ufunc_config import _extobj_contextvar

    _IGNORE = _make_extobj(all="ignore")

    def quiet():
        """Silence NumPy's floating-point warnings (TF returns NaN and inf silently); returns a token.

        ``None`` when they are already silenced (an op inside the backward pass), which costs one read.
        """
        if _extobj_contextvar.get() is _IGNORE:
            return None
        return _extobj_contextvar.set(_IGNORE)

    def loud(token):
        """Undo :func:`quiet`."""
        if token is not None:
            _extobj_contextvar.reset(token)

    # The same, unwrapped, for ``execute``'s per-op path (two Python calls fewer: half the cost):
    # ``token = SILENCE(SILENT) if ERRSTATE() is not SILENT else None`` ... ``RESTORE(token)``.
    ERRSTATE, SILENCE, RESTORE, SILENT = (_extobj_contextvar.get, _extobj_contextvar.set, _extobj_contextvar.reset,
                                          _IGNORE)

except ImportError:  # pragma: no cover - other NumPy versions: the public, slower context manager
    import numpy as _np

    def quiet():
        cm = _np.errstate(all="ignore")
        cm.__enter__()
        return cm

    def loud(token):
        token.__exit__(None, None, None)

    SILENT = object()

    def ERRSTATE():  # noqa: N802 - the same names as the NumPy 2 branch
        return None

    def SILENCE(_):  # noqa: N802
        return quiet()

    RESTORE = loud


_getframe = sys._getframe
# The prefix of every tapeflow code object's file name. Taken from ``__file__`` as imported, not normalised: code
# objects carry the path they were imported by (``.../benchmarks/../src/tapeflow/...`` when a script put that
# on ``sys.path``), and all of the package's modules come in by the same path.
PACKAGE_DIR = os.path.dirname(os.path.dirname(__file__)) + os.sep


def user_frame(depth=3):
    """``(code, lasti)`` of the innermost frame outside tapeflow: the user's line that ran the current op.

    The line number itself is derived later (:func:`line_of`): reading ``f_lineno`` scans the line table, while
    ``f_lasti`` is a plain integer, so provenance stays cheap on the recording path.
    """
    # ``depth`` is where the walk starts. Every public path has at least one tapeflow frame between the caller
    # and ``execute``, so recording starts at 3 (user_frame <- execute <- API function <- caller).
    try:
        f = _getframe(depth)
    except ValueError:  # a stack shallower than ``depth``
        return None
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIR):
        f = f.f_back
    if f is None:
        return None
    return (f.f_code, f.f_lasti)


def line_of(where):
    """``"file:line"`` for a provenance pair from :func:`user_frame` (``None`` stays ``None``)."""
    if where is None:
        return None
    code, lasti = where
    line = code.co_firstlineno
    for start, end, lineno in code.co_lines():
        if start <= lasti < end and lineno is not None:
            line = lineno
            break
    return f"{code.co_filename}:{line}"

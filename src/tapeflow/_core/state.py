"""Per-thread execution state: the stack of recording tapes, and where in user code an op ran.

Tapes are thread-local, as in TensorFlow: an op records only on the tapes its own thread has active.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading

__all__ = ["STATE", "next_id", "user_frame", "line_of", "quiet", "loud", "PACKAGE_DIR"]


class _ThreadState(threading.local):
    """``tapes``: the recordings this thread is writing, innermost last."""

    def __init__(self):
        self.tapes = []


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

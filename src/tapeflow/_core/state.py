"""Per-thread execution state: the stack of recording tapes, and where in user code an op ran.

Tapes are thread-local, as in TensorFlow: an op records only on the tapes its own thread has active.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading

__all__ = ["STATE", "next_id", "user_frame", "line_of"]


class _ThreadState(threading.local):
    """``tapes``: the recordings this thread is writing, innermost last; ``tracer``: an active graph tracer."""

    def __init__(self):
        self.tapes = []
        self.tracer = None


STATE = _ThreadState()

# Every tensor and variable gets a unique integer identity. ``id()`` would be reused after garbage collection,
# which could make a tape believe a new tensor was watched.
next_id = itertools.count(1).__next__

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_frame():
    """``(code, lasti)`` of the innermost frame outside tapeflow: the user's line that ran the current op.

    The line number itself is derived later (:func:`line_of`): reading ``f_lineno`` scans the line table, while
    ``f_lasti`` is a plain integer, so provenance stays cheap on the recording path.
    """
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
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

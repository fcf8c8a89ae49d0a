"""Errors raised while a function is traced, re-raised as TensorFlow 2.21 raises them: the same class, with the
user's frames in front of the message (``in user code:``)."""

from __future__ import annotations

import linecache

from .._core import errors
from .._core.state import PACKAGE_DIR, line_of

__all__ = ["wrap"]


def _frames(exc, fn):
    """The user's frames of ``exc``'s traceback, from the traced function's own frame on."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    frames, started = [], code is None
    tb = exc.__traceback__
    while tb is not None:
        f = tb.tb_frame
        if f.f_code is code:
            started = True
        if started and not f.f_code.co_filename.startswith(PACKAGE_DIR):
            frames.append((f.f_code.co_filename, tb.tb_lineno, f.f_code.co_name))
        tb = tb.tb_next
    return frames


def _text(frames, exc):
    lines = ["in user code:", ""]
    for filename, lineno, name in frames:
        lines.append(f'    File "{filename}", line {lineno}, in {name}  *')
        source = linecache.getline(filename, lineno).strip()
        if source:
            lines.append(f"        {source}")
        lines.append("")
    message = exc.message if isinstance(exc, errors.OpError) else str(exc)
    message = message.replace("\n", "\n    ")  # every line of the message indented under the frames
    lines.append(f"    {type(exc).__name__}: {message}")
    return "\n".join(lines) + "\n"


def wrap(exc, fn, where=None):
    """``exc`` (raised while ``fn`` was traced) as TF re-raises it; ``where`` is ``(code, lasti)`` of the user's
    line when the error was made up after the fact (a variable created on a later trace)."""
    frames = _frames(exc, fn)
    if where is not None:
        code, _lasti = where
        text = line_of(where)
        lineno = int(text.rsplit(":", 1)[1]) if text else code.co_firstlineno
        frames = [(code.co_filename, lineno, code.co_name)]
    if not frames:
        return exc
    text = _text(frames, exc)
    try:
        if isinstance(exc, errors.OpError):
            new = type(exc)(exc.node_def, exc.op, text, exc.error_code)
        else:
            new = type(exc)(text)
    except Exception:  # noqa: BLE001 - a class whose constructor takes other arguments keeps its own message
        return exc
    new.__traceback__ = exc.__traceback__
    return new

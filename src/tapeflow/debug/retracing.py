"""``explain_retracing(fn)``: for each trace of a ``tf.function``, what about the call was new, and what to do.

TensorFlow says that a function retraced, and how often (its retracing warning). This says why: for each trace
after the first, the argument that differed from the nearest earlier trace and how (a shape, a dtype, a Python
value, a structure, another object), with the remedy that fits (``reduce_retracing``, an ``input_signature``,
passing a tensor instead of a Python number ...).
"""

from __future__ import annotations

__all__ = ["explain_retracing", "RetracingReport", "Retrace"]


class Retrace:
    """One trace: ``index`` (0 for the first), ``changes`` (a list of ``(argument, what changed, remedy)``)."""

    __slots__ = ("index", "changes")

    def __init__(self, index, changes):
        self.index, self.changes = index, changes

    def __str__(self):
        if self.index == 0:
            return "trace 1: the first call"
        lines = [f"trace {self.index + 1}:"]
        if not self.changes:
            lines.append("  the same arguments as an earlier trace: the first call created variables, so it was traced "
                         "again without creating them (TensorFlow does the same)")
        for arg, what, remedy in self.changes:
            lines.append(f"  {arg}: {what}. {remedy}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<Retrace {self.index + 1}: {len(self.changes)} change(s)>"


class RetracingReport:
    """What :func:`explain_retracing` returns: ``traces`` (one :class:`Retrace` each); ``str()`` reads as text."""

    def __init__(self, name, traces):
        self.name, self.traces = name, traces

    def __str__(self):
        head = f"{self.name} was traced {len(self.traces)} time{'s' if len(self.traces) != 1 else ''}"
        return "\n".join([head] + [str(t) for t in self.traces])

    def __repr__(self):
        return f"<RetracingReport {self.name}: {len(self.traces)} traces>"


def explain_retracing(fn):
    """Why each trace of ``fn`` (a ``tf.function``, or one of its methods bound to an instance) happened.

    Returns:
        A :class:`RetracingReport`: for every trace after the first, which arguments differed from the most similar
        earlier trace, how, and what would avoid the retrace.

    Raises:
        TypeError: when ``fn`` is not a ``tf.function``.
    """
    history = getattr(fn, "trace_history", None)
    if history is None:
        raise TypeError(f"explain_retracing() takes a tf.function, not {type(fn).__name__}.")
    traces = []
    for i, (key, _general, names) in enumerate(history):
        if i == 0:
            traces.append(Retrace(0, []))
            continue
        best = None
        for earlier, _g, _n in history[:i]:
            changes = []
            _diff(earlier, key, "", names, changes, top=True)
            if best is None or len(changes) < len(best):
                best = changes
        traces.append(Retrace(i, best))
    return RetracingReport(getattr(fn, "__name__", "function"), traces)


_SHAPE = ("A tensor of another shape traces again. Pass reduce_retracing=True to tf.function, or an input_signature "
          "with None for the dimensions that vary")
_DTYPE = "Dtypes never generalise: cast to one dtype before the call"
_VALUE = ("A Python value is part of the signature (each new value traces again): pass it as a tensor "
          "(tf.constant(...)) if it varies")
_STRUCTURE = "The structure is part of the signature: keep lists and dicts the same length and keys between calls"
_OBJECT = ("An object is keyed by itself (or its ==): another instance traces again; keep one object, or pass the "
           "tensors it holds")


def _label(names, index):
    return names[index] if index < len(names) else f"argument {index}"


def _diff(old, new, path, names, out, top=False):
    from tapeflow.compiler import signature as s

    if top:  # (STRUCT, "call", (args, kwargs))
        args_old, kwargs_old = old[2]
        args_new, kwargs_new = new[2]
        for i, (a, b) in enumerate(zip(args_old[2], args_new[2])):
            _diff(a, b, _label(names, i), names, out)
        if len(args_old[2]) != len(args_new[2]):
            out.append(("positional arguments", f"{len(args_old[2])} before, {len(args_new[2])} now", _STRUCTURE))
        if kwargs_old[1] != kwargs_new[1]:
            out.append(("keyword arguments", f"{list(kwargs_old[1][1])} before, {list(kwargs_new[1][1])} now",
                        _STRUCTURE))
        else:
            for name, a, b in zip(kwargs_new[1][1], kwargs_old[2], kwargs_new[2]):
                _diff(a, b, str(name), names, out)
        return
    if old == new:
        return
    if old[0] is not new[0]:
        out.append((path, f"{_kind(old)} before, {_kind(new)} now", _STRUCTURE))
    elif old[0] in (s.TENSOR, s.VARIABLE):
        if old[2] != new[2]:
            out.append((path, f"dtype {old[2]} before, {new[2]} now", _DTYPE))
        else:
            out.append((path, f"shape {_shape(old[1])} before, {_shape(new[1])} now", _SHAPE))
    elif old[0] is s.STRUCT:
        if old[1] != new[1] or len(old[2]) != len(new[2]):
            out.append((path, f"{_kind(old)} before, {_kind(new)} now", _STRUCTURE))
        else:
            keys = old[1][1] if type(old[1]) is tuple else range(len(old[2]))
            for k, a, b in zip(keys, old[2], new[2]):
                _diff(a, b, f"{path}[{k!r}]", names, out)
    elif old[0] is s.LITERAL:
        out.append((path, f"Python value {old[1]!r} before, {new[1]!r} now", _VALUE))
    else:
        out.append((path, "another object than before", _OBJECT))


def _shape(shape):
    return "(unknown rank)" if shape is None else "(" + ", ".join("None" if d is None else str(d) for d in shape) + (
        ",)" if len(shape) == 1 else ")")


def _kind(key):
    from tapeflow.compiler import signature as s

    if key[0] is s.TENSOR:
        return f"a tensor {_shape(key[1])} {key[2]}"
    if key[0] is s.VARIABLE:
        return "a variable"
    if key[0] is s.LITERAL:
        return f"the Python value {key[1]!r}"
    if key[0] is s.STRUCT:
        kind = key[1][0] if type(key[1]) is tuple else key[1]
        return f"a {getattr(kind, '__name__', kind)} of {len(key[2])}"
    return "an object"

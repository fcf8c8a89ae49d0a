"""What one tape has recorded: its equations in program order and the ids of the tensors it tracks.

Program order is already a topological order, so the backward pass is one reversed scan over :meth:`Recording.stored`.

``execute`` (and variable reads, and custom-gradient calls) append equations in their stored form
(``equation.py``) to ``records``. The garbage collector itself has the list sealed: when a collection of the older
generations starts (the ones that would promote live equations or visit a long list), this thread's active
recordings move their listed equations into one tuple (:meth:`Recording.seal`). A tuple of stored equations holds
nothing the collector tracks, so it is untracked too, and a full collection visits a short list of tuples instead
of one entry per recorded op. Sealing also freezes each equation's attributes dict into ``(name, value)`` pairs,
since a dict keeps its equation tracked and would have it promoted; :meth:`Recording.stored` gives them back as
dicts. Driven by collections, this costs the per-op path nothing, and a program with the collector off never seals
(nothing scans its tapes either).

Because a seal can happen at any allocation, ``records`` is replaced by a new list rather than emptied: a scan
holding the old list finishes on it. An appender must build its equation *before* it loads ``records`` (``eq =
(...); rec.records.append(eq)``), so that no allocation falls between the load and the append.
"""

from __future__ import annotations

import gc
from itertools import chain
from math import copysign

from .dtypes import TRAINABLE_NUMS
from .equation import named
from .state import STATE

__all__ = ["Recording"]


class Recording:
    """What one tape has recorded: the equations in program order and the ``tracked`` tensor ids.

    ``tracked`` holds only ids of floating or complex values (watched, or produced by a recorded op): integer
    values never start a recording, so leaving them out makes "does this op record?" one set lookup per input.
    Also keeps the watched variables and whether reads auto-watch variables.

    ``records`` is the list recorders append stored equations to, ``sealed`` the tuples earlier ones were sealed
    into; :meth:`stored` gives all of them in order, :meth:`equations` the same as named :class:`Equation`\\ s.
    """

    __slots__ = ("records", "sealed", "tracked", "roots", "variables", "watch_accessed", "__weakref__")

    def __init__(self, watch_accessed_variables=True):
        self.records = []
        self.sealed = ()  # grows by a tuple per seal; empty costs no allocation on a short tape
        self.tracked = set()
        self.roots = set()  # the watched ids: everything tracked descends from these
        self.variables = {}
        self.watch_accessed = watch_accessed_variables

    def watch_variable(self, var):
        if var._value.dtype.num in TRAINABLE_NUMS:
            self.tracked.add(var._id)
            self.roots.add(var._id)
        self.variables[var._id] = var  # a second watch keeps the first one's place: dicts keep insertion order

    def watch(self, tensor):
        if tensor._value.dtype.num in TRAINABLE_NUMS:
            self.tracked.add(tensor._id)
            self.roots.add(tensor._id)

    def watched_variables(self):
        # TF lists them in creation order (variable ids are allocated at creation).
        return tuple(sorted(self.variables.values(), key=_creation_order))

    def seal(self):
        """Move the listed equations into one tuple (see the module docstring).

        Called from the collector's callback (:func:`_seal_on_collection`), where no collection can start: its own
        allocations cannot set off a second seal of the same list.
        """
        records = self.records
        # Attributes are frozen to (name, value) pairs on the way: a dict would keep its equation tracked. Everything
        # is built before anything is swapped, so a failed allocation loses no equation.
        sealed = (*self.sealed, tuple([e if e[1].__class__ is not dict else _frozen(e) for e in records]))
        self.records = []
        self.sealed = sealed

    def __len__(self):
        sealed, records = self.sealed, self.records  # taken together: a seal may come with any allocation
        return sum(map(len, sealed)) + len(records)

    def stored(self):
        """Every equation in program order, in its stored form (a list)."""
        sealed, records = self.sealed, self.records  # taken together: a seal may come with any allocation
        if not sealed:
            return records
        out = [e if e[1].__class__ is not tuple else _thawed(e) for e in chain.from_iterable(sealed)]
        out.extend(records)
        return out

    def equations(self):
        """Every equation in program order, named (a list of :class:`~tapeflow._core.equation.Equation`)."""
        return [named(e) for e in self.stored()]


#: A recording seals only once it lists this many equations: a training step's short tape is left alone.
SEAL_MIN = 256


def _seal_on_collection(phase, info):
    """``gc.callbacks`` entry: before a collection of generation 1 or 2, seal this thread's active recordings."""
    if phase == "start" and info["generation"]:
        # ``getattr``: a collection can start inside the very first access of this thread's state.
        tapes = getattr(STATE, "tapes", None)
        if tapes:
            for rec in tapes:
                if rec.__class__ is Recording and len(rec.records) >= SEAL_MIN:
                    rec.seal()


gc.callbacks.append(_seal_on_collection)


#: Frozen attributes shared by every equation that has them: a shared tuple is already untracked when the next
#: sealed equation refers to it, while a fresh one can keep that equation tracked for a collection or two (a
#: collection's scan reorders what it meets). Keyed by type as well as value, so that sharing never swaps ``1`` for
#: ``True`` or ``-0.0`` for ``0.0``; bounded; attributes that cannot be hashed are not shared.
_SHARED = {}
_SHARED_MAX = 4096


def _exact(value):
    """A key equal only for values of the same types and the same values (signs of zero included)."""
    kind = type(value)
    if kind is tuple:
        return (tuple, tuple([_exact(v) for v in value]))
    if kind is float:
        return (float, value, copysign(1.0, value))
    return (kind, value)


def _frozen(eq):
    """``eq`` with its attributes dict as a tuple of ``(name, value)`` pairs (see :meth:`Recording.seal`)."""
    pairs = tuple(eq[1].items())
    try:
        key = tuple([(k, _exact(v)) for k, v in pairs])
        shared = _SHARED.get(key)
    except TypeError:  # an unhashable value (a list): this equation keeps its own pairs
        return (eq[0], pairs) + eq[2:]
    if shared is None:
        shared = pairs
        if len(_SHARED) < _SHARED_MAX:
            _SHARED[key] = pairs
    return (eq[0], shared) + eq[2:]


def _thawed(eq):
    """``eq`` with its attributes a dict again, as rules take them."""
    return (eq[0], dict(eq[1])) + eq[2:]


def _creation_order(v):
    return v._id

"""What one tape has recorded: its equations in program order and the ids of the tensors it tracks.

Program order is already a topological order, so the backward pass is one reversed scan over :meth:`Recording.stored`.

``execute`` (and variable reads, and custom-gradient calls) append equations in their stored form
(``equation.py``) to ``records``. Every ``SEAL_AT`` of them (``observers.py``) the list is sealed into one tuple:
a tuple of stored equations holds nothing the cyclic garbage collector tracks, so it is untracked too, and a full
collection visits one list of a few dozen tuples instead of one entry per recorded op. Sealing also freezes each
equation's attributes dict into ``(name, value)`` pairs, since a dict would keep its equation tracked;
:meth:`Recording.stored` gives them back as dicts. Both costs fall on long tapes only.
"""

from __future__ import annotations

from itertools import chain

from .dtypes import TRAINABLE_NUMS
from .equation import named

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
        self.sealed = ()  # grows by a tuple per 4,096 equations; empty costs no allocation on a short tape
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
        """Move the listed equations into one tuple (see the module docstring)."""
        records = self.records
        # Attributes are frozen to (name, value) pairs on the way: a dict would keep its equation tracked.
        self.sealed = (*self.sealed, tuple([e if e[1].__class__ is not dict else _frozen(e) for e in records]))
        records.clear()

    def __len__(self):
        return sum(map(len, self.sealed)) + len(self.records)

    def stored(self):
        """Every equation in program order, in its stored form (a list)."""
        if not self.sealed:
            return self.records
        out = [e if e[1].__class__ is not tuple else _thawed(e) for e in chain.from_iterable(self.sealed)]
        out.extend(self.records)
        return out

    def equations(self):
        """Every equation in program order, named (a list of :class:`~tapeflow._core.equation.Equation`)."""
        return [named(e) for e in self.stored()]


def _frozen(eq):
    """``eq`` with its attributes dict as a tuple of ``(name, value)`` pairs (see :meth:`Recording.seal`)."""
    return (eq[0], tuple(eq[1].items())) + eq[2:]


def _thawed(eq):
    """``eq`` with its attributes a dict again, as rules take them."""
    return (eq[0], dict(eq[1])) + eq[2:]


def _creation_order(v):
    return v._id

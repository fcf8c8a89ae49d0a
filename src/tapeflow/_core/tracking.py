"""Delayed checkpoint restoration: objects attached after ``Checkpoint.restore`` get their saved values.

``restore`` *arms* every container of the restored object graph (a ``tf.train.Checkpoint``, a ``tf.Module``, a list
or dict held by one of them) under which the checkpoint still has unrestored values: :data:`ARMED` maps the
container to the restoration and its path in the checkpoint. Assigning to an armed container
(``ckpt.d = {'two': v}``, ``module.w = v``, ``ckpt.l.append(v)``, ``ckpt.d['k'] = v``) hands the new value to the
restoration, which restores what it holds and arms its containers in turn, as TensorFlow's deferred restoration
does.

A Keras layer or model found under a restore before it is built is armed too: when it is marked built (its
weights made), its weights get their values (see :func:`layer_built`).

Lists and dicts only report additions when they are :class:`TrackedList`/:class:`TrackedDict`; a plain list or
dict is replaced by one (a copy) when it is assigned to, or found under, an armed container: only then, so
programs that never restore keep their plain lists. With nothing armed, attribute assignment costs one check.

A restoration is any object with ``wants(path)`` (are values pending under this path?) and ``attach(value, path)``
(restore ``value`` at ``path`` and arm its containers); :mod:`.checkpoint` makes them.
"""

from __future__ import annotations

import weakref

__all__ = ["ARMED", "TrackedDict", "TrackedList", "arm", "armed", "assign", "child_path", "wrap", "layer_built"]

# id(container) -> (weak reference to it, restoration, path); an entry goes when its container is collected.
ARMED = {}


def child_path(path, name):
    return f"{path}/{name}" if path else str(name)


def arm(container, restoration, path):
    """Hand later additions to ``container`` (found at ``path``) to ``restoration``."""
    key = id(container)

    def forget(_ref, key=key):
        ARMED.pop(key, None)

    ARMED[key] = (weakref.ref(container, forget), restoration, path)


def armed(container):
    """``(restoration, path)`` if ``container`` is armed and its restoration still has values pending."""
    entry = ARMED.get(id(container))
    if entry is None or entry[0]() is not container:
        return None
    _, restoration, path = entry
    if not restoration.wants(path):
        ARMED.pop(id(container), None)  # everything under it was restored: nothing more to watch
        return None
    return restoration, path


def wrap(value):
    """``value`` with plain lists and dicts (at any depth) replaced by tracked copies; anything else unchanged."""
    if type(value) is list:
        return TrackedList(value)
    if type(value) is dict:
        return TrackedDict(value)
    return value


def assign(owner, name, value, store):
    """Store ``value`` as ``owner``'s child ``name`` with ``store(value)``; restore it if ``owner`` is armed.

    Returns what was stored (``value``, or a tracked copy of a plain list or dict)."""
    found = armed(owner)
    if found is None:
        store(value)
        return value
    restoration, path = found
    path = child_path(path, name)
    value = wrap(value)
    store(value)
    restoration.attach(value, path)
    return value


def layer_built(layer):
    """A Keras layer marked built: if it is armed, its weights take their saved values now (Keras layers make
    their weights when first called, which is often after ``restore``)."""
    found = armed(layer)
    if found is not None:
        found[0].attach(layer, found[1])


class TrackedList(list):
    """A list that hands items added to it to the restoration it is armed for (TF's ``ListWrapper``)."""

    __slots__ = ("__weakref__",)

    def __init__(self, items=()):
        super().__init__(wrap(v) for v in items)

    def _added(self, start):
        found = armed(self)
        if found is None:
            return
        restoration, path = found
        for i in range(start, len(self)):
            restoration.attach(self[i], child_path(path, i))

    def append(self, value):
        super().append(wrap(value))
        self._added(len(self) - 1)

    def extend(self, values):
        start = len(self)
        super().extend(wrap(v) for v in values)
        self._added(start)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def insert(self, index, value):
        super().insert(index, wrap(value))
        self._added(min(max(index if index >= 0 else len(self) - 1 + index, 0), len(self) - 1))

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            super().__setitem__(index, [wrap(v) for v in value])
            self._added(index.indices(len(self))[0])
        else:
            super().__setitem__(index, wrap(value))
            self._added(index % len(self) if self else 0)


class TrackedDict(dict):
    """A dict that hands values stored in it to the restoration it is armed for (TF's ``_DictWrapper``)."""

    __slots__ = ("__weakref__",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for k, v in dict.items(self):
            dict.__setitem__(self, k, wrap(v))

    def __setitem__(self, key, value):
        value = wrap(value)
        super().__setitem__(key, value)
        found = armed(self)
        if found is not None:
            found[0].attach(value, child_path(found[1], key))

    def update(self, *args, **kwargs):
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

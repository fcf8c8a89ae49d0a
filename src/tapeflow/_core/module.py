"""``tf.Module``: a named container that finds the variables and submodules stored in its attributes."""

from __future__ import annotations

import re

from . import tracking
from .variable import name_scope

__all__ = ["Module"]


_INTERNALS = frozenset({"_name", "_scope", "_name_scope"})


def _camel_to_snake(name):
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


class Module:
    """Base class for objects that own variables (``tf.Module``).

    Variables and submodules assigned as attributes, or inside lists, tuples and dicts held by attributes, are
    found by :attr:`variables`, :attr:`trainable_variables` and :attr:`submodules`. Variables created inside
    ``with module.name_scope:`` are named ``"<module name>/<name>:0"``.

    Args:
        name: the module's name (a Python identifier); defaults to the class name in snake case.
    """

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\\-]*", name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope:
            self._scope = scope
        self._name_scope = name_scope(self._scope)

    def __setattr__(self, name, value):
        # Only a module armed by ``Checkpoint.restore`` looks at what is assigned (delayed restoration).
        if tracking.ARMED and name not in _INTERNALS:
            tracking.assign(self, name, value, lambda v: object.__setattr__(self, name, v))
        else:
            object.__setattr__(self, name, value)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self):
        """A context manager entering this module's (absolute) name scope."""
        return self._name_scope

    @property
    def variables(self):
        """Every variable of this module and its submodules, as a tuple (each once)."""
        return tuple(self._flatten(lambda x: getattr(x, "_tapeflow_variable", False)))

    @property
    def trainable_variables(self):
        """The trainable variables of this module and its submodules, as a tuple."""
        return tuple(self._flatten(lambda x: getattr(x, "_tapeflow_variable", False) and x.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(lambda x: getattr(x, "_tapeflow_variable", False) and not x.trainable))

    @property
    def submodules(self):
        """Every module reachable from this one's attributes (not including itself), as a tuple."""
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _flatten(self, predicate):
        """Walk attributes breadth-first (sorted by name, as TF does), yielding matches once each."""
        seen = {id(self)}
        out = []
        queue = [self]
        while queue:
            module = queue.pop(0)
            for key in sorted(vars(module)):
                if key in _INTERNALS:
                    continue
                for leaf in _leaves(vars(module)[key]):
                    if id(leaf) in seen:
                        continue
                    seen.add(id(leaf))
                    if predicate(leaf):
                        out.append(leaf)
                    if isinstance(leaf, Module):
                        queue.append(leaf)
        return out

    @classmethod
    def with_name_scope(cls, method):
        """Decorate a method so that it runs inside the module's name scope."""

        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _leaves(value[k])
    else:
        yield value

"""Where each public function appears: ``@export("math.sin", "sin")`` puts it in ``tf.math`` and ``tf``.

The paths are TensorFlow's (``"nn.relu"`` is ``tf.nn.relu``; a bare name is top-level ``tf``). Op modules mark
their public functions next to their definitions, and each namespace module (``tapeflow/math.py``, ``nn.py`` ...)
ends with :func:`install`, so adding a function to a namespace never means editing a list elsewhere.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["export", "install", "add_install_hook"]

# namespace ("" for top-level tf, "math", "nn" ...) -> public name -> object
_TABLE: dict[str, dict[str, object]] = {}


# Functions ``hook(path, obj) -> obj`` that may wrap what a namespace installs (``add_install_hook``).
_HOOKS = []


def add_install_hook(hook):
    """Let ``hook(path, obj)`` replace each object a namespace module installs (``path`` is TF's, ``"math.add"``)."""
    if hook not in _HOOKS:
        _HOOKS.append(hook)


def export(*paths):
    """Decorator: publish the object under each of TensorFlow's ``paths``."""

    def decorate(obj):
        for path in paths:
            namespace, _, name = path.rpartition(".")
            table = _TABLE.setdefault(namespace, {})
            if table.get(name, obj) is not obj:
                raise ValueError(f"tf.{path} is exported twice")
            table[name] = obj
        return obj

    return decorate


def install(module_globals, namespace):
    """Copy every object exported to ``namespace`` into a namespace module and extend its ``__all__``.

    The caller imports the op set (``tapeflow.ops``) first, so that every module has run its ``@export`` lines.
    """
    table = _TABLE.get(namespace, {})
    module_globals.update(table)
    for hook in _HOOKS:  # (the ragged dispatch: see ``ops/_ragged_dispatch.py``)
        prefix = f"{namespace}." if namespace else ""
        for name, fn in list(module_globals.items()):
            if not name.startswith("_"):
                module_globals[name] = hook(prefix + name, fn)
    listed = module_globals.get("__all__")
    if listed is None:  # the top-level namespace lists what it imported by name (not its submodules)
        listed = [n for n, v in module_globals.items() if not n.startswith("_") and not isinstance(v, ModuleType)]
    module_globals["__all__"] = sorted(set(listed) | set(table))
    for name in module_globals["__all__"]:
        fn = module_globals[name]
        if getattr(fn, "__name__", None) == "api":  # made by a factory (``_unary_api(SQRT, ...)``): name it
            fn.__name__ = fn.__qualname__ = name

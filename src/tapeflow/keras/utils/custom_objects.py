"""The custom-object registry of ``tf.keras.utils`` (Keras 3.15): ``register_keras_serializable``,
``get_registered_name``/``get_registered_object``, ``get_custom_objects``, ``custom_object_scope``.
"""

from __future__ import annotations

__all__ = ["register_keras_serializable", "get_registered_name", "get_registered_object", "get_custom_objects",
           "custom_object_scope", "CustomObjectScope"]

# name -> object, filled by ``register_keras_serializable``; the scopes stack above it.
_GLOBAL_CUSTOM_OBJECTS = {}
_GLOBAL_CUSTOM_NAMES = {}
_SCOPES = []


def get_custom_objects():
    """The global registry of custom objects (a live dict: ``get_custom_objects()["name"] = obj`` registers)."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """A ``with`` block in which the ``{name: object}`` dict is visible to ``get_registered_object``."""

    def __init__(self, custom_objects):
        self.custom_objects = custom_objects or {}

    def __enter__(self):
        _SCOPES.append(self.custom_objects)
        return self

    def __exit__(self, *args, **kwargs):
        _SCOPES.remove(self.custom_objects)


custom_object_scope = CustomObjectScope


def register_keras_serializable(package="Custom", name=None):
    """A decorator registering a class or function under ``"<package>>name"`` (``name`` defaults to its
    ``__name__``).

    Registering a name again replaces the previous object.

    Raises:
        ValueError: (when applied) for a class without ``get_config``.
    """

    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if isinstance(arg, type) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj):
    """The name ``obj`` was registered under, else its ``__name__``."""
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object for ``name``: from the active scopes, the global registry, ``custom_objects``, then
    ``module_objects``; ``None`` when none has it."""
    for scope in reversed(_SCOPES):
        if name in scope:
            return scope[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None

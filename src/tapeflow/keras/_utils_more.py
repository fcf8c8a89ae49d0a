"""More of ``tf.keras.utils`` (Keras 3.15): ``pad_sequences``, the custom-object registry and the
``(x, y, sample_weight)`` packing helpers. All NumPy or plain Python: nothing here needs tf.data or a download.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pad_sequences", "register_keras_serializable", "get_registered_name", "get_registered_object",
           "get_custom_objects", "custom_object_scope", "CustomObjectScope", "pack_x_y_sample_weight",
           "unpack_x_y_sample_weight"]

# name -> object, filled by ``register_keras_serializable``; the scopes stack above it.
_GLOBAL_CUSTOM_OBJECTS = {}
_GLOBAL_CUSTOM_NAMES = {}
_SCOPES = []


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A NumPy array ``(len(sequences), maxlen, ...)`` of the sequences cut to ``maxlen`` (``truncating``: keep
    the end with ``"pre"``, the start with ``"post"``) and filled with ``value`` before (``"pre"``) or after
    (``"post"``) them. ``maxlen`` defaults to the longest sequence; samples may have a shape of their own.

    Raises:
        ValueError: for a non-iterable, a string ``value`` with a non-string dtype, an unknown ``padding`` or
            ``truncating``, or samples of different shapes.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    sample_shape = None
    for seq in sequences:
        try:
            lengths.append(len(seq))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {seq!s}") from e
        if sample_shape is None and len(seq):
            sample_shape = np.asarray(seq).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = np.max(lengths)
    string_dtype = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not string_dtype:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\nYou should set "
                         "`dtype=object` for variable length strings.")
    out = np.full((len(sequences), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for i, seq in enumerate(sequences):
        if not len(seq):
            continue
        if truncating == "pre":
            kept = seq[-maxlen:]
        elif truncating == "post":
            kept = seq[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} is different from "
                             f"expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


# ---------------------------------------------------------------------------------------- custom objects


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


# ------------------------------------------------------------------------------------- data packing


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``, dropping trailing ``None``s (a lone ``x`` that is a list
    or tuple is wrapped as ``(x,)``; a lone other ``x`` is returned as is)."""
    if y is None:
        if not isinstance(x, (tuple, list)):
            return x
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a tuple or list of one to three entries (missing ones ``None``), or
    ``(data, None, None)`` for anything else.

    Raises:
        ValueError: for a tuple or list of more than three entries.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")

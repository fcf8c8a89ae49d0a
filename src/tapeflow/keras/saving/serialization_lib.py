"""Keras 3's object configs: ``serialize_keras_object`` / ``deserialize_keras_object``.

An object is stored as ``{"module", "class_name", "config", "registered_name"}`` (plus ``build_config`` and
``compile_config`` for layers and models), with ``module`` the public Keras namespace of a built-in class
(``"keras.layers"``, ``"keras.optimizers"``, ``"keras"`` for ``Sequential`` and ``DTypePolicy``) and the Python
module of a custom one, whose ``registered_name`` is its ``register_keras_serializable`` name (``"Pkg>Name"``) or
its class name. These are the dicts TensorFlow's Keras writes into ``config.json`` and reads back, so a model
configured in tapeflow rebuilds in TensorFlow and the other way round.

Classes are found, in order, among ``custom_objects``, the active ``custom_object_scope`` s and the global
registry (by registered name, then class name), then among tapeflow's Keras namespaces by class name. A class
that is nowhere raises Keras's ``TypeError`` ("Could not locate class ...").
"""

from __future__ import annotations

import codecs
import importlib
import inspect
import marshal
import types

import numpy as np

from ..._core.tensor import convert_to_tensor, is_tensor
from ..utils import custom_objects as _registry

__all__ = ["serialize_keras_object", "deserialize_keras_object", "public_module", "find_class"]

# Keras's public namespaces and the tapeflow modules that hold the same classes (imported when first needed).
_NAMESPACES = (
    ("keras.layers", "tapeflow.keras.layers"),
    ("keras.losses", "tapeflow.keras.losses"),
    ("keras.metrics", "tapeflow.keras.metrics"),
    ("keras.optimizers.schedules", "tapeflow.keras.optimizers.schedules"),
    ("keras.optimizers", "tapeflow.keras.optimizers"),
    ("keras.initializers", "tapeflow.keras.initializers"),
    ("keras.regularizers", "tapeflow.keras.regularizers"),
    ("keras.activations", "tapeflow.keras.activations"),
    ("keras.models", "tapeflow.keras.models"),
    ("keras", "tapeflow.keras"),
)
# Classes Keras stores under another module than their namespace (the functional model is not exported as such).
_SPECIAL = {"Functional": ("keras.src.models.functional", "Functional"), "Sequential": ("keras", None),
            "Model": ("keras", None), "DTypePolicy": ("keras", None), "FloatDTypePolicy": ("keras", None),
            "Layer": ("keras", None), "Loss": ("keras", None), "Metric": ("keras", None), "Optimizer": ("keras", None),
            "Initializer": ("keras", None), "Regularizer": ("keras", None)}
_TABLES = {}


def _tables():
    """``{keras module: {name: object}}`` over tapeflow's Keras namespaces (built once)."""
    if not _TABLES:
        for keras_module, module_name in _NAMESPACES:
            module = importlib.import_module(module_name)
            names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
            table = {}
            for name in names:
                obj = getattr(module, name, None)
                if inspect.isclass(obj) or isinstance(obj, types.FunctionType):
                    table[name] = obj
            _TABLES[keras_module] = table
        _TABLES["keras"].setdefault("Functional", importlib.import_module("tapeflow.keras.models").Functional)
    return _TABLES


def _is_builtin(cls):
    return cls.__module__.startswith("tapeflow.")


def public_module(cls):
    """``(module, registered_name)`` as Keras writes them for ``cls``."""
    if _is_builtin(cls):
        special = _SPECIAL.get(cls.__name__)
        if special is not None:
            return special
        for keras_module, table in _tables().items():
            if table.get(cls.__name__) is cls:
                return keras_module, None
        return "keras.layers", None  # a built-in outside the namespaces (internal layers): Keras's layers module
    return cls.__module__, _registry.get_registered_name(cls)


def _serialize_value(obj):
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {key: serialize_keras_object(value) for key, value in obj.items()}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, np.ndarray) and obj.ndim > 0:
        return {"class_name": "__numpy__", "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
    if isinstance(obj, np.generic):
        return obj.item()
    if is_tensor(obj):
        return {"class_name": "__tensor__", "config": {"value": np.asarray(obj).tolist(), "dtype": obj.dtype.name}}
    if hasattr(obj, "as_list") and hasattr(obj, "rank"):  # a TensorShape
        return obj.as_list() if obj.rank is not None else None
    if hasattr(obj, "as_numpy_dtype"):  # a DType
        return obj.name
    return None


def serialize_keras_object(obj):
    """The config dict of ``obj`` (plain values, lists and dicts as they are; objects by ``get_config``).

    Raises:
        TypeError: for an object without ``get_config`` (Keras's message).
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple, dict, bytes, np.ndarray, np.generic)) or is_tensor(obj) \
            or hasattr(obj, "as_numpy_dtype") or (hasattr(obj, "as_list") and hasattr(obj, "rank")):
        return _serialize_value(obj)
    if isinstance(obj, types.FunctionType):
        return _serialize_function(obj)
    if not hasattr(obj, "get_config"):
        if hasattr(obj, "__name__"):
            return _registry.get_registered_name(obj)
        raise TypeError(f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must "
                        "implement the `get_config()` method.")
    config = obj.get_config()
    if not isinstance(config, dict):
        raise TypeError(f"The `get_config()` method of {obj} should return a dict. It returned: {config}")
    module, registered = public_module(type(obj))
    out = {"module": None if module == "__main__" else module, "class_name": type(obj).__name__,
           "config": _serialize_value(config), "registered_name": registered}
    build_config = obj.get_build_config() if hasattr(obj, "get_build_config") else None
    if build_config is not None:
        out["build_config"] = _serialize_value(build_config)
    compile_config = obj.get_compile_config() if hasattr(obj, "get_compile_config") else None
    if compile_config is not None:
        out["compile_config"] = _serialize_value(compile_config)
    return out


def _serialize_function(fn):
    from .. import activations, losses, metrics

    if fn.__name__ == "<lambda>":
        from ..optimizers.serialization import serialize_function

        return serialize_function(fn)
    for module, table in (("keras.activations", activations.ALL_OBJECTS_DICT), ("keras.losses", losses._BY_NAME),
                          ("keras.metrics", vars(metrics))):
        if table.get(fn.__name__) is fn:
            return {"module": module, "class_name": "function", "config": fn.__name__,
                    "registered_name": fn.__name__}
    # Any other function, as Keras writes one: by the type ``function`` (of ``builtins``), named by its registered
    # name (``package>name``) or its own.
    return {"module": "builtins", "class_name": "function", "config": _registry.get_registered_name(fn),
            "registered_name": "function"}


def _lookup(name, custom_objects):
    """A custom object for ``name``: scopes, the global registry, then ``custom_objects``."""
    return _registry.get_registered_object(name, custom_objects=custom_objects)


def find_class(class_name, module=None, registered_name=None, custom_objects=None, config=None, kind="class"):
    """The class (or function) a config names.

    Raises:
        TypeError: Keras's "Could not locate class ..." when neither a custom object nor a tapeflow class has the
            name.
    """
    for name in (registered_name, class_name):
        if name:
            obj = _lookup(name, custom_objects)
            if obj is not None:
                return obj
    tables = _tables()
    if module and (module == "keras" or module.startswith("keras.")):
        if module in tables and class_name in tables[module]:
            return tables[module][class_name]
        for table in tables.values():  # ``keras.src.<...>`` module paths, and renamed namespaces
            if class_name in table:
                return table[class_name]
    elif module is None:
        for table in tables.values():
            if class_name in table:
                return table[class_name]
    raise TypeError(f"Could not locate {kind} '{class_name}'. Make sure custom classes and functions are decorated "
                    "with `@keras.saving.register_keras_serializable()`. If they are already decorated, make sure "
                    "they are all imported so that the decorator is run before trying to load them. Full object "
                    f"config: {config}")


def _deserialize_special(class_name, inner):
    if class_name == "__tensor__":
        return convert_to_tensor(inner["value"], dtype=inner["dtype"])
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    return None


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a :func:`serialize_keras_object` config describes (built and compiled when the config says so).

    Raises:
        TypeError: for a class that cannot be found, or whose ``from_config`` rejects the config (Keras's
            messages).
        ValueError: for a lambda when ``safe_mode`` is on (Keras's message).
    """
    custom_objects = dict(custom_objects or {})
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = _lookup(config, custom_objects)
        return found if found is not None else config
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(x, custom_objects, safe_mode) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {key: deserialize_keras_object(value, custom_objects, safe_mode) for key, value in config.items()}
    class_name = config["class_name"]
    inner = config["config"] if config["config"] is not None else {}
    special = _deserialize_special(class_name, inner)
    if special is not None:
        return special
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError("Requested the deserialization of a Python lambda. This carries a potential risk of "
                             "arbitrary code execution and thus it is disallowed by default. If you trust the "
                             "source of the artifact, you can override this error by passing `safe_mode=False` "
                             "to the loading function, or calling `keras.config.enable_unsafe_deserialization().")
        return _load_lambda(inner["value"])
    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(f"Expected 'config' to be a non-null str for a function classname,\ninstead got "
                            f"{type(inner)}\nFull config: {config}")
        return find_class(inner, module, registered_name, custom_objects, config, kind="function")
    if not isinstance(inner, dict):
        raise TypeError(f"Expected 'config' to be a dict for {class_name},\ninstead got {type(inner)}\n"
                        f"Full config: {config}")
    cls = find_class(class_name, module, registered_name, custom_objects, config)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config"):
        raise TypeError(f"Unable to reconstruct an instance of '{class_name}' because the class is missing a "
                        f"`from_config()` method. Full object config: {config}")
    with _registry.CustomObjectScope(custom_objects):
        try:
            instance = _from_config(cls, inner, custom_objects)
        except TypeError as exc:
            raise TypeError(f"{cls} could not be deserialized properly. Please ensure that components that are "
                            "Python object instances (layers, models, etc.) returned by `get_config()` are "
                            "explicitly deserialized in the model's `from_config()` method."
                            f"\n\nconfig={config}.\n\nException encountered: {exc}") from None
        build_config = config.get("build_config")
        if build_config and not getattr(instance, "built", True) and hasattr(instance, "build_from_config"):
            instance.build_from_config(build_config)
            instance.built = True
        compile_config = config.get("compile_config")
        if compile_config and hasattr(instance, "compile_from_config"):
            instance.compile_from_config(compile_config)
    return instance


def _from_config(cls, inner, custom_objects):
    params = inspect.signature(cls.from_config).parameters
    if "custom_objects" in params:
        return cls.from_config(dict(inner), custom_objects=custom_objects)
    return cls.from_config(dict(inner))


def _load_lambda(value):
    """A lambda from Keras's marshalled form ``[base64 code, defaults, closure]`` (only with ``safe_mode=False``)."""
    code, defaults, closure = value
    raw = marshal.loads(codecs.decode(code.encode("ascii"), "base64"))
    cells = tuple(types.CellType(c) for c in closure) if closure else None
    return types.FunctionType(raw, globals(), name=raw.co_name, argdefs=tuple(defaults) if defaults else None,
                              closure=cells)

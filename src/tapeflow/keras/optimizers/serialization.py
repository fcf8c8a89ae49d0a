"""``serialize_function``: a Python function (an optimizer's callable learning rate, an activation) as Keras's
``get_config`` stores it."""

from __future__ import annotations

import codecs
import inspect
import marshal
import types
import warnings

__all__ = ["serialize_function"]


def serialize_function(fn):
    """A callable learning rate as Keras's ``get_config`` stores it (lambdas as marshalled code, with a warning).

    Raises:
        TypeError: for a callable that is not a Python function (Keras needs a ``get_config`` for those).
    """
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"Cannot serialize object {fn} of type {type(fn)}. To be serializable, a class must "
                        "implement the `get_config()` method.")
    if fn.__name__ != "<lambda>":
        return {"module": "builtins", "class_name": "function", "config": fn.__name__, "registered_name": "function"}
    warnings.warn("The object being serialized includes a `lambda`. This is unsafe. In order to reload the object, "
                  "you will have to pass `safe_mode=False` to the loading function. Please avoid using `lambda` in "
                  "the future, and use named Python functions instead. This is the `lambda` being serialized: "
                  f"{inspect.getsource(fn)}", stacklevel=2)
    code = codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return {"class_name": "__lambda__", "config": {"value": (code, fn.__defaults__, closure)}}

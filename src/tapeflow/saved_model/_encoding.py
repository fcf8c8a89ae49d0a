"""JSON-safe encoding of what a traced program holds: attribute values, Python values of signatures, constants.

Every value becomes JSON that decodes to an equal value of the same type. Plain JSON stands for itself where it is
unambiguous (``None``, ``bool``, ``int``, ``str``, finite ``float``, lists); everything else is a one-key object:

=====================  ========================================================================================
``{"tuple": [...]}``   a tuple (``{"namedtuple": [module, qualname, [...]]}`` for a namedtuple)
``{"dict": [[k, v]]}`` a dict, keys encoded too (so non-string keys and key order survive)
``{"float": "nan"}``   a float JSON cannot spell (``"nan"``, ``"inf"``, ``"-inf"``)
``{"complex": [r, i]}`` a complex number
``{"bytes": "..."}``   bytes, base64
``{"slice": [a,b,c]}`` a slice; ``{"ellipsis": 0}`` is ``...``
``{"dtype": name}``    a ``tf.DType``; ``{"np_dtype": name}`` a NumPy dtype; ``{"np_type": name}`` a NumPy scalar type
``{"shape": dims}``    a ``tf.TensorShape`` (``null`` dims for an unknown rank)
``{"spec": [shape, dtype, name]}`` a ``tf.TensorSpec``
``{"array": k}``       the array ``k`` of the archive of constants (numeric and boolean values, in ``.npy`` format)
``{"strings": [...], "shape": dims}`` an array of byte strings (base64 each), which ``.npy`` cannot hold without
                       pickling
``{"scalar": k}``      a NumPy scalar: the 0-d array ``k`` of the archive, taken back out as a scalar
=====================  ========================================================================================

Anything else (a function, an object of the user's) cannot be written: :class:`Unsavable` says what and where.
"""

from __future__ import annotations

import base64
import importlib
import math

import numpy as np

from .._core.dtypes import DType, as_dtype
from .._core.shape import TensorShape
from .._core.tensor_spec import TensorSpec

__all__ = ["Unsavable", "Encoder", "decode"]


class Unsavable(Exception):
    """A value with no encoding (the message says which value)."""


class Encoder:
    """Encodes values, collecting their arrays: ``arrays`` maps archive keys to NumPy arrays."""

    def __init__(self, prefix="a"):
        self.arrays = {}
        self._prefix = prefix
        self._seen = {}  # id(array) -> key: an array shared by several places is stored once

    def array(self, value):
        value = np.asarray(value)
        if value.dtype == object or value.dtype.kind in "SU":
            flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in value.reshape(-1)]
            return {"strings": [base64.b64encode(v).decode("ascii") for v in flat], "shape": list(value.shape)}
        key = self._seen.get(id(value))
        if key is None:
            key = f"{self._prefix}{len(self.arrays)}"
            self.arrays[key] = value
            self._seen[id(value)] = key
        return {"array": key}

    def __call__(self, value):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int) and type(value) is int:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"float": repr(value)}
        if type(value) is complex:
            return {"complex": [self(value.real), self(value.imag)]}
        if type(value) is bytes:
            return {"bytes": base64.b64encode(value).decode("ascii")}
        if type(value) is list:
            return [self(v) for v in value]
        if type(value) is tuple:
            return {"tuple": [self(v) for v in value]}
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            cls = type(value)
            return {"namedtuple": [cls.__module__, cls.__qualname__, [self(v) for v in value]]}
        if type(value) is dict:
            return {"dict": [[self(k), self(v)] for k, v in value.items()]}
        if isinstance(value, slice):
            return {"slice": [self(value.start), self(value.stop), self(value.step)]}
        if value is Ellipsis:
            return {"ellipsis": 0}
        if isinstance(value, DType):
            return {"dtype": value.name}
        if isinstance(value, np.dtype):
            return {"np_dtype": value.str if value.kind in "SUV" else value.name}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"np_type": np.dtype(value).name}
        if isinstance(value, TensorShape):
            return {"shape": None if value.rank is None else list(value.as_list())}
        if isinstance(value, TensorSpec):
            return {"spec": [self(value.shape), value.dtype.name, value.name]}
        if isinstance(value, np.generic):
            if value.dtype.kind in "SUO":
                return self.array(np.array(value, dtype=object))
            return {"scalar": self.array(np.asarray(value))["array"]}
        if isinstance(value, np.ndarray):
            return self.array(value)
        raise Unsavable(f"{type(value).__module__}.{type(value).__qualname__} value {value!r}")


def _namedtuple(module, qualname):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def decode(data, arrays):
    """The value ``data`` encodes (``arrays``: the archive of constants, key -> array)."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, arrays) for v in data]
    (kind, body), = data.items() if len(data) == 1 else (("strings", data),)
    if kind == "tuple":
        return tuple(decode(v, arrays) for v in body)
    if kind == "namedtuple":
        return _namedtuple(body[0], body[1])(*[decode(v, arrays) for v in body[2]])
    if kind == "dict":
        return {decode(k, arrays): decode(v, arrays) for k, v in body}
    if kind == "float":
        return float(body)
    if kind == "complex":
        return complex(decode(body[0], arrays), decode(body[1], arrays))
    if kind == "bytes":
        return base64.b64decode(body)
    if kind == "slice":
        return slice(*[decode(v, arrays) for v in body])
    if kind == "ellipsis":
        return Ellipsis
    if kind == "dtype":
        return as_dtype(body)
    if kind == "np_dtype":
        return np.dtype(body)
    if kind == "np_type":
        return np.dtype(body).type
    if kind == "shape":
        return TensorShape(body)
    if kind == "spec":
        return TensorSpec(decode(body[0], arrays), body[1], body[2])
    if kind == "array":
        return arrays[body]
    if kind == "scalar":
        return arrays[body][()]
    if kind == "strings":
        values = [base64.b64decode(v) for v in data["strings"]]
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.reshape(data["shape"])
    raise ValueError(f"unknown encoded value {data!r}")

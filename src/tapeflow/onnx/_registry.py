"""The lowering registry: for each tapeflow op that ONNX export supports, the function that writes it as ONNX
nodes, side by side with the other lowerings (as ``_core/registry.py`` keeps each op's forward and gradient).

A lowering is ``lower(cx, n)``: ``n`` is the :class:`Node` being exported (its op's attributes, the ONNX names of
its inputs and outputs, and the static shapes and dtypes the export found for each), ``cx`` the emitter of
``_export.py`` (``cx.add`` appends an ONNX node, ``cx.const``/``cx.i64`` add initializers). It must write every
one of ``n.outs``. Nothing here imports ``onnx``: the registry can be listed and tested without the extra.
"""

from __future__ import annotations

import numpy as np

__all__ = ["OPSET", "LOWERINGS", "lowers", "Node", "lowering_of", "registry_key", "ExportError", "Unsupported",
           "np_dtype"]

#: The ONNX opset (default domain) an exported model declares unless a newer one is asked for.
OPSET = 18


class ExportError(ValueError):
    """A function or model that cannot be written as ONNX: an op with no lowering (named, with the user's line that
    made it), a variable assignment, a size of a ``None`` dimension that the traced program fixes."""


class Unsupported(Exception):
    """Raised by a lowering for a use of its op that ONNX cannot express (the exporter names the op and line)."""


#: tapeflow op key (``Op.key``; ``Unpack`` for every ``Unpack<n>``) -> its lowering.
LOWERINGS: dict = {}


def lowers(*keys):
    """Register the decorated function as the lowering of the ops ``keys``."""

    def register(fn):
        for key in keys:
            if key in LOWERINGS:
                raise ValueError(f"two ONNX lowerings for op {key!r}")
            LOWERINGS[key] = fn
        return fn

    return register


def registry_key(key):
    """The key a stored equation's op has in :data:`LOWERINGS` (the ops ``Unpack<n>``, one per count, share one)."""
    if key.startswith("Unpack") and key[6:].isdigit():
        return "Unpack"
    return key


def lowering_of(key):
    """The lowering of the op registered under ``key``, or ``None``."""
    return LOWERINGS.get(registry_key(key))


class Node:
    """One equation as a lowering sees it.

    ``op_key``: the op's registry key (``ReshapeToTensor``); ``op``: its TF name (``Reshape``); ``attrs``: its
    attributes; ``ins``/``outs``: ONNX value names; ``shapes``/``dtypes`` and ``out_shapes``/``out_dtypes``: static
    shapes (``None`` for a dimension that varies with the inputs' ``None`` dimensions) and NumPy dtypes; ``where``:
    the user's line that made it; ``constants``: input index -> value for inputs that are constants of the program
    (a lowering may fold them).
    """

    __slots__ = ("op_key", "op", "attrs", "ins", "outs", "shapes", "dtypes", "out_shapes", "out_dtypes", "where",
                 "constants")

    def __init__(self, op_key, op, attrs, ins, outs, shapes, dtypes, out_shapes, out_dtypes, where, constants):
        self.op_key, self.op, self.attrs, self.ins, self.outs = op_key, op, attrs, ins, outs
        self.shapes, self.dtypes, self.out_shapes, self.out_dtypes = shapes, dtypes, out_shapes, out_dtypes
        self.where, self.constants = where, constants

    def rank(self, k=0):
        return len(self.shapes[k])

    def get(self, name, default=None):
        return self.attrs.get(name, default)


def np_dtype(dtype):
    """A NumPy dtype from a NumPy type, a dtype, or a tapeflow ``DType``."""
    numpy_type = getattr(dtype, "as_numpy_dtype", None)
    return np.dtype(numpy_type if numpy_type is not None else dtype)

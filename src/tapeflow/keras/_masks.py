"""Keras masks carried by tensors (``tensor._keras_mask``).

tapeflow tensors have fixed slots, so a mask lives in a side table keyed by the tensor's identity and dropped
when the tensor dies (a weak reference's callback). ``Tensor._keras_mask`` reads and writes it, as in Keras.
The table is empty unless masks are in use, which is all that ``Layer.__call__`` checks on the common path.
"""

from __future__ import annotations

import weakref

from .._core.tensor import Tensor

__all__ = ["TABLE", "get_keras_mask", "set_keras_mask"]

TABLE = {}


def get_keras_mask(x):
    """The mask attached to ``x``, or ``None``."""
    entry = TABLE.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def _forget(key):
    return lambda _: TABLE.pop(key, None)


def set_keras_mask(x, mask):
    """Attach ``mask`` to ``x`` (``None`` detaches it); objects that cannot be weakly referenced are skipped."""
    key = id(x)
    if mask is None:
        TABLE.pop(key, None)
        return
    try:
        ref = weakref.ref(x, _forget(key))
    except TypeError:
        return
    TABLE[key] = (ref, mask)


Tensor._keras_mask = property(get_keras_mask, set_keras_mask)

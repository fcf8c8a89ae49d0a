"""``pack_x_y_sample_weight`` and ``unpack_x_y_sample_weight`` of ``tf.keras.utils`` (Keras 3.15): a batch as the
``(x, y, sample_weight)`` tuple ``fit`` takes, and back.
"""

from __future__ import annotations

__all__ = ["pack_x_y_sample_weight", "unpack_x_y_sample_weight"]


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

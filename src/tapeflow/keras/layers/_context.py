"""The state of layer calls in a thread: the outermost layer being called, the ``training`` value it fixed, and
the batch size that layers built now record (:class:`traced_batch`)."""

from __future__ import annotations

import threading

__all__ = ["traced_batch", "build_shape"]


class _CallContext(threading.local):
    """The outermost layer being called and the ``training`` value it fixed for the layers it calls; the batch size
    that layers built now record (see :func:`traced_batch`)."""

    def __init__(self):
        self.entry = None
        self.training = None
        self.build_batch = _ACTUAL


_ACTUAL = object()  # layers are built for the batch size of the data they are called on
_CONTEXT = _CallContext()


class traced_batch:  # noqa: N801 - a context manager used like a function
    """Build the layers first called inside for batch size ``size`` (``None``: unknown) instead of the data's.

    Keras's ``fit`` and ``evaluate`` on TensorFlow build an unbuilt model while tracing their step, where the batch
    size is static only when every batch is full; the shapes layers record (and ``summary()`` shows) say so.
    """

    def __init__(self, size):
        self.size = size

    def __enter__(self):
        self.previous = _CONTEXT.build_batch
        _CONTEXT.build_batch = self.size

    def __exit__(self, *exc):
        _CONTEXT.build_batch = self.previous


def build_shape(shape):
    """``shape`` (a tuple, or a nesting of tuples) with its batch size replaced inside :class:`traced_batch`."""
    size = _CONTEXT.build_batch
    if size is _ACTUAL:
        return shape
    if isinstance(shape, (list, dict)) or (isinstance(shape, tuple) and shape and isinstance(shape[0], tuple)):
        return _map_shapes(lambda s: (size, *s[1:]) if s else s, shape)
    return (size, *shape[1:]) if shape else shape


def _map_shapes(fn, shape):
    if isinstance(shape, dict):
        return {k: _map_shapes(fn, v) for k, v in shape.items()}
    if isinstance(shape, list) or (isinstance(shape, tuple) and shape and isinstance(shape[0], (tuple, list))):
        return type(shape)(_map_shapes(fn, s) for s in shape)
    return fn(shape)

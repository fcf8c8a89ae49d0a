"""Batching of in-memory data for ``fit``/``evaluate``/``predict``: NumPy arrays, tensors, lists and dicts."""

from __future__ import annotations

import math

import numpy as np

from ..._core.tensor import convert_to_tensor

__all__ = ["to_numpy", "num_samples", "take", "to_tensors", "unpack_x_y_sample_weight", "split", "class_weights"]


def _map(fn, x):
    if isinstance(x, (list, tuple)):
        return type(x)(_map(fn, y) for y in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return None if x is None else fn(x)


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _leaves(item)]
    if isinstance(x, dict):
        return [y for item in x.values() for y in _leaves(item)]
    return [] if x is None else [x]


def to_numpy(x):
    """Every leaf of ``x`` as a NumPy array (tensors and Keras variables through ``.numpy()``)."""
    return _map(lambda a: a.numpy() if hasattr(a, "numpy") else np.asarray(a), x)


def num_samples(*structures):
    """The common first-axis size of every leaf.

    Raises:
        ValueError: when the leaves disagree (Keras's message).
    """
    sizes = {int(np.shape(a)[0]) for s in structures for a in _leaves(s)}
    if len(sizes) > 1:
        raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain the same number of samples."
                         f" Received sizes: {sorted(sizes)}")
    return sizes.pop() if sizes else 0


def take(x, index):
    """``x`` with every leaf indexed along its first axis by ``index`` (a slice or an index array)."""
    return _map(lambda a: a[index], x)


def to_tensors(x):
    return _map(convert_to_tensor, x)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch given as ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")


def split(arrays, validation_split):
    """``(train, validation)``: the last ``validation_split`` fraction of the samples is held out, unshuffled."""
    n = num_samples(*arrays)
    at = int(math.floor(n * (1.0 - validation_split)))
    if at == 0 or at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a validation "
                         f"and training set as specified by `validation_split={validation_split}`. Either provide "
                         "more data, or a different value for the `validation_split` argument.")
    return tuple(take(a, slice(0, at)) for a in arrays), tuple(take(a, slice(at, n)) for a in arrays)


def class_weights(y, class_weight):
    """Per-sample weights from ``class_weight`` (a dict class index -> weight); ``y`` holds class indices or
    one-hot rows."""
    y = np.asarray(y)
    labels = np.argmax(y, axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(y.shape[0], -1)[:, 0]
    labels = np.round(labels).astype(np.int64)
    table = np.zeros(max(max(class_weight) + 1, int(labels.max()) + 1 if labels.size else 0), np.float32)
    for k, v in class_weight.items():
        table[int(k)] = v
    return table[labels]

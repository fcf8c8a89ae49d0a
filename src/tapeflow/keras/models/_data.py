"""In-memory data for ``fit``/``evaluate``/``predict``: Keras 3's array data adapter on NumPy arrays, tensors,
lists and dicts of them.

:func:`adapt` does what Keras's ``ArrayDataAdapter`` does before batching, in its order: it refuses leaves that are
not array-like (``"Unrecognized data type"``), turns ``class_weight`` into per-sample weights (refusing it next to a
``sample_weight`` or with several outputs), checks that every array has the same number of samples (Keras's
"Data cardinality is ambiguous" text, one line per ``x``/``y``/``sample_weight``) and counts the samples.
"""

from __future__ import annotations

import math

import numpy as np

from ..._core.tensor import convert_to_tensor, wrap

__all__ = ["to_numpy", "adapt", "take", "batch", "to_tensors", "unpack_x_y_sample_weight",
           "pack_x_y_sample_weight", "split", "class_weights"]


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


def _flatten(x):
    """Keras's ``tree.flatten``: ``None`` leaves kept, dicts in sorted key order."""
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flatten(x[k])]
    return [x]


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def to_numpy(x):
    """Every leaf of ``x`` as a NumPy array (tensors and Keras variables through ``.numpy()``)."""
    return _map(lambda a: a.numpy() if hasattr(a, "numpy") else np.asarray(a), x)


def _sliceable(x):
    # What Keras's array adapter takes as a leaf: None, arrays, tensors, anything with ``__array__`` (not Python
    # numbers or strings: a list of floats is a structure of scalars to Keras, not an array).
    return x is None or hasattr(x, "__array__")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``x`` (or ``(x,)`` when ``x`` is a list or tuple), ``(x, y)`` or ``(x, y, sample_weight)``, as Keras packs."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def check_data_cardinality(data):
    """Raise Keras's ``ValueError`` when the arrays of ``data`` (packed as :func:`pack_x_y_sample_weight` packs)
    disagree on their number of samples."""
    sizes = {int(a.shape[0]) for a in _flatten(data) if a is not None}
    if len(sizes) > 1:
        message = "Data cardinality is ambiguous. Make sure all arrays contain the same number of samples."
        for label, single in zip(["x", "y", "sample_weight"], data):
            message += f"'{label}' sizes: {', '.join(str(a.shape[0]) for a in _flatten(single))}\n"
        raise ValueError(message)


def adapt(x, y=None, sample_weight=None, class_weight=None):
    """``(x, y, sample_weight, num_samples)`` as NumPy structures, checked as Keras's array adapter checks them.

    Raises:
        ValueError: for leaves that are not arrays, ``class_weight`` together with ``sample_weight`` or with
            several outputs, or arrays whose numbers of samples differ (Keras's messages).
        KeyError: when there is no data at all (``fit(None, None)``), as Keras raises it.
    """
    if not all(_sliceable(a) for a in _flatten((x, y, sample_weight))):
        raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")
    if sample_weight is not None and class_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    x, y, sample_weight = to_numpy(x), to_numpy(y), to_numpy(sample_weight)
    if class_weight is not None:
        if _is_nested(y):
            raise ValueError("`class_weight` is only supported for Models with a single output.")
        sample_weight = class_weights(y, class_weight)
    packed = pack_x_y_sample_weight(x, y, sample_weight)
    check_data_cardinality(packed)
    # An empty set (no arrays at all) raises KeyError('pop from an empty set'), as in Keras.
    n = {a.shape[0] for a in _flatten(packed) if a is not None}.pop()
    return x, y, sample_weight, int(n)


def take(x, index):
    """``x`` with every leaf indexed along its first axis by ``index`` (a slice or an index array)."""
    return _map(lambda a: a[index], x)


# NumPy dtypes a tensor holds as they are: a batch of them is wrapped without ``convert_to_tensor``'s checks.
_PLAIN = frozenset(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                                          "uint16", "uint32", "uint64", "bool"))


def _batch_tensor(a, index):
    if type(a) is np.ndarray and a.dtype in _PLAIN:  # the common case, once per batch
        part = a[index]
        return wrap(part.copy() if type(index) is slice else part)  # (an index array already made a copy)
    return convert_to_tensor(a[index])


def batch(x, index):
    """The tensors of ``x``'s batch ``index`` (a slice or an index array along every leaf's first axis)."""
    return _map(lambda a: _batch_tensor(a, index), x)


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
    """``(train, validation)``: the last ``validation_split`` fraction of the samples is held out, unshuffled
    (Keras's ``train_validation_split``: the sample count is the first array's, and all-``None`` data is returned
    twice).

    Raises:
        ValueError: for leaves that cannot be sliced, or too few samples to split (Keras's messages).
    """
    flat = _flatten(arrays)
    unsplitable = [type(t) for t in flat if not _sliceable(t)]
    if unsplitable:
        raise ValueError("Argument `validation_split` is only supported for tensors or NumPy arrays."
                         f"Found incompatible type in the input: {unsplitable}")
    present = [t for t in flat if t is not None]
    if not present:
        return arrays, arrays
    arrays = to_numpy(arrays)
    n = int(np.shape(present[0])[0])
    at = int(math.floor(n * (1.0 - validation_split)))
    if at == 0 or at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a validation "
                         f"and training set as specified by `validation_split={validation_split}`. Either provide "
                         "more data, or a different value for the `validation_split` argument.")
    return take(arrays, slice(0, at)), take(arrays, slice(at, n))


def class_weights(y, class_weight):
    """Per-sample float32 weights from ``class_weight`` (a dict class index -> weight), as Keras computes them:
    the class of a row is its argmax when ``y`` has a last axis wider than 1, else its rounded value; classes
    missing from the dict weigh 1.0."""
    y = np.asarray(y)
    weights = np.ones(shape=(y.shape[0],), dtype=np.float32)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    y = np.round(y).astype("int32")
    for i in range(y.shape[0]):
        # ``int()`` of a row (y of rank 3 or more) raises NumPy's TypeError, as in Keras.
        weights[i] = class_weight.get(int(y[i]), 1.0)
    return weights

"""What the preprocessing layers share: argument checks worded as Keras words them, turning call arguments into
tensors, Keras's ``TrackedList`` for list attributes, and the data sources ``adapt`` reads."""

from __future__ import annotations

import numpy as np

from ...._core.tensor import Tensor, convert_to_tensor, is_tensor
from ....ops.array_ops import cast
from ....ops.ragged_tensor import RaggedTensor
from ....ops.sparse_ops import SparseTensor
from ..base import Layer

__all__ = ["TrackedList", "track", "validate_string_arg", "ensure_tensor", "listify", "is_dataset",
           "is_batch_iterable", "feed_batches", "PreprocessingLayer", "tf"]


def tf():
    import tapeflow

    return tapeflow


class TrackedList(list):
    """A list kept by a layer attribute. Keras wraps every list assigned to a layer in one (so a config built from
    such an attribute holds one too); it is an ordinary list otherwise."""


def track(value):
    """``value`` as Keras keeps a layer attribute: lists (also inside tuples) become :class:`TrackedList` s."""
    if isinstance(value, TrackedList):
        return value
    if isinstance(value, list):
        return TrackedList(track(v) for v in value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return type(value)(track(v) for v in value)
    return value


def validate_string_arg(value, allowed, caller, arg, allow_none=False, allow_callables=False):
    """Raise Keras's ``ValueError`` unless ``value`` is one of the ``allowed`` strings (or None, or a callable,
    where those are allowed)."""
    if (allow_none and value is None) or (allow_callables and callable(value)):
        return
    if isinstance(value, str) and value in allowed:
        return
    raise ValueError(f"Unknown value for `{arg}` argument of {caller}. Allowed values are: {allowed}. "
                     f"Received: {arg}={value}")


def ensure_tensor(inputs, dtype=None):
    """``inputs`` as a tensor (ragged and sparse tensors stay as they are), cast to ``dtype`` when given."""
    if not isinstance(inputs, (Tensor, RaggedTensor, SparseTensor)):
        inputs = convert_to_tensor(inputs, None if is_tensor(inputs) else dtype)  # (a variable keeps its dtype)
    if dtype is not None and inputs.dtype.name != dtype:
        if isinstance(inputs, RaggedTensor):
            return inputs.with_flat_values(cast(inputs.flat_values, dtype))
        if isinstance(inputs, SparseTensor):
            return SparseTensor(inputs.indices, cast(inputs.values, dtype), inputs.dense_shape)
        inputs = cast(inputs, dtype)
    return inputs


def listify(x):
    """Tensors and arrays as (nested) lists, for configs; anything else as it is."""
    if isinstance(x, Tensor):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        x = x.tolist()
    return x


def is_dataset(data):
    from ....data.dataset import Dataset

    return isinstance(data, Dataset)


def is_batch_iterable(data):
    """Whether ``adapt`` reads ``data`` batch by batch: an iterable that is not a list, tuple, array or tensor."""
    return hasattr(data, "__iter__") and not (isinstance(data, (list, tuple, np.ndarray, str, bytes, RaggedTensor))
                                              or is_tensor(data))


def feed_batches(layer, data, steps, dtype):
    """Hand ``data`` to ``layer.update_state`` batch by batch, as the lookup layers' ``adapt`` reads it: a
    ``tf.data.Dataset`` (each element a batch; at most ``steps`` of them), an iterable of batches, or one batch (a
    list, array or tensor of ``dtype``; a vector is a column of one-token documents)."""
    if is_dataset(data):
        if steps is not None:
            data = data.take(steps)
        for batch in data:
            layer.update_state(batch)
    elif is_batch_iterable(data):
        for i, batch in enumerate(data):
            if steps is not None and i >= steps:
                break
            layer.update_state(batch)
    else:
        data = ensure_tensor(data, dtype=dtype)
        if data.shape.rank == 1:
            data = tf().expand_dims(data, -1)
        layer.update_state(data)


class PreprocessingLayer(Layer):
    """The base of the preprocessing layers: list attributes are kept as Keras keeps them (:class:`TrackedList`),
    and a call may take Python values (strings, lists), which ``call`` converts itself."""

    _convert_input_args = False
    _allow_non_tensor_positional_args = True

    def __setattr__(self, name, value):
        if isinstance(value, (list, tuple)) and not name.startswith("__"):
            value = track(value)
        super().__setattr__(name, value)

    def __call__(self, *args, **kwargs):
        # The Layer base builds from the first argument's shape; a Python string or list has none, and these
        # layers build nothing from it, so they are marked built first (as Keras marks them on their first call).
        if args and not hasattr(args[0], "shape") and not self.built:
            self.built = True
        return super().__call__(*args, **kwargs)

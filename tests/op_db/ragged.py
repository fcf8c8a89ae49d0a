"""Op database entries for the ragged tensors' ops: ``RaggedRowPositions`` (each value's row and position, index
work) and ``RaggedTensorToTensor`` (the dense form, with gradients to the flat values and the default value)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow.ops.ragged_tensor import RAGGED_ROW_POSITIONS

from .common import *  # noqa: F403


def _splits(x):
    """Row splits made from the sample: lengths 0 to 2."""
    lengths = tf.cast(tf.round(x * 2.0) % 3, tf.int64)
    return tf.concat([tf.constant([0], tf.int64), tf.cumsum(lengths)], 0)


def _np_positions(x):
    lengths = (np.round(x * 2.0) % 3).astype(np.int64)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    return rows, np.concatenate([np.arange(n) for n in lengths]).astype(np.int64) if len(rows) else rows


op("RaggedRowPositions", lambda x: execute(RAGGED_ROW_POSITIONS, (_splits(x),)), _np_positions,
   [make_sample("RaggedRowPositions", "vector", (uniform(),), ((6,),))], False,
   note="each value's row and position in it, for a ragged tensor's row splits (made from the sample)")

_LENGTHS = [2, 0, 3]


def _dense(values, default):
    rt = tf.RaggedTensor.from_row_lengths(values, _LENGTHS)
    return rt.to_tensor(default_value=default) ** 2


def _dense_ref(values, default):
    out = np.full((3, 3), default, values.dtype)
    k = 0
    for i, n in enumerate(_LENGTHS):
        out[i, :n] = values[k:k + n]
        k += n
    return out ** 2


op("RaggedTensorToTensor", _dense, _dense_ref,
   [make_sample("RaggedTensorToTensor", "rows", (uniform(), uniform()), ((5,), ()))], True,
   note="RaggedTensor.to_tensor (squared, so that the second-order test differentiates its rule's ops); the flat "
        "values' gradient is an IndexedSlices of every value, as TF's")

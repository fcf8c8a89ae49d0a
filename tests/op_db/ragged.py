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


def _int_rows(x):
    return tf.RaggedTensor.from_row_lengths(tf.cast(tf.round(x * 10.0), tf.int64), [2, 0, 2])


def _cross_ref(x):
    from tapeflow.ops.ragged_cross import _DEFAULT_HASH_KEY, _fingerprint_cat

    v = np.round(x * 10.0).astype(np.int64)
    rows = [list(v[0:2]), [], list(v[2:4])]
    out = []
    for row in rows:
        for a in row:
            for b in row:
                out.append(_fingerprint_cat(_fingerprint_cat(_DEFAULT_HASH_KEY, int(a) & (2**64 - 1)),
                                            int(b) & (2**64 - 1)) % 1000)
    return [np.asarray(out, np.int64), np.array([0, 4, 4, 8], np.int64)]


op("RaggedCross", lambda x: [tf.ragged.cross_hashed([_int_rows(x), _int_rows(x)], num_buckets=1000).flat_values,
                             tf.ragged.cross_hashed([_int_rows(x), _int_rows(x)], num_buckets=1000).row_splits],
   _cross_ref, [make_sample("RaggedCross", "vector", (uniform(),), ((4,),))], False,
   note="tf.ragged.cross_hashed of integer features made from the sample")


def _range_ref(x):
    limits = np.round(x * 3.0).astype(np.int32) % 4
    rows = [np.arange(0, n, dtype=np.int32) for n in limits]
    return [np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64),
            np.concatenate(rows) if rows else np.zeros(0, np.int32)]


op("RaggedRange", lambda x: [tf.ragged.range(tf.cast(tf.round(x * 3.0), tf.int32) % 4).row_splits,
                             tf.ragged.range(tf.cast(tf.round(x * 3.0), tf.int32) % 4).flat_values],
   _range_ref, [make_sample("RaggedRange", "vector", (uniform(),), ((4,),))], False,
   note="tf.ragged.range of limits made from the sample")

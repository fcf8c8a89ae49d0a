"""Op database entries for ``tf.dynamic_partition`` / ``tf.dynamic_stitch`` (each the other's gradient) and
``tf.bitcast``."""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403

_PARTS = [1, 0, 1, 2]


def _np_partition(x):
    parts = np.array(_PARTS)
    return [x[parts == p] for p in range(3)]


op("DynamicPartition", lambda x: tf.dynamic_partition(x, _PARTS, 3), _np_partition,
   [make_sample("DynamicPartition", "rows", (uniform(),), ((4, 3),)),
    make_sample("DynamicPartition", "vector", (uniform(),), ((4,),))], True)


def _np_stitch(a, b):
    out = np.zeros((4,) + a.shape[1:], a.dtype)
    out[[0, 2]] = a
    out[[3, 1]] = b
    return out


op("DynamicStitch", lambda a, b: tf.dynamic_stitch([[0, 2], [3, 1]], [a, b]), _np_stitch,
   [make_sample("DynamicStitch", "rows", (uniform(), uniform()), ((2, 3), (2, 3))),
    make_sample("DynamicStitch", "vector", (uniform(), uniform()), ((2,), (2,)))], True)

op("Bitcast", lambda x: tf.bitcast(x, tf.int32), lambda x: np.ascontiguousarray(x).view(np.int32).reshape(
    x.shape + ((2,) if x.dtype == np.float64 else ())),
   [make_sample("Bitcast", "matrix", (uniform(),), ((2, 3),))], False,
   note="the bytes of each value: a float64 becomes two int32s (a new last dimension)")

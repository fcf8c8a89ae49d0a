"""Op database entries for counting and searching: ``Unique``, ``UniqueWithCounts``, ``DenseBincount``,
``LowerBound``, ``UpperBound`` and ``HistogramFixedWidth``. None has a gradient (as in TF); the samples are floats,
made small non-negative integers where the op counts them."""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _ints(x):
    return tf.cast(tf.floor(tf.abs(x) * 3.0), tf.int32)


def _np_ints(x):
    return np.floor(np.abs(x) * 3.0).astype(np.int32)


def _np_unique(x):
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return [x[np.sort(first)], rank[inverse].astype(np.int32), counts[order].astype(np.int32)]


op("Unique", lambda x: list(tf.unique(tf.round(x * 2.0))), lambda x: _np_unique(np.round(x * 2.0))[:2],
   [make_sample("Unique", "vector", (uniform(),), ((8,),))], False)
op("UniqueWithCounts", lambda x: list(tf.unique_with_counts(tf.round(x * 2.0))),
   lambda x: _np_unique(np.round(x * 2.0)), [make_sample("UniqueWithCounts", "vector", (uniform(),), ((8,),))],
   False)
op("DenseBincount", lambda x, w: tf.math.bincount(_ints(x), weights=w, minlength=4),
   lambda x, w: np.bincount(_np_ints(x), weights=w, minlength=4).astype(w.dtype),
   [make_sample("DenseBincount", "weighted", (uniform(), uniform()), ((6,), (6,)))], False)
op("LowerBound", lambda s, v: tf.searchsorted(tf.sort(s), v),
   lambda s, v: np.searchsorted(np.sort(s), v).astype(np.int32),
   [make_sample("LowerBound", "vector", (uniform(), uniform()), ((5,), (3,)))], False)
op("UpperBound", lambda s, v: tf.searchsorted(tf.sort(s), v, side="right"),
   lambda s, v: np.searchsorted(np.sort(s), v, side="right").astype(np.int32),
   [make_sample("UpperBound", "vector", (uniform(), uniform()), ((5,), (3,)))], False)
op("HistogramFixedWidth", lambda x: tf.histogram_fixed_width(x, [0.0, 1.0], nbins=4),
   lambda x: np.bincount(np.clip(np.floor(x * 4), 0, 3).astype(np.int64), minlength=4).astype(np.int32),
   [make_sample("HistogramFixedWidth", "vector", (uniform(),), ((9,),))], False)

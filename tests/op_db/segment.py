"""Op database entries for the segment reductions (sorted and unsorted) and ``GatherDropNegatives``, the op their
gradients gather with. Segment ids are fixed per sample (kwargs), with empty segments and, for unsorted ops,
negative (dropped) ids and multi-dimensional ids. Max/min samples have no ties, prod samples no zeros.

Prod has no complex samples: TF does not conjugate the segment-prod gradient.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _np_segments(reduce, empty, ids, data, num_segments):
    """Reference by a Python loop over segments (an algorithm unlike the op's)."""
    ids = np.asarray(ids)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    out = np.full((num_segments,) + data.shape[ids.ndim:], empty, dtype=data.dtype)
    for s in range(num_segments):
        members = rows[ids.reshape(-1) == s]
        if len(members):
            out[s] = reduce(members, axis=0)
    return out


_SORTED = (("vector", (5,), [0, 0, 2, 2, 3]), ("matrix_rows", (4, 2), [0, 1, 1, 3]),
           ("one_segment", (3,), [0, 0, 0]))
_UNSORTED = (("vector", (5,), [3, 0, 3, -1, 0], 5), ("matrix_rows", (4, 2), [1, -1, 1, 0], 3),
             ("ids_2d", (2, 3), [[0, 2, 0], [1, 2, -1]], 4))
# Max/min without empty segments: their dtype-extreme fill would overflow the finite differences of sum(f * w).
_UNSORTED_FULL = (("vector", (5,), [2, 0, 2, -1, 1], 3), ("matrix_rows", (4, 2), [1, -1, 1, 0], 2),
                  ("ids_2d", (2, 3), [[0, 2, 0], [1, 2, -1]], 3))


def _sorted_samples(name, gen, accept=None):
    return [make_sample(name, n, (gen,), (shape,), accept, {"ids": ids}) for n, shape, ids in _SORTED]


def _unsorted_samples(name, gen, accept=None, cases=_UNSORTED):
    return [make_sample(name, n, (gen,), (shape,), accept, {"ids": ids, "n": k}) for n, shape, ids, k in cases]


def _sorted_ref(reduce, empty):
    return lambda x, ids: _np_segments(reduce, empty, ids, x, ids[-1] + 1)


def _unsorted_ref(reduce, empty):
    return lambda x, ids, n: _np_segments(reduce, empty(x) if callable(empty) else empty, ids, x, n)


def _sorted_fn(fn):
    return lambda x, ids: fn(x, tf.constant(ids))


def _unsorted_fn(fn):
    return lambda x, ids, n: fn(x, tf.constant(ids), n)


def _np_mean(a, axis):
    return np.sum(a, axis=axis) / a.dtype.type(a.shape[axis])


op("SegmentSum", _sorted_fn(tf.math.segment_sum), _sorted_ref(np.sum, 0), _sorted_samples("SegmentSum", uniform()),
   True, complex_samples=[complex_sample("SegmentSum", "complex", [(uniform(), uniform(), (5,))],
                                         {"ids": [0, 1, 1, 1, 4]})])
op("SegmentMean", _sorted_fn(tf.math.segment_mean), _sorted_ref(_np_mean, 0),
   _sorted_samples("SegmentMean", uniform()), True)
op("SegmentMax", _sorted_fn(tf.math.segment_max), _sorted_ref(np.max, 0),
   _sorted_samples("SegmentMax", uniform(-4, 4), distinct), True)
op("SegmentMin", _sorted_fn(tf.math.segment_min), _sorted_ref(np.min, 0),
   _sorted_samples("SegmentMin", uniform(-4, 4), distinct), True)
op("SegmentProd", _sorted_fn(tf.math.segment_prod), _sorted_ref(np.prod, 1),
   _sorted_samples("SegmentProd", nonzero(0.5, 1.5)), True)

op("UnsortedSegmentSum", _unsorted_fn(tf.math.unsorted_segment_sum), _unsorted_ref(np.sum, 0),
   _unsorted_samples("UnsortedSegmentSum", uniform()), True,
   complex_samples=[complex_sample("UnsortedSegmentSum", "complex", [(uniform(), uniform(), (4,))],
                                   {"ids": [2, 0, -1, 2], "n": 3})],
   note="also reached by unsorted_segment_mean and unsorted_segment_sqrt_n (TF's composites)")
op("UnsortedSegmentMax", _unsorted_fn(tf.math.unsorted_segment_max),
   _unsorted_ref(np.max, lambda x: np.finfo(x.dtype).min), _unsorted_samples("UnsortedSegmentMax", uniform(-4, 4),
                                                                               distinct, _UNSORTED_FULL), True,
   note="empty segments hold the dtype's lowest value (checked by golden cases)")
op("UnsortedSegmentMin", _unsorted_fn(tf.math.unsorted_segment_min),
   _unsorted_ref(np.min, lambda x: np.finfo(x.dtype).max), _unsorted_samples("UnsortedSegmentMin", uniform(-4, 4),
                                                                               distinct, _UNSORTED_FULL), True,
   note="empty segments hold the dtype's highest value (checked by golden cases)")
op("UnsortedSegmentProd", _unsorted_fn(tf.math.unsorted_segment_prod), _unsorted_ref(np.prod, 1),
   _unsorted_samples("UnsortedSegmentProd", nonzero(0.5, 1.5)), True)


def _gather_fn(u, ids, n, shape):
    return vjp(lambda t: tf.math.unsorted_segment_sum(t, tf.constant(ids), n), tf.zeros(shape, u.dtype), u)


def _gather_ref(u, ids, n, shape):
    ids = np.asarray(ids)
    out = u[np.maximum(ids, 0)]
    out[ids < 0] = 0
    return out


_GATHERS = (("vector", [3, 0, 3, -1, 0], 5, (5,)), ("rows", [1, -1, 1, 0], 3, (4, 2)))
op("GatherDropNegatives", _gather_fn, _gather_ref,
   [make_sample("GatherDropNegatives", name, (uniform(),), ((n,) + shape[1:],),
                kwargs={"ids": ids, "n": n, "shape": shape}) for name, ids, n, shape in _GATHERS], True,
   covered_by="UnsortedSegmentSum", covered_rule=False,
   note="the segment gradients' gather (rows of u by id, zeros for negative ids); UnsortedSegmentSum is linear, so "
        "only this entry's own tests (u watched) run its rule")

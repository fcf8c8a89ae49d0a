"""Op database entries for sorting: ``TopKV2`` (``tf.math.top_k``), ``GatherAlongAxis`` (the values of ``tf.sort``)
and ``ScatterAlongAxis`` (their gradient op). Samples have no ties (a tie swaps places under a small change).
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _np_top_k(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1)


_TOP_K = (("vector", (5,), 2), ("matrix", (2, 4), 3), ("all_3d", (2, 2, 3), 3), ("k1", (3, 4), 1))
op("TopKV2", lambda x, k: tf.math.top_k(x, k).values, _np_top_k,
   [make_sample("TopKV2", n, (uniform(-4, 4),), (shape,), distinct, {"k": k}) for n, shape, k in _TOP_K], True,
   note="the values output (the int32 indices have no gradient; golden cases check them)")


def _np_sort(x, axis=-1, direction="ASCENDING"):
    out = np.sort(x, axis=axis)
    return np.flip(out, axis) if direction == "DESCENDING" else out


_SORTS = (("last_axis", (2, 4), {}), ("axis0", (3, 2), {"axis": 0}),
          ("descending", (5,), {"direction": "DESCENDING"}),
          ("middle_descending_3d", (2, 3, 2), {"axis": 1, "direction": "DESCENDING"}))
op("GatherAlongAxis", lambda x, **kw: tf.sort(x, **kw), _np_sort,
   [make_sample("GatherAlongAxis", n, (uniform(-4, 4),), (shape,), distinct, kw) for n, shape, kw in _SORTS], True,
   note="reached through tf.sort: the input picked along the axis in sorted order")


def _scatter_fn(u, shape, k):
    return vjp(lambda t: tf.math.top_k(t, k).values, tf.constant(_ranks(shape), u.dtype), u)


def _ranks(shape):
    """A fixed input without ties whose top-k positions are known: a shuffled arange."""
    n = int(np.prod(shape))
    return np.random.default_rng(7).permutation(n).reshape(shape).astype(np.float64)


def _scatter_ref(u, shape, k):
    x = _ranks(shape)
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    out = np.zeros(shape, u.dtype)
    np.put_along_axis(out, order, u, -1)
    return out


_SCATTERS = (("vector", (5,), 2), ("matrix", (2, 4), 3))
op("ScatterAlongAxis", _scatter_fn, _scatter_ref,
   [make_sample("ScatterAlongAxis", n, (uniform(),), (shape[:-1] + (k,),), kwargs={"shape": shape, "k": k})
    for n, shape, k in _SCATTERS], True, covered_by="TopKV2", covered_rule=False,
   note="TopKV2's and GatherAlongAxis's gradient op (u put back at the top-k positions, zeros elsewhere); both are "
        "linear in their input, so only this entry's own tests (u watched) run its rule")

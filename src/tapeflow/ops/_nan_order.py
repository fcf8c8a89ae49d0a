"""Where NaN lands in TF's sorts and top-k: the order TF's CPU kernels produce for rows that hold a NaN.

TF's ``TopKV2`` kernel (behind ``tf.math.top_k``, ``tf.sort`` and ``tf.argsort``) orders indices with C++ standard
library algorithms and the comparison ``x[b] < x[a]`` ("``a`` comes first"), ties broken by index. A NaN compares
false with everything, so it is "equal" to every value, and where it ends up depends on the algorithm's exact
sequence of comparisons. Without NaN the order is simply descending with ties in index order (NumPy's stable sort
gives that, and the callers use it); rows with a NaN come here, where that sequence of comparisons is replayed:

- ``k == n`` (every sort): ``std::sort`` (introsort, insertion sort below 17 elements) with the plain comparison,
  then each run of adjacent equal values (``==``, so NaNs are runs of one) put back in index order;
- ``1 < k < n``: a bounded heap (``gtl::TopN``) fed the indices in order with the tie-breaking comparison, then
  ``std::sort_heap``;
- ``k == 1``: Eigen's vectorised maximum of the row (lanes of 8 floats or 4 doubles, as on x86 with AVX), then the
  first index whose value equals it (index 0 when the maximum is NaN).

The algorithms are libstdc++'s and Eigen's, re-derived from their documented behaviour and checked against
TensorFlow 2.21 on thousands of random rows. They run in Python, one row at a time, only for rows with a NaN.
"""

from __future__ import annotations

import numpy as np

__all__ = ["top_k_row", "nan_rows"]


def nan_rows(x):
    """Indices of the rows (last axis) of a float array that hold a NaN, or None when none does."""
    if x.dtype.kind != "f" or x.size == 0:
        return None
    found = np.isnan(x).any(axis=-1)
    if not found.any():
        return None
    return np.argwhere(found)


def top_k_row(row, k):
    """The first ``k`` indices of the 1-D ``row`` in TF's TopKV2 order (``row`` may hold NaN)."""
    n = len(row)
    x = row.tolist()  # Python floats compare as the C++ kernel's floats do (float16 and float32 widen exactly)
    if k == 0:
        return []
    if k == 1:
        return [_first_max(x, 8 if row.dtype.itemsize <= 4 else 4)]
    if k == n:
        return _sorted_all(x)
    return _top_n(x, k)


# ------------------------------------------------------------------------------------------ k == n: std::sort


def _sorted_all(x):
    idx = list(range(len(x)))
    _std_sort(idx, lambda a, b: x[b] < x[a])
    i, n = 0, len(idx)
    while i < n:  # runs of equal values in index order (a NaN equals nothing, so it is a run of one)
        j = i + 1
        while j < n and x[idx[j]] == x[idx[i]]:
            j += 1
        if j - i > 1:
            idx[i:j] = sorted(idx[i:j])
        i = j
    return idx


_THRESHOLD = 16  # libstdc++'s introsort hands ranges of at most 16 elements to insertion sort


def _std_sort(a, comp):
    n = len(a)
    if n < 2:
        return
    _introsort(a, 0, n, 2 * (n.bit_length() - 1), comp)
    if n > _THRESHOLD:
        _insertion_sort(a, 0, _THRESHOLD, comp)
        for i in range(_THRESHOLD, n):
            _linear_insert(a, i, comp)
    else:
        _insertion_sort(a, 0, n, comp)


def _introsort(a, lo, hi, depth, comp):
    while hi - lo > _THRESHOLD:
        if depth == 0:  # heap sort of the range
            _heap_select(a, lo, hi, hi, comp)
            _sort_heap(a, lo, hi, comp)
            return
        depth -= 1
        _median_to_first(a, lo, lo + 1, lo + (hi - lo) // 2, hi - 1, comp)
        cut = _partition(a, lo + 1, hi, lo, comp)
        _introsort(a, cut, hi, depth, comp)
        hi = cut


def _median_to_first(a, result, i, j, k, comp):
    x, y, z = a[i], a[j], a[k]
    if comp(x, y):
        pick = j if comp(y, z) else k if comp(x, z) else i
    else:
        pick = i if comp(x, z) else k if comp(y, z) else j
    a[result], a[pick] = a[pick], a[result]


def _partition(a, first, last, pivot, comp):
    p = a[pivot]
    n = len(a)
    while True:
        while first < n and comp(a[first], p):  # the bounds stand in for C++'s sentinel (NaN can defeat it)
            first += 1
        last -= 1
        while last > 0 and comp(p, a[last]):
            last -= 1
        if first >= last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _insertion_sort(a, lo, hi, comp):
    for i in range(lo + 1, hi):
        if comp(a[i], a[lo]):
            v = a[i]
            a[lo + 1:i + 1] = a[lo:i]
            a[lo] = v
        else:
            _linear_insert(a, i, comp)


def _linear_insert(a, last, comp):
    val = a[last]
    prev = last - 1
    while prev >= 0 and comp(val, a[prev]):
        a[last] = a[prev]
        last = prev
        prev -= 1
    a[last] = val


# ------------------------------------------------------------------------------------------ heaps (std::*_heap)


def _push_up(a, base, hole, top, value, comp):
    parent = (hole - 1) // 2
    while hole > top and comp(a[base + parent], value):
        a[base + hole] = a[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[base + hole] = value


def _adjust(a, base, hole, n, value, comp):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[base + child], a[base + child - 1]):
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    _push_up(a, base, hole, top, value, comp)


def _make_heap(a, lo, hi, comp):
    n = hi - lo
    if n < 2:
        return
    for parent in range((n - 2) // 2, -1, -1):
        _adjust(a, lo, parent, n, a[lo + parent], comp)


def _pop_into(a, lo, last, result, comp):
    value = a[result]
    a[result] = a[lo]
    _adjust(a, lo, 0, last - lo, value, comp)


def _sort_heap(a, lo, hi, comp):
    while hi - lo > 1:
        hi -= 1
        _pop_into(a, lo, hi, hi, comp)


def _heap_select(a, lo, mid, hi, comp):
    _make_heap(a, lo, mid, comp)
    for i in range(mid, hi):
        if comp(a[i], a[lo]):
            _pop_into(a, lo, mid, i, comp)


# ------------------------------------------------------------------------------------------ 1 < k < n: gtl::TopN


def _top_n(x, k):
    def comp(a, b):  # "a ranks above b": larger value, or the smaller index among equals (and beside a NaN)
        if x[b] < x[a]:
            return True
        if x[b] > x[a]:
            return False
        return a < b

    kept = []
    heap = False
    for i in range(len(x)):
        if not heap:
            kept.append(i)
            if len(kept) == k + 1:  # full: becomes a heap whose front is the lowest-ranked, which is dropped
                _make_heap(kept, 0, k + 1, comp)
                _pop_into(kept, 0, k, k, comp)
                kept.pop()
                heap = True
        elif comp(i, kept[0]):
            _pop_into(kept, 0, k - 1, k - 1, comp)
            kept[-1] = i
            _push_up(kept, 0, k - 1, 0, i, comp)
    _sort_heap(kept, 0, k, comp)
    return kept


# ------------------------------------------------------------------------------------------ k == 1: Eigen's maximum


def _lane_max(acc, new):
    return new if acc < new else acc  # std::max(acc, new): a NaN never replaces, a NaN held stays


def _simd_max(a, b):
    return a if a > b else b  # x86 ``maxps``: the second operand unless the first is greater


def _first_max(x, lanes):
    n = len(x)
    inf = float("inf")
    packet = [-inf] * lanes
    start = 0
    if n >= 4 * lanes:  # four packet accumulators, unrolled, then folded into the first
        accs = [[-inf] * lanes for _ in range(4)]
        end = n // (4 * lanes) * 4 * lanes
        for j in range(0, end, 4 * lanes):
            for a in range(4):
                base = j + a * lanes
                acc = accs[a]
                for lane in range(lanes):
                    acc[lane] = _lane_max(acc[lane], x[base + lane])
        packet = accs[0]
        for a in (1, 2, 3):
            packet = [_lane_max(p, q) for p, q in zip(packet, accs[a])]
        start = end
    end = n // lanes * lanes
    for j in range(start, end, lanes):
        for lane in range(lanes):
            packet[lane] = _lane_max(packet[lane], x[j + lane])
    scalar = -inf
    for j in range(max(start, end), n):
        v = x[j]
        scalar = scalar if v < scalar else v  # the scalar tail: a NaN does replace here
    top = packet
    if lanes == 8:
        top = [_simd_max(top[i], top[i + 4]) for i in range(4)]
    top = [_simd_max(top[i], top[i ^ 2]) for i in range(4)]
    best = _lane_max(scalar, _simd_max(top[0], top[1]))
    for i, v in enumerate(x):
        if v == best:
            return i
    return 0

"""Where NaN, infinities and signed zeros go in TF's orderings and extremes: ``argmax``/``argmin``,
``top_k`` (k = 1 goes through Eigen's vectorised maximum, 1 < k < n through a bounded heap, k = n through a full
sort), ``sort``/``argsort`` in both directions, the reductions, ``maximum``/``minimum``, ``clip_by_value``,
``softmax``/``log_softmax``, the segment extremes, and the gradients that follow these forwards.

Rows are built from a fixed NumPy seed, so both frameworks see the same values; lengths run from 1 to beyond the
16 elements where the full sort leaves insertion sort, and to several hundred for the vectorised maximum.
"""

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype

NAN, INF = float("nan"), float("inf")

SMALL = [[3.0, NAN, 1.0], [NAN, 3.0, 1.0], [1.0, 3.0, NAN], [NAN, NAN, 1.0], [NAN, NAN], [1.0, NAN, 3.0, NAN, 2.0],
         [-INF, NAN, INF], [0.0, -0.0], [-0.0, 0.0], [INF, 1.0], [-INF, -INF], [1.0, 1.0, NAN], [NAN, 1.0, 1.0],
         [2.0, 5.0, NAN, 5.0], [NAN, -INF], [-INF, NAN], [NAN], [5.0], [-3.4028235e38, -INF]]


def _rows(seed, count, low, high):
    """``count`` rows of random length in ``[low, high)`` mixing NaN, +-inf, +-0, repeats and small integers."""
    rng = np.random.default_rng(seed)
    pool = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 5.0, -1.0])
    rows = []
    for _ in range(count):
        n = int(rng.integers(low, high))
        row = rng.choice(pool, n) if rng.random() < 0.7 else rng.normal(size=n).round(1)
        if rng.random() < 0.6:
            row[rng.integers(0, n, max(1, n // 4))] = NAN
        rows.append(row.tolist())
    return rows


def _per_row(tf, rows, fn, dtypes=("float32", "float64")):
    return {d: [fn(tf.constant(r, getattr(tf, d))) for r in rows] for d in dtypes}


# --------------------------------------------------------------------------------------------- argmax, argmin


@case
def argmax_argmin_small(tf):
    return _per_row(tf, SMALL, lambda x: [tf.argmax(x), tf.argmin(x), tf.math.argmax(x, output_type=tf.int32)],
                    ("float16", "float32", "float64"))


@case
def argmax_argmin_random_rows(tf):
    return _per_row(tf, _rows(1, 60, 1, 40) + _rows(2, 6, 100, 400), lambda x: [tf.argmax(x), tf.argmin(x)])


@case
def argmax_argmin_axes(tf):
    x = tf.constant([[1.0, NAN, 3.0], [NAN, NAN, 2.0], [5.0, 4.0, NAN], [-INF, NAN, -INF]])
    x3 = tf.reshape(tf.constant(_rows(3, 1, 24, 25)[0]), [2, 3, 4])
    return [[tf.argmax(x, a) for a in (0, 1, -1)], [tf.argmin(x, a) for a in (0, 1, -1)],
            [tf.argmax(x3, a) for a in (0, 1, 2)], [tf.argmin(x3, a) for a in (0, 1, 2)],
            tf.argmax(tf.cast(x, tf.float64), 1), tf.argmin(tf.cast(x, tf.float16), 0)]


@case
def argmax_integers_and_bools(tf):
    i32 = tf.constant([[-2147483648, -2147483648, 5], [3, 7, 7]])
    return [tf.argmax(i32, 1), tf.argmin(i32, 1), tf.argmax(i32, 0), tf.argmin([True, False, True]),
            tf.argmax(tf.constant([0, 255, 255], tf.uint8)), tf.argmin(tf.constant([-1, -9, -9], tf.int64))]


# --------------------------------------------------------------------------------------------- reductions


@case
def reductions_with_nan(tf):
    def all_reductions(x):
        return [tf.reduce_max(x), tf.reduce_min(x), tf.reduce_sum(x), tf.reduce_mean(x), tf.reduce_prod(x),
                tf.reduce_logsumexp(x), tf.math.reduce_euclidean_norm(x), 1.0 / tf.reduce_max(x),
                1.0 / tf.reduce_min(x)]

    return _per_row(tf, SMALL, all_reductions)


@case
def reductions_with_nan_axes(tf):
    x = tf.constant([[1.0, NAN, 3.0], [NAN, NAN, 2.0], [5.0, 4.0, NAN], [-INF, 2.0, INF]])
    return [[tf.reduce_max(x, a) for a in (0, 1)], [tf.reduce_min(x, a) for a in (0, 1)],
            [tf.reduce_logsumexp(x, a) for a in (0, 1)], tf.reduce_max(x, 1, keepdims=True)]


@case
def reduce_max_min_grad_nan(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_max(x), tf.reduce_min(x), tf.reduce_max(x, 1),
                                         tf.reduce_min(x, 0)],
                          [[3.0, NAN, 1.0], [2.0, 5.0, 5.0], [-INF, 0.0, -0.0]])


# --------------------------------------------------------------------------------------------- top_k


@case
def top_k_small_rows(tf):
    def every_k(x):
        n = x.shape[0]
        return [tf.math.top_k(x, k) for k in sorted({1, min(2, n), n - 1, n} - {0})]

    return _per_row(tf, SMALL, every_k)


@case
def top_k_random_rows(tf):
    def every_k(x):
        n = x.shape[0]
        return [tf.math.top_k(x, k).indices for k in sorted({1, min(2, n), min(3, n), n // 2, n - 1, n} - {0})]

    return _per_row(tf, _rows(4, 60, 1, 45), every_k)


@case
def top_k_long_rows(tf):
    # k = 1 goes through Eigen's maximum in lanes of 8 floats (4 doubles) with four accumulators past 4 lanes'
    # worth, then a scalar tail: lengths around those boundaries.
    rows = _rows(5, 12, 28, 40) + _rows(6, 4, 250, 400)
    return _per_row(tf, rows, lambda x: [tf.math.top_k(x, 1), tf.math.top_k(x, 5).indices])


@case
def top_k_batched(tf):
    x = tf.reshape(tf.constant(_rows(7, 1, 48, 49)[0]), [2, 3, 8])
    return [tf.math.top_k(x, k) for k in (1, 2, 7, 8)] + [tf.math.top_k(tf.cast(x, tf.float16), 3)]


@case
def top_k_grad_nan(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.top_k(x, 1).values, tf.math.top_k(x, 2).values,
                                         tf.math.top_k(x, 3).values * tf.constant([1.0, 2.0, 3.0], x.dtype)],
                          [[3.0, NAN, 1.0, 2.0], [1.0, NAN, 3.0, NAN]])


# --------------------------------------------------------------------------------------------- sort, argsort


@case
def sort_small_rows(tf):
    return _per_row(tf, SMALL, lambda x: [tf.sort(x), tf.sort(x, direction="DESCENDING"), tf.argsort(x),
                                          tf.argsort(x, direction="DESCENDING"), tf.argsort(x, stable=True)])


@case
def sort_random_rows(tf):
    rows = _rows(8, 50, 1, 60)
    return _per_row(tf, rows, lambda x: [tf.argsort(x), tf.argsort(x, direction="DESCENDING")])


@case
def sort_axes(tf):
    x = tf.reshape(tf.constant(_rows(9, 1, 60, 61)[0]), [3, 4, 5])
    return [[tf.argsort(x, a) for a in (0, 1, 2)], [tf.sort(x, a, "DESCENDING") for a in (0, -2)],
            tf.sort(tf.cast(x, tf.float16), 1)]


@case
def sort_grad_nan(tf):
    w = [1.0, 2.0, 3.0, 4.0]
    return grads_by_dtype(tf, lambda x: [tf.sort(x) * tf.constant(w, x.dtype),
                                         tf.sort(x, direction="DESCENDING") * tf.constant(w, x.dtype)],
                          [[3.0, NAN, 1.0, 2.0], [NAN, 1.0, NAN, 0.0]])


# --------------------------------------------------------------------------------------------- elementwise extremes


@case
def maximum_minimum_clip(tf):
    def extremes(x):
        return [tf.maximum(x, 1.0), tf.maximum(1.0, x), tf.minimum(x, 1.0), tf.minimum(1.0, x),
                tf.maximum(x, 0.0), tf.clip_by_value(x, 0.0, 2.0), tf.clip_by_value(x, -INF, INF),
                1.0 / tf.maximum(x, 0.0), 1.0 / tf.maximum(0.0, x), 1.0 / tf.minimum(x, 0.0),
                1.0 / tf.clip_by_value(x, 0.0, 2.0), tf.nn.relu(x), tf.nn.relu6(x)]

    return _per_row(tf, SMALL, extremes)


@case
def maximum_minimum_clip_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.maximum(x, 1.0), tf.minimum(x, 1.0), tf.clip_by_value(x, 0.5, 2.0),
                                         tf.maximum(x, tf.reverse(x, [0]))],
                          [3.0, NAN, 1.0, -INF, 0.5])


# --------------------------------------------------------------------------------------------- softmax


@case
def softmax_nonfinite(tf):
    rows = [[3.0, NAN, 1.0], [INF, 1.0], [-INF, 1.0], [INF, INF], [-INF, -INF], [NAN, NAN], [1.0, 2.0, -INF]]
    return _per_row(tf, rows, lambda x: [tf.nn.softmax(x), tf.nn.log_softmax(x), tf.math.reduce_logsumexp(x)])


@case
def softmax_nonfinite_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.nn.softmax(x) * tf.constant([1.0, 2.0, 3.0], x.dtype),
                                         tf.nn.log_softmax(x)], [[3.0, NAN, 1.0], [-INF, 1.0, 2.0]])


# --------------------------------------------------------------------------------------------- segment extremes


@case
def segment_max_min_nan(tf):
    def extremes(x):
        ids = tf.zeros([x.shape[0]], tf.int32)
        return [tf.math.segment_max(x, ids), tf.math.segment_min(x, ids), tf.math.unsorted_segment_max(x, ids, 2),
                tf.math.unsorted_segment_min(x, ids, 2)]

    return _per_row(tf, SMALL + _rows(10, 10, 2, 12), extremes)


@case
def segment_max_nan_columns(tf):
    data = tf.constant([[1.0, NAN], [NAN, 2.0], [3.0, 4.0], [NAN, NAN], [0.0, 5.0], [NAN, -1.0]])
    ids = tf.constant([0, 0, 0, 1, 1, 2])
    uids = tf.constant([2, 0, 2, 0, 1, 1])
    return [tf.math.segment_max(data, ids), tf.math.segment_min(data, ids),
            tf.math.unsorted_segment_max(data, uids, 4), tf.math.unsorted_segment_min(data, uids, 3)]


@case
def segment_max_grad_nan(tf):
    ids = [0, 0, 0, 1, 1]
    return grads_by_dtype(tf, lambda x: [tf.math.segment_max(x, ids), tf.math.unsorted_segment_min(x, ids, 2)],
                          [3.0, NAN, 1.0, NAN, 2.0])


# --------------------------------------------------------------------------------------------- arg errors


@case
def argmax_errors(tf):
    z = tf.zeros
    return [catch(tf.argmax, z([0])), catch(tf.argmin, z([0])), catch(tf.argmax, z([2, 0]), 1),
            tf.argmax(z([0, 2]), 1), catch(tf.argmax, z([0, 2]), 0), catch(tf.argmax, z([3]), 1),
            catch(tf.argmax, z([3]), -2), catch(tf.argmax, 3.0), catch(tf.argmin, 3.0, -1),
            catch(tf.argmax, z([0]), output_type=tf.int32), catch(tf.argmax, z([2, 0]), tf.constant(1, tf.int64)),
            catch(tf.argmax, [], 0), catch(tf.argmax, [[]], 1), tf.argmax(z([0, 3]), 1),
            catch(tf.argmax, z([1, 0, 3]), 1), catch(tf.argmax, z([1, 0, 3]), -2), catch(tf.argmax, z([2]), [0]),
            catch(tf.argmax, z([2]), 0.0), catch(tf.argmax, z([2]), tf.constant(0.0)),
            catch(tf.argmax, z([2, 2]), tf.constant([1])), catch(tf.argmax, ["a"]),
            catch(tf.argmax, tf.zeros([2], tf.complex64)), catch(tf.argmax, z([2]), output_type=tf.float32),
            catch(tf.argmin, z([2]), output_type=tf.int16), tf.argmax(z([2]), output_type=tf.int16),
            tf.argmax(z([2]), output_type=tf.uint16), catch(tf.argmax, z([2]), output_type=tf.uint8),
            tf.argmax(z([2, 3]), tf.constant(-1))]


@case
def arg_axis_kinds(tf):
    z = tf.zeros([2, 3])
    axes = [np.int64(1), np.int32(1), True, np.array(1), np.array([1]), tf.constant(1, tf.int16),
            tf.constant(1, tf.uint8), tf.constant(1, tf.int64), tf.Variable(1), [0], 0.0, tf.constant(0.0), [1.5],
            "a", None, np.float32(1.0), tf.constant([1])]
    return [[catch(f, z, a) for f in (tf.argmax, tf.argmin)] for a in axes]


@case
def reduce_empty(tf):
    z = tf.zeros
    return [tf.reduce_max(z([0])), tf.reduce_min(tf.zeros([0], tf.int32)), tf.reduce_max(z([2, 0]), 1),
            tf.reduce_min(z([0, 3]), 0), tf.reduce_sum(z([0])), tf.reduce_prod(z([0, 2]), 0), tf.reduce_mean(z([0])),
            tf.reduce_logsumexp(z([0])), tf.reduce_max(tf.zeros([0], tf.uint8)),
            tf.reduce_any(tf.zeros([0], tf.bool)), tf.reduce_all(tf.zeros([0], tf.bool)),
            tf.math.reduce_euclidean_norm(z([0])), catch(tf.reduce_max, z([0]), 1)]

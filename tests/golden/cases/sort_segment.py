"""``tf.math.top_k``, ``tf.sort``, ``tf.argsort`` and the segment reductions: values, dtypes, gradients (float32 and
float64), TF's conventions (ties in index order, empty segments, tie-splitting and zeros in gradients) and errors.

Not covered on purpose: NaN ordering (TF's comparison sort leaves it implementation-defined) and the order of
``top_k(..., sorted=False)`` for ``k`` below the row length (TF's internal heap order; tapeflow returns sorted).
"""

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype, second_derivatives


def _weights(tf, y):
    return tf.cast(tf.reshape(tf.range(1, tf.size(y) + 1), tf.shape(y)), y.dtype)


# --------------------------------------------------------------------------------------------- top_k


@case
def top_k_values_indices(tf):
    x = tf.constant([[1.0, 5.0, 3.0, 5.0], [2.0, 2.0, 0.0, -1.0]])
    r = tf.math.top_k(x, 2)
    return [r, r.values, r.indices, tf.math.top_k(x), tf.math.top_k(x, 4), tf.math.top_k(x, 0),
            tf.nn.top_k([1, 3, 3, 2, 3], 3), tf.math.top_k([[1.0, 3.0, 3.0]], 1),
            tf.math.top_k(x, k=tf.constant(3, tf.int64), index_type=tf.int64),
            tf.math.top_k(x, 2, index_type=tf.int16), tf.math.top_k(x, 4, sorted=False),
            tf.math.top_k(tf.reshape(tf.range(12), [2, 3, 2]), 1), tf.math.top_k(tf.zeros([2, 0]), 0),
            tf.math.top_k([0.0, -0.0, 0.0], 2), tf.nn.top_k is tf.math.top_k]


@case
def top_k_dtypes(tf):
    return [tf.math.top_k(tf.constant([3, 1, 2], dt), 2) for dt in
            (tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.int8, tf.int16, tf.int64, tf.float16)]


@case
def top_k_grad(tf):
    x = [[1.0, 5.0, 3.0], [2.0, 2.0, 0.0]]
    return grads_by_dtype(tf, lambda x: [tf.math.top_k(x, 2).values * _weights(tf, tf.math.top_k(x, 2).values),
                                         tf.math.top_k(x, 3).values, tf.math.top_k(x, 1).values], x)


@case
def top_k_indices_grad_is_none(tf):
    x = tf.constant([[1.0, 5.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r = tf.math.top_k(x, 2)
        i = tf.cast(r.indices, tf.float32)
    return [tape.gradient(i, x), tape.gradient(r, x), tape.gradient([r.values, i], x)]


@case
def top_k_second_order(tf):
    return second_derivatives(tf, lambda x: tf.math.top_k(x * x, 2).values, [[1.0, -3.0, 2.0], [0.5, 0.25, -2.0]])


@case
def top_k_errors(tf):
    t = tf.constant([1.0, 2.0])
    return [catch(tf.math.top_k, [1.0, 2.0], 3), catch(tf.math.top_k, t, 3), catch(tf.math.top_k, [1.0], -1),
            catch(tf.math.top_k, t, -1), catch(tf.math.top_k, 1.0, 1), catch(tf.math.top_k, tf.constant(1.0), 1),
            catch(tf.math.top_k, [True, False], 1), catch(tf.math.top_k, tf.constant([True]), 1),
            catch(tf.math.top_k, tf.constant([1j]), 1), catch(tf.math.top_k, t, [1]),
            catch(tf.math.top_k, [1.0, 2.0], 1.0), catch(tf.math.top_k, [1.0], 1, index_type=tf.float32),
            catch(tf.math.top_k, t, 1, index_type=tf.float32), catch(tf.math.top_k, t, 1, sorted=1),
            catch(tf.math.top_k, t, 1.0), catch(tf.math.top_k, t, tf.constant(1.0)), tf.math.top_k(t, np.int64(1))]


# --------------------------------------------------------------------------------------------- sort, argsort


@case
def sort_argsort_values(tf):
    m = tf.constant([[3.0, 1.0, 2.0], [2.0, 5.0, 2.0]])
    return [tf.sort(m), tf.sort(m, direction="DESCENDING"), tf.sort(m, axis=0), tf.argsort(m), tf.argsort(m, 0),
            tf.argsort(m, direction="DESCENDING"), tf.argsort(m, stable=True),
            tf.argsort([2.0, 1.0, 2.0, 1.0]), tf.argsort([2, 1, 2, 1], direction="DESCENDING"),
            tf.argsort([0.0, -0.0, 0.0, -0.0]), tf.sort([0.0, -0.0, 1.0]),
            tf.argsort(tf.reshape(tf.range(8, 0, -1), [2, 2, 2]), axis=1), tf.sort([[1, 3, 2]], axis=-2),
            tf.sort(m, axis=tf.constant(0, tf.int64)), tf.sort(m, axis=1.0), tf.sort(tf.zeros([0])),
            tf.argsort(tf.zeros([2, 0]))]


@case
def sort_dtypes(tf):
    out = [tf.sort(tf.constant([2, 1, 255, 0], tf.uint8)), tf.sort(tf.constant([2, -2147483648, 2147483647, 0])),
           tf.sort(tf.constant([3, -128, 127], tf.int8), direction="DESCENDING"),
           tf.sort(tf.constant([2**62, -2**63, 5], tf.int64)), tf.sort(tf.constant([2**63, 5, 2**64 - 1], tf.uint64)),
           tf.sort(tf.constant([3, -1, 2], tf.float16)), tf.argsort(tf.constant([3, 1, 2], tf.uint16))]
    return out + [tf.sort(tf.constant([3, 1, 2], dt)) for dt in (tf.int16, tf.uint32, tf.int64, tf.float64)]


@case
def sort_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.sort(x) * _weights(tf, x), tf.sort(x, 0, "DESCENDING") * _weights(tf, x),
                                         tf.sort(x * x, axis=1)], [[3.0, 1.0, 2.0], [-2.0, 5.0, 0.5]])


@case
def sort_ties_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.sort(x) * _weights(tf, x),
                                         tf.sort(x, direction="DESCENDING") * _weights(tf, x)],
                          [1.0, 2.0, 1.0, 2.0])


@case
def argsort_grad_is_none(tf):
    x = tf.constant([3.0, 1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.argsort(x), tf.float32)
    return [y, tape.gradient(y, x)]


@case
def sort_errors(tf):
    x = [[3.0, 1.0], [2.0, 5.0]]
    return [catch(tf.sort, x, direction="UP"), catch(tf.argsort, x, direction="descending"),
            catch(tf.sort, x, direction=None), catch(tf.argsort, x, axis=[1], direction="X"),
            catch(tf.sort, x, axis=[1]), catch(tf.argsort, x, axis=(0,)), catch(tf.sort, x, axis=np.array([1])),
            catch(tf.sort, x, axis=None), catch(tf.sort, 3.0), catch(tf.sort, x, axis=2),
            catch(tf.argsort, x, axis=-3), catch(tf.sort, [True]), catch(tf.argsort, [True]),
            catch(tf.sort, [True], direction="DESCENDING"), catch(tf.sort, tf.constant([1j])),
            catch(tf.sort, tf.constant([1j]), direction="DESCENDING"), catch(tf.sort, ["a"]),
            catch(tf.sort, ["a"], direction="DESCENDING"), catch(tf.sort, tf.constant([1j]), axis=3),
            catch(tf.sort, [True], axis=3), catch(tf.sort, [True], axis=3, direction="DESCENDING")]


# --------------------------------------------------------------------------------------------- sorted segments


D = [1.0, 2.0, 3.0, 4.0, 5.0]
IDS = [0, 0, 2, 2, 3]
ROWS = [[1.0, 2.0], [3.0, 0.0], [5.0, 6.0], [-1.0, 4.0]]


@case
def segment_values_and_grad(tf):
    m = tf.math
    return grads_by_dtype(tf, lambda x: [m.segment_sum(x, IDS), m.segment_mean(x, IDS), m.segment_max(x, IDS),
                                         m.segment_min(x, IDS), m.segment_prod(x, IDS)], D)


@case
def segment_rows_grad(tf):
    m = tf.math
    ids = tf.constant([0, 0, 2, 2], tf.int64)
    return grads_by_dtype(tf, lambda x: [m.segment_sum(x, ids),
                                         m.segment_mean(x, ids) * _weights(tf, m.segment_mean(x, ids)),
                                         m.segment_max(x, ids), m.segment_min(x, ids), m.segment_prod(x, ids)], ROWS)


@case
def segment_max_min_ties_grad(tf):
    m = tf.math
    return grads_by_dtype(tf, lambda x: [m.segment_max(x, [0, 0, 0, 1]), m.segment_min(x, [0, 0, 1, 1])],
                          [3.0, 1.0, 3.0, 2.0])


@case
def segment_prod_zeros_grad(tf):
    m = tf.math
    return grads_by_dtype(tf, lambda x: m.segment_prod(x, [0, 0, 1, 1, 1, 2, 3, 3]),
                          [0.0, 3.0, 0.0, 0.0, 2.0, 0.0, 2.0, 4.0])


@case
def segment_prod_rows_with_zeros_grad(tf):
    m = tf.math
    x = [[0.0, 2.0], [3.0, 0.0], [0.0, 5.0], [1.0, 4.0], [0.0, 0.0]]
    return grads_by_dtype(tf, lambda x: [m.segment_prod(x, [0, 0, 0, 1, 1]),
                                         m.unsorted_segment_prod(x, [1, 0, 1, -1, 0], 3)],
                          x)


@case
def segment_second_order(tf):
    m = tf.math
    return {"prod": second_derivatives(tf, lambda x: m.segment_prod(x, [0, 0, 1, 1]), [1.5, -2.0, 0.5, 3.0]),
            "prod_zero": second_derivatives(tf, lambda x: m.segment_prod(x, [0, 0, 0, 1]), [1.5, 0.0, 2.0, 3.0]),
            "max": second_derivatives(tf, lambda x: m.segment_max(x * x, [0, 0, 1]), [1.0, -2.0, 3.0]),
            "mean": second_derivatives(tf, lambda x: m.segment_mean(x * x, [0, 1, 1]), [1.0, -2.0, 3.0])}


@case
def segment_dtypes(tf):
    m = tf.math
    i = [1, 2, 3]
    ids = [0, 2, 2]
    return [m.segment_sum(i, ids), m.segment_mean(i, ids), m.segment_max(i, ids), m.segment_min(i, ids),
            m.segment_prod(i, ids), m.segment_mean([-3, 2], [0, 0]),
            m.segment_sum(tf.constant([1, 2], tf.float16), [0, 0]),
            m.segment_max(tf.constant([200, 100], tf.uint8), [1, 1]),
            m.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)),
            m.segment_sum(tf.constant([1j, 2 + 0j]), [0, 0]), m.segment_prod(tf.constant([1j, 2 + 0j]), [0, 0]),
            m.segment_mean(tf.constant([1j, 2 + 0j]), [0, 0])]


@case
def segment_complex_grad(tf):
    out = {}
    for dt in ("complex64", "complex128"):
        x = tf.constant([1 + 2j, 3 - 1j, 0.5j], getattr(tf, dt))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            p = tf.math.real(tf.math.segment_prod(x, [0, 0, 1]))
            s = tf.math.real(tf.math.segment_mean(x, [0, 0, 1]) * (1 + 2j))
            u = tf.math.real(tf.math.unsorted_segment_prod(x, [1, 1, -1], 2))
        out[dt] = [p, s, u, tape.gradient(p, x), tape.gradient(s, x), tape.gradient(u, x)]
    return out


@case
def segment_errors(tf):
    m = tf.math
    C = tf.constant
    return [catch(m.segment_sum, [1.0, 2.0, 3.0], [1, 0, 0]), catch(m.segment_sum, C([1.0, 2.0]), C([1, 0])),
            catch(m.segment_sum, [1.0, 2.0, 3.0], [-1, 0, 0]), catch(m.segment_max, [1.0, 2.0, 3.0], [0, 0, -1]),
            catch(m.segment_sum, [1.0, 2.0], [-1, -1]), catch(m.segment_min, [1.0, 2.0, 3.0], [0, -1, 0]),
            catch(m.segment_sum, [1.0, 2.0, 3.0], [0, 2, 1]), catch(m.segment_mean, [1.0, 2.0, 3.0, 4.0], [0, 5, 6, 2]),
            catch(m.segment_prod, [1.0, 2.0, 3.0], [-2, -1, 0]), catch(m.segment_sum, [1.0, 2.0, 3.0], [0, 0]),
            catch(m.segment_sum, C([[1.0, 2.0]]), C([[0, 0]])), catch(m.segment_sum, C(1.0), C([[0]])),
            catch(m.segment_sum, [1.0, 2.0], [0.0, 1.0]), catch(m.segment_sum, C([1.0]), C([0.0])),
            catch(m.segment_sum, C([1.0]), C([0], tf.int16)), catch(m.segment_sum, [True], [0]),
            catch(m.segment_sum, C([True]), C([0])), catch(m.segment_max, C([1j]), C([0])),
            catch(m.segment_sum, C([1.0, 2.0]), [1, 0])]


# --------------------------------------------------------------------------------------------- unsorted segments


UIDS = [3, 0, 3, -1, 0]


@case
def unsorted_segment_values_and_grad(tf):
    m = tf.math
    return grads_by_dtype(tf, lambda x: [m.unsorted_segment_sum(x, UIDS, 5), m.unsorted_segment_mean(x, UIDS, 5),
                                         m.unsorted_segment_max(x, UIDS, 5), m.unsorted_segment_min(x, UIDS, 5),
                                         m.unsorted_segment_prod(x, UIDS, 5), m.unsorted_segment_sqrt_n(x, UIDS, 5)], D)


@case
def unsorted_segment_2d_ids_grad(tf):
    m = tf.math
    ids = tf.constant([[0, 2, 0], [1, 2, -1]])
    x = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
    return grads_by_dtype(tf, lambda x: [m.unsorted_segment_sum(x, ids, 3), m.unsorted_segment_mean(x, ids, 4),
                                         m.unsorted_segment_max(x, ids, 3),
                                         m.unsorted_segment_prod(x, ids, tf.constant(3)),
                                         m.unsorted_segment_sqrt_n(x, ids, 3)], x)


@case
def unsorted_segment_rows_grad(tf):
    m = tf.math
    ids = [1, -1, 1, 0]
    return grads_by_dtype(tf, lambda x: [m.unsorted_segment_sum(x, ids, 3), m.unsorted_segment_min(x, ids, 2),
                                         m.unsorted_segment_mean(x, ids, 3), m.unsorted_segment_sqrt_n(x, ids, 2)],
                          ROWS)


@case
def unsorted_segment_ties_and_zeros_grad(tf):
    m = tf.math
    return {"max_ties": grads_by_dtype(tf, lambda x: m.unsorted_segment_max(x, [0, 0, 1, 0], 2), [1.0, 3.0, 2.0, 3.0]),
            "prod_zeros": grads_by_dtype(tf, lambda x: m.unsorted_segment_prod(x, [0, 0, 1, 1, 1, -1, 2], 3),
                                         [0.0, 3.0, 0.0, 0.0, 2.0, 0.0, 5.0])}


@case
def unsorted_segment_second_order(tf):
    m = tf.math
    return {"prod": second_derivatives(tf, lambda x: m.unsorted_segment_prod(x, [1, 1, 0, -1], 2),
                                       [1.5, -2.0, 0.5, 3.0]),
            "prod_zero": second_derivatives(tf, lambda x: m.unsorted_segment_prod(x, [1, 1, 1, 0], 2),
                                            [1.5, 0.0, 2.0, 3.0]),
            "mean": second_derivatives(tf, lambda x: m.unsorted_segment_mean(x * x, [1, 0, 1], 2), [1.0, -2.0, 3.0])}


@case
def unsorted_segment_dtypes_and_empty(tf):
    m = tf.math
    out = []
    for dt in (tf.int32, tf.uint8, tf.float16, tf.int64, tf.float64):
        d = tf.constant([1, 2, 3], dt)
        out.append([m.unsorted_segment_sum(d, [0, 2, 2], 4), m.unsorted_segment_max(d, [0, 2, 2], 4),
                    m.unsorted_segment_min(d, [0, 2, 2], 4), m.unsorted_segment_prod(d, [0, 2, 2], 4),
                    m.unsorted_segment_mean(d, [0, 2, 2], 4)])
    return out + [m.unsorted_segment_sum([1.0, 2.0], 0, 1), m.unsorted_segment_sum([1.0], [0], np.int64(2)),
                  m.unsorted_segment_sum([1.0], tf.constant([0], tf.int16), 1),
                  m.unsorted_segment_mean([[1.0, 2.0], [3.0, 4.0]], [1, 1], 3),
                  m.unsorted_segment_sqrt_n(tf.constant([1, 2, 3], tf.float16), [0, 2, 2], 4),
                  m.unsorted_segment_sum(tf.constant([1j, 2 + 0j]), [0, 0], 1),
                  m.unsorted_segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32), 2)]


@case
def unsorted_segment_errors(tf):
    m = tf.math
    C = tf.constant
    out = []
    for f in (m.unsorted_segment_sum, m.unsorted_segment_max, m.unsorted_segment_prod, m.unsorted_segment_mean,
              m.unsorted_segment_sqrt_n):
        out += [catch(f, [1.0, 2.0, 3.0], [0, 5, 1], 3), catch(f, [1.0, 2.0, 3.0], [0, 1], 3),
                catch(f, [1.0, 2.0, 3.0], [0, 1, 1], -1), catch(f, [1.0, 2.0, 3.0], [0, 1, 1], 0),
                catch(f, [1.0, 2.0, 3.0], [0, 1, 1], [2]), catch(f, [1.0, 2.0, 3.0], [0, 1, 1], 2.0),
                catch(f, C([1.0, 2.0]), C([1, 5]), 2), catch(f, [True], [0], 1), catch(f, C([True]), C([0]), C(1)),
                catch(f, [1.0], [0.0], 1), catch(f, [1.0, 2.0], [0, 0, 0], 1)]
    return out + [catch(m.unsorted_segment_sum, [[1.0, 2.0], [3.0, 4.0]], [[0, 1], [7, 9]], 2),
                  catch(m.unsorted_segment_sum, [1.0, 2.0, 3.0], [-1, 5, 9], 2),
                  catch(m.unsorted_segment_max, C([1.0]), C([0], tf.int16), 1),
                  catch(m.unsorted_segment_sum, C([1.0, 2.0]), C([0]), -1),
                  catch(m.unsorted_segment_sum, C([1.0, 2.0]), C([5]), 1),
                  catch(m.unsorted_segment_max, C([1j]), C([0]), 1), catch(m.unsorted_segment_mean, C([1j]), C([0]), 1),
                  catch(m.unsorted_segment_sqrt_n, [1, 2], [0, 0], 1),
                  catch(m.unsorted_segment_sum, C([1.0]), C([0]), 1.0),
                  catch(m.unsorted_segment_sum, [1.0], C([0], tf.uint8), 1)]


@case
def namespaces(tf):
    names = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod", "unsorted_segment_sum",
             "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
             "unsorted_segment_sqrt_n", "top_k", "sort", "argsort"]
    return {n: [hasattr(tf, n), hasattr(tf.math, n), hasattr(tf.nn, n)] for n in names}

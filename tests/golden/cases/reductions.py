"""Reductions (prod, max/min ties, any/all, logsumexp, variance and std, euclidean norm, count_nonzero) and
cumulative sums/products: values, dtypes, gradients (float32 and float64), TF's conventions where the derivative is
a matter of convention (zeros in products, ties, non-finite inputs), second derivatives, and every error tapeflow
reproduces.

Gradient cases return ``{"float32": [y, [dy/dx...]], "float64": [...]}``; a list-returning function gets one
tape per output.
"""

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype, second_derivatives

X3 = [[[1.0, -2.0], [3.0, 0.5]], [[-1.5, 2.0], [0.25, 4.0]], [[2.0, 1.0], [-0.5, -3.0]]]


# --------------------------------------------------------------------------------------------- reduce_prod


@case
def reduce_prod_axes_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_prod(x), tf.reduce_prod(x, 0), tf.reduce_prod(x, [0, 2]),
                                         tf.reduce_prod(x, -1, keepdims=True), tf.math.reduce_prod(x, [2, 0], True)],
                          X3)


@case
def reduce_prod_zeros_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_prod(x), tf.reduce_prod(x, 1), tf.reduce_prod(x, 0)],
                          [[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]])


@case
def reduce_prod_second_order(tf):
    return {"plain": second_derivatives(tf, lambda x: tf.reduce_prod(x), [1.5, -2.0, 3.0]),
            "one_zero": second_derivatives(tf, lambda x: tf.reduce_prod(x), [1.5, 0.0, 3.0]),
            "two_zeros": second_derivatives(tf, lambda x: tf.reduce_prod(x, 1), [[0.0, 2.0, 0.0], [1.0, 2.0, 0.0]])}


@case
def reduce_prod_dtypes_and_edges(tf):
    return [tf.reduce_prod([2, 3, 4]), tf.reduce_prod(tf.constant([100, 100], tf.int8)),
            tf.reduce_prod(tf.constant([3, 4], tf.uint8)), tf.reduce_prod(tf.zeros([0])),
            tf.reduce_prod(tf.zeros([2, 0]), 1), tf.reduce_prod(tf.constant(2.5)),
            tf.reduce_prod(tf.constant([3.0, 40.0, 0.5], tf.float16)),
            tf.reduce_prod(tf.constant([1 + 1j, 2j])), tf.reduce_prod(tf.constant([[1 + 2j, 3 - 1j]], tf.complex64), 1)]


@case
def reduce_prod_complex_grad(tf):
    out = {}
    for dt in ("complex64", "complex128"):
        x = tf.constant([[1 + 2j, 3 - 1j], [0.5j, 2 + 0j]], getattr(tf, dt))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.real(tf.reduce_prod(x, 1) * (1 - 2j))
        out[dt] = [y, tape.gradient(y, x)]
    return out


@case
def reduce_prod_errors(tf):
    x = tf.constant([[1.0, 2.0]])
    return [catch(tf.reduce_prod, tf.constant([True])), catch(tf.reduce_prod, [True]), catch(tf.reduce_prod, x, 2),
            catch(tf.reduce_prod, x, [2]), catch(tf.reduce_prod, [1.0, 2.0], 1), catch(tf.reduce_prod, x, [0, -2]),
            catch(tf.reduce_prod, x, 1.0), catch(tf.reduce_prod, np.array([1.0]), 1)]


@case
def reduce_sum_max_python_list_errors(tf):
    return [catch(tf.reduce_sum, [1.0, 2.0], 1), catch(tf.reduce_max, [1.0, 2.0], 1),
            catch(tf.reduce_mean, np.array([1.0, 2.0]), 1), catch(tf.reduce_sum, 3.0, 0),
            catch(tf.reduce_sum, tf.constant(3.0), 0), catch(tf.reduce_max, [True, False])]


@case
def reduce_max_min_ties_multi_axis_grad(tf):
    x = [[[1.0, 3.0], [3.0, 0.0]], [[2.0, 2.0], [2.0, -1.0]]]
    return grads_by_dtype(tf, lambda x: [tf.reduce_max(x, [0, 2]), tf.reduce_min(x, [1, 2], keepdims=True),
                                         tf.reduce_max(x), tf.reduce_min(x, -1)], x)


@case
def reduce_max_min_second_order(tf):
    return {"max_plain": second_derivatives(tf, lambda x: tf.reduce_max(x, 1), [[1.0, 3.0, 3.0], [2.0, -1.0, 0.5]]),
            "max_square": second_derivatives(tf, lambda x: tf.reduce_max(x * x, 1),
                                             [[1.0, -3.0, 3.0], [2.0, -1.0, 0.5]]),
            "min_square_keepdims": second_derivatives(tf, lambda x: tf.reduce_min(x * x, keepdims=True),
                                                      [[1.0, -1.0, 3.0]])}


# --------------------------------------------------------------------------------------------- any, all


@case
def reduce_any_all_values(tf):
    b = tf.constant([[True, False, True], [False, False, True]])
    e = tf.zeros([0, 2], tf.bool)
    return [tf.reduce_any(b), tf.reduce_all(b), tf.reduce_any(b, 0), tf.reduce_all(b, 1, keepdims=True),
            tf.math.reduce_any(b, [0, 1]), tf.math.reduce_all(b, -1), tf.reduce_any(e), tf.reduce_all(e),
            tf.reduce_all(e, 0), tf.reduce_any([True, False]), tf.reduce_all(np.array([1.0, 0.0])),
            tf.reduce_any(np.array([2, 0]), keepdims=True)]


@case
def reduce_any_all_errors(tf):
    b = tf.constant([True])
    return [catch(tf.reduce_any, tf.constant([1.0])), catch(tf.reduce_all, tf.constant([1])),
            catch(tf.reduce_all, tf.constant(["a"])), catch(tf.reduce_any, [1.0, 0.0]), catch(tf.reduce_all, [1, 0]),
            catch(tf.reduce_all, 1.0), catch(tf.reduce_any, b, 1), catch(tf.reduce_all, b, [1]),
            catch(tf.reduce_all, [True], 2), catch(tf.reduce_any, tf.constant([[True]]), [0, 0])]


# --------------------------------------------------------------------------------------------- logsumexp


@case
def reduce_logsumexp_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_logsumexp(x), tf.reduce_logsumexp(x, 0),
                                         tf.math.reduce_logsumexp(x, [0, 2], keepdims=True),
                                         tf.reduce_logsumexp(x * 300.0, -1)],
                          X3)


@case
def reduce_logsumexp_non_finite(tf):
    inf = float("inf")
    return {"all_neg_inf": grads_by_dtype(tf, tf.reduce_logsumexp, [-inf, -inf]),
            "pos_inf": grads_by_dtype(tf, tf.reduce_logsumexp, [inf, 1.0]),
            "nan": grads_by_dtype(tf, tf.reduce_logsumexp, [float("nan"), 1.0]),
            "rows": grads_by_dtype(tf, lambda x: tf.reduce_logsumexp(x, 1), [[-inf, -inf], [0.0, -inf], [1.0, 2.0]]),
            "empty": grads_by_dtype(tf, tf.reduce_logsumexp, np.zeros([0])),
            "empty_rows": grads_by_dtype(tf, lambda x: tf.reduce_logsumexp(x, 1), np.zeros([2, 0]))}


@case
def reduce_logsumexp_second_order(tf):
    return second_derivatives(tf, lambda x: tf.reduce_logsumexp(x, 1), [[1.0, 2.0, -0.5], [0.0, 3.0, 3.0]])


@case
def reduce_logsumexp_dtypes_and_errors(tf):
    x = tf.constant([[1.0, 2.0]])
    return [tf.reduce_logsumexp(tf.constant([1.0, 2.0], tf.float16)), tf.reduce_logsumexp(2.0),
            tf.reduce_logsumexp([[1.0, 2.0]], 1, keepdims=True),
            catch(tf.reduce_logsumexp, [1, 2]), catch(tf.reduce_logsumexp, tf.constant([1, 2], tf.int64)),
            catch(tf.reduce_logsumexp, tf.constant([1 + 1j, 2 + 0j])), catch(tf.reduce_logsumexp, tf.constant([True])),
            catch(tf.reduce_logsumexp, x, 2), catch(tf.reduce_logsumexp, x, [2]),
            catch(tf.reduce_logsumexp, [1.0, 2.0], 1), catch(tf.reduce_logsumexp, tf.constant([1, 2]), 3)]


# --------------------------------------------------------------------------------------------- variance, std


@case
def reduce_variance_std_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.reduce_variance(x), tf.math.reduce_std(x),
                                         tf.math.reduce_variance(x, 0),
                                         tf.math.reduce_std(x, [0, 2], keepdims=True), tf.math.reduce_std(x, -1)], X3)


@case
def reduce_std_constant_input_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.reduce_std(x), tf.math.reduce_variance(x), tf.math.reduce_std(x, 1)],
                          [[2.0, 2.0], [1.0, 3.0]])


@case
def reduce_variance_std_second_order(tf):
    return {"variance": second_derivatives(tf, lambda x: tf.math.reduce_variance(x), [1.0, 2.0, 4.0]),
            "std": second_derivatives(tf, lambda x: tf.math.reduce_std(x, 1), [[1.0, 2.0, 4.0], [0.5, -1.0, 2.0]])}


@case
def reduce_variance_std_complex(tf):
    out = {}
    for dt in ("complex64", "complex128"):
        x = tf.constant([1 + 1j, 2 + 0j, -1j], getattr(tf, dt))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            v, s = tf.math.reduce_variance(x), tf.math.reduce_std(x)
        out[dt] = [v, s, tape.gradient(v, x), tape.gradient(s, x)]
    return out


@case
def reduce_variance_std_dtypes_and_errors(tf):
    x = tf.constant([[1.0, 2.0]])
    return [tf.math.reduce_variance(tf.constant([1, 2], tf.float16)), tf.math.reduce_std(tf.zeros([0])),
            tf.math.reduce_variance([1.0, 4.0]), tf.math.reduce_std(3.0),
            catch(tf.math.reduce_variance, [1, 2]), catch(tf.math.reduce_std, tf.constant([1, 2], tf.uint8)),
            catch(tf.math.reduce_variance, [True]), catch(tf.math.reduce_std, x, 2),
            catch(tf.math.reduce_variance, x, [2]), catch(tf.math.reduce_variance, [1.0, 2.0], 1),
            catch(tf.math.reduce_std, [1, 2], 5)]


# --------------------------------------------------------------------------------------------- euclidean norm


@case
def reduce_euclidean_norm_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.reduce_euclidean_norm(x), tf.math.reduce_euclidean_norm(x, 1),
                                         tf.math.reduce_euclidean_norm(x, [0, 2], True)], X3)


@case
def reduce_euclidean_norm_zero_and_second_order(tf):
    return {"zero": grads_by_dtype(tf, lambda x: [tf.math.reduce_euclidean_norm(x),
                                                  tf.math.reduce_euclidean_norm(x, 1)],
                                   [[0.0, 0.0], [3.0, 4.0]]),
            "second": second_derivatives(tf, lambda x: tf.math.reduce_euclidean_norm(x, 0), [[3.0, -1.0], [4.0, 2.0]])}


@case
def reduce_euclidean_norm_dtypes_and_errors(tf):
    z = tf.constant([3 + 4j, 1j], tf.complex64)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.math.real(tf.math.reduce_euclidean_norm(z))
    return [tf.math.reduce_euclidean_norm([3, 4]), tf.math.reduce_euclidean_norm([1, 1]),
            tf.math.reduce_euclidean_norm(tf.constant([100, 100], tf.int8)),
            tf.math.reduce_euclidean_norm(tf.constant([300, 400], tf.float16)),
            tf.math.reduce_euclidean_norm(tf.constant([3 + 4j, 0j])), tf.math.reduce_euclidean_norm(tf.zeros([0])),
            y, tape.gradient(y, z),
            catch(tf.math.reduce_euclidean_norm, tf.constant([True])),
            catch(tf.math.reduce_euclidean_norm, [True]), catch(tf.math.reduce_euclidean_norm, [1.0], 1),
            catch(tf.math.reduce_euclidean_norm, tf.constant([1.0]), [1])]


# --------------------------------------------------------------------------------------------- count_nonzero


@case
def count_nonzero_variants(tf):
    x = tf.constant([[0.0, 1.0, -0.0], [2.0, float("nan"), 0.0]])
    return [tf.math.count_nonzero(x), tf.math.count_nonzero(x, 0), tf.math.count_nonzero(x, 1, keepdims=True),
            tf.math.count_nonzero(x, [0, 1], dtype=tf.int32), tf.math.count_nonzero(x, dtype=tf.float32),
            tf.math.count_nonzero(x, 1, dtype=tf.bool), tf.math.count_nonzero(["", "a", "bc"]),
            tf.math.count_nonzero([True, False, True]), tf.math.count_nonzero(tf.constant([0j, 1j, 2 + 0j])),
            tf.math.count_nonzero(tf.zeros([0, 3]), 0), tf.math.count_nonzero(5),
            tf.math.count_nonzero(tf.constant([0, 3], tf.uint8), keepdims=True)]


@case
def count_nonzero_grad_and_errors(tf):
    x = tf.constant([1.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.count_nonzero(x, dtype=tf.float32)
    return [y, tape.gradient(y, x), catch(tf.math.count_nonzero, [1.0, 2.0], 1),
            catch(tf.math.count_nonzero, x, [1]), catch(tf.math.count_nonzero, x, [0, 0])]


# --------------------------------------------------------------------------------------------- cumsum, cumprod


M = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]


@case
def cumsum_flags_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.cumsum(x), tf.cumsum(x, 1), tf.math.cumsum(x, 1, exclusive=True),
                                         tf.cumsum(x, -1, reverse=True), tf.cumsum(x, 0, exclusive=True, reverse=True),
                                         tf.cumsum(x * x, axis=tf.constant(1, tf.int64))], M)


@case
def cumprod_flags_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.cumprod(x), tf.math.cumprod(x, 1),
                                         tf.math.cumprod(x, 1, exclusive=True),
                                         tf.math.cumprod(x, -1, reverse=True),
                                         tf.math.cumprod(x, 1, exclusive=True, reverse=True)], M)


@case
def cumprod_zeros_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.cumprod(x), tf.math.cumprod(x, exclusive=True),
                                         tf.math.cumprod(x, reverse=True),
                                         tf.math.cumprod(x, exclusive=True, reverse=True)],
                          [2.0, 0.0, 3.0, 0.0, 5.0])


@case
def cumsum_cumprod_second_order(tf):
    return {"cumprod": second_derivatives(tf, lambda x: tf.math.cumprod(x, 1), [[1.5, -2.0, 0.5], [2.0, 1.0, 3.0]]),
            "cumprod_zero": second_derivatives(tf, lambda x: tf.math.cumprod(x, exclusive=True), [2.0, 0.0, 3.0]),
            "cumsum": second_derivatives(tf, lambda x: tf.cumsum(x * x, reverse=True), [1.0, -2.0, 3.0])}


@case
def cumsum_cumprod_complex_grad(tf):
    out = {}
    for dt in ("complex64", "complex128"):
        x = tf.constant([2 + 1j, 1j, 3 + 0j], getattr(tf, dt))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            p = tf.math.real(tf.math.cumprod(x))
            s = tf.math.real(tf.cumsum(x, exclusive=True) * (1 + 2j))
        out[dt] = [p, s, tape.gradient(p, x), tape.gradient(s, x)]
    return out


@case
def cumsum_cumprod_dtypes(tf):
    return [tf.cumsum([1, 2, 3]), tf.cumsum(tf.constant([200, 100], tf.uint8)),
            tf.math.cumprod(tf.constant([100, 3], tf.int8)), tf.cumsum(tf.constant([1, 2], tf.float16), reverse=True),
            tf.cumsum(tf.zeros([0, 2]), exclusive=True), tf.math.cumprod(tf.zeros([2, 0]), 1, exclusive=True),
            tf.cumsum(tf.constant([1j, 2 + 0j]), exclusive=True), tf.math.cumprod([[2, 3], [4, 5]], 0, reverse=True),
            tf.cumsum(np.array([1.0, 2.0]))]


@case
def cumsum_cumprod_errors(tf):
    x = tf.zeros([2, 3])
    return [catch(tf.cumsum, [True]), catch(tf.math.cumprod, tf.constant([True])), catch(tf.cumsum, ["a"]),
            catch(tf.cumsum, 3.0), catch(tf.math.cumprod, 3.0), catch(tf.cumsum, x, 2), catch(tf.cumsum, x, -3),
            catch(tf.cumsum, x, -5), catch(tf.math.cumprod, [1.0], 1), catch(tf.cumsum, [1.0], [0]),
            catch(tf.cumsum, x, [[0]]), catch(tf.cumsum, [1.0], 0.0),
            catch(tf.cumsum, [1.0], exclusive=1), catch(tf.math.cumprod, [1.0], reverse="yes"),
            catch(tf.cumsum, [1.0], exclusive=tf.constant(True))]


@case
def namespaces(tf):
    names = ["reduce_prod", "reduce_any", "reduce_all", "reduce_logsumexp", "reduce_std", "reduce_variance",
             "reduce_euclidean_norm", "count_nonzero", "cumsum", "cumprod"]
    return {n: [hasattr(tf, n), hasattr(tf.math, n), hasattr(tf, n) and getattr(tf, n) is getattr(tf.math, n)]
            for n in names}


@case
def axis_kinds_and_error_suffix(tf):
    # NumPy arrays and tensors are accepted as axes; a list or tuple axis drops the " name: " suffix of errors.
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([True, False])
    out = [tf.reduce_sum(x, np.array([0])), tf.reduce_sum(x, np.array(1)), tf.reduce_sum(x, tf.constant([0, 1])),
           tf.reduce_max(x, np.int64(1))]
    for axis in ([-1], -1, None, (0,), np.array([0]), tf.constant([0])):
        out.append(catch(tf.reduce_sum, b, axis))
    for axis in ([3], 3, np.array([3]), tf.constant(3)):
        out.append(catch(tf.reduce_sum, x, axis))
    return out

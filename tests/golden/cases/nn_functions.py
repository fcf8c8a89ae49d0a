"""Neural-network functions: softmax and log_softmax, the softmax cross-entropies (values, gradients for logits
and labels, second derivatives), the sigmoid cross-entropies, l2_loss, l2_normalize, moments,
batch_normalization, bias_add and compute_average_loss, in float32 and float64, with TF's errors.
"""

import functools

import numpy as np

from tests.golden.harness import FLOAT_DTYPES, case, catch, grads_by_dtype

LOGITS = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 0.0, 0.0], [-3.0, 4.0, 1.5]]
PROBS = [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.25, 0.25, 0.5]]
W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.5, 2.0], [0.0, -2.0, 1.0]]


# One tape per dtype: a function returning a list is differentiated as the sum of its outputs.
_grads = functools.partial(grads_by_dtype, per_output=False)


def _hessian_vector(tf, fn, values, weights):
    """``{dtype: [y, grads, d(sum(grads * w))/dxs]}`` with nested tapes."""
    out = {}
    for d in FLOAT_DTYPES:
        dt = getattr(tf, d)
        xs = [tf.constant(v, dtype=dt) for v in values]
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xs)
            with tf.GradientTape() as inner:
                inner.watch(xs)
                y = fn(*xs)
            grads = inner.gradient(y, xs)
            dots = [None if g is None else tf.reduce_sum(g * tf.constant(w, dt)) for g, w in zip(grads, weights)]
        out[d] = [y, grads, [None if s is None else outer.gradient(s, xs) for s in dots]]
    return out


# --------------------------------------------------------------------------------------------- softmax


@case
def softmax_log_softmax_values_and_grads(tf):
    w = np.array(W)
    return _grads(tf, lambda x: [tf.nn.softmax(x) * w, tf.nn.log_softmax(x) * w, tf.math.softmax(x, axis=0) * w,
                                 tf.math.log_softmax(x, 0) * w, tf.nn.softmax(x, axis=-2) * w], LOGITS)


@case
def softmax_log_softmax_second_order(tf):
    return {"softmax": _hessian_vector(tf, lambda x: tf.nn.softmax(x) * np.array(W), [LOGITS], [W]),
            "log_softmax": _hessian_vector(tf, lambda x: tf.nn.log_softmax(x, axis=0) * np.array(W), [LOGITS], [W])}


@case
def softmax_rank3_and_vectors(tf):
    x = np.arange(24.0).reshape(2, 3, 4) / 7.0
    return [tf.nn.softmax(x), tf.nn.softmax(x, 1), tf.nn.log_softmax(x, axis=0), tf.nn.log_softmax([1.0, 2.0]),
            tf.nn.softmax(np.zeros((1, 1, 1, 1, 1, 2))), tf.nn.softmax([[1.0, 2.0]], axis=1),
            tf.nn.softmax(tf.constant([1.0, 2.0], tf.float16)), tf.nn.softmax(tf.zeros((2, 0)))]


@case
def softmax_extreme_values(tf):
    x = tf.constant([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, 1.0], [1.0, -np.inf, np.inf]])
    return [tf.nn.softmax(x), tf.nn.log_softmax(x), tf.nn.softmax(tf.constant([[-np.inf, -np.inf]]))]


@case
def softmax_errors(tf):
    return [catch(tf.nn.softmax, 1.0), catch(tf.nn.log_softmax, 1.0), catch(tf.nn.softmax, [1, 2]),
            catch(tf.nn.log_softmax, [1, 2]), catch(tf.nn.softmax, [1.0, 2.0], axis=1),
            catch(tf.nn.softmax, [[1.0, 2.0]], axis=-3), catch(tf.nn.log_softmax, [[1.0, 2.0]], axis=2),
            catch(tf.nn.softmax, 1.0, axis=0), catch(tf.nn.softmax, tf.constant([1 + 1j])),
            catch(tf.nn.softmax, [1.0, 2.0], axis=-1), catch(tf.nn.softmax, [1.0, 2.0], axis=0)]


# --------------------------------------------------------------------------------------------- sparse xent


@case
def sparse_xent_values_and_grads(tf):
    labels = [2, 0, 1, 1]
    return {"int32": _grads(tf, lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x), LOGITS),
            "int64": _grads(tf, lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.constant(labels, tf.int64), logits=x), LOGITS),
            "mean": _grads(tf, lambda x: tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=x)), LOGITS)}


@case
def sparse_xent_second_order(tf):
    return _hessian_vector(tf, lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0, 1, 1], x) *
                           np.array([1.0, 2.0, -1.0, 0.5]), [LOGITS], [W])


@case
def sparse_xent_ranks(tf):
    x3 = np.arange(18.0).reshape(2, 3, 3) / 5.0
    return [_grads(tf, lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits([[0, 2, 1], [1, 1, 0]], x), x3),
            _grads(tf, lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(2, x), [1.0, 2.0, 3.0]),
            tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros((0,), tf.int32), tf.zeros((0, 3))),
            tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros((0, 2), tf.int32), tf.zeros((0, 2, 3))),
            tf.nn.sparse_softmax_cross_entropy_with_logits([1], tf.constant([[1.0, 2.0, 3.0]], tf.float16))]


@case
def sparse_xent_label_errors(tf):
    f = tf.nn.sparse_softmax_cross_entropy_with_logits
    z = tf.zeros((2, 3))
    return [catch(f, [3, 0], z), catch(f, [-1, 0], z), catch(f, [5, -1], z), catch(f, [7, 5], z),
            catch(f, [[0, 5], [1, 1]], tf.zeros((2, 2, 3))), catch(f, list(range(12)), tf.zeros((12, 3))),
            catch(f, [0, 0], tf.zeros((2, 0))), catch(f, [[1, 1], [0, 1]], tf.zeros((2, 2, 0)))]


@case
def sparse_xent_shape_and_dtype_errors(tf):
    f = tf.nn.sparse_softmax_cross_entropy_with_logits
    z = tf.zeros((2, 3))
    return [catch(f, [2, 0, 1], z), catch(f, [[2, 0]], z), catch(f, 2, 1.0), catch(f, [2.0, 0.0], z),
            catch(f, tf.constant([1, 0], tf.uint8), z), catch(f, [1, 2], [[1, 2, 3], [1, 2, 3]]),
            catch(f, [1.5, 2.0], [[1, 2, 3], [1, 2, 3]]), catch(f, [1, 2], tf.constant([[1, 2, 3]] * 2, tf.complex64)),
            catch(f, [[1]], tf.zeros((1, 2, 0))), f(np.array([1, 2], np.int64), np.ones((2, 3)))]


@case
def sparse_xent_labels_get_no_gradient(tf):
    x = tf.constant(LOGITS)
    labels = tf.constant([2, 0, 1, 1])
    v = tf.Variable([0, 1, 2, 0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, labels])
        y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x)
        y2 = tf.nn.sparse_softmax_cross_entropy_with_logits(v, x)
    return [tape.gradient(y, [x, labels]), tape.gradient(y2, [x, v])]


# --------------------------------------------------------------------------------------------- dense xent


@case
def xent_values_and_grads_for_logits_and_labels(tf):
    return {"plain": _grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x), PROBS, LOGITS),
            "keywords": _grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
                               PROBS, LOGITS),
            "axis0": _grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x, axis=0),
                            np.array(PROBS)[:3].T, np.array(LOGITS)[:3].T),
            "mean": _grads(tf, lambda z, x: tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(z, x)),
                           PROBS, LOGITS)}


@case
def xent_second_order_including_mixed(tf):
    # TF's rule gives zeros for d(dloss/dlogits)/dlabels (the backprop's dependence on labels is ignored).
    return _hessian_vector(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x) *
                           np.array([1.0, 2.0, -1.0, 0.5]), [PROBS, LOGITS], [W, W])


@case
def xent_ranks_and_axes(tf):
    x3 = np.arange(24.0).reshape(2, 3, 4) / 5.0
    p3 = np.full((2, 3, 4), 0.25)
    p3a = np.full((2, 3, 4), 1.0 / 3.0)
    return [_grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x), p3, x3),
            _grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x, axis=1), p3a, x3),
            _grads(tf, lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x), [0.5, 0.5], [1.0, 2.0]),
            tf.nn.softmax_cross_entropy_with_logits(tf.zeros((0, 3)), tf.zeros((0, 3))),
            tf.nn.softmax_cross_entropy_with_logits(tf.zeros((2, 0)), tf.zeros((2, 0)))]


@case
def xent_label_conversion_and_broadcast(tf):
    f = tf.nn.softmax_cross_entropy_with_logits
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    return [f([[1, 0, 0], [0, 1, 0]], x), f(tf.constant([[True, False, False]] * 2), x),
            f(tf.constant([[0.2, 0.3, 0.5]] * 2, tf.float64), x), f([0.2, 0.3, 0.5], x), f([[0.2, 0.3, 0.5]], x),
            f(tf.constant([[0.2, 0.3, 0.5]], tf.float16), tf.constant([[1.0, 2.0, 3.0]], tf.float16)),
            f(tf.constant([[0.2, 0.3, 0.5]], tf.float64), tf.constant([[1.0, 2.0, 3.0]], tf.float16))]


@case
def xent_broadcast_labels_gradient_fails_as_in_tf(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    out = []
    for labels in ([0.2, 0.3, 0.5], [[0.2, 0.3, 0.5]]):
        z = tf.constant(labels)
        with tf.GradientTape() as tape:
            tape.watch([x, z])
            y = tf.nn.softmax_cross_entropy_with_logits(z, x)
        out.append(catch(tape.gradient, y, [x, z]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.softmax_cross_entropy_with_logits(z, x)
        out.append(tape.gradient(y, x))
    return out


@case
def xent_errors(tf):
    f = tf.nn.softmax_cross_entropy_with_logits
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    z = tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    return [catch(f, z[:, :2], x), catch(f, z, x[0]), catch(f, z, x, axis=2), catch(f, z, x, axis=-2),
            catch(f, z, x, axis=5), catch(f, 0.5, 1.0), catch(f, [[1.0, 0.0]], [[1, 2]]),
            catch(f, tf.constant([[1, 2, 3]], tf.complex64), tf.constant([[1.0, 2.0, 3.0]])),
            catch(f, tf.constant([[1.0, 2.0, 3.0]]), tf.constant([[1, 2, 3]], tf.complex64)),
            catch(f, tf.zeros((2, 2)), tf.zeros((3, 2))), f(z, x, axis=1)]


@case
def xent_extreme_logits(tf):
    f = tf.nn.softmax_cross_entropy_with_logits
    g = tf.nn.sparse_softmax_cross_entropy_with_logits
    return [f([[0.0, 0.0, 1.0]], [[1.0, np.inf, 3.0]]), f([[0.0, 0.0, 1.0]], [[1.0, -np.inf, 3.0]]),
            f([[0.0, 1.0, 0.0]], [[1.0, -np.inf, 3.0]]), g([1], [[1.0, -np.inf, 3.0]]), g([1], [[1.0, np.nan, 3.0]]),
            g([0, 1], [[1000.0, 0.0], [-1000.0, 1000.0]]), f([[1.0, 0.0]], [[-1000.0, 1000.0]])]


# --------------------------------------------------------------------------------------------- sigmoid xent


@case
def sigmoid_xent_values_and_grads(tf):
    x = [1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 30.0, -30.0, 100.0]
    z = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.0, 1.0, 1.0]
    return {"sigmoid": _grads(tf, lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), z, x),
            "weighted": _grads(tf, lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5), z, x),
            "weighted_tensor": _grads(tf, lambda z, x, q: tf.nn.weighted_cross_entropy_with_logits(
                labels=z, logits=x, pos_weight=q), z, x, 0.5)}


@case
def sigmoid_xent_second_order(tf):
    x = [1.0, -1.0, 0.0, 2.0]
    z = [0.0, 1.0, 0.5, 1.0]
    return {"sigmoid": _hessian_vector(tf, lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(z, x), [z, x],
                                       [[1.0, 2.0, 3.0, 4.0]] * 2),
            "weighted": _hessian_vector(tf, lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 3.0),
                                        [z, x], [[1.0, 2.0, 3.0, 4.0]] * 2)}


@case
def sigmoid_xent_errors(tf):
    f = tf.nn.sigmoid_cross_entropy_with_logits
    return [catch(f, [1.0, 0.0], [1.0, 2.0, 3.0]), catch(f, None, [1.0]), catch(f, [1.0]),
            catch(f, [1, 0], [1.0, 2.0]), f([[1.0], [0.0]], [[2.0], [-2.0]]),
            catch(tf.nn.weighted_cross_entropy_with_logits, [1.0, 0.0], [1.0, 2.0, 3.0], 2.0)]


# --------------------------------------------------------------------------------------------- l2


@case
def l2_loss_values_and_grads(tf):
    return [_grads(tf, tf.nn.l2_loss, [[1.0, -2.0], [3.0, 0.5]]), _grads(tf, tf.nn.l2_loss, 3.0),
            tf.nn.l2_loss(tf.constant([1.0, 2.0], tf.float16)), tf.nn.l2_loss(tf.zeros((0,)))]


@case
def l2_loss_errors(tf):
    return [catch(tf.nn.l2_loss, [1, 2]), catch(tf.nn.l2_loss, tf.constant([1, 2])),
            catch(tf.nn.l2_loss, [1 + 1j]), catch(tf.nn.l2_loss, tf.constant([1 + 1j]))]


@case
def l2_normalize_values_and_grads(tf):
    x = [[3.0, 4.0], [0.0, 0.0], [1.0, -2.0]]
    w = np.array([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
    return _grads(tf, lambda x: [tf.math.l2_normalize(x) * w, tf.math.l2_normalize(x, axis=1) * w,
                                 tf.nn.l2_normalize(x, 0) * w, tf.math.l2_normalize(x, axis=[0, 1]) * w,
                                 tf.math.l2_normalize(x, dim=1) * w, tf.math.l2_normalize(x, 1, epsilon=10.0) * w],
                  x)


@case
def l2_normalize_edge_cases(tf):
    return [tf.math.l2_normalize([1e-8, 0.0], epsilon=1e-3), tf.math.l2_normalize(tf.constant([3 + 1j, 4.0 + 0j])),
            catch(tf.math.l2_normalize, [[3.0, 4.0]], axis=2), catch(tf.math.l2_normalize, [[3.0]], 1, dim=1),
            catch(tf.math.l2_normalize, [3, 4]), tf.math.l2_normalize(tf.constant([3.0, 4.0], tf.float16))]


@case
def l2_normalize_complex_gradient(tf):
    z = tf.constant([3 + 1j, -1 + 2j], tf.complex128)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.math.l2_normalize(z) * tf.constant([1 + 2j, 0.5 - 1j], tf.complex128)
    return [y, tape.gradient(y, z)]


# --------------------------------------------------------------------------------------------- moments, bn


@case
def moments_values_and_grads(tf):
    x = [[1.0, 2.0, 4.0], [3.0, 5.0, -1.0]]
    return {"axis0": _grads(tf, lambda x: list(tf.nn.moments(x, axes=[0])), x),
            "all_keepdims": _grads(tf, lambda x: list(tf.nn.moments(x, [0, 1], keepdims=True)), x),
            "int_axis": _grads(tf, lambda x: list(tf.nn.moments(x, axes=1)), x),
            "negative_axis": _grads(tf, lambda x: list(tf.nn.moments(x, [-1], shift=3.0)), x),
            "variance_only": _grads(tf, lambda x: tf.nn.moments(x, [0, 1])[1], x)}


@case
def moments_dtypes_and_errors(tf):
    x = [[1.0, 2.0], [3.0, 5.0]]
    return [tf.nn.moments(tf.constant([[1, 2], [3, 5]]), [0]), tf.nn.moments(tf.constant(x, tf.float16), [0]),
            tf.nn.moments(tf.constant(x), []), tf.nn.moments(tf.constant([[[1.0, 2.0]]]), []),
            catch(tf.nn.moments, tf.constant(x), [2]), tf.nn.moments(tf.constant(x), [1], keepdims=True)]


@case
def batch_normalization_values_and_grads(tf):
    x = [[1.0, 2.0], [3.0, 5.0], [-1.0, 0.5]]
    return {"plain": _grads(tf, lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3), x,
                            [1.0, 2.0], [0.5, 2.0]),
            "affine": _grads(tf, lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 0.01), x,
                             [1.0, 2.0], [0.5, 2.0], [0.1, -0.2], [2.0, 3.0]),
            "with_moments": _grads(tf, lambda x: tf.nn.batch_normalization(x, *tf.nn.moments(x, [0]), 0.0, 1.0,
                                                                          1e-5), x)}


@case
def batch_normalization_argument_kinds(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    bn = tf.nn.batch_normalization
    return [catch(bn, x, [1.0, 2.0], [0.5, 2.0], None, None, 1e-3),
            bn(tf.constant([[1.0, 2.0]], tf.float16), tf.constant([1.0, 2.0]), tf.constant([0.5, 2.0]), None, None,
               1e-3),
            catch(bn, x, tf.constant([1.0, 2.0], tf.float64), tf.constant([0.5, 2.0]), None, None, 1e-3),
            bn(x, 1.0, tf.constant(4.0), 0.5, 2.0, 0.0)]


# --------------------------------------------------------------------------------------------- bias_add


@case
def bias_add_values_and_grads(tf):
    x4 = np.arange(24.0).reshape(2, 3, 2, 2)
    return {"nhwc": _grads(tf, lambda x, b: tf.nn.bias_add(x, b) * np.arange(6.0).reshape(2, 3),
                           [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [0.5, -1.0, 2.0]),
            "nchw": _grads(tf, lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW") * x4, x4, [1.0, 2.0, 3.0]),
            "nc...": _grads(tf, lambda x, b: tf.nn.bias_add(x, b, "NC...") * x4, x4, [1.0, 2.0, 3.0]),
            "ndhwc": _grads(tf, lambda x, b: tf.nn.bias_add(x, b, "NDHWC") * x4, x4, [1.0, 2.0])}


@case
def bias_add_second_order(tf):
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return _hessian_vector(tf, lambda x, b: tf.nn.bias_add(x, b) ** 2, [x, [0.5, -1.0, 2.0]],
                           [[[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], [1.0, -1.0, 2.0]])


@case
def bias_add_dtypes(tf):
    return [tf.nn.bias_add(tf.ones((2, 3), tf.int32), [1, 2, 3]),
            tf.nn.bias_add(tf.ones((2, 2), tf.complex64), tf.constant([1.0 + 0j, 2j], tf.complex64)),
            tf.nn.bias_add(tf.ones((2, 3)), np.array([1.0, 2.0, 3.0])), tf.nn.bias_add(tf.ones((2, 0)), tf.ones((0,))),
            tf.nn.bias_add([[1.0, 2.0]], [3.0, 4.0]), tf.nn.bias_add(tf.ones((2, 3, 1, 1)), tf.ones((3,)), "NCHW")]


@case
def bias_add_errors(tf):
    b = tf.nn.bias_add
    x = tf.ones((2, 3))
    return [catch(b, x, [1.0, 2.0]), catch(b, x, tf.constant([1.0, 2.0])), catch(b, tf.ones((3,)), [1.0, 2.0, 3.0]),
            catch(b, tf.ones((3,)), tf.constant([1.0, 2.0, 3.0])), catch(b, x, [[1.0, 2.0, 3.0]]),
            catch(b, x, tf.constant([[1.0]])), catch(b, x, 1.0), catch(b, x, tf.constant(1.0)),
            catch(b, tf.ones((2, 3, 4)), [1.0, 2.0, 3.0, 4.0], data_format="NCHW"),
            catch(b, x, [1.0, 2.0, 3.0], data_format="XYZ"), catch(b, x, [1.0, 2.0, 3.0], data_format="nchw"),
            catch(b, x, tf.constant([1.0, 2.0, 3.0], tf.float64)), catch(b, tf.ones((2, 3), tf.int32), [1.0, 2, 3]),
            catch(b, [[1, 2], [3, 4]], [1.0, 2]), catch(b, tf.ones((2, 5), tf.bool), [True] * 5),
            catch(b, [[1.0, 2.0]], [1.0]), catch(b, tf.ones((3,)), tf.constant([[1.0]]))]


# --------------------------------------------------------------------------------------------- average loss


@case
def compute_average_loss_values_and_grads(tf):
    cal = tf.nn.compute_average_loss
    return {"default": _grads(tf, cal, [1.0, 2.0, 3.0]),
            "global_batch": _grads(tf, lambda x: cal(x, global_batch_size=4), [1.0, 2.0, 3.0]),
            "zero_batch": _grads(tf, lambda x: cal(x, global_batch_size=0), [1.0, 2.0, 3.0]),
            "weights": _grads(tf, lambda x, w: cal(x, sample_weight=w), [1.0, 2.0, 3.0], [1.0, 0.0, 2.0]),
            "rank2": _grads(tf, cal, [[1.0, 2.0], [3.0, 4.0]]),
            "rank2_weights": _grads(tf, lambda x: cal(x, sample_weight=[1.0, 0.0]), [[1.0, 2.0], [3.0, 4.0]]),
            "column_weights": _grads(tf, lambda x: cal(x, sample_weight=[[1.0], [0.0]]), [[1.0, 2.0], [3.0, 4.0]])}


@case
def compute_average_loss_kinds_and_errors(tf):
    cal = tf.nn.compute_average_loss
    return [cal([1, 2, 3]), cal(tf.constant([1.0, 2.0, 3.0], tf.float64), sample_weight=[1, 2, 3]),
            cal(tf.zeros((0,))), cal([1.0, 2.0, 3.0], sample_weight=2), catch(cal, 2.0),
            catch(cal, [1.0, 2.0, 3.0], global_batch_size=-1), catch(cal, [1.0, 2.0, 3.0], global_batch_size=2.0),
            catch(cal, [1.0, 2.0, 3.0], global_batch_size=[2]), catch(cal, [1.0, 2.0, 3.0], sample_weight=[1.0, 0.0]),
            cal([1.0, 2.0], global_batch_size=tf.constant(4, tf.int64))]


@case
def mlp_style_training_step(tf):
    """A small softmax-classifier step with each cross-entropy: the losses and the gradients of the weights."""
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((6, 4)), tf.float32)
    labels = rng.integers(0, 3, 6)
    onehot = tf.constant(np.eye(3)[labels], tf.float32)
    w = tf.Variable(rng.standard_normal((4, 3)) * 0.5, dtype=tf.float32)
    b = tf.Variable([0.1, -0.2, 0.0])
    out = []
    for loss_fn in (lambda h: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, h),
                    lambda h: tf.nn.softmax_cross_entropy_with_logits(onehot, h)):
        with tf.GradientTape() as tape:
            h = tf.nn.bias_add(tf.matmul(x, w), b)
            loss = tf.nn.compute_average_loss(loss_fn(h))
        out.append([loss, tape.gradient(loss, [w, b])])
    return out

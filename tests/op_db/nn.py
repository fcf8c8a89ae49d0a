"""Op database entries for the neural-network functions: softmax, log_softmax, the fused softmax cross-entropies,
l2_loss and bias_add (with its gradient op)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _np_log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


op("Softmax", lambda x, axis=None: tf.nn.softmax(x, axis),
   lambda x, axis=None: np_softmax(x, -1 if axis is None else axis),
   [make_sample("Softmax", "last_axis", (uniform(),), ((2, 3),)),
    make_sample("Softmax", "axis0", (uniform(),), ((3, 2),), kwargs={"axis": 0}),
    make_sample("Softmax", "axis1_of_3d", (uniform(),), ((2, 3, 2),), kwargs={"axis": 1}),
    make_sample("Softmax", "vector", (uniform(),), ((4,),))], True)
op("LogSoftmax", lambda x, axis=None: tf.nn.log_softmax(x, axis),
   lambda x, axis=None: _np_log_softmax(x, -1 if axis is None else axis),
   [make_sample("LogSoftmax", "last_axis", (uniform(),), ((2, 3),)),
    make_sample("LogSoftmax", "axis0", (uniform(),), ((3, 2),), kwargs={"axis": 0}),
    make_sample("LogSoftmax", "axis_neg2_of_3d", (uniform(),), ((2, 3, 2),), kwargs={"axis": -2}),
    make_sample("LogSoftmax", "vector", (uniform(),), ((4,),))], True)

# --- cross-entropies


def _np_sparse_xent(x, labels):
    lp = _np_log_softmax(x)
    return -np.take_along_axis(lp, np.asarray(labels)[..., None], -1)[..., 0]


op("SparseSoftmaxCrossEntropyWithLogits",
   lambda x, labels: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=x),
   _np_sparse_xent,
   [make_sample("SparseXent", "batch", (uniform(-3, 3),), ((4, 3),), kwargs={"labels": [2, 0, 1, 2]}),
    make_sample("SparseXent", "int64_labels", (uniform(-3, 3),), ((2, 4),),
                kwargs={"labels": np.array([3, 1], dtype=np.int64)}),
    make_sample("SparseXent", "rank3", (uniform(-3, 3),), ((2, 2, 3),), kwargs={"labels": [[0, 2], [1, 1]]}),
    make_sample("SparseXent", "rank1", (uniform(-3, 3),), ((4,),), kwargs={"labels": 3})],
   True,
   note="the fused op's second output (the backprop) carries second derivatives: its rule adds softmax's "
        "Jacobian-vector product, as TF's; int labels are a kwarg (never differentiated)")


def _np_xent(x, labels=None, fixed_labels=None, axis=-1):
    z = fixed_labels if labels is None else labels
    return -np.sum(np.asarray(z, dtype=x.dtype) * _np_log_softmax(x, axis), axis=axis)


def _xent_fn(x, labels=None, fixed_labels=None, axis=-1):
    z = tf.constant(np.asarray(fixed_labels, dtype=x.dtype.as_numpy_dtype)) if labels is None else labels
    return tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x, axis=axis)


# Rows and columns sum to 1 (the class axis is either): the fused gradient assumes distributions, as TF's.
_PROBS = [[0.2, 0.3, 0.5], [0.5, 0.2, 0.3], [0.3, 0.5, 0.2]]


def _distributions(rng, shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return f64(p / p.sum(axis=-1, keepdims=True))

op("SoftmaxCrossEntropyWithLogits", _xent_fn, _np_xent,
   [make_sample("Xent", "fixed_labels", (uniform(-3, 3),), ((3, 3),), kwargs={"fixed_labels": _PROBS}),
    make_sample("Xent", "axis0", (uniform(-3, 3),), ((3, 3),), kwargs={"fixed_labels": _PROBS, "axis": 0}),
    make_sample("Xent", "rank3", (uniform(-3, 3),), ((2, 1, 3),), kwargs={"fixed_labels": [[_PROBS[0]], [_PROBS[2]]]}),
    make_sample("Xent", "labels_grad", (uniform(-3, 3), _distributions), ((2, 3), (2, 3))),
    make_sample("Xent", "labels_grad_rank1", (uniform(-3, 3), _distributions), ((4,), (4,)))],
   True,
   xfails={("gradgrad", "labels_grad"): "TF's rule ignores that the backprop depends on the labels: the mixed "
                                        "second derivative d(dloss/dlogits)/dlabels is zeros in TF, matched here",
           ("gradgrad", "labels_grad_rank1"): "as labels_grad"},
   note="labels get gradients (-log_softmax(logits) scaled), as in TF 2; second order through the backprop "
        "output is softmax's Jacobian for the logits, and zeros for the labels as in TF (the xfailed samples)")

# --- l2_loss, bias_add

op("L2Loss", lambda x: tf.nn.l2_loss(x), lambda x: np.sum(x * x) / x.dtype.type(2),
   unary("L2Loss") + [make_sample("L2Loss", "rank3", (uniform(),), ((2, 2, 3),))], True)


def _np_bias_add(x, b, data_format=None):
    if data_format is not None and data_format.startswith("NC"):
        return x + b.reshape((1, -1) + (1,) * (x.ndim - 2))
    return x + b


op("BiasAdd", lambda x, b, data_format=None: tf.nn.bias_add(x, b, data_format=data_format), _np_bias_add,
   [make_sample("BiasAdd", "matrix", (uniform(), uniform()), ((2, 3), (3,))),
    make_sample("BiasAdd", "rank4_nhwc", (uniform(), uniform()), ((2, 2, 1, 3), (3,)), kwargs={"data_format": "NHWC"}),
    make_sample("BiasAdd", "rank4_nchw", (uniform(), uniform()), ((2, 3, 2, 1), (3,)), kwargs={"data_format": "NCHW"}),
    make_sample("BiasAdd", "rank3_nc", (uniform(), uniform()), ((2, 3, 2), (3,)), kwargs={"data_format": "NC..."})],
   True)


def _bias_add_grad_fn(b, u, data_format=None):
    x = tf.zeros(u.shape, dtype=u.dtype)
    return vjp(lambda t: tf.nn.bias_add(x, t, data_format=data_format), b, u)


def _np_bias_add_grad(b, u, data_format=None):
    axis = 1 if data_format == "NCHW" else u.ndim - 1
    return np.sum(u, axis=tuple(i for i in range(u.ndim) if i != axis))


op("BiasAddGrad", _bias_add_grad_fn, _np_bias_add_grad,
   [make_sample("BiasAddGrad", "matrix", (uniform(), uniform()), ((3,), (2, 3))),
    make_sample("BiasAddGrad", "rank4_nchw", (uniform(), uniform()), ((3,), (2, 3, 2, 2)),
                kwargs={"data_format": "NCHW"})],
   True, covered_by="BiasAdd", covered_rule=False,
   note="BiasAdd's gradient op (a sum over all but the channel axis); BiasAdd is linear, so its second-order "
        "test never runs this op's rule: the direct samples do, through the upstream gradient u")

# --- complex (TF's Complex op: tf.complex, and l2_normalize builds its complex result with it)


def _complex_fn(re, im, direct=False):
    ct = tf.complex128 if re.dtype == tf.float64 else tf.complex64
    if direct:
        z = tf.complex(re, im)
        z = z * z
    else:
        z = tf.math.l2_normalize(to_complex(re, im)) * tf.cast(1.0 + 0.5j, ct)
    return [tf.math.real(z), tf.math.real(z * -1j)]


def _np_complex_l2(re, im, direct=False):
    z = np_complex(re, im)
    z = z * z if direct else z / np.sqrt(np.sum(np.abs(z) ** 2)) * (1.0 + 0.5j)
    return [np.real(z), np.real(z * -1j)]


op("Complex", _complex_fn, _np_complex_l2,
   [make_sample("Complex", "vector", (uniform(), uniform()), ((3,), (3,))),
    make_sample("Complex", "matrix", (uniform(), uniform()), ((2, 2), (2, 2))),
    make_sample("Complex", "direct_squared", (uniform(), uniform()), ((2, 3), (2, 3)), kwargs={"direct": True}),
    make_sample("Complex", "direct_broadcast", (uniform(), uniform()), ((2, 3), (3,)), kwargs={"direct": True})],
   True,
   note="tf.complex(re, im) squared, and tf.math.l2_normalize of a complex tensor (real and imaginary parts scaled "
        "by one inverse norm); its rule returns the real and imaginary parts of the upstream gradient")

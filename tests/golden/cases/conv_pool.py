"""Convolution and pooling: values, dtypes, first and second order gradients (float32, float64), TF's CPU
conventions (max-pool ties, NaN and -inf, SAME averages over real elements), and the errors of each op.

Inputs are small multiples of 1/2, so that sums are exact in float32 and both frameworks agree to the bit
whatever order they add in (ties in max pooling then happen on purpose).
"""

import numpy as np

from tests.golden.harness import case, catch

_DTYPES = ("float32", "float64")


def _data(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, size=shape) / 2


def _grads(tf, fn, arrays, dtype, order=1):
    """``[y, dy/dx...]`` with the tape's implicit sum; with ``order=2`` also d/dx of ``sum(grad_i ** 2)``."""
    xs = [tf.constant(a, dtype=getattr(tf, dtype)) for a in arrays]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = fn(*xs)
        grads = tape.gradient(y, xs)
        if order == 2:
            total = None
            for g in grads:
                if g is not None:
                    total = tf.reduce_sum(g * g) if total is None else total + tf.reduce_sum(g * g)
    out = [y, grads]
    if order == 2:
        out.append(outer.gradient(total, xs))
    return out


def _both(tf, fn, *arrays, order=1):
    return {d: _grads(tf, fn, arrays, d, order) for d in _DTYPES}


X = _data((2, 5, 6, 3), 0)
W = _data((3, 3, 3, 4), 1)
W1 = _data((1, 1, 3, 2), 2)
W23 = _data((2, 3, 3, 2), 3)


# --------------------------------------------------------------------------------------------- conv2d


@case
def conv2d_same_valid_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.conv2d(x, w, 1, "SAME"), tf.nn.conv2d(x, w, 1, "VALID")], X, W)


@case
def conv2d_strides_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.conv2d(x, w, 2, "SAME"), tf.nn.conv2d(x, w, [2, 3], "VALID"),
                                   tf.nn.conv2d(x, w, [1, 2, 1, 1], "SAME")], X, W)


@case
def conv2d_rectangular_kernel_and_1x1(tf):
    return _both(tf, lambda x, a, b: [tf.nn.conv2d(x, a, [2, 1], "SAME"), tf.nn.conv2d(x, b, 1, "VALID")],
                 X, W23, W1)


@case
def conv2d_explicit_padding_grad(tf):
    pads = [[0, 0], [1, 2], [0, 1], [0, 0]]
    return _both(tf, lambda x, w: [tf.nn.conv2d(x, w, 1, pads), tf.nn.conv2d(x, w, 2, pads)], X, W)


@case
def conv2d_second_order(tf):
    return _both(tf, lambda x, w: tf.nn.relu(tf.nn.conv2d(x, w, 2, "SAME")) * tf.nn.conv2d(x, w, 2, "SAME"),
                 X, W, order=2)


@case
def conv2d_dilated_forward_and_gradient_error(tf):
    x = tf.constant(X, tf.float32)
    w = tf.constant(W, tf.float32)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.nn.conv2d(x, w, 1, "SAME", dilations=2)
        return tape.gradient(y, w)

    return [tf.nn.conv2d(x, w, 1, "SAME", dilations=2), tf.nn.conv2d(x, w, 1, "VALID", dilations=[2, 1]),
            tf.nn.conv2d(x, w, 2, "SAME", dilations=2), catch(grad)]


@case
def conv2d_grouped_forward_and_gradient_error(tf):
    x = tf.constant(_data((1, 4, 4, 4), 5), tf.float32)
    w = tf.constant(_data((3, 3, 2, 4), 6), tf.float32)

    def grad():
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.nn.conv2d(x, w, 1, "SAME")
        return tape.gradient(y, w)

    return [tf.nn.conv2d(x, w, 1, "SAME"), catch(grad)]


@case
def conv2d_dtypes_and_shapes(tf):
    xi = tf.constant(_data((1, 4, 4, 2), 7) * 2, tf.int32)
    wi = tf.constant(_data((2, 2, 2, 3), 8) * 2, tf.int32)
    xh = tf.constant(X, tf.float16)
    wh = tf.constant(W, tf.float16)
    x5 = tf.constant(_data((2, 2, 4, 4, 3), 9), tf.float32)
    w = tf.constant(W, tf.float32)
    return [tf.nn.conv2d(xi, wi, 1, "SAME"), tf.nn.conv2d(xh, wh, 1, "SAME"), tf.nn.conv2d(x5, w, 1, "SAME"),
            tf.nn.conv2d(X.astype(np.float32), W.astype(np.float32), 1, "SAME"),
            tf.nn.conv2d(tf.zeros([0, 5, 5, 3]), w, 1, "SAME"), tf.nn.conv2d(tf.zeros([2, 0, 5, 3]), w, 1, "SAME"),
            tf.nn.conv2d(tf.constant(X, tf.float32), tf.zeros([3, 3, 3, 0]), 1, "SAME"),
            tf.nn.conv2d(tf.constant(X, tf.float32), tf.zeros([6, 6, 3, 2]), 1, "VALID"),
            tf.nn.conv2d(tf.constant(X, tf.float32), tf.ones([6, 7, 3, 2]), 1, "SAME")]


@case
def conv2d_errors(tf):
    x = tf.constant(X, tf.float32)
    w = tf.constant(W, tf.float32)
    conv = tf.nn.conv2d
    return [
        catch(conv, x, tf.zeros([3, 3, 2, 4]), 1, "SAME"),
        catch(conv, tf.zeros([1, 5, 5, 4]), tf.zeros([3, 3, 2, 3]), 1, "SAME"),
        catch(conv, tf.zeros([1, 5, 5, 0]), tf.zeros([3, 3, 0, 3]), 1, "SAME"),
        catch(conv, x, w, 0, "SAME"),
        catch(conv, x, w, -1, "VALID"),
        catch(conv, x, w, [1, 1, 1], "SAME"),
        catch(conv, x, w, [2, 1, 1, 1], "SAME"),
        catch(conv, x, w, 1, "SAME", dilations=0),
        catch(conv, x, w, 1, "SAME", dilations=[1, 1, 1, 2]),
        catch(conv, x, w, 1, "FOO"),
        catch(conv, x, w, 1, "same"),
        catch(conv, x, w, 1, "EXPLICIT"),
        catch(conv, x, w, 1, [[1, 0], [1, 2], [0, 1], [0, 0]]),
        catch(conv, x, w, 1, [[0, 0], [-1, 2], [0, 1], [0, 0]]),
        catch(conv, x, w, 1, [[1, 2], [0, 1]]),
        catch(conv, x, w, 1, [[0, 0], [1, 2, 3], [0, 1], [0, 0]]),
        catch(conv, tf.zeros([2, 3, 5, 5]), w, 1, "SAME", data_format="NCHW"),
        catch(conv, x, w, 1, "SAME", data_format="HWNC"),
        catch(conv, x, tf.zeros([8, 3, 3, 4]), 1, "VALID"),
        catch(conv, x, w, 1, "VALID", dilations=4),
        catch(conv, tf.zeros([5, 5, 3]), w, 1, "SAME"),
        catch(conv, x, tf.zeros([3, 3, 3]), 1, "SAME"),
        catch(conv, x, tf.cast(w, tf.float64), 1, "SAME"),
        catch(conv, tf.cast(x, tf.int32), w, 1, "SAME"),
        catch(conv, tf.cast(x, tf.complex64), tf.cast(w, tf.complex64), 1, "SAME"),
        catch(conv, tf.zeros([2, 3, 5, 5]), w, 0, "SAME", data_format="NCHW"),
    ]


# --------------------------------------------------------------------------------------------- conv1d, convolution

X1 = _data((2, 7, 3), 10)
W1D = _data((3, 3, 2), 11)


@case
def conv1d_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.conv1d(x, w, 1, "SAME"), tf.nn.conv1d(x, w, 2, "VALID"),
                                   tf.nn.conv1d(x, w, [1, 2, 1], "SAME")], X1, W1D)


@case
def conv1d_second_order(tf):
    return _both(tf, lambda x, w: tf.square(tf.nn.conv1d(x, w, 2, "SAME")), X1, W1D, order=2)


@case
def conv1d_variants_and_errors(tf):
    x = tf.constant(X1, tf.float32)
    w = tf.constant(W1D, tf.float32)
    return [
        tf.nn.conv1d(x, w, 1, "SAME", dilations=2),
        tf.nn.conv1d(tf.constant(_data((2, 2, 7, 3), 12), tf.float32), w, 1, "VALID"),
        catch(tf.nn.conv1d, x, tf.zeros([3, 2, 2]), 1, "SAME"),
        catch(tf.nn.conv1d, tf.zeros([2, 3, 7]), w, 1, "SAME", data_format="NCW"),
        catch(tf.nn.conv1d, x, w, 1, "SAME", data_format="XYZ"),
        catch(tf.nn.conv1d, tf.zeros([7, 3]), w, 1, "SAME"),
        catch(tf.nn.conv1d, x, w, [1, 1], "SAME"),
        catch(tf.nn.conv1d, x, tf.zeros([3, 3]), 1, "SAME"),
        catch(tf.nn.conv1d, x, w, 1, [[0, 0], [1, 1], [0, 0]]),
    ]


@case
def convolution_grad(tf):
    return _both(tf, lambda x, w, x1, w1: [
        tf.nn.convolution(x, w), tf.nn.convolution(x, w, strides=2, padding="SAME"),
        tf.nn.convolution(x, w, padding="SAME", dilations=2), tf.nn.convolution(x, w, dilations=[2, 1]),
        tf.nn.convolution(x1, w1, padding="SAME"), tf.nn.convolution(x1, w1, dilations=2)], X, W, X1, W1D)


@case
def convolution_errors(tf):
    x = tf.constant(X, tf.float32)
    w = tf.constant(W, tf.float32)
    return [
        catch(tf.nn.convolution, x, w, strides=2, padding="SAME", dilations=2),
        catch(tf.nn.convolution, tf.zeros([2, 7, 3]), w),
        catch(tf.nn.convolution, tf.zeros([2, 7, 3]), tf.zeros([1, 1, 1, 1, 1, 1])),
        catch(tf.nn.convolution, tf.zeros([2, 3, 5, 5]), w, data_format="NCHW"),
        catch(tf.nn.convolution, x, w, padding=[[0, 0], [1, 1], [1, 1], [0, 0]]),
        tf.nn.convolution(tf.constant(_data((2, 2, 5, 5, 3), 13), tf.float32), w),
    ]


# --------------------------------------------------------------------------------------------- conv2d_transpose

DY = _data((2, 3, 3, 4), 14)
WT = _data((3, 3, 3, 4), 15)


@case
def conv2d_transpose_grad(tf):
    return _both(tf, lambda dy, w: [tf.nn.conv2d_transpose(dy, w, [2, 5, 5, 3], 2, "SAME"),
                                    tf.nn.conv2d_transpose(dy, w, [2, 6, 6, 3], 2, "SAME"),
                                    tf.nn.conv2d_transpose(dy, w, [2, 8, 7, 3], [2, 2], "VALID"),
                                    tf.nn.conv2d_transpose(dy, w, [5, 5], 2, [[0, 0], [1, 1], [1, 1], [0, 0]])],
                 DY, WT)


@case
def conv2d_transpose_second_order(tf):
    return _both(tf, lambda dy, w: tf.square(tf.nn.conv2d_transpose(dy, w, [2, 5, 5, 3], 2, "SAME")), DY, WT,
                 order=2)


@case
def conv2d_transpose_errors(tf):
    dy = tf.constant(DY, tf.float32)
    w = tf.constant(WT, tf.float32)
    t = tf.nn.conv2d_transpose
    return [
        catch(t, dy, w, [2, 7, 7, 3], 2, "SAME"),
        catch(t, dy, w, [2, 5, 5, 2], 2, "SAME"),
        catch(t, tf.zeros([2, 3, 3, 5]), w, [2, 5, 5, 3], 2, "SAME"),
        catch(t, dy, w, [3, 5, 5, 3], 2, "SAME"),
        catch(t, dy, w, [5, 5, 3], 2, "SAME"),
        catch(t, tf.zeros([2, 5, 5, 4]), w, [2, 5, 5, 3], 1, "SAME", dilations=2),
        catch(t, tf.zeros([2, 4, 3, 3]), w, [2, 3, 5, 5], 2, "SAME", data_format="NCHW"),
        catch(t, dy, w, [2.0, 5, 5, 3], 2, "SAME"),
        catch(t, dy, w, tf.constant([2, 5, 5, 3], tf.int64), 2, "SAME"),
        t(dy, w, tf.constant([2, 5, 5, 3]), 2, "SAME"),
        t(dy, w, (2, 5, 5, 3), 2, "SAME"),
    ]


# --------------------------------------------------------------------------------------------- depthwise

WD = _data((3, 3, 3, 2), 16)


@case
def depthwise_conv2d_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
                                   tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "VALID"),
                                   tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[2, 2]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", dilations=[1, 2]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 1], [2, 0], [0, 0]])],
                 X, WD)


@case
def depthwise_conv2d_second_order(tf):
    return _both(tf, lambda x, w: tf.square(tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")), X, WD, order=2)


@case
def depthwise_conv2d_errors(tf):
    x = tf.constant(X, tf.float32)
    w = tf.constant(WD, tf.float32)
    d = tf.nn.depthwise_conv2d
    return [
        catch(d, x, w, 1, "SAME"),
        catch(d, x, w, [2, 2], "SAME"),
        catch(d, x, tf.zeros([3, 3, 2, 2]), [1, 1, 1, 1], "SAME"),
        catch(d, tf.zeros([2, 3, 5, 5]), w, [1, 1, 1, 1], "SAME", data_format="NCHW"),
        catch(d, x, w, [2, 1, 1, 1], "SAME"),
        catch(d, x, w, [1, 0, 0, 1], "SAME"),
        catch(d, x, w, [1, 1, 2, 1], "SAME"),
        catch(d, tf.zeros([5, 5, 3]), w, [1, 1, 1, 1], "SAME"),
        catch(d, tf.cast(x, tf.int32), tf.cast(w, tf.int32), [1, 1, 1, 1], "SAME"),
        catch(d, x, w, [1, 1, 1, 1], "FOO"),
        catch(d, x, tf.zeros([8, 8, 3, 2]), [1, 1, 1, 1], "VALID"),
        catch(d, x, tf.cast(w, tf.float64), [1, 1, 1, 1], "SAME"),
        catch(d, x, w, [1, 1, 1, 1], "SAME", dilations=2),
        d(x, tf.zeros([6, 6, 3, 2]), [1, 1, 1, 1], "VALID"),
    ]


# --------------------------------------------------------------------------------------------- max pooling

XP = _data((2, 5, 6, 3), 20)


@case
def max_pool2d_grad_with_ties(tf):
    return _both(tf, lambda x: [tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.max_pool2d(x, 3, 2, "SAME"),
                                tf.nn.max_pool2d(x, [2, 3], 1, "SAME"), tf.nn.max_pool2d(x, 3, [1, 2], "VALID"),
                                tf.nn.max_pool2d(x, 3, 2, [[0, 0], [1, 2], [2, 1], [0, 0]])], XP)


@case
def max_pool2d_second_order(tf):
    return _both(tf, lambda x: tf.square(tf.nn.max_pool2d(x, 3, 2, "SAME")), XP, order=2)


@case
def max_pool_explicit_padding_second_order_error(tf):
    x = tf.constant(_data((1, 4, 4, 2), 23), tf.float32)

    def second():
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.nn.max_pool2d(x, 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]])
            g = tape.gradient(y, x)
            total = tf.reduce_sum(g * g)
        return outer.gradient(total, x)

    return catch(second)


@case
def max_pool_tie_order(tf):
    x = tf.constant([[[[1.0], [1.0], [0.0]], [[1.0], [1.0], [0.0]], [[0.0], [0.0], [0.0]]]])
    out = []
    for k, s, p in ((2, 1, "VALID"), (2, 2, "SAME"), (3, 1, "SAME")):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool2d(x, k, s, p)
        out.append([y, tape.gradient(y, x)])
    return out


@case
def max_pool_nan_and_infinities(tf):
    out = []
    for v in ([[1.0, float("nan")], [2.0, 0.0]], [[float("nan"), 1.0], [2.0, 0.0]],
              [[float("-inf"), float("-inf")], [float("-inf"), float("-inf")]],
              [[float("nan"), float("nan")], [float("nan"), float("nan")]], [[float("inf"), 1.0], [2.0, 0.0]]):
        x = tf.reshape(tf.constant(v), [1, 2, 2, 1])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool2d(x, 2, 1, "SAME")
        out.append([y, tape.gradient(y, x)])
    return out


@case
def max_pool_dtypes(tf):
    x = tf.constant(XP * 2, tf.int32)
    return [tf.nn.max_pool2d(x, 2, 1, "SAME"), tf.nn.max_pool2d(tf.constant(XP, tf.float16), 3, 2, "SAME"),
            tf.nn.max_pool2d(tf.constant([[[[-5], [-7]]]]), 2, 1, "SAME"),
            tf.nn.max_pool2d(tf.cast(x, tf.int64), 2, 2, "VALID"), tf.nn.max_pool2d(XP, 2, 2, "VALID"),
            tf.nn.max_pool2d(tf.zeros([0, 5, 5, 3]), 2, 1, "SAME"), tf.nn.max_pool2d(XP, 6, 1, "VALID"),
            tf.nn.max_pool2d(XP, 7, 1, "SAME")]


@case
def max_pool_depthwise(tf):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool2d(x, [1, 1, 1, 3], [1, 1, 1, 3], "VALID")
        return [y, tape.gradient(y, x)]

    return [grad(tf.constant(_data((1, 2, 2, 6), 21), tf.float32))]


@case
def max_pool_errors(tf):
    x = tf.constant(XP, tf.float32)
    mp = tf.nn.max_pool2d
    return [
        catch(mp, x, 0, 1, "VALID"),
        catch(mp, x, 2, 0, "VALID"),
        catch(mp, x, [2, 2, 2, 1], 1, "VALID"),
        catch(mp, x, 2, [2, 1, 1, 1], "VALID"),
        catch(mp, x, [1, 2, 2, 3], [1, 1, 1, 3], "VALID"),
        catch(mp, tf.zeros([2, 5, 5, 4]), [1, 1, 1, 3], [1, 1, 1, 3], "VALID"),
        catch(mp, x, [1, 1, 1, 3], 1, "VALID"),
        catch(mp, x, [2, 2, 2], 1, "VALID"),
        catch(mp, x, 8, 1, "VALID"),
        catch(mp, x, 2, 1, "FOO"),
        catch(mp, tf.zeros([2, 3, 5, 5]), 2, 1, "SAME", data_format="NCHW"),
        catch(mp, x, 2, 1, "SAME", data_format="XXXX"),
        catch(mp, tf.zeros([5, 5, 3]), 2, 1, "SAME"),
        catch(mp, tf.zeros([1, 2, 5, 5, 3]), 2, 1, "SAME"),
        catch(mp, tf.cast(x, tf.complex64), 2, 1, "SAME"),
        catch(mp, x, 2, 1, [[0, 0], [2, 2], [0, 0], [0, 0]]),
        catch(mp, x, 2, 1, [[0, 0], [0, 0], [0, 2], [0, 0]]),
        catch(mp, x, 2, 1, [[0, 0], [-1, 1], [1, 1], [0, 0]]),
        catch(mp, x, 2, 1, [[1, 0], [1, 1], [1, 1], [0, 0]]),
        catch(mp, tf.zeros([2, 3, 5, 5]), 0, 1, "SAME", data_format="NCHW"),
        catch(mp, x, 0, 0, "SAME"),
    ]


# --------------------------------------------------------------------------------------------- average pooling


@case
def avg_pool2d_grad(tf):
    return _both(tf, lambda x: [tf.nn.avg_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, 3, 2, "SAME"),
                                tf.nn.avg_pool2d(x, [2, 3], 1, "SAME"), tf.nn.avg_pool2d(x, 3, [1, 2], "VALID"),
                                tf.nn.avg_pool2d(x, 7, 1, "SAME")], XP)


@case
def avg_pool2d_second_order(tf):
    return _both(tf, lambda x: tf.square(tf.nn.avg_pool2d(x, 3, 2, "SAME")), XP, order=2)


@case
def avg_pool_dtypes_and_errors(tf):
    x = tf.constant(XP, tf.float32)
    ap = tf.nn.avg_pool2d
    return [
        ap(tf.constant(XP, tf.float16), 3, 2, "SAME"), ap(tf.zeros([0, 5, 5, 3]), 2, 1, "SAME"), ap(XP, 2, 2, "VALID"),
        catch(ap, x, 0, 1, "VALID"),
        catch(ap, x, 2, 0, "VALID"),
        catch(ap, x, [2, 2, 2, 1], 1, "VALID"),
        catch(ap, x, [1, 2, 2, 3], [1, 1, 1, 3], "VALID"),
        catch(ap, x, [1, 1, 1, 3], [1, 1, 1, 3], "VALID"),
        catch(ap, x, [1, 1, 1, 3], 1, "VALID"),
        catch(ap, x, 8, 1, "VALID"),
        catch(ap, x, 2, 1, "FOO"),
        catch(ap, x, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]),
        catch(ap, tf.zeros([2, 3, 5, 5]), 2, 1, "SAME", data_format="NCHW"),
        catch(ap, tf.zeros([2, 3, 5, 5]), 2, 1, "SAME", data_format="NCHW_VECT_C"),
        catch(ap, tf.zeros([5, 5, 3]), 2, 1, "SAME"),
        catch(ap, tf.cast(x, tf.int32), 2, 1, "SAME"),
    ]


# --------------------------------------------------------------------------------------------- 1-D and generic pooling

XP1 = _data((2, 7, 3), 22)


@case
def pool1d_grad(tf):
    return _both(tf, lambda x: [tf.nn.max_pool1d(x, 2, 2, "SAME"), tf.nn.max_pool1d(x, 3, 1, "VALID"),
                                tf.nn.avg_pool1d(x, 2, 2, "SAME"), tf.nn.avg_pool1d(x, 3, 2, "VALID"),
                                tf.nn.max_pool1d(x, 2, 2, [[0, 0], [1, 1], [0, 0]]),
                                tf.nn.max_pool(x, 2, 2, "SAME"), tf.nn.avg_pool(x, [3], [2], "VALID")], XP1)


@case
def generic_pool_grad(tf):
    return _both(tf, lambda x: [tf.nn.max_pool(x, 2, 2, "SAME"), tf.nn.avg_pool(x, [2, 3], [1, 2], "VALID"),
                                tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                                tf.nn.max_pool(x, 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]])], XP)


@case
def pool1d_and_generic_errors(tf):
    x = tf.constant(XP1, tf.float32)
    return [
        catch(tf.nn.max_pool1d, tf.zeros([2, 3, 7]), 2, 2, "SAME", data_format="NCW"),
        catch(tf.nn.max_pool1d, tf.zeros([2, 2, 7, 3]), 2, 2, "SAME"),
        catch(tf.nn.max_pool1d, x, 0, 2, "SAME"),
        catch(tf.nn.avg_pool1d, tf.zeros([2, 3, 7]), 2, 2, "SAME", data_format="NCW"),
        catch(tf.nn.avg_pool1d, tf.zeros([7, 3]), 2, 2, "SAME"),
        catch(tf.nn.avg_pool, tf.zeros([7, 3]), 2, 2, "SAME"),
        catch(tf.nn.avg_pool, tf.zeros([1, 1, 1, 1, 7, 3]), 2, 2, "SAME"),
        catch(tf.nn.max_pool, tf.zeros([1, 2, 7, 7, 3]), 2, 2, [[0, 0]] * 5),
        catch(tf.nn.max_pool, tf.zeros([1, 2, 7, 7]), 2, 2, "SAME", data_format="NCHW"),
        catch(tf.nn.max_pool, x, [2, 2], 2, "SAME"),
    ]


# --------------------------------------------------------------------------------------------- layers, float16


@case
def conv_layer_with_variables(tf):
    kernel = tf.Variable(W.astype(np.float32))
    bias = tf.Variable(np.array([0.5, -0.5, 0.0, 1.0], np.float32))
    x = tf.constant(X, tf.float32)
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.nn.conv2d(x, kernel, 1, "SAME") + bias)
        p = tf.nn.max_pool2d(h, 2, 2, "VALID")
        loss = tf.reduce_sum(tf.nn.avg_pool2d(p, 2, 1, "SAME"))
    return [loss, tape.gradient(loss, [kernel, bias])]


@case
def float16_gradients(tf):
    def grads(fn, *arrays):
        xs = [tf.constant(a, tf.float16) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = fn(*xs)
        return [y, tape.gradient(y, xs)]

    x, w = X[:1, :4, :4], W[:2, :2]
    return [grads(lambda a, b: tf.nn.conv2d(a, b, 1, "SAME"), x, w),
            grads(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "VALID"), x, WD[:2, :2]),
            grads(lambda a: tf.nn.max_pool2d(a, 2, 1, "SAME"), x),
            grads(lambda a: tf.nn.avg_pool2d(a, 2, 2, "VALID"), x)]


# --------------------------------------------------------------------------------------------- conv3d

X3 = _data((2, 4, 5, 4, 3), 30)
W3 = _data((2, 3, 2, 3, 4), 31)


@case
def conv3d_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME"),
                                   tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"),
                                   tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"),
                                   tf.nn.conv3d(x, w, [1, 1, 3, 1, 1], "VALID")], X3, W3)


@case
def conv3d_second_order(tf):
    return _both(tf, lambda x, w: tf.square(tf.nn.conv3d(x, w, [1, 2, 2, 1, 1], "SAME")), X3, W3, order=2)


@case
def conv3d_dtypes_and_shapes(tf):
    x = tf.constant(X3, tf.float32)
    w = tf.constant(W3, tf.float32)
    ones = [1, 1, 1, 1, 1]
    c = tf.nn.conv3d
    return [c(tf.constant(X3, tf.float16), tf.constant(W3, tf.float16), ones, "SAME"),
            c(X3.astype(np.float32), W3.astype(np.float32), ones, "SAME"), c(X3, W3, ones, "VALID"),
            c(x, w, [1.0, 2.0, 1.0, 1.0, 1.0], b"SAME"), c(x, w, (1, 1, 1, 1, 1), "SAME", data_format=None),
            c(tf.zeros([0, 4, 5, 4, 3]), w, ones, "SAME"), c(tf.zeros([2, 0, 5, 4, 3]), w, ones, "SAME"),
            c(tf.constant(_data((2, 2, 4, 5, 4, 3), 32), tf.float32), w, ones, "SAME"),
            c(x, tf.ones([5, 6, 2, 3, 1]), ones, "SAME"), c(x, tf.zeros([6, 2, 2, 3, 4]), [1, 2, 1, 1, 1], "VALID"),
            c(tf.zeros([0, 3, 5, 5, 5]), tf.zeros([2, 2, 2, 3, 4]), ones, "SAME", data_format="NCDHW"),
            c(tf.zeros([1, 2, 2, 2, 4]), tf.zeros([3, 3, 3, 2, 4]), ones, "VALID"),
            c(tf.zeros([0, 5, 5, 5, 3]), w, ones, "SAME", dilations=[1, 2, 2, 2, 1])]


@case
def conv3d_errors(tf):
    x = tf.constant(X3, tf.float32)
    w = tf.constant(W3, tf.float32)
    c = tf.nn.conv3d
    ones = [1, 1, 1, 1, 1]
    return [
        catch(c, x, w, 1, "SAME"),
        catch(c, x, w, [1, 2, 1], "SAME"),
        catch(c, x, w, None, "SAME"),
        catch(c, x, w, np.array(ones), "SAME"),
        catch(c, x, w, ["a"] * 5, "SAME"),
        catch(c, x, w, [1] * 6, "SAME"),
        catch(c, x, w, [2, 1, 1, 1, 1], "SAME"),
        catch(c, x, w, [1, 1, 1, 1, 2], "SAME"),
        catch(c, x, w, [1, 0, 1, 1, 1], "SAME"),
        catch(c, x, w, [1, -1, 1, 1, 1], "VALID"),
        catch(c, x, w, ones, "SAME", dilations=[1, 2, 2, 1, 1]),
        catch(c, x, w, ones, "SAME", dilations=2),
        catch(c, x, w, ones, "SAME", dilations=[1, 2, 1]),
        catch(c, x, w, ones, "SAME", dilations=[1, 0, 1, 1, 1]),
        catch(c, x, w, ones, "SAME", dilations=[2, 1, 1, 1, 1]),
        catch(c, x, w, [2, 1, 1, 1, 1], "SAME", dilations=[2, 1, 1, 1, 1]),
        catch(c, x, w, ones, [[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
        catch(c, x, w, ones, "EXPLICIT"),
        catch(c, x, w, ones, "FOO"),
        catch(c, x, w, ones, "same"),
        catch(c, x, w, ones, 3),
        catch(c, tf.zeros([2, 3, 4, 5, 4]), w, ones, "SAME", data_format="NCDHW"),
        catch(c, tf.zeros([2, 4, 4, 5, 4]), w, ones, "SAME", data_format="NCDHW"),
        catch(c, tf.zeros([2, 3, 4, 5, 4]), w, [1, 2, 1, 1, 1], "SAME", data_format="NCDHW"),
        catch(c, x, w, ones, "SAME", data_format="NHWC"),
        catch(c, x, tf.zeros([2, 3, 2, 2, 4]), ones, "SAME"),
        catch(c, tf.zeros([1, 4, 4, 4, 4]), tf.zeros([3, 3, 3, 2, 4]), ones, "SAME"),
        catch(c, tf.zeros([4, 5, 4, 3]), w, ones, "SAME"),
        catch(c, x, tf.zeros([3, 3, 3, 4]), ones, "SAME"),
        catch(c, x, tf.zeros([8, 2, 2, 3, 4]), ones, "VALID"),
        catch(c, x, tf.zeros([7, 8, 3, 3, 1]), ones, "VALID"),
        catch(c, x, tf.zeros([2, 3, 2, 3, 0]), ones, "SAME"),
        catch(c, x, tf.zeros([8, 3, 2, 3, 0]), ones, "VALID"),
        catch(c, x, tf.zeros([2, 3, 2, 2, 0]), ones, "SAME"),
        catch(c, tf.zeros([2, 4, 5, 4, 0]), tf.zeros([2, 3, 2, 0, 4]), ones, "SAME"),
        catch(c, x, tf.cast(w, tf.float64), ones, "SAME"),
        catch(c, tf.cast(x, tf.int32), tf.cast(w, tf.int32), ones, "SAME"),
        catch(c, tf.cast(x, tf.complex64), tf.cast(w, tf.complex64), ones, "SAME"),
    ]


DY3 = _data((2, 2, 3, 2, 4), 33)
WT3 = _data((3, 2, 3, 3, 4), 34)


@case
def conv3d_transpose_grad(tf):
    return _both(tf, lambda dy, w: [tf.nn.conv3d_transpose(dy, w, [2, 4, 5, 4, 3], 2, "SAME"),
                                    tf.nn.conv3d_transpose(dy, w, [2, 3, 6, 3, 3], 2, "SAME"),
                                    tf.nn.conv3d_transpose(dy, w, [2, 5, 6, 5, 3], [2, 2, 2], "VALID"),
                                    tf.nn.conv3d_transpose(dy, w, (2, 2, 3, 4, 3), [1, 1, 1, 2, 1], "SAME")],
                 DY3, WT3)


@case
def conv3d_transpose_second_order(tf):
    return _both(tf, lambda dy, w: tf.square(tf.nn.conv3d_transpose(dy, w, [2, 4, 5, 4, 3], 2, "SAME")), DY3, WT3,
                 order=2)


@case
def conv3d_transpose_errors(tf):
    dy = tf.constant(DY3, tf.float32)
    w = tf.constant(WT3, tf.float32)
    t = tf.nn.conv3d_transpose
    return [
        t(dy, w, tf.constant([2, 4, 5, 4, 3]), 2, "SAME"),
        t(dy, w, tf.constant([2, 4, 5, 4, 3], tf.int64), 2, "SAME"),
        t(tf.zeros([0, 2, 3, 2, 4]), w, [0, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [2, 9, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [2, 4, 5, 4, 2], 2, "SAME"),
        catch(t, tf.zeros([2, 2, 3, 2, 5]), w, [2, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [3, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [2, -4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, [2.0, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, w, tf.constant([2.0, 4, 5, 4, 3]), 2, "SAME"),
        catch(t, dy, w, [2, 4, 5, 4, 3], 2, [[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
        catch(t, dy, w, [2, 4, 5, 4, 3], 2, "FOO"),
        catch(t, dy, w, [2, 4, 5, 4, 3], 0, "SAME"),
        catch(t, dy, w, [2, 4, 5, 4, 3], [2, 1, 1, 1, 1], "SAME"),
        catch(t, dy, w, [2, 4, 5, 4, 3], 1, "SAME", dilations=2),
        catch(t, tf.zeros([2, 4, 2, 3, 2]), w, [2, 3, 4, 5, 4], 2, "SAME", data_format="NCDHW"),
        catch(t, tf.zeros([2, 3, 2, 4]), w, [2, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, tf.zeros([3, 3, 3, 4]), [2, 4, 5, 4, 3], 2, "SAME"),
        catch(t, dy, tf.cast(w, tf.float64), [2, 4, 5, 4, 3], 2, "SAME"),
        catch(t, tf.cast(dy, tf.int32), tf.cast(w, tf.int32), [2, 4, 5, 4, 3], 2, "SAME"),
        catch(t, tf.zeros([2, 1, 1, 1, 4]), tf.zeros([9, 2, 3, 3, 4]), [2, 5, 5, 4, 3], 2, "VALID"),
        catch(t, dy, w, [2, 4, 5, 4, 3], 2, "SAME", data_format="NHWC"),
    ]


# --------------------------------------------------------------------------------------------- conv1d_transpose

DY1 = _data((2, 3, 4), 35)
WT1 = _data((3, 3, 4), 36)


@case
def conv1d_transpose_grad(tf):
    return _both(tf, lambda dy, w: [tf.nn.conv1d_transpose(dy, w, [2, 5, 3], 2, "SAME"),
                                    tf.nn.conv1d_transpose(dy, w, [2, 7, 3], [2], "VALID"),
                                    tf.nn.conv1d_transpose(dy, w, [2, 3, 3], [1, 1, 1], "SAME"),
                                    tf.nn.conv_transpose(dy, w, [2, 6, 3], 2)], DY1, WT1, order=2)


@case
def conv_transpose_and_1d_errors(tf):
    dy = tf.constant(DY1, tf.float32)
    w = tf.constant(WT1, tf.float32)
    t = tf.nn.conv1d_transpose
    return [
        t(dy, w, tf.constant([2, 5, 3]), 2, "SAME"),
        catch(t, dy[None], w, [1, 2, 5, 3], 2, "SAME"),
        catch(t, dy, w[0], [2, 5, 3], 2, "SAME"),
        tf.nn.conv_transpose(tf.constant(DY3, tf.float32), tf.constant(WT3, tf.float32), [2, 4, 5, 4, 3], 2),
        tf.nn.conv_transpose(tf.constant(DY, tf.float32), tf.constant(WT, tf.float32), [2, 5, 5, 3], 2),
        catch(t, dy, w, [5], 2, "SAME"),
        catch(t, dy, w, [2, 7, 3], 2, "SAME"),
        catch(t, tf.zeros([2, 4, 3]), w, [2, 3, 5], 2, "SAME", data_format="NCW"),
        catch(t, dy, w, [2, 5, 3], 2, "SAME", data_format="XYZ"),
        catch(t, dy, w, [2, 5, 3], 2, "SAME", data_format="NHWC"),
        catch(t, tf.zeros([2, 5, 4]), w, [2, 5, 3], 1, "SAME", dilations=2),
        catch(t, dy, w, [2, 5, 3], 2, [[0, 0], [1, 1], [0, 0]]),
        catch(t, dy, w, [2, 5, 3], 2, "FOO"),
        catch(t, dy, tf.cast(w, tf.float64), [2, 5, 3], 2, "SAME"),
        catch(t, dy, w, [2, 5, 3], [1, 2], "SAME"),
        catch(t, dy, tf.zeros([3, 4, 4]), [2, 5, 3], 2, "SAME"),
        catch(tf.nn.conv_transpose, dy, w, [2, 5, 3, 1, 1, 1], 2),
        catch(tf.nn.conv_transpose, dy, w, [3], 2),
        catch(tf.nn.conv_transpose, dy, w, 5, 2),
    ]


# --------------------------------------------------------------------------------------------- convolution (N-D)


@case
def convolution_3d_and_dilated_grad(tf):
    return _both(tf, lambda x, w, x2, w2, x1, w1: [
        tf.nn.convolution(x, w, data_format="NDHWC"),
        tf.nn.convolution(x, w, strides=[1, 2, 1], padding="SAME", data_format="NDHWC"),
        tf.nn.convolution(x, w, padding="SAME", dilations=2), tf.nn.convolution(x, w, dilations=[2, 1, 1]),
        tf.nn.convolution(x, w, padding="SAME", dilations=[1, 3, 2]),
        tf.nn.convolution(x2, w2, padding=[[0, 0], [1, 2], [2, 0], [0, 0]], dilations=[2, 3]),
        tf.nn.convolution(x2, w2, padding="SAME", dilations=[3, 1]),
        tf.nn.convolution(x1, w1, padding="SAME", dilations=3)], X3, W3, X, W23, X1, W1D)


@case
def convolution_dilated_second_order(tf):
    return _both(tf, lambda x, w: tf.square(tf.nn.convolution(x, w, padding="SAME", dilations=2)), X3, W3, order=2)


@case
def convolution_nd_errors(tf):
    x = tf.constant(X3, tf.float32)
    w = tf.constant(W3, tf.float32)
    c = tf.nn.convolution
    return [
        c(tf.constant(_data((2, 2, 4, 5, 4, 3), 37), tf.float32), w, padding="SAME"),
        c(tf.constant(_data((2, 2, 4, 5, 4, 3), 37), tf.float32), w, padding="SAME", dilations=2),
        c(tf.zeros([2, 4, 6, 4, 3]), w, dilations=[2, 1, 1]),
        c(tf.zeros([2, 4, 3]), tf.zeros([3, 3, 2]), dilations=2),
        c(tf.zeros([2, 4, 4, 3]), tf.zeros([3, 3, 3, 2]), dilations=2),
        c(tf.zeros([1, 4, 4, 4]), tf.zeros([3, 3, 2, 4]), dilations=2),
        c(tf.zeros([1, 6, 6, 3], tf.int32), tf.zeros([3, 3, 3, 2], tf.int32), dilations=2),
        tf.nn.conv2d(tf.zeros([0, 3, 5, 5]), tf.zeros([3, 3, 3, 2]), 1, "SAME", data_format="NCHW"),
        tf.nn.conv2d(tf.zeros([1, 3, 2, 5]), tf.zeros([3, 3, 3, 2]), 1, "VALID", data_format="NCHW"),
        tf.nn.conv2d(tf.zeros([1, 3, 5, 5]), tf.zeros([3, 3, 3, 0]), 1, "VALID", data_format="NCHW"),
        tf.nn.depthwise_conv2d(tf.zeros([0, 3, 5, 5]), tf.zeros([3, 3, 3, 2]), [1, 1, 1, 1], "SAME",
                               data_format="NCHW"),
        catch(tf.nn.conv2d, tf.zeros([1, 0, 5, 5]), tf.zeros([3, 3, 0, 2]), 1, "VALID", data_format="NCHW"),
        catch(c, x, w, strides=2, dilations=2),
        catch(c, tf.zeros([2, 3, 4, 5, 4]), w, data_format="NCDHW"),
        catch(c, tf.zeros([2, 3, 4, 5, 4]), w, data_format="NCDHW", dilations=2, padding="SAME"),
        catch(c, tf.zeros([2, 3, 4, 5]), tf.zeros([3, 3, 3, 2]), data_format="NCHW", dilations=2),
        catch(c, x, w, padding=[[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
        catch(c, x, w, padding=[[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]], dilations=2),
        catch(c, tf.zeros([2, 7, 3]), tf.zeros([3, 3, 2]), padding=[[0, 0], [1, 1], [0, 0], [0, 0]], dilations=2),
        catch(c, tf.zeros([4, 5, 4, 3]), w),
        catch(c, tf.zeros([4, 5, 4, 3]), w, dilations=2),
        catch(c, x, w, padding="FOO", dilations=2),
        catch(c, x, w, padding="FOO"),
        catch(c, x, w, padding="EXPLICIT", dilations=2),
        catch(c, x, w, dilations=[1, 2, 2, 2]),
        catch(c, x, w, dilations=[0, 2, 1]),
        catch(c, x, w, dilations=2, strides=[0, 1, 1]),
        catch(c, x, w, dilations=3),
        catch(c, tf.zeros([1, 5, 5, 3]), tf.zeros([3, 3, 3, 2]), dilations=3),
        catch(c, tf.zeros([1, 5, 3]), tf.zeros([3, 3, 2]), dilations=3),
        catch(c, tf.zeros([1, 4, 4, 3]), tf.zeros([5, 5, 3, 2]), dilations=2),
        catch(c, tf.zeros([1, 4, 3]), tf.zeros([5, 3, 2]), dilations=2),
        catch(c, tf.zeros([1, 4, 4, 4, 3]), tf.zeros([5, 1, 1, 3, 2]), dilations=2),
        catch(c, tf.zeros([1, 6, 6, 3]), tf.zeros([3, 3, 2, 2]), dilations=2),
        catch(c, tf.zeros([1, 6, 6, 3]), tf.zeros([3, 3, 3, 2], tf.float64), dilations=2),
        catch(c, tf.zeros([6, 6, 3]), tf.zeros([3, 3, 3, 2]), dilations=2),
        catch(c, tf.zeros([1, 6, 6, 3]), tf.zeros([3, 3, 3, 2]), dilations=2, data_format="NHWC_X"),
        catch(c, tf.zeros([1, 6, 6, 6, 3]), tf.zeros([3, 3, 3, 3, 2], tf.float16), dilations=2),
        catch(c, tf.zeros([1, 6, 6, 6, 3], tf.int32), tf.zeros([3, 3, 3, 3, 2], tf.int32), dilations=2),
    ]


# --------------------------------------------------------------------------------------------- depthwise, dilated


@case
def depthwise_dilated_strided_grad(tf):
    return _both(tf, lambda x, w: [tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "VALID", dilations=[2, 2]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME", dilations=[2, 2]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 3, 3, 1], "SAME", dilations=[2, 1]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], [[0, 0], [1, 1], [1, 0], [0, 0]],
                                                          dilations=[2, 2]),
                                   tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[2])],
                 X, WD, order=2)


@case
def depthwise_dilated_values_and_errors(tf):
    x = tf.reshape(tf.range(49, dtype=tf.float32), [1, 7, 7, 1])
    w = tf.ones([2, 2, 1, 1])
    d = tf.nn.depthwise_conv2d
    z = tf.zeros([1, 5, 5, 3])
    f = tf.zeros([3, 3, 3, 1])
    return [
        [d(x, w, [1, s, s, 1], p, dilations=[r, r]) for s, r, p in
         ((2, 2, "VALID"), (2, 2, "SAME"), (3, 2, "SAME"), (2, 3, "VALID"), (4, 3, "SAME"), (5, 3, "VALID"))],
        d(x, w, [1, 2, 2, 1], "SAME", dilations=tf.constant([2, 2])),
        d(x, w, [1, 2, 2, 1], "SAME", dilations=(1, 2)),
        d(tf.zeros([1, 4, 4, 3]), tf.zeros([5, 5, 3, 1]), [1, 2, 2, 1], "VALID", dilations=[2, 2]),
        d(z, f, [1, 2, 2, 1], [[1, 0], [1, 1], [1, 1], [0, 0]], dilations=[2, 2]),
        catch(d, x, w, [1, 1, 2, 1], "SAME", dilations=[2, 1]),
        catch(d, z, f, [1, 2, 2, 1], "VALID", dilations=[3, 3]),
        catch(d, z, f, [1, 1, 1, 1], "VALID", dilations=[3, 3]),
        catch(d, tf.zeros([1, 4, 4, 3]), tf.zeros([5, 5, 3, 1]), [1, 1, 1, 1], "VALID", dilations=[2, 2]),
        catch(d, z, f, [1, 1, 1, 1], "FOO", dilations=[2, 2]),
        catch(d, tf.zeros([1, 3, 5, 5]), f, [1, 1, 1, 1], "SAME", data_format="NCHW", dilations=[2, 2]),
        catch(d, z, f, [1, 1, 1, 1], "SAME", dilations=[0, 2]),
        catch(d, z, f, [1, 1, 1, 1], "SAME", dilations=[2, 2, 2]),
        catch(d, z, tf.zeros([3, 3, 2, 1]), [1, 2, 2, 1], "SAME", dilations=[2, 2]),
        catch(d, z, f, 1, "SAME", dilations=[2, 2]),
        catch(d, z, f, [1, 2, 2], "SAME", dilations=[2, 2]),
        catch(d, z, f, [1, 2, 2, 1], [[0, 0], [1, 1], [1, 1]], dilations=[2, 2]),
        catch(d, z, f, [1, 2, 2, 1], [[0, 0], [-1, 1], [1, 1], [0, 0]], dilations=[2, 2]),
        catch(d, tf.zeros([5, 5, 3]), f, [1, 2, 2, 1], "SAME", dilations=[2, 2]),
        catch(d, tf.zeros([5, 3]), f, [1, 1, 1, 1], "SAME"),
        catch(d, tf.cast(z, tf.int32), tf.cast(f, tf.int32), [1, 2, 2, 1], "SAME", dilations=[2, 2]),
        catch(d, z, tf.cast(f, tf.float64), [1, 2, 2, 1], "SAME", dilations=[2, 2]),
        catch(d, z, f, [2, 2, 2, 1], "SAME", dilations=[2, 2]),
        catch(d, z, f, [1, 2, 2, 1], "EXPLICIT", dilations=[2, 2]),
    ]


# --------------------------------------------------------------------------------------------- 3-D pooling

XP3 = _data((2, 4, 5, 6, 3), 40)


def _f32(tf, fn, *arrays, order=1):
    """float32 only (TF's 3-D pooling kernels); float64 is a recorded error."""
    return {"float32": _grads(tf, fn, arrays, "float32", order),
            "float64": catch(_grads, tf, fn, arrays, "float64", order)}


@case
def max_pool3d_grad_with_ties(tf):
    return _f32(tf, lambda x: [tf.nn.max_pool3d(x, 2, 2, "VALID"), tf.nn.max_pool3d(x, 3, 2, "SAME"),
                               tf.nn.max_pool3d(x, [2, 3, 2], 1, "SAME"), tf.nn.max_pool3d(x, 3, [1, 2, 3], "VALID"),
                               tf.nn.max_pool3d(x, [1, 6, 7], [1, 2, 2], "SAME"),
                               tf.nn.max_pool(x, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "SAME", data_format="NDHWC")],
                 XP3)


@case
def max_pool3d_second_order(tf):
    return _f32(tf, lambda x: tf.reduce_sum(tf.square(tf.nn.max_pool3d(x, 3, 2, "SAME")))
                + tf.reduce_sum(tf.square(tf.nn.max_pool3d(x, [1, 6, 7], 1, "SAME"))), XP3, order=2)


@case
def max_pool3d_conventions(tf):
    """NaN, infinities, near-ties (within 1e-5 all take the gradient) and windows TF's gradient spreads over the
    whole input (a window longer than the input that starts in the padding); the last item of each row is
    d/du of sum(grad(u) * v), i.e. MaxPool3DGradGrad (first exact maximum)."""
    nan, inf = float("nan"), float("inf")
    square, row = [1, 1, 2, 2, 1], [1, 1, 1, 4, 1]
    out = []
    for v, shape, k, s, p in (([1.0, nan, 2.0, 0.0], square, 2, 1, "SAME"),
                              ([nan, 1.0, 2.0, 0.0], square, 2, 1, "SAME"),
                              ([-inf, -inf, -inf, -inf], square, 2, 1, "SAME"),
                              ([nan, nan, nan, nan], square, 2, 1, "SAME"),
                              ([inf, 1.0, 2.0, 0.0], square, 2, 1, "SAME"),
                              ([1.0, 1.0, 1.0, 0.0], square, 2, 1, "SAME"),
                              ([1.0, 1.000001, 0.99999, 0.5], square, [1, 2, 2], 2, "VALID"),
                              ([1.0, 1.00002, 0.99999, 0.5], square, [1, 2, 2], 2, "VALID"),
                              ([3.0, 1.0, 2.0, 3.0], row, [1, 1, 5], [1, 1, 2], "SAME"),
                              ([3.0, 1.0, 3.0, 2.0], row, [1, 1, 5], 1, "SAME"),
                              ([2.0, 1.0, 2.0, 2.0], row, [1, 1, 6], [1, 1, 3], "SAME")):
        x = tf.reshape(tf.constant(v), shape)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool3d(x, k, s, p)
        up = tf.reshape(tf.range(10.0, 10.0 + tf.cast(tf.size(y), tf.float32)), tf.shape(y))
        with tf.GradientTape() as t2:
            t2.watch(up)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y2 = tf.nn.max_pool3d(x, k, s, p)
            g2 = t1.gradient(y2, x, output_gradients=up)
            total = tf.reduce_sum(g2 * tf.reshape(tf.range(1.0, 5.0), shape))
        out.append([y, tape.gradient(y, x), g2, t2.gradient(total, up)])
    return out


AP3 = _data((2, 3, 4, 5, 2), 41)


@case
def avg_pool3d_grad(tf):
    return _f32(tf, lambda x: [tf.nn.avg_pool3d(x, 2, 2, "VALID"), tf.nn.avg_pool3d(x, 3, 2, "SAME"),
                               tf.nn.avg_pool3d(x, [2, 2, 3], [1, 2, 2], "SAME"),
                               tf.nn.avg_pool3d(x, [3, 5, 6], 1, "SAME"), tf.nn.avg_pool3d(x, [1, 6, 7], 2, "SAME"),
                               tf.nn.avg_pool(x, 2, [1, 2, 2], "SAME", data_format="NDHWC")], AP3, order=2)


@case
def avg_pool3d_conventions(tf):
    low = float(np.finfo(np.float32).min)
    out = []
    for v in ([low, 1.0], [low, low], [float("-inf"), 1.0], [float("nan"), 1.0], [low, 3.0]):
        x = tf.reshape(tf.constant(v), [1, 1, 1, 2, 1])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.avg_pool3d(x, [1, 1, 2], 1, "VALID")
        out.append([y, tape.gradient(y, x)])
    x = tf.reshape(tf.range(24, dtype=tf.float32), [1, 2, 3, 4, 1])
    out.append(tf.nn.avg_pool3d(tf.where(x > 5.0, x, low), [2, 2, 2], 1, "SAME"))
    return out


@case
def pool3d_dtypes_and_shapes(tf):
    x = tf.constant(XP3, tf.float32)
    mp, ap = tf.nn.max_pool3d, tf.nn.avg_pool3d
    return [mp(XP3.astype(np.float32).tolist(), 2, 2, "SAME"), ap(XP3.astype(np.float32), 2, 2, "SAME"),
            mp(x, tf.constant([2, 2, 2]), 2.0, "SAME"), ap(x, [2, 2, 2, 2, 2][:3], 1, "VALID", data_format=None),
            mp(tf.zeros([0, 4, 5, 6, 3]), 2, 1, "SAME"), ap(tf.zeros([2, 0, 5, 6, 3]), 2, 1, "SAME"),
            mp(tf.zeros([2, 4, 5, 6, 0]), 2, 1, "SAME"), mp(x, 7, 1, "SAME"), ap(x, [4, 5, 6], 1, "VALID"),
            tf.nn.max_pool(x, 2, 2, "VALID", data_format="NDHWC"), tf.nn.avg_pool(x, [1, 2, 2, 3, 1], 1, "SAME")]


@case
def pool3d_errors(tf):
    x = tf.constant(XP3, tf.float32)
    out = []
    for p in (tf.nn.max_pool3d, tf.nn.avg_pool3d):
        out += [
            catch(p, x, [1, 2, 2, 1], 1, "VALID"),
            catch(p, x, [2, 2], 1, "VALID"),
            catch(p, x, [1] * 6, 1, "VALID"),
            catch(p, x, 0, 1, "VALID"),
            catch(p, x, -1, 1, "VALID"),
            catch(p, x, 2, 0, "VALID"),
            catch(p, x, [1, 0, 1, 1, 1], [1, 0, 1, 1, 1], "VALID"),
            catch(p, x, [2, 2, 2, 2, 1], 1, "VALID"),
            catch(p, x, [2, 0, 1, 1, 1], 1, "VALID"),
            catch(p, x, 2, [2, 1, 1, 1, 1], "VALID"),
            catch(p, x, [1, 1, 1, 1, 3], [1, 1, 1, 1, 3], "VALID"),
            catch(p, x, [1, 2, 1, 1, 3], [1, 1, 1, 1, 3], "VALID"),
            catch(p, x, 1, [1, 1, 1, 1, 3], "VALID"),
            catch(p, x, [1, 6, 1, 1, 2], 1, "VALID"),
            catch(p, x, 6, 1, "VALID"),
            catch(p, x, [1, 7, 8, 1, 1], 1, "VALID"),
            catch(p, x, [1, 7, 1, 1, 1], [1, 1, 1, 0, 1], "VALID"),
            catch(p, x, 2, 1, "FOO"),
            catch(p, x, 2, 1, [[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
            catch(p, x, 2, 1, "EXPLICIT"),
            catch(p, tf.zeros([2, 3, 4, 5, 6]), 2, 1, "SAME", data_format="NCDHW"),
            catch(p, x, [2, 1, 1, 1, 1], 1, "VALID", data_format="NCDHW"),
            catch(p, x, 2, 1, "SAME", data_format="NHWC"),
            catch(p, tf.zeros([4, 5, 6, 3]), 2, 1, "SAME"),
            catch(p, tf.zeros([1, 2, 4, 5, 6, 3]), 2, 1, "SAME"),
            catch(p, tf.zeros([4, 5, 6, 3]), [2, 1, 1, 1, 1], 1, "VALID"),
            catch(p, tf.cast(x, tf.int32), 2, 1, "SAME"),
            catch(p, tf.cast(x, tf.float64), 2, 1, "SAME"),
            catch(p, tf.cast(x, tf.float64), 2, 1, "SAME", data_format="NCDHW"),
            catch(p, tf.cast(x, tf.float16), 2, 1, "SAME"),
            catch(p, tf.cast(x, tf.float16), 2, 1, "FOO"),
            catch(p, tf.cast(x, tf.float16), [2, 1, 1, 1, 1], 1, "SAME"),
            catch(p, XP3, 2, 1, "SAME"),
            catch(p, tf.cast(x, tf.complex64), 2, 1, "SAME"),
        ]
    out += [catch(tf.nn.max_pool, x, [2, 2, 2, 2], 1, "SAME"), catch(tf.nn.avg_pool, x, 2, [1, 1], "SAME"),
            catch(tf.nn.max_pool, x, 2, 1, [[0, 0]] * 5), catch(tf.nn.max_pool, tf.zeros([2, 3, 4, 5, 6]), 2, 1,
                                                                 "SAME", data_format="NCDHW")]
    return out


@case
def format_none_gradients(tf):
    """TF's 3-D ops run with ``data_format=None`` (conv3d's, and tf.nn.convolution's, max_pool's and avg_pool's
    default for rank 5) but their gradient functions fail decoding it; the dilated route and the 3-D wrappers
    name the format and differentiate."""
    x = tf.constant(_data((1, 3, 4, 4, 2), 42), tf.float32)
    w = tf.constant(_data((2, 2, 2, 2, 3), 43), tf.float32)

    def grads(fn, *sources):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(sources)
            y = fn()
        return [y] + [catch(tape.gradient, y, s) for s in sources]

    return [grads(lambda: tf.nn.conv3d(x, w, [1] * 5, "SAME", data_format=None), x, w),
            grads(lambda: tf.nn.conv3d(x, w, [1] * 5, "SAME"), x, w),
            grads(lambda: tf.nn.convolution(x, w), x, w),
            grads(lambda: tf.nn.convolution(x, w, dilations=2), x, w),
            grads(lambda: tf.nn.max_pool(x, 2, 1, "SAME"), x),
            grads(lambda: tf.nn.avg_pool(x, 2, 1, "SAME"), x),
            grads(lambda: tf.nn.max_pool3d(x, 2, 1, "SAME", data_format=None), x),
            grads(lambda: tf.nn.avg_pool3d(x, 2, 1, "SAME", data_format=None), x)]

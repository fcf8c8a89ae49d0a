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

"""Shape manipulation ops: values, dtypes and gradients (float32, float64), second order, and TF's errors.

Covers concat, split, squeeze, expand_dims, tile, pad (constant, reflect, symmetric), reverse, roll, slice,
strided_slice and indexing, one_hot, sequence_mask, meshgrid, linspace, eye, and tf.linalg's diag family.
Each gradient case returns ``{"float32": [y, [dy/dx...]], "float64": [...]}``: ``y`` is summed implicitly by
``tape.gradient`` (weighted first where the weights matter); when the function returns a list, each output gets
its own tape and pair.
"""

import numpy as np

from tests.golden.harness import FLOAT_DTYPES, case, catch, grads_by_dtype


def _w(tf, y):
    """Distinct weights shaped like ``y``, so that gradients show where each element went."""
    n = int(np.prod(y.shape)) if y.shape.rank else 1
    return tf.reshape(tf.cast(tf.range(1, n + 1), y.dtype), tf.shape(y))


def _weighted(tf, f):
    return lambda *xs: _sum_w(tf, f(*xs))


def _sum_w(tf, y):
    if isinstance(y, list):
        return [_sum_w(tf, v) for v in y]
    return tf.reduce_sum(y * _w(tf, y))


def _second(tf, fn, value, dtype="float64"):
    """First and second derivatives of ``sum(w * fn(x)^2)`` (nested tapes)."""
    x = tf.constant(value, dtype=getattr(tf, dtype))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
            loss = tf.reduce_sum(y * y * _w(tf, y))
        g = inner.gradient(loss, x)
        gsum = tf.reduce_sum(g * _w(tf, g))
    return [g, outer.gradient(gsum, x)]


X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
X34 = np.arange(12.0).reshape(3, 4) - 5.0
X234 = np.arange(24.0).reshape(2, 3, 4) * 0.5 - 3.0

# --------------------------------------------------------------------------------------------- concat


@case
def concat_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda a, b: [tf.concat([a, b], 0), tf.concat([a, b, a], axis=-1),
                                                          tf.concat((b, a), tf.constant(1))]), X, [[7.0, 8.0, 9.0]] * 2)


@case
def concat_kinds(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [tf.concat([a], 5), tf.concat(a, 0), tf.concat([a, [[5, 6]]], 0), tf.concat([[[5.0, 6.0]], a], 0),
            tf.concat([a, np.ones([2, 1], np.float32)], 1), tf.concat([a, a], np.int64(-1)),
            tf.concat([tf.constant(["a"]), tf.constant(["b", "c"])], 0), tf.concat([[True], [False]], 0),
            tf.concat([tf.zeros([0, 2]), a], 0), tf.concat([[1, 2], [3]], 0), tf.concat([a, a], [1]),
            tf.concat([tf.constant([1 + 2j]), tf.constant([3j])], 0)]


@case
def concat_errors(tf):
    a, b = tf.ones([2, 3]), tf.ones([2, 4])
    s = tf.constant(1.0)
    return [catch(tf.concat, [a, b], 0), catch(tf.concat, [a, b], 2), catch(tf.concat, [a, b], -3),
            catch(tf.concat, [s, s], 0), catch(tf.concat, [s, s], 1), catch(tf.concat, [a, tf.ones([2])], 0),
            catch(tf.concat, [tf.ones([2]), s], 0), catch(tf.concat, [a, tf.ones([2, 3], tf.float64)], 0),
            catch(tf.concat, [a, tf.ones([2, 3], tf.int32)], 1), catch(tf.concat, [a, a], 1.0),
            catch(tf.concat, [a, a], [[1]]), catch(tf.concat, [a, a], [0, 1]), catch(tf.concat, [a], [1]),
            catch(tf.concat, [a, [[1.0, 2.0]]], 0), catch(tf.concat, [a, b], np.int32(0)),
            catch(tf.concat, [[1, 2], [3.5]], 0)]


# --------------------------------------------------------------------------------------------- split


@case
def split_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: tf.split(x, 2, 1) + tf.split(x, [1, -1, 1], axis=-1) +
                                        tf.split(x, tf.constant([2, 1]), 0) + tf.split(x, 1, 0)), X34)


@case
def split_some_outputs_unused_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.split(x, 4, axis=1)[2], tf.split(x, [3, 0, 1], 1)[1] * 2.0,
                                         tf.split(x, [1, 2], 0)[0] * tf.split(x, [1, 2], 0)[0]], X34)


@case
def split_kinds(tf):
    x = tf.reshape(tf.range(12), [3, 4])
    return [tf.split(x, [4], 1), tf.split(x, [4, 0], 1), tf.split(x, [0, -1], 1), tf.split(x, np.int64(2), 1),
            tf.split(x, [1, 3], 1, num=2), tf.split(x, 2, 1, num=7), tf.split(x, np.array([2, 2]), 1),
            tf.split(x, 3, tf.constant(0)), tf.split(tf.constant(["a", "b"]), 2)]


@case
def split_errors(tf):
    x = tf.ones([3, 4])
    return [catch(tf.split, x, 3, 1), catch(tf.split, x, [1, -1, -1], 1), catch(tf.split, x, [1, 2], 1),
            catch(tf.split, x, [1, 5], 1), catch(tf.split, x, [1, -1, 5], 1), catch(tf.split, x, [-2, 6], 1),
            catch(tf.split, x, 0, 1), catch(tf.split, x, -1, 1), catch(tf.split, x, 2, 2), catch(tf.split, x, 2, -3),
            catch(tf.split, x, [2, 2], 2), catch(tf.split, x, tf.constant(2), 1),
            catch(tf.split, x, [1, 3], 1, num=3), catch(tf.split, x, 2.0, 1), catch(tf.split, x, [1.0, 3.0], 1),
            catch(tf.split, x, [[1, 3]], 1), catch(tf.split, tf.constant(1.0), 1, 0), catch(tf.split, x, [-1], 1),
            catch(tf.split, x, 2, [1]), catch(tf.split, x, np.array([1, 5]), 1),
            catch(tf.split, x, tf.constant([1, 5]), tf.constant(1))]


# --------------------------------------------------------------------------------------------- squeeze, expand_dims


@case
def squeeze_expand_dims_values_and_grad(tf):
    x = np.arange(6.0).reshape(1, 3, 1, 2)
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.squeeze(x), tf.squeeze(x, 0), tf.squeeze(x, [0, -2]),
                                                       tf.squeeze(x, axis=(2,)), tf.expand_dims(x, 0),
                                                       tf.expand_dims(x, -1),
                                                       tf.expand_dims(x, axis=2), tf.expand_dims(x, [1]),
                                                       tf.expand_dims(x, tf.constant(-5, tf.int64))]), x)


@case
def squeeze_expand_dims_kinds(tf):
    return [tf.squeeze(tf.constant(1.0)), tf.squeeze([[1.0]], 0), tf.squeeze(tf.ones([1, 3, 1]), 1.0 - 1.0),
            tf.squeeze(tf.ones([1, 3, 1]), [0.0]), tf.squeeze(tf.ones([1, 3, 1]), np.int64(0)),
            tf.squeeze(tf.ones([1, 3, 1]), [0, 0]), tf.expand_dims(tf.constant(1.0), 0),
            tf.expand_dims(tf.constant(1.0), -1), tf.expand_dims([1, 2], 1), tf.squeeze(tf.constant([["s"]]))]


@case
def squeeze_expand_dims_errors(tf):
    x = tf.ones([1, 3, 1])
    return [catch(tf.squeeze, x, 1), catch(tf.squeeze, x, 3), catch(tf.squeeze, x, -4), catch(tf.squeeze, x, [0, 1]),
            catch(tf.squeeze, x, [5, 1]), catch(tf.squeeze, x, 1.0), catch(tf.squeeze, x, tf.constant([0])),
            catch(tf.squeeze, x, np.array([0])), catch(tf.squeeze, tf.constant(1.0), 0),
            catch(tf.expand_dims, x, 4), catch(tf.expand_dims, x, -5), catch(tf.expand_dims, x, [0, 1]),
            catch(tf.expand_dims, x, 1.0), catch(tf.expand_dims, x, None), catch(tf.expand_dims, x, np.int64(5)),
            catch(tf.expand_dims, x, tf.constant(5)), catch(tf.expand_dims, x, tf.constant([0, 1])),
            catch(tf.expand_dims, x, tf.constant(1.0))]


# --------------------------------------------------------------------------------------------- tile


@case
def tile_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.tile(x, [2, 1]), tf.tile(x, [1, 3]), tf.tile(x, (2, 2)),
                                                       tf.tile(x, tf.constant([3, 1], tf.int64)), tf.tile(x, [0, 2])]),
                          X)


@case
def tile_kinds(tf):
    return [tf.tile(tf.constant(1.5), []), tf.tile(tf.constant(["a", "b"]), [2]), tf.tile([[True]], [2, 3]),
            tf.tile(tf.constant([1, 2]), np.array([2])), tf.tile(tf.constant([1j]), [3])]


@case
def tile_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.tile, x, [2]), catch(tf.tile, x, [2, -1]), catch(tf.tile, x, [2.0, 1.0]),
            catch(tf.tile, x, [[2, 1]]), catch(tf.tile, x, np.array([2])), catch(tf.tile, x, tf.constant([2])),
            catch(tf.tile, x, tf.constant([1.0, 2.0]))]


# --------------------------------------------------------------------------------------------- pad


@case
def pad_constant_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.pad(x, [[1, 0], [2, 1]]), tf.pad(x, [[0, 0], [0, 0]]),
                                                       tf.pad(x, tf.constant([[1, 1], [0, 2]], tf.int64),
                                                              constant_values=5),
                                                       tf.pad(x, [[2, 1], [1, 1]], mode="constant",
                                                              constant_values=-1.5)]), X)


@case
def pad_constant_value_gradient_is_none(tf):
    out = {}
    for d in FLOAT_DTYPES:
        x = tf.constant(X, getattr(tf, d))
        c = tf.constant(2.0, getattr(tf, d))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, c])
            y = tf.pad(x, [[1, 1], [1, 1]], constant_values=c) * 3.0
        out[d] = [y, tape.gradient(y, [x, c])]
    return out


@case
def pad_reflect_symmetric_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.pad(x, [[1, 1], [2, 2]], "REFLECT"),
                                                       tf.pad(x, [[0, 1], [0, 2]], mode="reflect"),
                                                       tf.pad(x, [[2, 1], [3, 2]], "SYMMETRIC"),
                                                       tf.pad(x, [[1, 2], [1, 0]], mode="symmetric"),
                                                       tf.pad(x, [[0, 0], [0, 0]], "REFLECT")]), X234[0])


@case
def pad_mirror_3d_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.pad(x, [[1, 0], [1, 2], [3, 3]], "REFLECT"),
                                                       tf.pad(x, [[2, 2], [0, 3], [4, 1]], "SYMMETRIC")]), X234)


@case
def pad_kinds(tf):
    return [tf.pad(tf.constant(1.0), []), tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=7),
            tf.pad(tf.constant([True]), [[1, 1]]), tf.pad(tf.constant(["a", "b"]), [[1, 1]]),
            tf.pad(tf.constant(["a", "b"]), [[1, 1]], constant_values="z"),
            tf.pad(tf.constant(["a", "b"]), [[1, 1]], mode="REFLECT"),
            tf.pad(tf.constant([1 + 2j]), [[1, 1]], constant_values=3), tf.pad(tf.ones([0, 3]), [[1, 0], [1, 1]]),
            tf.pad(tf.ones([0, 3]), [[0, 0], [1, 1]], "REFLECT"), tf.pad([[1.0, 2.0]], np.array([[1, 0], [0, 1]])),
            tf.pad(tf.constant([1.0, 2.0]), [[1, 1]], constant_values=np.float32(0.0))]


@case
def pad_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.pad, x, [[1, 1], [3, 2]], "REFLECT"), catch(tf.pad, x, [[2, 1], [2, 2]], "REFLECT"),
            catch(tf.pad, x, [[2, 1], [4, 2]], "SYMMETRIC"), catch(tf.pad, x, [[3, 1], [1, 2]], "SYMMETRIC"),
            catch(tf.pad, x, [[1, 1]], mode="foo"), catch(tf.pad, x, [[1, 1]]), catch(tf.pad, x, [[1, 1]] * 3),
            catch(tf.pad, x, [1, 1]), catch(tf.pad, x, [[1, 1, 1], [1, 1, 1]]), catch(tf.pad, x, [[-1, 1], [1, 1]]),
            catch(tf.pad, x, [[-1, 1], [1, 1]], "REFLECT"), catch(tf.pad, x, [[1.0, 1], [1, 1]]),
            catch(tf.pad, x, [[1, 1], [1, 1]], constant_values=[1.0]),
            catch(tf.pad, x, [[1, 1], [1, 1]], constant_values=tf.constant(1.0, tf.float64)),
            catch(tf.pad, tf.constant([1, 2]), [[1, 1]], constant_values=5.5),
            catch(tf.pad, tf.constant(1.0), [], "REFLECT"),
            catch(tf.pad, tf.ones([0, 3]), [[1, 0], [1, 1]], "SYMMETRIC"),
            catch(tf.pad, tf.constant([True]), [[1, 1]], "REFLECT"),
            catch(tf.pad, x, tf.constant([[1, 1], [-1, 0]])), catch(tf.pad, x, np.array([[1, 1], [-1, 0]])),
            catch(tf.pad, x, tf.constant([[1, 1], [-1, 0]]), constant_values=2.0),
            catch(tf.pad, x, tf.constant([[1, 1], [-1, 0]]), "REFLECT"),
            catch(tf.pad, x, tf.constant([[1, 1], [1, 1]]), constant_values=tf.constant([2.0]))]


# --------------------------------------------------------------------------------------------- reverse, roll


@case
def reverse_roll_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.reverse(x, [0]), tf.reverse(x, [-1, 0]), tf.reverse(x, []),
                                                       tf.reverse(x, tf.constant([1], tf.int64)), tf.roll(x, 1, 1),
                                                       tf.roll(x, [1, -1], [0, 1]), tf.roll(x, [1, 1], [1, 1]),
                                                       tf.roll(x, -7, -1), tf.roll(x, tf.constant(2, tf.int64), 0)]),
                          X34)


@case
def reverse_roll_kinds(tf):
    return [tf.reverse(tf.constant(1.0), []), tf.reverse(tf.constant(["a", "b"]), [0]),
            tf.reverse([[1, 2], [3, 4]], np.array([1])), tf.roll(tf.constant(["a", "b", "c"]), 1, 0),
            tf.roll([True, False, False], [2], [0]), tf.roll(tf.ones([2, 0]), 1, 1)]


@case
def reverse_roll_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.reverse, x, [2]), catch(tf.reverse, x, [-3]), catch(tf.reverse, x, [0, 0]),
            catch(tf.reverse, x, [0, -2]), catch(tf.reverse, x, 0), catch(tf.reverse, x, [0.0]),
            catch(tf.reverse, x, [[0]]), catch(tf.reverse, x, np.array([2])), catch(tf.reverse, x, tf.constant([3])),
            catch(tf.roll, x, 1, 2), catch(tf.roll, x, 1, -3), catch(tf.roll, x, [1, 2], [0]),
            catch(tf.roll, x, 1.0, 0), catch(tf.roll, x, [[1]], [[0]]), catch(tf.roll, tf.constant(1.0), 1, 0),
            catch(tf.roll, x, 1, [0.0]), catch(tf.roll, x, tf.constant([1, 2]), tf.constant([0])),
            catch(tf.roll, x, [1], [[0]])]


# --------------------------------------------------------------------------------------------- slice


@case
def slice_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda x: [tf.slice(x, [0, 1], [2, 2]), tf.slice(x, [1, 1], [-1, -1]),
                                                       tf.slice(x, tf.constant([2, 0], tf.int64), [1, 4]),
                                                       tf.slice(x, [1, 3], [2, 0]),
                                                       tf.slice(x, np.array([0, 0]), [3, 4])]),
                          X34)


@case
def slice_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.slice, x, [0, 1], [2, 3]), catch(tf.slice, x, [0, 4], [1, 1]),
            catch(tf.slice, x, [0, -1], [1, 1]), catch(tf.slice, x, [0, 1], [1, -2]), catch(tf.slice, x, [0], [1]),
            catch(tf.slice, x, [0, 1], [1]), catch(tf.slice, x, [0, 0, 0], [1, 1, 1]),
            catch(tf.slice, x, [0.0, 1], [1, 1]), catch(tf.slice, x, [0, 1], [1, 1.0]),
            catch(tf.slice, tf.constant(1.0), [], []), catch(tf.slice, x, 1, 1),
            catch(tf.slice, x, np.array([0, 4]), np.array([1, 1])), catch(tf.slice, x, tf.constant([0, 4]), [1, 1]),
            catch(tf.slice, tf.ones([0, 2]), [1, 0], [0, 1]), tf.slice(tf.ones([0, 2]), [0, 1], [0, 1])]


# --------------------------------------------------------------------------------------------- strided_slice


@case
def strided_slice_values_and_grad(tf):
    ss = tf.strided_slice
    return grads_by_dtype(tf, _weighted(tf, lambda x: [ss(x, [0, 1], [2, 3]), ss(x, [0, 1], [2, 3], [1, 2]),
                                                       ss(x, [1, 0], [0, 3], [-1, 1]),
                                                       ss(x, [1, 1], [0, 0], begin_mask=1),
                                                       ss(x, [1, 1], [0, 0], end_mask=3),
                                                       ss(x, [0, 1], [0, 3], ellipsis_mask=1),
                                                       ss(x, [0, 0, 1], [0, 0, 3], new_axis_mask=2),
                                                       ss(x, [1], [2], shrink_axis_mask=1),
                                                       ss(x, [1, 0, 2], [2, 0, 3], shrink_axis_mask=5, ellipsis_mask=2),
                                                       ss(x, [-1], [-3], [-1]),
                                                       ss(x, [0, 0], [1, 1], [1, 1], 3, 3, 0, 0, 2),
                                                       ss(x, tf.constant([0, 1]), tf.constant([2, 3]),
                                                          tf.constant([1, 1]))]),
                          X234)


@case
def strided_slice_errors(tf):
    x = tf.ones([2, 3, 4])
    ss = tf.strided_slice
    return [catch(ss, x, [0], [2], [0]), catch(ss, x, [0], [2, 3]), catch(ss, x, [5], [6], shrink_axis_mask=1),
            catch(ss, x, [0, 0, 0, 0], [1, 1, 1, 1]), catch(ss, x, [0, 0], [1, 1], ellipsis_mask=3),
            catch(ss, x, [0.0], [1]), catch(ss, x, [0], [1], [1.0]), catch(ss, tf.constant(1.0), [0], [1]),
            catch(ss, x, tf.constant([0]), tf.constant([2]), tf.constant([0])),
            catch(ss, x, [-3], [0], shrink_axis_mask=1),
            catch(ss, x, [1, 0], [0, 3], [-1, 1], shrink_axis_mask=1),
            catch(ss, x, [5, 0], [0, 3], [-1, 1], shrink_axis_mask=1),
            ss(x, [1, 0], [0, 3], [2, 1], shrink_axis_mask=1),
            ss(x, [0, 0], [1, 1], new_axis_mask=1, shrink_axis_mask=1),
            ss(x, [0], [2], [1], ellipsis_mask=1, new_axis_mask=1),
            ss(x, [0, 0], [0, 0], [1, 1], ellipsis_mask=2, new_axis_mask=2),
            ss(x, [0], [1], [1], shrink_axis_mask=1, end_mask=1)]


@case
def getitem_combined_values_and_grad(tf):
    def f(x):
        return [x[..., tf.newaxis, ::-1, tf.constant(1)], x[tf.constant(1), ..., ::-2], x[None, ..., None],
                x[..., None, 1:, None, ::-1], x[-1, tf.constant(-1), tf.constant(1):tf.constant(-1)],
                x[1::-1, None, tf.constant(2, tf.int64)], x[:, :, :, None], x[[0, 1]], x[1:tf.constant(2)],
                x[np.newaxis, np.int32(1)], x[tf.Variable(1)], x[::tf.constant(-1)], x[:, ::-2, 3:0:-2],
                x[-5:5, -100:100, ::3], x[..., 2], x[1, ..., None, 1, None]]
    return grads_by_dtype(tf, _weighted(tf, f), X234)


@case
def getitem_combined_errors(tf):
    x = tf.ones([2, 3, 4])
    return [catch(lambda: x[..., ...]), catch(lambda: x[:, 5]), catch(lambda: x[:, ::0]),
            catch(lambda: x[None, :, :, :, None, 1]), catch(lambda: x[0, 0, 0, 0]), catch(lambda: x[1.0:2]),
            catch(lambda: x[:tf.constant(1.0)]), catch(lambda: x[tf.constant([1])]), catch(lambda: x[-3]),
            catch(lambda: x[..., 4]), catch(lambda: x[None, None, 2])]


# --------------------------------------------------------------------------------------------- one_hot, sequence_mask


@case
def one_hot_values(tf):
    i = [[0, 2], [1, -1]]
    return [tf.one_hot([0, 2, -1, 3], 3), tf.one_hot([0, 2], 3, on_value=5.0, off_value=-1.0),
            tf.one_hot([0, 2], 3, on_value=5, off_value=-1), tf.one_hot([0, 2], 3, on_value=5),
            tf.one_hot([0, 2], 3, off_value=5), tf.one_hot([0, 2], 3, dtype=tf.int64),
            tf.one_hot([0, 2], 3, on_value=5, dtype=tf.float32), tf.one_hot(i, 3, axis=0), tf.one_hot(i, 3, axis=1),
            tf.one_hot(i, 3, axis=-1), tf.one_hot(tf.constant([0, 2], tf.uint8), 3),
            tf.one_hot(tf.constant([0, 2], tf.int64), tf.constant(4)), tf.one_hot([0, 2], 0),
            tf.one_hot([0, 2], 3, on_value=True, off_value=False), tf.one_hot([0, 2], 3, dtype=tf.bool),
            tf.one_hot([0, 2], 3, on_value="a", off_value="b"), tf.one_hot([0, 2], 3, dtype=tf.complex64),
            tf.one_hot(3, 4), tf.one_hot([0, 2], 3, on_value=5.0, dtype=tf.float64)]


@case
def one_hot_gradient_is_none(tf):
    on = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(on)
        y = tf.one_hot([0, 1], 2, on_value=on) * 3.0
    return [y, tape.gradient(y, on)]


@case
def one_hot_errors(tf):
    return [catch(tf.one_hot, [0, 2], 3, on_value=5.0, off_value=1),
            catch(tf.one_hot, [0, 2], 3, on_value=5.0, off_value=tf.constant(1.0, tf.float64)),
            catch(tf.one_hot, [0, 2], 3, on_value=tf.constant(1.0), dtype=tf.float64),
            catch(tf.one_hot, [0, 2], 3, off_value=tf.constant(1.0), dtype=tf.float64),
            catch(tf.one_hot, [[0, 2]], 3, axis=-2), catch(tf.one_hot, [[0, 2]], 3, axis=3),
            catch(tf.one_hot, [0.0, 2.0], 3), catch(tf.one_hot, [0, 2], -1), catch(tf.one_hot, [0, 2], 3.0),
            catch(tf.one_hot, [0, 2], 3, dtype=tf.string), catch(tf.one_hot, [0, 2], 3, on_value=[1.0]),
            catch(tf.one_hot, tf.constant([0, 1]), 3, axis=5), catch(tf.one_hot, tf.constant([0, 1]), tf.constant(-1)),
            catch(tf.one_hot, tf.constant([0, 1], tf.int16), 3), catch(tf.one_hot, [0, 2], 3, dtype=tf.bool)]


@case
def sequence_mask_values(tf):
    return [tf.sequence_mask([1, 3, 2], 5), tf.sequence_mask([1, 3, 2]), tf.sequence_mask([[1, 3], [2, 0]]),
            tf.sequence_mask([1, 3, 2], 4, dtype=tf.float32), tf.sequence_mask([1, 3, 2], 2),
            tf.sequence_mask([1.0, 3.0, 2.5], 4), tf.sequence_mask([1, -3, 2], 4), tf.sequence_mask(3, 5),
            tf.sequence_mask(tf.constant([1, 3], tf.int64), tf.constant(4)),
            tf.sequence_mask(tf.constant([1, 3], tf.int64)), tf.sequence_mask([], 3), tf.sequence_mask([1, 2], 0),
            tf.sequence_mask([0, 0]), tf.sequence_mask([2, 1], 3, dtype=tf.int32)]


@case
def sequence_mask_errors(tf):
    return [catch(tf.sequence_mask, [1, 3], [4]), catch(tf.sequence_mask, [1, 3], -1),
            catch(tf.sequence_mask, [1, 3], 4.0)]


# --------------------------------------------------------------------------------------------- meshgrid, linspace, eye


@case
def meshgrid_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda a, b, c: tf.meshgrid(a, b) + tf.meshgrid(a, b, indexing="ij") +
                                        tf.meshgrid(a, b, c) + tf.meshgrid(c, indexing="ij")),
                          [1.0, 2.0, 3.0], [4.0, 5.0], [[6.0, 7.0]])


@case
def meshgrid_kinds_and_errors(tf):
    return [tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"), tf.meshgrid([1, 2, 3]), tf.meshgrid(),
            tf.meshgrid(1, [3, 4]), catch(tf.meshgrid, [1, 2, 3], [4.0, 5.0]),
            catch(tf.meshgrid, [1, 2], [3, 4], indexing="foo"), catch(tf.meshgrid, [1, 2], [3, 4], foo=1),
            catch(tf.meshgrid, tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0], tf.float64))]


@case
def linspace_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda a, b: [tf.linspace(a[0, 0], b[0], 5), tf.linspace(a, b, 3),
                                                          tf.linspace(a, b, 4, axis=-1), tf.linspace(a, b, 1),
                                                          tf.linspace(a, b, 0, axis=1), tf.linspace(a, b[0], 2, axis=2),
                                                          tf.linspace(a, b, tf.constant(6, tf.int64), axis=1)]),
                          [[0.0, 1.0], [-2.0, 0.5]], [1.0, 3.0])


@case
def linspace_kinds(tf):
    return [tf.linspace(0, 1, 5), tf.linspace(0.0, 1.0, 1), tf.linspace(0.0, 1.0, 0), tf.linspace(0.0, 10.0, 4),
            tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3), tf.linspace(tf.constant(0, tf.int64), 10, 3),
            tf.linspace([[0.0, 1.0]], [[1.0, 3.0]], 3, axis=1), tf.linspace(1.0, -1.0, 5),
            tf.linspace(tf.constant(0.0, tf.float16), 1.0, 3), tf.linspace(0.1, 0.7, 7)]


@case
def linspace_errors(tf):
    return [catch(tf.linspace, 0.0, 1.0, -1), catch(tf.linspace, [0.0, 1.0], [1.0, 3.0, 4.0], 3),
            catch(tf.linspace, 0.0, 1.0, 3.0), catch(tf.linspace, 0.0, tf.constant(1.0, tf.float64), 3),
            catch(tf.linspace, [0.0, 1.0], [1.0, 3.0], 3, axis=2),
            catch(tf.linspace, [0.0, 1.0], [1.0, 3.0], 3, axis=-3),
            catch(tf.linspace, 0.0, 1.0, tf.constant(3.0))]


@case
def eye_values_and_errors(tf):
    return [tf.eye(2), tf.eye(2, 3), tf.eye(3, 2, [2]), tf.eye(2, dtype=tf.int32), tf.eye(2, batch_shape=[1, 2]),
            tf.eye(0), tf.eye(tf.constant(2)), tf.eye(2, dtype=tf.bool), tf.eye(2, dtype=tf.complex64),
            tf.linalg.eye(2, 1), tf.eye(2, tf.constant(3)), catch(tf.eye, -1), catch(tf.eye, 2.0),
            catch(tf.eye, 2, batch_shape=3), catch(tf.eye, 2, dtype=tf.string), catch(tf.eye, 2, -1)]


# --------------------------------------------------------------------------------------------- diag family


@case
def diag_values_and_grad(tf):
    d2 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return grads_by_dtype(tf, _weighted(tf, lambda d, m: [tf.linalg.diag(d[0]), tf.linalg.diag(d[0], k=1),
                                                          tf.linalg.diag(d[0], k=-1, num_rows=5),
                                                          tf.linalg.diag(d[0], k=1, num_rows=3, num_cols=4),
                                                          tf.linalg.diag(d[0], num_rows=4), tf.linalg.diag(d, k=(0, 1)),
                                                          tf.linalg.diag(d, k=(-1, 0), align="LEFT_RIGHT"),
                                                          tf.linalg.diag(d, k=(-1, 0), align="RIGHT_RIGHT"),
                                                          tf.linalg.diag(d, k=(0, 1), align="LEFT_LEFT",
                                                                         padding_value=9),
                                                          tf.linalg.diag(m), tf.linalg.diag(d[0], padding_value=-1)]),
                          d2, [[[1.0, 2.0]], [[3.0, 4.0]]])


@case
def diag_part_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda m: [tf.linalg.diag_part(m), tf.linalg.diag_part(m, k=1),
                                                       tf.linalg.diag_part(m, k=-2), tf.linalg.diag_part(m, k=(-1, 1)),
                                                       tf.linalg.diag_part(m, k=(-1, 1), align="LEFT_LEFT"),
                                                       tf.linalg.diag_part(m, k=(-2, 2), align="RIGHT_RIGHT",
                                                                           padding_value=7),
                                                       tf.linalg.diag_part(m, k=(1, 3), align="LEFT_RIGHT"),
                                                       tf.linalg.diag_part(tf.transpose(m), k=(-3, 0))]), X34)


@case
def diag_part_batched_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda m: [tf.linalg.diag_part(m), tf.linalg.diag_part(m, k=(0, 2)),
                                                       tf.linalg.band_part(m, 1, 0), tf.linalg.band_part(m, 0, -1)]),
                          X234)


@case
def set_diag_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda m, d: [tf.linalg.set_diag(m, d[0]),
                                                          tf.linalg.set_diag(m, d[1:3], k=(0, 1)),
                                                          tf.linalg.set_diag(m, d[0], k=1),
                                                          tf.linalg.set_diag(m, d[:2], k=(-1, 0), align="LEFT_RIGHT")]),
                          X34, [[7.0, 8.0, 9.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


@case
def band_part_values_and_grad(tf):
    return grads_by_dtype(tf, _weighted(tf, lambda m: [tf.linalg.band_part(m, 1, 0), tf.linalg.band_part(m, -1, 0),
                                                       tf.linalg.band_part(m, 0, -1), tf.linalg.band_part(m, 3, 4),
                                                       tf.linalg.band_part(m, -2, 1),
                                                       tf.linalg.band_part(m, tf.constant(1, tf.int64), 0),
                                                       tf.linalg.band_part(m, tf.constant(0), tf.constant(2))]), X34)


@case
def diag_kinds(tf):
    return [tf.linalg.diag([[1, 2], [3, 4]]), tf.linalg.diag([True, False], padding_value=True),
            tf.linalg.diag([1.0, 2.0], padding_value=1.5), tf.linalg.diag_part(tf.ones([2, 0])),
            tf.linalg.diag_part(tf.reshape(tf.range(6), [2, 3]), k=(-1, 2)), tf.linalg.band_part([[True]], 0, 0),
            tf.linalg.diag(tf.constant([1j, 2 + 0j])), tf.linalg.diag([1.0], k=tf.constant(2)),
            tf.linalg.diag_part(tf.ones([3, 3]), k=np.array([0, 1]))]


@case
def diag_errors(tf):
    d = tf.constant([1.0, 2.0, 3.0])
    m = tf.ones([3, 4])
    return [catch(tf.linalg.diag, d, num_rows=2), catch(tf.linalg.diag, d, num_cols=2),
            catch(tf.linalg.diag, d, num_rows=4, num_cols=4), catch(tf.linalg.diag, [[1.0, 2.0], [3.0, 4.0]], k=(1, 0)),
            catch(tf.linalg.diag, d, align="FOO"), catch(tf.linalg.diag, tf.constant(1.0)),
            catch(tf.linalg.diag, [[1.0, 2.0], [3.0, 4.0]], k=(0, 2)), catch(tf.linalg.diag, [True], padding_value=0),
            catch(tf.linalg.diag, d, k=[0, 1, 2]), catch(tf.linalg.diag, d, k=1.0),
            catch(tf.linalg.diag, tf.constant([1, 2]), padding_value=1.5),
            catch(tf.linalg.diag, [1.0, 2.0], num_rows=1),
            catch(tf.linalg.diag, d, k=tf.constant([0, 1, 2])),
            catch(tf.linalg.diag, d, padding_value=tf.constant(1.0, tf.float64)),
            catch(tf.linalg.diag_part, m, k=5), catch(tf.linalg.diag_part, m, k=4), catch(tf.linalg.diag_part, m, k=-3),
            catch(tf.linalg.diag_part, m, k=(1, -1)), catch(tf.linalg.diag_part, d),
            catch(tf.linalg.diag_part, m, k=(0, 9)), catch(tf.linalg.diag_part, m, align="X"),
            catch(tf.linalg.set_diag, m, [7.0, 8.0]), catch(tf.linalg.set_diag, m, [[7.0, 8.0, 9.0]], k=(0, 1)),
            catch(tf.linalg.set_diag, d, d), catch(tf.linalg.set_diag, m, [1.0, 2.0, 3.0], k=4),
            catch(tf.linalg.band_part, m, 4, 0), catch(tf.linalg.band_part, m, 0, 5),
            catch(tf.linalg.band_part, d, 0, 0), catch(tf.linalg.band_part, m, 1.0, 0),
            catch(tf.linalg.band_part, m, tf.constant(1, tf.int64), tf.constant(1)),
            catch(tf.linalg.band_part, m, [1], 0), catch(tf.linalg.band_part, m, np.array([1]), 0),
            catch(tf.linalg.band_part, m, tf.constant(1.0), 0)]


# --------------------------------------------------------------------------------------------- second order, complex


@case
def second_order_through_shape_ops(tf):
    fns = [lambda x: tf.concat([x, x * x], 0), lambda x: tf.tile(x * x, [2, 3]),
           lambda x: tf.pad(x * x, [[1, 1], [2, 2]], "REFLECT"), lambda x: tf.pad(x * x, [[2, 1], [3, 0]], "SYMMETRIC"),
           lambda x: tf.pad(x * x, [[1, 0], [0, 2]], constant_values=2.0), lambda x: tf.split(x * x, [1, 2], 1)[1],
           lambda x: tf.roll(tf.reverse(x * x, [1]), 1, 0), lambda x: tf.slice(x * x, [0, 1], [-1, 2]),
           lambda x: tf.strided_slice(x * x, [1, 2], [0, 0], [-1, -2]), lambda x: tf.linalg.diag_part(x * x, k=(0, 1)),
           lambda x: tf.linalg.diag(x * x, k=(0, 1)), lambda x: tf.linalg.band_part(x * x, 0, 1),
           lambda x: tf.linalg.set_diag(x * x, x[0] * x[1]), lambda x: tf.linspace(x[0] * x[1], x[1], 4),
           lambda x: tf.squeeze(tf.expand_dims(x * x, 1)), lambda x: tf.meshgrid(x[0] * x[0], x[1])[0]]
    return [_second(tf, f, X) for f in fns]


@case
def complex_shape_ops_grad(tf):
    z = tf.constant([[1 + 2j, -1j, 3.0], [2 - 1j, 0.5j, 1 + 1j]], tf.complex128)
    w = tf.constant([[1 - 1j, 2j, 0.5, -1, 1j, 2], [3, 1 + 1j, -2j, 1, 1, 0.5]], tf.complex128)
    fns = [lambda z: tf.concat([z, z * z], 1), lambda z: tf.tile(z, [1, 2]), lambda z: tf.pad(z, [[0, 0], [1, 2]]),
           lambda z: tf.pad(z, [[0, 0], [2, 1]], "REFLECT"), lambda z: tf.pad(z, [[0, 0], [2, 1]], "SYMMETRIC"),
           lambda z: tf.reverse(tf.roll(tf.concat([z, z], 1), 2, 1), [0]),
           lambda z: tf.linalg.diag(z, k=(0, 1), num_cols=6)[0], lambda z: tf.concat(tf.split(z * z, [2, 1], 1) * 2, 1)]
    out = []
    for f in fns:
        with tf.GradientTape() as tape:
            tape.watch(z)
            y = tf.math.real(tf.reduce_sum(f(z) * w))
        out.append([y, tape.gradient(y, z)])
    return out


# --------------------------------------------------------------------------------------------- shape queries


@case
def shape_size_rank_arguments(tf):
    x = tf.ones([2, 3])
    return [tf.shape(x), tf.shape(x, out_type=tf.int64), tf.shape(x, None), tf.size(x, out_type=tf.int64),
            tf.size(x, out_type=tf.float32), tf.size(x, out_type=None), tf.shape([[1, 2]]), tf.rank([[1, 2]]),
            tf.shape(tf.constant(1.0)), tf.size(tf.constant(1.0)), tf.rank(tf.constant(1.0)),
            catch(tf.shape, x, out_type=tf.float32), tf.identity([1, 2]), tf.broadcast_to([1, 2], [3, 2])]


@case
def stack_unstack_arguments(tf):
    x = tf.ones([2, 3])
    return [tf.unstack(x, axis=-1), tf.unstack(x, num=2), tf.stack([tf.ones([2])] * 2, axis=-1), tf.stack([]),
            catch(tf.unstack, x, num=3), catch(tf.unstack, x, axis=2), catch(tf.unstack, x, axis=-3),
            catch(tf.unstack, tf.constant(1.0)), catch(tf.stack, [tf.ones([2]), tf.ones([3])]),
            catch(tf.stack, [tf.ones([2]), tf.ones([2])], axis=3),
            catch(tf.stack, [tf.ones([2]), tf.ones([2], tf.int32)])]

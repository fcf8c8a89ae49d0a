"""Output sizes computed from user values: no size wraps at 2**31 or 2**32 on the way, shapes are
refused as TF's ``TensorShape`` refuses them (negative dimensions, more than 2**63 - 1 elements, the sizes TF's
own int64 arithmetic overflows), TF's own 32-bit arguments wrap as they wrap there, and an allocation that
cannot be satisfied raises ``ResourceExhaustedError`` naming the op, the output shape and its type.

Every allocation meant to fail asks for at least 2**47 bytes, more than any machine's address space, so these
cases give the same answer everywhere (and never start to fill memory).
"""

import numpy as np

from tests.golden.harness import case, catch

H = 2**40  # a dimension whose square overflows int64
BIG = 2**45  # float32 elements beyond any address space (2**47 bytes)
W = 2**32  # wraps to 0 as an int32


# --------------------------------------------------------------------------------------------- tile, pad


@case
def tile_sizes(tf):
    one, two = tf.ones([2]), tf.ones([2, 2])
    return [catch(tf.tile, one, [BIG + 1]), catch(tf.tile, one, tf.constant([BIG + 1], tf.int64)),
            catch(tf.tile, two, [H, H]), catch(tf.tile, one, [2**63 - 1]), tf.tile(tf.ones([4]), [2**62]),
            tf.tile(tf.ones([0]), [H]), tf.tile(tf.ones([4, 0]), [2**62, H]), catch(tf.tile, one, [-1]),
            catch(tf.tile, tf.ones([2**14]), [W + 1]),
            tf.tile(tf.constant([[1, 2]]), [2, 3])]


@case
def pad_sizes(tf):
    x = tf.ones([2])
    return [catch(tf.pad, x, [[BIG + 1, 0]]), catch(tf.pad, x, tf.constant([[BIG + 1, 0]], tf.int64)),
            catch(tf.pad, x, [[BIG, 0]], constant_values=3.0), catch(tf.pad, x, [[2**62, 2**62]]),
            catch(tf.pad, x, [[2**63 - 1, 0]]), catch(tf.pad, tf.ones([2, 2]), [[H, 0], [H, 0]]),
            tf.pad(tf.zeros([0, 2]), [[0, 0], [H, H]]).shape, catch(tf.pad, x, [[W + 1, 0]], mode="REFLECT"),
            catch(tf.pad, x, [[W, 0]], mode="SYMMETRIC"), catch(tf.pad, x, [[-1, 0]]),
            tf.pad(x, [[1, 2]], constant_values=5.0)]


# --------------------------------------------------------------------------------------------- fill, zeros, ones


@case
def fill_zeros_ones_sizes(tf):
    return [catch(tf.zeros, [BIG]), catch(tf.ones, [BIG]), catch(tf.zeros, BIG), catch(tf.fill, [BIG], 1.0),
            catch(tf.fill, tf.constant([BIG], tf.int64), 1.0), catch(tf.zeros, [H, H]), catch(tf.ones, [H, H]),
            catch(tf.fill, [H, H], 1.0), catch(tf.fill, [H, H, 0], 1.0), catch(tf.zeros, [2**31, 2**31, 2]),
            catch(tf.zeros, [2**31, 2**31, 2, 0]), catch(tf.zeros, [-1]), catch(tf.fill, [-1], 1.0),
            catch(tf.fill, tf.constant([-1]), 1.0), catch(tf.ones, [3, -2]), catch(tf.zeros, [2**63 - 1], tf.int8),
            catch(tf.zeros, [2**62], tf.int8), tf.zeros([2, 0])]


@case
def fill_oom_types(tf):
    return [catch(tf.fill, [BIG], tf.constant(1.0, tf.float64)), catch(tf.fill, [BIG], "a"),
            catch(tf.fill, [BIG], True), catch(tf.fill, [BIG], tf.constant(1.0, tf.float16)),
            catch(tf.fill, [BIG], tf.constant(1j, tf.complex64)), catch(tf.fill, [BIG * 4], tf.constant(1, tf.uint8)),
            catch(tf.zeros, [BIG], tf.string), catch(tf.ones, [BIG], tf.bool), catch(tf.zeros, [BIG], tf.int64),
            catch(tf.zeros_like, tf.ones([2]), tf.float64), tf.zeros([2], tf.string),
            tf.zeros_like(tf.ones([2]), tf.int8)]


@case
def constant_shape_sizes(tf):
    return [tf.constant(2.0, shape=[W + 2]), tf.constant(1.0, shape=[H, H]), tf.constant(1.0, shape=[BIG]),
            catch(tf.constant, 1.0, shape=[2**31 - 1, 2**16]), catch(tf.constant, np.float64(1.0), shape=[2**31 - 1,
                                                                                                        2**16]),
            catch(tf.constant, True, shape=[2**31 - 1, 2**17]), catch(tf.constant, 1.0, shape=[-1]),
            catch(tf.constant, 1.0, shape=[W - 1]), tf.constant(np.zeros([0]), shape=[0, W + 3]).shape,
            catch(tf.constant, [1.0, 2.0], shape=[W]), tf.constant(7, shape=[2, 2])]


# --------------------------------------------------------------------------------------------- reshape, broadcast_to


@case
def reshape_sizes(tf):
    x, e = tf.ones([2]), tf.ones([0])
    return [catch(tf.reshape, e, [-1, H, H]), catch(tf.reshape, x, [H, H, -1]), catch(tf.reshape, x, [-2, 1]),
            catch(tf.reshape, x, tf.constant([H, H], tf.int64)), catch(tf.reshape, e, [2**62, 2, 0]),
            catch(tf.reshape, x, [W + 2]), catch(tf.reshape, x, [W + 1, -1]), catch(tf.reshape, x, [H, 0, H]),
            catch(tf.reshape, x, [-1, -1]), tf.reshape(tf.range(6), [-1, 3])]


@case
def broadcast_to_sizes(tf):
    x = tf.ones([1])
    return [catch(tf.broadcast_to, x, [BIG]), catch(tf.broadcast_to, 1.0, [BIG]),
            catch(tf.broadcast_to, tf.ones([1, 1]), [BIG, 1]), catch(tf.broadcast_to, x, [H, H]),
            catch(tf.broadcast_to, x, tf.constant([H, H], tf.int64)), catch(tf.broadcast_to, tf.ones([3]), [H, H]),
            catch(tf.broadcast_to, x, [-1]), catch(tf.broadcast_to, x, tf.constant([-1])),
            catch(tf.broadcast_to, tf.ones([3]), [2]), tf.broadcast_to(x, [2, 3])]


# --------------------------------------------------------------------------------------------- range, linspace


@case
def range_sizes(tf):
    i64 = tf.int64
    return [catch(tf.range, BIG), catch(tf.range, 0.0, float(BIG)), catch(tf.range, 0.0, 1e15, 1.0, dtype=tf.float64),
            catch(tf.range, 0, 2**62, 1, dtype=i64), catch(tf.range, -2**62, 2**62, 1, dtype=i64),
            catch(tf.range, 0.0, 1e30, 1.0), catch(tf.range, 0.0, float("inf")), catch(tf.range, 0.0, float("nan")),
            tf.range(0.0, 1.0, float("inf")),
            tf.range(tf.constant(-2**63, i64), tf.constant(2**63 - 1, i64), tf.constant(2**62, i64)),
            tf.range(0, -2**63 + 5, -2**62, dtype=i64), tf.range(10, 0, -3), tf.range(0.0, 1.0, 0.3),
            catch(tf.range, 3, dtype=tf.uint8), catch(tf.range, 3, dtype=tf.complex64),
            catch(tf.range, 3, dtype=tf.bool),
            catch(tf.range, 3, dtype=tf.uint16), catch(tf.range, 3, dtype=tf.int8), tf.range(3, dtype=tf.float16),
            catch(tf.range, float("nan"), 1.0, -1.0), catch(tf.range, 0, 1, 0)]


@case
def linspace_sizes(tf):
    return [tf.linspace(0.0, 1.0, W + 5), catch(tf.linspace, 0.0, 1.0, W - 1),
            tf.linspace(0.0, 1.0, tf.constant(W, tf.int64)),
            tf.linspace(0.0, 1.0, 1), tf.linspace(0.0, 1.0, 0)]


# --------------------------------------------------------------------------------------------- one_hot, eye, masks


@case
def one_hot_eye_mask_sizes(tf):
    idx = tf.zeros([2**16], tf.int32)
    return [tf.one_hot([0], W + 1), catch(tf.one_hot, idx, 2**31 - 1), catch(tf.one_hot, idx, 2**31 - 1, axis=0),
            catch(tf.one_hot, idx, 2**31 - 1, dtype=tf.float64), catch(tf.one_hot, idx, 2**31 - 1, on_value=True,
                                                                       off_value=False),
            catch(tf.one_hot, tf.zeros([1, 2**16], tf.int32), 2**31 - 1, axis=1), catch(tf.one_hot, [0], -2),
            tf.one_hot([[0, 3], [-1, 1]], 3, axis=1), tf.one_hot([1, 0], 2, on_value=5, off_value=-1),
            tf.one_hot(2, 4), tf.one_hot(7, 4), tf.one_hot(-1, 3, axis=0), tf.one_hot(tf.zeros([0], tf.int32), 3),
            catch(tf.eye, 2**23), catch(tf.eye, 2**45), catch(tf.eye, 2**23, 2**23 + 1),
            catch(tf.eye, 2, batch_shape=[H, H]),
            catch(tf.eye, H, H, batch_shape=[H]), catch(tf.eye, -1), tf.eye(2, 3), tf.eye(2, batch_shape=[2]),
            catch(tf.sequence_mask, [1, 2], 2**45), catch(tf.sequence_mask, tf.constant([1, 2], tf.int64), 2**45),
            catch(tf.sequence_mask, tf.constant([2**45], tf.int64)),
            catch(tf.sequence_mask, tf.ones([2**24], tf.int32), 2**24),
            tf.sequence_mask([1, 3], 4)]


# --------------------------------------------------------------------------------------------- random


@case
def random_sizes(tf):
    r = tf.random
    return [catch(r.normal, [BIG]), catch(r.normal, [BIG], dtype=tf.float16), catch(r.normal, [BIG], dtype=tf.float64),
            catch(r.uniform, [BIG]), catch(r.uniform, [BIG], maxval=3, dtype=tf.int64),
            catch(r.truncated_normal, [BIG]),
            catch(r.normal, [H, H]), catch(r.uniform, [H, H], maxval=2, dtype=tf.int32),
            catch(r.truncated_normal, [H, H]),
            catch(r.normal, [-1]), catch(r.uniform, [2, -3]), catch(r.categorical, tf.zeros([2**16, 2]), 2**31 - 1),
            catch(r.categorical, [[1.0]], -1), r.normal([2], seed=1).shape]


# --------------------------------------------------------------------------------------------- scatter, segments


@case
def scatter_segment_sizes(tf):
    i64 = tf.int64
    return [tf.scatter_nd([[0]], [1.0], [W + 1]),
            catch(tf.scatter_nd, tf.constant([[0]], i64), [1.0], tf.constant([BIG], i64)),
            catch(tf.scatter_nd, tf.constant([[0, 0]], i64), [1.0], tf.constant([H, H], i64)),
            catch(tf.scatter_nd, [[0, 0]], [1.0], [H, H]), catch(tf.scatter_nd, [[0]], [1.0], [-1]),
            catch(tf.scatter_nd, tf.constant([[0]]), tf.constant([1.0]), tf.constant([-1])),
            catch(tf.scatter_nd, [[0]], [1.0], [0]), tf.scatter_nd([[1]], [5.0], [3]),
            tf.math.unsorted_segment_sum([1.0], [0], W + 1),
            catch(tf.math.unsorted_segment_sum, [1.0], [0], tf.constant(W * 2, i64)),
            catch(tf.math.unsorted_segment_sum, [1.0], [0], -1),
            catch(tf.math.unsorted_segment_sum, tf.ones([1, 2**16]), [0], 2**31 - 1),
            catch(tf.math.unsorted_segment_max, tf.ones([1, 2**16]), [0], 2**31 - 1),
            catch(tf.math.segment_sum, [1.0], tf.constant([BIG], i64)),
            catch(tf.math.segment_max, [1.0], tf.constant([BIG], i64)),
            tf.math.unsorted_segment_sum([1.0, 2.0], [1, 1], 3)]


# --------------------------------------------------------------------------------------------- other ops' outputs


@case
def op_output_oom(tf):
    col, row = tf.ones([2**23, 1]), tf.ones([1, 2**23])
    return [catch(tf.matmul, col, row), catch(tf.multiply, col, row), catch(lambda: col + row),
            catch(tf.gather, tf.ones([2, 2**23]), tf.zeros([2**23], tf.int32)),
            catch(tf.meshgrid, tf.range(2**23), tf.range(2**23)), catch(lambda: tf.ones([1, 1]) + tf.zeros([BIG, 1])),
            catch(tf.concat, [tf.ones([2]), tf.ones([2])], 0), catch(tf.stack, [tf.zeros([0, 2]), tf.zeros([0, 2])])]

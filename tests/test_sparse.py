"""Sparse gradients: how ``IndexedSlices`` arise, combine and densify in the backward pass, and how SGD and the
variables' scatter methods apply them. (Values against TensorFlow itself are in ``golden/cases/gather_scatter.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

TABLE = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _grad(fn, source):
    with tf.GradientTape() as tape:
        if not isinstance(source, tf.Variable):
            tape.watch(source)
        y = fn()
    return tape.gradient(y, source)


def _dense(g):
    return tf.convert_to_tensor(g).numpy()


# ------------------------------------------------------------------------------------------ accumulation


def test_gather_gradient_keeps_repeated_indices():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, [0, 2, 0])), v)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 0])
    np.testing.assert_array_equal(g.values.numpy(), np.ones((3, 2)))
    np.testing.assert_array_equal(g.dense_shape.numpy(), [3, 2])
    assert g.indices.dtype == tf.int32 and g.dense_shape.dtype == tf.int32 and g.dtype == tf.float32
    np.testing.assert_array_equal(_dense(g), [[2, 2], [0, 0], [1, 1]])


def test_slices_of_several_gathers_concatenate_in_tensorflow_order():
    v = tf.Variable(TABLE)
    g = _grad(lambda: (tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(tf.gather(v, [2, 1]) * 2.0)
                       + tf.reduce_sum(tf.gather(v, [1]) * 3.0)), v)
    assert isinstance(g, tf.IndexedSlices)
    # TF's backward pass is breadth-first: the shorter chain (the [1] gather, 2 ops from the sum) comes first.
    np.testing.assert_array_equal(g.indices.numpy(), [0, 1, 2, 1])
    np.testing.assert_array_equal(g.values.numpy()[:, 0], [1, 3, 2, 2])
    np.testing.assert_array_equal(_dense(g), [[1, 1], [5, 5], [2, 2]])


def test_mixed_index_dtypes_concatenate_as_int64():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, tf.constant([0], tf.int64))) + tf.reduce_sum(tf.gather(v, [1])), v)
    assert g.indices.dtype == tf.int64
    np.testing.assert_array_equal(g.indices.numpy(), [0, 1])


def test_slices_meeting_a_dense_gradient_become_dense():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, [0, 0])) + tf.reduce_sum(v * 3.0), v)
    assert type(g).__name__ == "EagerTensor"
    np.testing.assert_array_equal(g.numpy(), [[5, 5], [3, 3], [3, 3]])


def test_identities_pass_slices_and_other_rules_get_them_dense():
    v = tf.Variable(TABLE)
    for fn in (lambda: tf.reduce_sum(tf.gather(tf.identity(v), [1])),
               lambda: tf.reduce_sum(tf.gather(tf.cast(v, tf.float64), [1])),
               lambda: tf.reduce_sum(tf.gather(v.read_value(), [1]))):
        g = _grad(fn, v)
        assert isinstance(g, tf.IndexedSlices) and g.values.dtype == tf.float32
    g = _grad(lambda: tf.reduce_sum(tf.gather(v * 2.0, [1, 1])), v)
    assert type(g).__name__ == "EagerTensor"
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [4, 4], [0, 0]])
    g = _grad(lambda: tf.reduce_sum(tf.gather(tf.gather(v, [2, 0]), [1, 1])), v)  # the inner rule densifies
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0])
    np.testing.assert_array_equal(g.values.numpy(), [[0, 0], [2, 2]])


def test_dense_only_gradients_stay_plain_tensors():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    g = _grad(lambda: tf.reduce_sum(tf.matmul(w, w) * w[0]), w)
    assert type(g).__name__ == "EagerTensor"


def test_unconnected_zero_keeps_the_slices():
    v, u = tf.Variable(TABLE), tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [1]))
    gv, gu = tape.gradient(y, [v, u], unconnected_gradients="zero")
    assert isinstance(gv, tf.IndexedSlices) and gu.numpy() == 0.0


def test_second_order_through_a_gather():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 2, 2]) ** 3)
        g = tf.convert_to_tensor(inner.gradient(y, x))  # densifying is recorded, so it is differentiable
    np.testing.assert_allclose(g.numpy(), [3.0, 0.0, 54.0])
    second = outer.gradient(g, x)  # through the gather again: sparse, as in TF
    assert isinstance(second, tf.IndexedSlices)
    np.testing.assert_allclose(_dense(second), [6.0, 0.0, 36.0])


def test_indexed_slices_densify_drops_negative_and_refuses_large_indices():
    s = tf.IndexedSlices(tf.constant([[1.0], [2.0], [4.0]]), tf.constant([-1, 2, 2]), tf.constant([3, 1]))
    np.testing.assert_array_equal(tf.convert_to_tensor(s).numpy(), [[0.0], [0.0], [6.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[0\] = 3 is out of range \[0, 3\)"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([3]), tf.constant([3, 1])))
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])))


# ------------------------------------------------------------------------------------------ applying them


def _embedding_step(opt, dtype=tf.float32):
    v = tf.Variable(tf.constant(TABLE, dtype))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0, 2, 0]) ** 2)
    g = tape.gradient(y, v)
    opt.apply_gradients([(g, v)])
    return v.numpy(), tf.convert_to_tensor(g).numpy()


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_sgd_sparse_step_updates_only_the_rows_with_repeats_summed(dtype):
    after, dense = _embedding_step(tf.keras.optimizers.SGD(0.1), dtype)
    expected = np.array(TABLE) - 0.1 * dense
    np.testing.assert_allclose(after, expected, rtol=1e-6)
    np.testing.assert_array_equal(after[1], TABLE[1])  # a row nobody gathered is untouched


@pytest.mark.parametrize("kwargs", [{"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}])
def test_sgd_sparse_step_with_momentum_matches_the_dense_step(kwargs):
    sparse, dense = _embedding_step(tf.keras.optimizers.SGD(0.1, **kwargs))
    v = tf.Variable(TABLE)
    tf.keras.optimizers.SGD(0.1, **kwargs).apply_gradients([(tf.constant(dense), v)])
    np.testing.assert_allclose(sparse, v.numpy(), rtol=1e-6)


def test_variable_scatter_methods():
    v = tf.Variable(TABLE)
    s = tf.IndexedSlices
    v.scatter_sub(s(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.constant([0, 0])))
    np.testing.assert_array_equal(v.numpy()[0], [-1.0, 0.0])
    v.scatter_add(s(tf.constant([[1.0, 1.0]]), tf.constant([2])))
    v.scatter_update(s(tf.constant([[9.0, 9.0]]), tf.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [[-1.0, 0.0], [9.0, 9.0], [6.0, 7.0]])
    v.scatter_nd_sub([[0, 0]], [1.0])
    assert v.numpy()[0, 0] == -2.0
    before = v.numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
        v.scatter_sub(s(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.constant([0, 3])))
    np.testing.assert_array_equal(v.numpy(), before)  # a failed update changes nothing
    with pytest.raises(TypeError, match="must be a `tf.IndexedSlices`"):
        v.scatter_add(tf.constant([1.0]))

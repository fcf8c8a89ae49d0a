"""``tapeflow/ops/functional_ops.py`` beyond the golden cases: gradients through ``py_function`` and ``map_fn``
inside traced functions (tapes inside and outside), second derivatives, and ``py_function`` in a traced data
pipeline running on other threads."""

import numpy as np

import tapeflow as tf


def test_py_function_gradients_in_and_through_a_traced_function():
    @tf.function
    def inside(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.py_function(lambda a: tf.sin(a) * a, [x], tf.float32))
        return tape.gradient(y, x)

    x = tf.constant([0.5, 1.0, 2.0])
    want = np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())
    np.testing.assert_allclose(inside(x).numpy(), want, rtol=1e-6)
    traced = tf.function(lambda a: tf.py_function(lambda b: b ** 3, [a], tf.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(traced(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * x.numpy() ** 2, rtol=1e-6)


def test_map_fn_and_scan_differentiate_to_second_order():
    x = tf.constant([0.3, -0.7, 1.1], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.map_fn(lambda v: v ** 3, x)) + tf.reduce_sum(tf.scan(lambda a, v: a * v, x))
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    a, b, c = x.numpy()
    # y = a^3 + b^3 + c^3 + (a + ab + abc); h sums the Hessian's columns.
    np.testing.assert_allclose(g.numpy(), [3 * a * a + 1 + b + b * c, 3 * b * b + a + a * c, 3 * c * c + a * b])
    np.testing.assert_allclose(h.numpy(), [6 * a + 1 + c + b, 1 + c + 6 * b + a, b + a + 6 * c])


def test_py_function_in_a_parallel_traced_map():
    ds = tf.data.Dataset.range(20).map(lambda i: tf.py_function(lambda j: j * j, [i], tf.int64),
                                       num_parallel_calls=4).prefetch(2)
    assert [int(v) for v in ds] == [k * k for k in range(20)]

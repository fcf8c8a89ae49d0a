"""Functional ops (TF 2.21): tf.map_fn, tf.scan, tf.foldl, tf.foldr (eager and traced, nested elements, gradients),
tf.py_function and tf.numpy_function (values, dtypes, gradients, inside tf.function and tf.data), tf.unique and
unique_with_counts, tf.math.bincount, tf.searchsorted and tf.histogram_fixed_width, with their errors."""

import numpy as np

from tests.golden.harness import case, catch


@case
def map_fn_values(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = [tf.map_fn(lambda r: r * 2.0, x), tf.map_fn(tf.reduce_sum, x),
           tf.map_fn(lambda r: tf.cast(r, tf.int32), x, fn_output_signature=tf.int32),
           tf.map_fn(lambda p: p[0] + p[1], (x, x), fn_output_signature=tf.float32),
           tf.map_fn(lambda q: (q[0], q[1] * 2), (x, x[:, 0])),
           tf.map_fn(lambda d: d["a"] - 1.0, {"a": x}, fn_output_signature=tf.float32),
           tf.map_fn(lambda r: r, tf.zeros([0, 2])),
           tf.map_fn(lambda r: (r, tf.reduce_max(r)), x, fn_output_signature=(tf.float32, tf.float32))]
    traced = tf.function(lambda v: tf.map_fn(lambda r: r * r + 1.0, v))
    out += [traced(x), traced(x[:1])]
    return out


@case
def map_fn_gradients_and_errors(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable([0.5, -1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.map_fn(lambda r: tf.tanh(r * w), x) ** 2)
    return [tape.gradient(y, x), tape.gradient(y, w),
            catch(tf.map_fn, lambda r: r, tf.constant(3.0)),
            catch(tf.map_fn, lambda r: r, [x, x[:1]]),
            catch(tf.map_fn, lambda r: tf.cast(r, tf.int32), x)]


@case
def scan_and_folds(tf):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    out = [tf.scan(lambda a, v: a + v, x), tf.scan(lambda a, v: a * v, x, initializer=tf.constant(2.0)),
           tf.scan(lambda a, v: a + v, x, reverse=True),
           tf.scan(lambda a, v: (a[0] + v, a[1] * v), x, initializer=(tf.constant(0.0), tf.constant(1.0))),
           tf.foldl(lambda a, v: a + v, x), tf.foldl(lambda a, v: a - v, x, initializer=tf.constant(10.0)),
           tf.foldr(lambda a, v: a - v, x), tf.foldr(lambda a, v: a * 2.0 + v, x, initializer=tf.constant(1.0)),
           tf.scan(lambda a, v: a + v["p"], {"p": x}, initializer=tf.constant(0.0)),
           tf.function(lambda v: tf.scan(lambda a, b: a + b, v))(x)]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.scan(lambda a, v: a * v, x)) + tf.foldl(lambda a, v: a * v + 1.0, x)
    out.append(tape.gradient(y, x))
    out.append(catch(tf.foldl, lambda a, v: a + v, tf.zeros([0])))
    return out


@case
def py_and_numpy_functions(tf):
    seen = []

    def f(a, b):
        seen.append(type(a).__name__)
        return a * 2.0 + b, tf.cast(a, tf.int32)

    x, y = tf.constant([1.5, 2.5]), tf.constant(1.0)
    eager = tf.py_function(f, [x, y], [tf.float32, tf.int32])
    one = tf.py_function(lambda a: a + 1.0, [x], tf.float32)
    npf = tf.numpy_function(lambda a: (a * 3).astype(np.float32), [x], tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        g1 = tf.py_function(lambda a: a * a, [x], tf.float32)
        g2 = tf.numpy_function(lambda a: a * a, [x], tf.float32)

    @tf.function
    def traced(v):
        return tf.py_function(lambda a: a * 10.0, [v], tf.float32), tf.numpy_function(np.sort, [v], tf.float32)

    ds = tf.data.Dataset.range(3).map(lambda i: tf.py_function(lambda j: j * 100, [i], tf.int64))
    return [eager, one, npf, tape.gradient(g1, x), tape.gradient(g2, x), traced(tf.constant([3.0, 1.0])),
            traced(tf.constant([2.0, 5.0, 4.0])), [v.numpy() for v in ds], seen]


@case
def unique_bincount_searchsorted_histogram(tf):
    x = tf.constant([4, 1, 4, 2, 1, 7])
    return [tf.unique(x), tf.unique(x, out_idx=tf.int64), tf.unique_with_counts(x),
            tf.unique(tf.constant([2.5, -1.0, 2.5])),
            tf.math.bincount(x), tf.math.bincount(x, minlength=10), tf.math.bincount(x, maxlength=3),
            tf.math.bincount(x, weights=tf.constant([0.5, 1.0, 2.0, 1.0, 1.0, 3.0])),
            tf.math.bincount(tf.constant([[1, 2], [2, 0]]), axis=-1),
            tf.math.bincount(x, binary_output=True),
            tf.searchsorted(tf.constant([1.0, 2.0, 3.0]), tf.constant([0.5, 2.0, 3.5])),
            tf.searchsorted(tf.constant([1.0, 2.0, 3.0]), tf.constant([0.5, 2.0, 3.5]), side="right"),
            tf.searchsorted(tf.constant([[1, 3], [2, 4]]), tf.constant([[2], [5]]), out_type=tf.int64),
            tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 10.0]), [0.0, 5.0], nbins=5),
            tf.histogram_fixed_width(tf.constant([1, 2, 3]), [0, 4], nbins=2, dtype=tf.int64),
            catch(tf.unique, tf.constant([[1, 2]])), catch(tf.math.bincount, tf.constant([-1, 2])),
            catch(tf.searchsorted, tf.constant([1.0, 2.0]), tf.constant([[1.0]]))]


@case
def bincount_weights_must_match(tf):
    return [catch(tf.math.bincount, [1, 2], weights=[1.0]), catch(tf.math.bincount, [1, -2]),
            tf.math.bincount([1, 2], weights=[[1.0, 2.0]]),
            catch(tf.math.bincount, [[1, 2]], weights=[1.0, 2.0], axis=-1),
            tf.math.bincount([[1, 2], [0, 0]], weights=[[1.0, 2.0], [3.0, 4.0]], axis=-1)]

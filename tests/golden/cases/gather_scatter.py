"""Gathers, scatters and sparse gradients: ``tf.IndexedSlices`` (its parts, printing,
densifying), the IndexedSlices gradients of gathers and how they combine, ``tf.gather``/``gather_nd``/
``scatter_nd``/``tensor_scatter_nd_*``/``boolean_mask``/``nn.embedding_lookup`` (values, gradients, errors), the
variables' sparse updates and ``SGD`` steps with sparse gradients.
"""

import numpy as np

from tests.golden.harness import case, catch

_DTYPES = ("float32", "float64")
P = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
T = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _grad(tf, fn, source, **kwargs):
    """``[fn(), d fn() / d source]``; a constant source is watched."""
    with tf.GradientTape() as tape:
        if not isinstance(source, tf.Variable):
            tape.watch(source)
        y = fn()
    return [y, tape.gradient(y, source, **kwargs)]


def _both(tf, make):
    return {d: make(getattr(tf, d)) for d in _DTYPES}


# --------------------------------------------------------------------------------------------- IndexedSlices


@case
def indexed_slices_parts(tf):
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 0]), tf.constant([3, 2]))
    no_shape = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([1]))
    return [s, s.values, s.indices, s.dense_shape, s.dtype, s.shape, s.device, str(s), repr(s), type(s).__name__,
            no_shape.dense_shape, no_shape.shape, str(no_shape), -s, s.consumers(), s == s,
            isinstance(s, tf.Tensor), catch(lambda: s.name), catch(lambda: s.op)]


@case
def indexed_slices_of_python_values(tf):
    s = tf.IndexedSlices([[1.0, 2.0]], [0], [3, 2])
    return [s.values, s.indices, s.dense_shape, str(s), tf.convert_to_tensor(s), catch(lambda: s.shape),
            catch(lambda: s.dtype), catch(lambda: s.device), catch(lambda: -s)]


@case
def indexed_slices_int64_parts(tf):
    s = tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([0, 0], tf.int64), tf.constant([2, 1], tf.int64))
    return [s, s.shape, str(s), tf.convert_to_tensor(s)]


@case
def indexed_slices_densify_sums_repeats(tf):
    out = []
    for d in _DTYPES:
        s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], getattr(tf, d)),
                             tf.constant([1, 1, 0]), tf.constant([3, 2]))
        out += [tf.convert_to_tensor(s), tf.convert_to_tensor(s, dtype=getattr(tf, d)),
                tf.convert_to_tensor(s, dtype_hint=tf.float16)]
    neg = tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([-1, 2]), tf.constant([3, 1]))
    two_d = tf.IndexedSlices(tf.constant([[[1.0]], [[2.0]]]), tf.constant([[1], [1]]), tf.constant([2, 1]))
    scalar_index = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant(0), tf.constant([3, 2]))
    wide_shape = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 5]))
    ints = tf.IndexedSlices(tf.constant([[1, 2]]), tf.constant([1]), tf.constant([2, 2]))
    cplx = tf.IndexedSlices(tf.constant([[1j]]), tf.constant([0]), tf.constant([2, 1]))
    return out + [tf.convert_to_tensor(x) for x in (neg, two_d, scalar_index, wide_shape, ints, cplx)] + [
        tf.multiply(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([1]), tf.constant([2, 1])), 2.0),
        tf.reduce_sum(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([1]), tf.constant([2, 1])))]


@case
def indexed_slices_densify_errors(tf):
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
    return [
        catch(tf.convert_to_tensor, s, dtype=tf.float64),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([1]))),
        catch(tf.multiply, tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([1])), 2.0),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([5]), tf.constant([3, 1]))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[[1.0]], [[2.0]]]), tf.constant([[0], [7]]),
                                                     tf.constant([3, 1]))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([0]),
                                                     tf.constant([3, 1]))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant(1.0), tf.constant([0]), tf.constant([3, 1]))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant(3))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[True]]), tf.constant([0]), tf.constant([3, 1]))),
        catch(tf.convert_to_tensor, tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0.0]), tf.constant([3, 1]))),
    ]


@case
def indexed_slices_has_no_arithmetic(tf):
    s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1]))
    return [catch(lambda: s + s), catch(lambda: s * 2), catch(lambda: 2 * s), catch(lambda: s - s),
            catch(lambda: len(s)), catch(lambda: s[0]), catch(lambda: s.numpy()), bool(s)]


# --------------------------------------------------------------------------------------------- sparse gradients


@case
def gather_variable_gradient_is_indexed_slices(tf):
    def make(dt):
        v = tf.Variable(tf.constant(T, dt))
        return [_grad(tf, lambda: tf.reduce_sum(tf.gather(v, [0, 2, 0])), v),
                _grad(tf, lambda: tf.reduce_sum(tf.gather(v, [[1, 1], [0, 2]]) * 2.0), v),
                _grad(tf, lambda: tf.reduce_sum(tf.gather(v, 1)), v),
                _grad(tf, lambda: tf.reduce_sum(tf.gather(v, tf.constant([2, 2], tf.int64))), v)]

    return _both(tf, make)


@case
def gather_watched_constant_gradient(tf):
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [_grad(tf, lambda: tf.reduce_sum(tf.gather(c, [1, 1])), c),
            _grad(tf, lambda: tf.reduce_sum(tf.nn.embedding_lookup(c, [[0], [1]])), c)]


@case
def embedding_lookup_gradient(tf):
    def make(dt):
        v = tf.Variable(tf.constant(T, dt))
        w = tf.constant([[1.0], [2.0], [3.0]], dt)
        return [_grad(tf, lambda: tf.reduce_sum(tf.nn.embedding_lookup(v, [[1, 1], [0, 2]])), v),
                _grad(tf, lambda: tf.reduce_sum(tf.nn.embedding_lookup(v, [0, 1, 0], max_norm=1.0) * w), v)]

    return _both(tf, make)


@case
def sum_of_gathers_stays_indexed_slices(tf):
    v = tf.Variable(T)
    two = _grad(tf, lambda: tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(tf.gather(v, [2, 1]) * 2.0), v)
    three = _grad(tf, lambda: (tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(tf.gather(v, [2, 1]) * 2.0)
                               + tf.reduce_sum(tf.gather(v, [1]) * 3.0)), v)
    mixed = _grad(tf, lambda: (tf.reduce_sum(tf.gather(v, tf.constant([0], tf.int64)))
                               + tf.reduce_sum(tf.gather(v, [2, 1]) * 2.0)), v)
    longer_first = _grad(tf, lambda: (tf.reduce_sum(tf.exp(tf.gather(v, [0]) * 0.0) * tf.gather(v, [2]))
                                      + tf.reduce_sum(tf.gather(v, [1]))), v)
    same_read = _grad(tf, lambda: tf.reduce_sum(tf.gather(tf.identity(v), [2]) + tf.gather(v, [0])), v)
    return [two, three, mixed, longer_first, same_read, tf.convert_to_tensor(three[1])]


@case
def gather_slices_order_with_several_targets(tf):
    v = tf.Variable(T)
    with tf.GradientTape(persistent=True) as tape:
        y1 = tf.reduce_sum(tf.gather(v, [0]))
        y2 = tf.reduce_sum(tf.gather(v, [1]))
        y3 = tf.reduce_sum(tf.gather(v, [2]) * 2.0)
        z = tf.gather(v, [2, 1])
        r = tf.identity(v)
        y4 = tf.reduce_sum(tf.gather(r, [0])) + tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(tf.gather(r, [2]))
    return [tape.gradient([y1, y2, y3], v), tape.gradient([y3, y1, y2], v), tape.gradient([z, y1], v),
            tape.gradient({"a": y2, "b": y1}, v), tape.gradient(y4, v), tape.gradient([y4, y2], v)]


@case
def gather_with_dense_use_is_dense(tf):
    v = tf.Variable(T)
    return [_grad(tf, lambda: tf.reduce_sum(tf.gather(v, [0])) + tf.reduce_sum(v), v),
            _grad(tf, lambda: tf.reduce_sum(v * 2.0) + tf.reduce_sum(tf.gather(v, [2, 2])), v),
            _grad(tf, lambda: tf.reduce_sum(v[0]), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(v * 2.0, [1, 1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(tf.reshape(v, [6]), [1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(v, [1, 1], axis=1)), v),
            _grad(tf, lambda: tf.reduce_sum(tf.boolean_mask(v, [True, False, True])), v)]


@case
def gather_through_identities_stays_sparse(tf):
    v = tf.Variable(T)
    return [_grad(tf, lambda: tf.reduce_sum(tf.gather(tf.identity(v), [1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(v.read_value(), [1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(tf.cast(v, tf.float64), [1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(tf.gather(v, [2, 0]), [1, 1])), v),
            _grad(tf, lambda: tf.reduce_sum(tf.gather(v, [0]) * tf.gather(v, [1])), v)]


@case
def gather_unconnected_zero_and_output_gradients(tf):
    v, u = tf.Variable(T), tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0]))
    zero = tape.gradient(y, [v, u], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    with tf.GradientTape() as tape:
        y = tf.gather(v, [1, 0])
    target = tape.gradient(y, v)
    with tf.GradientTape() as tape:
        y = tf.gather(v, [1])
    weighted = tape.gradient(y, v, output_gradients=tf.constant([[5.0, 6.0]]))
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.gather(v, [2]))
    again = [tape.gradient(y, v), tape.gradient(y, v)]
    return [zero, target, weighted, again]


@case
def gather_gradient_of_intermediate_and_second_order(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x * x, [0, 2, 2]))
        g = inner.gradient(y, x)
    second = outer.gradient(g, x)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 2, 2]) ** 3)
        g = inner.gradient(y, x)
        dense = tf.convert_to_tensor(g)
    sparse_second = outer.gradient(dense, x)
    return [g, second, dense, sparse_second]


@case
def indexed_slices_as_gradient_target_or_source(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 2, 2]) ** 3)
        g = inner.gradient(y, x)
    return [catch(outer.gradient, g, x), catch(outer.gradient, [g, y], x), catch(outer.gradient, y, g),
            outer.gradient(g.values, x)]


@case
def gather_nd_gradient(tf):
    def make(dt):
        v = tf.Variable(tf.constant(T, dt))
        c = tf.constant(P, dt)
        return [_grad(tf, lambda: tf.reduce_sum(tf.gather_nd(v, [[1], [1], [0]])), v),
                _grad(tf, lambda: tf.reduce_sum(tf.gather_nd(c, [[0, 1], [1, 2], [0, 1]])), c),
                _grad(tf, lambda: tf.reduce_sum(tf.gather_nd(c, tf.constant([[1]], tf.int64))), c),
                _grad(tf, lambda: tf.reduce_sum(tf.gather_nd(c, [[[1]], [[0]]])), c),
                _grad(tf, lambda: tf.reduce_sum(tf.gather_nd(c, [[1], [0]], batch_dims=1)), c)]

    return _both(tf, make)


@case
def gather_axis_and_batch_dims_gradients(tf):
    def make(dt):
        x = tf.reshape(tf.range(24, dtype=dt), [2, 3, 4])
        w = tf.reshape(tf.range(12, dtype=dt), [2, 3, 2])
        return [_grad(tf, lambda: tf.reduce_sum(tf.gather(x, [[0, 3], [1, 1]], axis=2, batch_dims=1) * w), x),
                _grad(tf, lambda: tf.reduce_sum(tf.gather(x, [[2, 2], [0, 1]], batch_dims=1)), x),
                _grad(tf, lambda: tf.reduce_sum(tf.gather(x, [3, 3, 0], axis=-1)), x)]

    return _both(tf, make)


# --------------------------------------------------------------------------------------------- gather values


@case
def gather_values(tf):
    p = tf.constant(P)
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    return [tf.gather(p, [1, 0, 1]), tf.gather(p, [[0], [1]]), tf.gather(p, 1), tf.gather(p, 1, axis=1),
            tf.gather(p, [2, 0], axis=-1), tf.gather(p, [0], axis=tf.constant(1)),
            tf.gather(p, [0], axis=tf.constant(1, tf.int64)), tf.gather(p, [[0, 1], [2, 2]], batch_dims=1),
            tf.gather(p, [[0, 1], [2, 2]], batch_dims=-1), tf.gather(p, [[0, 1], [1, 1]], axis=0, batch_dims=1),
            tf.gather(x, [[0, 1], [2, 2]], axis=2, batch_dims=1), tf.gather(x, [[0, 1], [2, 2]], axis=1, batch_dims=1),
            tf.gather([1, 2, 3], [0, 2]), tf.gather(["a", "b"], [1, 1]), tf.gather([True, False], [1]),
            tf.gather(tf.constant([1 + 2j, 3j]), [1]), tf.gather(np.array([[1.0, 2.0]]), [0]),
            tf.gather(p, tf.constant([1], tf.int16)), tf.gather(p, tf.constant([1], tf.int64)),
            tf.gather(p, tf.constant([], tf.int32)), tf.gather(tf.zeros([0, 2]), tf.constant([], tf.int32)),
            tf.gather(tf.Variable(T), [2])]


@case
def gather_errors(tf):
    p = tf.constant(P)
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    return [catch(tf.gather, p, [0, 5]), catch(tf.gather, p, [-1]), catch(tf.gather, p, [[0, 1], [2, 0]]),
            catch(tf.gather, p, [0, 3], axis=1), catch(tf.gather, x, [[[0, 1], [2, 5]]], axis=1),
            catch(tf.gather, x, [[0, 1], [2, 5]], axis=2, batch_dims=1), catch(tf.gather, p, [0], axis=2),
            catch(tf.gather, p, [0], axis=-3), catch(tf.gather, p, [0.0]), catch(tf.gather, p, [0], axis=1.0),
            catch(tf.gather, p, tf.constant([0], tf.uint8)), catch(tf.gather, p, [[0, 1], [2, 2], [1, 1]],
                                                                   batch_dims=1),
            catch(tf.gather, x, [[0, 1], [1, 1]], axis=1, batch_dims=2), catch(tf.gather, x, [0, 1], batch_dims=2),
            catch(tf.gather, p, [0, 1], batch_dims=-2), catch(tf.gather, p, [[0, 1], [2, 2]], batch_dims=3),
            catch(tf.gather, tf.constant(1.0), [0]), catch(tf.gather, tf.zeros([0, 2]), [0]),
            catch(tf.gather, p, tf.constant([2 ** 40], tf.int64)), catch(tf.gather, p, tf.constant([0, 5])),
            catch(tf.gather, p, np.array([0, 5])), catch(tf.gather, tf.Variable(T), [0, 5]),
            catch(tf.gather, tf.Variable(T), tf.constant([0, 5])), catch(tf.gather, p, tf.constant([0.0])),
            catch(tf.gather, P, [0.0])]


@case
def gather_nd_values_and_errors(tf):
    p = tf.constant(P)
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    return [tf.gather_nd(p, [[0, 1], [1, 2]]), tf.gather_nd(p, [[1], [0]]), tf.gather_nd(p, [1]),
            tf.gather_nd(p, [1, 2]), tf.gather_nd(x, [[[1, 2]], [[0, 3]]], batch_dims=1),
            tf.gather_nd(p, [[1], [0]], batch_dims=1), tf.gather_nd(p, tf.zeros([2, 0], tf.int32)),
            tf.gather_nd(["a", "b"], [[1]]), tf.gather_nd(p, tf.constant([[1]], tf.int16)),
            tf.gather_nd(tf.Variable(T), [[2, 1]]),
            catch(tf.gather_nd, p, [[0, 1], [1, 3]]), catch(tf.gather_nd, p, [[5]]), catch(tf.gather_nd, p, [[-1]]),
            catch(tf.gather_nd, p, [[0, 1, 1]]), catch(tf.gather_nd, x, [[[0, 1], [2, 5]]]),
            catch(tf.gather_nd, x, [5, 0]), catch(tf.gather_nd, x, [[[0, 1]], [[2, 5]]], batch_dims=1),
            catch(tf.gather_nd, p, [[1], [0], [1]], batch_dims=1), catch(tf.gather_nd, p, [[1], [0]], batch_dims=2),
            catch(tf.gather_nd, p, [[1], [0]], batch_dims=-1), catch(tf.gather_nd, p, [[1.0]]),
            catch(tf.gather_nd, p, tf.constant([[1]], tf.uint8)), catch(tf.gather_nd, p, 1),
            catch(tf.gather_nd, tf.constant(1.0), tf.zeros([0], tf.int32)),
            catch(tf.gather_nd, tf.zeros([0, 2]), [[0]]), catch(tf.gather_nd, tf.zeros([0, 2]), tf.constant([[0]])),
            catch(tf.gather_nd, p, tf.constant([[5]])), catch(tf.gather_nd, p, tf.constant([[0, 1, 1]])),
            catch(tf.gather_nd, p, tf.constant(1))]


# --------------------------------------------------------------------------------------------- scatters


@case
def scatter_nd_values(tf):
    return [tf.scatter_nd([[1], [1], [0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [3, 2]),
            tf.scatter_nd([[1, 0], [1, 0]], [1.0, 2.0], [3, 2]),
            tf.scatter_nd([[1]], [[1.0, 2.0]], tf.constant([3, 2])),
            tf.scatter_nd(tf.constant([[1]], tf.int64), [[1.0, 2.0]], [3, 2]), tf.scatter_nd([[1]], [7], [3]),
            tf.scatter_nd([[1]], [True], [3]), tf.scatter_nd([[1], [1]], ["a", "b"], [3]),
            tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0, 2]), [3, 2]),
            tf.scatter_nd([[[1], [2]], [[0], [2]]], tf.ones([2, 2, 2]), [3, 2])]


@case
def scatter_nd_errors(tf):
    z = tf.zeros
    return [catch(tf.scatter_nd, [[1, 0], [3, 0]], [1.0, 2.0], [3, 2]), catch(tf.scatter_nd, [[-1, 0]], [1.0], [3, 2]),
            catch(tf.scatter_nd, [[1, 0], [2, 0]], [1.0, 2.0, 3.0], [3, 2]),
            catch(tf.scatter_nd, [[1], [2]], z([2, 3]), [3, 2]), catch(tf.scatter_nd, [[1], [2]], z([2]), [3, 2]),
            catch(tf.scatter_nd, [[1], [2]], z([2, 2, 1]), [3, 2]), catch(tf.scatter_nd, [[1, 1, 1]], [1.0], [3, 2]),
            catch(tf.scatter_nd, [1, 2], z([2]), [3]), catch(tf.scatter_nd, [1, 2], z([2, 2]), [3, 2]),
            catch(tf.scatter_nd, 1, [1.0], [3]), catch(tf.scatter_nd, [[[1], [2]], [[0], [5]]], z([2, 2, 2]), [3, 2]),
            catch(tf.scatter_nd, tf.zeros([2, 0], tf.int32), z([2, 3, 2]), [3, 2]),
            catch(tf.scatter_nd, [[0]], z([1, 0]), [3, 0]),
            catch(tf.scatter_nd, tf.constant([[1]], tf.int64), [[1.0, 2.0]], tf.constant([3, 2])),
            catch(tf.scatter_nd, [[1.0]], [1.0], [3]),
            catch(tf.scatter_nd, tf.constant([[5]]), tf.constant([1.0]), tf.constant([3])),
            catch(tf.scatter_nd, tf.constant([[5]]), [1.0], tf.constant([3])),
            catch(tf.scatter_nd, tf.constant([[0.0]]), tf.constant([1.0]), tf.constant([3.0]))]


@case
def tensor_scatter_values(tf):
    p = tf.constant(P)
    return [tf.tensor_scatter_nd_update(p, [[0, 1], [0, 1]], [10.0, 20.0]),
            tf.tensor_scatter_nd_update(p, [[1]], [[7.0, 8.0, 9.0]]),
            tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [1], [1]], [1.0, 2.0, 3.0]),
            tf.tensor_scatter_nd_add(p, [[0, 1], [0, 1]], [10.0, 20.0]),
            tf.tensor_scatter_nd_sub(p, [[0, 1], [0, 1]], [10.0, 20.0]),
            tf.tensor_scatter_nd_max(p, [[0, 1], [0, 1]], [10.0, 1.0]),
            tf.tensor_scatter_nd_min(p, [[0, 1], [0, 1]], [10.0, 1.0]),
            tf.tensor_scatter_nd_update([True, False], [[1]], [True]),
            tf.tensor_scatter_nd_update(["a", "b"], [[1]], ["c"]),
            tf.tensor_scatter_nd_add(tf.constant([1j, 2 + 0j]), [[1]], tf.constant([1j])),
            tf.tensor_scatter_nd_add([1, 2, 3], [[2], [2]], [5, 5]),
            tf.tensor_scatter_nd_update(p, tf.constant([[1]]), tf.constant([[0.0, 0.0, 0.0]])),
            tf.tensor_scatter_nd_update(p, tf.zeros([0, 1], tf.int32), tf.zeros([0, 3]))]


@case
def tensor_scatter_errors(tf):
    z = tf.zeros
    out = []
    for fn in (tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub,
               tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min):
        out.append([catch(fn, z([3, 2]), [[1], [2]], z([3, 2])), catch(fn, z([3, 2]), [[1], [2]], z([2, 3])),
                    catch(fn, z([3, 2]), [[1], [2]], z([2])), catch(fn, z([3, 2]), [[1], [2]], z([2, 2, 1])),
                    catch(fn, z([3, 2]), [[1, 1, 1]], z([1])), catch(fn, z([3]), [1, 2], z([2])),
                    catch(fn, z([3]), tf.constant(1), z([])), catch(fn, z([3, 2]), [[[1], [2]], [[0], [5]]],
                                                                    z([2, 2, 2])),
                    catch(fn, z([3, 2]), [[[1], [2]], [[0], [-1]]], z([2, 2, 2])),
                    catch(fn, z([3, 2]), tf.zeros([2, 0], tf.int32), z([2, 3, 2])),
                    catch(fn, z([3, 0]), [[0]], z([1, 0])), catch(fn, z([3]), [[1]], tf.constant([1])),
                    catch(fn, z([3]), [[1.0]], z([1])), catch(fn, z([3]), tf.constant([[1]], tf.uint8), z([1])),
                    catch(fn, z([3]), tf.constant([[5]]), z([1])), catch(fn, z([3, 2]), tf.constant([[1], [2]]),
                                                                      z([2, 3]))])
    return out


@case
def tensor_scatter_gradients(tf):
    def make(dt):
        t = tf.constant(P, dt)
        u = tf.constant([10.0, 20.0, 30.0], dt)
        idx = [[0, 1], [1, 2], [0, 1]]
        w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dt)
        out = []
        for fn in (tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub):
            with tf.GradientTape() as tape:
                tape.watch([t, u])
                y = tf.reduce_sum(fn(t, idx, u) * w)
            out.append(tape.gradient(y, [t, u]))
        ties = tf.constant([5.0, 2.0, 5.0], dt)
        for fn in (tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min):
            with tf.GradientTape() as tape:
                tape.watch([t, ties])
                y = tf.reduce_sum(fn(t, [[0, 1], [0, 1], [1, 1]], ties) * w)
            out.append([y, tape.gradient(y, [t, ties])])
        with tf.GradientTape() as tape:
            tape.watch(u)
            y = tf.reduce_sum(tf.scatter_nd(idx, u, [2, 3]) * w)
        out.append(tape.gradient(y, u))
        return out

    return _both(tf, make)


# --------------------------------------------------------------------------------------------- boolean_mask


@case
def boolean_mask_values_and_gradient(tf):
    p = tf.constant(P)
    c = tf.constant(T)
    return [tf.boolean_mask(p, [True, False]), tf.boolean_mask(p, [[True, False, True], [False, False, True]]),
            tf.boolean_mask(p, [True, False, True], axis=1), tf.boolean_mask(p, [True, False], axis=-2),
            tf.boolean_mask(p, [1, 0]), tf.boolean_mask(p, [1.0, 0.0]), tf.boolean_mask([1, 2, 3], [True, False, True]),
            tf.boolean_mask(["a", "b"], np.array([False, True])), tf.boolean_mask(p, tf.constant([False, False])),
            _grad(tf, lambda: tf.reduce_sum(tf.boolean_mask(c, [True, False, True]) * 2.0), c),
            _grad(tf, lambda: tf.reduce_sum(tf.boolean_mask(c, [False, True], axis=1)), c),
            catch(tf.boolean_mask, p, [True, False, True]), catch(tf.boolean_mask, p, True),
            catch(tf.boolean_mask, p, [True, False, True], axis=-1), catch(tf.boolean_mask, p, [True, False], axis=2),
            catch(tf.boolean_mask, p, [[[True]]]), catch(tf.boolean_mask, tf.constant(1.0), [True])]


# --------------------------------------------------------------------------------------------- embedding_lookup


@case
def embedding_lookup_values_and_errors(tf):
    a, b, c = tf.constant([[1.0], [2.0]]), tf.constant([[10.0], [20.0]]), tf.constant([[100.0]])
    e = tf.constant([[3.0, 4.0], [0.3, 0.4]])
    return [tf.nn.embedding_lookup(e, [[1, 0], [1, 1]]), tf.nn.embedding_lookup(e, 1),
            tf.nn.embedding_lookup(e, [0, 1], max_norm=1.0), tf.nn.embedding_lookup(tf.constant([3.0, -4.0]), [1, 0],
                                                                                   max_norm=2.0),
            tf.nn.embedding_lookup([a, b], [0, 1, 2, 3]), tf.nn.embedding_lookup([a, b, c], [4, 0, 2, 3, 1]),
            tf.nn.embedding_lookup([a, b, c], [[4, 0], [2, 3]]), tf.nn.embedding_lookup([a], [1]),
            tf.nn.embedding_lookup(np.array([[1.0, 2.0]]), [0]),
            catch(tf.nn.embedding_lookup, [], [1]), catch(tf.nn.embedding_lookup, e, [5]),
            catch(tf.nn.embedding_lookup, e, [0.0]), catch(tf.nn.embedding_lookup, [a, b], [0, 1, 2, 4])]


@case
def embedding_lookup_sharded_gradient(tf):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable([[7.0, 8.0], [9.0, 10.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.embedding_lookup([v, w], [3, 0, 1, 0]) * tf.constant([[1.0], [2.0], [3.0], [4.0]]))
    sharded = tape.gradient(y, [v, w])
    too_short = catch(tf.nn.embedding_lookup, [tf.Variable(T), tf.Variable([[1.0, 2.0]])], [3, 0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.embedding_lookup([v, v * 2.0], [0, 1, 2, 3]))
    dense = tape.gradient(y, v)
    return [y, sharded, dense, too_short]


# --------------------------------------------------------------------------------------------- variable updates


@case
def variable_sparse_updates(tf):
    v = tf.Variable(T)
    s = tf.IndexedSlices
    out = [v.scatter_sub(s(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.constant([0, 0]))),
           v.scatter_add(s(tf.constant([[1.0, 1.0]]), tf.constant([2]))),
           v.scatter_update(s(tf.constant([[9.0, 9.0], [8.0, 8.0]]), tf.constant([1, 1]))),
           v.scatter_max(s(tf.constant([[9.0, 0.0]]), tf.constant([1]))),
           v.scatter_min(s(tf.constant([[9.0, 0.0]]), tf.constant([1]))),
           v.scatter_mul(s(tf.constant([[2.0, 2.0]]), tf.constant([1]))),
           v.scatter_div(s(tf.constant([[2.0, 2.0]]), tf.constant([1]))),
           v.scatter_sub(s(tf.constant(1.0), tf.constant([0]))), v.scatter_sub(s([[1.0, 1.0]], [0])),
           v.scatter_sub(s(tf.constant([[[1.0, 1.0]]]), tf.constant([[0]]))),
           v.scatter_sub(s(tf.constant([[1.0, 1.0]]), tf.constant([0], tf.int64))),
           v.scatter_nd_sub([[0, 0], [0, 0]], [1.0, 1.0]), v.scatter_nd_add([[1]], [[1.0, 1.0]]),
           v.scatter_nd_update([[1]], [[7.0, 7.0]]), v.scatter_nd_max([[1]], [[70.0, 0.0]]),
           v.scatter_nd_min([[1]], [[70.0, 0.0]]), v.sparse_read([0, 0]), v.gather_nd([[0, 0]]), v]
    return out


@case
def variable_sparse_update_errors(tf):
    v = tf.Variable(T)
    s = tf.IndexedSlices
    out = [catch(v.scatter_sub, tf.constant([1.0])), catch(v.scatter_sub, s(tf.constant([[1.0, 1.0]]),
                                                                           tf.constant([3]))),
           catch(v.scatter_update, s(tf.constant([[1.0, 1.0]]), tf.constant([3]))),
           catch(v.scatter_sub, s(tf.constant([[1.0, 1.0]]), tf.constant([-1]))),
           catch(v.scatter_sub, s(tf.constant([[1.0, 1.0]], tf.float64), tf.constant([0]))),
           catch(v.scatter_nd_update, [[5]], [[7.0, 7.0]]), catch(v.scatter_nd_add, [[5]], [[7.0, 7.0]]),
           catch(v.scatter_nd_add, [[1]], [[7.0, 7.0, 7.0]])]
    return out + [v]


# --------------------------------------------------------------------------------------------- SGD


@case
def sgd_applies_sparse_gradients(tf):
    out = []
    for kwargs in ({}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}):
        for d in _DTYPES:
            v = tf.Variable(tf.constant(T, getattr(tf, d)))
            opt = tf.keras.optimizers.SGD(0.1, **kwargs)
            steps = []
            for idx in ([0, 2, 0], [1, 1]):
                with tf.GradientTape() as tape:
                    y = tf.reduce_sum(tf.gather(v, idx) * tf.gather(v, idx))
                g = tape.gradient(y, v)
                opt.apply_gradients([(g, v)])
                steps.append([g, v.numpy()])
            out.append(steps)
    return out


@case
def sgd_sparse_and_dense_variables_together(tf):
    table = tf.Variable([[0.5, -1.0], [2.0, 0.0], [1.5, 1.0]])
    w = tf.Variable([[1.0], [-2.0]])
    opt = tf.keras.optimizers.SGD(0.05)
    losses = []
    for ids in ([0, 2], [1, 1], [2, 0]):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(tf.nn.embedding_lookup(table, ids), w) ** 2)
        grads = tape.gradient(loss, [table, w])
        opt.apply_gradients(zip(grads, [table, w]))
        losses.append([loss, grads])
    return [losses, table, w, opt.iterations.numpy()]


@case
def python_scalar_indices_keep_error_name(tf):
    # Python scalars do not send TF's wrapper down its fallback path; a scalar index prints as "indices = 5".
    p = tf.constant([1.0, 2.0])
    idx = tf.constant([[0], [5]])
    return [catch(tf.gather, p, 5), catch(tf.gather, p, np.int32(5)), catch(tf.gather, p, [5]),
            catch(tf.tensor_scatter_nd_update, p, idx, tf.constant([1.0, 2.0])),
            catch(tf.tensor_scatter_nd_update, p, [[0], [5]], tf.constant([1.0, 2.0]))]

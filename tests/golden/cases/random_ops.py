"""Random ops: only what tapeflow shares with TensorFlow, whose Philox streams it does not reproduce bit for bit.

That is shapes, dtypes, errors, ranges and reproducibility booleans (``a == b`` after re-seeding), plus the values
that do not depend on the stream: dropout with rate 0 or a negative rate tensor, categorical rows with a single
possible class, gradients with respect to ``mean`` and ``minval``. Each case sets the seeds it relies on and
leaves the process without a global seed.
"""

import random

import numpy as np

from tests.golden.harness import case, catch


def rcase(fn):
    """A case that ends with ``set_seed(None)``, TF's initial state, whatever happened inside."""

    def run(tf):
        try:
            return fn(tf)
        finally:
            tf.random.set_seed(None)

    run.__name__ = run.__qualname__ = fn.__name__
    return case(run)


def same(a, b):
    return a.shape == b.shape and bool(np.array_equal(a.numpy(), b.numpy()))


def meta(t):
    return [t.shape, t.dtype]


# --------------------------------------------------------------------------------------------- seed rules


@rcase
def global_seed_repeats_calls(tf):
    tf.random.set_seed(1)
    a, b = tf.random.uniform([3]), tf.random.normal([3])
    c = tf.random.uniform([3])
    tf.random.set_seed(1)
    a2, b2, c2 = tf.random.uniform([3]), tf.random.normal([3]), tf.random.uniform([3])
    return {"a==a2": same(a, a2), "b==b2": same(b, b2), "c==c2": same(c, c2), "a==c": same(a, c)}


@rcase
def global_seed_call_order_matters(tf):
    tf.random.set_seed(1)
    tf.random.uniform([3])
    b = tf.random.uniform([3])
    tf.random.set_seed(1)
    tf.random.normal([2])
    b_after_normal = tf.random.uniform([3])
    tf.random.set_seed(1)
    tf.random.uniform([3])
    tf.random.normal([2])
    b_shifted = tf.random.uniform([3])
    return [same(b, b_after_normal), same(b, b_shifted)]


@rcase
def global_seed_op_seeds_are_pythons_random(tf):
    draws = random.Random(1)
    s1, s2 = draws.randint(0, 2**31 - 1), draws.randint(0, 2**31 - 1)
    tf.random.set_seed(1)
    a, b = tf.random.uniform([3]), tf.random.normal([3])
    tf.random.set_seed(1)
    return [same(a, tf.random.uniform([3], seed=s1)), same(b, tf.random.normal([3], seed=s2))]


@rcase
def op_seed_continues_its_stream(tf):
    tf.random.set_seed(1)
    a, b = tf.random.uniform([3], seed=5), tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    a2, b2 = tf.random.uniform([3], seed=5), tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    head = tf.random.uniform([2], seed=5)
    return {"a==b": same(a, b), "a==a2": same(a, a2), "b==b2": same(b, b2),
            "prefix": bool(np.array_equal(head.numpy(), a.numpy()[:2]))}


@rcase
def op_seed_streams_per_op_and_dtype(tf):
    tf.random.set_seed(1)
    tf.random.uniform([3], seed=5)
    n = tf.random.normal([3], seed=5)
    f64 = tf.random.uniform([3], seed=5, dtype=tf.float64)
    t64 = tf.random.uniform(tf.constant([3], tf.int64), seed=5)
    again = tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    first = tf.random.uniform([3], seed=5)
    return {"normal fresh": same(n, tf.random.normal([3], seed=5)),
            "float64 fresh": same(f64, tf.random.uniform([3], seed=5, dtype=tf.float64)),
            "int64 shape fresh": same(t64, first), "float32 continued": same(again, first)}


@rcase
def op_seed_without_global_seed(tf):
    tf.random.set_seed(None)
    a = tf.random.uniform([3], seed=5)
    b = tf.random.uniform([3], seed=5)
    tf.random.set_seed(None)
    c = tf.random.uniform([3], seed=5)
    tf.random.set_seed(87654321)
    d = tf.random.uniform([3], seed=5)
    return {"a==b": same(a, b), "a==c": same(a, c), "a==d": same(a, d)}


@rcase
def no_seed_is_nondeterministic(tf):
    tf.random.set_seed(None)
    a = tf.random.uniform([16])
    tf.random.set_seed(None)
    b = tf.random.uniform([16])
    return same(a, b)


@rcase
def seed_pairs_modulo_and_zero(tf):
    tf.random.set_seed(0)
    a = tf.random.uniform([3], seed=0)
    tf.random.set_seed(0)
    b = tf.random.uniform([3], seed=2**31 - 1)
    tf.random.set_seed(2**31 + 2)
    c = tf.random.uniform([3], seed=-1)
    tf.random.set_seed(3)
    d = tf.random.uniform([3], seed=2**31 - 2)
    return [same(a, b), same(c, d)]


@rcase
def set_seed_returns_none_and_accepts_numpy(tf):
    out = tf.random.set_seed(np.int64(9))
    a = tf.random.uniform([3])
    tf.random.set_seed(9)
    return [out, same(a, tf.random.uniform([3]))]


@rcase
def dropout_rate_zero_takes_an_op_seed(tf):
    tf.random.set_seed(3)
    tf.nn.dropout(tf.ones([2]), 0.0)
    a = tf.random.uniform([3])
    tf.random.set_seed(3)
    tf.random.uniform([1])
    return same(a, tf.random.uniform([3]))


@rcase
def failed_uniform_int_still_takes_an_op_seed(tf):
    tf.random.set_seed(4)
    err = catch(tf.random.uniform, [2], minval=5, maxval=3, dtype=tf.int32)
    a = tf.random.uniform([3])
    tf.random.set_seed(4)
    tf.random.uniform([1])
    return [err, same(a, tf.random.uniform([3]))]


# --------------------------------------------------------------------------------------------- uniform


@rcase
def uniform_shapes_and_dtypes(tf):
    tf.random.set_seed(2)
    return [meta(tf.random.uniform([2, 3])), meta(tf.random.uniform((4,), dtype=tf.float64)),
            meta(tf.random.uniform([], dtype="float16")), meta(tf.random.uniform(tf.TensorShape([1, 2]))),
            meta(tf.random.uniform(tf.constant([3], tf.int64))), meta(tf.random.uniform([0, 2])),
            meta(tf.random.uniform([2], maxval=5, dtype=tf.int32)),
            meta(tf.random.uniform([2], minval=-2**40, maxval=2**40, dtype=tf.int64)),
            meta(tf.random.uniform([0], minval=3, maxval=3, dtype=tf.int32))]


@rcase
def uniform_ranges(tf):
    tf.random.set_seed(2)
    u = tf.random.uniform([2000]).numpy()
    h = tf.random.uniform([2000], dtype=tf.float16).numpy().astype(np.float64)
    b = tf.random.uniform([2000], minval=-3.0, maxval=-1.0, dtype=tf.float64).numpy()
    rev = tf.random.uniform([2000], minval=5.0, maxval=3.0).numpy()
    bc = tf.random.uniform([1000, 2], minval=[0.0, 10.0], maxval=[1.0, 11.0]).numpy()
    i = tf.random.uniform([2000], minval=-2, maxval=3, dtype=tf.int64).numpy()
    return {"float32": bool(u.min() >= 0 and u.max() < 1),
            "float16": bool(h.min() >= 0 and h.max() < 1 and np.all(h * 1024 == np.round(h * 1024))),
            "bounds": bool(b.min() >= -3 and b.max() < -1),
            "reversed": bool(rev.min() > 3 and rev.max() <= 5),
            "broadcast": bool(bc[:, 0].max() < 1 and bc[:, 1].min() >= 10),
            "int": sorted(set(i.tolist()))}


@rcase
def uniform_bound_gradients(tf):
    lo, hi = tf.constant(1.0, tf.float64), tf.constant(3.0, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([lo, hi])
        y = tf.random.uniform([5], minval=lo, maxval=hi, dtype=tf.float64, seed=2)
        z = tf.random.uniform([5], maxval=hi, dtype=tf.float64, seed=3)
    g_lo, g_hi = tape.gradient(y, [lo, hi])
    u = (y.numpy() - 1.0) / 2.0
    return {"lo": bool(np.isclose(g_lo.numpy(), (1 - u).sum())), "hi": bool(np.isclose(g_hi.numpy(), u.sum())),
            "z_hi": bool(np.isclose(tape.gradient(z, hi).numpy(), z.numpy().sum() / 3.0)),
            "dtypes": [g_lo.dtype, g_hi.dtype]}


@rcase
def uniform_errors(tf):
    u = tf.random.uniform
    return [catch(u, [2], dtype=tf.int32), catch(u, [2], dtype=tf.int64), catch(u, [2], dtype=tf.int16),
            catch(u, [2], dtype="int8"), catch(u, [2], dtype=tf.complex64), catch(u, [2], dtype=None),
            catch(u, [2], minval=5, maxval=3, dtype=tf.int32), catch(u, [2], minval=3, maxval=3, dtype=tf.int32),
            catch(u, [2], minval=[0, 1], maxval=3, dtype=tf.int32),
            catch(u, [2], minval=5, maxval=[3, 4], dtype=tf.int32),
            catch(u, [0], minval=[0, 1], maxval=3, dtype=tf.int32),
            catch(u, [-1], minval=5, maxval=3, dtype=tf.int32), catch(u, [[1]], maxval=3, dtype=tf.int32),
            catch(u, [2], minval=0.5, maxval=3, dtype=tf.int32),
            catch(u, [2], minval=tf.constant(0, tf.int64), maxval=3, dtype=tf.int32),
            catch(u, [2], minval=tf.constant(0.0, tf.float64), maxval=3.0),
            catch(u, [2], maxval="a"), catch(u, [2], minval=[0.0, 1.0, 2.0], maxval=4.0),
            catch(u, [-1, 2]), catch(u, [[2, 2]]), catch(u, [2.0]), catch(u, 3), catch(u, [2, None])]


# --------------------------------------------------------------------------------------------- normal


@rcase
def normal_shapes_dtypes_and_bounds(tf):
    tf.random.set_seed(5)
    t = tf.random.truncated_normal([3000], mean=1.0, stddev=0.5, dtype=tf.float64).numpy()
    th = tf.random.truncated_normal([3000], dtype=tf.float16).numpy().astype(np.float64)
    return [meta(tf.random.normal([2, 3])), meta(tf.random.normal([4], dtype=tf.float64)),
            meta(tf.random.normal([], dtype=tf.float16)), meta(tf.random.normal([2], mean=[0.0, 10.0])),
            meta(tf.random.normal([2], mean=[[0.0], [10.0]])), meta(tf.random.truncated_normal([3, 1])),
            meta(tf.random.truncated_normal([0], dtype=tf.float64)),
            bool(np.all(np.abs(t - 1.0) <= 1.0)), bool(np.all(np.abs(th) <= 2.0))]


@rcase
def normal_mean_stddev_gradients(tf):
    out = {}
    for name in ("normal", "truncated_normal"):
        m, s = tf.constant(1.0), tf.constant(2.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([m, s])
            y = getattr(tf.random, name)([6], mean=m, stddev=s, seed=1)
        g_s = tape.gradient(y, s)
        out[name] = [tape.gradient(y, m), bool(np.isclose(g_s.numpy(), ((y.numpy() - 1.0) / 2.0).sum(),
                                                           rtol=1e-5)), g_s.dtype]
    return out


@rcase
def normal_errors(tf):
    n, t = tf.random.normal, tf.random.truncated_normal
    return [catch(n, [2], dtype=tf.int32), catch(n, [2], dtype=tf.complex64), catch(n, [2], dtype=tf.complex128),
            catch(n, [2], dtype=tf.bool), catch(n, [2], dtype=tf.uint8), catch(n, [2], dtype=tf.string),
            catch(n, [2], mean="a"), catch(n, [2], mean=[0.0, 1.0, 2.0]),
            catch(n, [2], mean=tf.constant(1.0, tf.float64)), catch(n, [2], stddev=tf.constant(1.0, tf.float64)),
            catch(n, [2.0]), catch(n, [-2]), catch(n, 3),
            catch(t, [2], dtype=tf.int32), catch(t, [2], dtype=tf.complex128), catch(t, [-2]),
            catch(t, [[2]])]


# --------------------------------------------------------------------------------------------- categorical


@rcase
def categorical_shapes_dtypes_ranges(tf):
    tf.random.set_seed(6)
    s = tf.random.categorical(tf.math.log([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]]), 500)
    return [meta(s), sorted(set(s.numpy()[0].tolist())), sorted(set(s.numpy()[1].tolist())),
            meta(tf.random.categorical([[0.0, 1.0]], 3, dtype=tf.int32)),
            meta(tf.random.categorical([[0.0, 1.0]], 3, dtype="int32")),
            meta(tf.random.categorical([[0.0, 1.0]], tf.constant(3))),
            meta(tf.random.categorical([[0.0, 1.0]], 0)), meta(tf.random.categorical(tf.zeros([0, 3]), 3)),
            meta(tf.random.categorical(tf.constant([[0.0, 1.0]], tf.float16), 2)),
            meta(tf.random.categorical(tf.constant([[0.0, 1.0]], tf.float64), 2))]


@rcase
def categorical_non_finite_logits(tf):
    inf, nan = float("inf"), float("nan")
    c = tf.random.categorical
    return [c([[-inf, 0.0, -inf]], 5), c([[-inf, -inf]], 5), c([[nan, 0.0]], 4), c([[inf, 0.0]], 4),
            c([[0.0, -inf], [-inf, -inf], [-inf, 3.0]], 3, dtype=tf.int32)]


@rcase
def categorical_errors(tf):
    c = tf.random.categorical
    return [catch(c, [0.0, 1.0], 3), catch(c, tf.zeros([2, 2, 2]), 3), catch(c, [[0.0, 1.0]], -1),
            catch(c, tf.zeros([2, 0]), 3), catch(c, tf.zeros([2, 0]), -1), catch(c, tf.zeros([0, 0]), 3),
            catch(c, [[0.0, 1.0]], 3, dtype=tf.int16), catch(c, [[0.0, 1.0]], 3, dtype=tf.float32),
            catch(c, [[0.0, 1.0]], 3.0), catch(c, [[0.0, 1.0]], [3]),
            catch(c, [[0.0, 1.0]], tf.constant(3, tf.int64)), catch(c, [[0, 1]], 3),
            catch(c, tf.constant([[True]]), 3)]


@rcase
def categorical_integer_logits_error_names_the_seeds(tf):
    tf.random.set_seed(None)
    a = catch(tf.random.categorical, tf.constant([[0, 1]], tf.uint8), 3, dtype=tf.int32, seed=4)
    tf.random.set_seed(7)
    return [a, catch(tf.random.categorical, tf.constant([[0, 1]], tf.int64), 3, seed=2**31 + 5)]


@rcase
def categorical_not_differentiable(tf):
    logits = tf.constant([[0.0, 1.0]])
    with tf.GradientTape() as tape:
        tape.watch(logits)
        s = tf.random.categorical(logits, 4, seed=1)
    return tape.gradient(s, logits)


# --------------------------------------------------------------------------------------------- shuffle


@rcase
def shuffle_permutes_first_axis(tf):
    tf.random.set_seed(8)
    x = np.arange(24).reshape(8, 3)
    y = tf.random.shuffle(x)
    v = tf.random.shuffle(tf.Variable([1.0, 2.0, 3.0]))
    s = tf.random.shuffle(["a", "b", "c"])
    return [meta(y), sorted(y.numpy()[:, 0].tolist()), bool(np.all(y.numpy()[:, 1] == y.numpy()[:, 0] + 1)),
            tf.random.shuffle(3), meta(tf.random.shuffle(tf.zeros([0, 2]))), meta(v), sorted(v.numpy().tolist()),
            s.dtype, sorted(s.numpy().tolist()), tf.random.shuffle([True, True]), tf.random.shuffle([[1, 2]])]


@rcase
def shuffle_not_differentiable(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.random.shuffle(x, seed=3) * 2.0
    return tape.gradient(y, x)


# --------------------------------------------------------------------------------------------- dropout


@rcase
def dropout_rate_zero_and_negative_tensor(tf):
    out = {}
    for dt in ("float32", "float64"):
        x = tf.constant([1.0, -2.0, 3.0], dt)
        rate = tf.constant(-0.5, dt)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, rate])
            y0 = tf.nn.dropout(x, 0)
            yn = tf.nn.dropout(x, rate)  # every element kept, scaled by 1 / 1.5
        out[dt] = [y0, y0 is x, tape.gradient(y0, x), yn, tape.gradient(yn, [x, rate])]
    return out


@rcase
def dropout_rate_one_tensor(tf):
    x = tf.constant([1.0, 2.0])
    rate = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch([x, rate])
        y = tf.nn.dropout(x, rate)
    return [y, tape.gradient(y, [x, rate])]


@rcase
def dropout_mask_and_gradient(tf):
    tf.random.set_seed(9)
    out = {}
    for dt in ("float32", "float64"):
        x = tf.constant(np.linspace(1.0, 2.0, 400), dt)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.dropout(x, 0.25)
        grad = tape.gradient(y, x)
        g, yv, xv = grad.numpy(), y.numpy(), x.numpy()
        kept = yv != 0
        scaled = np.allclose(yv[kept], xv[kept] / 0.75, rtol=1e-6)
        out[dt] = [meta(y), meta(grad), bool(0 < kept.sum() < 400), bool(scaled),
                   bool(np.allclose(g, kept / 0.75, rtol=1e-6))]
    return out


@rcase
def dropout_noise_shapes(tf):
    tf.random.set_seed(10)
    d = tf.nn.dropout
    x = tf.ones([50, 4])
    rows = d(x, 0.5, noise_shape=[50, 1]).numpy()
    cols = d(x, 0.5, noise_shape=(None, 4)).numpy()
    return [bool(np.all((rows == 0).all(axis=1) | (rows == 2).all(axis=1))), meta(d(x, 0.5, noise_shape=[4])),
            bool(np.all((cols == 0) | (cols == 2))), meta(d(tf.ones([2, 3]), 0.5, noise_shape=[2, 2, 3])),
            meta(d(tf.ones([2, 3]), 0.5, noise_shape=tf.constant([2, 1]))), meta(d(3.0, 0.5)),
            meta(d([1.0, 2.0], 0.5)), meta(d(tf.ones([2], tf.float16), 0.5)),
            meta(d(tf.ones([4], tf.float64), np.float32(0.3))), meta(d(tf.ones([4]), tf.Variable(0.5)))]


@rcase
def dropout_scale_is_computed_in_the_rate_type(tf):
    y = tf.nn.dropout(tf.ones([200], tf.float64), np.float32(0.3), seed=1)
    return sorted(set(y.numpy().tolist()))


@rcase
def dropout_errors(tf):
    d, x = tf.nn.dropout, tf.ones([2, 3])
    return [catch(d, x, 1.0), catch(d, x, 1), catch(d, x, -0.1), catch(d, x, np.float64(1.0)), catch(d, x, True),
            catch(d, tf.constant([1, 2]), 0.5), catch(d, tf.constant([1, 2]), 1.5),
            catch(d, tf.constant([1, 2]), 0), catch(d, tf.ones([2], tf.complex64), 0.5),
            catch(d, x, tf.constant([0.5])), catch(d, x, tf.constant(0.5, tf.float64)),
            catch(d, x, tf.constant(0)), catch(d, tf.ones([2], tf.float16), tf.constant(0.5)),
            catch(d, x, "a"), catch(d, x, None), catch(d, x, [0.5]), catch(d, x, np.array(0.3)),
            catch(d, x, 0.5, noise_shape=[3, 1]), catch(d, x, 0.5, noise_shape=[None]),
            catch(d, x, 0.5, noise_shape=[2.0, 1])]

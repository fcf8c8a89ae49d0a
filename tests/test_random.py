"""Random ops: TF's seed rules (what repeats and what does not), the distributions drawn, and dropout.

Values are not TF's (tapeflow draws from NumPy's Philox generator, keyed by the seed pair), so these tests check
the rules and the statistics; ``tests/golden/cases/random_ops.py`` checks shapes, dtypes, errors and the same
reproducibility booleans against TensorFlow itself. Statistical bounds are about six standard errors wide.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import random_ops

MAXINT32 = 2**31 - 1


@pytest.fixture(autouse=True)
def _no_global_seed():
    """Every test starts, and leaves the process, without a global seed (TF's initial state)."""
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def same(a, b):
    return a.shape == b.shape and bool(np.array_equal(a.numpy(), b.numpy()))


# ------------------------------------------------------------------------------------------ seed rules


def test_global_seed_repeats_the_sequence_of_calls():
    tf.random.set_seed(1)
    a, b = tf.random.uniform([3]), tf.random.uniform([3])
    tf.random.set_seed(1)
    c, d = tf.random.uniform([3]), tf.random.uniform([3])
    assert not same(a, b)
    assert same(a, c) and same(b, d)


def test_each_call_takes_the_next_op_seed_so_an_extra_call_shifts_the_rest():
    tf.random.set_seed(1)
    tf.random.uniform([3])
    b = tf.random.uniform([3])
    tf.random.set_seed(1)
    tf.random.uniform([3])
    tf.random.normal([2])  # another op also takes an op seed from the counter
    d = tf.random.uniform([3])
    assert not same(b, d)
    tf.random.set_seed(1)
    tf.random.normal([2])  # in place of the first call: the second call gets the same op seed as before
    assert same(b, tf.random.uniform([3]))


def test_op_seeds_drawn_from_the_global_seed_are_tfs():
    # TF draws them with Python's random.Random(global_seed).randint(0, 2**31 - 1), one per call.
    draws = random.Random(7)
    s1, s2 = draws.randint(0, MAXINT32), draws.randint(0, MAXINT32)
    tf.random.set_seed(7)
    a, b = tf.random.uniform([4]), tf.random.normal([4])
    tf.random.set_seed(7)
    assert same(a, tf.random.uniform([4], seed=s1))
    assert same(b, tf.random.normal([4], seed=s2))


def test_explicit_op_seed_continues_its_stream_across_calls():
    tf.random.set_seed(1)
    a, b = tf.random.uniform([3], seed=5), tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    c, d = tf.random.uniform([3], seed=5), tf.random.uniform([3], seed=5)
    assert not same(a, b)
    assert same(a, c) and same(b, d)


def test_stream_continues_across_shapes():
    tf.random.set_seed(1)
    a, b = tf.random.uniform([2], seed=5), tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    c = tf.random.uniform([5], seed=5)
    np.testing.assert_array_equal(c.numpy()[:2], a.numpy())
    assert not np.array_equal(b.numpy()[:2], a.numpy())


def test_another_op_or_dtype_with_the_same_seeds_has_its_own_stream():
    tf.random.set_seed(1)
    tf.random.uniform([3], seed=5)
    n = tf.random.normal([3], seed=5)
    f64 = tf.random.uniform([3], seed=5, dtype=tf.float64)
    i64 = tf.random.uniform(tf.constant([3], tf.int64), seed=5)  # the shape's dtype is a kernel attribute too
    tf.random.set_seed(1)
    assert same(n, tf.random.normal([3], seed=5))
    assert same(f64, tf.random.uniform([3], seed=5, dtype=tf.float64))
    tf.random.set_seed(1)
    assert same(i64, tf.random.uniform([3], seed=5))


def test_op_seed_without_global_seed_uses_the_default_global_seed():
    a = tf.random.uniform([3], seed=5)
    tf.random.set_seed(None)  # drops the stream: the next call starts it again
    b = tf.random.uniform([3], seed=5)
    tf.random.set_seed(random_ops.DEFAULT_GRAPH_SEED)
    c = tf.random.uniform([3], seed=5)
    assert same(a, b) and same(a, c)


def test_no_seed_at_all_is_nondeterministic():
    a = tf.random.uniform([8])
    tf.random.set_seed(None)
    b = tf.random.uniform([8])
    assert not same(a, b)


def test_seed_pairs_are_reduced_and_zero_zero_is_avoided():
    tf.random.set_seed(0)
    a = tf.random.uniform([3], seed=0)
    tf.random.set_seed(0)
    b = tf.random.uniform([3], seed=MAXINT32)  # (0, 0) stands for (0, 2**31 - 1)
    tf.random.set_seed(MAXINT32 + 3)
    c = tf.random.uniform([3], seed=-1)
    tf.random.set_seed(3)
    d = tf.random.uniform([3], seed=MAXINT32 - 1)
    assert same(a, b) and same(c, d)


def test_numpy_integer_global_seed():
    tf.random.set_seed(np.int64(9))
    a = tf.random.uniform([3])
    tf.random.set_seed(9)
    assert same(a, tf.random.uniform([3]))


def test_failed_call_leaves_the_stream_where_it_was():
    tf.random.set_seed(1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.uniform([-1, 2], seed=5)
    a = tf.random.uniform([3], seed=5)
    tf.random.set_seed(1)
    assert same(a, tf.random.uniform([3], seed=5))


def test_streams_of_drawn_op_seeds_are_not_kept():
    tf.random.set_seed(1)
    for _ in range(50):
        tf.nn.dropout(tf.ones([4]), 0.5)
    assert not random_ops._STATE.streams


def test_dropout_with_rate_zero_still_takes_an_op_seed():
    tf.random.set_seed(3)
    tf.nn.dropout(tf.ones([2]), 0.0)
    a = tf.random.uniform([3])
    tf.random.set_seed(3)
    tf.random.uniform([1])
    assert same(a, tf.random.uniform([3]))


# ------------------------------------------------------------------------------------------ uniform

N = 200_000


def _draw(fn, *args, **kwargs):
    tf.random.set_seed(42)
    return fn(*args, **kwargs).numpy()


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_uniform_float_moments_and_range(dtype):
    u = _draw(tf.random.uniform, [N], dtype=dtype)
    assert u.dtype == dtype.as_numpy_dtype and u.shape == (N,)
    assert u.min() >= 0 and u.max() < 1
    u = u.astype(np.float64)
    assert abs(u.mean() - 0.5) < 6 * math.sqrt(1 / 12 / N)
    assert abs(u.var() - 1 / 12) < 0.003
    if dtype == tf.float16:
        np.testing.assert_array_equal(u * 1024, np.round(u * 1024))


def test_uniform_bounds_broadcast():
    u = _draw(tf.random.uniform, [N, 2], minval=[-1.0, 10.0], maxval=[1.0, 10.5], dtype=tf.float64)
    assert np.all(u[:, 0] >= -1) and np.all(u[:, 0] < 1) and np.all(u[:, 1] >= 10) and np.all(u[:, 1] < 10.5)
    assert abs(u[:, 0].mean()) < 0.01 and abs(u[:, 1].mean() - 10.25) < 0.005


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_uniform_int_frequencies(dtype):
    u = _draw(tf.random.uniform, [N], minval=-3, maxval=5, dtype=dtype)
    assert u.dtype == dtype.as_numpy_dtype
    counts = np.bincount(u + 3, minlength=8)
    assert counts.size == 8  # nothing outside [-3, 5)
    expected = N / 8
    assert np.all(np.abs(counts - expected) < 6 * math.sqrt(expected))


def test_uniform_gradients_reach_tensor_bounds():
    lo, hi = tf.constant(1.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([lo, hi])
        tf.random.set_seed(1)
        y = tf.random.uniform([5], minval=lo, maxval=hi, seed=2)
    u = (y.numpy() - 1.0) / 2.0
    g_lo, g_hi = tape.gradient(y, [lo, hi])
    np.testing.assert_allclose(g_hi.numpy(), u.sum(), rtol=1e-5)
    np.testing.assert_allclose(g_lo.numpy(), (1 - u).sum(), rtol=1e-5)


# ------------------------------------------------------------------------------------------ normal, truncated


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_normal_moments(dtype):
    z = _draw(tf.random.normal, [N], mean=2.0, stddev=3.0, dtype=dtype)
    assert z.dtype == dtype.as_numpy_dtype
    z = (z.astype(np.float64) - 2.0) / 3.0
    assert abs(z.mean()) < 6 / math.sqrt(N)
    assert abs(z.var() - 1) < 6 * math.sqrt(2 / N)
    assert abs(np.mean(z**3)) < 6 * math.sqrt(15 / N)
    assert abs(np.mean(z**4) - 3) < 6 * math.sqrt(96 / N)


def test_truncated_normal_bounds_and_moments():
    z = _draw(tf.random.truncated_normal, [N], mean=-1.0, stddev=0.5, dtype=tf.float64)
    assert np.all(np.abs(z + 1.0) <= 1.0)
    z = (z + 1.0) / 0.5
    pdf2 = math.exp(-2) / math.sqrt(2 * math.pi)
    var = 1 - 2 * 2 * pdf2 / math.erf(2 / math.sqrt(2))  # variance of N(0, 1) truncated to [-2, 2]
    assert abs(z.mean()) < 6 * math.sqrt(var / N)
    assert abs(z.var() - var) < 0.01
    # The density keeps its shape: the share beyond one stddev matches the truncated normal's.
    beyond1 = (math.erf(2 / math.sqrt(2)) - math.erf(1 / math.sqrt(2))) / math.erf(2 / math.sqrt(2))
    assert abs(np.mean(np.abs(z) > 1) - beyond1) < 0.006


@pytest.mark.parametrize("fn", [tf.random.normal, tf.random.truncated_normal])
def test_normal_gradients_reach_mean_and_stddev(fn):
    m, s = tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([m, s])
        y = fn([6], mean=m, stddev=s, dtype=tf.float64, seed=3)
    z = (y.numpy() - 1.0) / 2.0
    np.testing.assert_allclose(tape.gradient(y, m).numpy(), 6.0)
    np.testing.assert_allclose(tape.gradient(y, s).numpy(), z.sum(), rtol=1e-12)


# ------------------------------------------------------------------------------------------ categorical


def test_categorical_frequencies_match_softmax():
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
    s = _draw(tf.random.categorical, logits, N)
    assert s.shape == (2, N) and s.dtype == np.int64
    for row, p in zip(s, np.exp(logits)):
        freq = np.bincount(row, minlength=3) / N
        assert freq.size == 3
        assert np.all(np.abs(freq - p) < 6 * np.sqrt(p * (1 - p) / N))


def test_categorical_non_finite_logits_have_probability_zero():
    logits = [[-np.inf, 0.0, np.nan, 0.0, np.inf], [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf]]
    s = _draw(tf.random.categorical, logits, 2000, dtype=tf.int32)
    assert s.dtype == np.int32
    assert set(np.unique(s[0])) == {1, 3}
    assert np.all(s[1] == 5)  # no finite logit: TF's kernel returns num_classes


def test_categorical_large_batch_rows_are_independent():
    logits = np.zeros((500, 2))
    logits[::2, 0] = -np.inf  # even rows can only draw class 1, odd rows both
    s = _draw(tf.random.categorical, logits, 64)
    assert np.all(s[::2] == 1)
    assert 0.45 < np.mean(s[1::2]) < 0.55


def test_categorical_empty_shapes():
    assert tf.random.categorical(tf.zeros([0, 3]), 4).shape == (0, 4)
    assert tf.random.categorical(tf.zeros([2, 3]), 0).shape == (2, 0)


# ------------------------------------------------------------------------------------------ shuffle


def test_shuffle_is_a_permutation_of_rows():
    x = np.arange(40).reshape(10, 4)
    y = _draw(tf.random.shuffle, x)
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(np.sort(y[:, 0]), x[:, 0])
    np.testing.assert_array_equal(y[:, 1:] - y[:, :1], x[:, 1:] - x[:, :1])  # rows move whole


def test_shuffle_permutations_are_equally_likely():
    tf.random.set_seed(0)
    counts = {}
    for _ in range(3000):
        key = tuple(tf.random.shuffle([0, 1, 2], seed=1).numpy())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    assert all(abs(c - 500) < 6 * math.sqrt(500) for c in counts.values())


def test_shuffle_scalar_strings_and_gradient():
    assert tf.random.shuffle(3).numpy() == 3
    assert sorted(tf.random.shuffle(["a", "b", "c"]).numpy().tolist()) == [b"a", b"b", b"c"]
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.random.shuffle(x)
    assert tape.gradient(y, x) is None  # declared non-differentiable, as in TF


# ------------------------------------------------------------------------------------------ dropout


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
def test_dropout_drops_a_rate_share_and_scales_the_rest(rate):
    x = np.linspace(1.0, 2.0, N).astype(np.float32)
    y = _draw(tf.nn.dropout, x, rate)
    kept = y != 0
    assert abs(1 - kept.mean() - rate) < 6 * math.sqrt(rate * (1 - rate) / N)
    np.testing.assert_allclose(y[kept], x[kept] * np.float32(1 / (1 - rate)), rtol=1e-6)


def test_dropout_gradient_is_mask_over_keep_probability():
    x = tf.constant(np.linspace(-1.0, 1.0, 50))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.3, seed=4)
    g = tape.gradient(y, x).numpy()
    kept = y.numpy() != 0
    np.testing.assert_allclose(g, kept / 0.7, rtol=1e-12)


def test_dropout_second_order_is_zero():
    x = tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.dropout(x, 0.5, seed=1) ** 2)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x).numpy()
    kept = g.numpy() != 0
    np.testing.assert_allclose(h, kept * 8.0)  # d/dx of 2 * (x * 2 * m) * 2 * m


def test_dropout_rate_tensor_gradient():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    r = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        y = tf.nn.dropout(x, r, seed=2)
    gx, gr = tape.gradient(y, [x, r])
    assert gx is None  # x is not watched
    kept = y.numpy() != 0
    np.testing.assert_allclose(gr.numpy(), np.sum(x.numpy() * kept) / 0.25, rtol=1e-6)


def test_dropout_noise_shape_broadcasts_the_mask():
    y = _draw(tf.nn.dropout, tf.ones([200, 6]), 0.5, noise_shape=[200, 1])
    assert np.all((y == 0).all(axis=1) | (y == 2).all(axis=1))
    y = _draw(tf.nn.dropout, tf.ones([4, 300]), 0.5, noise_shape=[1, None])
    assert np.all((y == 0).all(axis=0) | (y == 2).all(axis=0))


def test_dropout_rate_zero_returns_x_itself():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, 0) is x


@pytest.mark.parametrize("rate", [1.0, -0.1, 1])
def test_dropout_rate_outside_unit_interval(rate):
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\)"):
        tf.nn.dropout(tf.ones([2]), rate)


def test_dropout_needs_floats():
    with pytest.raises(ValueError, match="must be a floating point tensor"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)


# ------------------------------------------------------------------------------------------ shapes and errors


@pytest.mark.parametrize("shape", [[2, 3], (2, 3), tf.TensorShape([2, 3]), tf.constant([2, 3]),
                                   tf.constant([2, 3], tf.int64)])
def test_shape_arguments(shape):
    assert tf.random.uniform(shape).shape == (2, 3)
    assert tf.random.normal(shape).shape == (2, 3)


def test_scalar_and_empty_shapes():
    assert tf.random.uniform([]).shape == ()
    assert tf.random.truncated_normal([0, 3]).shape == (0, 3)
    assert tf.random.uniform([0], minval=3, maxval=3, dtype=tf.int32).shape == (0,)


def test_integer_uniform_needs_maxval():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype tf.int32"):
        tf.random.uniform([2], dtype=tf.int32)


def test_bfloat16_is_refused_clearly():
    with pytest.raises(TypeError, match="bfloat16"):
        tf.random.uniform([2], dtype=tf.bfloat16)

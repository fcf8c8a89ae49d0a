"""Each pass of ``compiler/passes.py`` on programs made for it: the pass does its work (the generated source shows
it), and the traced program computes what eager execution computes, bit for bit, on random inputs (signed zeros,
infinities and NaN among them)."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def _source(f, *args):
    return f.get_concrete_function(*args).pretty_printed_source()


def _samples(shape, n=6, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        x = rng.standard_normal(shape).astype(np.float32)
        if k == 1:
            x.flat[0] = -0.0
        if k == 2:
            x.flat[0] = np.inf
        if k == 3:
            x.flat[0] = np.nan
        out.append(x)
    return out


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    np.testing.assert_array_equal(a, b)


def _check(fn, shape, *, gone=(), kept=()):
    """``fn`` traced agrees with ``fn`` eager on random inputs; the traced source lacks each op of ``gone`` and has
    each op of ``kept``."""
    traced = tf.function(fn)
    for x in _samples(shape):
        eager = fn(tf.constant(x))
        got = traced(tf.constant(x))
        for e, g in zip(tf.nest.flatten(eager), tf.nest.flatten(got)):
            _same(e.numpy(), g.numpy())
    src = _source(traced, tf.constant(_samples(shape)[0]))
    for name in gone:
        assert f"# {name} at" not in src, src
    for name in kept:
        assert f"# {name} at" in src, src
    return src


# ------------------------------------------------------------------------------------------ simplify


def test_multiplying_dividing_and_raising_to_one_are_dropped():
    def f(x):
        return x * tf.ones([3]) / 1.0, tf.ones([3]) * x, tf.pow(x, 1.0)

    _check(f, [3], gone=("Mul", "RealDiv", "Pow"))


def test_a_multiplication_that_broadcasts_is_kept():
    def f(x):
        return x * tf.ones([2, 3])  # the ones give the result another shape

    _check(f, [3], kept=("Mul",))


def test_adding_minus_zero_is_dropped_but_adding_zero_is_kept():
    def f(x):
        return x + tf.constant(-0.0), x + 0.0, x - 0.0

    src = _check(f, [4])
    assert src.count("# AddV2 at") == 1 and "# Sub at" not in src


def test_reshapes_casts_and_sums_that_change_nothing_are_dropped():
    def f(x):
        y = tf.reshape(x, [2, 3])
        y = tf.cast(y, tf.float32)
        y = tf.reduce_sum(tf.expand_dims(y, 0), axis=0)
        y = tf.broadcast_to(tf.squeeze(y), [2, 3])
        return tf.identity(y)

    _check(f, [2, 3], gone=("Reshape", "Cast", "Identity", "BroadcastTo", "Squeeze"))


def test_dividing_without_nan_by_a_constant_with_no_zero_is_a_plain_division():
    def f(x):
        return tf.math.divide_no_nan(x, tf.constant([2.0, -0.5, 3.0])), tf.math.divide_no_nan(x, [0.0, 1.0, 2.0])

    src = _check(f, [3], kept=("RealDiv", "DivNoNan"))
    assert src.count("# RealDiv at") == 1 and src.count("# DivNoNan at") == 1


def test_shape_keeping_ops_stay_where_shapes_vary():
    # Traced on one element for any length: there the sum keeps the shape, at other lengths it does not.
    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        return tf.reduce_sum(tf.expand_dims(x, 0), axis=1, keepdims=True) * 2.0

    for n in [1, 3]:
        x = np.arange(1, n + 1, dtype=np.float32)
        _same(f(x).numpy(), np.array([[x.sum() * 2]], np.float32))
    assert f.experimental_get_tracing_count() == 1 and "# Sum at" in _source(f, tf.constant([1.0]))


def test_transpose_of_transpose_and_negated_negation_are_dropped():
    def f(x):
        return tf.transpose(tf.transpose(x, [1, 2, 0]), [2, 0, 1]), tf.negative(-x), tf.transpose(x, [0, 1, 2])

    _check(f, [2, 3, 4], gone=("Transpose", "Neg"))


def test_a_transpose_that_does_not_undo_the_last_is_kept():
    def f(x):
        return tf.transpose(tf.transpose(x, [1, 2, 0]), [1, 2, 0])

    _check(f, [2, 3, 4], kept=("Transpose",))


def test_backward_graphs_lose_their_no_op_unbroadcasts():
    w = tf.Variable(np.ones([3], np.float32))

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.reshape(x * w, [3, 1]) * 2.0)
        return tape.gradient(y, [x, w])

    _check(f, [3], gone=("Reshape",))


def test_a_custom_gradient_call_is_left_as_traced():
    # Its outputs name the function's results by id: an identity inside it must not be dropped.
    @tf.custom_gradient
    def scaled(x):
        return tf.identity(x), lambda g: g * 3.0

    traced = tf.function(lambda x: scaled(x * 2.0))
    assert [float(traced(tf.constant(v))) for v in (1.0, 5.0)] == [2.0, 10.0]


# ------------------------------------------------------------------------------------------ the others


def test_folding_merging_and_dropping_agree_with_eager():
    c = tf.constant([1.0, 2.0, 3.0])

    def f(x):
        k = tf.exp(c) * 2.0  # constants only: folded
        a = tf.sin(x) * k
        b = tf.sin(x) * k  # the same again: merged
        tf.cos(x)  # unused: dropped
        return a + b

    src = _check(f, [3], gone=("Exp", "Cos"))
    assert src.count("# Sin at") == 1


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_loop_and_its_gradient_fused_agree_with_eager(n):
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = x
            for _ in tf.range(n):
                s = tf.sin(s) * x
        return s, tape.gradient(s, x)

    traced = tf.function(f)
    for x in _samples([3])[4:]:
        eager, got = f(tf.constant(x)), traced(tf.constant(x))
        for e, g in zip(eager, got):
            np.testing.assert_allclose(e.numpy(), g.numpy(), rtol=1e-6)
    src = _source(traced, tf.constant(x))
    assert "WhileHistory" in src and "# StatelessWhile at" in src  # the backward loop only


# ------------------------------------------------------------------------------------------ lowering


def test_elementwise_chains_are_fused_into_one_expression():
    def f(x):
        return tf.tanh(tf.exp(x) * 2.0 + 1.0) - x

    src = _check(f, [5])
    fused = [line for line in src.splitlines() if "# Exp at" in line]
    assert len(fused) == 1 and all(f"# {op} at" in fused[0] for op in ("Mul", "AddV2", "Tanh", "Sub"))


def test_a_value_read_twice_keeps_its_local():
    def f(x):
        y = tf.exp(x)
        return y * y

    src = _check(f, [5])
    assert "del " in src and src.count("# Exp at") == 1


def test_an_error_in_a_fused_chain_names_its_op():
    @tf.function
    def f(x, i):
        return tf.gather(tf.exp(x) * 2.0, i) + 1.0

    assert float(f(tf.ones([6]), tf.constant(2))) == pytest.approx(2 * np.e + 1, rel=1e-6)
    src = _source(f, tf.ones([6]), tf.constant(2))
    assert any("# Exp at" in line and "# GatherV2 at" in line for line in src.splitlines())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Detected at node GatherV2") as info:
        f(tf.ones([6]), tf.constant(9))
    assert "indices = 9 is not in [0, 6)" in str(info.value)

"""tf.keras.initializers, regularizers and activations: properties that golden cases cannot pin down.

tapeflow's seeded initializers draw from NumPy's Philox, not TF's kernels, so values are checked by their
distributions (moments, bounds, orthogonality) and by reproducibility per seed.
"""

import math

import numpy as np
import pytest

import tapeflow as tf

I = tf.keras.initializers  # noqa: E741 - the module, as users alias it
R = tf.keras.regularizers
A = tf.keras.activations


def test_same_seed_same_values_other_seed_other_values():
    for cls in (I.RandomNormal, I.RandomUniform, I.TruncatedNormal, I.GlorotUniform, I.Orthogonal):
        a, b, c = cls(seed=11)((6, 5)), cls(seed=11)((6, 5)), cls(seed=12)((6, 5))
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def test_unseeded_initializer_draws_its_seed_once():
    init = I.GlorotNormal()
    np.testing.assert_array_equal(init((4, 4)), init((4, 4)))
    assert init.get_config()["seed"] is None
    assert not np.array_equal(I.GlorotNormal()((4, 4)), I.GlorotNormal()((4, 4)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])  # tapeflow computes no bfloat16
def test_float_dtypes(dtype):
    for init in (I.RandomNormal(seed=1), I.RandomUniform(seed=1), I.HeNormal(seed=1), I.Orthogonal(seed=1)):
        v = init((3, 4), dtype=dtype)
        assert v.dtype.name == dtype and v.shape == (3, 4)


@pytest.mark.parametrize("mode,fan", [("fan_in", 64), ("fan_out", 256), ("fan_avg", 160)])
def test_variance_scaling_moments(mode, fan):
    shape = (64, 256)
    for distribution in ("truncated_normal", "untruncated_normal", "uniform"):
        v = np.asarray(I.VarianceScaling(2.0, mode, distribution, seed=3)(shape, dtype="float64"))
        expected = math.sqrt(2.0 / fan)
        assert abs(v.std() / expected - 1) < 0.03, distribution
        assert abs(v.mean()) < 0.02 * expected
        if distribution == "uniform":
            assert np.abs(v).max() <= math.sqrt(3) * expected
        if distribution == "truncated_normal":
            assert np.abs(v).max() <= 2 * expected / 0.87962566103423978


def test_truncated_normal_bounds_and_uniform_bounds():
    v = np.asarray(I.TruncatedNormal(mean=1.0, stddev=0.5, seed=2)((300, 300), dtype="float64"))
    assert v.min() >= 0.0 and v.max() <= 2.0
    assert abs(v.std() - 0.5 * 0.87962566103423978) < 0.005
    u = np.asarray(I.RandomUniform(-1.0, 2.0, seed=2)((300, 300), dtype="float64"))
    assert u.min() >= -1.0 and u.max() < 2.0 and abs(u.mean() - 0.5) < 0.01


def test_orthogonal_rows_or_columns_orthonormal():
    for shape in [(4, 9), (9, 4), (3, 3, 2, 6)]:
        m = np.asarray(I.Orthogonal(gain=1.5, seed=5)(shape, dtype="float64")).reshape(-1, shape[-1])
        small = m @ m.T if m.shape[0] < m.shape[1] else m.T @ m
        np.testing.assert_allclose(small, 2.25 * np.eye(len(small)), atol=1e-12)


def test_compute_fans():
    assert I.compute_fans(()) == (1, 1)
    assert I.compute_fans((7,)) == (7, 7)
    assert I.compute_fans((3, 5)) == (3, 5)
    assert I.compute_fans((3, 3, 4, 8)) == (36, 72)
    assert I.compute_fans((2, 3, 4), input_axes=[0, 1], output_axes=[2]) == (6, 4)


def test_bad_mode_and_distribution_messages():
    with pytest.raises(ValueError, match=r"^Invalid `mode` argument: x\. Please use one of \{"):
        I.VarianceScaling(mode="x")
    with pytest.raises(ValueError, match=r"^Invalid `distribution` argument: x\.Please use one of \{"):
        I.VarianceScaling(distribution="x")


def test_serialize_round_trip():
    for init in (I.HeUniform(seed=3), I.VarianceScaling(0.5, "fan_out", "uniform", seed=1), I.Constant(2.5),
                 I.Orthogonal(gain=2.0, seed=4), I.RandomNormal(1.0, 2.0, seed=5)):
        again = I.deserialize(I.serialize(init))
        assert type(again) is type(init) and again.get_config() == init.get_config()
        np.testing.assert_array_equal(again((3, 3)), init((3, 3)))
    for reg in (R.L1(0.25), R.L2(0.5), R.L1L2(0.1, 0.2), R.OrthogonalRegularizer(0.3, "columns")):
        again = R.get(R.serialize(reg))
        assert type(again) is type(reg) and again.get_config() == reg.get_config()


def test_keras_variable_takes_an_initializer():
    v = tf.keras.Variable(I.GlorotUniform(seed=1), shape=(3, 2), name="k")
    np.testing.assert_array_equal(v.value, I.GlorotUniform(seed=1)((3, 2)))


def test_regularizer_is_differentiable_twice():
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], dtype=tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = R.L1L2(0.1, 0.2)(w)
        g = inner.gradient(loss, w)
        s = tf.reduce_sum(g * g)
    np.testing.assert_allclose(g, 0.1 * np.sign(w.numpy()) + 0.4 * w.numpy())
    np.testing.assert_allclose(outer.gradient(s, w), 2 * 0.4 * (0.1 * np.sign(w.numpy()) + 0.4 * w.numpy()))

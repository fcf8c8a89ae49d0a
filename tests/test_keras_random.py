"""Unit checks of ``tf.keras.random`` and ``tf.keras.utils.set_random_seed`` beyond the golden files."""

import numpy as np

import tapeflow as tf


def test_random_same_seed_same_values_and_generator_advances():
    r = tf.keras.random
    assert np.array_equal(r.normal((5,), seed=3).numpy(), r.normal((5,), seed=3).numpy())
    gen = r.SeedGenerator(9)
    first, second = r.uniform((4,), seed=gen).numpy(), r.uniform((4,), seed=gen).numpy()
    assert not np.array_equal(first, second)
    assert gen.state.numpy().tolist() == [9, 2]


def test_set_random_seed_makes_unseeded_keras_random_reproducible():
    tf.keras.utils.set_random_seed(123)
    from tapeflow.keras import random as kr
    kr._GLOBAL.clear()
    a = kr.normal((6,)).numpy()
    tf.keras.utils.set_random_seed(123)
    kr._GLOBAL.clear()
    assert np.array_equal(a, kr.normal((6,)).numpy())


def test_truncated_normal_within_two_stddev():
    t = tf.keras.random.truncated_normal((2000,), mean=-1.0, stddev=2.0, seed=1).numpy()
    assert np.all(np.abs(t + 1.0) <= 4.0)

"""Unit checks for the Keras extras (Ftrl/Lion/Lamb/Adafactor, keras.random, utils) beyond the golden files."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("cls", ["Ftrl", "Lion", "Lamb", "Adafactor"])
def test_optimizer_reduces_quadratic(cls):
    opt = getattr(tf.keras.optimizers, cls)(learning_rate=0.05)
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
    start = float(tf.reduce_sum(w * w))
    for _ in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    assert float(tf.reduce_sum(w * w)) < start
    assert int(opt.iterations.numpy()) == 30


def test_adafactor_sparse_updates_only_gathered_rows():
    opt = tf.keras.optimizers.Adafactor(learning_rate=0.1)
    emb = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3) + 1.0)
    before = emb.numpy().copy()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(emb, [0, 2, 0]))
    opt.apply_gradients([(tape.gradient(loss, emb), emb)])
    after = emb.numpy()
    assert np.array_equal(after[[1, 3]], before[[1, 3]])
    assert not np.array_equal(after[[0, 2]], before[[0, 2]])


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


def test_metric_configs_round_trip():
    m = tf.keras.metrics
    for metric in (m.IoU(3, [0, 1]), m.MeanIoU(2), m.BinaryIoU(), m.OneHotMeanIoU(3), m.F1Score("macro"),
                   m.FBetaScore(beta=2.0), m.R2Score(), m.PearsonCorrelation(), m.ConcordanceCorrelation()):
        again = type(metric).from_config(metric.get_config())
        assert again.get_config() == metric.get_config()

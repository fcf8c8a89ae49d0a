"""Unit checks of the Keras optimizers Ftrl, Lion, Lamb and Adafactor beyond the golden files."""

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

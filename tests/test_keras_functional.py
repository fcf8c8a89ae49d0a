"""Functional API: symbolic calls record nodes, Model(inputs, outputs) replays them on tensors."""

import numpy as np
import pytest

import tapeflow as tf

k = tf.keras


def test_symbolic_call_and_replay_match_eager():
    k.backend.clear_session()
    a = k.Input((3,))
    d1, d2 = k.layers.Dense(4, activation="relu"), k.layers.Dense(2)
    out = d2(d1(a))
    assert isinstance(out, k.models.KerasTensor) and out.shape == (None, 2)
    m = k.Model(a, out)
    assert type(m).__name__ == "Functional" and isinstance(m, k.Model)
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(m(x).numpy(), d2(d1(x)).numpy(), rtol=1e-6)
    assert [layer.name for layer in m.layers] == ["input_layer", d1.name, d2.name]


def test_shared_layer_weights_counted_once_and_gradients_flow():
    k.backend.clear_session()
    a, b = k.Input((2,)), k.Input((2,))
    shared = k.layers.Dense(2)
    m = k.Model([a, b], k.layers.Add()([shared(a), shared(b)]))
    assert len(m.trainable_weights) == 2
    xs = [tf.constant(np.ones((3, 2), np.float32)), tf.constant(np.zeros((3, 2), np.float32))]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(xs))
    grads = tape.gradient(y, m.trainable_weights)
    assert all(g is not None for g in grads)
    np.testing.assert_allclose(grads[1].numpy(), [6.0, 6.0])


def test_multi_input_fit_and_predict():
    k.backend.clear_session()
    a, b = k.Input((3,)), k.Input((2,))
    m = k.Model([a, b], k.layers.Dense(1)(k.layers.Concatenate()([a, b])))
    m.compile("sgd", "mse")
    xa, xb = np.ones((6, 3), np.float32), np.ones((6, 2), np.float32)
    m.fit([xa, xb], np.zeros((6, 1), np.float32), epochs=1, verbose=0)
    assert m.predict([xa, xb], verbose=0).shape == (6, 1)


def test_disconnected_output_raises():
    k.backend.clear_session()
    a = k.Input((3,))
    out = k.layers.Dense(1)(k.Input((3,)))
    with pytest.raises(ValueError, match="Output with path `` is not connected to `inputs`"):
        k.Model(a, out)


def test_sequential_accepts_input_and_nests_in_functional():
    k.backend.clear_session()
    seq = k.Sequential([k.Input((3,)), k.layers.Dense(2)])
    assert seq.built and [layer.name for layer in seq.layers] == ["dense"]
    inner = k.Input((3,))
    f = k.Model(inner, k.layers.Dense(1)(seq(inner)))
    assert f.output_shape == (None, 1)
    assert f(np.ones((2, 3), np.float32)).shape == (2, 1)

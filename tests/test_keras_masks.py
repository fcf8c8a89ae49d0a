"""Keras masks, operators on KerasTensors and the *_on_batch methods: behaviour beyond the golden recordings."""

import gc

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import _masks

k = tf.keras


def test_mask_table_forgets_dead_tensors():
    k.backend.clear_session()
    e = k.layers.Embedding(5, 2, mask_zero=True)
    out = e(np.array([[1, 0]]))
    assert out._keras_mask.numpy().tolist() == [[True, False]]
    key = id(out)
    del out
    gc.collect()
    assert key not in _masks.TABLE


def test_mask_setter_and_reuse_of_ids():
    x = tf.constant([1.0, 2.0])
    x._keras_mask = tf.constant([True, False])
    assert x._keras_mask is not None
    x._keras_mask = None
    assert x._keras_mask is None
    assert tf.constant(1.0)._keras_mask is None


def test_explicit_mask_wins_over_carried_mask():
    k.backend.clear_session()
    x = tf.constant(np.ones((1, 3, 2), "float32"))
    x._keras_mask = tf.constant([[True, False, False]])
    pool = k.layers.GlobalAveragePooling1D()
    carried = pool(x * tf.constant([[[1.0], [3.0], [5.0]]]))  # a new tensor: no mask
    x2 = tf.constant([[[1.0, 1.0], [3.0, 3.0], [5.0, 5.0]]])
    x2._keras_mask = tf.constant([[True, False, False]])
    np.testing.assert_allclose(pool(x2).numpy(), [[1.0, 1.0]])
    np.testing.assert_allclose(pool(x2, mask=tf.constant([[True, True, False]])).numpy(), [[2.0, 2.0]])
    np.testing.assert_allclose(carried.numpy(), [[3.0, 3.0]])


def test_plain_layers_pay_no_mask_bookkeeping():
    k.backend.clear_session()
    d = k.layers.Dense(2)
    y = d(np.ones((2, 3), "float32"))
    assert y._keras_mask is None


def test_operator_model_trains_and_matches_eager_computation():
    k.backend.clear_session()
    a = k.Input((3,))
    b = k.Input((3,))
    y = k.layers.Dense(1, kernel_initializer="ones")((a - b) * 0.5 + a[:, :1])
    m = k.Model([a, b], y)
    xa = np.arange(6.0, dtype="float32").reshape(2, 3)
    xb = np.ones((2, 3), "float32")
    expected = ((xa - xb) * 0.5 + xa[:, :1]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(m.predict([xa, xb], verbose=0), expected, rtol=1e-6)
    assert [layer.name for layer in m.layers] == [m.layers[0].name, m.layers[1].name, "dense"]
    assert len(m.operations) == 7
    m.compile("sgd", "mse")
    before = m.get_weights()[0].copy()
    m.train_on_batch([xa, xb], np.zeros((2, 1), "float32"))
    assert not np.allclose(before, m.get_weights()[0])


def test_keras_tensor_refuses_python_conversions():
    a = k.Input((3,))
    with pytest.raises(TypeError, match="boolean"):
        bool(a)
    with pytest.raises(NotImplementedError):
        iter(a)
    with pytest.raises(ValueError, match="int"):
        int(a)
    with pytest.raises(ValueError, match="TensorFlow function"):
        tf.add(1.0, a)
    with pytest.raises(ValueError, match="TensorFlow function"):
        tf.stack([a, a])


def test_on_batch_returns_scalar_without_metrics_and_requires_compile():
    k.backend.clear_session()
    m = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    with pytest.raises(ValueError, match="compile"):
        m.train_on_batch(np.ones((2, 2)), np.ones((2, 1)))
    m.compile("sgd", "mse")
    loss = m.train_on_batch(np.ones((2, 2)), np.ones((2, 1)))
    assert isinstance(loss, float)
    assert set(m.test_on_batch(np.ones((2, 2)), np.ones((2, 1)), return_dict=True)) == {"loss"}
    assert isinstance(m.predict_on_batch(np.ones((2, 2))), np.ndarray)

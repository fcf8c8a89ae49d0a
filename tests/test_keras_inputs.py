"""tf.keras input handling: what layers and models do with the dtypes of their inputs, Keras's type promotion
lattice, class weights, and the cost of the input conversion on the usual call (golden cases in
``tests/golden/cases/keras_input_casting.py`` compare the same behaviour with TensorFlow's)."""

import itertools
import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import _dtypes
from tapeflow.keras.layers import base as layer_base
from tapeflow.keras.models import _data

k = tf.keras

_INTEGER_TYPES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
_X = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])


def _dense(dtype="float32"):
    return k.layers.Dense(2, kernel_initializer=k.initializers.Constant(0.25),
                          bias_initializer=k.initializers.Constant(0.5), dtype=dtype)


@pytest.mark.parametrize("int_type", _INTEGER_TYPES)
@pytest.mark.parametrize("layer_dtype", ["float16", "float32", "float64"])
def test_dense_promotes_every_integer_type_to_its_compute_dtype(int_type, layer_dtype):
    x = _X.astype(int_type)
    y = _dense(layer_dtype)(x)
    assert y.dtype.name == layer_dtype
    expected = x.astype(np.float64) @ np.full((4, 2), 0.25) + 0.5
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3)


@pytest.mark.parametrize("int_type", _INTEGER_TYPES)
def test_models_convert_every_integer_type_in_call_predict_fit_evaluate(int_type):
    k.backend.clear_session()
    x = _X.astype(int_type)
    seq = k.Sequential([k.Input((4,)), k.layers.Reshape((4, 1)), k.layers.Conv1D(1, 1, kernel_initializer="ones",
                                                                                   use_bias=False),
                        k.layers.Flatten()])
    expected = x.astype(np.float32)
    np.testing.assert_array_equal(seq(x).numpy(), expected)
    np.testing.assert_array_equal(seq.predict(x, verbose=0), expected)
    seq.compile(k.optimizers.SGD(0.0), "mse")
    assert seq.evaluate(x, expected, verbose=0) == 0.0
    assert seq.fit(x, expected, verbose=0).history["loss"] == [0.0]


def test_uint8_images_train_a_conv_model():
    k.backend.clear_session()
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(16, 6, 6, 1)).astype(np.uint8)
    labels = (images.reshape(16, -1).mean(axis=1) > 127).astype(np.int32)
    m = k.Sequential([k.Input((6, 6, 1)), k.layers.Conv2D(2, 3), k.layers.GlobalAveragePooling2D(),
                      k.layers.Dense(2)])
    m.compile(k.optimizers.SGD(1e-6), k.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = m.fit(images, labels, epochs=2, batch_size=4, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert m.predict(images, verbose=0).dtype == np.float32


def test_bare_conv2d_refuses_integers_as_keras_does():
    conv = k.layers.Conv2D(1, 2)
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type uint8"):
        conv(np.ones((1, 3, 3, 1), np.uint8))


def test_layers_that_keep_integers():
    x = _X.astype(np.int32)
    for layer in (k.layers.Flatten(), k.layers.Reshape((2, 2)), k.layers.Activation("relu"), k.layers.Dropout(0.5),
                  k.layers.Activation("linear")):
        assert layer(x).dtype == tf.int32
    ids = k.layers.Embedding(10, 3)(x)
    assert ids.dtype == tf.float32 and ids.shape == (2, 4, 3)


def test_embedding_takes_negative_indices_from_the_end():
    table = np.arange(12.0).reshape(4, 3)
    emb = k.layers.Embedding(4, 3, embeddings_initializer=k.initializers.Constant(table))
    np.testing.assert_array_equal(emb(np.array([[-1, 0, -4]])).numpy()[0], table[[3, 0, 0]])


def test_float_input_of_the_compute_dtype_reaches_call_unchanged():
    seen = []

    class Probe(k.layers.Layer):
        def call(self, x):
            seen.append(x)
            return x

    x = tf.constant(np.ones((2, 3), np.float32))
    Probe()(x)
    Probe()(x, training=True)
    assert seen[0] is x and seen[1] is x


def test_float_input_of_the_compute_dtype_costs_no_conversion(monkeypatch):
    calls = []
    original = layer_base.Layer._convert_input

    def counting(self, x, promote=False):
        calls.append(x)
        return original(self, x, promote)

    monkeypatch.setattr(layer_base.Layer, "_convert_input", counting)
    d = _dense()
    x = tf.constant(np.ones((2, 4), np.float32))
    d(x)
    d(x, training=False)
    assert calls == []
    d(np.ones((2, 4)))  # NumPy input: converted
    assert len(calls) == 1


def test_functional_models_keep_the_input_tensor_when_its_dtype_fits():
    k.backend.clear_session()
    seen = []

    class Probe(k.layers.Layer):
        def call(self, x):
            seen.append(x)
            return x

    i = k.Input((3,))
    m = k.Model(i, Probe()(i))
    seen.clear()
    x = tf.constant(np.ones((2, 3), np.float32))
    m(x)
    assert seen[0] is x
    m(np.ones((2, 3), np.int64))
    assert seen[1].dtype == tf.float32


def test_sequential_converts_to_its_input_dtype_not_the_compute_dtype():
    k.backend.clear_session()
    m = k.Sequential([k.Input((2,), dtype="int32"), k.layers.Embedding(5, 1,
                                                                       embeddings_initializer="ones")])
    assert m.input_dtype == "int32"
    assert m(np.array([[1.9, 3.2]])).shape == (1, 2, 1)


def test_keras_result_type_lattice():
    rt = _dtypes.result_type
    assert rt("uint8", "int8") == "int16"
    assert rt("uint16", "int16") == "int32"
    assert rt("uint32", "int32") == "int64"
    assert rt("uint64", "int64") == "float32"
    assert rt("int64", "float16") == "float16"
    assert rt("float16", "bfloat16") == "float32"
    assert rt("bool", "int8") == "int8"
    assert rt("int32", float) == "float32"
    assert rt("bfloat16", int) == "bfloat16"
    assert rt(int, float) == "float32"
    assert rt("uint64") == "uint32"
    assert rt() == "float32"
    assert rt(tf.int32, tf.float64) == "float64"
    assert k.backend.result_type("int32", "float16") == "float16"
    names = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
    for a, b in itertools.product(names, names):
        # symmetric, and an upper bound of both on the lattice
        assert rt(a, b) == rt(b, a)
        assert rt(a, rt(a, b)) == rt(a, b)


def test_class_weights_weigh_missing_classes_by_one():
    y = np.array([0, 1, 2, 1])
    np.testing.assert_array_equal(_data.class_weights(y, {0: 3.0}), [3.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(_data.class_weights(y.reshape(-1, 1), {}), [1.0] * 4)
    np.testing.assert_array_equal(_data.class_weights(np.eye(3)[y], {2: 0.5}), [1.0, 1.0, 0.5, 1.0])
    np.testing.assert_array_equal(_data.class_weights(np.array([0.4, 0.6, 1.5, 2.5]), {2: 2.0}), [1, 1, 2, 2])
    assert _data.class_weights(y, {0: 3}).dtype == np.float32
    with pytest.raises(TypeError):
        _data.class_weights(np.zeros((4, 2, 3)), {0: 1.0})
    with pytest.raises(AttributeError):
        _data.class_weights(y, [1.0, 2.0])


def test_class_weight_trains_the_missing_classes():
    k.backend.clear_session()
    x = np.eye(3, dtype=np.float32)
    y = np.array([0, 1, 2])
    m = k.Sequential([k.Input((3,)), k.layers.Dense(3, "softmax", kernel_initializer="zeros", use_bias=False)])
    m.compile(k.optimizers.SGD(1.0), "sparse_categorical_crossentropy")
    m.fit(x, y, class_weight={0: 1.0}, epochs=20, verbose=0)
    assert (m.predict(x, verbose=0).argmax(axis=1) == y).all()


def test_traced_batch_is_per_thread():
    results = {}

    def worker():
        results["other"] = layer_base.build_shape((5, 3))

    with layer_base.traced_batch(None):
        assert layer_base.build_shape((5, 3)) == (None, 3)
        assert layer_base.build_shape([(5, 3), (5, 2)]) == [(None, 3), (None, 2)]
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert results["other"] == (5, 3)
    assert layer_base.build_shape((5, 3)) == (5, 3)

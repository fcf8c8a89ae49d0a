"""tf.keras shape bookkeeping: Sequential models as functional graphs, unknown sizes kept unknown, the shapes layers
record when built, and what ``summary()`` shows from them (golden cases in ``tests/golden/cases/keras_shapes.py``
compare the same with TensorFlow's)."""

import warnings

import numpy as np
import pytest

import tapeflow as tf

k = tf.keras


def _rows(model):
    out = []
    model.summary(print_fn=out.append, line_length=90)
    return [line for line in out[0].splitlines() if line.startswith("│")]


def test_sequential_graph_does_not_duplicate_weights_or_layers():
    k.backend.clear_session()
    m = k.Sequential([k.Input((3,)), k.layers.Dense(4), k.layers.Dense(2)])
    assert [layer.name for layer in m.layers] == ["dense", "dense_1"]
    assert len(m.weights) == 4 and len(m.trainable_variables) == 4
    assert m.count_params() == 3 * 4 + 4 + 4 * 2 + 2
    assert [c["class_name"] for c in m.get_config()["layers"]] == ["InputLayer", "Dense", "Dense"]


@pytest.mark.parametrize("spatial", [(None, None), (None, 9), (7, None)])
def test_unknown_sizes_stay_unknown_through_convolutions(spatial):
    k.backend.clear_session()
    m = k.Sequential([k.Input((*spatial, 3)), k.layers.Conv2D(4, 3), k.layers.Conv2D(4, 3, strides=2),
                      k.layers.MaxPooling2D(), k.layers.Conv2D(2, 1)])
    h, w = spatial
    size = lambda n: None if n is None else ((n - 4) // 2 + 1) // 2  # noqa: E731
    assert m.output_shape == (None, size(h), size(w), 2)
    assert m.layers[0].output.dtype == "float32"
    assert m(np.ones((1, 20, 20, 3), np.float32)).shape == (1, 4, 4, 2)


def test_a_custom_layer_without_compute_output_shape_keeps_unknown_sizes():
    k.backend.clear_session()

    class Tiled(k.layers.Layer):
        def call(self, x):
            return tf.tile(x, [1, 2, 1])

    m = k.Sequential([k.Input((None, 3)), Tiled(), k.layers.Dense(2)])
    assert m.output_shape == (None, None, 2)
    fixed = k.Sequential([k.Input((4, 3)), Tiled()])
    assert fixed.output_shape == (None, 8, 3)


def test_a_nested_sequential_gives_the_input_shape():
    k.backend.clear_session()
    inner = k.Sequential([k.Input((None, 5)), k.layers.Dense(3)])
    outer = k.Sequential([inner, k.layers.Dense(1)])
    assert outer.built and outer.output_shape == (None, None, 1)


def test_subclassed_summary_shows_build_shapes_and_question_marks():
    k.backend.clear_session()

    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.inner = k.Sequential([k.Input((4,)), k.layers.Dense(3)])
            self.act = k.layers.Activation("relu")
            self.out = k.layers.Dense(2)

        def call(self, x):
            return self.out(self.act(self.inner(x)))

    net = Net()
    net(np.ones((5, 4), np.float32))
    shapes = [row.split("│")[2].strip() for row in _rows(net)]
    assert shapes == ["(None, 3)", "?", "(5, 2)"]


def test_a_build_calling_the_base_build_does_not_warn():
    class Custom(k.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = k.layers.Dense(2)

        def build(self, input_shape):
            self.inner.build(input_shape)
            super().build(input_shape)

        def call(self, x):
            return self.inner(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Custom()(np.ones((1, 3), np.float32))


def test_layer_input_and_output_are_the_first_symbolic_call():
    k.backend.clear_session()
    d = k.layers.Dense(2)
    with pytest.raises(AttributeError, match="has never been called"):
        _ = d.output
    a, b = k.Input((3,)), k.Input((5, 3))
    first, second = d(a), d(b)
    assert d.input is a and d.output is first and second.shape == (None, 5, 2)


def test_fit_builds_for_the_traced_batch_size():
    for n, batch, expected in [(8, 4, 4), (9, 4, None), (3, 32, None), (32, None, 32)]:
        k.backend.clear_session()
        m = k.Sequential([k.layers.Dense(1)])
        m.compile("sgd", "mse")
        m.fit(np.ones((n, 2)), np.ones((n, 1)), batch_size=batch, verbose=0)
        assert m.input_shape == (expected, 2)

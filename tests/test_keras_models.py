"""tf.keras models: Sequential/Model tracking, fit/evaluate/predict, callbacks, train_step, weight files."""

import numpy as np
import pytest

import tapeflow as tf

k = tf.keras


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def _model():
    k.backend.clear_session()
    m = k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="tanh"), k.layers.Dense(1)])
    m.compile(k.optimizers.SGD(0.05), "mse", metrics=["mae"])
    return m


def test_fit_reduces_loss_and_history_keys():
    x, y = _data()
    m = _model()
    h = m.fit(x, y, epochs=5, batch_size=16, verbose=0, validation_split=0.25)
    assert sorted(h.history) == ["loss", "mae", "val_loss", "val_mae"]
    assert h.history["loss"][-1] < h.history["loss"][0]
    assert h.epoch == list(range(5))
    loss, mae = m.evaluate(x, y, verbose=0)
    assert m.evaluate(x, y, verbose=0, return_dict=True) == pytest.approx({"loss": loss, "mae": mae})
    assert m.predict(x, batch_size=10, verbose=0).shape == (64, 1)


def test_callbacks_called_and_validation_data():
    x, y = _data()
    m = _model()
    seen = []

    class Spy(k.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append((epoch, sorted(logs)))

    m.fit(x, y, epochs=2, verbose=0, callbacks=[Spy()], validation_data=(x, y), shuffle=False)
    assert seen == [(0, ["loss", "mae", "val_loss", "val_mae"]), (1, ["loss", "mae", "val_loss", "val_mae"])]


def test_train_step_override():
    x, y = _data()

    class Custom(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

        def train_step(self, data):
            logs = super().train_step(data)
            return {**logs, "extra": 1.0}

    m = Custom()
    m.compile("sgd", "mse")
    h = m.fit(x, y, epochs=2, verbose=0)
    assert h.history["extra"] == [1.0, 1.0]
    assert [layer.name for layer in m.layers] == [m.dense.name]
    assert len(m.trainable_variables) == 2


def test_save_load_round_trip_and_mismatch(tmp_path):
    x, _ = _data()
    m = _model()
    path = tmp_path / "m.weights.h5"
    m.save_weights(path)
    before = m.predict(x, verbose=0)
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "r") as data:
        assert data["layers/dense/vars/0"].shape == (3, 4) and data["layers/dense_1/vars/1"].shape == (1,)
    m.set_weights([w + 1 for w in m.get_weights()])
    m.load_weights(path)
    np.testing.assert_allclose(m.predict(x, verbose=0), before)
    k.backend.clear_session()
    other = k.Sequential([k.Input((3,)), k.layers.Dense(5), k.layers.Dense(1)])
    old = other.get_weights()
    with pytest.raises(ValueError, match="shape of the target variable"):
        other.load_weights(path)
    for a, b in zip(old, other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="weights.h5"):
        m.save_weights(tmp_path / "m.npz")


def test_verbose_output(capsys):
    x, y = _data()
    m = _model()
    m.fit(x, y, epochs=1, batch_size=32, verbose=0)
    assert capsys.readouterr().out == ""
    m.fit(x, y, epochs=2, batch_size=32, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert lines[1].startswith("2/2 - ") and " - loss: " in lines[1] and " - mae: " in lines[1]
    m.fit(x, y, epochs=1, batch_size=32, verbose=1)
    out = capsys.readouterr().out
    assert "2/2" in out and "━" in out and "loss: " in out


def test_sequential_add_pop_and_deferred_build():
    k.backend.clear_session()
    m = k.Sequential()
    m.add(k.layers.Dense(2))
    assert not m.built
    out = m(np.ones((3, 5), np.float32))
    assert out.shape.as_list() == [3, 2] and m.built and m.count_params() == 12
    m.add(k.layers.Dense(1))
    assert m.pop().name == "dense_1"
    with pytest.raises(TypeError, match="no layers"):
        k.Sequential().pop()


def test_subclass_init_arguments_are_refused_as_keras_refuses_them():
    class Passing(tf.keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    with pytest.raises(TypeError, match=r"^Layer.__init__\(\) takes 1 positional argument but 2 were given$"):
        Passing(1)
    with pytest.raises(ValueError, match=r"^Unrecognized keyword arguments passed to Passing: \{'foo': 1\}$"):
        Passing(foo=1)

"""Keras 3 files both ways with TensorFlow 2.21: ``.keras``, ``.weights.h5``, Keras 2 ``.h5``, and object configs.

The fixtures in tests/fixtures/keras_files/ were written by TensorFlow (tools/record_keras_files.py, which also
loads tapeflow's files in TensorFlow in its ``check`` mode); tests/keras_files_writer.py builds the same models
with tapeflow.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import sys
import zipfile

import numpy as np
import pytest

import tapeflow as tf

h5py = pytest.importorskip("h5py")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_files_writer  # noqa: E402

K = tf.keras
L = K.layers
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "keras_files")
EXPECTED = dict(np.load(os.path.join(FIXTURES, "expected.npz")))
MODELS = ["seq_dense", "func_cnn", "func_rnn", "func_multi", "seq_dropout", "func_nested", "seq_norm"]
RECORDER = keras_files_writer.recorder()
RECORDER._scale_layer(K)  # registers the custom layer "tapeflow_test>Scale" with tapeflow


def _x(name):
    if f"{name}/x0" in EXPECTED:
        return [EXPECTED[f"{name}/x0"], EXPECTED[f"{name}/x1"]]
    return EXPECTED[f"{name}/x"]


def _fixture(name):
    return os.path.join(FIXTURES, name)


# --- files written by TensorFlow ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_tf_keras_files_load_and_predict_the_same(name):
    model = K.models.load_model(_fixture(f"{name}.keras"))
    np.testing.assert_allclose(model.predict(_x(name), verbose=0), EXPECTED[f"{name}/y"], atol=1e-5)


@pytest.mark.parametrize("name", [m for m in MODELS if m != "seq_dropout"])
def test_tf_keras_files_restore_the_optimizer_and_continue_training_to_the_same_numbers(name):
    model = K.models.load_model(_fixture(f"{name}.keras"))
    _, x, y = keras_files_writer.models(K)[name]
    history = model.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(history, EXPECTED[f"{name}/losses"], rtol=1e-5)


@pytest.mark.parametrize("name", ["seq_dense"])
def test_tf_weights_files_load_into_the_same_architecture(name):
    model, _, _ = keras_files_writer.models(K)[name]
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
        model.load_weights(_fixture(f"{name}.weights.h5"))  # (an unbuilt optimizer is skipped, as in Keras)
    np.testing.assert_allclose(model.predict(_x(name), verbose=0), EXPECTED[f"{name}/y"], atol=1e-5)


def test_legacy_h5_model_files_load_compiled():
    model = K.models.load_model(_fixture("legacy_dense.h5"))
    np.testing.assert_allclose(model.predict(_x("seq_dense"), verbose=0), EXPECTED["seq_dense/y"], atol=1e-5)
    assert isinstance(model.optimizer, K.optimizers.RMSprop) and model.loss == "mse"
    fresh, _, _ = keras_files_writer.models(K)["seq_dense"]
    fresh.load_weights(_fixture("legacy_dense.h5"))
    np.testing.assert_allclose(fresh.predict(_x("seq_dense"), verbose=0), EXPECTED["seq_dense/y"], atol=1e-5)


def test_keras2_layer_configs_are_translated():
    config = {"class_name": "Sequential", "config": {"name": "old", "layers": [
        {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [None, 3],
                                            "dtype": "float32", "kernel_initializer": {"class_name": "GlorotUniform",
                                                                                       "config": {"seed": None}}}},
        {"class_name": "Embedding", "config": {"name": "e", "input_dim": 4, "output_dim": 2, "input_length": 2}}]}}
    from tapeflow.keras.saving.legacy_h5 import layer_from_legacy_config

    with pytest.warns(UserWarning, match="input_shape"):
        model = layer_from_legacy_config(config)
    assert model.built and model.layers[1].input_dim == 4


# --- tapeflow's files against the format ----------------------------------------------------------------------
def _layout(data):
    """``{path: (shape, dtype)}`` of datasets and ``{path: name}`` of groups holding them."""
    out = {}
    with h5py.File(io.BytesIO(data), "r") as f:
        def visit(path, obj):
            if isinstance(obj, h5py.Dataset):
                out[path] = (obj.shape, obj.dtype.str)
                out[path.rsplit("/", 1)[0]] = obj.parent.attrs.get("name")
        f.visititems(visit)
    return out


def _skeleton(value, ignore=("shared_object_id", "inbound_nodes", "module")):
    """The keys of nested dicts (values of plain types by type): the layout a config follows."""
    if isinstance(value, dict):
        return {k: _skeleton(v) for k, v in value.items() if k not in ignore}
    if isinstance(value, list):
        return [_skeleton(v) for v in value]
    return type(value).__name__ if value is not None else None


@pytest.fixture(scope="module")
def tapeflow_files(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("tapeflow_keras_files"))
    keras_files_writer.write_models(K, directory)
    return directory


@pytest.mark.parametrize("name", MODELS)
def test_tapeflow_keras_files_follow_the_layout_tensorflow_writes(tapeflow_files, name):
    ours = zipfile.ZipFile(os.path.join(tapeflow_files, f"{name}.keras"))
    theirs = zipfile.ZipFile(_fixture(f"{name}.keras"))
    assert ours.namelist() == theirs.namelist() == ["metadata.json", "config.json", "model.weights.h5"]
    assert all(info.compress_type == zipfile.ZIP_STORED for info in ours.infolist())
    assert json.loads(ours.read("metadata.json")).keys() == json.loads(theirs.read("metadata.json")).keys()
    config, reference = json.loads(ours.read("config.json")), json.loads(theirs.read("config.json"))
    assert _skeleton(config) == _skeleton(reference)
    if not name.startswith("seq"):  # the graph: the last layer's call (TF adds call-context kwargs elsewhere)
        for ours_layer, their_layer in zip(config["config"]["layers"], reference["config"]["layers"]):
            assert [n["args"] for n in ours_layer["inbound_nodes"]] == [n["args"] for n in their_layer["inbound_nodes"]]
        assert config["config"]["input_layers"] == reference["config"]["input_layers"]
        assert config["config"]["output_layers"] == reference["config"]["output_layers"]
    for key in ("module", "class_name", "registered_name"):
        assert config[key] == reference[key]
    ours_h5, theirs_h5 = _layout(ours.read("model.weights.h5")), _layout(theirs.read("model.weights.h5"))
    assert ours_h5 == theirs_h5
    assert any(path.startswith("optimizer/vars") for path in ours_h5)


def test_tapeflow_weights_files_follow_the_layout_tensorflow_writes(tapeflow_files):
    for name in ("seq_dense",):
        with open(os.path.join(tapeflow_files, f"{name}.weights.h5"), "rb") as f:
            ours = _layout(f.read())
        with open(_fixture(f"{name}.weights.h5"), "rb") as f:
            assert ours == _layout(f.read())
        assert "layers/dense/vars/0" in ours


def _legacy_layout(path):
    with h5py.File(path, "r") as f:
        weights = f["model_weights"]
        out = {"attrs": sorted(f.attrs), "weights_attrs": sorted(weights.attrs),
               "layer_names": list(weights.attrs["layer_names"]), "optimizer": "optimizer_weights" in f}
        for name in weights:
            names = list(weights[name].attrs["weight_names"])
            out[name] = [weights[name][n].shape for n in names]
        config = json.loads(f.attrs["model_config"])
        out["config"] = _skeleton(config)
        out["training"] = sorted(json.loads(f.attrs["training_config"]))
    return out


def test_tapeflow_legacy_h5_files_follow_the_layout_tensorflow_writes(tapeflow_files):
    ours = _legacy_layout(os.path.join(tapeflow_files, "legacy_dense.h5"))
    assert ours == _legacy_layout(_fixture("legacy_dense.h5"))


def test_legacy_h5_files_round_trip_with_the_optimizer_state(tmp_path):
    model, x, y = keras_files_writer.models(K)["func_multi"]
    model.fit(x, y, epochs=1, batch_size=len(y), shuffle=False, verbose=0)
    with pytest.warns(UserWarning, match="This file format is considered legacy"):
        model.save(tmp_path / "m.h5")
    loaded = K.models.load_model(tmp_path / "m.h5")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(loaded.optimizer.iterations.numpy()) == 1
    a = model.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history["loss"]
    b = loaded.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history["loss"]
    assert a == b


@pytest.mark.parametrize("name", MODELS)
def test_tapeflow_files_load_back_in_tapeflow(tapeflow_files, name):
    data = np.load(os.path.join(tapeflow_files, "data.npz"))
    xs = [data[k] for k in sorted(data.files) if k.startswith(f"{name}/x")]
    model = K.models.load_model(os.path.join(tapeflow_files, f"{name}.keras"))
    np.testing.assert_allclose(model.predict(xs if len(xs) > 1 else xs[0], verbose=0), data[f"{name}/y"],
                               atol=1e-6)
    rebuilt = K.models.model_from_json(open(os.path.join(tapeflow_files, f"{name}.json")).read())
    rebuilt.load_weights(os.path.join(tapeflow_files, f"{name}.weights.h5"))
    np.testing.assert_allclose(rebuilt.predict(xs if len(xs) > 1 else xs[0], verbose=0), data[f"{name}/y"],
                               atol=1e-6)


# --- configs ---------------------------------------------------------------------------------------------------
SPECS = json.load(open(_fixture("config_specs.json")))
KERAS_CONFIGS = json.load(open(_fixture("configs.json")))
NAMESPACES = {"layers": K.layers, "losses": K.losses, "metrics": K.metrics, "optimizers": K.optimizers,
              "optimizers.schedules": K.optimizers.schedules, "initializers": K.initializers,
              "regularizers": K.regularizers}


def _build(namespace, class_name, kwargs):
    args = {}
    for key, value in kwargs.items():
        if isinstance(value, dict) and "__object__" in value:
            inner_ns, inner_cls = value["__object__"].rsplit(".", 1)
            value = _build(inner_ns, inner_cls, value.get("kwargs", {}))
        args[key] = value
    return getattr(NAMESPACES[namespace], class_name)(**args)


def _public_classes():
    for namespace, module in NAMESPACES.items():
        for name in getattr(module, "__all__", dir(module)):
            if inspect.isclass(getattr(module, name, None)):
                yield namespace, name


def test_every_public_class_has_a_config_spec():
    missing = [f"{ns}.{name}" for ns, name in _public_classes() if name not in SPECS.get(ns, {})]
    assert not missing, f"add these classes to config_specs.json and re-record: {missing}"


CASES = [(ns, name) for ns, name in _public_classes() if "__skip__" not in SPECS.get(ns, {}).get(name, {"__skip__": 1})]


@pytest.mark.parametrize("namespace,class_name", CASES)
def test_configs_equal_the_ones_keras_writes(namespace, class_name):
    obj = _build(namespace, class_name, SPECS[namespace][class_name])
    config = json.loads(json.dumps(K.saving.serialize_keras_object(obj)))
    assert config == KERAS_CONFIGS[f"{namespace}.{class_name}"]


@pytest.mark.parametrize("namespace,class_name", CASES)
def test_get_config_from_config_round_trip(namespace, class_name):
    obj = _build(namespace, class_name, SPECS[namespace][class_name])
    config = K.saving.serialize_keras_object(obj)
    clone = K.saving.deserialize_keras_object(json.loads(json.dumps(config)))
    assert type(clone) is type(obj)
    assert json.loads(json.dumps(K.saving.serialize_keras_object(clone))) == json.loads(json.dumps(config))


def test_lambda_layers_save_functions_by_name(tmp_path):
    def double(x):
        return x * 2

    inp = K.Input((2,))
    model = K.Model(inp, L.Lambda(double)(inp))
    config = json.loads(model.to_json())
    assert config["config"]["layers"][1]["config"]["function"]["config"] == "double"
    clone = K.models.model_from_json(model.to_json(), custom_objects={"double": double})
    np.testing.assert_allclose(clone.predict(np.ones((1, 2)), verbose=0), [[2.0, 2.0]])


# --- round trips in tapeflow ----------------------------------------------------------------------------------
@K.saving.register_keras_serializable(package="tests")
class Residual(K.Model):
    """A subclassed model with a config of its own (constructor arguments)."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = L.Dense(units, activation="relu")
        self.blocks = [L.Dense(units), L.LayerNormalization()]

    def call(self, x):
        return self.blocks[1](self.blocks[0](self.inner(x)) + x)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_subclassed_models_save_their_config_and_state(tmp_path):
    x = np.random.RandomState(0).rand(4, 3).astype("float32")
    model = Residual(3)
    model.compile(K.optimizers.Adam(0.05), "mse")
    model.fit(x, x, epochs=1, shuffle=False, verbose=0)
    path = tmp_path / "r.keras"
    model.save(path)
    loaded = K.models.load_model(path)
    assert type(loaded) is Residual and loaded.units == 3
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    with h5py.File(io.BytesIO(zipfile.ZipFile(path).read("model.weights.h5")), "r") as f:
        assert {"blocks/dense/vars/0", "blocks/layer_normalization/vars/1", "inner/vars/1", "optimizer/vars/2"} \
            <= set(_layout_paths(f))
    a = model.fit(x, x, epochs=2, shuffle=False, verbose=0).history["loss"]
    b = loaded.fit(x, x, epochs=2, shuffle=False, verbose=0).history["loss"]
    assert a == b


def _layout_paths(f):
    paths = []
    f.visit(paths.append)
    return paths


def test_subclassed_models_without_a_config_fail_as_in_keras(tmp_path):
    class Holder(K.Model):
        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def call(self, x):
            return self.layer(x)

    model = Holder(L.Dense(2))
    model(np.ones((1, 3)))
    with pytest.raises(NotImplementedError, match="must override `get_config\\(\\)`"):
        model.save(tmp_path / "h.keras")
    assert not (tmp_path / "h.keras").exists()

    class Plain(K.Model):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.d = L.Dense(units)

        def call(self, x):
            return self.d(x)

    plain = Plain(units=4)
    plain(np.ones((1, 3)))
    plain.save(tmp_path / "p.keras")
    config = json.loads(zipfile.ZipFile(tmp_path / "p.keras").read("config.json"))
    assert config["config"]["units"] == 4 and config["registered_name"] == "Plain"
    with pytest.raises(TypeError, match="Could not locate class 'Plain'"):
        K.models.load_model(tmp_path / "p.keras")
    loaded = K.models.load_model(tmp_path / "p.keras", custom_objects={"Plain": Plain})
    np.testing.assert_array_equal(loaded.predict(np.ones((1, 3)), verbose=0), plain.predict(np.ones((1, 3)), verbose=0))
    with K.saving.custom_object_scope({"Plain": Plain}):
        assert isinstance(K.models.load_model(tmp_path / "p.keras"), Plain)


def test_custom_layers_get_keras_auto_config():
    class Scaled(L.Layer):
        def __init__(self, factor, mode="x", **kwargs):
            super().__init__(**kwargs)
            self.factor, self.mode = factor, mode

    config = Scaled(2.5, name="s").get_config()
    assert config["factor"] == 2.5 and config["mode"] == "x" and config["name"] == "s"
    assert Scaled.from_config(config).factor == 2.5
    with pytest.raises(NotImplementedError, match="non-serializable argument"):
        Scaled(np.ones(2)).get_config()


def test_to_json_and_model_from_json_rebuild_functional_graphs():
    a, b = K.Input((4,), name="a"), K.Input((2,), name="b")
    shared = L.Dense(2, name="shared")
    h = L.Concatenate()([shared(a), b])
    model = K.Model({"a": a, "b": b}, {"out": L.Dense(1, name="out")(h), "side": shared(a)})
    clone = K.models.model_from_json(model.to_json())
    clone.set_weights(model.get_weights())
    data = {"a": np.ones((2, 4), "float32"), "b": np.ones((2, 2), "float32")}
    got, want = clone.predict(data, verbose=0), model.predict(data, verbose=0)
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop", "adagrad", "adamw", "nadam", "adamax", "ftrl",
                                       "lion", "adadelta"])
def test_every_optimizer_state_survives_a_save(tmp_path, optimizer):
    rng = np.random.RandomState(1)
    x, y = rng.rand(8, 3).astype("float32"), rng.rand(8, 1).astype("float32")
    model = K.Sequential([K.Input((3,)), L.Dense(4, activation="tanh"), L.Dense(1)])
    model.compile(optimizer, "mse")
    model.fit(x, y, epochs=2, shuffle=False, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = K.models.load_model(tmp_path / "m.keras")
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    a = model.fit(x, y, epochs=2, shuffle=False, verbose=0).history["loss"]
    b = loaded.fit(x, y, epochs=2, shuffle=False, verbose=0).history["loss"]
    assert a == b
    assert K.models.load_model(tmp_path / "m.keras", compile=False).optimizer is None


def test_schedules_and_metrics_in_compile_configs(tmp_path):
    schedule = K.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    model = K.Sequential([K.Input((2,)), L.Dense(1)])
    loss = K.losses.BinaryCrossentropy(label_smoothing=0.25)
    model.compile(K.optimizers.SGD(schedule), loss, metrics=["mae", K.metrics.RootMeanSquaredError()])
    model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = K.models.load_model(tmp_path / "m.keras")
    lr = loaded.optimizer.get_config()["learning_rate"]
    assert lr["class_name"] == "ExponentialDecay" and lr["config"]["decay_rate"] == 0.5
    assert isinstance(loaded.loss, K.losses.BinaryCrossentropy) and loaded.loss.get_config()["label_smoothing"] == 0.25
    logs = loaded.evaluate(np.ones((4, 2)), np.ones((4, 1)), verbose=0, return_dict=True)
    assert set(logs) == {"loss", "mae", "root_mean_squared_error"}


# --- bad input and no data lost --------------------------------------------------------------------------------
def _small():
    model = K.Sequential([K.Input((3,)), L.Dense(2), L.BatchNormalization()])
    model.compile("adam", "mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    return model


def _unchanged(model, before):
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_damaged_keras_archives_raise_errors_naming_the_file(tmp_path):
    path = tmp_path / "m.keras"
    _small().save(path)
    data = path.read_bytes()
    for n in (0, 10, len(data) // 2, len(data) - 10):
        path.write_bytes(data[:n])
        with pytest.raises((zipfile.BadZipFile, ValueError, OSError)) as info:
            K.models.load_model(path)
        assert str(path) in str(info.value)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}

    def rewrite(**changes):
        with zipfile.ZipFile(path, "w") as zf:
            for name, content in {**members, **changes}.items():
                if content is not None:
                    zf.writestr(name, content)

    rewrite(**{"model.weights.h5": b"not hdf5"})
    with pytest.raises(OSError, match="m.keras"):
        K.models.load_model(path)
    rewrite(**{"config.json": None})
    with pytest.raises(ValueError, match="no config.json"):
        K.models.load_model(path)
    rewrite(**{"config.json": b"{not json"})
    with pytest.raises(ValueError, match="config.json of .*m.keras is not valid JSON"):
        K.models.load_model(path)
    rewrite(**{"metadata.json": json.dumps({"keras_version": "4.0.0"}).encode()})
    with pytest.raises(ValueError, match="saved by Keras 4.0.0, a newer format version"):
        K.models.load_model(path)
    config = json.loads(members["config.json"])
    config["config"]["layers"][1]["class_name"] = "Nonexistent"
    rewrite(**{"config.json": json.dumps(config).encode()})
    with pytest.raises(TypeError, match="Could not locate class 'Nonexistent'(.|\n)*m.keras"):
        K.models.load_model(path)


def test_mismatched_weights_raise_naming_the_file_and_layer_and_change_nothing(tmp_path):
    path = tmp_path / "m.weights.h5"
    _small().save_weights(path)
    other = K.Sequential([K.Input((3,)), L.Dense(2), L.Dense(2)])
    before = other.get_weights()
    with pytest.raises(ValueError, match="Layer 'dense_\\d+' expected 2 variables, but received 0") as info:
        other.load_weights(path)
    assert str(path) in str(info.value)
    _unchanged(other, before)
    wider = K.Sequential([K.Input((3,)), L.Dense(5), L.BatchNormalization()])
    before = wider.get_weights()
    with pytest.raises(ValueError, match="variable.shape=\\(3, 5\\), Received: value.shape=\\(3, 2\\)"):
        wider.load_weights(path)
    _unchanged(wider, before)
    with pytest.warns(UserWarning, match="Skipping loading weights for layer"):
        wider.load_weights(path, skip_mismatch=True)
    with pytest.raises(ValueError, match="File format not supported"):
        wider.load_weights(tmp_path / "m.npz")
    with pytest.raises(FileNotFoundError):
        wider.load_weights(tmp_path / "missing.weights.h5")
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        wider.save_weights(tmp_path / "m.h5")
    with pytest.raises(ValueError, match="Invalid filepath extension"):
        wider.save(tmp_path / "m.txt")


def test_a_save_interrupted_by_a_crash_leaves_the_previous_file_loadable(tmp_path, monkeypatch):
    path = tmp_path / "m.keras"
    model = _small()
    model.save(path)
    before = path.read_bytes()
    from tapeflow._core import checkpoint_io

    def crash(target, write):
        def partial(f):
            f.write(b"PK\x03\x04 half a file")
            raise KeyboardInterrupt("killed mid-write")
        return real(target, partial)

    real = checkpoint_io.atomic_write
    monkeypatch.setattr(checkpoint_io, "atomic_write", crash)
    with pytest.raises(KeyboardInterrupt):
        model.save(path)
    with pytest.raises(KeyboardInterrupt):
        model.save_weights(tmp_path / "w.weights.h5")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.keras"]
    K.models.load_model(path)


def test_without_h5py_the_files_name_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"pip install 'tapeflow\[h5\]'"):
        _small().save(tmp_path / "m.keras")
    assert not (tmp_path / "m.keras").exists()


def test_loss_scale_optimizers_store_their_inner_optimizer_as_keras_does(tmp_path):
    K.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = K.Sequential([K.Input((3,)), L.Dense(2)])
        model.compile("sgd", "mse")
        model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
        model.save_weights(tmp_path / "m.weights.h5")
    finally:
        K.mixed_precision.set_global_policy("float32")
    with h5py.File(tmp_path / "m.weights.h5", "r") as f:
        assert len(f["optimizer/vars"]) == 6 and len(f["optimizer/inner_optimizer/vars"]) == 2
        assert f["optimizer/inner_optimizer/vars"].attrs["name"].startswith("sgd")


def test_decompression_bombs_in_keras_archives_are_refused_before_they_inflate(tmp_path):
    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("config.json", b"{}")
        zf.writestr("model.weights.h5", b"\0" * (64 << 20))
    assert path.stat().st_size < 1 << 20
    with pytest.raises(ValueError, match="model.weights.h5 of .*bomb.keras declares 67108864 bytes"):
        K.models.load_model(path)


def test_object_configs_are_also_in_keras_utils():
    config = K.utils.serialize_keras_object(L.Dense(2, name="d"))
    assert config["module"] == "keras.layers" and K.utils.deserialize_keras_object(config).units == 2


def test_load_weights_reads_keras_archives_and_keras_own_quirks_of_paths(tmp_path):
    class Sub(K.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.zz = L.Dense(2)
            self.aa = L.Dense(3)

        def call(self, x):
            return self.zz(self.aa(x))

    model = Sub()
    model(np.ones((1, 4)))
    model.save_weights(tmp_path / "s.weights.h5")
    with h5py.File(tmp_path / "s.weights.h5", "r") as f:
        # Keras walks a subclassed model's `layers` property before attributes sorting after it (as TF writes)
        assert sorted(_layout_paths(f)) == ["aa", "aa/vars", "aa/vars/0", "aa/vars/1", "layers", "layers/dense",
                                            "layers/dense/vars", "layers/dense/vars/0", "layers/dense/vars/1", "vars"]
    seq = _small()
    seq.save(tmp_path / "m.keras")
    other = _small()
    other.load_weights(tmp_path / "m.keras")
    _unchanged(other, seq.get_weights())


def test_lookup_vocabularies_travel_as_archive_assets(tapeflow_files):
    x = [EXPECTED["lookups/x0"], EXPECTED["lookups/x1"]]
    model = K.models.load_model(_fixture("lookups.keras"))
    for got, i in zip(model.predict(x, verbose=0), range(2)):
        np.testing.assert_array_equal(got, EXPECTED[f"lookups/y{i}"])
    ours = zipfile.ZipFile(os.path.join(tapeflow_files, "lookups.keras"))
    theirs = zipfile.ZipFile(_fixture("lookups.keras"))
    assert sorted(ours.namelist()) == sorted(theirs.namelist())
    assets = [n for n in theirs.namelist() if n.startswith("assets/")]
    assert "assets/layers/string_lookup/vocabulary.txt" in assets
    for name in assets:
        assert ours.read(name) == theirs.read(name)


def test_an_adapted_tf_idf_vocabulary_is_refused_with_the_reason(tmp_path):
    layer = L.StringLookup(output_mode="tf_idf")
    layer.adapt(np.array(["a", "b", "b"]))
    inp = K.Input((1,), dtype="string")
    model = K.Model(inp, layer(inp))
    with pytest.raises(ValueError, match="does not store its idf weights"):
        model.save(tmp_path / "m.keras")
    assert not (tmp_path / "m.keras").exists()


def test_function_initializers_are_written_as_keras_writes_functions(tmp_path):
    # Keras 3 in TF 2.21: {'module': 'builtins', 'class_name': 'function', 'config': <name>,
    # 'registered_name': 'function'}; a registered function loads back, any other is Keras's TypeError.
    @tf.keras.saving.register_keras_serializable(package="Tests")
    def ones_init(shape, dtype=None):
        return tf.ones(shape, dtype)

    def plain_init(shape, dtype=None):
        return tf.ones(shape, dtype)

    assert tf.keras.layers.Dense(1, kernel_initializer=plain_init).get_config()["kernel_initializer"] == {
        "module": "builtins", "class_name": "function", "config": "plain_init", "registered_name": "function"}
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer=ones_init)])
    model.save(tmp_path / "registered.keras")
    assert tf.keras.models.load_model(tmp_path / "registered.keras").layers[0].kernel_initializer is ones_init
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer=plain_init)])
    model.save(tmp_path / "plain.keras")
    with pytest.raises(TypeError, match="could not be deserialized properly"):
        tf.keras.models.load_model(tmp_path / "plain.keras")

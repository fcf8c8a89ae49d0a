"""Record Keras 3 files written by TensorFlow 2.21 (fixtures of tests/test_keras_saving.py), and check that
TensorFlow loads the files tapeflow writes.

    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tools/record_keras_files.py            # record the fixtures
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tools/record_keras_files.py check DIR  # load tapeflow's files

``record`` builds small models with TensorFlow's Keras, trains each a step, and writes into
tests/fixtures/keras_files/: ``<name>.keras``, ``<name>.weights.h5`` (for one of them), a Keras 2 style
``legacy_dense.h5``, and
``expected.npz`` holding, per model, its input (``<name>/x``), its predictions (``<name>/y``) and the losses of two
more epochs of training after reloading (``<name>/losses``: the optimizer state continues; not compared for
``seq_dropout``, whose masks are random). ``configs.json`` holds
Keras's ``serialize_keras_object`` of every class listed in ``config_specs.json``.

``check DIR`` reads DIR/manifest.json (written by tests/keras_files_writer.py with tapeflow: file names, inputs and
tapeflow's predictions), loads each file with TensorFlow and compares predictions; it prints one verdict line per
file and exits non-zero on any difference beyond 1e-5.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "keras_files")
# The models whose ``.weights.h5`` file is recorded too (the others' would repeat their ``.keras`` file's weights).
WEIGHTS_FILES = ("seq_dense",)


def _keras():
    import keras
    import tensorflow as tf

    tf.random.set_seed(0)
    keras.utils.set_random_seed(0)
    return keras


def _scale_layer(keras):
    @keras.saving.register_keras_serializable(package="tapeflow_test", name="Scale")
    class Scale(keras.layers.Layer):
        """A custom layer with one weight and one argument (found by its registered name when loading)."""

        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x):
            return x * self.w * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    return Scale


def _models(keras):
    """``{name: (model, x, y)}``: tiny compiled models covering the layer families."""
    L = keras.layers
    rng = np.random.RandomState(0)
    out = {}
    m = keras.Sequential([keras.Input((4,)), L.Dense(8, activation="relu"), L.BatchNormalization(), L.Dense(3)],
                         name="seq")
    m.compile(optimizer=keras.optimizers.RMSprop(0.01), loss="mse", metrics=["mae"])
    out["seq_dense"] = (m, rng.rand(6, 4).astype("float32"), rng.rand(6, 3).astype("float32"))

    inp = keras.Input((8, 8, 2))
    h = L.Conv2D(4, 3, activation="relu")(inp)
    h = L.MaxPooling2D()(h)
    h = L.AveragePooling2D(2, padding="same")(h)
    h = L.Flatten()(h)
    h = L.LayerNormalization()(h)
    m = keras.Model(inp, L.Dense(2, activation="softmax")(h), name="cnn")
    m.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9), loss="categorical_crossentropy",
              metrics=["accuracy"])
    out["func_cnn"] = (m, rng.rand(4, 8, 8, 2).astype("float32"), np.eye(2, dtype="float32")[[0, 1, 1, 0]])

    inp = keras.Input((6,), dtype="int32")
    h = L.Embedding(10, 4)(inp)
    h = L.LSTM(3, return_sequences=True)(h)
    h = L.GRU(3, return_sequences=True)(h)
    h = L.SimpleRNN(3, return_sequences=True)(h)
    h = L.MultiHeadAttention(2, 2)(h, h)
    h = L.GlobalAveragePooling1D()(h)
    m = keras.Model(inp, L.Dense(1)(h), name="rnn")
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    out["func_rnn"] = (m, rng.randint(0, 10, (4, 6)).astype("int32"), rng.rand(4, 1).astype("float32"))

    # Dropout draws different masks in TensorFlow and tapeflow: this model's continued training is not compared.
    m = keras.Sequential([keras.Input((3,)), L.Dropout(0.5), L.Dense(2)], name="dropout")
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    out["seq_dropout"] = (m, rng.rand(4, 3).astype("float32"), rng.rand(4, 2).astype("float32"))

    Scale = _scale_layer(keras)
    a, b = keras.Input((5, 3), name="a"), keras.Input((2,), name="b")
    h = L.Conv1D(4, 2)(a)
    h = L.MaxPooling1D()(h)
    h = L.GlobalMaxPooling1D()(h)
    h = L.Concatenate()([h, Scale(3.0)(b)])
    m = keras.Model([a, b], L.Dense(2)(h), name="multi")
    m.compile(optimizer=keras.optimizers.Adagrad(0.1), loss="mae")
    x = [rng.rand(3, 5, 3).astype("float32"), rng.rand(3, 2).astype("float32")]
    out["func_multi"] = (m, x, rng.rand(3, 2).astype("float32"))

    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, L.Dense(3, activation="tanh")(inner_in), name="inner")
    stack = keras.Sequential([keras.Input((3,)), L.Dense(2)], name="stack")
    inp = keras.Input((4,))
    m = keras.Model(inp, stack(inner(inp)), name="nested")
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    out["func_nested"] = (m, rng.rand(4, 4).astype("float32"), rng.rand(4, 2).astype("float32"))

    x = rng.rand(5, 3).astype("float32")
    norm = L.Normalization()
    norm.adapt(x)  # (its state: the adapted mean, variance and count)
    m = keras.Sequential([keras.Input((3,)), norm, L.Dense(1)], name="norm")
    m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    out["seq_norm"] = (m, x, rng.rand(5, 1).astype("float32"))
    return out


def lookup_model(keras):
    """An uncompiled model of adapted lookup layers (their vocabularies are assets of the archive) and its input."""
    L = keras.layers
    words = np.array(["b", "a", "b", "c", "c", "c"])
    lookup = L.StringLookup()
    lookup.adapt(words)
    text = L.TextVectorization(output_sequence_length=3)
    text.adapt(np.array(["hello world", "hello there", "there there"]))
    a, b = keras.Input((1,), dtype="string", name="word"), keras.Input((1,), dtype="string", name="text")
    model = keras.Model([a, b], [lookup(a), text(b)], name="lookups")
    return model, [np.array([["a"], ["c"], ["zz"]]), np.array([["hello there"], ["world x"], ["there"]])]


def _run(model, x):
    """Predictions; string inputs go in as tensors (TensorFlow's ``predict`` refuses NumPy string arrays)."""
    if isinstance(x, list) and x[0].dtype.kind == "U":
        import tensorflow as tf

        return [np.asarray(y) for y in model([tf.constant(v) for v in x])]
    return model.predict(x, verbose=0)


def _flat_x(name, x):
    return {f"{name}/x{i}": v for i, v in enumerate(x)} if isinstance(x, list) else {f"{name}/x": x}


def _build_object(keras, namespace, class_name, kwargs):
    module = keras
    for part in namespace.split("."):
        module = getattr(module, part)
    args = {}
    for key, value in kwargs.items():
        if isinstance(value, dict) and "__object__" in value:
            ns, cls = value["__object__"].rsplit(".", 1)
            value = _build_object(keras, ns, cls, value.get("kwargs", {}))
        args[key] = value
    return getattr(module, class_name)(**args)


def record():
    keras = _keras()
    expected = {}
    for name, (model, x, y) in _models(keras).items():
        model.fit(x, y, epochs=1, batch_size=len(y), shuffle=False, verbose=0)
        model.save(os.path.join(OUT, f"{name}.keras"))
        if name in WEIGHTS_FILES:
            model.save_weights(os.path.join(OUT, f"{name}.weights.h5"))
        if name == "seq_dense":
            model.save(os.path.join(OUT, "legacy_dense.h5"))
        expected.update(_flat_x(name, x))
        expected[f"{name}/y"] = model.predict(x, verbose=0)
        history = model.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history
        expected[f"{name}/losses"] = np.array(history["loss"], dtype="float64")
    model, x = lookup_model(keras)
    model.save(os.path.join(OUT, "lookups.keras"))
    expected.update(_flat_x("lookups", x))
    for i, y in enumerate(_run(model, x)):
        expected[f"lookups/y{i}"] = y
    np.savez(os.path.join(OUT, "expected.npz"), **expected)
    with open(os.path.join(OUT, "config_specs.json")) as f:
        specs = json.load(f)
    configs = {}
    for namespace, classes in specs.items():
        for class_name, kwargs in classes.items():
            if "__skip__" in kwargs:
                continue
            obj = _build_object(keras, namespace, class_name, kwargs)
            configs[f"{namespace}.{class_name}"] = keras.saving.serialize_keras_object(obj)
    with open(os.path.join(OUT, "configs.json"), "w") as f:
        json.dump(configs, f, indent=1, sort_keys=True)
    print("recorded", sorted(os.listdir(OUT)))


def check(directory):
    keras = _keras()
    _scale_layer(keras)
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    data = np.load(os.path.join(directory, "data.npz"))
    failures = 0
    for entry in manifest:
        path = os.path.join(directory, entry["file"])
        x = [data[k] for k in entry["x"]]
        x = x if len(x) > 1 else x[0]
        try:
            if entry["file"].endswith(".keras"):
                model = keras.models.load_model(path)
            elif entry["file"].endswith(".h5") and not entry["file"].endswith(".weights.h5"):
                # (Keras 3.15 cannot compile from a legacy file whose loss is a string such as "mse", its own
                # files included: "Could not deserialize 'keras.metrics.mse'"; the model and weights load.)
                model = keras.models.load_model(path, compile=False)
            else:
                model = keras.models.model_from_json(open(os.path.join(directory, entry["json"])).read())
                model.load_weights(path)
            got = _run(model, x)
            want = [data[k] for k in entry["y"]] if isinstance(entry["y"], list) else data[entry["y"]]
            diff = max(float(np.max(np.abs(np.asarray(g) - w))) for g, w in
                       (zip(got, want) if isinstance(want, list) else [(got, want)]))
            verdict = "ok" if diff <= 1e-5 else "DIFFERENT"
            if entry.get("losses") and entry["file"].endswith(".keras") and "dropout" not in entry["file"]:
                y = data[entry["target"]]
                history = model.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history["loss"]
                loss_diff = float(np.max(np.abs(np.array(history) - data[entry["losses"]])))
                verdict += f", continued training loss diff {loss_diff:.2e}"
                if loss_diff > 1e-4:
                    verdict = "DIFFERENT " + verdict
        except Exception as exc:  # noqa: BLE001 - reported as a verdict
            diff, verdict = float("nan"), f"FAILED: {type(exc).__name__}: {exc}"[:400]
        failures += not verdict.startswith("ok")
        print(f"{entry['file']}: max |tf - tapeflow| = {diff:.2e}: {verdict}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        record()

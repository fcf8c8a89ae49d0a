"""tf.saved_model beyond the golden cases: Keras models of several kinds served at other batch sizes, tapes through
loaded functions, a fresh process loading what another wrote, damaged directories, interrupted saves, and
functions that cannot be written."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import checkpoint_io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5, -1.0], [2.0, 0.25]], name="w")
        self.layers = [tf.Variable([0.1, 0.2], name="b")]

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.tanh(tf.matmul(x, self.w) + self.layers[0])


X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)


def _saved(tmp_path, obj, name="sm", **kwargs):
    path = str(tmp_path / name)
    tf.saved_model.save(obj, path, **kwargs)
    return path


def test_gradients_match_the_original_module(tmp_path):
    net = Net()
    loaded = tf.saved_model.load(_saved(tmp_path, net))
    grads = []
    for obj, variables in ((net, [net.w, net.layers[0]]), (loaded, [loaded.w, loaded.layers[0]])):
        x = tf.constant(X)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.reduce_sum(obj(x) ** 2)
        grads.append([g.numpy() for g in tape.gradient(y, [x] + variables)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_training_a_loaded_module(tmp_path):
    loaded = tf.saved_model.load(_saved(tmp_path, Net()))
    opt = tf.keras.optimizers.SGD(0.1)
    losses = []
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((loaded(X) - 1.0) ** 2)
        grads = tape.gradient(loss, loaded.trainable_variables)
        opt.apply_gradients(zip(grads, loaded.trainable_variables))
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert [v.name for v in loaded.variables] == ["b:0", "w:0"]  # as tf.Module orders them: by attribute


def _keras_models():
    tf.keras.utils.set_random_seed(3)
    cnn = tf.keras.Sequential([tf.keras.Input((6, 6, 2)), tf.keras.layers.Conv2D(3, 3, activation="relu"),
                               tf.keras.layers.BatchNormalization(), tf.keras.layers.MaxPooling2D(),
                               tf.keras.layers.Flatten(), tf.keras.layers.Dense(2, activation="softmax")])
    rnn = tf.keras.Sequential([tf.keras.Input((5, 3)), tf.keras.layers.LSTM(4), tf.keras.layers.Dense(1)])
    inputs = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(8, activation="gelu")(inputs)
    functional = tf.keras.Model(inputs, {"score": tf.keras.layers.Dense(1)(hidden), "hidden": hidden})
    return {"cnn": (cnn, (6, 6, 2)), "rnn": (rnn, (5, 3)), "functional": (functional, (4,))}


@pytest.mark.parametrize("kind", ["cnn", "rnn", "functional"])
def test_keras_models_serve_any_batch_size(tmp_path, kind):
    model, shape = _keras_models()[kind]
    loaded = tf.saved_model.load(_saved(tmp_path, model))
    serving = loaded.signatures["serving_default"]
    rng = np.random.default_rng(0)
    for batch in (1, 4, 9):
        x = rng.normal(size=(batch,) + shape).astype(np.float32)
        out = serving(inputs=tf.constant(x))
        expected = model(x, training=False)
        if isinstance(expected, dict):
            assert sorted(out) == sorted(expected)
            for k in expected:
                np.testing.assert_allclose(out[k].numpy(), expected[k].numpy(), rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_allclose(out["output_0"].numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    assert len(loaded.variables) == len(model.weights)


def test_a_fresh_process_loads_without_the_class(tmp_path):
    model, _ = _keras_models()["rnn"]
    path = _saved(tmp_path, model)
    x = np.ones((2, 5, 3), np.float32)
    expected = model(x).numpy()
    code = textwrap.dedent(f"""
        import numpy as np, tapeflow as tf
        loaded = tf.saved_model.load({path!r})
        print(repr(loaded.signatures["serving_default"](inputs=np.ones((2, 5, 3), np.float32))["output_0"].numpy()
                   .tolist()))
    """)
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    np.testing.assert_allclose(np.array(eval(out.stdout)), expected, rtol=1e-6)


def test_directory_format(tmp_path):
    path = _saved(tmp_path, Net())
    assert sorted(os.listdir(path)) == ["assets", "constants.npz", "saved_model.json", "variables"]
    assert os.listdir(os.path.join(path, "variables")) == ["variables.npz"]
    document = json.loads(open(os.path.join(path, "saved_model.json")).read())
    assert document["format"] == "tapeflow-saved-model" and document["version"] == 1
    ops = {n["op"] for f in document["functions"] for n in f["nodes"] if "op" in n}
    assert {"MatMul", "Tanh"} <= ops
    assert document["signatures"]["serving_default"]["inputs"] == ["x"]
    assert set(np.load(os.path.join(path, "variables", "variables.npz"))) >= {
        "w/.ATTRIBUTES/VARIABLE_VALUE", "layers/0/.ATTRIBUTES/VARIABLE_VALUE"}


def test_a_failed_save_leaves_the_previous_directory(tmp_path):
    net = Net()
    path = _saved(tmp_path, net)
    net.w.assign([[9.0, 9.0], [9.0, 9.0]])

    def explode(key):
        raise OSError("disk full")

    checkpoint_io._WRITE_HOOK = explode
    try:
        with pytest.raises(OSError, match="disk full"):
            tf.saved_model.save(net, path)
    finally:
        checkpoint_io._WRITE_HOOK = None
    np.testing.assert_array_equal(tf.saved_model.load(path).w.numpy(), [[0.5, -1.0], [2.0, 0.25]])
    assert os.listdir(tmp_path) == ["sm"]  # no temporary directory left behind
    tf.saved_model.save(net, path)  # and a later save replaces it
    np.testing.assert_array_equal(tf.saved_model.load(path).w.numpy(), [[9.0, 9.0], [9.0, 9.0]])
    assert os.listdir(tmp_path) == ["sm"]


@pytest.mark.parametrize("damage", ["json", "version", "constants", "variables", "missing variables"])
def test_damaged_directories_raise_naming_the_file(tmp_path, damage):
    path = _saved(tmp_path, Net())
    target = {"json": "saved_model.json", "version": "saved_model.json", "constants": "constants.npz",
              "variables": "variables/variables.npz", "missing variables": "variables/variables.npz"}[damage]
    full = os.path.join(path, target)
    if damage == "version":
        document = json.loads(open(full).read())
        document["version"] = 99
        open(full, "w").write(json.dumps(document))
    elif damage == "missing variables":
        os.unlink(full)
    elif damage == "constants":
        open(full, "wb").write(b"not an archive")
    else:
        with open(full, "r+b") as f:
            f.truncate(30)
    error = tf.errors.NotFoundError if damage == "missing variables" else tf.errors.DataLossError
    with pytest.raises(error, match=os.path.basename(target).split(".")[0]):
        tf.saved_model.load(path)


def test_a_tensorflow_saved_model_is_refused_clearly(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"\x08\x01")
    with pytest.raises(ValueError, match="written by TensorFlow"):
        tf.saved_model.load(str(tmp_path))
    assert tf.saved_model.contains_saved_model(str(tmp_path))


def test_functions_that_cannot_be_written_are_named(tmp_path):
    @tf.custom_gradient
    def clipped(x):
        return tf.identity(x), lambda g: tf.clip_by_value(g, -1.0, 1.0)

    class Custom(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return clipped(x * 3.0)

    with pytest.raises(ValueError, match="function 'f' uses .*custom gradient"):
        tf.saved_model.save(Custom(), str(tmp_path / "c"))
    assert not os.path.exists(tmp_path / "c")


def test_nested_control_flow_round_trips(tmp_path):
    class Nested(tf.Module):
        def __init__(self):
            super().__init__()
            self.total = tf.Variable(0.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            s = tf.constant(0.0)
            for v in x:
                if v > 0:
                    s += v
                else:
                    s -= 2.0 * v
            self.total.assign_add(s)
            return s

    module = Nested()
    expected = module.f(tf.constant([1.0, -2.0, 3.0])).numpy()
    module.total.assign(0.0)
    loaded = tf.saved_model.load(_saved(tmp_path, module))
    assert loaded.f(tf.constant([1.0, -2.0, 3.0])).numpy() == expected == 8.0
    assert loaded.f(tf.constant([0.5])).numpy() == 0.5
    assert loaded.total.numpy() == 8.5


def test_untraced_function_without_signature_is_kept_empty(tmp_path):
    class Lazy(tf.Module):
        @tf.function
        def f(self, x):
            return x

    loaded = tf.saved_model.load(_saved(tmp_path, Lazy()))
    assert loaded.f.concrete_functions == []
    with pytest.raises(ValueError, match="0 option"):
        loaded.f(tf.constant(1.0))


def test_loaded_functions_inside_a_tf_function(tmp_path):
    loaded = tf.saved_model.load(_saved(tmp_path, Net()))

    @tf.function
    def twice(x):
        return loaded(x) * 2.0

    np.testing.assert_allclose(twice(X).numpy(), 2.0 * loaded(X).numpy(), rtol=1e-6)
    loaded.w.assign(tf.zeros([2, 2]))
    np.testing.assert_allclose(twice(X).numpy(), 2.0 * np.tanh(np.array([[0.1, 0.2]] * 3)), rtol=1e-6)


def test_strings_and_integer_constants_round_trip(tmp_path):
    class Words(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def join(self, words):
            return tf.strings.reduce_join(tf.strings.upper(words), separator=b"-"), tf.size(words)

    loaded = tf.saved_model.load(_saved(tmp_path, Words()))
    joined, size = loaded.join(tf.constant(["ab", "c"]))
    assert joined.numpy() == b"AB-C" and int(size) == 2


def test_saving_into_a_directory_with_other_files_keeps_them(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    net = Net()
    tf.saved_model.save(net, str(tmp_path))
    assert (tmp_path / "notes.txt").read_text() == "mine"
    np.testing.assert_array_equal(tf.saved_model.load(str(tmp_path)).w.numpy(), net.w.numpy())
    # A file of another save in its place is refused, not run with the wrong values.
    other = Net()
    other.w.assign([[7.0, 7.0], [7.0, 7.0]])
    tf.saved_model.save(other, str(tmp_path / "other"))
    os.replace(tmp_path / "other" / "variables" / "variables.npz", tmp_path / "variables" / "variables.npz")
    with pytest.raises(tf.errors.DataLossError, match="digest differs"):
        tf.saved_model.load(str(tmp_path))

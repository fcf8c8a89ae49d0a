"""tf.keras.callbacks.TensorBoard: the logs of ``fit`` read by TensorBoard as it reads Keras 3's on TF 2.21 (the
golden of tools/record_tensorboard_golden.py), traces of profiled batches, and bad arguments."""

import warnings

import numpy as np
import pytest

import tapeflow as tf
from tests import tensorboard_programs as programs
from tests.test_summary import assert_logs_match, golden

pytest.importorskip("tensorboard")
pytest.importorskip("PIL")


def test_fit_logs_read_by_tensorboard_as_keras(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        programs.keras_fit(tf, str(tmp_path))
    got, want = programs.read_logdir(str(tmp_path)), golden("keras_fit")
    model_json = ("batches/train", "keras")
    if hasattr(tf.keras.Sequential, "to_json"):
        mine = got[model_json[0]][model_json[1]]
        assert mine["plugin"] == "graph_keras_model" and [e["step"] for e in mine["events"]] == [0]
        assert mine["events"][0]["value"] == want[model_json[0]][model_json[1]]["events"][0]["value"]
        skip = {model_json}  # (the JSON's contents are the saving code's to match)
    else:
        # A model that cannot make its JSON gets Keras's warning, and the rest is written.
        assert model_json[1] not in got[model_json[0]]
        assert any("Model failed to serialize as JSON. Ignoring..." in str(w.message) for w in caught)
        skip = {model_json}
    assert_logs_match(got, want, skip=skip)


def _model():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="d")])
    model.compile(optimizer="sgd", loss="mse")
    return model, np.ones((8, 3), "float32"), np.zeros((8, 2), "float32")


def test_profile_batch_writes_the_traced_graph(tmp_path):
    model, x, y = _model()
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch=1, write_graph=False, update_freq="batch")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[callback])
    logs = programs.read_logdir(str(tmp_path))
    trace = logs["train"]["batch_1"]
    assert trace["plugin"] == "graph_run_metadata_graph" and [e["step"] for e in trace["events"]] == [1]
    ops = {node[1] for graph in trace["events"][0]["value"] for node in graph}
    assert {"_Arg", "MatMul", "_Retval"} <= ops  # the train step's graph, traced at the first batch
    assert [e["step"] for e in logs["train"]["batch_loss"]["events"]] == [1, 2]


def test_weight_images_of_each_rank(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((5, 5, 1)), tf.keras.layers.Conv2D(3, 2, name="conv"),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(1, name="dense")])
    model.compile(optimizer="sgd", loss="mse")
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, write_images=True, write_graph=False)
    model.fit(np.ones((4, 5, 5, 1), "float32"), np.zeros((4, 1), "float32"), epochs=1, verbose=0,
              callbacks=[callback])
    train = programs.read_logdir(str(tmp_path))["train"]
    kernel = train[f"{model.layers[0].kernel.path}/image"]["events"][0]["value"]
    # A (2, 2, 1, 3) kernel squeezes to (2, 2, 3): one 2x2 grey image per output channel, as Keras lays it out.
    assert (kernel["width"], kernel["height"], len(kernel["images"])) == ("2", "2", 3)
    bias = train[f"{model.layers[0].bias.path}/image"]["events"][0]["value"]
    assert (bias["width"], bias["height"]) == ("1", "3")
    assert f"{model.layers[2].bias.path}/image" not in train  # a single number: no image, as in Keras
    assert f"{model.layers[2].bias.path}/histogram" in train


def test_bad_profile_batch():
    for bad in (-1, (3, 2), (1, 2, 3)):
        with pytest.raises(ValueError, match="profile_batch must be a non-negative integer or 2-tuple"):
            tf.keras.callbacks.TensorBoard(profile_batch=bad)


def test_missing_extra_names_it(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tensorboard", None)
    model, x, y = _model()
    with pytest.raises(ImportError, match=r"tapeflow\[tensorboard\]"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path))])


def test_refit_and_evaluate_reopen_writers(tmp_path):
    model, x, y = _model()
    callback = tf.keras.callbacks.TensorBoard(str(tmp_path), update_freq="batch", write_graph=False)
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[callback])
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[callback])  # writers closed by the first
    model.evaluate(x, y, verbose=0, callbacks=[callback])
    logs = programs.read_logdir(str(tmp_path))
    assert [e["step"] for e in logs["train"]["batch_loss"]["events"]] == [1, 2, 1, 2]
    assert [e["step"] for e in logs["train"]["epoch_loss"]["events"]] == [0, 0]
    assert [e["step"] for e in logs["validation"]["evaluation_loss_vs_iterations"]["events"]] == [4]
    assert len([f for f in (tmp_path / "train").iterdir() if "tfevents" in f.name]) == 2  # one file per fit


def test_embeddings_projector_config_and_weights_as_keras(tmp_path):
    programs.keras_embeddings(tf, str(tmp_path))
    want = golden("keras_embeddings")
    assert programs.other_files(str(tmp_path)) == want["__other_files__"]
    got = programs.read_logdir(str(tmp_path))
    # (the losses follow the random initial weights: the tags and steps are compared)
    assert {t: [e["step"] for e in v["events"]] for t, v in got["train"].items()} == {
        t: [e["step"] for e in v["events"]] for t, v in want["train"].items()}

"""tf.keras.callbacks on a fake model driven through CallbackList hooks (golden cases cover the Keras-verified
sequences; these check the pieces the golden harness cannot see: stdout, files on disk, tensors in logs)."""

import os
import time

import numpy as np
import pytest

import tapeflow as tf

cbks = tf.keras.callbacks


class FakeModel:
    def __init__(self, lr=0.1):
        self.optimizer = tf.keras.optimizers.SGD(learning_rate=lr)
        self.stop_training = False
        self.weights_ = [np.zeros(2)]
        self.saved = []

    def get_weights(self):
        return [w.copy() for w in self.weights_]

    def set_weights(self, weights):
        self.weights_ = [np.array(w) for w in weights]

    def save_weights(self, filepath, overwrite=True):
        self.saved.append(("weights", filepath))

    def save(self, filepath, overwrite=True):
        self.saved.append(("model", filepath))


def run(callbacks, epoch_logs, model=None, steps=1):
    model = model or FakeModel()
    cbs = cbks.CallbackList(callbacks, add_history=True, model=model, epochs=len(epoch_logs), steps=steps, verbose=0)
    cbs.on_train_begin()
    ran = []
    for epoch, logs in enumerate(epoch_logs):
        cbs.on_epoch_begin(epoch)
        model.weights_ = [np.full(2, float(epoch))]
        for step in range(steps):
            cbs.on_train_batch_begin(step)
            cbs.on_train_batch_end(step, {"loss": logs.get("loss", 0.0)})
        cbs.on_epoch_end(epoch, logs)
        ran.append(epoch)
        if model.stop_training:
            break
    cbs.on_train_end()
    return model, ran


def test_logs_are_pythonified_sorted_and_flattened():
    seen = []

    class Rec(cbks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append(logs)

    model, _ = run([Rec()], [{"z": tf.constant(2.5), "a": np.float32(0.5), "m": {"val_x": tf.Variable(1.0)},
                              "s": "keep"}])
    assert list(seen[0]) == ["a", "val_x", "s", "z"]  # sorted by outer key, nested dict inlined at "m"
    assert [type(v) for v in seen[0].values()] == [float, float, str, float]
    assert model.history.history["z"] == [2.5]


def test_default_hooks_are_marked_and_forward_to_aliases():
    calls = []

    class Old(cbks.Callback):
        def on_batch_end(self, batch, logs=None):
            calls.append(batch)

    cb = Old()
    cb.on_train_batch_end(4)
    assert calls == [4]
    assert getattr(cbks.Callback.on_epoch_end, "_is_default", False)
    assert not getattr(Old.on_batch_end, "_is_default", False)


def test_history_kept_across_fits_epoch_reset():
    hist = cbks.History()
    model = FakeModel()
    run([hist], [{"loss": 1.0}, {"loss": 0.5}], model=model)
    run([hist], [{"loss": 0.25}], model=model)
    assert hist.history == {"loss": [1.0, 0.5, 0.25]}
    assert hist.epoch == [0]
    assert model.history is hist


def test_unbalanced_end_raises():
    cbs = cbks.CallbackList([])
    with pytest.raises(ValueError, match="without corresponding"):
        cbs.on_predict_end()


def test_early_stopping_restores_best_weights_and_prints(capsys):
    cb = cbks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True, verbose=1)
    model, ran = run([cb], [{"loss": 1.0}, {"loss": 0.5}, {"loss": 0.7}, {"loss": 0.8}])
    assert ran == [0, 1, 2]
    np.testing.assert_array_equal(model.weights_[0], [1.0, 1.0])
    assert capsys.readouterr().out == ("Epoch 3: early stopping\n"
                                       "Restoring model weights from the end of the best epoch: 2.\n")


def test_early_stopping_uses_compiled_metric_direction():
    class Acc:
        name = "acc"
        _direction = "up"

    class Container:
        metrics = [Acc()]

    model = FakeModel()
    model.metrics = [object(), Container()]
    cb = cbks.EarlyStopping(monitor="val_acc")
    _, ran = run([cb], [{"val_acc": 0.1}, {"val_acc": 0.2}, {"val_acc": 0.15}], model=model)
    assert ran == [0, 1, 2] and model.stop_training and cb.best == 0.2


def test_learning_rate_scheduler_sets_variable_and_verbose(capsys):
    model = FakeModel(0.5)
    lr_var = model.optimizer.learning_rate
    run([cbks.LearningRateScheduler(lambda e, lr: lr / 2, verbose=1)], [{"loss": 1.0}] * 2, model=model)
    assert model.optimizer.learning_rate is lr_var
    assert float(lr_var.numpy()) == 0.125
    assert model.history.history["learning_rate"] == [0.25, 0.125]
    assert capsys.readouterr().out == ("\nEpoch 1: LearningRateScheduler setting learning rate to 0.25.\n"
                                       "\nEpoch 2: LearningRateScheduler setting learning rate to 0.125.\n")


def test_learning_rate_scheduler_multi_optimizer():
    class Multi:
        def __init__(self):
            self.optimizers = [tf.keras.optimizers.SGD(0.1, name="a"), tf.keras.optimizers.SGD(0.2, name="b")]

    model = FakeModel()
    model.optimizer = Multi()
    run([cbks.LearningRateScheduler(lambda e: 0.5)], [{"loss": 1.0}], model=model)
    assert model.history.history["learning_rate_a"] == [0.5]
    assert model.history.history["learning_rate_b"] == [0.5]


def test_reduce_lr_verbose(capsys):
    model, _ = run([cbks.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, verbose=1)],
                   [{"loss": 1.0}, {"loss": 1.0}], model=FakeModel(0.5))
    assert float(model.optimizer.learning_rate.numpy()) == 0.25
    assert capsys.readouterr().out == "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.25.\n"


def test_csv_logger_file_text(tmp_path):
    path = tmp_path / "log.csv"
    run([cbks.CSVLogger(path)], [{"loss": 0.5, "val_loss": 1.0}, {"loss": 0.25, "val_loss": 2.0}])
    assert path.read_bytes() == b"epoch,loss,val_loss\r\n0,0.5,1.0\r\n1,0.25,2.0\r\n"


def test_model_checkpoint_paths_dirs_and_messages(tmp_path, capsys):
    model, _ = run([cbks.ModelCheckpoint(str(tmp_path / "d" / "m{epoch:02d}-{loss:.1f}.keras"), monitor="loss",
                                         save_best_only=True, verbose=1)],
                   [{"loss": 1.0}, {"loss": 2.0}, {"loss": 0.5}])
    assert [os.path.basename(p) for _, p in model.saved] == ["m01-1.0.keras", "m03-0.5.keras"]
    assert (tmp_path / "d").is_dir()
    out = capsys.readouterr().out
    assert "\nEpoch 2: loss did not improve from 1.00000\n" in out
    assert "loss improved from 1.00000 to 0.50000, saving model to" in out


def test_model_checkpoint_directory_target(tmp_path):
    class DirModel(FakeModel):
        def save(self, filepath, overwrite=True):
            raise IsADirectoryError(filepath)

    (tmp_path / "x.keras").mkdir()
    with pytest.raises(OSError, match="Please specify a non-directory filepath"):
        run([cbks.ModelCheckpoint(str(tmp_path / "x.keras"))], [{"loss": 1.0}], model=DirModel())


def test_terminate_on_nan_prints(capsys):
    model = FakeModel()
    cbs = cbks.CallbackList([cbks.TerminateOnNaN()], model=model)
    cbs.on_train_batch_end(3, {"loss": float("nan")})
    assert model.stop_training
    assert capsys.readouterr().out == "Batch 3: Invalid loss, terminating training\n"


def _drive_progbar(verbose):
    cbs = cbks.CallbackList([], add_progbar=True, epochs=2, steps=3, verbose=verbose)
    cbs.on_train_begin()
    for epoch in range(2):
        cbs.on_epoch_begin(epoch)
        for step in range(3):
            cbs.on_train_batch_end(step, {"loss": 0.5 / (step + 1), "acc": -0.0001 * step})
        cbs.on_test_begin()
        cbs.on_test_end({"loss": 1.0})
        cbs.on_epoch_end(epoch, {"loss": 0.25, "acc": -0.0001, "val_loss": 1.0})
    cbs.on_train_end()


def test_progbar_logger_matches_keras_output(capsys, monkeypatch):
    # Texts printed by Keras 3.15 for the same calls with time frozen (verified against the oracle byte for byte).
    monkeypatch.setattr(time, "time", lambda: 1000.0)
    _drive_progbar(2)
    line = "3/3 - 0s - 0s/step - acc: -1.0000e-04 - loss: 0.2500 - val_loss: 1.0000\n"
    assert capsys.readouterr().out == f"Epoch 1/2\n{line}Epoch 2/2\n{line}"
    _drive_progbar(1)
    out = capsys.readouterr().out
    bar = "━"
    first = (f"\r\x1b[1m1/3\x1b[0m \x1b[32m{bar * 6}\x1b[0m\x1b[37m{bar * 14}\x1b[0m \x1b[1m0s\x1b[0m 0s/step"
             " - acc: -0.0000e+00 - loss: 0.5000")
    last = (f"\r\x1b[1m3/3\x1b[0m \x1b[32m{bar * 20}\x1b[0m\x1b[37m\x1b[0m \x1b[1m0s\x1b[0m 0s/step"
            " - acc: -1.0000e-04 - loss: 0.2500 - val_loss: 1.0000\n")
    assert out == "".join(f"Epoch {e}/2\n{first}{chr(8) * 69}{last}" for e in (1, 2))


def test_progbar_logger_added_once():
    logger = cbks.ProgbarLogger()
    cbs = cbks.CallbackList([logger], add_progbar=True, add_history=True, epochs=1, steps=1, verbose="auto")
    assert len(cbs.callbacks) == 2 and logger.verbose == 1

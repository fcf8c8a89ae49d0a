"""tf.keras.callbacks (Keras 3): callbacks driven through CallbackList hooks with scripted logs on a fake model."""

import os
import tempfile

import numpy as np

from tests.golden.harness import case, catch


class FakeModel:
    """What callbacks touch on a model: optimizer.learning_rate, stop_training, weights, save/save_weights."""

    def __init__(self, tf, lr=0.1):
        self.optimizer = tf.keras.optimizers.SGD(learning_rate=lr)
        self.stop_training = False
        self.weights_ = [np.array([0.0])]
        self.saved = []

    def get_weights(self):
        return [w.copy() for w in self.weights_]

    def set_weights(self, weights):
        self.weights_ = [np.array(w) for w in weights]

    def save_weights(self, filepath, overwrite=True):
        self.saved.append(["weights", os.path.basename(filepath), overwrite])

    def save(self, filepath, overwrite=True):
        self.saved.append(["model", os.path.basename(filepath), overwrite])


def _fit(tf, callbacks, epoch_logs, model=None, steps=2, batch_logs=None):
    """A fit-like loop: weights become [epoch + 1] during each epoch; returns what the loop observed."""
    model = model or FakeModel(tf)
    cbs = tf.keras.callbacks.CallbackList(callbacks, add_history=True, model=model, epochs=len(epoch_logs),
                                          steps=steps, verbose=0)
    lrs, ran = [], []
    cbs.on_train_begin()
    logs = None
    for epoch, logs in enumerate(epoch_logs):
        cbs.on_epoch_begin(epoch)
        lrs.append(float(np.asarray(model.optimizer.learning_rate)))
        model.weights_ = [np.array([epoch + 1.0])]
        for step in range(steps):
            cbs.on_train_batch_begin(step)
            cbs.on_train_batch_end(step, (batch_logs or {}).get((epoch, step), {"loss": logs.get("loss", 0.0)}))
        cbs.on_epoch_end(epoch, logs)
        ran.append(epoch)
        if model.stop_training:
            break
    cbs.on_train_end(logs)
    return {"ran": ran, "lrs": lrs, "history": model.history.history, "weights": model.weights_,
            "final_lr": float(np.asarray(model.optimizer.learning_rate)), "stop": model.stop_training,
            "saved": model.saved}


LOSSES = [{"loss": v, "val_loss": w} for v, w in [(1.0, 0.9), (0.8, 0.85), (0.7, 0.86), (0.6, 0.87), (0.5, 0.84),
                                                   (0.4, 0.88), (0.3, 0.89), (0.2, 0.9)]]


@case
def history_and_params(tf):
    model = FakeModel(tf)
    cbs = tf.keras.callbacks.CallbackList(None, add_history=True, model=model, epochs=2, steps=3, verbose=0)
    hist = model.history
    cbs.on_train_begin()
    cbs.on_epoch_end(0, {"loss": tf.constant(0.5), "acc": np.float64(0.25), "val": {"val_loss": 2}})
    cbs.on_epoch_end(1, {"loss": 0.25, "name": "x"})
    cbs.on_train_end()
    again = tf.keras.callbacks.CallbackList([hist], add_history=True, model=model)
    again.on_train_begin()
    again.on_epoch_end(5, {"loss": 1.5})
    return {"history": hist.history, "epoch": hist.epoch, "params": hist.params, "same": model.history is hist,
            "count": len(cbs.callbacks), "reused": len(again.callbacks), "types": {
                k: [type(v).__name__ for v in vs] for k, vs in hist.history.items()}}


@case
def dispatch_order_and_aliases(tf):
    calls = []

    class Rec(tf.keras.callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            calls.append(["batch_begin", batch, logs])

        def on_batch_end(self, batch, logs=None):
            calls.append(["batch_end", batch, logs])

        def on_epoch_begin(self, epoch, logs=None):
            calls.append(["epoch_begin", epoch, logs])

        def on_test_batch_end(self, batch, logs=None):
            calls.append(["test_batch_end", batch, sorted(logs)])

        def on_predict_end(self, logs=None):
            calls.append(["predict_end", logs])

    a, b = Rec(), Rec()
    cbs = tf.keras.callbacks.CallbackList([a, [b]], model=None)
    cbs.on_train_begin()
    cbs.on_epoch_begin(0)
    cbs.on_train_batch_begin(0, {"z": 1, "a": 2})
    cbs.on_train_batch_end(0, {"loss": np.float32(0.5)})
    cbs.on_batch_begin(3)
    cbs.on_test_begin()
    cbs.on_test_batch_end(1, {"b": 1, "a": {"c": 3}})
    cbs.on_test_end()
    cbs.on_predict_begin()
    cbs.on_predict_end({"outputs": [1, 2]})
    cbs.on_train_end()
    return {"calls": calls, "n": len(cbs.callbacks), "params": [a.params, cbs.params], "model": a.model,
            "unbalanced": catch(cbs.on_test_end)}


@case
def set_params_and_model(tf):
    cb = tf.keras.callbacks.Callback()
    before = [cb.params, cb.model]
    model = FakeModel(tf)
    cbs = tf.keras.callbacks.CallbackList([cb], model=model, verbose=2, epochs=4)
    cbs.set_params({})
    after = [cb.params, cb.model is model, cbs.model is model, hasattr(model, "history")]
    return {"before": before, "after": after}


@case
def early_stopping(tf):
    es = tf.keras.callbacks.EarlyStopping
    out = {}
    for name, kwargs in [("p0", {}), ("p2", {"patience": 2}), ("loss", {"monitor": "loss", "patience": 1}),
                         ("delta", {"monitor": "loss", "min_delta": 0.15}), ("max", {"mode": "max"}),
                         ("baseline", {"baseline": 0.86, "patience": 1}),
                         ("baseline_low", {"baseline": 0.5, "patience": 2}),
                         ("start", {"start_from_epoch": 3}),
                         ("restore", {"patience": 2, "restore_best_weights": True}),
                         ("restore_no_stop", {"monitor": "loss", "restore_best_weights": True}),
                         ("restore_start", {"monitor": "loss", "restore_best_weights": True, "start_from_epoch": 9}),
                         ("acc_max", {"monitor": "acc", "mode": "max", "patience": 1})]:
        cb = es(**kwargs)
        logs = [dict(d, acc=a) for d, a in zip(LOSSES, [0.1, 0.5, 0.4, 0.3, 0.6, 0.2, 0.1, 0.0])]
        res = _fit(tf, [cb], logs)
        out[name] = [res["ran"], res["weights"], cb.wait, cb.stopped_epoch, cb.best, cb.best_epoch, res["stop"]]
    return out


@case
def early_stopping_float32_ties_and_errors(tf):
    cb = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=1)
    res = _fit(tf, [cb], [{"loss": 1.0}, {"loss": 1.0 - 1e-9}, {"loss": 1.0 - 1e-9}, {"loss": 0.5}])
    auto = tf.keras.callbacks.EarlyStopping(monitor="acc")
    missing = tf.keras.callbacks.EarlyStopping(monitor="val_acc", mode="max")
    missing_res = _fit(tf, [missing], [{"loss": 1.0, "acc": 0.5}] * 3)
    weird = tf.keras.callbacks.EarlyStopping(monitor="loss", mode="sideways")
    weird_res = _fit(tf, [weird], [{"loss": 1.0}, {"loss": 1.1}])
    return {"ties": [res["ran"], cb.best], "auto": catch(_fit, tf, [auto], [{"acc": 0.5}]),
            "missing": missing_res["ran"], "weird": [weird.mode, weird_res["ran"]],
            "attrs": [cb.min_delta, auto.min_delta, auto.monitor_op is None]}


@case
def learning_rate_scheduler(tf):
    out = {}
    for name, sched in [("halve", lambda epoch, lr: lr * 0.5), ("one_arg", lambda epoch: 0.1 / (epoch + 1)),
                        ("np", lambda epoch, lr: np.float32(0.3) if epoch else lr)]:
        cb = tf.keras.callbacks.LearningRateScheduler(sched)
        res = _fit(tf, [cb], [{"loss": 1.0}] * 4)
        out[name] = [res["lrs"], res["history"], res["final_lr"]]
    bad = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: 1)
    out["bad"] = catch(_fit, tf, [bad], [{"loss": 1.0}])
    return out


@case
def reduce_lr_on_plateau(tf):
    rl = tf.keras.callbacks.ReduceLROnPlateau
    out = {}
    losses = [1.0, 0.9, 0.9, 0.9, 0.9, 0.95, 0.91, 0.9, 0.9, 0.89, 0.8]
    for name, kwargs in [("p1", {"monitor": "loss", "patience": 1}),
                         ("cool", {"monitor": "loss", "patience": 1, "cooldown": 2, "factor": 0.5}),
                         ("minlr", {"monitor": "loss", "patience": 0, "factor": 0.2, "min_lr": 0.001}),
                         ("delta", {"monitor": "loss", "patience": 2, "min_delta": 0.05}),
                         ("max", {"monitor": "loss", "patience": 1, "mode": "max"}),
                         ("missing", {"patience": 1})]:
        cb = rl(**kwargs)
        res = _fit(tf, [cb], [{"loss": v} for v in losses])
        out[name] = [res["lrs"], res["final_lr"], res["history"], cb.wait, cb.cooldown_counter, cb.best]
    out["factor"] = catch(rl, factor=1.0)
    return out


def _csv_run(tf, epoch_logs, **kwargs):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "log.csv")
        texts = []
        for logs in epoch_logs:
            _fit(tf, [tf.keras.callbacks.CSVLogger(path, **kwargs)], logs)
            with open(path, newline="") as f:
                texts.append(f.read())
        return texts


@case
def csv_logger(tf):
    plain = [{"loss": 0.5, "acc": 0.25}, {"loss": 0.125, "acc": 1.0 / 3}]
    return {
        "plain": _csv_run(tf, [plain]),
        "val": _csv_run(tf, [LOSSES[:3]], separator=";"),
        "append": _csv_run(tf, [plain, [{"loss": 1.5, "acc": 2}]], append=True),
        "overwrite": _csv_run(tf, [plain, [{"loss": 1.5, "acc": 2}]]),
        "odd": _csv_run(tf, [[{"b": "text", "a": [1, 2.5], "c": np.array(3.0)}, {"a": 1}]]),
        "empty": _csv_run(tf, [[{}, {}]]),
    }


@case
def model_checkpoint(tf):
    mc = tf.keras.callbacks.ModelCheckpoint
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for name, kwargs in [
                ("every", {"filepath": "m_{epoch:02d}.keras"}),
                ("weights", {"filepath": "w_{epoch}_{val_loss:.3f}.weights.h5", "save_weights_only": True}),
                ("best", {"filepath": "best.keras", "save_best_only": True}),
                ("best_max", {"filepath": "b{epoch}.h5", "save_best_only": True, "mode": "max", "monitor": "loss"}),
                ("threshold", {"filepath": "t{epoch}.keras", "save_best_only": True,
                               "initial_value_threshold": 0.86}),
                ("batches", {"filepath": "s{epoch}_{batch}.keras", "save_freq": 3}),
                ("missing", {"filepath": "x{epoch}.keras", "save_best_only": True, "monitor": "val_acc",
                             "mode": "max"})]:
            kwargs["filepath"] = os.path.join(d, "sub", kwargs["filepath"])
            res = _fit(tf, [mc(**kwargs)], LOSSES[:5])
            out[name] = res["saved"]
        out["dir_made"] = os.path.isdir(os.path.join(d, "sub"))
        out["badkey"] = catch(_fit, tf, [mc("{nope}_{epoch}.keras")], LOSSES[:1])
    out["ext"] = [catch(mc, "a.h5", save_weights_only=True), catch(mc, "a.txt"), catch(mc, "a.keras", save_freq="x"),
                  catch(mc, "a.weights.h5").__class__.__name__]
    return out


@case
def lambda_and_terminate_on_nan(tf):
    seen = []
    lam = tf.keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda epoch, logs: seen.append(["eb", epoch]),
        on_epoch_end=lambda epoch, logs: seen.append(["ee", epoch, logs]),
        on_train_begin=lambda logs: seen.append(["tb"]),
        on_train_end=lambda logs: seen.append(["te", logs]),
        on_train_batch_end=lambda batch, logs: seen.append(["be", batch]),
        on_test_end=lambda logs: seen.append(["test_end"]))
    _fit(tf, [lam], [{"loss": 1.0}, {"loss": 2.0}])
    cbs = tf.keras.callbacks.CallbackList([lam])
    cbs.on_test_begin()
    cbs.on_test_end()
    nan = float("nan")
    term = _fit(tf, [tf.keras.callbacks.TerminateOnNaN()], [{"loss": 1.0}, {"loss": 2.0}, {"loss": 3.0}],
                batch_logs={(1, 0): {"loss": nan}})
    inf = _fit(tf, [tf.keras.callbacks.TerminateOnNaN()], [{"loss": 1.0}, {"loss": 2.0}],
               batch_logs={(0, 1): {"loss": float("inf")}})
    raised = catch(_fit, tf, [tf.keras.callbacks.TerminateOnNaN(raise_error=True)], [{"loss": 1.0}],
                   batch_logs={(0, 1): {"loss": nan}})
    return {"seen": seen, "term": [term["ran"], term["stop"]], "inf": inf["ran"], "raised": raised}

"""``tf.keras.callbacks``: Keras 3's training-loop hooks (``Callback``, ``CallbackList``, ``History`` and friends).

A callback sees the loop only through its hooks and the ``logs`` dicts passed to them, plus ``self.model`` (for
``stop_training``, the optimizer's learning rate, weights) and ``self.params`` (``epochs``, ``steps``, ``verbose``).
Custom loops drive a ``CallbackList`` by hand; ``Model.fit`` drives one the same way.
"""

from __future__ import annotations

import collections
import csv
import os
import sys

import numpy as np

from ._progbar import Progbar

__all__ = ["Callback", "CallbackList", "CSVLogger", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger", "ReduceLROnPlateau", "TerminateOnNaN"]


def _print_msg(message):
    sys.stdout.write(f"{message}\n")
    sys.stdout.flush()


def _to_float(value):
    """A learning rate (Variable, tensor or number) as a Python float; float32 variables keep their rounding."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    return float(np.asarray(value))


def _default(method):
    """Mark a base-class hook so the loop can tell whether a subclass overrides it (Keras checks this)."""
    method._is_default = True
    return method


def _is_default(method):
    return getattr(method, "_is_default", False)


def _pythonify_logs(logs):
    """Flatten nested dicts and turn tensor or NumPy scalars into Python floats, as Keras does before dispatch.

    Keys come out sorted (Keras iterates ``sorted(logs.items())``); values that ``float`` rejects are kept as is.
    """
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(_pythonify_logs(value))
            continue
        try:
            if hasattr(value, "numpy"):
                value = value.numpy()
            value = float(value)
        except Exception:  # noqa: BLE001 - Keras keeps any value it cannot convert
            pass
        result[key] = value
    return result


def _flatten(callbacks):
    out = []
    for item in callbacks:
        if isinstance(item, (list, tuple)):
            out.extend(_flatten(item))
        else:
            out.append(item)
    return out


class Callback:
    """Base class for training-loop hooks: override the ``on_*`` methods you need; the rest do nothing.

    ``params`` (a dict such as ``{"verbose": 1, "epochs": 10, "steps": 5}``) and ``model`` are set by the loop via
    ``set_params`` / ``set_model``.
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        """Store the loop's parameters dict as ``self.params``."""
        self.params = params

    def set_model(self, model):
        """Store the model being trained; read it back as ``self.model``."""
        self._model = model

    @property
    def model(self):
        """The model the callback is attached to (``None`` until ``set_model``)."""
        return self._model

    @_default
    def on_batch_begin(self, batch, logs=None):
        """Old name of ``on_train_batch_begin``; the default ``on_train_batch_begin`` calls it."""

    @_default
    def on_batch_end(self, batch, logs=None):
        """Old name of ``on_train_batch_end``; the default ``on_train_batch_end`` calls it."""

    @_default
    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of training epoch ``epoch`` (0-based)."""

    @_default
    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of epoch ``epoch`` with the epoch's metrics (validation ones prefixed ``val_``)."""

    @_default
    def on_train_batch_begin(self, batch, logs=None):
        """Called before training batch ``batch`` of the current epoch; forwards to ``on_batch_begin``."""
        self.on_batch_begin(batch, logs=logs)

    @_default
    def on_train_batch_end(self, batch, logs=None):
        """Called after training batch ``batch`` with the running metrics; forwards to ``on_batch_end``."""
        self.on_batch_end(batch, logs=logs)

    @_default
    def on_test_batch_begin(self, batch, logs=None):
        """Called before a batch of ``evaluate`` (or of validation inside ``fit``)."""

    @_default
    def on_test_batch_end(self, batch, logs=None):
        """Called after a batch of ``evaluate`` (or of validation inside ``fit``) with the running metrics."""

    @_default
    def on_predict_batch_begin(self, batch, logs=None):
        """Called before a batch of ``predict``."""

    @_default
    def on_predict_batch_end(self, batch, logs=None):
        """Called after a batch of ``predict``; ``logs`` holds the batch's ``outputs``."""

    @_default
    def on_train_begin(self, logs=None):
        """Called once when training starts."""

    @_default
    def on_train_end(self, logs=None):
        """Called once when training ends, with the last epoch's logs."""

    @_default
    def on_test_begin(self, logs=None):
        """Called when evaluation (or a validation pass) starts."""

    @_default
    def on_test_end(self, logs=None):
        """Called when evaluation (or a validation pass) ends, with the final metrics."""

    @_default
    def on_predict_begin(self, logs=None):
        """Called when prediction starts."""

    @_default
    def on_predict_end(self, logs=None):
        """Called when prediction ends."""


class CallbackList(Callback):
    """Several callbacks behind one set of hooks: each hook call is forwarded to every callback in order.

    Args:
        callbacks: a list (nested lists are flattened) of ``Callback`` instances.
        add_history: append a ``History`` unless the list already holds one.
        add_progbar: append a ``ProgbarLogger`` unless the list already holds one.
        model: the model, passed to every callback's ``set_model`` (a falsy model is ignored, as in Keras).
        **params: if any, passed as one dict to every callback's ``set_params``.

    Logs are flattened and converted to Python floats before dispatch (keys sorted), as Keras does. Every
    ``on_{train,test,predict}_end`` must follow a matching ``..._begin`` or a ``ValueError`` is raised.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = _flatten(callbacks) if callbacks else []
        self._in_begin_end_block_count = 0
        self._add_default_callbacks(add_history, add_progbar)
        self.set_model(model)
        self.set_params(params)

    def _add_default_callbacks(self, add_history, add_progbar):
        self._progbar = None
        self._history = None
        for cb in self.callbacks:
            if isinstance(cb, ProgbarLogger):
                self._progbar = cb
            elif isinstance(cb, History):
                self._history = cb
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)

    def append(self, callback):
        """Add one more callback at the end."""
        self.callbacks.append(callback)

    def set_params(self, params):
        """Store ``params`` and, when non-empty, hand it to every callback."""
        self.params = params
        if params:
            for callback in self.callbacks:
                callback.set_params(params)

    def set_model(self, model):
        """Hand ``model`` to every callback and make the list's ``History`` the model's ``history``."""
        if not model:
            return
        super().set_model(model)
        if self._history:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def _on_begin(self):
        self._in_begin_end_block_count += 1

    def _on_end(self):
        self._in_begin_end_block_count -= 1
        if self._in_begin_end_block_count < 0:
            raise ValueError("`on_xxx_end` called without corresponding `on_xxx_begin`")

    def _dispatch_batch(self, hook, batch, logs):
        logs = _pythonify_logs(logs)
        for callback in self.callbacks:
            getattr(callback, hook)(batch, logs=logs)

    def _dispatch_epoch(self, hook, epoch, logs):
        logs = _pythonify_logs(logs)
        for callback in self.callbacks:
            getattr(callback, hook)(epoch, logs)

    def _dispatch(self, hook, logs):
        logs = _pythonify_logs(logs)
        for callback in self.callbacks:
            getattr(callback, hook)(logs)

    def on_batch_begin(self, batch, logs=None):
        """Forward ``on_batch_begin`` to every callback."""
        self._dispatch_batch("on_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        """Forward ``on_batch_end`` to every callback."""
        self._dispatch_batch("on_batch_end", batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        """Forward ``on_epoch_begin`` to every callback."""
        self._dispatch_epoch("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        """Forward ``on_epoch_end`` to every callback."""
        self._dispatch_epoch("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        """Forward ``on_train_batch_begin`` to every callback."""
        self._dispatch_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        """Forward ``on_train_batch_end`` to every callback."""
        self._dispatch_batch("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Forward ``on_test_batch_begin`` to every callback."""
        self._dispatch_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        """Forward ``on_test_batch_end`` to every callback."""
        self._dispatch_batch("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        """Forward ``on_predict_batch_begin`` to every callback."""
        self._dispatch_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        """Forward ``on_predict_batch_end`` to every callback."""
        self._dispatch_batch("on_predict_batch_end", batch, logs)

    def on_train_begin(self, logs=None):
        """Open a train block and forward ``on_train_begin``."""
        self._on_begin()
        self._dispatch("on_train_begin", logs)

    def on_train_end(self, logs=None):
        """Forward ``on_train_end`` and close the train block."""
        self._dispatch("on_train_end", logs)
        self._on_end()

    def on_test_begin(self, logs=None):
        """Open a test block and forward ``on_test_begin``."""
        self._on_begin()
        self._dispatch("on_test_begin", logs)

    def on_test_end(self, logs=None):
        """Forward ``on_test_end`` and close the test block."""
        self._dispatch("on_test_end", logs)
        self._on_end()

    def on_predict_begin(self, logs=None):
        """Open a predict block and forward ``on_predict_begin``."""
        self._on_begin()
        self._dispatch("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        """Forward ``on_predict_end`` and close the predict block."""
        self._dispatch("on_predict_end", logs)
        self._on_end()


class History(Callback):
    """Records every epoch's logs: ``history`` maps each metric name to its list of per-epoch values.

    ``epoch`` lists the epoch indices seen since the last ``on_train_begin``; ``history`` keeps growing across
    ``fit`` calls (Keras resets only ``epoch``). After each epoch the model's ``history`` attribute points here.
    """

    def __init__(self):
        super().__init__()
        self.history = {}

    def on_train_begin(self, logs=None):
        """Start a fresh ``epoch`` list."""
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        """Append ``epoch`` and each logged value."""
        logs = logs or {}
        self.epoch.append(epoch)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self


class ProgbarLogger(Callback):
    """Prints Keras's progress bar and metrics to stdout (``params["verbose"]``: 1 bar, 2 one line per epoch).

    Inside ``fit`` the validation pass does not draw its own bar; ``evaluate`` and ``predict`` do.
    """

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        """Read ``verbose`` (``"auto"`` means 1), ``epochs`` and ``steps`` (the bar's target) from the params."""
        verbose = params["verbose"]
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params["epochs"]
        self.target = params["steps"]

    def on_train_begin(self, logs=None):
        """Remember that hooks now come from ``fit``."""
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        """Start a bar for ``evaluate`` (not for validation inside ``fit``)."""
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs=None):
        """Start a bar for ``predict``."""
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch, logs=None):
        """Start a bar and print ``Epoch i/n`` when there is more than one epoch."""
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            _print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        """Advance the bar."""
        self._update_progbar(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        """Advance the ``evaluate`` bar."""
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        """Advance the ``predict`` bar (predict batches carry no metrics)."""
        self._update_progbar(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        """Finish the bar with the epoch's metrics."""
        self._finalize_progbar(logs)

    def on_test_end(self, logs=None):
        """Finish the ``evaluate`` bar."""
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs=None):
        """Finish the ``predict`` bar."""
        self._finalize_progbar(logs)

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                                   stateless_metrics=set())

    def _update_progbar(self, batch, logs=None):
        logs = logs or {}
        self._maybe_init_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize_progbar(self, logs):
        logs = logs or {}
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(logs.items()), finalize=True)


class CSVLogger(Callback):
    """Write one CSV row per epoch: ``epoch`` then the logged values, columns sorted by name.

    The columns are fixed at the first epoch; when no ``val_`` column is present, ``val_<key>`` columns are added
    for every key (filled with ``NA`` when missing). Rows end in ``\\r\\n`` (the csv module's Excel dialect). With
    ``append=True`` the file is extended and the header is written only if the file is empty or new.
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename) if isinstance(filename, os.PathLike) else filename
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        """Open the file (``"a"`` or ``"w"``)."""
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)  # noqa: SIM115 - stays open across epochs, closed at train end
        self.writer = None
        self.keys = None

    @staticmethod
    def _cell(value):
        if isinstance(value, str):
            return value
        if isinstance(value, collections.abc.Iterable) and not (isinstance(value, np.ndarray) and value.ndim == 0):
            return f'"[{", ".join(map(str, value))}]"'
        return value

    def on_epoch_end(self, epoch, logs=None):
        """Write the epoch's row (and the header before the first row)."""
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:
            dialect = type("_CSVLoggerDialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + (self.keys or []), dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, self._cell(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        """Close the file."""
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class LambdaCallback(Callback):
    """A callback made of plain functions: ``on_epoch_begin(epoch, logs)``, ``on_train_begin(logs)``, ...

    Other keyword arguments become attributes (so ``on_test_end=f`` and the like work too).
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end, "on_train_begin": on_train_begin,
                 "on_train_end": on_train_end, "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stop training (or raise ``RuntimeError`` if ``raise_error``) when a batch's ``loss`` is NaN or infinite."""

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        """Check the batch's loss."""
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating "
                                   "training immediately.")
            _print_msg(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


# Defined after Callback, which they subclass.
from ._monitor_callbacks import EarlyStopping, LearningRateScheduler, ModelCheckpoint, ReduceLROnPlateau  # noqa: E402

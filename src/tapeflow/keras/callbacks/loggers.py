"""The callbacks of ``tf.keras.callbacks`` that record or report each epoch's logs (Keras 3): ``History`` keeps
them, ``ProgbarLogger`` prints Keras's progress bar, ``CSVLogger`` writes one CSV row per epoch.
"""

from __future__ import annotations

import collections
import csv
import os

import numpy as np

from ..utils.progbar import Progbar
from .base import Callback, _print_msg

__all__ = ["History", "ProgbarLogger", "CSVLogger"]


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

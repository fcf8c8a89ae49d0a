"""The callbacks of ``tf.keras.callbacks`` that watch a logged value (Keras 3): ``EarlyStopping``,
``ModelCheckpoint`` (both through the monitor logic ``ReduceLROnPlateau`` shares) and ``TerminateOnNaN``.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from .base import Callback, _print_msg

__all__ = ["EarlyStopping", "ModelCheckpoint", "TerminateOnNaN"]


def _as_keras_operand(value):
    # Keras compares through its ops, which turn Python numbers into float32 tensors: ties are decided in float32.
    if isinstance(value, (bool, int, float)):
        return np.float32(value)
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def _less(a, b):
    return bool(np.less(_as_keras_operand(a), _as_keras_operand(b)))


def _greater(a, b):
    return bool(np.greater(_as_keras_operand(a), _as_keras_operand(b)))


class _MonitorCallback(Callback):
    """Shared logic of callbacks that watch one logged metric and track its best value."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ["auto", "min", "max"]:
            warnings.warn(f"{self.__class__.__name__} mode '{mode}' is unknown, fallback to auto mode.",
                          stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = _less
        elif self.mode == "max":
            self.monitor_op = _greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = _less
            # Keras looks only inside the compiled-metrics containers of ``model.metrics``, using each metric's
            # declared direction.
            for container in getattr(self.model, "metrics", None) or []:
                children = getattr(container, "metrics", None)
                if not isinstance(children, (list, tuple)):
                    continue
                for metric in children:
                    if getattr(metric, "name", None) == name and hasattr(metric, "_direction"):
                        self.monitor_op = _greater if metric._direction == "up" else _less
            if self.monitor_op is None:
                raise ValueError(
                    f"{self.__class__.__name__} callback received monitor={self.monitor}, but Keras isn't able to "
                    "automatically determine whether that metric should be maximized or minimized. Pass "
                    "`mode='max'` in order to monitor based on the highest metric value, or pass `mode='min'` in "
                    "order to use the lowest value.")
        if self.monitor_op is _less:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return self.monitor_op(monitor_value - self.min_delta, reference_value)


class EarlyStopping(_MonitorCallback):
    """Stop training (``model.stop_training = True``) once ``monitor`` has not improved for ``patience`` epochs.

    An improvement must beat the best value by more than ``min_delta``; ``mode="auto"`` minimizes losses and uses
    the compiled metric's direction otherwise. With ``baseline``, improvements that do not beat it do not reset
    the wait. Epochs before ``start_from_epoch`` are ignored. With ``restore_best_weights``, the best epoch's
    weights (from ``model.get_weights()``) are put back at the end of training, even if training did not stop early.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        """Reset the wait counter, best value and saved weights."""
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        """Compare the monitored value with the best so far and stop once the patience is used up."""
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Keep the first watched epoch's weights so there is something to restore even without improvement.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        """Report the stop (verbose) and restore the best weights if asked to."""
        if self.stopped_epoch > 0 and self.verbose > 0:
            _print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                _print_msg(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        """The monitored value from ``logs``, or ``None`` with a warning listing the available keys."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(list(logs.keys()))}", stacklevel=2)
        return value


def _writes_files(model):
    """Whether this process writes the model's files: under a ``tf.distribute`` strategy spanning several
    processes only rank 0 does (the others would write the same bytes to the same paths at once)."""
    comm = getattr(getattr(model, "__dict__", {}).get("_distribute_strategy"), "_comm", None)
    return comm is None or comm.rank == 0


class ModelCheckpoint(_MonitorCallback):
    """Save the model (``model.save``) or its weights (``model.save_weights``) every epoch or every N batches.

    ``filepath`` may hold format fields filled from the epoch number (1-based ``{epoch}``), the batch (``{batch}``,
    1-based, when saving by batch) and the logs (``{val_loss:.2f}``). It must end in ``.weights.h5`` when
    ``save_weights_only`` and in ``.keras`` (or ``.h5``) otherwise. With ``save_best_only`` a save happens only when
    ``monitor`` improves on the best so far (``initial_value_threshold`` seeds the best).
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath) if isinstance(filepath, os.PathLike) else filepath
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}. Expected save_freq are 'epoch' or integer "
                             "values")
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                                 "must end in `.weights.h5` (Keras weights format). Received: "
                                 f"filepath={self.filepath}")
        elif not any(self.filepath.endswith(ext) for ext in (".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")

    def on_train_batch_end(self, batch, logs=None):
        """Save when ``save_freq`` batches have passed since the last save."""
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        """Remember the epoch (for batch-frequency file names)."""
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        """Save at the end of the epoch when ``save_freq="epoch"``."""
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        # A batch index that does not grow means a new epoch started: count it from zero.
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch, batch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                _print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            return True
        if hasattr(current, "shape") and len(current.shape) > 0:
            warnings.warn(f"Can save best model only when `monitor` is a scalar value. Received: {current}. "
                          "Falling back to `save_best_only=False`.", stacklevel=2)
            return True
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                _print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to {current:.5f}, saving "
                           f"model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            _print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best_str}")
        return False

    def _save_model(self, epoch, batch, logs):
        filepath = self._get_file_path(epoch, batch, logs)
        try:
            if self._should_save_model(epoch, batch, logs, filepath) and _writes_files(self.model):
                dirname = os.path.dirname(filepath)
                if dirname and not os.path.exists(dirname):
                    os.makedirs(dirname)
                if self.save_weights_only:
                    self.model.save_weights(filepath, overwrite=True)
                else:
                    self.model.save(filepath, overwrite=True)
                if self.verbose > 0:
                    _print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")
        except IsADirectoryError:
            raise OSError("Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an existing "
                          f"directory: {filepath}") from None
        except OSError as e:
            if "is a directory" in str(e.args[0]).lower():
                # Keras's message really has a stray "f" before the path.
                raise OSError("Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an "
                              f"existing directory: f{filepath}") from None
            raise

    def _get_file_path(self, epoch, batch, logs):
        logs = logs or {}
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from None


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

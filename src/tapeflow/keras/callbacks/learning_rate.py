"""The callbacks of ``tf.keras.callbacks`` that set the optimizer's learning rate (Keras 3):
``LearningRateScheduler`` (from a schedule of the epoch) and ``ReduceLROnPlateau`` (when a monitored value stalls).
Both log the current rate as ``learning_rate`` (``learning_rate_<name>`` per part of a multi-optimizer).
"""

from __future__ import annotations

import warnings

import numpy as np

from .base import Callback, _print_msg, _to_float
from .monitor import _MonitorCallback

__all__ = ["LearningRateScheduler", "ReduceLROnPlateau"]


def _optimizers_of(model):
    """The optimizer, or the parts of a multi-optimizer (anything with an ``optimizers`` attribute)."""
    optimizer = model.optimizer
    if hasattr(optimizer, "optimizers"):
        return list(optimizer.optimizers), True
    return [optimizer], False


class LearningRateScheduler(Callback):
    """At each epoch start, set the optimizer's learning rate to ``schedule(epoch, lr)`` (or ``schedule(epoch)``).

    ``lr`` is the current rate as a Python float; the result must be a Python or NumPy float (else ``ValueError``).
    At each epoch end the rate is written to ``logs["learning_rate"]``.
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def _update_optimizer_lr(self, optimizer, epoch):
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, _to_float(optimizer.learning_rate))
        except TypeError:  # a one-argument schedule (Keras's own fallback, whatever raised the TypeError)
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        return learning_rate

    def on_epoch_begin(self, epoch, logs=None):
        """Set the new learning rate (on every part of a multi-optimizer)."""
        optimizers, multi = _optimizers_of(self.model)
        for opt in optimizers:
            learning_rate = self._update_optimizer_lr(opt, epoch)
            if self.verbose > 0:
                which = f" {opt.name}" if multi else ""
                _print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting{which} learning rate to "
                           f"{learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        """Log the current learning rate as ``learning_rate`` (``learning_rate_<name>`` per sub-optimizer)."""
        logs = logs or {}
        optimizers, multi = _optimizers_of(self.model)
        for opt in optimizers:
            logs[f"learning_rate_{opt.name}" if multi else "learning_rate"] = _to_float(opt.learning_rate)


class ReduceLROnPlateau(_MonitorCallback):
    """Multiply the learning rate by ``factor`` (not below ``min_lr``) after ``patience`` epochs without improvement.

    After a reduction, ``cooldown`` epochs pass before waiting starts again. The default ``min_delta`` is 1e-4.
    The current rate is logged as ``learning_rate`` each epoch.
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def _reduce_optimizer_lr(self, optimizer, epoch, name=""):
        old_lr = _to_float(optimizer.learning_rate)
        if old_lr <= np.float32(self.min_lr):
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            which = f" {name}" if name else ""
            _print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing{which} learning rate to {new_lr}.")
        return True

    def on_train_begin(self, logs=None):
        """Forget the best value, the wait and the cooldown."""
        self._reset()

    def in_cooldown(self):
        """Whether a reduction happened less than ``cooldown`` epochs ago."""
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        """Log the learning rate, then reduce it if the monitored value has plateaued."""
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs or {}
        optimizers, multi = _optimizers_of(self.model)
        for opt in optimizers:
            logs[f"learning_rate_{opt.name}" if multi else "learning_rate"] = _to_float(opt.learning_rate)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(list(logs.keys()))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                reduced = False
                for opt in optimizers:
                    if self._reduce_optimizer_lr(opt, epoch, opt.name if multi else ""):
                        reduced = True
                if reduced:
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

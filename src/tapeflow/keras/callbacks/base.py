"""The ``Callback`` base of ``tf.keras.callbacks`` (Keras 3), and ``LambdaCallback``, a callback made of functions.

A callback sees the loop only through its hooks and the ``logs`` dicts passed to them, plus ``self.model`` (for
``stop_training``, the optimizer's learning rate, weights) and ``self.params`` (``epochs``, ``steps``, ``verbose``).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["Callback", "LambdaCallback"]


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

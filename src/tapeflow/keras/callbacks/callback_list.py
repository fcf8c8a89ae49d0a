"""``CallbackList``: several callbacks behind one set of hooks, as ``Model.fit`` drives them (and custom loops may).
"""

from __future__ import annotations

from .base import Callback, _is_default
from .loggers import History, ProgbarLogger

__all__ = ["CallbackList"]


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


# The batch hooks whose default forwards to an older name.
_LEGACY = {"on_train_batch_begin": "on_batch_begin", "on_train_batch_end": "on_batch_end"}


def _flatten(callbacks):
    out = []
    for item in callbacks:
        if isinstance(item, (list, tuple)):
            out.extend(_flatten(item))
        else:
            out.append(item)
    return out


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
        # Only to the callbacks that do something on it: a batch hook runs on every step, and a hook no callback
        # overrides (nor its old name, which the default forwards to) would only read the logs' values for nothing.
        legacy = _LEGACY.get(hook)
        takers = [c for c in self.callbacks if not _is_default(getattr(c, hook)) or
                  (legacy is not None and not _is_default(getattr(c, legacy)))]
        if not takers:
            return
        logs = _pythonify_logs(logs)
        for callback in takers:
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

"""Keras callbacks for Horovod-style training (``hvd.callbacks``): start every rank from rank 0's weights, and
report metrics averaged over the ranks."""

from __future__ import annotations

import numpy as np

from ..keras.callbacks import Callback

__all__ = ["BroadcastGlobalVariablesCallback", "MetricAverageCallback"]


class BroadcastGlobalVariablesCallback(Callback):
    """Give every rank rank ``root_rank``'s model (and optimizer) variables when training begins; the optimizer's
    variables again after the first batch, when a lazily built optimizer has made them."""

    def __init__(self, root_rank=0, device=""):
        super().__init__()
        self.root_rank = root_rank
        self._optimizer_done = False

    def _optimizer_variables(self):
        optimizer = getattr(self.model, "optimizer", None)
        return list(getattr(optimizer, "variables", []) or []) if optimizer is not None else []

    def on_train_begin(self, logs=None):
        from . import broadcast_variables

        broadcast_variables(self.model.variables, self.root_rank)
        optimizer_variables = self._optimizer_variables()
        if optimizer_variables and getattr(self.model.optimizer, "built", False):
            broadcast_variables(optimizer_variables, self.root_rank)
            self._optimizer_done = True

    def on_train_batch_end(self, batch, logs=None):
        if self._optimizer_done:
            return
        from . import broadcast_variables

        broadcast_variables(self._optimizer_variables(), self.root_rank)
        self._optimizer_done = True


class MetricAverageCallback(Callback):
    """Replace each numeric value of the epoch's logs with its average over the ranks (keys in sorted order)."""

    def on_epoch_end(self, epoch, logs=None):
        if not logs:
            return
        from ..distribute._collective import allreduce_arrays
        from . import size

        if size() == 1:
            return
        keys = sorted(k for k, v in logs.items() if isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
        values = np.array([float(logs[k]) for k in keys], dtype=np.float64)
        averaged = allreduce_arrays([values], ["logs:" + ",".join(keys)], average=True, what="MetricAverageCallback")
        for k, v in zip(keys, averaged[0]):
            logs[k] = float(v)

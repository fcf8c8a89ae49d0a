"""``fit``, ``evaluate`` and ``predict`` under a ``tf.distribute`` strategy with several replicas (one per
process of an ``mpiexec`` job), as Keras on TensorFlow runs them:

* the model keeps the strategy current when it was made (``model.distribute_strategy``), and the loops run in its
  scope, each step through ``strategy.run`` (so the optimizer sums the replicas' gradients);
* every process walks the same global batches (a shuffle is rank 0's permutation, broadcast) and steps on its part
  of each, split as ``experimental_distribute_dataset`` splits them (a dataset it made is iterated as it is);
* the progress bar prints on rank 0 only; the epoch's logs and ``evaluate``'s results are the metrics over all
  replicas (their state variables summed, or averaged for ``"mean"`` ones, before ``result()``);
* ``predict`` returns the outputs of all replicas, in the order of the input, on every process.
"""

from __future__ import annotations

import sys

import numpy as np

from ..._core import nest

__all__ = ["strategy_of", "Sharding"]


def strategy_of(model):
    """The strategy ``model`` trains under with several replicas, else ``None``."""
    strategy = model.__dict__.get("_distribute_strategy")
    if strategy is None:
        context = sys.modules.get("tapeflow.distribute._context")
        strategy = None if context is None else context.current()[0]
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return None
    return strategy


class Sharding:
    """The per-process side of one loop under ``strategy`` (see the module docstring)."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.comm = strategy._comm

    @property
    def chief(self):
        return self.comm.rank == 0

    def per_replica(self, static_batch):
        return None if static_batch is None else -(-static_batch // self.comm.size)

    def epoch(self, batches):
        """``batches.epoch()`` with each batch cut to this process's part."""
        comm = self.comm
        if getattr(batches._dataset, "_tapeflow_distributed_dataset", False):
            yield from batches.epoch()  # split by the strategy already
            return
        batches.order_fn = lambda n: comm.bcast(np.random.permutation(n), 0)
        rows = batches.static_batch
        for step, data in batches.epoch():
            if rows is None:
                first = [t for t in _leaves(data) if getattr(t, "shape", None) is not None and t.shape.rank]
                rows = int(first[0].shape[0])
            per = -(-rows // comm.size)
            start = comm.rank * per
            yield step, nest.map_structure(lambda t, s=start, p=per: t[s:s + p] if _batched(t) else t, data)

    def metric_logs(self, model, logs):
        """``logs`` with each metric's value over all replicas."""
        from ...distribute._collective import allreduce_arrays

        variables, arrays, kinds = [], [], []
        for metric in model.metrics:
            for v in metric.variables:
                kind = str(getattr(v, "aggregation", "sum") or "sum")
                if kind == "only_first_replica":
                    continue
                variables.append(v)
                arrays.append(np.asarray(v.numpy()))
                kinds.append(kind)
        if not variables:
            return logs
        names = [str(getattr(v, "path", None) or v.name) for v in variables]
        summed = allreduce_arrays(arrays, names, comm=self.comm, what="metrics")
        for v, total, kind in zip(variables, summed, kinds):
            v.assign(total / self.comm.size if kind == "mean" else total)
        try:
            results = model.get_metrics_result()
        finally:
            for v, local in zip(variables, arrays):
                v.assign(local)
        out = dict(logs)
        for key, value in results.items():
            if key in out:
                out[key] = value
        return out

    def gather(self, outputs):
        """One batch's outputs (NumPy, nested) of every replica, concatenated in rank order."""
        return nest.map_structure(self.comm.allgatherv, outputs)


def _batched(t):
    shape = getattr(t, "shape", None)
    return shape is not None and bool(len(shape))


def _leaves(data):
    return nest.flatten(data)

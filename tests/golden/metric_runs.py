"""What the Keras metric golden cases record of a metric, and the sample inputs several of them share.

A run feeds a metric a list of updates, ``[((y_true, y_pred), {"sample_weight": ...}), ...]``, and records its
state after each update and after a final ``reset_state``: the result, every state variable (path, dtype, value),
the config and the dtype.
"""

import numpy as np

# Binary labels and scores.
BT = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
BP = [0.1, 0.8, 0.35, 0.6, 0.95, 0.2]
BT2 = [[1.0, 0.0], [1.0, 1.0]]
BP2 = [[0.55, 0.15], [0.45, 0.05]]
# One-hot labels and probabilities over three classes.
PT = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
PP = [[0.1, 0.7, 0.2], [0.05, 0.5, 0.45], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
# Positive values (for logarithms and rates).
POS = [[1.0, 2.0, 0.5], [0.2, 3.0, 1.5]]
POS2 = [[0.5, 2.5, 1.0], [0.4, 1.0, 2.0]]


def config(m):
    """``m.get_config()`` with list and tuple values as plain lists (Keras hands back its TrackedList)."""
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in m.get_config().items()}


def state(m):
    """The result, the state variables as ``[path, dtype, value]``, the config and the dtype."""
    return {"result": m.result(), "vars": [[v.path, v.dtype, v.numpy()] for v in m.variables],
            "config": config(m), "dtype": m.dtype}


def state_and_name(m):
    """:func:`state` plus the result's value as an array and the name.

    Multi-threshold counts hand back the live accumulator variable: the array snapshots its value.
    """
    return {"result": m.result(), "value": np.array(m.result()),
            "vars": [[v.path, v.dtype, v.numpy()] for v in m.variables], "config": config(m), "dtype": m.dtype,
            "name": m.name}


def run(m, updates, record=state):
    """``record(m)`` after each update of ``updates`` and after ``reset_state()``."""
    out = []
    for args, kwargs in updates:
        m.update_state(*args, **kwargs)
        out.append(record(m))
    m.reset_state()
    out.append(record(m))
    return out


def run_named(m, updates):
    """:func:`run` recording :func:`state_and_name`."""
    return run(m, updates, state_and_name)


def as_float64(updates):
    """The updates with their float lists as float64 arrays.

    The per-sample losses run in the inputs' dtype: float64 inputs keep a float64 metric free of float32 ulps.
    """
    def conv(x):
        return np.asarray(x, np.float64) if isinstance(x, list) and not isinstance(x[0], int) else x

    return [(tuple(conv(a) for a in args), kwargs) for args, kwargs in updates]


def both_dtypes(tf, cls_name, updates, **kwargs):
    """Runs (recording :func:`state_and_name`) of ``tf.keras.metrics.<cls_name>`` in the default dtype and in
    float64 (on float64 inputs)."""
    cls = getattr(tf.keras.metrics, cls_name)
    return {"None": run_named(cls(**kwargs), updates),
            "float64": run_named(cls(dtype="float64", **kwargs), as_float64(updates))}


def regression_updates(t, p, elementwise=False):
    """Updates of ``(t, p)``: unweighted, weighted per sample, one sample with a scalar weight (and, with
    ``elementwise``, weighted per element)."""
    out = [((t, p), {}), ((t, p), {"sample_weight": [1.0, 0.25]}), ((t[0], p[0]), {"sample_weight": 2.0})]
    if elementwise:
        out.append(((t, p), {"sample_weight": [[1.0, 0.0, 2.0], [0.5, 1.0, 1.0]]}))
    return out

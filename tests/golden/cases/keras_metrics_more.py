"""tf.keras.metrics, more classes (Keras 3.15): the regression, probabilistic and hinge means and the confusion
condition counts, over several updates with and without sample weights, results, resets, variable paths and
dtypes, configs and names.
"""

import numpy as np

from tests.golden.harness import case, catch

RT = [[0.0, 1.0, 2.0], [1.5, -1.0, 0.5]]
RP = [[0.5, 1.0, 1.0], [1.0, 0.5, 0.25]]
PT = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
PP = [[0.1, 0.7, 0.2], [0.05, 0.5, 0.45], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
LOGITS = [[1.0, 2.0, -1.0], [0.5, -0.5, 0.0], [-2.0, 1.0, 3.0], [0.0, 0.0, 0.0]]
SPARSE = [1, 0, 2, 1]
BT = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
BP = [0.1, 0.8, 0.35, 0.6, 0.95, 0.2]
BT2 = [[1.0, 0.0], [1.0, 1.0]]
BP2 = [[0.55, 0.15], [0.45, 0.05]]
POS = [[1.0, 2.0, 0.5], [0.2, 3.0, 1.5]]
POS2 = [[0.5, 2.5, 1.0], [0.4, 1.0, 2.0]]


def _config(m):
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in m.get_config().items()}


def _state(m):
    # Multi-threshold counts hand back the live accumulator variable: snapshot its value too.
    return {"result": m.result(), "value": np.array(m.result()),
            "vars": [[v.path, v.dtype, v.numpy()] for v in m.variables], "config": _config(m), "dtype": m.dtype,
            "name": m.name}


def _run(m, updates):
    out = []
    for args, kwargs in updates:
        m.update_state(*args, **kwargs)
        out.append(_state(m))
    m.reset_state()
    out.append(_state(m))
    return out


def _f64(updates):
    # The per-sample losses run in the inputs' dtype: float64 inputs keep the float64 metric free of float32 ulps.
    def conv(x):
        return np.asarray(x, np.float64) if isinstance(x, list) and not isinstance(x[0], int) else x

    return [(tuple(conv(a) for a in args), kwargs) for args, kwargs in updates]


def _both_dtypes(tf, cls_name, updates, **kwargs):
    cls = getattr(tf.keras.metrics, cls_name)
    return {"None": _run(cls(**kwargs), updates), "float64": _run(cls(dtype="float64", **kwargs), _f64(updates))}


def _regression_updates(t, p, elementwise=False):
    out = [((t, p), {}), ((t, p), {"sample_weight": [1.0, 0.25]}), ((t[0], p[0]), {"sample_weight": 2.0})]
    if elementwise:
        out.append(((t, p), {"sample_weight": [[1.0, 0.0, 2.0], [0.5, 1.0, 1.0]]}))
    return out


@case
def root_mean_squared_error(tf):
    res = _both_dtypes(tf, "RootMeanSquaredError", _regression_updates(RT, RP, elementwise=True))
    m = tf.keras.metrics.RootMeanSquaredError(name="r")
    res["call"] = [m.result(), m([1, 2, 3], [2, 2, 5]), m([[1.0], [2.0]], [3.0, 2.0])]
    return res


@case
def mean_absolute_percentage_error(tf):
    return _both_dtypes(tf, "MeanAbsolutePercentageError", _regression_updates(RT, RP))


@case
def mean_squared_logarithmic_error(tf):
    return _both_dtypes(tf, "MeanSquaredLogarithmicError", _regression_updates(POS, POS2))


@case
def cosine_similarity(tf):
    res = _both_dtypes(tf, "CosineSimilarity", _regression_updates(RT, RP))
    res["axis0"] = _run(tf.keras.metrics.CosineSimilarity(axis=0),
                       [((RT, RP), {}), ((RT, RP), {"sample_weight": 0.5})])
    return res


@case
def log_cosh_error(tf):
    return _both_dtypes(tf, "LogCoshError", _regression_updates(RT, RP))


@case
def binary_crossentropy_metric(tf):
    upd = [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 0.5]}), ((BT2, BP2), {})]
    res = _both_dtypes(tf, "BinaryCrossentropy", upd)
    res["logits_smooth"] = _run(tf.keras.metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.1),
                                [((BT2, [[1.0, -2.0], [0.5, 3.0]]), {}), ((BT, BP), {"sample_weight": 2.0})])
    return res


@case
def categorical_crossentropy_metric(tf):
    upd = [((PT, PP), {}), ((PT, PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    res = _both_dtypes(tf, "CategoricalCrossentropy", upd)
    res["logits_smooth"] = _run(tf.keras.metrics.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2),
                                [((PT, LOGITS), {}), ((PT, LOGITS), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})])
    return res


@case
def sparse_categorical_crossentropy_metric(tf):
    upd = [((SPARSE, PP), {}), (([[1], [0], [2], [1]], PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    res = _both_dtypes(tf, "SparseCategoricalCrossentropy", upd)
    res["logits_ignore"] = _run(tf.keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=2),
                                [((SPARSE, LOGITS), {}), (([2, 0, 2, 1], LOGITS), {"sample_weight": [1, 2, 3, 4]})])
    return res


@case
def kl_divergence_poisson(tf):
    upd = [((PT, PP), {}), ((PT, PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    return {"kl": _both_dtypes(tf, "KLDivergence", upd),
            "poisson": _both_dtypes(tf, "Poisson", _regression_updates(POS, POS2))}


@case
def hinge_metrics(tf):
    ht = [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    hp = [[0.6, 0.4, -0.3], [1.2, -0.8, 0.1]]
    upd = [((ht, hp), {}), ((ht, hp), {"sample_weight": [0.5, 2.0]}), (([[-1.0, 1.0, 1.0]], [[0.3, 2.0, -1.0]]), {})]
    return {"hinge": _both_dtypes(tf, "Hinge", upd), "squared": _both_dtypes(tf, "SquaredHinge", upd),
            "categorical": _both_dtypes(tf, "CategoricalHinge", [((PT, PP), {}),
                                                                 ((PT, PP), {"sample_weight": [1, 2, 3, 4]})])}


@case
def condition_counts(tf):
    M = tf.keras.metrics
    res = {}
    upd = [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 2.0]}),
           ((BT, BP), {"sample_weight": [1.0, 0.0, 2.0, 1.0, 0.5, 3.0]}), ((BT2, BP2), {})]
    for cls in ("TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"):
        res[cls] = _run(getattr(M, cls)(), upd)
        res[cls + "_thr"] = _run(getattr(M, cls)(thresholds=[0.0, 0.3, 0.5, 0.9], name="t"), upd)
        res[cls + "_even"] = _run(getattr(M, cls)(thresholds=[0.0, 0.5, 1.0], dtype="float64"), upd[:2])
        res[cls + "_one"] = _run(getattr(M, cls)(thresholds=0.25), upd[:1])
    return res


@case
def names_and_errors(tf):
    tf.keras.backend.clear_session()
    M = tf.keras.metrics
    names = [M.TruePositives().name, M.TruePositives().name, M.FalseNegatives().name, M.Hinge().name,
             M.Hinge(name=None).name, M.LogCoshError().name, M.KLDivergence().name,
             M.RootMeanSquaredError().name, [v.path for v in M.TrueNegatives(name="tn").variables],
             [v.path for v in M.RootMeanSquaredError(name="r").variables]]
    errors = [catch(lambda: M.TruePositives(thresholds=[0.5, 1.5])), catch(lambda: M.FalsePositives(thresholds=-1)),
              catch(lambda: M.BinaryCrossentropy()([0.0, 1.0], [[0.2], [0.3], [0.4]]))]
    return {"names": names, "errors": errors}

"""tf.keras.metrics (Keras 3.15): IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU, FBetaScore, F1Score,
R2Score, PearsonCorrelation, ConcordanceCorrelation and the two correlation functions.

Several updates (with and without sample weights), results, resets, variable paths, dtypes and values, configs and
errors. Every metric gets an explicit name (default names draw from the shared counter).
"""

import warnings

import numpy as np

from tests.golden.harness import case, catch


def _config(m):
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in m.get_config().items()}


def _state(m):
    return {"result": m.result(), "vars": [[v.path, v.dtype, v.numpy()] for v in m.variables],
            "config": _config(m), "dtype": m.dtype}


def _run(tf, m, updates):
    out = []
    for args, kw in updates:
        m.update_state(*args, **kw)
        out.append(_state(m))
    m.reset_state()
    out.append(_state(m))
    return out


YT = [0, 1, 2, 1, 2, 0, 3]
YP = [0, 2, 2, 1, 1, 0, 3]
W = [1.0, 0.5, 2.0, 1.0, 0.0, 3.0, 1.0]

# ---------------------------------------------------------------------------------------------------- IoU


@case
def iou_basic(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[0, 2], name="iou")
    return _run(tf, m, [((YT, YP), {}), ((YT[:3], YP[:3]), {})])


@case
def iou_float_dtype_weights(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[1, 2, 3], name="iou", dtype="float32")
    return _run(tf, m, [((YT, YP), {"sample_weight": W}), ((np.array(YT), np.array(YP)), {})])


@case
def iou_int_dtype_float_weights(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[0, 1], name="iou")
    m.update_state(YT, YP, sample_weight=[0.3, 1.5, 2.7, 1.0, 0.9, 3.2, 1.0])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m.update_state(YT, YP, sample_weight=tf.constant(W))
    return [_state(m), [str(r.message) for r in rec]]


@case
def iou_out_of_range_and_ignore(tf):
    m = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 1, 2], name="iou", ignore_class=1)
    m.update_state([0, 1, 2, 5, -1, 2], [0, 1, 1, 2, 0, 7])
    m2 = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 2], name="iou2")
    m2.update_state([[0, 1], [2, 2]], [[0.4, 1.9], [2.0, 1.0]])
    return [_state(m), _state(m2)]


@case
def iou_dense_inputs(tf):
    yt = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    yp = [[0.1, 0.7, 0.2], [0.05, 0.5, 0.45], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
    m = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[1], name="iou", sparse_y_true=False,
                             sparse_y_pred=False, dtype="float32")
    return _run(tf, m, [((yt, yp), {}), ((yt, yp), {"sample_weight": [0.5, 1.0, 2.0, 0.25]})])


@case
def iou_errors(tf):
    return [catch(tf.keras.metrics.IoU, num_classes=2, target_class_ids=[0, 2]),
            catch(tf.keras.metrics.OneHotIoU, num_classes=2, target_class_ids=[3])]


@case
def mean_iou(tf):
    m = tf.keras.metrics.MeanIoU(num_classes=4, name="miou")
    m2 = tf.keras.metrics.MeanIoU(num_classes=4, name="miou2", dtype="float64", ignore_class=0)
    return [_run(tf, m, [((YT, YP), {}), (([0, 0], [1, 1]), {})]),
            _run(tf, m2, [((YT, YP), {"sample_weight": W})])]


@case
def mean_iou_empty(tf):
    m = tf.keras.metrics.MeanIoU(num_classes=3, name="miou")
    return [m.result(), _config(m)]


@case
def binary_iou(tf):
    m = tf.keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3, name="biou")
    m2 = tf.keras.metrics.BinaryIoU(target_class_ids=[1], name="biou2", dtype="float32")
    m3 = tf.keras.metrics.BinaryIoU(name="biou3")
    upd = [(([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), {}),
           (([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), {"sample_weight": [0.2, 0.3, 0.4, 0.1]})]
    return [_run(tf, m, upd), _run(tf, m2, upd), _run(tf, m3, [(([[0, 1], [1, 1]], [[0.5, 0.49], [0.9, 0.51]]), {})])]


@case
def one_hot_iou(tf):
    yt = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]])
    yp = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]])
    m = tf.keras.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2], name="ohiou", dtype="float32")
    m2 = tf.keras.metrics.OneHotMeanIoU(num_classes=3, name="ohmiou")
    m3 = tf.keras.metrics.OneHotMeanIoU(num_classes=3, name="ohmiou2", sparse_y_pred=True, dtype="float32")
    return [_run(tf, m, [((yt, yp), {"sample_weight": [0.1, 0.2, 0.3, 0.4]})]),
            _run(tf, m2, [((yt, yp), {})]),
            _run(tf, m3, [((yt, [2, 0, 1, 1]), {})])]


# ------------------------------------------------------------------------------------------------ F-scores

FT = [[0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0], [0, 1, 0]]
FP = [[0.2, 0.6, 0.7], [0.9, 0.3, 0.1], [0.4, 0.4, 0.3], [0.5, 0.8, 0.2], [0.0, 0.0, 0.0]]


@case
def f1_averages(tf):
    out = {}
    for avg in (None, "micro", "macro", "weighted"):
        m = tf.keras.metrics.F1Score(average=avg, name="f1")
        out[str(avg)] = _run(tf, m, [((FT, FP), {}), ((FT[:2], FP[:2]), {"sample_weight": [0.5, 2.0]})])
    return out


@case
def f1_threshold(tf):
    out = {}
    for avg in (None, "micro", "macro", "weighted"):
        m = tf.keras.metrics.F1Score(average=avg, threshold=0.5, name="f1")
        out[str(avg)] = _run(tf, m, [((FT, FP), {"sample_weight": [1.0, 0.5, 2.0, 1.0, 3.0]})])
    return out


@case
def fbeta(tf):
    out = {}
    for avg in (None, "micro", "weighted"):
        m = tf.keras.metrics.FBetaScore(average=avg, beta=2.0, threshold=0.35, name="fb")
        out[str(avg)] = _run(tf, m, [((FT, FP), {}), ((np.array(FT[2:]), np.array(FP[2:])), {})])
    m = tf.keras.metrics.FBetaScore(beta=0.5, name="fb2", dtype="float64")
    out["f64"] = _run(tf, m, [((FT, FP), {})])
    return out


@case
def fbeta_empty_and_config(tf):
    m = tf.keras.metrics.FBetaScore(name="fb")
    return [_config(m), [v.path for v in m.variables], _config(tf.keras.metrics.F1Score(average="macro", name="f")),
            _config(tf.keras.metrics.F1Score()), _config(tf.keras.metrics.FBetaScore())]


@case
def fbeta_errors(tf):
    F = tf.keras.metrics.FBetaScore
    m = F(name="fb")
    return [catch(F, average="samples"), catch(F, beta=1), catch(F, beta=-1.0), catch(F, threshold=1),
            catch(F, threshold=1.5), catch(F, threshold=0.0), catch(tf.keras.metrics.F1Score, average="x"),
            catch(m.update_state, [1.0, 0.0], [0.3, 0.2])]


# -------------------------------------------------------------------------------------------------------- R2

RT = [[1.0, 2.0], [2.0, 1.5], [3.0, 0.0], [4.5, 2.0], [0.0, 1.0]]
RP = [[1.2, 1.8], [1.9, 1.0], [3.3, 0.4], [4.0, 2.5], [0.5, 1.1]]


@case
def r2_aggregations(tf):
    out = {}
    for agg in ("uniform_average", "variance_weighted_average", None):
        m = tf.keras.metrics.R2Score(class_aggregation=agg, name="r2")
        out[str(agg)] = _run(tf, m, [((RT, RP), {}), ((RT[:3], RP[:3]), {"sample_weight": [1.0, 0.5, 2.0]})])
    return out


@case
def r2_adjusted(tf):
    out = []
    for p in (1, 3, 9, 12):
        m = tf.keras.metrics.R2Score(num_regressors=p, name="r2")
        m.update_state(RT, RP)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            r = m.result()
        out.append([r, [str(x.message) for x in rec]])
    return out


@case
def r2_shapes_and_constant(tf):
    m = tf.keras.metrics.R2Score(name="r2")
    m.update_state([[1.0], [2.0], [3.0]], [1.5, 2.0, 2.0])
    m2 = tf.keras.metrics.R2Score(name="r2b")
    m2.update_state([[1.0, 2.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 2.0]])
    m3 = tf.keras.metrics.R2Score(name="r2c")
    m3.update_state(RT, RP, sample_weight=[[1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    return [_state(m), _state(m2), _state(m3)]


@case
def r2_errors(tf):
    R = tf.keras.metrics.R2Score
    m = R(name="r2")
    return [catch(R, class_aggregation="mean"), catch(R, num_regressors=-1),
            catch(m.update_state, [1.0, 2.0, 3.0], [1.0, 2.0, 2.0]), _config(R())]


# ---------------------------------------------------------------------------------------------- correlation

CT = [[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 0.5, 3.0], [0.0, 1.0, 0.0, 1.0]]
CP = [[1.1, 2.2, 2.9, 4.5], [1.0, 2.0, 0.0, 3.5], [0.3, 0.9, 0.2, 0.4]]


@case
def correlation_functions(tf):
    m = tf.keras.metrics
    return [m.pearson_correlation(CT, CP), m.concordance_correlation(CT, CP),
            m.pearson_correlation(CT, CP, axis=0), m.concordance_correlation(CT, CP, axis=0),
            m.pearson_correlation(np.array(CT, np.float64), np.array(CP, np.float64)),
            m.concordance_correlation([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])]


@case
def correlation_metrics(tf):
    out = []
    for cls in ("PearsonCorrelation", "ConcordanceCorrelation"):
        m = getattr(tf.keras.metrics, cls)(name="c")
        out.append(_run(tf, m, [((CT, CP), {}), ((CT[:2], CP[:2]), {"sample_weight": [0.5, 2.0]})]))
        m = getattr(tf.keras.metrics, cls)(name="c0", axis=0)
        out.append(_run(tf, m, [((CT, CP), {})]))
        out.append(_config(getattr(tf.keras.metrics, cls)()))
    return out


@case
def from_config_round_trips(tf):
    M = tf.keras.metrics
    ms = [M.IoU(3, [0, 2], name="a", ignore_class=1), M.MeanIoU(3, name="b"), M.BinaryIoU([1], 0.2, name="c"),
          M.OneHotIoU(3, [1], name="d"), M.OneHotMeanIoU(4, name="e"), M.FBetaScore("micro", 2.0, 0.3, name="f"),
          M.F1Score("macro", name="g"), M.R2Score(None, 2, name="h"), M.PearsonCorrelation(name="i", axis=0),
          M.ConcordanceCorrelation(name="j")]
    return [[type(m).__name__, _config(type(m).from_config(m.get_config()))] for m in ms]

"""tf.keras.metrics (Keras 3.15): state over several updates (with and without sample weights), results, resets,
dtypes, variable paths and values, configs, errors, and the function forms.

Metrics with ``name=None`` draw from the shared name counter, so the naming case clears the session first.
"""

import numpy as np

from tests.golden.harness import case, catch

PT = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
PP = [[0.1, 0.7, 0.2], [0.05, 0.5, 0.45], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
SPARSE = [1, 0, 2, 1]
BT = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
BP = [0.1, 0.8, 0.35, 0.6, 0.95, 0.2]
BT2 = [1.0, 1.0, 0.0, 0.0]
BP2 = [0.55, 0.15, 0.45, 0.05]


def _config(m):
    # Keras hands back list thresholds as its TrackedList; compare them as plain lists.
    return {k: list(v) if isinstance(v, list) else v for k, v in m.get_config().items()}


def _state(m):
    return {"result": m.result(), "vars": [[v.path, v.dtype, v.numpy()] for v in m.variables],
            "config": _config(m), "dtype": m.dtype}


def _run(tf, m, updates):
    out = []
    for args, kwargs in updates:
        m.update_state(*args, **kwargs)
        out.append(_state(m))
    m.reset_state()
    out.append(_state(m))
    return out


@case
def mean_sum_updates(tf):
    res = {}
    for dtype in (None, "float64"):
        for cls in ("Mean", "Sum"):
            m = getattr(tf.keras.metrics, cls)(dtype=dtype)
            res[f"{cls}{dtype}"] = _run(tf, m, [
                (([1.0, 2.0, 3.0],), {}),
                (([[1.0, 2.0], [3.0, 5.0]],), {"sample_weight": [1.0, 0.5]}),
                ((4.0,), {}),
                (([[1.0, 2.0], [3.0, 5.0]],), {"sample_weight": [[1.0, 0.0], [2.0, 1.0]]}),
            ])
    return res


@case
def mean_call_and_empty(tf):
    m = tf.keras.metrics.Mean(name="m")
    first = m.result()
    return [first, m([2.0, 4.0]), m(6.0, sample_weight=0.5), repr(m), str(m)]


@case
def metric_names(tf):
    tf.keras.backend.clear_session()
    M = tf.keras.metrics
    return [M.Mean().name, M.Mean().name, M.Precision().name, M.Precision().name, M.Recall().name,
            M.AUC().name, M.Metric().name, M.Metric().name, M.Mean(name="x").name, M.Accuracy().name,
            [v.path for v in M.Precision(name="p").variables], [v.path for v in M.AUC(name="a").variables]]


@case
def accuracy_classes(tf):
    M = tf.keras.metrics
    res = {}
    res["acc"] = _run(tf, M.Accuracy(), [(([1, 2, 3, 4], [1, 2, 0, 4]), {}),
                                         (([[1], [2]], [[0], [2]]), {"sample_weight": [0.5, 2.0]})])
    res["bin"] = _run(tf, M.BinaryAccuracy(), [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 2.0, 0.0, 1.0]})])
    res["bin_thr"] = _run(tf, M.BinaryAccuracy(threshold=0.3, dtype="float64"), [((BT, BP), {})])
    res["cat"] = _run(tf, M.CategoricalAccuracy(), [((PT, PP), {}), ((PT, PP), {"sample_weight": [1, 2, 3, 4]})])
    res["sparse"] = _run(tf, M.SparseCategoricalAccuracy(), [
        ((SPARSE, PP), {}), (([[1], [1], [2], [0]], PP), {"sample_weight": [1, 0, 1, 1]})])
    res["topk"] = _run(tf, M.TopKCategoricalAccuracy(k=2), [
        ((PT, PP), {}), ((PT, PP), {"sample_weight": [0, 1, 1, 2]})])
    res["stopk"] = _run(tf, M.SparseTopKCategoricalAccuracy(k=1), [
        ((SPARSE, PP), {}), (([2, 1, 0, 0], PP), {"sample_weight": [1, 2, 1, 1]})])
    res["stopk_ids"] = _run(tf, M.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True),
                            [(([1, 0, 2], [[1, 2, 0], [2, 1, 0], [0, 2, 1]]), {})])
    return res


@case
def regression_classes(tf):
    M = tf.keras.metrics
    yt = [[0.0, 1.0, 2.0], [1.5, -1.0, 0.5]]
    yp = [[0.5, 1.0, 4.0], [1.0, 0.0, 0.25]]
    res = {}
    for cls in ("MeanSquaredError", "MeanAbsoluteError"):
        for dtype in (None, "float64"):
            res[f"{cls}{dtype}"] = _run(tf, getattr(M, cls)(dtype=dtype), [
                ((yt, yp), {}), ((yt, yp), {"sample_weight": [2.0, 0.5]}), (([1.0, 2.0], [0.0, 0.0]), {})])
    return res


@case
def precision_recall(tf):
    M = tf.keras.metrics
    res = {}
    for cls in ("Precision", "Recall"):
        c = getattr(M, cls)
        res[cls] = _run(tf, c(name="pr"), [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 2.0, 0.5, 1.0]})])
        res[cls + "_thr"] = _run(tf, c(thresholds=[0.3, 0.5, 0.9], name="pr"), [((BT, BP), {})])
        res[cls + "_even"] = _run(tf, c(thresholds=[0.0, 0.5, 1.0], name="pr"), [((BT, BP), {})])
        res[cls + "_topk"] = _run(tf, c(top_k=2, name="pr"), [((PT, PP), {})])
        res[cls + "_cls"] = _run(tf, c(class_id=1, name="pr"), [((PT, PP), {"sample_weight": [1.0, 2.0, 1.0, 3.0]})])
        res[cls + "_topk_cls"] = _run(tf, c(top_k=1, class_id=2, thresholds=0.1, name="pr"), [((PT, PP), {})])
        res[cls + "_f64"] = c(dtype="float64", name="pr")(BT, BP)
    return res


@case
def auc_variants(tf):
    M = tf.keras.metrics
    res = {}
    for curve in ("ROC", "PR", "PRGAIN"):
        for method in ("interpolation", "majoring", "minoring"):
            m = M.AUC(curve=curve, summation_method=method, num_thresholds=7, name="auc")
            m.update_state(BT, BP)
            r1 = m.result()
            m.update_state(BT2, BP2, sample_weight=[1.0, 2.0, 0.5, 1.0])
            res[curve + method] = [r1, m.result()]
    m = M.AUC(name="auc")
    res["default"] = _run(tf, m, [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 2.0, 0.5, 1.0]})])
    m = M.AUC(thresholds=[0.5, 0.1, 0.9], name="auc")
    res["explicit"] = [m(BT, BP), _config(m), m.thresholds]
    m = M.AUC(from_logits=True, curve="pr", summation_method="Minoring", name="auc", label_weights=None)
    res["logits"] = [m(BT, [-2.0, 1.5, 0.2, 0.3, 3.0, -1.0]), m.get_config()]
    res["out_of_range"] = M.AUC(num_thresholds=5, name="auc")(BT, [-0.5, 1.5, 0.35, 0.6, 2.0, 0.2])
    return res


@case
def errors(tf):
    M = tf.keras.metrics
    return [catch(lambda: M.Precision(thresholds=[0.5, 1.5])), catch(lambda: M.Recall(thresholds=-0.1)),
            catch(lambda: M.AUC(num_thresholds=1)), catch(lambda: M.AUC(curve="bad")),
            catch(lambda: M.AUC(summation_method="bad")), catch(lambda: M.AUC(num_labels=3)),
            catch(lambda: M.Precision(class_id=1, name="p").update_state([1.0, 0.0], [0.6, 0.2])),
            catch(lambda: M.Mean(name="a/b")),
            catch(lambda: M.sparse_top_k_categorical_accuracy([0], np.array([[0.5, 0.2]]), k=1))]


@case
def function_forms(tf):
    M = tf.keras.metrics
    return {
        "bin": M.binary_accuracy(BT, BP), "bin_thr": M.binary_accuracy([[1], [0]], [[0.2], [0.1]], threshold=0.15),
        "bin64": M.binary_accuracy(tf.constant(BT, tf.float64), tf.constant(BP, tf.float64)),
        "cat": M.categorical_accuracy(PT, PP), "sparse": M.sparse_categorical_accuracy(SPARSE, PP),
        "sparse_col": M.sparse_categorical_accuracy([[1], [0], [2], [1]], PP),
        "topk": M.top_k_categorical_accuracy(PT, PP, k=2), "topk_def": M.top_k_categorical_accuracy(PT, PP),
        "stopk": M.sparse_top_k_categorical_accuracy(SPARSE, PP, k=1),
        "stopk_3d": M.sparse_top_k_categorical_accuracy([[1, 0], [2, 1]], np.array(PP, np.float32).reshape(2, 2, 3),
                                                          k=1),
        "ties": M.sparse_top_k_categorical_accuracy([0, 1], [[0.5, 0.5, 0.1], [0.3, 0.3, 0.3]], k=1),
        "mse": M.mse([[1.0, 2.0]], [[0.0, 0.5]]), "mae": M.mae([[1.0, 2.0]], [[0.0, 0.5]]),
        "same": [M.mse is tf.keras.losses.mse, M.kld is tf.keras.losses.kld, M.hinge is tf.keras.losses.hinge],
    }


ML_T = [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
ML_P = [[0.9, 0.2, 0.6], [0.3, 0.4, 0.8], [0.7, 0.6, 0.1], [0.2, 0.9, 0.55]]
_UNEVEN = [0.1, 0.3, 0.45, 0.7, 0.85]


def _auc_multi_label(tf, curve):
    # Uneven thresholds: with even ones TF counts multi-label updates in a traced vectorized map, whose retracing
    # warnings (an artifact tapeflow does not copy) would show in the logs.
    M = tf.keras.metrics
    res = {}
    if True:
        m = M.AUC(thresholds=_UNEVEN, curve=curve, multi_label=True, name="auc")
        before = [v.path for v in m.variables]
        res[curve] = [before, m(ML_T, tf.constant(ML_P)), [v.shape for v in m.variables],
                      m(ML_T, tf.constant(ML_P), sample_weight=[1.0, 2.0, 0.5, 1.0])]
        m.reset_state()
        res[curve].append(m.result())
        m = M.AUC(thresholds=_UNEVEN, curve=curve, multi_label=True, num_labels=3, label_weights=[1.0, 0.0, 2.0],
                  name="auc")
        res[curve + "_lw"] = [[v.shape for v in m.variables], m(ML_T, ML_P, sample_weight=[1.0, 2.0, 0.5, 1.0])]
        m = M.AUC(num_thresholds=9, curve=curve, label_weights=[1.0, 0.5, 2.0], name="auc")
        res[curve + "_pooled_lw"] = [m(ML_T, ML_P), m(ML_T, ML_P, sample_weight=[1.0, 2.0, 0.5, 1.0]),
                                     m.get_config()]
    return res


@case
def auc_multi_label_roc(tf):
    return _auc_multi_label(tf, "ROC")


@case
def auc_multi_label_pr(tf):
    res = _auc_multi_label(tf, "PR")
    res["rank_err"] = catch(lambda: tf.keras.metrics.AUC(multi_label=True, name="auc")([1.0, 0.0],
                                                                                       tf.constant([0.3, 0.6])))
    return res

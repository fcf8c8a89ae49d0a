"""tf.keras.metrics (Keras 3.15): the probabilistic metrics BinaryCrossentropy, CategoricalCrossentropy,
SparseCategoricalCrossentropy (with logits, label smoothing, ignore_class), KLDivergence and Poisson, in the default
dtype and float64, over several updates with and without sample weights: results, resets, variables, configs, names.
"""

from tests.golden.harness import case
from tests.golden.metric_runs import BP, BP2, BT, BT2, POS, POS2, PP, PT, both_dtypes, regression_updates, run_named

LOGITS = [[1.0, 2.0, -1.0], [0.5, -0.5, 0.0], [-2.0, 1.0, 3.0], [0.0, 0.0, 0.0]]
SPARSE = [1, 0, 2, 1]


@case
def binary_crossentropy_metric(tf):
    upd = [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 0.5]}), ((BT2, BP2), {})]
    res = both_dtypes(tf, "BinaryCrossentropy", upd)
    res["logits_smooth"] = run_named(tf.keras.metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.1),
                                     [((BT2, [[1.0, -2.0], [0.5, 3.0]]), {}), ((BT, BP), {"sample_weight": 2.0})])
    return res


@case
def categorical_crossentropy_metric(tf):
    upd = [((PT, PP), {}), ((PT, PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    res = both_dtypes(tf, "CategoricalCrossentropy", upd)
    res["logits_smooth"] = run_named(tf.keras.metrics.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2),
                                     [((PT, LOGITS), {}), ((PT, LOGITS), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})])
    return res


@case
def sparse_categorical_crossentropy_metric(tf):
    upd = [((SPARSE, PP), {}), (([[1], [0], [2], [1]], PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    res = both_dtypes(tf, "SparseCategoricalCrossentropy", upd)
    metric = tf.keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=2)
    res["logits_ignore"] = run_named(metric, [((SPARSE, LOGITS), {}),
                                              (([2, 0, 2, 1], LOGITS), {"sample_weight": [1, 2, 3, 4]})])
    return res


@case
def kl_divergence_poisson(tf):
    upd = [((PT, PP), {}), ((PT, PP), {"sample_weight": [1.0, 2.0, 0.0, 0.5]})]
    return {"kl": both_dtypes(tf, "KLDivergence", upd),
            "poisson": both_dtypes(tf, "Poisson", regression_updates(POS, POS2))}

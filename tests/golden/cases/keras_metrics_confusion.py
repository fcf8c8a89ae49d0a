"""tf.keras.metrics (Keras 3.15): the condition counts TruePositives, FalsePositives, TrueNegatives and FalseNegatives
at one, several and evenly spread thresholds, over several updates with and without sample weights: results (the
live accumulator for several thresholds), resets, variables, configs, names; default names and variable paths
across the metrics, and constructor errors. Precision, Recall and AUC are in keras_metrics.py.

The unnamed counts of ``condition_counts`` draw their names from the shared counter, which no case before it
touches for them; ``names_and_errors`` clears the session first.
"""

from tests.golden.harness import case, catch
from tests.golden.metric_runs import BP, BP2, BT, BT2, run_named


@case
def condition_counts(tf):
    M = tf.keras.metrics
    res = {}
    upd = [((BT, BP), {}), ((BT2, BP2), {"sample_weight": [1.0, 2.0]}),
           ((BT, BP), {"sample_weight": [1.0, 0.0, 2.0, 1.0, 0.5, 3.0]}), ((BT2, BP2), {})]
    for cls in ("TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"):
        res[cls] = run_named(getattr(M, cls)(), upd)
        res[cls + "_thr"] = run_named(getattr(M, cls)(thresholds=[0.0, 0.3, 0.5, 0.9], name="t"), upd)
        res[cls + "_even"] = run_named(getattr(M, cls)(thresholds=[0.0, 0.5, 1.0], dtype="float64"), upd[:2])
        res[cls + "_one"] = run_named(getattr(M, cls)(thresholds=0.25), upd[:1])
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

"""tf.keras.metrics (Keras 3.15): the regression metrics RootMeanSquaredError, MeanAbsolutePercentageError,
MeanSquaredLogarithmicError, CosineSimilarity, LogCoshError (in the default dtype and float64) and R2Score (each
aggregation, adjusted, shapes, errors) over several updates with and without sample weights: results, resets,
variable paths and dtypes, configs. MeanSquaredError and MeanAbsoluteError are in keras_metrics.py.
"""

import warnings

from tests.golden.harness import case, catch
from tests.golden.metric_runs import POS, POS2, both_dtypes, config, regression_updates, run, run_named, state

RT = [[0.0, 1.0, 2.0], [1.5, -1.0, 0.5]]
RP = [[0.5, 1.0, 1.0], [1.0, 0.5, 0.25]]
R2T = [[1.0, 2.0], [2.0, 1.5], [3.0, 0.0], [4.5, 2.0], [0.0, 1.0]]
R2P = [[1.2, 1.8], [1.9, 1.0], [3.3, 0.4], [4.0, 2.5], [0.5, 1.1]]


@case
def root_mean_squared_error(tf):
    res = both_dtypes(tf, "RootMeanSquaredError", regression_updates(RT, RP, elementwise=True))
    m = tf.keras.metrics.RootMeanSquaredError(name="r")
    res["call"] = [m.result(), m([1, 2, 3], [2, 2, 5]), m([[1.0], [2.0]], [3.0, 2.0])]
    return res


@case
def mean_absolute_percentage_error(tf):
    return both_dtypes(tf, "MeanAbsolutePercentageError", regression_updates(RT, RP))


@case
def mean_squared_logarithmic_error(tf):
    return both_dtypes(tf, "MeanSquaredLogarithmicError", regression_updates(POS, POS2))


@case
def cosine_similarity(tf):
    res = both_dtypes(tf, "CosineSimilarity", regression_updates(RT, RP))
    res["axis0"] = run_named(tf.keras.metrics.CosineSimilarity(axis=0),
                             [((RT, RP), {}), ((RT, RP), {"sample_weight": 0.5})])
    return res


@case
def log_cosh_error(tf):
    return both_dtypes(tf, "LogCoshError", regression_updates(RT, RP))


# ------------------------------------------------------------------------------------------------------ R2


@case
def r2_aggregations(tf):
    out = {}
    for agg in ("uniform_average", "variance_weighted_average", None):
        m = tf.keras.metrics.R2Score(class_aggregation=agg, name="r2")
        out[str(agg)] = run(m, [((R2T, R2P), {}), ((R2T[:3], R2P[:3]), {"sample_weight": [1.0, 0.5, 2.0]})])
    return out


@case
def r2_adjusted(tf):
    out = []
    for p in (1, 3, 9, 12):
        m = tf.keras.metrics.R2Score(num_regressors=p, name="r2")
        m.update_state(R2T, R2P)
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
    m3.update_state(R2T, R2P, sample_weight=[[1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    return [state(m), state(m2), state(m3)]


@case
def r2_errors(tf):
    R = tf.keras.metrics.R2Score
    m = R(name="r2")
    return [catch(R, class_aggregation="mean"), catch(R, num_regressors=-1),
            catch(m.update_state, [1.0, 2.0, 3.0], [1.0, 2.0, 2.0]), config(R())]

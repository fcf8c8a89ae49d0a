"""tf.keras.metrics (Keras 3.15): FBetaScore and F1Score with each ``average``, with and without ``threshold``, over
several updates; results, resets, variables, configs and errors.
"""

import numpy as np

from tests.golden.harness import case, catch
from tests.golden.metric_runs import config, run

FT = [[0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0], [0, 1, 0]]
FP = [[0.2, 0.6, 0.7], [0.9, 0.3, 0.1], [0.4, 0.4, 0.3], [0.5, 0.8, 0.2], [0.0, 0.0, 0.0]]


@case
def f1_averages(tf):
    out = {}
    for avg in (None, "micro", "macro", "weighted"):
        m = tf.keras.metrics.F1Score(average=avg, name="f1")
        out[str(avg)] = run(m, [((FT, FP), {}), ((FT[:2], FP[:2]), {"sample_weight": [0.5, 2.0]})])
    return out


@case
def f1_threshold(tf):
    out = {}
    for avg in (None, "micro", "macro", "weighted"):
        m = tf.keras.metrics.F1Score(average=avg, threshold=0.5, name="f1")
        out[str(avg)] = run(m, [((FT, FP), {"sample_weight": [1.0, 0.5, 2.0, 1.0, 3.0]})])
    return out


@case
def fbeta(tf):
    out = {}
    for avg in (None, "micro", "weighted"):
        m = tf.keras.metrics.FBetaScore(average=avg, beta=2.0, threshold=0.35, name="fb")
        out[str(avg)] = run(m, [((FT, FP), {}), ((np.array(FT[2:]), np.array(FP[2:])), {})])
    m = tf.keras.metrics.FBetaScore(beta=0.5, name="fb2", dtype="float64")
    out["f64"] = run(m, [((FT, FP), {})])
    return out


@case
def fbeta_empty_and_config(tf):
    m = tf.keras.metrics.FBetaScore(name="fb")
    return [config(m), [v.path for v in m.variables], config(tf.keras.metrics.F1Score(average="macro", name="f")),
            config(tf.keras.metrics.F1Score()), config(tf.keras.metrics.FBetaScore())]


@case
def fbeta_errors(tf):
    F = tf.keras.metrics.FBetaScore
    m = F(name="fb")
    return [catch(F, average="samples"), catch(F, beta=1), catch(F, beta=-1.0), catch(F, threshold=1),
            catch(F, threshold=1.5), catch(F, threshold=0.0), catch(tf.keras.metrics.F1Score, average="x"),
            catch(m.update_state, [1.0, 0.0], [0.3, 0.2])]

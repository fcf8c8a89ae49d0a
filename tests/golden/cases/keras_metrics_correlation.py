"""tf.keras.metrics (Keras 3.15): pearson_correlation and concordance_correlation along each axis, and
PearsonCorrelation/ConcordanceCorrelation over several updates with and without sample weights.
"""

import numpy as np

from tests.golden.harness import case
from tests.golden.metric_runs import config, run

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
        out.append(run(m, [((CT, CP), {}), ((CT[:2], CP[:2]), {"sample_weight": [0.5, 2.0]})]))
        m = getattr(tf.keras.metrics, cls)(name="c0", axis=0)
        out.append(run(m, [((CT, CP), {})]))
        out.append(config(getattr(tf.keras.metrics, cls)()))
    return out

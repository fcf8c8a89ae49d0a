"""tf.keras.metrics (Keras 3.15): Hinge, SquaredHinge and CategoricalHinge in the default dtype and float64, over
several updates with and without sample weights: results, resets, variables, configs, names.
"""

from tests.golden.harness import case
from tests.golden.metric_runs import PP, PT, both_dtypes


@case
def hinge_metrics(tf):
    ht = [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    hp = [[0.6, 0.4, -0.3], [1.2, -0.8, 0.1]]
    upd = [((ht, hp), {}), ((ht, hp), {"sample_weight": [0.5, 2.0]}), (([[-1.0, 1.0, 1.0]], [[0.3, 2.0, -1.0]]), {})]
    return {"hinge": both_dtypes(tf, "Hinge", upd), "squared": both_dtypes(tf, "SquaredHinge", upd),
            "categorical": both_dtypes(tf, "CategoricalHinge", [((PT, PP), {}),
                                                                ((PT, PP), {"sample_weight": [1, 2, 3, 4]})])}

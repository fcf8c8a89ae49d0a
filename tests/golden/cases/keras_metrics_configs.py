"""tf.keras.metrics (Keras 3.15): get_config/from_config round trips of the IoU, F-score, R2 and correlation metrics.
"""

from tests.golden.harness import case
from tests.golden.metric_runs import config


@case
def from_config_round_trips(tf):
    M = tf.keras.metrics
    ms = [M.IoU(3, [0, 2], name="a", ignore_class=1), M.MeanIoU(3, name="b"), M.BinaryIoU([1], 0.2, name="c"),
          M.OneHotIoU(3, [1], name="d"), M.OneHotMeanIoU(4, name="e"), M.FBetaScore("micro", 2.0, 0.3, name="f"),
          M.F1Score("macro", name="g"), M.R2Score(None, 2, name="h"), M.PearsonCorrelation(name="i", axis=0),
          M.ConcordanceCorrelation(name="j")]
    return [[type(m).__name__, config(type(m).from_config(m.get_config()))] for m in ms]

"""Unit checks of ``tf.keras.metrics`` beyond the golden files."""

import tapeflow as tf


def test_metric_configs_round_trip():
    m = tf.keras.metrics
    for metric in (m.IoU(3, [0, 1]), m.MeanIoU(2), m.BinaryIoU(), m.OneHotMeanIoU(3), m.F1Score("macro"),
                   m.FBetaScore(beta=2.0), m.R2Score(), m.PearsonCorrelation(), m.ConcordanceCorrelation()):
        again = type(metric).from_config(metric.get_config())
        assert again.get_config() == metric.get_config()

"""tf.keras.metrics (Keras 3.15): IoU, MeanIoU, BinaryIoU, OneHotIoU and OneHotMeanIoU over several updates (with and
without sample weights, integer and float dtypes), results, resets, variable paths, dtypes and values, configs and
errors. Every metric gets an explicit name (default names draw from the shared counter).
"""

import warnings

import numpy as np

from tests.golden.harness import case, catch
from tests.golden.metric_runs import config, run, state

YT = [0, 1, 2, 1, 2, 0, 3]
YP = [0, 2, 2, 1, 1, 0, 3]
W = [1.0, 0.5, 2.0, 1.0, 0.0, 3.0, 1.0]


@case
def iou_basic(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[0, 2], name="iou")
    return run(m, [((YT, YP), {}), ((YT[:3], YP[:3]), {})])


@case
def iou_float_dtype_weights(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[1, 2, 3], name="iou", dtype="float32")
    return run(m, [((YT, YP), {"sample_weight": W}), ((np.array(YT), np.array(YP)), {})])


@case
def iou_int_dtype_float_weights(tf):
    m = tf.keras.metrics.IoU(num_classes=4, target_class_ids=[0, 1], name="iou")
    m.update_state(YT, YP, sample_weight=[0.3, 1.5, 2.7, 1.0, 0.9, 3.2, 1.0])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m.update_state(YT, YP, sample_weight=tf.constant(W))
    return [state(m), [str(r.message) for r in rec]]


@case
def iou_out_of_range_and_ignore(tf):
    m = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 1, 2], name="iou", ignore_class=1)
    m.update_state([0, 1, 2, 5, -1, 2], [0, 1, 1, 2, 0, 7])
    m2 = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 2], name="iou2")
    m2.update_state([[0, 1], [2, 2]], [[0.4, 1.9], [2.0, 1.0]])
    return [state(m), state(m2)]


@case
def iou_dense_inputs(tf):
    yt = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    yp = [[0.1, 0.7, 0.2], [0.05, 0.5, 0.45], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
    m = tf.keras.metrics.IoU(num_classes=3, target_class_ids=[1], name="iou", sparse_y_true=False,
                             sparse_y_pred=False, dtype="float32")
    return run(m, [((yt, yp), {}), ((yt, yp), {"sample_weight": [0.5, 1.0, 2.0, 0.25]})])


@case
def iou_errors(tf):
    return [catch(tf.keras.metrics.IoU, num_classes=2, target_class_ids=[0, 2]),
            catch(tf.keras.metrics.OneHotIoU, num_classes=2, target_class_ids=[3])]


@case
def mean_iou(tf):
    m = tf.keras.metrics.MeanIoU(num_classes=4, name="miou")
    m2 = tf.keras.metrics.MeanIoU(num_classes=4, name="miou2", dtype="float64", ignore_class=0)
    return [run(m, [((YT, YP), {}), (([0, 0], [1, 1]), {})]),
            run(m2, [((YT, YP), {"sample_weight": W})])]


@case
def mean_iou_empty(tf):
    m = tf.keras.metrics.MeanIoU(num_classes=3, name="miou")
    return [m.result(), config(m)]


@case
def binary_iou(tf):
    m = tf.keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3, name="biou")
    m2 = tf.keras.metrics.BinaryIoU(target_class_ids=[1], name="biou2", dtype="float32")
    m3 = tf.keras.metrics.BinaryIoU(name="biou3")
    upd = [(([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), {}),
           (([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), {"sample_weight": [0.2, 0.3, 0.4, 0.1]})]
    return [run(m, upd), run(m2, upd), run(m3, [(([[0, 1], [1, 1]], [[0.5, 0.49], [0.9, 0.51]]), {})])]


@case
def one_hot_iou(tf):
    yt = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]])
    yp = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]])
    m = tf.keras.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2], name="ohiou", dtype="float32")
    m2 = tf.keras.metrics.OneHotMeanIoU(num_classes=3, name="ohmiou")
    m3 = tf.keras.metrics.OneHotMeanIoU(num_classes=3, name="ohmiou2", sparse_y_pred=True, dtype="float32")
    return [run(m, [((yt, yp), {"sample_weight": [0.1, 0.2, 0.3, 0.4]})]),
            run(m2, [((yt, yp), {})]),
            run(m3, [((yt, [2, 0, 1, 1]), {})])]

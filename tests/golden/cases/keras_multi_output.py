"""tf.keras multi-output training (Keras 3.15): per-output losses, loss weights and metrics; logged keys and values."""

import warnings

import numpy as np

from tests.golden.harness import case, catch

_X = (np.arange(24.0).reshape(8, 3) / 12 - 0.9).astype(np.float32)
_Y1 = (_X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
_Y2 = np.stack([_X[:, 0] * 0.5, _X[:, 1] - _X[:, 2]], 1).astype(np.float32)
_SW = (np.arange(8.0) / 4 + 0.25).astype(np.float32)


def _model(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    h = k.layers.Dense(4, activation="tanh", kernel_initializer=k.initializers.Constant(0.2), name="h")(a)
    o1 = k.layers.Dense(1, kernel_initializer=k.initializers.Constant(-0.3), name="reg")(h)
    o2 = k.layers.Dense(2, kernel_initializer=k.initializers.Constant(0.1), name="aux")(h)
    return k.Model(a, [o1, o2])


def _f32(logs):
    # Logged values are Python floats computed in float32: compare them at float32 tolerance.
    if isinstance(logs, dict):
        return {k: _f32(v) for k, v in logs.items()}
    if isinstance(logs, list):
        return [_f32(v) for v in logs]
    return np.float32(logs)


def _run(tf, loss, loss_weights=None, metrics=None, weighted_metrics=None, y=None, sample_weight=None):
    m = _model(tf)
    m.compile(tf.keras.optimizers.SGD(0.1), loss, loss_weights=loss_weights, metrics=metrics,
              weighted_metrics=weighted_metrics)
    before = m.metrics_names
    y = [_Y1, _Y2] if y is None else y
    h = m.fit(_X, y, epochs=2, batch_size=3, shuffle=False, verbose=0, sample_weight=sample_weight,
              validation_data=(_X[:4], [_Y1[:4], _Y2[:4]]))
    return [before, m.metrics_names, _f32(h.history), m.get_weights(), _f32(m.evaluate(_X, y, verbose=0)),
            _f32(m.evaluate(_X, y, verbose=0, return_dict=True))]


@case
def loss_list_per_output(tf):
    return _run(tf, ["mse", "mae"])


@case
def loss_broadcast_with_weights_and_metric_lists(tf):
    return _run(tf, "mse", loss_weights=[1.0, 0.5], metrics=[["mae"], ["mse", "mae"]])


@case
def loss_dict_weights_dict_metrics_dict(tf):
    return _run(tf, {"aux": "mae", "reg": "mse"}, loss_weights={"aux": 2.0, "reg": 1.0},
                metrics={"reg": ["mae"], "aux": "mse"})


@case
def labels_as_dict_of_output_names(tf):
    return _run(tf, "mse", metrics={"aux": ["mae"]}, y={"reg": _Y1, "aux": _Y2})


@case
def one_output_without_loss(tf):
    # TF warns that `aux` gets no gradient once per trace of its compiled step, tapeflow at every step: not compared.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run(tf, {"reg": "mse", "aux": None}, metrics=[["mae"], []])


@case
def repeated_and_weighted_metric_names(tf):
    return _run(tf, "mse", metrics=[["mae", "mae"], ["mse", "mae"]], weighted_metrics=[["mae"], []],
                sample_weight=_SW)


@case
def train_step_logs(tf):
    m = _model(tf)
    m.compile(tf.keras.optimizers.SGD(0.1), ["mse", "mae"], metrics=[["mae"], ["mse"]])
    logs = m.train_step((tf.constant(_X), (tf.constant(_Y1), tf.constant(_Y2))))
    return [sorted(logs), _f32({k: float(v) for k, v in logs.items()}), m.get_weights()]


@case
def single_output_metrics_names(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    m = k.Model(a, k.layers.Dense(1, name="reg", kernel_initializer=k.initializers.Constant(0.1))(a))
    m.compile(k.optimizers.SGD(0.1), "mse", metrics=["mae", "mse"])
    h = m.fit(_X, _Y1, epochs=1, batch_size=4, shuffle=False, verbose=0)
    return [m.metrics_names, _f32(h.history), _f32(m.evaluate(_X, _Y1, verbose=0)),
            _f32(m.evaluate(_X, _Y1, verbose=0, return_dict=True))]


@case
def compile_errors(tf):
    def fit(loss, loss_weights=None, metrics=None):
        m = _model(tf)
        m.compile("sgd", loss, loss_weights=loss_weights, metrics=metrics)
        return m.fit(_X, [_Y1, _Y2], epochs=1, verbose=0)

    return [catch(fit, "mse", [1.0, 0.5]), catch(fit, {"reg": "mse"}), catch(fit, "mse", None, ["mae"]),
            catch(fit, "mse", "heavy"), catch(fit, "mse", None, "mae")]

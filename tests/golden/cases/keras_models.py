"""tf.keras models (Keras 3.15): Sequential summary text, deterministic fit/evaluate/predict."""

import numpy as np

from tests.golden.harness import case

_X = (np.arange(24.0).reshape(8, 3) / 12 - 0.9).astype(np.float32)
_Y = (_X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)


def _model(tf):
    k = tf.keras
    k.backend.clear_session()
    d1 = k.layers.Dense(4, activation="tanh", kernel_initializer=k.initializers.Constant(0.2))
    m = k.Sequential([k.Input((3,)), d1,
                      k.layers.Dense(1, kernel_initializer=k.initializers.Constant(-0.3))])
    return m


@case
def sequential_summary(tf):
    m = _model(tf)
    out = []
    m.summary(print_fn=out.append)
    m.compile("sgd", "mse")
    m.summary(print_fn=out.append)
    return out


@case
def sequential_fit_sgd_deterministic(tf):
    m = _model(tf)
    m.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    h = m.fit(_X, _Y, epochs=3, batch_size=3, shuffle=False, verbose=0, validation_data=(_X[:4], _Y[:4]))
    # Logged values are Python floats computed in float32: compare them at float32 tolerance.
    f32 = np.float32
    return [{k: f32(v) for k, v in h.history.items()}, m.get_weights(), f32(m.evaluate(_X, _Y, verbose=0)),
            {k: f32(v) for k, v in m.evaluate(_X, _Y, verbose=0, return_dict=True).items()},
            m.predict(_X, batch_size=5, verbose=0)]

"""tf.keras data checks in fit/evaluate/predict (Keras 3.15): Keras's cardinality text (one line per ``x``, ``y``
and ``sample_weight``), no data at all, leaves that are not arrays, missing targets; and gradient clipping on
infinite, NaN and overflowing gradients (Keras's values, and no NumPy warning).
"""

import numpy as np

from tests.golden.harness import case, catch

_X = np.ones((10, 2), np.float32)
_Y = np.ones((10, 1), np.float32)


def _model(tf):
    k = tf.keras
    k.backend.clear_session()
    m = k.Sequential([k.Input((2,)), k.layers.Dense(1, kernel_initializer="ones")])
    m.compile("sgd", "mse")
    return m


def _two_inputs(tf):
    k = tf.keras
    k.backend.clear_session()
    a, b = k.Input((2,), name="a"), k.Input((2,), name="b")
    m = k.Model([a, b], k.layers.Add()([a, b]))
    m.compile("sgd", "mse")
    return m


@case
def data_cardinality_messages(tf):
    m = _model(tf)
    two = _two_inputs(tf)
    return {"fit": catch(m.fit, _X, _Y[:9], verbose=0),
            "evaluate": catch(m.evaluate, _X, _Y[:9], verbose=0),
            "sample_weight": catch(m.fit, _X, _Y, sample_weight=np.ones(9), verbose=0),
            "class_weight": catch(m.fit, _X, _Y[:9], class_weight={0: 1.0}, verbose=0),
            "x_list": catch(two.fit, [_X, _X[:8]], _Y[:9], verbose=0),
            "predict_list": catch(two.predict, [_X, _X[:3]], verbose=0),
            "dict_y": catch(m.fit, _X, {"dense": _Y[:9]}, verbose=0)}


@case
def data_cardinality_of_validation_data(tf):
    # The validation data is checked when it is first evaluated, after the first epoch.
    m = _model(tf)
    return [catch(m.fit, _X, _Y, validation_data=(_X, _Y[:9]), verbose=0, shuffle=False),
            catch(m.fit, _X, _Y[:9], validation_split=0.2, verbose=0, shuffle=False), m.get_weights()]


@case
def no_data_and_no_targets(tf):
    m = _model(tf)
    return {"fit": catch(m.fit, None, None, verbose=0), "evaluate": catch(m.evaluate, None, None, verbose=0),
            "predict": catch(m.predict, None, verbose=0), "no_x": catch(m.fit, None, _Y, verbose=0),
            "no_y": catch(m.fit, _X, None, verbose=0), "evaluate_no_y": catch(m.evaluate, _X, verbose=0),
            "split_nothing": catch(m.fit, None, None, validation_split=0.5, verbose=0)}


@case
def data_that_is_not_arrays(tf):
    m = _model(tf)
    rows = [[1.0, 2.0]] * 10
    return {"string": catch(m.fit, "abc", _Y, verbose=0), "list_of_rows": catch(m.fit, rows, _Y, verbose=0),
            "list_targets": catch(m.fit, _X, [1.0] * 10, verbose=0),
            "predict_rows": catch(m.predict, rows, verbose=0),
            "split": catch(m.fit, rows, _Y, validation_split=0.5, verbose=0)}


def _apply(tf, optimizer, grads, values=((1.0, 2.0),)):
    variables = [tf.Variable(v) for v in values]
    optimizer.apply_gradients([(tf.constant(g, dtype=tf.float32), v) for g, v in zip(grads, variables)])
    return [v.numpy() for v in variables]


@case
def clipping_non_finite_gradients(tf):
    opt = tf.keras.optimizers
    grads = {"inf": [np.inf, 1.0], "minus_inf": [-np.inf, -np.inf], "nan": [np.nan, 1.0], "huge": [3e38, 3e38],
             "zero": [0.0, 0.0]}
    out = {}
    for name, g in grads.items():
        out[name] = [_apply(tf, opt.SGD(0.1, global_clipnorm=1.0), [g]), _apply(tf, opt.SGD(0.1, clipnorm=1.0), [g]),
                     _apply(tf, opt.SGD(0.1, clipvalue=1.0), [g]), _apply(tf, opt.Adam(0.1, global_clipnorm=1.0), [g])]
    out["two_variables"] = [_apply(tf, opt.SGD(0.1, global_clipnorm=1.0), [[np.inf], [1.0]], ((1.0,), (2.0,))),
                            _apply(tf, opt.SGD(0.1, clipnorm=1.0), [[np.inf], [1.0]], ((1.0,), (2.0,)))]
    return out

"""tf.keras functional API (Keras 3.15): Input/KerasTensor, Model(inputs, outputs), shared layers, summary, fit."""

import numpy as np

from tests.golden.harness import case, catch

_XA = (np.arange(12.0).reshape(4, 3) / 6 - 0.8).astype(np.float32)
_XB = (np.arange(8.0).reshape(4, 2) / 5 - 0.6).astype(np.float32)
_Y = (_XA[:, :1] - 2 * _XB[:, 1:] + 0.1).astype(np.float32)


def _const(k, v):
    return k.initializers.Constant(v)


def _two_input(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    b = k.Input(shape=(2,), name="b_in")
    shared = k.layers.Dense(4, activation="tanh", name="shared", kernel_initializer=_const(k, 0.1),
                            bias_initializer=_const(k, 0.05))
    c = k.layers.Concatenate()([shared(a), k.layers.Dense(3, kernel_initializer=_const(k, -0.2))(b)])
    o1 = k.layers.Dense(1, name="o1", kernel_initializer=_const(k, 0.3))(c)
    o2 = k.layers.Dense(2, name="o2", kernel_initializer=_const(k, -0.1), activation="relu")(c)
    return k, a, b, o1, o2


@case
def input_and_keras_tensors(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    b = k.Input(shape=(5, 2), batch_size=4, dtype="int32", name="ids")
    x = k.layers.Dense(4)(a)
    y = k.layers.Dense(2)(k.Input((None, 3)))
    return [repr(a), repr(b), repr(x), repr(y), a.name, x.name, a.shape, b.shape, b.dtype, x.dtype, y.shape]


@case
def two_inputs_two_outputs(tf):
    k, a, b, o1, o2 = _two_input(tf)
    m = k.Model([a, b], [o1, o2])
    out = m([_XA, _XB])
    return [repr(m), m.name, [layer.name for layer in m.layers], [type(layer).__name__ for layer in m.layers],
            out, m.predict([_XA, _XB], verbose=0), m.count_params(), m.output_shape, repr(m.inputs),
            [w.path for w in m.weights]]


@case
def functional_summary_connected_to(tf):
    k, a, b, o1, o2 = _two_input(tf)
    m = k.Model([a, b], [o1, o2], name="two_io")
    out = []
    m.summary(print_fn=out.append, line_length=108)
    m.summary(print_fn=out.append, line_length=76)
    return out


@case
def functional_chain_summary(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    m = k.Model(a, k.layers.Dense(2)(k.layers.Dense(4)(a)))
    out = []
    m.summary(print_fn=out.append, line_length=88)
    return out


@case
def shared_layer_twice(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((2,), name="q")
    s = k.layers.Dense(2, name="tw", kernel_initializer=_const(k, 0.5), bias_initializer=_const(k, 0.1))
    m = k.Model(a, s(s(a)))
    out = []
    m.summary(print_fn=out.append, line_length=100)
    x = tf.constant(_XB)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(x) ** 2)
    return [m(x), [layer.name for layer in m.layers], len(m.weights), tape.gradient(y, m.trainable_weights), out]


@case
def gradients_and_dict_io(tf):
    k, a, b, o1, o2 = _two_input(tf)
    m = k.Model({"a": a, "b": b}, {"first": o1, "second": o2})
    xa, xb = tf.constant(_XA), tf.constant(_XB)
    with tf.GradientTape() as tape:
        out = m({"a": xa, "b": xb})
        loss = tf.reduce_sum(out["first"]) + tf.reduce_sum(out["second"] ** 2)
    return [out, loss, tape.gradient(loss, m.trainable_weights)]


@case
def training_flag_dropout_batchnorm(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    h = k.layers.BatchNormalization()(a)
    m = k.Model(a, k.layers.Dropout(0.99)(h))
    x = _XA
    return [m(x), m(x, training=False), m.layers[1].moving_mean, m(x, training=True) * 0,
            m.layers[1].moving_mean]


@case
def multi_input_fit(tf):
    k = tf.keras
    k.backend.clear_session()
    a, b = k.Input((3,)), k.Input((2,))
    h = k.layers.Concatenate()([a, b])
    m = k.Model([a, b], k.layers.Dense(1, kernel_initializer=_const(k, 0.2))(h))
    m.compile(k.optimizers.SGD(0.1), "mse", metrics=["mae"])
    hist = m.fit([_XA, _XB], _Y, epochs=2, batch_size=2, shuffle=False, verbose=0)
    f32 = np.float32
    return [{key: f32(v) for key, v in hist.history.items()}, m.get_weights(),
            f32(m.evaluate([_XA, _XB], _Y, verbose=0))]


@case
def sequential_with_input(tf):
    k = tf.keras
    k.backend.clear_session()
    m = k.Sequential([k.Input((3,)), k.layers.Dense(2, kernel_initializer=_const(k, 0.5))])
    inner = k.Input((3,))
    f = k.Model(inner, m(inner))
    return [m(_XA), f(_XA), [layer.name for layer in f.layers], f.outputs[0].shape]


@case
def functional_errors(tf):
    k, a, b, o1, o2 = _two_input(tf)
    other = k.Input((3,))
    return [catch(k.Model, other, o1), catch(k.Model, other, [o1, o2]), catch(k.Model, a, {"p": o2}),
            catch(k.Model, a, np.zeros(3))]

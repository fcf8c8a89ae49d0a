"""tf.keras (Keras 3.15): operators on KerasTensors in functional models, tf ops refusing KerasTensors, and
train_on_batch / test_on_batch / predict_on_batch."""

import numpy as np

from tests.golden.harness import case, catch

_XA = (np.arange(12.0).reshape(4, 3) / 6 - 0.8).astype(np.float32)
_XB = (np.arange(12.0).reshape(4, 3)[::-1] / 7 - 0.5).astype(np.float32)
_Y = (_XA[:, :1] - 2 * _XB[:, 1:2] + 0.1).astype(np.float32)


def _const(k, v):
    return k.initializers.Constant(v)


def _summary(m):
    out = []
    m.summary(print_fn=out.append)
    return out


def _ops_model(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,), name="a")
    b = k.Input((3,), name="b")
    x = -((a + b) * 2.0)
    x = x[:, 1:] - a[:, :2] / 4.0
    x = k.layers.Dense(2, kernel_initializer=_const(k, 0.3), bias_initializer=_const(k, 0.1))(x)
    y = k.layers.Dense(1, kernel_initializer=_const(k, -0.2))(abs(x) ** 2 + 1.0 - x @ np.ones((2, 1), "float32"))
    return k, a, b, x, y


@case
def operators_build_ops(tf):
    k, a, b, x, y = _ops_model(tf)
    m = k.Model([a, b], y)
    return [[layer.name for layer in m.layers], [op.name for op in m.operations], _summary(m), x.shape, y.shape,
            m.predict([_XA, _XB], verbose=0), m([_XA, _XB])]


@case
def operators_gradients_and_fit(tf):
    k, a, b, x, y = _ops_model(tf)
    m = k.Model([a, b], y)
    xa, xb = tf.constant(_XA), tf.constant(_XB)
    with tf.GradientTape() as tape:
        tape.watch([xa, xb])
        out = tf.reduce_sum(m([xa, xb]))
    grads = tape.gradient(out, [xa, xb] + m.trainable_variables)
    m.compile(k.optimizers.SGD(0.05), "mse", run_eagerly=True)
    h = m.fit([_XA, _XB], _Y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    return [grads, [np.float32(v) for v in h.history["loss"]], m.get_weights()]


@case
def operators_shapes_and_dtypes(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((4, 3))
    i = k.Input((3,), dtype="int32")
    outs = [a + 1, 2 * a, 1.5 - a, a / 2, a ** 2, a[:, 0], a[:, :, -1], a[..., 1:], a[:, None], a > 0.5,
            i + 1, i * i, i + 0.5, i / 2, -i, a[:, 1] + i, i // 2, i % 2]
    return [(o.shape, o.dtype) for o in outs]


@case
def operators_slicing_model_and_comparison(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((4, 3))
    x = a[:, ::2, 1:] * a[:, 1::2, :2]
    first = a[:, 0]
    m = k.Model(a, [x, a[:, -1], ~((first > -0.5) & (first <= 0.5)) | (first != 0.2), round(first * 3) // 2 % 2])
    data = (np.arange(24.0).reshape(2, 4, 3) / 10 - 1).astype(np.float32)
    return [m.predict(data, verbose=0), m(data), [op.name for op in m.operations]]


@case
def tf_ops_refuse_keras_tensors(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    b = k.Input((3,))
    return [catch(tf.nn.relu, a), catch(tf.concat, [a, b], -1), catch(tf.reduce_mean, a, axis=1),
            catch(tf.add, a, 1.0), catch(tf.matmul, a, tf.ones((3, 2))), catch(np.asarray, a)]


def _compiled(tf, metrics=("mae",)):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    y = k.layers.Dense(1, kernel_initializer=_const(k, 0.2), bias_initializer=_const(k, -0.1))(a)
    m = k.Model(a, y)
    m.compile(k.optimizers.SGD(0.1), "mse", metrics=list(metrics), run_eagerly=True)
    return m


@case
def train_on_batch_values(tf):
    m = _compiled(tf)
    f32 = np.float32
    first = m.train_on_batch(_XA, _Y)
    second = m.train_on_batch(_XA[:2], _Y[:2], return_dict=True)
    third = m.train_on_batch(_XA, _Y, sample_weight=np.array([1.0, 0.0, 2.0, 1.0], "float32"))
    return [[f32(v) for v in first], {key: f32(v) for key, v in second.items()}, [f32(v) for v in third],
            m.get_weights(), int(m.optimizer.iterations.numpy())]


@case
def test_on_batch_resets_metrics(tf):
    m = _compiled(tf)
    f32 = np.float32
    m.evaluate(_XA, _Y, verbose=0)
    one = m.test_on_batch(_XA[:2], _Y[:2])
    two = m.test_on_batch(_XA[2:], _Y[2:], return_dict=True)
    return [[f32(v) for v in one], {key: f32(v) for key, v in two.items()},
            {mm.name: f32(mm.result()) for mm in m.metrics[:1]}]


@case
def on_batch_loss_only_and_class_weight(tf):
    m = _compiled(tf, metrics=())
    f32 = np.float32
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    c = k.Model(a, k.layers.Dense(2, activation="softmax", kernel_initializer=_const(k, 0.1))(a))
    c.compile(k.optimizers.SGD(0.1), "sparse_categorical_crossentropy", metrics=["accuracy"], run_eagerly=True)
    labels = np.array([0, 1, 1, 0])
    return [f32(m.train_on_batch(_XA, _Y)), f32(m.test_on_batch(_XA, _Y)),
            [f32(v) for v in c.train_on_batch(_XA, labels, class_weight={0: 1.0, 1: 3.0})],
            catch(c.train_on_batch, _XA, labels, sample_weight=np.ones(4), class_weight={0: 1.0, 1: 3.0}),
            c.get_weights()]


@case
def predict_on_batch_values(tf):
    k = tf.keras
    k.backend.clear_session()
    a = k.Input((3,))
    m = k.Model(a, [k.layers.Dense(2, kernel_initializer=_const(k, 0.2))(a), k.layers.Dense(1)(a) * 0.0])
    out = m.predict_on_batch(_XA)
    uncompiled = k.Sequential([k.Input((3,)), k.layers.Dense(1)])
    return [out, type(out).__name__, type(out[0]).__name__, catch(uncompiled.train_on_batch, _XA, _Y),
            catch(uncompiled.test_on_batch, _XA, _Y)]

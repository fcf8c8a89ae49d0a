"""tf.keras.layers (Keras 3.15): the Layer base and the core layers.

Every case starts with ``clear_session()`` so default names (``dense``, ``dense_1``) are deterministic. Weights
come from Constant initializers or ``set_weights`` (random initializers do not draw TF's numbers).
"""

import numpy as np

from tests.golden.harness import case, catch

_X = np.arange(8.0).reshape(2, 4) / 4 - 0.6


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _w(layer):
    return [[v.path, v.name, v.shape.as_list(), v.dtype, v.trainable, v.numpy()] for v in layer.weights]


@case
def dense_forward_grads_names(tf):
    k = _k(tf)
    d = k.layers.Dense(3, activation="tanh", kernel_initializer=k.initializers.Constant(0.3),
                       bias_initializer=k.initializers.Constant(-0.1))
    d2 = k.layers.Dense(2)
    x = tf.constant(_X, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = d(x)
        s = tf.reduce_sum(y * y)
    g = tape.gradient(s, [x] + d.trainable_variables)
    return {"y": y, "g": g, "w": _w(d), "names": [d.name, d2.name], "built": [d.built, d2.built],
            "count": d.count_params(), "unbuilt_count": catch(d2.count_params), "repr": repr(d2),
            "shape": d.compute_output_shape((None, 7, 4))}


@case
def dense_float64_input_cast(tf):
    k = _k(tf)
    d = k.layers.Dense(2, kernel_initializer="ones")
    x = tf.constant(_X, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = d(x)
    return [y, tape.gradient(y, x), d.dtype, d.compute_dtype, d(np.ones((1, 4))).dtype,
            d(np.ones((1, 4), np.int32)).dtype if False else None]


@case
def dense_rank3_and_set_weights(tf):
    k = _k(tf)
    d = k.layers.Dense(2, activation="relu")
    d.build((None, 3, 4))
    d.set_weights([np.arange(8.0).reshape(4, 2) / 8 - 0.4, np.array([0.1, -0.2])])
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4) / 10 - 1, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = d(x)
    errs = [catch(d.set_weights, [np.ones((4, 2))]), catch(d.set_weights, [np.ones((3, 2)), np.ones(2)])]
    return [y, tape.gradient(y, [x, d.kernel, d.bias]), d.get_weights(), errs, d.built]


@case
def dense_errors(tf):
    k = _k(tf)
    d = k.layers.Dense(2)
    out = [catch(d, tf.constant(1.0)), catch(d, tf.constant([1.0, 2.0])), d.built]
    d(tf.ones((2, 4)))
    out += [catch(d, tf.ones((2, 5))), catch(k.layers.Dense, 0), catch(k.layers.Dense, 2.5),
            catch(k.layers.Dense, 2, foo=1), catch(d, [[1.0, 2.0, 3.0, 4.0]]),
            catch(k.layers.Dense, 2, trainable=1)]
    return out


@case
def dense_regularizers_losses(tf):
    k = _k(tf)
    d = k.layers.Dense(2, kernel_initializer=k.initializers.Constant(0.5), bias_initializer="ones",
                       kernel_regularizer=k.regularizers.L2(0.1), bias_regularizer=k.regularizers.L1(0.2),
                       activity_regularizer=k.regularizers.L2(0.01))
    x = tf.constant(_X, tf.float32)
    with tf.GradientTape() as tape:
        y = d(x)
        loss = tf.reduce_sum(y) + tf.add_n(d.losses)
    g = tape.gradient(loss, d.trainable_variables)
    n1 = len(d.losses)
    d(x)
    n2 = len(d.losses)
    d.kernel.assign(tf.ones((4, 2)))
    return [y, d.losses, loss, g, n1, n2, d.get_config()]


@case
def trainable_toggle(tf):
    k = _k(tf)
    d = k.layers.Dense(2, kernel_initializer="ones", kernel_regularizer="l2")
    d(tf.ones((1, 3)))
    out = [len(d.trainable_weights), len(d.non_trainable_weights), len(d.losses)]
    d.trainable = False
    out += [len(d.trainable_weights), len(d.trainable_variables), len(d.non_trainable_weights),
            [v.trainable for v in d.weights], len(d.losses), d.get_config()["trainable"]]
    d.trainable = True
    out += [len(d.trainable_weights), [v.trainable for v in d.weights]]
    frozen = k.layers.Dense(2, trainable=False)
    frozen(tf.ones((1, 3)))
    out += [[v.trainable for v in frozen.weights], len(frozen.trainable_weights)]
    return out


@case
def custom_layer_sublayers_training(tf):
    k = _k(tf)

    class Block(k.layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.inner = k.layers.Dense(3, kernel_initializer="ones", name="inner")
            self.stack = [k.layers.Dense(2, kernel_initializer=k.initializers.Constant(0.5)),
                          k.layers.Dense(1, kernel_initializer="ones")]
            self.drop = k.layers.Dropout(0.5)
            self.seen = []

        def build(self, input_shape):
            self.scale = self.add_weight(shape=(), initializer=k.initializers.Constant(2.0), name="scale")
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False, name="count",
                                         dtype="int32")
            self.seen.append(tuple(input_shape))

        def call(self, x, training=None):
            self.seen.append(training)
            self.add_loss(tf.reduce_sum(x) * 0.0 + 1.5)
            h = self.inner(x)
            for layer in self.stack:
                h = layer(h)
            h = self.drop(h, training=False)
            return h * self.scale

    b = Block()
    x = tf.constant(_X, tf.float32)
    with tf.GradientTape() as tape:
        y = b(x, training=True)
    g = tape.gradient(y, b.trainable_variables)
    y2 = b(x)
    return {"y": y, "y2": y2, "g": g, "paths": [v.path for v in b.weights],
            "trainable": [v.path for v in b.trainable_weights], "non": [v.path for v in b.non_trainable_weights],
            "seen": list(b.seen), "losses": b.losses, "count": b.count_params(), "name": b.name}


@case
def activation_flatten_reshape(tf):
    k = _k(tf)
    x = tf.constant(np.arange(12.0).reshape(2, 3, 2) - 5, tf.float32)
    a = k.layers.Activation("relu")
    f = k.layers.Flatten()
    r = k.layers.Reshape((2, -1))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        ya, yf, yr = a(x), f(x), r(x)
    return [ya, yf, yr, tape.gradient(ya, x), tape.gradient(yr, x), f(tf.ones((3,))),
            f.compute_output_shape((None, 3, 4)), r.compute_output_shape((None, 6)),
            a.get_config(), f.get_config(), r.get_config(), a.weights]


@case
def dropout_training_flag(tf):
    k = _k(tf)
    d = k.layers.Dropout(0.25, seed=3)
    x = tf.ones((50, 40))
    y_inf = d(x)
    y_tr = d(x, training=True).numpy()
    vals = sorted(set(np.round(y_tr.ravel(), 5).tolist()))
    frac = float((y_tr == 0).mean())
    return [y_inf, vals, 0.15 < frac < 0.35, k.layers.Dropout(0.0)(x, training=True), d.get_config(),
            catch(k.layers.Dropout, 1.5), catch(k.layers.Dropout, 0.5, noise_shape=3),
            k.layers.Dropout(1.0)(tf.ones((2, 2)), training=True)]


@case
def add_concatenate(tf):
    k = _k(tf)
    a = tf.constant(_X, tf.float32)
    b = tf.constant(_X[:, :3] * 2, tf.float32)
    add, cat = k.layers.Add(), k.layers.Concatenate()
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        ys = add([a, a * 2])
        yc = cat([a, b])
    return [ys, yc, tape.gradient(ys, a), tape.gradient(yc * yc, [a, b]),
            catch(k.layers.Concatenate(), [a, tf.ones((3, 2))]), catch(k.layers.Concatenate(axis=0), [a, b]),
            k.layers.Concatenate(axis=0)([a, a]), cat.compute_output_shape([(None, 4), (None, 3)]),
            add.get_config(), cat.get_config()]


@case
def embedding(tf):
    k = _k(tf)
    e = k.layers.Embedding(5, 3, embeddings_initializer=k.initializers.Constant(0.5),
                           embeddings_regularizer=k.regularizers.L2(0.1))
    e.build()
    e.set_weights([np.arange(15.0).reshape(5, 3) / 10])
    ids = tf.constant([[0, 2], [4, 2]])
    with tf.GradientTape() as tape:
        y = e(ids)
        s = tf.reduce_sum(y * y)
    g = tape.gradient(s, e.embeddings)
    return [y, tf.convert_to_tensor(g), _w(e), e.losses, e(tf.constant([1.0, 3.7])), e.get_config(),
            catch(k.layers.Embedding, 0, 3), catch(k.layers.Embedding, 3, -1), e.compute_output_shape((2, 7))]


@case
def batch_normalization(tf):
    k = _k(tf)
    bn = k.layers.BatchNormalization(momentum=0.9, epsilon=0.01)
    x = tf.constant(np.array([[1.0, 2.0, -1.0], [3.0, -2.0, 0.5], [0.0, 1.0, 4.0], [2.0, 0.0, 1.0]]), tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = bn(x, training=True)
        s = tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0]) * x)
    g = tape.gradient(s, [x] + bn.trainable_variables)
    stats = [bn.moving_mean.numpy(), bn.moving_variance.numpy()]
    y_inf = bn(x)
    y_tr2 = bn(x, training=True)
    bn.trainable = False
    y_frozen = bn(x, training=True)
    stats_frozen = bn.moving_mean.numpy()
    return {"y": y, "g": g, "stats": stats, "y_inf": y_inf, "y_tr2": y_tr2, "y_frozen": y_frozen,
            "stats_frozen": stats_frozen, "w": _w(bn), "errs": [catch(bn, tf.ones((2, 4))),
                                                                catch(bn, tf.ones((2, 3, 1)))],
            "cfg": bn.get_config()}


@case
def batch_normalization_axis_no_center(tf):
    k = _k(tf)
    bn = k.layers.BatchNormalization(axis=1, center=False, momentum=0.5,
                                     gamma_initializer=k.initializers.Constant(2.0))
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4) ** 1.5 / 10, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = bn(x, training=True)
        s = tf.reduce_sum(y * x)
    return [y, tape.gradient(s, [x, bn.gamma]), tf.convert_to_tensor(bn.moving_mean),
            tf.convert_to_tensor(bn.moving_variance),
            [v.path for v in bn.weights], bn.count_params()]


@case
def layer_normalization(tf):
    k = _k(tf)
    ln = k.layers.LayerNormalization(epsilon=0.01)
    ln2 = k.layers.LayerNormalization(axis=[1, 2], scale=False)
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4) ** 1.3 / 10, tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ln(x)
        y2 = ln2(x)
        s = tf.reduce_sum(y * x)
        s2 = tf.reduce_sum(y2 * x)
    return [y, y2, tape.gradient(s, [x] + ln.trainable_variables), tape.gradient(s2, [x] + ln2.trainable_variables),
            _w(ln), _w(ln2), {**ln.get_config(), "axis": list(ln.get_config()["axis"])}]


@case
def configs_roundtrip(tf):
    k = _k(tf)
    layers = [k.layers.Dense(4, activation="relu", use_bias=False, name="d"), k.layers.Activation("sigmoid"),
              k.layers.Flatten(), k.layers.Reshape((3, 2)), k.layers.Dropout(0.2, seed=5),
              k.layers.Concatenate(axis=1), k.layers.Embedding(4, 2, mask_zero=True),
              k.layers.BatchNormalization(center=False), k.layers.LayerNormalization(axis=1),
              k.layers.Dense(2, dtype="float64", name="d64")]
    out = []
    for layer in layers:
        cfg = layer.get_config()
        out.append([type(layer).__name__, cfg, type(layer).from_config(cfg).get_config() == cfg])
    d64 = layers[-1]
    y = d64(tf.ones((1, 3)))
    out.append([y.dtype, d64.kernel.dtype, d64.dtype, d64.compute_dtype])
    return out


@case
def weight_defaults_and_errors(tf):
    k = _k(tf)

    class L(k.layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(shape=(2,), initializer="ones")
            self.b = self.add_weight(shape=(), dtype="int32", name="b")
            self.c = self.add_weight(initializer="zeros", name="c", trainable=False)

        def call(self, x):
            return x * self.a

    lay = L(name="custom")
    y = lay(tf.ones((3, 2)))
    return [y, [[v.path, v.dtype, v.shape.as_list(), v.trainable, v.numpy()] for v in lay.weights],
            catch(lay.add_weight, "w"), catch(lay, 3.0), catch(L, name="a/b"),
            catch(k.layers.Layer()(tf.ones(2)).numpy) if False else None]

"""tf.keras input dtypes (Keras 3.15): what layers and models do with integer, uint8, bool and other float inputs.

A layer casts floating inputs to its compute dtype and leaves integers alone; Keras's ops then promote them where
they meet float weights (Dense, the recurrent layers, EinsumDense), normalize in float32, average into float32,
promote merges on Keras's lattice, and refuse elsewhere (Conv2D, average pooling, dropout in training). Functional
and Sequential models first convert each input to their ``Input``'s dtype, so integer and ``uint8`` data work with
every layer there, in ``__call__``, ``predict``, ``fit`` and ``evaluate``. Weights are constants (random initializers
do not draw TF's numbers).
"""

import numpy as np

from tests.golden.harness import case, catch

_INTS = ("uint8", "int32", "int64", "bool")
_X2 = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
_X3 = np.arange(12).reshape(1, 4, 3)
_X4 = np.arange(16).reshape(1, 4, 4, 1)


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _c(k, value):
    return k.initializers.Constant(value)


def _each(fn):
    return {d: catch(fn, d) for d in _INTS}


@case
def dense_promotes_integer_inputs(tf):
    k = _k(tf)
    d = k.layers.Dense(2, kernel_initializer=_c(k, 0.25), bias_initializer=_c(k, -0.5), activation="relu")
    d16 = k.layers.Dense(2, kernel_initializer=_c(k, 0.25), dtype="float16")
    d64 = k.layers.Dense(2, kernel_initializer=_c(k, 0.25), dtype="float64")
    return {"f32": _each(lambda t: d(_X2.astype(t))), "f16": _each(lambda t: d16(_X2.astype(t))),
            "f64": _each(lambda t: d64(_X2.astype(t))), "tensor": d(tf.constant(_X2, tf.int32)),
            "uint8_image_rows": d(np.full((1, 4), 255, np.uint8)), "rank3": d(np.ones((1, 2, 4), "int32"))}


@case
def float_inputs_are_autocast(tf):
    k = _k(tf)
    d = k.layers.Dense(1, kernel_initializer=_c(k, 0.5))
    keep = k.layers.Dense(1, kernel_initializer=_c(k, 0.5), dtype="float64")
    x = np.array([[1.0 / 3, 2.0, 3.0, 4.0]])
    return [d(x), d(x.astype("float16")), d(tf.constant(x, tf.float64)), keep(x.astype("float32")), keep(x),
            d(tf.Variable(x, dtype=tf.float64)), k.layers.Activation("linear")(x),
            k.layers.Activation("linear", dtype="float16")(x)]


@case
def recurrent_layers_promote_integer_inputs(tf):
    k = _k(tf)
    out = {}
    for name in ("SimpleRNN", "LSTM", "GRU"):
        layer = getattr(k.layers, name)(2, kernel_initializer=_c(k, 0.1), recurrent_initializer=_c(k, -0.2))
        out[name] = _each(lambda t, layer=layer: layer(_X3.astype(t)))
    f64 = k.layers.SimpleRNN(2, kernel_initializer=_c(k, 0.1), recurrent_initializer=_c(k, -0.2), dtype="float64")
    cell = k.layers.SimpleRNNCell(2, kernel_initializer=_c(k, 0.1), recurrent_initializer=_c(k, -0.2))
    out["f64"] = f64(_X3.astype("int32"))
    out["cell"] = cell(np.array([[1, 2, 3]], np.int32), [tf.zeros((1, 2))])
    return out


@case
def einsum_dense_and_attention_promote(tf):
    k = _k(tf)
    e = k.layers.EinsumDense("ab,bc->ac", output_shape=2, kernel_initializer=_c(k, 0.2))
    mha = k.layers.MultiHeadAttention(1, 2, kernel_initializer=_c(k, 0.05))
    mha64 = k.layers.MultiHeadAttention(1, 2, kernel_initializer=_c(k, 0.05), dtype="float64")
    return {"einsum": _each(lambda t: e(_X2.astype(t)[:, :3])),
            "mha": _each(lambda t: mha(_X3.astype(t), _X3.astype(t))),
            "mha_mixed": mha(_X3.astype("int32"), _X3.astype("float32")), "mha_f64": mha64(_X3, _X3)}


@case
def normalization_in_float32(tf):
    k = _k(tf)
    bn = k.layers.BatchNormalization()
    bn64 = k.layers.BatchNormalization(dtype="float64")
    ln = k.layers.LayerNormalization()
    ln64 = k.layers.LayerNormalization(dtype="float64")
    ln16 = k.layers.LayerNormalization(dtype="float16")
    return {"bn": _each(lambda t: bn(_X3.astype(t))), "bn_train": _each(lambda t: bn(_X3.astype(t), training=True)),
            "bn64": bn64(_X3.astype("int32")),
            # Keras normalizes integers in float32, then casts the result back to the input's dtype first.
            "ln": _each(lambda t: ln(_X3.astype(t))), "ln64": ln64(_X3.astype("int32")),
            "ln16": ln16(np.array([[0.5, 1.5, 6.0]])), "moving": [bn.moving_mean, bn.moving_variance]}


@case
def pooling_integer_inputs(tf):
    k = _k(tf)
    L = k.layers  # noqa: N806
    return {"gap1": _each(lambda t: L.GlobalAveragePooling1D()(_X3.astype(t))),
            "gap2": _each(lambda t: L.GlobalAveragePooling2D()(_X4.astype(t))),
            "gap1_f16_layer": L.GlobalAveragePooling1D(dtype="float16")(_X3.astype("int32")),
            "gap1_f64_layer": L.GlobalAveragePooling1D(dtype="float64")(_X3.astype("int64")),
            "gap1_mask": L.GlobalAveragePooling1D()(_X3.astype("int32"), mask=np.array([[True, True, False, True]])),
            "gmp1": _each(lambda t: L.GlobalMaxPooling1D()(_X3.astype(t))),
            "gmp2": _each(lambda t: L.GlobalMaxPooling2D()(_X4.astype(t))),
            "maxpool": _each(lambda t: L.MaxPooling2D()(_X4.astype(t))),
            "avgpool": _each(lambda t: L.AveragePooling2D(2)(_X4.astype(t))),
            "avgpool1": catch(lambda: L.AveragePooling1D(2)(_X3.astype("int32")))}


@case
def conv_refuses_integer_inputs(tf):
    k = _k(tf)
    c = k.layers.Conv2D(1, 2, kernel_initializer=_c(k, 1.0))
    c1 = k.layers.Conv1D(1, 2, kernel_initializer=_c(k, 1.0))
    return {"conv2d": _each(lambda t: c(_X4.astype(t))), "conv2d_float64": c(_X4.astype("float64")),
            "conv1d_int32": catch(c1, _X3.astype("int32")), "conv1d_float16": c1(_X3.astype("float16"))}


@case
def shape_layers_and_activations_keep_integers(tf):
    k = _k(tf)
    L = k.layers  # noqa: N806
    x = _X3.astype("int32") - 5
    return {"flatten": L.Flatten()(x), "reshape": L.Reshape((12,))(x), "dropout": L.Dropout(0.5)(x),
            "dropout_train": catch(L.Dropout(0.5, seed=1), x, training=True),
            "linear": L.Activation("linear")(x), "relu": L.Activation("relu")(x), "tanh": _each(
                lambda t: L.Activation("tanh")(_X3.astype(t))), "sigmoid": catch(L.Activation("sigmoid"), x),
            "softmax": catch(L.Activation("softmax"), x), "exponential": L.Activation("exponential")(x),
            "embedding_float": L.Embedding(20, 2, embeddings_initializer=_c(k, 0.5))(x.astype("float64") + 5.7)}


@case
def masking_integer_inputs(tf):
    k = _k(tf)
    x = np.array([[[0, 0], [1, 2], [0, 3]]])
    out = {}
    for t in _INTS:
        y = k.layers.Masking()(x.astype(t))
        out[t] = [y, getattr(y, "_keras_mask", None)]
    y = k.layers.Masking(mask_value=1)(x.astype("int32") + 1)
    out["int_mask_value"] = [y, y._keras_mask]
    return out


@case
def merge_layers_promote(tf):
    k = _k(tf)
    L = k.layers  # noqa: N806
    a = np.array([[1, 2, 3]])
    pairs = [("int32", "float32"), ("uint8", "int8"), ("int32", "int64"), ("bool", "float32"), ("uint8", "uint16"),
             ("int64", "uint64"), ("int32", "int32"), ("float16", "int64")]
    out = {}
    for d1, d2 in pairs:
        both = [a.astype(d1), a.astype(d2)]
        out[f"{d1}_{d2}"] = [catch(L.Add(), both), catch(L.Concatenate(), both)]
    out["three"] = L.Add()([a.astype("int8"), a.astype("uint8"), a.astype("float16")])
    out["f64_layer"] = L.Add(dtype="float64")([a.astype("int32"), a.astype("float32")])
    rows = np.array([[1, 0, 1], [0, 1, 1]])  # (two rows: Keras adds one row to another as a bias)
    out["bool_bool"] = catch(L.Add(), [rows.astype(bool), rows.astype(bool)])
    return out


def _seq(k, dtype="float32"):
    return k.Sequential([k.Input((4,), dtype=dtype), k.layers.Dense(2, kernel_initializer=_c(k, 0.25),
                                                                    bias_initializer=_c(k, 0.1))])


@case
def models_convert_inputs_to_their_input_dtype(tf):
    k = _k(tf)
    seq = _seq(k)
    lazy = k.Sequential([k.layers.Dense(2, kernel_initializer=_c(k, 0.25))])
    i = k.Input((4,))
    func = k.Model(i, k.layers.Activation("linear")(i))
    j = k.Input((4,), dtype="int32")
    func_int = k.Model(j, k.layers.Embedding(10, 1, embeddings_initializer=_c(k, 0.5))(j))
    f = k.Input((4,), dtype="float64")
    func64 = k.Model(f, [f, k.layers.Activation("linear")(f)])
    x = np.array([[1.7, 2.2, 3.9, -1.5]])
    return {"seq": _each(lambda t: seq(_X2.astype(t))), "lazy": _each(lambda t: lazy(_X2.astype(t))),
            "func": _each(lambda t: func(_X2.astype(t))), "func_int": [func_int(x), func_int(tf.constant(x))],
            "func64": func64(_X2.astype("int32")), "seq_int_input": _seq(k, "int32")(x),
            "seq_float64": seq(x), "lazy_input_dtype": lazy.input_dtype, "seq_input_dtype": seq.input_dtype}


@case
def subclassed_models_leave_integers_to_their_layers(tf):
    k = _k(tf)

    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(2, kernel_initializer=_c(k, 0.25))
            self.conv = k.layers.Conv2D(1, 2, kernel_initializer=_c(k, 1.0))

        def call(self, x):
            return self.dense(x) if len(x.shape) == 2 else self.conv(x)

    net = Net()
    return [_each(lambda t: net(_X2.astype(t))), catch(net, _X4.astype("uint8"))]


@case
def functional_input_rank_and_none(tf):
    k = _k(tf)
    i = k.Input((2, 1))
    m = k.Model(i, k.layers.Flatten()(i))
    j = k.Input((3,))
    m2 = k.Model(j, k.layers.Activation("linear")(j))
    seq = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    return [m(np.ones((3, 2), np.int32)), m2(np.ones((2, 3, 1))), catch(m2, np.ones((2, 3, 2))),
            catch(m2, None), catch(seq, None), catch(m, np.ones((3,)))]


def _fit_eval_predict(k, model, x, y, lr=0.01):
    model.compile(k.optimizers.SGD(lr), "mse")
    # Twelve steps: TF logs a retracing warning when most of the last ten calls of its step functions traced.
    h = model.fit(x, y, batch_size=1, epochs=2, verbose=0, shuffle=False)
    f32 = np.float32
    return [[f32(v) for v in h.history["loss"]], f32(model.evaluate(x, y, batch_size=1, verbose=0)),
            model.predict(x, batch_size=1, verbose=0), model.get_weights()]


@case
def fit_predict_evaluate_on_integer_data(tf):
    k = _k(tf)
    x = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [1, 1, 1, 1], [2, 0, 2, 0], [3, 3, 0, 1], [0, 0, 5, 1]], np.int64)
    y = np.linspace(-1, 1, 12).reshape(6, 2).astype(np.float32)
    return {"seq_int64": _fit_eval_predict(k, _seq(k), x, y),
            "lazy_uint8": _fit_eval_predict(k, k.Sequential([k.layers.Dense(2, kernel_initializer=_c(k, 0.1))]),
                                            x.astype("uint8"), y)}


@case
def fit_predict_evaluate_subclassed_integer_data(tf):
    k = _k(tf)

    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(2, kernel_initializer=_c(k, 0.1))

        def call(self, x):
            return self.dense(x)

    x = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [1, 1, 1, 1], [2, 0, 2, 0], [3, 3, 0, 1], [0, 0, 5, 1]], np.int32)
    y = np.linspace(-1, 1, 12).reshape(6, 2).astype(np.float32)
    return _fit_eval_predict(k, Net(), x, y)


@case
def conv_model_on_uint8_images(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((5, 5, 3)), k.layers.Conv2D(2, 3, kernel_initializer=_c(k, 0.001)),
                      k.layers.GlobalAveragePooling2D(), k.layers.Dense(1, kernel_initializer=_c(k, 0.5))])
    x = (np.arange(6 * 75).reshape(6, 5, 5, 3) * 7 % 256).astype(np.uint8)
    y = np.linspace(0, 1, 6).reshape(6, 1).astype(np.float32)
    return [m(x[:2]), _fit_eval_predict(k, m, x, y, lr=1e-6)]


@case
def layer_normalization_does_not_autocast(tf):
    k = _k(tf)
    x = np.array([[1e-3, 1.0 + 1e-7, 3.0, 1e4 + 0.1]])
    ln = k.layers.LayerNormalization()
    return [ln.autocast, ln(x), ln(x.astype("float16")), k.layers.LayerNormalization(dtype="float16")(x),
            k.layers.BatchNormalization().autocast, k.layers.Embedding(3, 2).autocast]

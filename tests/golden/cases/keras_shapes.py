"""tf.keras shape bookkeeping (Keras 3.15): unknown sizes stay unknown (``None``) through Sequential and functional
models, ``summary()`` shows every layer's output shape (also in subclassed models, from the shapes the layers were
built for), the batch size a model is built for (its first batch's, or ``None`` when ``fit`` traces partial
batches), and the refusals of malformed shapes (``Input((-1,))``) and of a positional ``add_weight`` name.
"""

import numpy as np

from tests.golden.harness import case, catch


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _summary(model, line_length=80):
    out = []
    model.summary(print_fn=out.append, line_length=line_length)
    return out


def _graph(model):
    """What a built Sequential or functional model says about its shapes."""
    return {"input_shape": catch(lambda: model.input_shape), "output_shape": catch(lambda: model.output_shape),
            "inputs": catch(lambda: [repr(x) for x in model.inputs]),
            "outputs": catch(lambda: [repr(x) for x in model.outputs]),
            "layer_outputs": [catch(lambda layer=layer: layer.output.shape) for layer in model.layers]}


@case
def sequential_first_layer_input_shape_with_unknown_sizes(tf):
    k = _k(tf)
    m = k.Sequential([k.layers.Conv2D(4, 3, input_shape=(None, None, 3)), k.layers.MaxPooling2D(),
                      k.layers.GlobalAveragePooling2D(), k.layers.Dense(2)])
    before = _summary(m)
    pred = m.predict(np.ones((1, 9, 7, 3), np.float32), verbose=0)
    return [before, _graph(m), pred.shape, _summary(m), m.built]


@case
def sequential_input_with_unknown_sizes(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((None, None, 3)), k.layers.Conv2D(4, 3, padding="same"),
                      k.layers.Conv2D(2, 3), k.layers.Flatten()])
    return [_summary(m), _graph(m), m(np.ones((2, 5, 6, 3), np.float32)).shape]


@case
def sequential_unknown_time_steps(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((None, 5)), k.layers.LSTM(3, return_sequences=True), k.layers.Dense(2),
                      k.layers.Reshape((-1,)), k.layers.Dropout(0.1)])
    return [_summary(m), _graph(m), m(np.ones((2, 4, 5), np.float32)).shape]


@case
def functional_unknown_sizes_through_custom_layers(tf):
    k = _k(tf)

    class Doubled(k.layers.Layer):  # no compute_output_shape: Keras traces call
        def call(self, x):
            return tf.concat([x, x], axis=1)

    class Summed(k.layers.Layer):
        def call(self, x):
            return tf.reduce_sum(x, axis=1)

    i = k.Input((None, 4))
    d = k.layers.Dense(3)(i)
    x = Doubled()(d)
    y = Summed()(x)
    m = k.Model(i, [x, y])
    return [_summary(m, 100), _graph(m), [t.shape for t in m(np.ones((2, 3, 4), np.float32))]]


@case
def functional_valid_convolutions_on_unknown_sizes(tf):
    k = _k(tf)
    i = k.Input((None, None, 1))
    x = k.layers.Conv2D(1, 3)(i)
    x = k.layers.Conv2D(1, 3, strides=2)(x)
    x = k.layers.MaxPooling2D(3)(x)
    m = k.Model(i, x)
    return [_summary(m), m.output_shape, m(np.ones((1, 20, 16, 1), np.float32)).shape]


def _subclassed(k):
    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.conv = k.layers.Conv2D(2, 3)
            self.pool = k.layers.GlobalMaxPooling2D()
            self.dense = k.layers.Dense(3)
            self.act = k.layers.Activation("relu")
            self.flat = k.layers.Flatten()

        def call(self, x):
            return self.flat(self.act(self.dense(self.pool(self.conv(x)))))

    return Net()


@case
def subclassed_summary_after_a_call(tf):
    k = _k(tf)
    m = _subclassed(k)
    unbuilt = _summary(m)
    m(np.ones((2, 6, 6, 3), np.float32))
    first = _summary(m)
    m(np.ones((5, 8, 8, 3), np.float32))  # the shapes of the build stay
    return [unbuilt, first, _summary(m), [layer.built for layer in m.layers]]


def _dense_net(k):
    class Net(k.Model):
        def __init__(self):
            super().__init__()
            self.d = k.layers.Dense(3)
            self.d2 = k.layers.Dense(1)

        def call(self, x):
            return self.d2(self.d(x))

    return Net()


def _fit(m, n, batch_size):
    m.compile("sgd", "mse")
    # Four epochs: TF logs a retracing warning when most of the last ten calls of its step functions traced.
    m.fit(np.ones((n, 4), np.float32), np.zeros((n, 1), np.float32), batch_size=batch_size, epochs=4, verbose=0)
    return _summary(m, 70)


@case
def subclassed_summary_after_fit(tf):
    k = _k(tf)
    partial = _fit(_dense_net(k), 5, 2)  # batches of 2, 2, 1: traced with an unknown batch size
    full = _fit(_dense_net(k), 6, 2)  # every batch full: traced with batch size 2
    built = _dense_net(k)
    built.build((None, 4))  # no call: the layers stay unbuilt
    return [partial, full, _summary(built, 70)]


@case
def sequential_built_by_its_first_use(tf):
    k = _k(tf)

    def seq():
        return k.Sequential([k.layers.Dense(3), k.layers.Dense(1)])

    unbuilt = seq()
    out = {"unbuilt": [_summary(unbuilt, 70), _graph(unbuilt), unbuilt.built]}
    called = seq()
    called(np.ones((2, 4), np.float32))
    out["called"] = [_summary(called, 70), _graph(called)]
    out["fit_partial"] = _fit(seq(), 5, 2)
    out["fit_full"] = _fit(seq(), 6, 3)
    return out


@case
def sequential_built_by_evaluate_predict_and_batches(tf):
    k = _k(tf)
    x, y = np.ones((23, 4), np.float32), np.zeros((23, 1), np.float32)
    out = {}
    for how in ("evaluate", "predict", "train_on_batch", "predict_on_batch"):
        m = k.Sequential([k.layers.Dense(3), k.layers.Dense(1)])
        m.compile("sgd", "mse")
        if how == "evaluate":
            m.evaluate(x, y, batch_size=2, verbose=0)
        elif how == "predict":
            m.predict(x, batch_size=2, verbose=0)
        elif how == "train_on_batch":
            m.train_on_batch(x, y)
        else:
            m.predict_on_batch(x)
        out[how] = [_summary(m, 70), m.input_shape]
    return out


@case
def sequential_add_pop_and_build(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((4,)), k.layers.Dense(3)])
    shapes = [m.output_shape]
    m.add(k.layers.Dense(2))
    shapes.append(m.output_shape)
    m.pop()
    shapes.append(m.output_shape)
    lazy = k.Sequential([k.layers.Dense(2)])
    lazy.build((None, 7))
    other = k.Sequential([k.Input((4,)), k.layers.Dense(1)])
    empty = k.Sequential()
    return [shapes, [repr(x) for x in m.outputs], _graph(lazy), [w.shape for w in lazy.weights],
            catch(other.build, (None, 5)), catch(empty.build, (None, 3)), catch(lambda: empty.inputs),
            catch(m.add, k.Input((3,)))]


@case
def layers_built_at_construction(tf):
    k = _k(tf)
    L = k.layers  # noqa: N806
    layers = [L.Dense(2), L.Activation("relu"), L.Flatten(), L.Reshape((2,)), L.Dropout(0.1), L.Add(),
              L.Concatenate(), L.Embedding(3, 2), L.BatchNormalization(), L.LayerNormalization(), L.Conv1D(1, 1),
              L.Conv2D(1, 1), L.MaxPooling1D(), L.MaxPooling2D(), L.AveragePooling1D(2), L.AveragePooling2D(2),
              L.GlobalAveragePooling1D(), L.GlobalAveragePooling2D(), L.GlobalMaxPooling1D(),
              L.GlobalMaxPooling2D(), L.SimpleRNN(2), L.LSTM(2), L.GRU(2), L.EinsumDense("ab,bc->ac", 2),
              L.MultiHeadAttention(1, 2), L.Masking(), L.Layer()]
    return [[type(layer).__name__, layer.built] for layer in layers]


@case
def add_weight_name_must_be_a_keyword(tf):
    k = _k(tf)

    class Named(k.layers.Layer):
        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", shape=(input_shape[-1], 2))

        def call(self, x):
            return x

    class Legacy(k.layers.Layer):  # Keras 2's positional shape, initializer, dtype still work
        def build(self, input_shape):
            self.kernel = self.add_weight((input_shape[-1], 2), "ones", "float64")

        def call(self, x):
            return x

    base = k.layers.Layer()
    legacy = Legacy()
    legacy(np.ones((1, 3), np.float32))
    return {"in_build": catch(Named(), np.ones((1, 3), np.float32)),
            "name_only": catch(base.add_weight, "kernel"),
            "with_name_too": catch(base.add_weight, "k", name="w"),
            "legacy": [legacy.kernel.shape, legacy.kernel.dtype, legacy.kernel.numpy()],
            "four": catch(base.add_weight, (2,), "zeros", "float32", True),
            "shape_twice": catch(base.add_weight, (2,), shape=(2,)),
            "initializer_twice": catch(base.add_weight, (2,), "zeros", initializer="ones"),
            "dtype_twice": catch(base.add_weight, (2,), "zeros", "float32", dtype="float32"),
            "negative": catch(base.add_weight, shape=(-1,)), "float": catch(base.add_weight, shape=(2.0,)),
            "int": catch(base.add_weight, shape=3), "unknown": catch(base.add_weight, shape=(None, 2)),
            "variable": catch(k.Variable, initializer="zeros", shape=(3, -2))}


@case
def input_shapes_are_checked(tf):
    k = _k(tf)
    shapes = {"minus_one": (-1,), "minus_two": (3, -2), "list": [3, -1], "string": ("a",), "float": (2.0,),
              "half": (2.5,), "np_float64": (np.float64(2.0),), "int": 3, "none": None}
    out = {name: catch(lambda s=s: k.Input(s)) for name, s in shapes.items()}
    out["ok"] = [k.Input((0,)).shape, k.Input((None,)).shape, k.Input((np.int64(3),)).shape,
                 k.Input([3, None]).shape, k.Input(tf.TensorShape([3, None])).shape,
                 k.Input((np.float32(2.0),)).shape, k.Input((True,)).shape, k.Input(batch_shape=[None, 3]).shape]
    out["batch_shape"] = catch(lambda: k.Input(batch_shape=(-1, 3)))
    out["batch_size"] = catch(lambda: k.Input((3,), batch_size=-1))
    out["both_shapes"] = catch(lambda: k.Input((3,), batch_shape=(None, 3)))
    out["size_and_batch_shape"] = catch(lambda: k.Input(batch_size=2, batch_shape=(None, 3)))
    out["input_layer"] = catch(lambda: k.layers.InputLayer(shape=(-1,)))
    out["input_layer_legacy"] = [k.layers.InputLayer(input_shape=(3,)).batch_shape,
                                 k.layers.InputLayer(batch_input_shape=(2, 3)).batch_shape]
    out["first_layer"] = catch(lambda: k.Sequential([k.layers.Dense(2, input_shape=(-1,))]))
    return out


@case
def symbolic_dtypes_of_integer_inputs(tf):
    # Where compute_output_shape answers, Keras's symbolic outputs take the compute dtype (Reshape and Flatten keep
    # their input's), whatever the call returns; a Conv2D on uint8 inputs builds and fails only when called.
    k = _k(tf)
    i = k.Input((4, 4, 1), dtype="uint8")
    conv = k.layers.Conv2D(1, 2, kernel_initializer="ones")(i)
    m = k.Model(i, conv)
    j = k.Input((4,), dtype="int32")
    r = k.layers.Reshape((4, 1))(j)
    p = k.layers.MaxPooling1D(2)(r)
    f = k.layers.Flatten()(r)
    a = k.layers.Add()([j, j])
    ints = k.Model(j, [p, f, a])
    return [conv.dtype, catch(m, np.ones((1, 4, 4, 1), np.uint8)), [r.dtype, p.dtype, f.dtype, a.dtype],
            ints(np.arange(8).reshape(2, 4))]

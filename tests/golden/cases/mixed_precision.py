"""tf.keras.mixed_precision (Keras 3.15): dtype policies, float16 layers with float32 weights, autocasting inside
``call``, LossScaleOptimizer's dynamic loss scaling, and ``compile``/``fit`` under ``"mixed_float16"``.

The global policy is per-process state shared by every case: each case that sets it starts from
``clear_session()`` (which also makes default names deterministic) and sets ``"float32"`` back however it ends.
Values are chosen so that float16 rounding is exact or nearly so (weights of ones, inputs that are multiples of
powers of two); gradients computed in float16 are compared cast to float16, at float16's tolerance.
"""

import functools
import threading

import numpy as np

from tests.golden.harness import case, catch


def _under(policy):
    """Run the case with ``policy`` as the global policy, from a clear session, restoring ``"float32"`` after."""

    def wrap(fn):
        @functools.wraps(fn)
        def run(tf):
            tf.keras.backend.clear_session()
            if policy is not None:
                tf.keras.mixed_precision.set_global_policy(policy)
            try:
                return fn(tf)
            finally:
                tf.keras.mixed_precision.set_global_policy("float32")

        return run

    return wrap


def _describe(policy):
    return [repr(policy), str(policy), policy.name, policy.compute_dtype, policy.variable_dtype]


def _layer_dtypes(layer):
    return [repr(layer.dtype_policy), layer.dtype, layer.compute_dtype, layer.variable_dtype, layer.input_dtype]


def _f16(tf, values):
    """Gradients compared at float16's tolerance (they were computed in float16), with their own dtypes."""
    return [[g.dtype.name, tf.cast(g, "float16")] if g is not None else None for g in values]


# ------------------------------------------------------------------------------------------------ policies


@case
@_under(None)
def policy_objects(tf):
    mp = tf.keras.mixed_precision
    out = [_describe(mp.Policy(name)) for name in ("mixed_float16", "mixed_bfloat16", "float32", "float16",
                                                   "float64", "int32")]
    p = mp.Policy("mixed_float16")
    out.append([p.get_config(), _describe(mp.Policy.from_config({"name": "mixed_bfloat16"})),
                p.quantization_mode, p == mp.Policy("mixed_float16"), p == mp.Policy("float16"), p == "mixed_float16",
                p != mp.Policy("float32"), p.__hash__ is None])
    out.append([mp.Policy is mp.DTypePolicy, tf.keras.DTypePolicy is mp.DTypePolicy,
                type(tf.keras.dtype_policies.FloatDTypePolicy("float16")).__name__,
                repr(tf.keras.dtype_policies.FloatDTypePolicy("float16")),
                tf.keras.dtype_policies.FloatDTypePolicy("float16") == mp.Policy("float16")])
    out.append([catch(mp.Policy, "foo"), catch(mp.Policy, 3), catch(mp.Policy, tf.float16)])
    out.append(p.convert_input(tf.constant([1.5, 2.0]), True, "float16"))
    out.append([p.convert_input(tf.constant([1, 2]), True, "float16"),
                p.convert_input(tf.constant([1.5]), False, "float16"), p.convert_input(np.array([0.5]), True,
                                                                                       "float16")])
    return out


@case
@_under(None)
def global_policy_state(tf):
    mp = tf.keras.mixed_precision
    out = [repr(mp.global_policy()), mp.global_policy is mp.dtype_policy, mp.set_global_policy is mp.set_dtype_policy]
    mp.set_global_policy("mixed_float16")
    out.append([repr(mp.global_policy()), repr(mp.Policy()), mp.Policy().compute_dtype])
    mp.set_global_policy(mp.Policy("float64"))
    out.append(repr(mp.global_policy()))
    out.append([catch(mp.set_global_policy, 3), catch(mp.set_global_policy, "foo"),
                catch(mp.set_global_policy, "int8"), catch(mp.set_global_policy, tf.float16)])
    out.append(repr(mp.global_policy()))
    mp.set_global_policy("mixed_float16")
    seen = []
    thread = threading.Thread(target=lambda: seen.append(repr(mp.global_policy())))
    thread.start()
    thread.join()
    out.append(seen)  # the policy is per-thread Keras state
    tf.keras.backend.clear_session()
    out.append(repr(mp.global_policy()))  # and clear_session sets float32 back
    return out


@case
@_under(None)
def dtype_policies_namespace(tf):
    dp = tf.keras.dtype_policies
    ser = dp.serialize(dp.DTypePolicy("mixed_float16"))
    return [ser, repr(dp.deserialize(ser)), repr(dp.get("mixed_float16")), repr(dp.get(None)),
            repr(dp.get({"class_name": "DTypePolicy", "config": {"name": "float64"}})), repr(dp.get(tf.float16)),
            catch(dp.get, 3), catch(dp.get, "int4")]


# ------------------------------------------------------------------------------------------------ layer dtypes


@case
@_under(None)
def layer_dtype_arguments(tf):
    mp = tf.keras.mixed_precision
    dense = tf.keras.layers.Dense
    out = [_layer_dtypes(dense(2, dtype=d)) for d in ("mixed_float16", mp.Policy("mixed_float16"), tf.float16,
                                                      "float64", None, "mixed_bfloat16", "int32",
                                                      {"class_name": "DTypePolicy",
                                                       "config": {"name": "mixed_float16"}})]
    out.append([catch(dense, 2, dtype="foo"), catch(dense, 2, dtype=3), catch(dense, 2, dtype="int8"),
                catch(dense, 2, dtype="float8_e4m3fn")])
    layer = dense(2, dtype="mixed_float16")
    config = layer.get_config()
    out.append([config["dtype"], _layer_dtypes(dense.from_config(config))])
    layer.dtype_policy = "float64"
    out.append(_layer_dtypes(layer))
    layer.dtype_policy = mp.Policy("mixed_float16")
    out.append(_layer_dtypes(layer))
    mp.set_global_policy("mixed_float16")
    out.append([_layer_dtypes(dense(2)), _layer_dtypes(dense(2, dtype="float32")),
                _layer_dtypes(tf.keras.layers.Activation("softmax"))])
    return out


@case
@_under("mixed_float16")
def dense_float16_outputs(tf):
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer=tf.keras.initializers.Constant(0.5))
    x = tf.constant([[1.0, 2.0, 0.25], [0.5, -1.0, 4.0]])
    with tf.GradientTape() as tape:
        y = layer(x)
        s = tf.reduce_sum(y * tf.constant([[1.0, 2.0], [0.5, -1.0]], tf.float16))
    grads = tape.gradient(s, [x] + layer.trainable_weights)
    return [y, s, grads, [[w.path, w.dtype, w.numpy()] for w in layer.weights], repr(layer.kernel),
            layer(np.array([[1.0, 1.0, 1.0]])), layer(tf.constant([[1, 2, 3]])),
            layer(tf.constant([[0.5, 0.5, 0.5]], tf.float64))]


@case
@_under(None)
def weights_autocast_inside_call(tf):
    seen = []

    class Probe(tf.keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(), initializer="ones", name="w")
            self.n = self.add_weight(shape=(), initializer="ones", name="n", autocast=False)
            self.i = self.add_weight(shape=(), initializer="ones", name="i", dtype="int32")
            self.d = self.add_weight(shape=(), initializer="ones", name="d", dtype="float64")

        def call(self, x):
            seen.append([self.w.dtype, self.w.value.dtype.name, (x * self.w).dtype.name,
                         tf.cast(self.w, "float32").dtype.name, tf.convert_to_tensor(self.w).dtype.name,
                         self.n.dtype, self.n.value.dtype.name, self.i.dtype, self.i.value.dtype.name, self.d.dtype,
                         (self.w + self.w).dtype.name, self.w.numpy().dtype.name, repr(self.w)])
            return x * self.w

    mixed = Probe(dtype="mixed_float16", name="mixed")
    y = mixed(tf.constant([1.5, 2.0]))
    plain = Probe(name="plain")
    z = plain(tf.constant([1.5, 2.0]))
    return [seen, y, z, mixed.w.dtype, mixed.w.value.dtype.name, repr(mixed.w), mixed.w.numpy()]


@case
@_under(None)
def nested_layers_autocast(tf):
    seen = []

    class Inner(tf.keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(), initializer="ones", name="w")
            self.d = self.add_weight(shape=(), initializer="ones", name="d", dtype="float64")

        def call(self, x):
            seen.append([self.name, self.w.dtype, tf.convert_to_tensor(self.w).dtype.name, self.d.dtype])
            return x * tf.cast(self.w, x.dtype)

    class Outer(tf.keras.layers.Layer):
        def __init__(self, inner, **kw):
            super().__init__(**kw)
            self.inner = inner
            self.w = self.add_weight(shape=(), initializer="ones", name="w")

        def build(self, shape):  # (without one, Keras would build the layer by running call once more)
            pass

        def call(self, x):
            seen.append([self.name, self.w.dtype])
            return self.inner(x)

    outs = []
    for outer_dtype, inner_kw in [("mixed_float16", {}), ("mixed_float16", {"dtype": "float32"}),
                                  ("mixed_float16", {"autocast": False}), ("float32", {"dtype": "mixed_float16"}),
                                  ("float32", {})]:
        inner = Inner(name=f"inner_{len(outs)}", **inner_kw)
        outs.append(Outer(inner, dtype=outer_dtype, name=f"outer_{len(outs)}")(tf.constant([0.5, 4.0])))
    return [seen, outs]


@case
@_under("mixed_float16")
def functional_model_float32_softmax(tf):
    inp = tf.keras.Input(shape=(3,))
    h = tf.keras.layers.Dense(4, kernel_initializer="ones", name="h")(inp)
    logits = tf.keras.layers.Dense(4, kernel_initializer="ones", name="logits")(h)
    out = tf.keras.layers.Activation("softmax", dtype="float32", name="softmax")(logits)
    model = tf.keras.Model(inp, out)
    x = np.array([[0.5, 0.25, -1.0], [1.0, 2.0, 0.5]], np.float32)
    return [inp.dtype, h.dtype, logits.dtype, out.dtype, repr(model.dtype_policy),
            [[layer.name, repr(layer.dtype_policy), layer.dtype] for layer in model.layers], model(x),
            model.predict(x, verbose=0), repr(tf.keras.Model(inp, out, dtype="float64").dtype_policy),
            model.layers[0].get_config()["dtype"], model.layers[1].get_config()["dtype"]]


@case
@_under("mixed_float16")
def sequential_models(tf):
    x = np.array([[0.5, 0.25, -1.0]], np.float32)
    plain = tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones")])
    y = plain(x)
    with_input = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, kernel_initializer="ones"),
                                      tf.keras.layers.Dense(1, kernel_initializer="ones", dtype="float32")])
    return [repr(plain.dtype_policy), y, with_input(x), with_input.input.dtype, with_input.output.dtype,
            [w.dtype for w in with_input.weights]]


# --------------------------------------------------------------------------------------- other layers, mixed


def _ramp(shape, scale=0.5, phase=0.0):
    n = int(np.prod(shape))
    # Multiples of 1/64 in [-scale, scale]: exact in float16, so forward values barely round.
    return (np.round(np.cos(np.arange(n) * 0.7 + phase).reshape(shape) * scale * 64) / 64).astype(np.float32)


def _mixed_run(tf, layer, x, training=None):
    layer(x)
    layer.set_weights([_ramp(w.shape.as_list(), 0.5, i) + (1.0 if "variance" in w.path else 0.0)
                       for i, w in enumerate(layer.weights)])
    kw = {} if training is None else {"training": training}
    with tf.GradientTape() as tape:
        y = layer(x, **kw)
        first = y[0] if isinstance(y, (list, tuple)) else y
        s = tf.reduce_sum(tf.cast(first, "float32") * _ramp(first.shape.as_list(), 1.0, 0.5))
    grads = tape.gradient(s, layer.trainable_weights)
    outs = y if isinstance(y, (list, tuple)) else [y]
    return [[o.dtype.name for o in outs], [tf.cast(o, "float16") for o in outs], _f16(tf, grads),
            [w.dtype for w in layer.weights]]


@case
@_under("mixed_float16")
def core_layers_mixed(tf):
    k = tf.keras.layers
    x = tf.constant(_ramp((2, 3, 4), 1.0))
    return {
        "einsum": _mixed_run(tf, k.EinsumDense("abc,cd->abd", output_shape=(None, 2), bias_axes="d"), x),
        "embedding": _mixed_run(tf, k.Embedding(5, 3), tf.constant([[0, 3], [4, 1]])),
        "dropout": _mixed_run(tf, k.Dropout(0.5, seed=1), x, training=False),
        "add": _mixed_run(tf, k.Add(), [x, x]),
        "concatenate": _mixed_run(tf, k.Concatenate(), [x, tf.cast(x, "float16")]),
        "flatten": _mixed_run(tf, k.Flatten(), x),
        "activation": _mixed_run(tf, k.Activation("relu"), x),
        "activation_f32": _mixed_run(tf, k.Activation("softmax", dtype="float32"), x),
    }


@case
@_under("mixed_float16")
def conv_pool_layers_mixed(tf):
    k = tf.keras.layers
    x = tf.constant(_ramp((2, 5, 3), 1.0))
    return {
        "conv1d": _mixed_run(tf, k.Conv1D(2, 2, padding="same"), x),
        "conv2d": _mixed_run(tf, k.Conv2D(2, 2), tf.constant(_ramp((1, 3, 3, 2), 1.0))),
        "max_pool": _mixed_run(tf, k.MaxPooling1D(2), x),
        "avg_pool": _mixed_run(tf, k.GlobalAveragePooling1D(), x),
    }


@case
@_under("mixed_float16")
def normalization_layers_mixed(tf):
    k = tf.keras.layers
    x = tf.constant(_ramp((4, 3), 2.0))
    return {
        "batch_norm_train": _mixed_run(tf, k.BatchNormalization(), x, training=True),
        "batch_norm_infer": _mixed_run(tf, k.BatchNormalization(), x, training=False),
        "layer_norm": _mixed_run(tf, k.LayerNormalization(), x),
    }


@case
@_under("mixed_float16")
def recurrent_layers_mixed(tf):
    k = tf.keras.layers
    x = tf.constant(_ramp((2, 3, 2), 1.0))
    return {
        "simple_rnn": _mixed_run(tf, k.SimpleRNN(2), x),
        "lstm": _mixed_run(tf, k.LSTM(2, return_sequences=True), x),
        "gru": _mixed_run(tf, k.GRU(2, return_state=True), x),
    }


@case
@_under("mixed_float16")
def attention_layer_mixed(tf):
    x = tf.constant(_ramp((1, 3, 4), 1.0))
    layer = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2)
    layer(x, x)
    layer.set_weights([_ramp(w.shape.as_list(), 0.5, i) for i, w in enumerate(layer.weights)])
    with tf.GradientTape() as tape:
        y, scores = layer(x, x, return_attention_scores=True)
        s = tf.reduce_sum(tf.cast(y, "float32") * _ramp(y.shape.as_list(), 1.0, 0.5))
    return [y.dtype.name, scores.dtype.name, tf.cast(y, "float16"), tf.cast(scores, "float16"),
            _f16(tf, tape.gradient(s, layer.trainable_weights))]


# ----------------------------------------------------------------------------------------- LossScaleOptimizer


@case
@_under(None)
def loss_scale_optimizer_api(tf):
    mp = tf.keras.mixed_precision
    inner = tf.keras.optimizers.SGD(0.25, loss_scale_factor=4.0, name="sgd")
    opt = mp.LossScaleOptimizer(inner)
    out = [opt.name, opt.initial_scale, opt.dynamic_growth_steps, opt.inner_optimizer is inner,
           inner.loss_scale_factor, opt.loss_scale_factor, opt.built,
           tf.keras.optimizers.LossScaleOptimizer is mp.LossScaleOptimizer]
    out.append([hasattr(opt, name) for name in ("get_scaled_loss", "get_unscaled_gradients", "loss_scale",
                                               "dynamic_scale", "step_counter", "check_finite", "scale_loss")])
    out.append(catch(lambda: opt.get_scaled_loss(1.0)))
    out.append([opt.scale_loss(3.0), opt.scale_loss(tf.constant(3.0)), opt.scale_loss(tf.constant(3.0, tf.float64)),
                opt.scale_loss(tf.constant(3.0, tf.float16))])
    out.append([repr(opt.learning_rate), repr(opt.iterations), [v.path for v in opt.variables]])
    opt.learning_rate = 0.5
    out.append([repr(opt.learning_rate), repr(inner.learning_rate)])
    sgd = tf.keras.optimizers.SGD
    out.append([catch(mp.LossScaleOptimizer, sgd(), dynamic=False),
                catch(mp.LossScaleOptimizer, sgd(), clipnorm=1.0),
                catch(mp.LossScaleOptimizer, sgd(), use_ema=True),
                catch(mp.LossScaleOptimizer, sgd(), foo=1, bar=2),
                type(mp.LossScaleOptimizer(sgd(), use_ema=False, loss_scale_factor=None, dynamic=True)).__name__])
    config = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1, name="adam"), initial_scale=4.0,
                                   dynamic_growth_steps=3, name="lso").get_config()
    again = mp.LossScaleOptimizer.from_config(config)
    out.append([config, again.get_config(), type(again.inner_optimizer).__name__])
    return out


@case
@_under(None)
def loss_scale_optimizer_steps(tf):
    mp = tf.keras.mixed_precision
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1, name="adam"), initial_scale=4.0, name="lso")
    w = tf.Variable([1.0, 2.0], name="w")
    kw = tf.keras.Variable([1.0, 2.0], name="kw")
    out = []

    def state():
        return [w.numpy(), kw.numpy(), opt.dynamic_scale.numpy(), opt.step_counter.numpy(), opt.iterations.numpy()]

    returned = opt.apply_gradients([(tf.constant([4.0, -8.0]), w), (tf.constant([1.0, 1.0]), kw)])
    out.append([repr(returned), [[v.path, v.numpy()] for v in opt.variables], state()])
    opt.apply_gradients([(tf.constant([float("nan"), 1.0]), w), (tf.constant([1.0, 1.0]), kw)])
    out.append(state())
    opt.apply_gradients([(None, w), (tf.constant([1.0, 1.0]), kw)])
    out.append(state())
    opt.apply_gradients([(tf.constant([float("-inf"), 1.0]), w), (None, kw)])
    out.append(state())
    out.append([opt.check_finite([tf.constant([1.0]), None]), opt.check_finite([tf.constant([np.inf])]),
                opt.scale_loss(tf.constant(2.0))])
    return out


@case
@_under(None)
def loss_scale_growth_and_skips(tf):
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0, name="s"), initial_scale=2.0,
                                                      dynamic_growth_steps=3, name="l")
    v = tf.Variable([1.0])
    opt.build([v])
    out = []
    for g in [2.0, 2.0, 2.0, 4.0, float("inf"), 2.0, 2.0, 2.0, float("nan"), 1.0]:
        opt.apply([tf.constant([g])])
        out.append([v.numpy(), opt.dynamic_scale.numpy(), opt.step_counter.numpy(), opt.iterations.numpy()])
    opt.apply([tf.constant([2.0])], [v])
    out.append([v.numpy(), opt.dynamic_scale.numpy(), opt.step_counter.numpy()])
    return out


@case
@_under("mixed_float16")
def gradient_tape_loop_with_loss_scaling(tf):
    # The default scale makes the float16 backward pass overflow on the first steps: they are skipped and the
    # scale halves until the gradients are finite; with dynamic_growth_steps=2 it then doubles every 2 steps.
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1, name="sgd"),
                                                      dynamic_growth_steps=2)
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", name="d")
    x = tf.constant([[1.0, 2.0, 3.0]])
    out = []
    for step in range(7):
        with tf.GradientTape() as tape:
            y = layer(x)
            loss = tf.reduce_mean(tf.square(tf.cast(y, "float32") - 1.0))
            if step == 4:
                loss = loss * float("inf")
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables))
        out.append([y, scaled, grads, layer.kernel.numpy(), layer.bias.numpy(), opt.dynamic_scale.numpy(),
                    opt.step_counter.numpy(), opt.iterations.numpy()])
    return out


@case
@_under("mixed_float16")
def embedding_training_with_loss_scaling(tf):
    # Gradients of the embedding table reach the inner optimizer dense (divided by the scale), as on TF.
    layer = tf.keras.layers.Embedding(4, 2, embeddings_initializer="ones")
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1, name="adam"), initial_scale=8.0)
    out = []
    for ids in ([[0, 1]], [[1, 1]], [[3, 0]]):
        with tf.GradientTape() as tape:
            y = layer(tf.constant(ids))
            loss = opt.scale_loss(tf.reduce_sum(tf.cast(y, "float32") * 0.5))
        grads = tape.gradient(loss, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables))
        out.append([y, layer.embeddings.numpy(), [[v.path, v.numpy()] for v in opt.variables]])
    return out


# --------------------------------------------------------------------------------------------- compile, fit

_FIT_X = np.array([[0.5, 0.25, -1.0], [1.0, 2.0, 0.5], [-0.5, 1.5, 0.25], [2.0, -1.0, 1.0]], np.float32)
_FIT_Y = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], np.float32)


@case
@_under("mixed_float16")
def fit_classifier_float32_softmax(tf):
    inp = tf.keras.Input(shape=(3,))
    h = tf.keras.layers.Dense(4, kernel_initializer="ones", bias_initializer="zeros", name="h")(inp)
    out = tf.keras.layers.Activation("softmax", dtype="float32", name="softmax")(h)
    model = tf.keras.Model(inp, out)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5, name="sgd"), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    opt = model.optimizer
    history = model.fit(_FIT_X, _FIT_Y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    f32 = np.float32
    return [type(opt).__name__, opt.name, opt.inner_optimizer.name,
            {k: [f32(v) for v in vs] for k, vs in history.history.items()}, model.get_weights(),
            [[v.path, v.numpy()] for v in opt.variables], model.predict(_FIT_X, verbose=0),
            f32(model.evaluate(_FIT_X, _FIT_Y, verbose=0)[0])]


@case
@_under("mixed_float16")
def fit_regression_overflow_skips(tf):
    # A large squared error: at the default scale of 2**15 the float16 gradients overflow, so the first steps are
    # skipped while the scale halves; the logged losses are the unscaled ones.
    model = tf.keras.Sequential([tf.keras.Input((3,)),
                                 tf.keras.layers.Dense(2, kernel_initializer="ones", name="a"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones", name="b", dtype="float32")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01, name="sgd"), loss="mse")
    y = np.array([[20.0], [-8.0], [4.0], [0.0]], np.float32)
    history = model.fit(_FIT_X, y, epochs=7, batch_size=4, verbose=0, shuffle=False)
    return [[np.float32(v) for v in history.history["loss"]], model.get_weights(),
            model.optimizer.dynamic_scale.numpy(), model.optimizer.step_counter.numpy(),
            model.optimizer.iterations.numpy()]


@case
@_under(None)
def compile_wrapping_rules(tf):
    mp = tf.keras.mixed_precision
    x = np.ones((2, 3), np.float32)

    def wrapped(make, call=True, **kw):
        model = make()
        if call:
            model(x)
        model.compile(**{"optimizer": "sgd", "loss": "mse", **kw})
        return type(model.optimizer).__name__, getattr(model.optimizer, "name", None)

    dense = tf.keras.layers.Dense
    out = [wrapped(lambda: tf.keras.Sequential([dense(1)]))]
    out.append(wrapped(lambda: tf.keras.Sequential([dense(1, dtype="mixed_float16")])))
    mp.set_global_policy("mixed_float16")
    out.append(wrapped(lambda: tf.keras.Sequential([dense(1)])))
    out.append(wrapped(lambda: tf.keras.Sequential([dense(1)]), auto_scale_loss=False))
    own = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(), name="mine")
    model = tf.keras.Sequential([dense(1)])
    model.compile(own, "mse")
    out.append([model.optimizer is own, model.optimizer.name])
    mp.set_global_policy("mixed_bfloat16")
    out.append(wrapped(lambda: tf.keras.Sequential([dense(1)]), call=False))  # (tapeflow cannot run bfloat16)
    return out


@case
@_under("mixed_bfloat16")
def mixed_bfloat16_policy_layers(tf):
    # The weights are made (float32); tapeflow refuses bfloat16 computations, so no call here.
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    return [_layer_dtypes(layer), [w.dtype for w in layer.weights], layer.get_config()["dtype"]]

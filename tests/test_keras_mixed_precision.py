"""Unit checks of tf.keras.mixed_precision beyond the golden files (tests/golden/cases/mixed_precision.py): the
autocast scope's life, threads, bfloat16 refusal, traced and eager training under a mixed policy."""

import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import variables as keras_variables

mp = tf.keras.mixed_precision
BF16_MESSAGE = "tapeflow cannot compute with tf.bfloat16 values (NumPy has no bfloat16 type); use float16 or float32"


@pytest.fixture(autouse=True)
def _float32_after():
    tf.keras.backend.clear_session()
    yield
    mp.set_global_policy("float32")


def _scope():
    return keras_variables._AUTOCAST.active, keras_variables.autocast_dtype()


class _Probe(tf.keras.layers.Layer):
    def __init__(self, fail=False, **kwargs):
        super().__init__(**kwargs)
        self.fail = fail
        self.seen = []

    def build(self, shape):
        self.w = self.add_weight(shape=(), initializer="ones", name="w")

    def call(self, x):
        self.seen.append(_scope())
        if self.fail:
            raise ValueError("boom")
        return x * self.w


def test_float32_layers_open_no_scope():
    layer = _Probe()
    layer(tf.constant([1.0]))
    assert layer.seen == [(False, None)] and _scope() == (False, None)


def test_mixed_layer_scope_closes_after_call_and_after_an_error():
    layer = _Probe(dtype="mixed_float16")
    out = layer(tf.constant([1.0]))
    assert out.dtype == tf.float16 and layer.seen == [(True, "float16")]
    assert _scope() == (False, None)
    failing = _Probe(fail=True, dtype="mixed_float16")
    with pytest.raises(ValueError, match="boom"):
        failing(tf.constant([1.0]))
    assert _scope() == (False, None)
    assert failing.w.dtype == "float32" and failing.w.value is failing.w._var


def test_autocast_scope_is_per_thread():
    seen = []
    entered = threading.Event()
    leave = threading.Event()

    class Blocking(_Probe):
        def call(self, x):
            entered.set()
            leave.wait(5)
            return super().call(x)

    layer = Blocking(dtype="mixed_float16")
    thread = threading.Thread(target=lambda: layer(tf.constant([1.0])))
    thread.start()
    entered.wait(5)
    seen.append(_scope())  # the other thread is inside a mixed call
    plain = tf.keras.Variable(1.0)
    seen.append(plain.dtype)
    leave.set()
    thread.join()
    assert seen == [(False, None), "float32"]


def test_global_policy_is_per_thread():
    mp.set_global_policy("mixed_float16")
    names = []
    thread = threading.Thread(target=lambda: names.append(tf.keras.layers.Dense(1).dtype_policy.name))
    thread.start()
    thread.join()
    assert names == ["float32"] and tf.keras.layers.Dense(1).dtype_policy.name == "mixed_float16"


def test_autocast_scope_refuses_non_float_dtypes():
    with pytest.raises(ValueError, match="floating-point target dtype"):
        keras_variables.AutocastScope("int32")


def test_mixed_bfloat16_policy_builds_but_refuses_to_compute():
    mp.set_global_policy("mixed_bfloat16")
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    assert [w.dtype for w in layer.weights] == ["float32", "float32"]
    assert layer.compute_dtype == "bfloat16"
    with pytest.raises(TypeError) as info:
        layer(np.ones((1, 3), np.float32))
    assert BF16_MESSAGE in str(info.value)
    assert _scope() == (False, None)


def test_gradients_reach_float32_weights_as_float32():
    layer = tf.keras.layers.Dense(3, dtype="mixed_float16")
    x = tf.constant(np.ones((2, 4), np.float32))
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, "float32"))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert y.dtype == tf.float16
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_skips_overflowing_steps_traced_and_eager(run_eagerly):
    mp.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, kernel_initializer="ones"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones", dtype="float32")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", run_eagerly=run_eagerly)
    x = np.array([[0.5, 0.25, -1.0], [1.0, 2.0, 0.5], [-0.5, 1.5, 0.25], [2.0, -1.0, 1.0]], np.float32)
    y = np.array([[20.0], [-8.0], [4.0], [0.0]], np.float32)
    history = model.fit(x, y, epochs=6, batch_size=4, verbose=0, shuffle=False)
    opt = model.optimizer
    assert isinstance(opt, mp.LossScaleOptimizer)
    # 2**15 overflows the float16 backward pass three times (down to 4096), then every step is taken.
    assert float(opt.dynamic_scale.numpy()) == 4096.0
    assert int(opt.iterations.numpy()) == 3 and int(opt.step_counter.numpy()) == 3
    losses = history.history["loss"]
    assert losses[0] == losses[1] == losses[2] == losses[3] and losses[5] < losses[4] < losses[3]


@pytest.mark.parametrize("traced", [False, True])
def test_loss_scale_optimizer_in_a_traced_step(traced):
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0), initial_scale=4.0, dynamic_growth_steps=2)
    w = tf.Variable([1.0, 2.0])

    def step(g):
        opt.apply_gradients([(g, w)])

    step = tf.function(step) if traced else step
    scales = []
    for g in ([1.0, 1.0], [np.inf, 1.0], [1.0, 1.0], [1.0, 1.0]):
        step(tf.constant(g))
        scales.append(float(opt.dynamic_scale.numpy()))
    # 1/4 taken; skipped (scale 2); 1/2 taken twice, and the second good step in a row doubles the scale.
    assert w.numpy().tolist() == [-0.25, 0.75]
    assert scales == [4.0, 2.0, 2.0, 4.0] and int(opt.iterations.numpy()) == 3


def test_train_step_applies_loss_scale_factor():
    # An optimizer's own ``loss_scale_factor`` scales the loss in ``fit`` and unscales the gradients: no effect.
    def train(factor):
        tf.keras.backend.clear_session()
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1, loss_scale_factor=factor), loss="mse")
        model.fit(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32), epochs=2, verbose=0, shuffle=False)
        return model.get_weights()

    for a, b in zip(train(None), train(8.0)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_layer_dtype_policy_round_trips_through_config():
    layer = tf.keras.layers.Dense(2, dtype="mixed_float16")
    again = tf.keras.layers.Dense.from_config(layer.get_config())
    assert again.dtype_policy == layer.dtype_policy and again.compute_dtype == "float16"


def test_checkpoint_restores_the_scale_and_the_inner_optimizer(tmp_path):
    def make():
        return mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1), initial_scale=8.0), tf.Variable([1.0])

    opt, w = make()
    opt.apply_gradients([(tf.constant([np.inf]), w)])
    opt.apply_gradients([(tf.constant([1.0]), w)])
    path = tf.train.Checkpoint(opt=opt, w=w).save(str(tmp_path / "ckpt"))
    opt2, w2 = make()
    opt2.build([w2])
    tf.train.Checkpoint(opt=opt2, w=w2).restore(path)
    assert [v.numpy().tolist() for v in opt2.variables] == [v.numpy().tolist() for v in opt.variables]
    assert float(opt2.dynamic_scale.numpy()) == 4.0 and int(opt2.iterations.numpy()) == 1


def test_quantized_policies_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="Quantized dtype policies are not supported by tapeflow"):
        tf.keras.mixed_precision.set_global_policy("int8_from_float32")
    assert tf.keras.mixed_precision.global_policy().name == "float32"

"""Keras's random draws inside ``tf.function``: every draw is an op of its seed (``StatelessPhilox``), so a traced
program draws anew on each call when its seed comes from a ``SeedGenerator`` (or a random layer's own stream),
and repeats its values for a fixed integer seed, as Keras on TF does. Eager values are what they always were.

Each traced sequence is compared with the eager sequence of a twin (same seeds): a traced program is the eager
code run again, op for op, so the two must agree bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

R = tf.keras.random
L = tf.keras.layers


def _np(t):
    return np.asarray(t.numpy())


def _differ(a, b):
    return not np.array_equal(a, b)


# ------------------------------------------------------------------------------------------ keras.random draws

DRAWS = {
    "normal": lambda seed: R.normal((3, 4), mean=0.5, stddev=2.0, seed=seed),
    "uniform": lambda seed: R.uniform((3, 4), minval=-1.0, maxval=2.0, seed=seed),
    "randint": lambda seed: R.randint((3, 4), 0, 1000, seed=seed),
    "truncated_normal": lambda seed: R.truncated_normal((40,), seed=seed),
    "dropout": lambda seed: R.dropout(tf.ones((4, 6)), 0.5, seed=seed),
    "dropout_noise_shape": lambda seed: R.dropout(tf.ones((4, 6)), 0.5, noise_shape=(None, 1), seed=seed),
    "shuffle": lambda seed: R.shuffle(tf.range(12), seed=seed),
    "shuffle_axis": lambda seed: R.shuffle(tf.reshape(tf.range(24), (4, 6)), axis=1, seed=seed),
    "categorical": lambda seed: R.categorical(tf.zeros((3, 5)), 8, seed=seed),
    "gamma": lambda seed: R.gamma((3, 4), 2.0, seed=seed),
    "beta": lambda seed: R.beta((3, 4), 2.0, 3.0, seed=seed),
    "binomial": lambda seed: R.binomial((3, 4), 10, 0.5, seed=seed),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_traced_draw_from_a_seed_generator_is_new_on_each_call(name):
    draw = DRAWS[name]
    gen, twin = R.SeedGenerator(7), R.SeedGenerator(7)
    f = tf.function(lambda: draw(gen))
    traced = [_np(f()) for _ in range(3)]
    eager = [_np(draw(twin)) for _ in range(3)]
    assert _differ(traced[0], traced[1]) and _differ(traced[1], traced[2])
    for t, e in zip(traced, eager):
        assert t.dtype == e.dtype and t.shape == e.shape
        np.testing.assert_array_equal(t, e)
    assert gen.state.numpy().tolist() == [7, 3]  # the trace put back what it advanced
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_traced_draw_with_an_integer_seed_repeats(name):
    draw = DRAWS[name]
    f = tf.function(lambda: draw(5))
    first, second = _np(f()), _np(f())
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, _np(draw(5)))


def test_traced_unseeded_draw_is_new_on_each_call():
    f = tf.function(lambda: R.normal((6,)))
    assert _differ(_np(f()), _np(f()))


def test_seed_generator_draw_takes_its_seed_as_an_op_input():
    gen = R.SeedGenerator(3)
    f = tf.function(lambda: R.uniform((4,), seed=gen))
    source = f.get_concrete_function().pretty_printed_source()
    assert "StatelessPhilox" in source and "_assign(" in source  # the draw, and the generator's advance


def test_traced_draw_shaped_like_an_input():
    gen = R.SeedGenerator(11)
    f = tf.function(lambda x: x + R.normal(x.shape, seed=gen))
    x = tf.zeros((2, 3))
    a, b = _np(f(x)), _np(f(x))
    assert a.shape == (2, 3) and _differ(a, b)


# ------------------------------------------------------------------------------------------ layers


def test_traced_dropout_layer_draws_a_new_mask_per_call():
    layer, twin = L.Dropout(0.5, seed=3), L.Dropout(0.5, seed=3)
    f = tf.function(lambda x: layer(x, training=True))
    x = tf.constant(np.ones((4, 6), np.float32))
    traced = [_np(f(x)) for _ in range(3)]
    eager = [_np(twin(x, training=True)) for _ in range(3)]
    assert _differ(traced[0], traced[1]) and _differ(traced[1], traced[2])
    for t, e in zip(traced, eager):
        np.testing.assert_array_equal(t, e)
    np.testing.assert_array_equal(_np(f(x)), _np(twin(x, training=True)))  # still in step


def test_traced_dropout_layer_noise_shape_and_inference():
    layer = L.Dropout(0.5, noise_shape=(None, 1), seed=1)
    f = tf.function(lambda x, training: layer(x, training=training))
    x = tf.ones((8, 5))
    a, b = _np(f(x, True)), _np(f(x, True))
    assert _differ(a, b) and np.all(a == a[:, :1]) and np.all(b == b[:, :1])
    np.testing.assert_array_equal(_np(f(x, False)), np.ones((8, 5), np.float32))


def test_traced_dropout_layer_with_an_unknown_batch_size():
    layer, twin = L.Dropout(0.5, seed=3), L.Dropout(0.5, seed=3)
    f = tf.function(lambda x: layer(x, training=True), input_signature=[tf.TensorSpec([None, 6], tf.float32)])
    for n in (4, 5, 4, 7):  # one program: the mask's shape and the stream's advance are read when it runs
        np.testing.assert_array_equal(_np(f(tf.ones((n, 6)))), _np(twin(tf.ones((n, 6)), training=True)))
    assert f.experimental_get_tracing_count() == 1
    drop_all = L.Dropout(1.0)
    dropped = tf.function(lambda x: drop_all(x, training=True), input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    np.testing.assert_array_equal(_np(dropped(tf.ones((3, 2)))), np.zeros((3, 2), np.float32))


SHAPED_LIKE = {
    "dropout": lambda x, g: R.dropout(x, 0.5, seed=g),
    "dropout_noise_shape": lambda x, g: R.dropout(x, 0.5, noise_shape=(None, 1), seed=g),
    "shuffle": lambda x, g: R.shuffle(x, seed=g),
    "normal": lambda x, g: R.normal(tf.shape(x), seed=g),
    "randint": lambda x, g: R.randint(tf.shape(x), 0, 9, seed=g),
    "binomial": lambda x, g: R.binomial(tf.shape(x), 5, 0.5, seed=g),
    "categorical": lambda x, g: R.categorical(x, 4, seed=g),
}


@pytest.mark.parametrize("name", sorted(SHAPED_LIKE))
def test_traced_draw_with_an_unknown_batch_size(name):
    fn = SHAPED_LIKE[name]
    gen, twin = R.SeedGenerator(1), R.SeedGenerator(1)
    f = tf.function(lambda x: fn(x, gen), input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for n in (2, 4, 3):
        x = tf.reshape(tf.range(n * 3, dtype=tf.float32), (n, 3))
        np.testing.assert_array_equal(_np(f(x)), _np(fn(x, twin)))
    assert f.experimental_get_tracing_count() == 1


def test_dropout_layer_stream_is_not_a_weight():
    layer = L.Dropout(0.5, seed=3)
    layer(tf.ones((2, 2)), training=True)
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(3), L.Dropout(0.3, seed=2)])
    assert layer.weights == [] and len(model.weights) == 2 and model.count_params() == 15


def test_dropout_layer_made_inside_a_function_is_refused_as_in_keras():
    # Keras's Dropout makes its seed generator's variable at construction: TF refuses a variable made by the
    # second trace of a first call. With rate 0 there is none.
    f = tf.function(lambda x: L.Dropout(0.5)(x, training=True))
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        f(tf.ones((2, 2)))
    g = tf.function(lambda x: L.Dropout(0.0)(x, training=True))
    np.testing.assert_array_equal(_np(g(tf.ones((2, 2)))), np.ones((2, 2), np.float32))


def test_dropout_rate_raised_after_construction_draws():
    layer = L.Dropout(0.0, seed=4)
    layer.rate = 0.5
    out = _np(layer(tf.ones((10, 10)), training=True))
    assert set(np.unique(out).tolist()) == {0.0, 2.0}


@pytest.mark.parametrize("cls", [L.SimpleRNN, L.LSTM, L.GRU], ids=lambda c: c.__name__)
def test_traced_recurrent_dropout_masks_are_new_on_each_call(cls):
    def make():
        tf.keras.utils.set_random_seed(0)
        return cls(3, dropout=0.3, recurrent_dropout=0.3, seed=5, return_sequences=True)

    layer, twin = make(), make()
    x = tf.constant(np.linspace(-1, 1, 2 * 4 * 5).reshape(2, 4, 5).astype(np.float32))
    twin(x)  # built, then given the layer's weights
    layer(x)
    twin.set_weights(layer.get_weights())
    f = tf.function(lambda x: layer(x, training=True))
    traced = [_np(f(x)) for _ in range(3)]
    eager = [_np(twin(x, training=True)) for _ in range(3)]
    assert _differ(traced[0], traced[1]) and _differ(traced[1], traced[2])
    for t, e in zip(traced, eager):
        np.testing.assert_array_equal(t, e)


def test_traced_attention_dropout_is_new_on_each_call():
    mha = L.MultiHeadAttention(2, 3, dropout=0.5, seed=1)
    q = tf.constant(np.linspace(-1, 1, 2 * 4 * 5).reshape(2, 4, 5).astype(np.float32))
    f = tf.function(lambda q: mha(q, q, training=True))
    assert _differ(_np(f(q)), _np(f(q)))


def _twin_models():
    def make():
        return tf.keras.Sequential([tf.keras.Input((6,)), L.Dense(16, activation="relu"), L.Dropout(0.5, seed=9),
                                    L.Dense(1)])

    a, b = make(), make()
    b.set_weights(a.get_weights())
    return a, b


def _step(model, opt, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def test_traced_training_step_with_dropout_draws_new_masks():
    model, twin = _twin_models()
    opt, twin_opt = tf.keras.optimizers.SGD(0.05), tf.keras.optimizers.SGD(0.05)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((8, 6)).astype(np.float32))
    y = tf.constant(rng.standard_normal((8, 1)).astype(np.float32))
    step = tf.function(lambda: _step(model, opt, x, y))
    traced = [float(step()) for _ in range(4)]
    eager = [float(_step(twin, twin_opt, x, y)) for _ in range(4)]
    assert traced == eager
    for w, v in zip(model.get_weights(), twin.get_weights()):
        np.testing.assert_array_equal(w, v)
    forward = tf.function(lambda: model(x, training=True))
    assert _differ(_np(forward()), _np(forward()))


# ------------------------------------------------------------------------------------------ eager values


def test_eager_values_are_numpy_philox_draws():
    # keras.random: Philox keyed by the seed pair [seed, 0]; a generator's pairs are [seed, 0], [seed, 1], ...
    ref = np.random.Generator(np.random.Philox(key=[4, 0])).standard_normal((2, 3)) * 2.0 + 1.0
    np.testing.assert_array_equal(_np(R.normal((2, 3), mean=1.0, stddev=2.0, dtype="float64", seed=4)), ref)
    gen = R.SeedGenerator(4)
    R.uniform((1,), seed=gen)
    ref = np.random.Generator(np.random.Philox(key=[4, 1])).random((5,))
    np.testing.assert_array_equal(_np(R.uniform((5,), dtype="float64", seed=gen)), ref)
    # a Dropout layer: one generator seeded with the layer's seed, read on from call to call
    layer = L.Dropout(0.25, seed=6)
    rng = np.random.Generator(np.random.Philox(6))
    for shape in ((3, 5), (7,), (2, 2, 3)):
        keep = rng.random(shape) >= 0.25
        out = _np(layer(tf.ones(shape), training=True))
        np.testing.assert_array_equal(out, (keep / 0.75).astype(np.float32))


# ------------------------------------------------------------------------------------------ tf.random.stateless_*


def test_stateless_draws_depend_on_the_seed_alone():
    for fn in (tf.random.stateless_uniform, tf.random.stateless_normal):
        a, b = _np(fn([4, 3], seed=[1, 2])), _np(fn([4, 3], seed=[1, 2]))
        np.testing.assert_array_equal(a, b)
        assert _differ(a, _np(fn([4, 3], seed=[2, 1])))
        assert a.dtype == np.float32 and a.shape == (4, 3)


def test_traced_stateless_draw_follows_its_seed_input():
    f = tf.function(lambda seed: tf.random.stateless_uniform([5], seed=seed, minval=-1.0, maxval=1.0))
    for seed in ([1, 2], [3, 4], [-7, 2**40]):
        s = tf.constant(seed, tf.int64)
        np.testing.assert_array_equal(_np(f(s)), _np(tf.random.stateless_uniform([5], seed=s, minval=-1.0,
                                                                                 maxval=1.0)))
    assert f.experimental_get_tracing_count() == 1


def test_stateless_integers_and_full_range():
    ints = _np(tf.random.stateless_uniform([200], seed=[5, 6], minval=-3, maxval=4, dtype=tf.int32))
    assert ints.dtype == np.int32 and set(ints.tolist()) == set(range(-3, 4))
    full = _np(tf.random.stateless_uniform([200], seed=[5, 6], minval=None, maxval=None, dtype=tf.uint64))
    assert full.dtype == np.uint64 and full.max() > 2**63


def test_stateless_gradients_reach_bounds_and_moments():
    x = tf.constant([1.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tf.random.stateless_uniform([4], seed=[1, 2], minval=x[0], maxval=x[1])
        n = tf.random.stateless_normal([4], seed=[1, 2], mean=x[0], stddev=x[1])
    gu, gn = _np(tape.gradient(u, x)), _np(tape.gradient(n, x))
    assert gu.sum() == pytest.approx(4.0) and gn[0] == pytest.approx(4.0)


@pytest.mark.parametrize("call,cls,message", [
    # TF 2.21's errors, word for word
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2, 3]), tf.errors.InvalidArgumentError,
     "{{function_node __wrapped__StatelessRandomGetKeyCounter_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
     "seed must have shape [2], not [3] [Op:StatelessRandomGetKeyCounter]"),
    (lambda: tf.random.stateless_uniform([2], seed=tf.constant([1, 2, 3])), tf.errors.InvalidArgumentError,
     "{{function_node __wrapped__StatelessRandomGetKeyCounter_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
     "seed must have shape [2], not [3] [Op:StatelessRandomGetKeyCounter] name: "),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], minval=5, maxval=5, dtype=tf.int32),
     tf.errors.InvalidArgumentError,
     "{{function_node __wrapped__StatelessRandomUniformIntV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
     "Need minval < maxval, got 5 >= 5 [Op:StatelessRandomUniformIntV2] name: "),
    (lambda: tf.random.stateless_normal([-2], seed=[1, 2]), tf.errors.InvalidArgumentError,
     "{{function_node __wrapped__StatelessRandomNormalV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
     "Dimension -2 must be >= 0 [Op:StatelessRandomNormalV2] name: "),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32), ValueError,
     "For integer `dtype` argument <dtype: 'int32'>, argument `minval` and `maxval` must be both None or not None. "
     "Got `minval`=0 and `maxval`=None."),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], alg="foo"), ValueError,
     "Argument `alg` got unsupported value foo. Supported values are philox for the Philox algorithm, threefry for "
     "the ThreeFry algorithm, and auto_select for auto-selection."),
    (lambda: tf.random.stateless_normal([2], seed=[1, 2], dtype=tf.int32), TypeError,
     "Cannot convert 0.0 to EagerTensor of dtype int32"),
])
def test_stateless_errors_are_tfs(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value) == message

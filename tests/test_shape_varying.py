"""Traced code whose tensors change shape from one run to the next: a ``for batch in dataset`` loop inside
``tf.function`` whose last batch is short, run against the same loop run eagerly.

The loop body is traced once, on the first batch, with the batch dimension unknown (``None``). What it computes
from shapes (a loss's mean over the batch, a gradient broadcast back to a batch, a reshape that keeps the batch)
must be worked out when the program runs, not frozen to the first batch's size. Also here: the static shapes the
body sees, ``tf.zeros`` of a computed shape, and scatters into variables (an ``Embedding``'s sparse update)
inside a traced function.
"""

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers
RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(11, 5)).astype(np.float32)
X3 = RNG.normal(size=(11, 4, 3)).astype(np.float32)
X4 = RNG.normal(size=(11, 6, 6, 2)).astype(np.float32)
TOKENS = RNG.integers(0, 10, size=(11, 4))
LABELS = RNG.integers(0, 3, size=11)
SCE = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

MODELS = {
    "dense": (lambda: [L.Dense(7, activation="relu"), L.Dense(3)], X2),
    "batchnorm": (lambda: [L.Dense(7), L.BatchNormalization(), L.Dense(3)], X2),
    "conv": (lambda: [L.Conv2D(4, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(), L.Dense(3)], X4),
    "conv_gap": (lambda: [L.Conv2D(4, 3, padding="same"), L.GlobalAveragePooling2D(), L.Dense(3)], X4),
    "lstm": (lambda: [L.LSTM(5), L.Dense(3)], X3),
    "gru_sequences": (lambda: [L.GRU(5, return_sequences=True), L.Flatten(), L.Dense(3)], X3),
    "reshape": (lambda: [L.Reshape((12,)), L.Dense(3)], X3),
    "embedding": (lambda: [L.Embedding(10, 3), L.GlobalAveragePooling1D(), L.Dense(3)], TOKENS),
    "layernorm": (lambda: [L.Embedding(10, 4), L.LayerNormalization(), L.Flatten(), L.Dense(3)], TOKENS),
}


def _train(layers, x, batch, traced, optimizer="sgd"):
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential(layers())
    model(x[:1])
    opt = tf.keras.optimizers.get(optimizer)
    ds = tf.data.Dataset.from_tensor_slices((x, LABELS)).batch(batch)

    def loop(ds):
        loss = tf.constant(0.0)
        for xb, yb in ds:
            with tf.GradientTape() as tape:
                loss = SCE(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    loss = (tf.function(loop) if traced else loop)(ds)
    return float(loss), [v.numpy() for v in model.weights]


@pytest.mark.parametrize("batch", [4, 5])  # last batches of 3 and of 1
@pytest.mark.parametrize("name", sorted(MODELS))
def test_dataset_loop_with_short_last_batch_trains_as_eagerly(name, batch):
    layers, x = MODELS[name]
    eager_loss, eager_weights = _train(layers, x, batch, traced=False)
    traced_loss, traced_weights = _train(layers, x, batch, traced=True)
    np.testing.assert_allclose(traced_loss, eager_loss, rtol=1e-5)
    for a, b in zip(traced_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_adam_over_a_short_last_batch():
    eager = _train(MODELS["embedding"][0], TOKENS, 4, traced=False, optimizer="adam")
    traced = _train(MODELS["embedding"][0], TOKENS, 4, traced=True, optimizer="adam")
    np.testing.assert_allclose(traced[0], eager[0], rtol=1e-5)
    for a, b in zip(traced[1], eager[1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_the_body_sees_the_batch_dimension_as_none():
    seen = []
    ds = tf.data.Dataset.from_tensor_slices((X3, LABELS)).batch(4)
    w = tf.ones([3, 2])

    @tf.function
    def f(ds):
        total = tf.constant(0.0)
        for xb, _ in ds:
            h = tf.matmul(xb, w)
            flat = tf.reshape(h, [-1, 8])
            seen.append([xb.shape.as_list(), h.shape.as_list(), flat.shape.as_list(),
                         tf.reduce_sum(h, axis=1).shape.as_list(), tf.transpose(h, [0, 2, 1]).shape.as_list()])
            total += tf.reduce_sum(flat)
        return total

    np.testing.assert_allclose(f(ds).numpy(), np.sum(X3 @ np.ones([3, 2], np.float32)), rtol=1e-5)
    assert seen == [[[None, 4, 3], [None, 4, 2], [None, 8], [None, 2], [None, 2, 4]]]


def test_computed_shapes_in_the_body():
    ds = tf.data.Dataset.from_tensor_slices(X2).batch(4)

    @tf.function
    def f(ds):
        out = tf.constant(0.0)
        for xb in ds:
            z = tf.zeros([tf.shape(xb)[0], 2]) + tf.ones([tf.shape(xb)[0], 1]) + tf.fill(tf.shape(xb)[:1], 2.0)[:, None]
            out += tf.reduce_sum(z) + tf.reduce_sum(tf.expand_dims(xb, 1) * 0 + 1) + tf.reduce_sum(
                tf.squeeze(xb[:, None, :1], axis=1))
        return out

    assert f(ds).numpy() == pytest.approx(11 * 2 * 3 + 11 * 5 + float(np.sum(X2[:, :1])), rel=1e-5)


@pytest.mark.parametrize("batch", [4, 5])
def test_gradients_of_broadcasts_reshapes_slices_and_means(batch):
    ds = tf.data.Dataset.from_tensor_slices(X3).batch(batch)
    b = tf.Variable(tf.ones([1, 4, 1]))
    c = tf.Variable(tf.ones([3]))

    def loop(ds):
        total = tf.zeros([4, 1])
        for xb in ds:
            with tf.GradientTape() as tape:
                y = xb * b + c
                loss = (tf.reduce_mean(tf.reshape(y, [-1, 12])[:, 2:]) + tf.reduce_sum(tf.expand_dims(y, 0)[0, :, 1])
                        + tf.reduce_mean(tf.boolean_mask(y, y[..., 0] > 0)))
            gb, gc = tape.gradient(loss, [b, c])
            total += gb[0] + tf.reduce_sum(gc)
        return total

    np.testing.assert_allclose(tf.function(loop)(ds).numpy(), loop(ds).numpy(), rtol=1e-5)


def test_variable_scatters_inside_a_traced_function():
    v = tf.Variable(np.arange(6.0, dtype=np.float32).reshape(3, 2))

    @tf.function
    def f(rows, values):
        v.scatter_sub(tf.IndexedSlices(values, rows))
        v.scatter_nd_add([[1, 1]], [10.0])
        return v.read_value()

    out = f(tf.constant([0, 2, 0]), tf.ones([3, 2]))
    np.testing.assert_array_equal(out.numpy(), [[-2, -1], [2, 13], [3, 4]])
    out = f(tf.constant([1]), tf.ones([1, 2]))
    np.testing.assert_array_equal(out.numpy(), [[-2, -1], [1, 22], [3, 4]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="ResourceScatterSub"):
        f(tf.constant([5]), tf.ones([1, 2]))
    np.testing.assert_array_equal(v.numpy(), [[-2, -1], [1, 22], [3, 4]])  # the failed call changed nothing


# --------------------------------------------------------------------------- whole functions, relaxed signatures


def test_a_relaxed_signature_serves_every_batch_size_from_one_trace():
    traces = []
    model, eager_model = (tf.keras.Sequential([L.Dense(4, activation="tanh"), L.Dense(3)]) for _ in range(2))
    model(X2[:1])
    eager_model(X2[:1])
    eager_model.set_weights(model.get_weights())
    opts = [tf.keras.optimizers.SGD(0.1), tf.keras.optimizers.SGD(0.1)]

    def step(m, opt, x, y):
        traces.append(x.shape.as_list())
        with tf.GradientTape() as tape:
            loss = SCE(y, m(x))
        opt.apply_gradients(zip(tape.gradient(loss, m.trainable_variables), m.trainable_variables))
        return loss

    traced = tf.function(lambda x, y: step(model, opts[0], x, y),
                         input_signature=[tf.TensorSpec([None, 5]), tf.TensorSpec([None], tf.int64)])
    for lo, hi in [(0, 4), (4, 7), (7, 8), (8, 11)]:
        got = traced(X2[lo:hi], LABELS[lo:hi])
        want = step(eager_model, opts[1], tf.constant(X2[lo:hi]), tf.constant(LABELS[lo:hi]))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    for a, b in zip(model.weights, eager_model.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7)
    assert traces[0] == [None, 5] and len([t for t in traces if t == [None, 5]]) == 1  # one trace, then eager ones


def test_gradients_through_a_relaxed_function_at_every_size():
    w = tf.Variable([[1.0, -2.0, 0.5]])

    @tf.function(reduce_retracing=True)
    def f(x):
        return tf.reduce_mean(tf.nn.softmax(x * w, axis=-1)[:, 1:] ** 2, axis=0)

    for n in [2, 3, 5, 1]:
        x = tf.constant(RNG.normal(size=(n, 3)).astype(np.float32))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = f(x)
            want = tf.reduce_mean(tf.nn.softmax(x * w, axis=-1)[:, 1:] ** 2, axis=0)
        for got, exp in zip(tape.gradient(y, [x, w]), tape.gradient(want, [x, w])):
            np.testing.assert_allclose(got.numpy(), exp.numpy(), rtol=1e-5, atol=1e-7)
    assert f.experimental_get_tracing_count() == 2  # [2, 3], then [None, 3] for every later size


def test_a_size_that_went_in_as_a_number_traces_again_per_shape():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        seen.append(x.shape.as_list())
        return x * 3.0  # traced on 3 elements: the 3.0 might be the size, so the program is not reused

    assert f(tf.ones([3])).numpy().tolist() == [3.0] * 3
    assert f(tf.ones([5])).numpy().tolist() == [3.0] * 5
    assert f.experimental_get_tracing_count() == 1 and len(seen) == 2


def test_range_of_a_bound_the_program_computes():
    @tf.function
    def f(n):
        return tf.reduce_sum(tf.range(n)), tf.range(1, n, 2.0)

    assert [t.numpy().tolist() for t in f(tf.constant(3))] == [3, [1.0]]
    assert [t.numpy().tolist() for t in f(tf.constant(5))] == [10, [1.0, 3.0]]  # not the first call's, frozen
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
        f(tf.constant(-1))


def test_a_tensor_array_written_first_inside_a_loop_over_varying_shapes():
    @tf.function(input_signature=[tf.TensorSpec([None, None, 2])])
    def run(x):
        out = tf.TensorArray(tf.float32, tf.shape(x)[0])
        for i in tf.range(tf.shape(x)[0]):
            out = out.write(i, x[i] * 2.0)
        return out.stack()

    for shape in [(3, 2, 2), (1, 4, 2), (2, 1, 2)]:
        x = RNG.normal(size=shape).astype(np.float32)
        np.testing.assert_allclose(run(x).numpy(), x * 2)
    assert run.experimental_get_tracing_count() == 1

"""Helpers the MPI programs share: the data, a reference model trained in one process, and checks that every rank
holds the same numbers."""

import numpy as np

import tapeflow as tf

GLOBAL_BATCH = 8
STEPS = 6


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 5)).astype("float32")
    y = (x[:, :1] * 1.5 - x[:, 2:3] + 0.1 * rng.normal(size=(len(x), 1))).astype("float32")
    return x, y


def initial_weights():
    rng = np.random.default_rng(42)
    return [rng.normal(size=(5, 4)).astype("float32") * 0.5, np.zeros(4, "float32"),
            rng.normal(size=(4, 1)).astype("float32") * 0.5, np.zeros(1, "float32")]


def forward(variables, x):
    w1, b1, w2, b2 = variables
    return tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2


def reference(steps=STEPS, start=None):
    """Single-process training on the global batches: the numbers the distributed runs must reproduce."""
    x, y = data()
    variables = [tf.Variable(w) for w in (start or initial_weights())]
    opt = tf.keras.optimizers.Adam(0.05)
    for step in range(steps):
        gx, gy = x[step * GLOBAL_BATCH:(step + 1) * GLOBAL_BATCH], y[step * GLOBAL_BATCH:(step + 1) * GLOBAL_BATCH]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.reduce_sum((forward(variables, gx) - gy) ** 2, axis=1))
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return [v.numpy() for v in variables]


def assert_close(got, want, what):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6, err_msg=what)


def assert_same_on_every_rank(arrays, allgather_object, what):
    every = allgather_object([np.asarray(a) for a in arrays])
    for other in every[1:]:
        for a, b in zip(every[0], other):
            assert np.array_equal(a, b), f"{what}: ranks differ"

"""Per-example gradients of a small MLP: ``tf.vectorized_map`` against a Python loop of gradient calls.

usage: OPENBLAS_NUM_THREADS=1 python benchmarks/per_example_grads.py [--batch N] [--repeats R]
       PYTHONPATH=src OPENBLAS_NUM_THREADS=1 <tf venv>/bin/python benchmarks/per_example_grads.py   # also TF's

The model is a 64 -> 128 -> 10 MLP with a softmax cross-entropy loss; each run computes the gradient of every
example's loss with respect to the three weights (``[batch, *weight.shape]`` each). Three ways in tapeflow: a
Python loop of ``GradientTape.gradient`` calls, one per example; ``tf.vectorized_map`` of the same per-example
function (traced once, then run as one batched graph); and hand-written NumPy (the per-example gradients as
batched matrix products), the floor. Issue 15's target: ``vectorized_map`` at least 10x faster than the loop.
Where TensorFlow is installed, its loop and its ``vectorized_map`` are timed too. Each figure is the best of
``--repeats`` runs, in milliseconds per batch.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

IN, HIDDEN, OUT = 64, 128, 10


def _best(fn, repeats):
    fn()  # warm up (traces, caches)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _data(batch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, IN)).astype(np.float32)
    y = rng.integers(0, OUT, batch).astype(np.int32)
    w1 = (rng.standard_normal((IN, HIDDEN)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, OUT)) * 0.1).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    return x, y, w1, b1, w2


def _framework(tf, x, y, w1, b1, w2, repeats):
    """(loop ms, vectorized_map ms, the vectorized gradients) for one framework."""
    v1, c1, v2 = tf.Variable(w1), tf.Variable(b1), tf.Variable(w2)
    xs, ys = tf.constant(x), tf.constant(y)

    def one(example):
        xi, yi = example
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xi[None], v1) + c1)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(yi[None], tf.matmul(h, v2))
        return tape.gradient(loss, [v1, c1, v2])

    def loop():
        return [one((xs[i], ys[i])) for i in range(x.shape[0])]

    def vectorized():
        return tf.vectorized_map(one, (xs, ys))

    return _best(loop, repeats), _best(vectorized, repeats), [g.numpy() for g in vectorized()]


def _numpy(x, y, w1, b1, w2):
    """The per-example gradients by hand: forward, softmax minus one-hot, outer products per example."""
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    logits = h @ w2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    d_logits = e / e.sum(axis=1, keepdims=True)
    d_logits[np.arange(len(y)), y] -= 1
    g_w2 = h[:, :, None] * d_logits[:, None, :]
    d_pre = (d_logits @ w2.T) * (pre > 0)
    g_w1 = x[:, :, None] * d_pre[:, None, :]
    return [g_w1, d_pre, g_w2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    data = _data(args.batch)
    numpy_ms = _best(lambda: _numpy(*data), args.repeats)
    import tapeflow  # noqa: PLC0415

    loop_ms, vec_ms, grads = _framework(tapeflow, *data, args.repeats)
    for got, want in zip(grads, _numpy(*data)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    print(f"per-example gradients of a {IN}-{HIDDEN}-{OUT} MLP, batch {args.batch} "
          f"(OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}), best of {args.repeats}:")
    print(f"  hand-written NumPy            {numpy_ms:8.2f} ms")
    print(f"  tapeflow loop of gradients    {loop_ms:8.2f} ms  ({loop_ms / numpy_ms:6.1f}x NumPy)")
    print(f"  tapeflow vectorized_map       {vec_ms:8.2f} ms  ({vec_ms / numpy_ms:6.1f}x NumPy; "
          f"{loop_ms / vec_ms:.1f}x faster than the loop)")
    if importlib.util.find_spec("tensorflow") is not None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow  # noqa: PLC0415

        tensorflow.get_logger().setLevel("ERROR")
        tf_loop, tf_vec, _ = _framework(tensorflow, *data, args.repeats)
        print(f"  TensorFlow loop of gradients  {tf_loop:8.2f} ms  ({tf_loop / numpy_ms:6.1f}x NumPy)")
        print(f"  TensorFlow vectorized_map     {tf_vec:8.2f} ms  ({tf_vec / numpy_ms:6.1f}x NumPy)")


if __name__ == "__main__":
    main()

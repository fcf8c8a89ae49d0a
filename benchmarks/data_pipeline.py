"""tf.data pipelines: does ``prefetch`` overlap the pipeline with training, and how fast is a typical pipeline?

usage: OPENBLAS_NUM_THREADS=1 python benchmarks/data_pipeline.py [--steps N]
       PYTHONPATH=src OPENBLAS_NUM_THREADS=1 <tf venv>/bin/python benchmarks/data_pipeline.py   # also TF's tf.data

1. Overlap. A map function whose NumPy work costs about as much as a traced training step (an MLP on batches of
   256; the map's rounds of work are calibrated to it), run for ``--steps`` batches: the pipeline alone, the
   training steps alone (on one batch kept in memory), the two in turn (``prefetch(0)``), and with
   ``prefetch(AUTOTUNE)``. Issue 14's target: the prefetched epoch takes at most 1.15x the longer of the first
   two, not their sum.
2. Throughput of ``from_tensor_slices -> shuffle -> map -> batch`` over 20,000 examples of 64 floats (the map
   scales and clips each example), in examples per second: tapeflow, and TensorFlow's ``tf.data`` where TF is
   installed (its map function traced once, as TF does).

Each figure is the best of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import tapeflow as tf  # noqa: E402

BATCH, FEATURES, HIDDEN = 256, 256, 512


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


_RAW = {}


def _pipeline(steps, buffer, rounds=1):
    """The dataset (built outside the timed runs: each timed run iterates it, which runs the pipeline again)."""
    if steps not in _RAW:
        rng = np.random.default_rng(0)
        _RAW[steps] = (rng.standard_normal((steps, BATCH, FEATURES)).astype(np.float32),
                       tf.constant(rng.standard_normal((FEATURES, FEATURES)).astype(np.float32) / 16))
    raw, mix = _RAW[steps]

    def preprocess(x):  # NumPy-heavy: ``rounds`` products of the batch with a mixing matrix, and a normalisation
        h = x
        for _ in range(rounds):
            h = tf.tanh(tf.matmul(h, mix)) + x
        return h / (tf.norm(h, axis=1, keepdims=True) + 1.0)

    ds = tf.data.Dataset.from_tensor_slices(raw).map(preprocess)
    return ds.prefetch(buffer) if buffer is not None else ds


def _drain(ds, repeats):
    return _best(lambda: [None for _ in ds], repeats)


def _trainer():
    rng = np.random.default_rng(1)
    w1 = tf.Variable(rng.standard_normal((FEATURES, HIDDEN)).astype(np.float32) / 16)
    w2 = tf.Variable(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32) / 16)
    w3 = tf.Variable(rng.standard_normal((HIDDEN, 1)).astype(np.float32) / 16)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(tf.nn.relu(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)), w3) ** 2)
        for v, g in zip([w1, w2, w3], tape.gradient(loss, [w1, w2, w3])):
            v.assign_sub(0.01 * g)

    return step


def overlap(steps, repeats):
    step = _trainer()
    one = next(iter(_pipeline(1, None)))
    step(one)
    # As many rounds of preprocessing as make the pipeline cost about what the training does.
    train = _best(lambda: [step(one) for _ in range(steps)], repeats)
    rounds = 1
    while rounds < 32 and _drain(_pipeline(steps, None, rounds), 2) < 0.95 * train:
        rounds += 1
    plain, unbuffered, prefetched = (_pipeline(steps, b, rounds) for b in (None, 0, tf.data.AUTOTUNE))
    alone = _best(lambda: [None for _ in plain], repeats)
    train = _best(lambda: [step(one) for _ in range(steps)], repeats)
    in_turn = _best(lambda: [step(x) for x in unbuffered], repeats)
    ahead = _best(lambda: [step(x) for x in prefetched], repeats)
    longer = max(alone, train)
    print(f"pipeline alone {alone * 1e3:8.1f} ms   training alone {train * 1e3:8.1f} ms   ({steps} batches)")
    print(f"in turn        {in_turn * 1e3:8.1f} ms   {in_turn / longer:.2f}x the longer")
    print(f"prefetched     {ahead * 1e3:8.1f} ms   {ahead / longer:.2f}x the longer (target 1.15x), "
          f"{ahead / (alone + train):.2f}x the sum")


def throughput(module, repeats, n=20000):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((n, 64)).astype(np.float32)
    y = rng.integers(0, 10, n).astype(np.int64)

    def scale(a, b):
        return module.clip_by_value(a * 0.5 + 0.1, -2.0, 2.0), b

    ds = module.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=0).map(scale).batch(64)
    seconds = _best(lambda: [None for _ in ds], repeats)
    return n / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    overlap(args.steps, args.repeats)
    rows = [("tapeflow", throughput(tf, args.repeats))]
    if importlib.util.find_spec("tensorflow") is not None:
        import tensorflow

        rows.append(("TensorFlow tf.data", throughput(tensorflow, args.repeats)))
    for name, rate in rows:
        print(f"from_tensor_slices -> shuffle -> map -> batch, {name:20s} {rate:12,.0f} examples/s")


if __name__ == "__main__":
    main()

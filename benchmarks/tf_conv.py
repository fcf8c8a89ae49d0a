"""The ``conv`` workload of ``benchmarks/run.py`` on TensorFlow, for the ratio tapeflow / TF.

Run it with TensorFlow's interpreter (never a tapeflow dependency), BLAS and TF's pools held to one thread::

    OPENBLAS_NUM_THREADS=1 /path/to/tfvenv/bin/python benchmarks/tf_conv.py [--tapeflow]

It times the same layer step as ``run.py`` (batch 32, 28x28x8 input, 3x3x8x16 kernel, SAME, + bias, relu,
reduce_sum loss, gradients for input, kernel and bias) in eager mode, the minimum over repeats of the mean time per
step. ``--tapeflow`` also times tapeflow in the same process (interleaved) and prints the ratio.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

SHAPES = {"x": (32, 28, 28, 8), "w": (3, 3, 8, 16)}


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPES["x"]).astype(np.float32)
    w = (rng.standard_normal(SHAPES["w"]) * 0.1).astype(np.float32)
    return x, w, np.zeros(SHAPES["w"][-1], np.float32)


def make_step(tf):
    xv, wv, bv = data()
    x, w, b = tf.constant(xv), tf.Variable(wv), tf.Variable(bv)

    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + b))
        grads = tape.gradient(loss, [x, w, b])
        return [g.numpy() for g in grads]  # the values exist (TF's eager ops are asynchronous on some devices)

    return step


def time_step(step, steps):
    step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t0) / steps * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tapeflow", action="store_true", help="also time tapeflow (from ../src) and print the ratio")
    args = parser.parse_args()
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    steps = {"tensorflow": make_step(tf)}
    if args.tapeflow:
        sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
        import tapeflow

        steps["tapeflow"] = make_step(tapeflow)
    best = {k: float("inf") for k in steps}
    for _ in range(args.repeats):
        for k, step in steps.items():
            best[k] = min(best[k], time_step(step, args.steps))
    print(f"TensorFlow {tf.__version__}, oneDNN {os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default')}")
    for k, ms in best.items():
        print(f"conv (conv2d+bias+relu, fwd+bwd)  {k:10s} {ms:8.2f} ms/step")
    if args.tapeflow:
        print(f"ratio tapeflow / tensorflow: {best['tapeflow'] / best['tensorflow']:.2f}x")


if __name__ == "__main__":
    main()

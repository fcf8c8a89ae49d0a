"""Peak memory and time of one forward + gradient pass through a deep MLP, with and without ``tf.recompute_grad``.

usage: python benchmarks/recompute.py [--layers 32] [--width 512] [--batch 256] [--block 4] [--repeats 3]

The MLP is ``layers`` dense layers (``relu(h @ W + b)``, float32, fixed random weights held in variables) and a
``reduce_sum(h * h)`` loss; the gradient is taken with respect to every variable. Peak memory is measured with
``tracemalloc``, which counts NumPy's array allocations: it is the peak of everything allocated during the pass
above what was allocated before it (the weights, the input), and that peak less the gradients' own size (equal to
the weights', needed by every configuration). Three configurations:

* ``plain``: the tape keeps every layer's intermediate values (matmul output, bias sum, relu output) until the
  backward pass reaches them;
* ``recompute, blocks of k``: each block of ``k`` layers is wrapped in ``tf.recompute_grad``: the tape keeps
  only the block inputs, and the backward pass re-runs one block at a time under a tape of its own;
* ``recompute, every layer``: blocks of one layer.

Times are the minimum over ``repeats`` runs without tracemalloc (which slows allocation down). Hold BLAS to one
thread (``OPENBLAS_NUM_THREADS=1``) for stable times.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
import tapeflow as tf  # noqa: E402


def make_model(layers, width, batch, seed=0):
    rng = np.random.default_rng(seed)
    scale = np.sqrt(2.0 / width)
    weights = [tf.Variable((rng.standard_normal((width, width)) * scale).astype(np.float32), name=f"w{i}")
               for i in range(layers)]
    biases = [tf.Variable(np.full(width, 0.01, np.float32), name=f"b{i}") for i in range(layers)]
    x = tf.constant(rng.standard_normal((batch, width)).astype(np.float32))
    return weights, biases, x


def make_forward(weights, biases, block):
    """The MLP's forward function; with ``block`` > 0, each run of ``block`` layers is one recompute_grad call."""

    def layer_range(lo, hi):
        def run(h):
            for i in range(lo, hi):
                h = tf.nn.relu(tf.matmul(h, weights[i]) + biases[i])
            return h

        return run

    n = len(weights)
    if block <= 0:
        stages = [layer_range(0, n)]
    else:
        stages = [tf.recompute_grad(layer_range(lo, min(lo + block, n))) for lo in range(0, n, block)]

    def forward(x):
        h = x
        for stage in stages:
            h = stage(h)
        return tf.reduce_sum(h * h)

    return forward


def step(forward, x, variables):
    with tf.GradientTape() as tape:
        loss = forward(x)
    grads = tape.gradient(loss, variables)
    return loss, grads


def peak_bytes(forward, x, variables):
    """Peak bytes allocated during one step above those allocated before it (tracemalloc)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        loss, grads = step(forward, x, variables)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base, loss, grads


def best_time(forward, x, variables, repeats):
    step(forward, x, variables)  # warm up
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        step(forward, x, variables)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--block", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    weights, biases, x = make_model(args.layers, args.width, args.batch)
    variables = weights + biases
    activation_mb = args.batch * args.width * 4 / 2**20
    print(f"MLP: {args.layers} layers of width {args.width}, batch {args.batch}, float32 "
          f"(one activation = {activation_mb:.2f} MiB, weights = "
          f"{sum(v.numpy().nbytes for v in variables) / 2**20:.1f} MiB)")

    configs = [("plain", 0), (f"recompute, blocks of {args.block}", args.block), ("recompute, every layer", 1)]
    reference = None
    rows = []
    for label, block in configs:
        forward = make_forward(weights, biases, block)
        peak, loss, grads = peak_bytes(forward, x, variables)
        if reference is None:
            reference = (loss, grads)
        else:  # the same values and gradients, up to float32 summation order
            np.testing.assert_allclose(loss.numpy(), reference[0].numpy(), rtol=1e-5)
            for g, r in zip(grads, reference[1]):
                np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-4, atol=1e-6)
        seconds = best_time(forward, x, variables, args.repeats)
        rows.append((label, peak, seconds))

    # The gradients themselves (as large as the weights) are part of every peak; what recomputation saves is the
    # rest, mostly the activations the tape keeps.
    grad_bytes = sum(v.numpy().nbytes for v in variables)
    plain_peak, plain_time = rows[0][1], rows[0][2]
    print(f"{'configuration':<28}{'peak MiB':>10}{'vs plain':>10}{'beyond grads':>14}{'vs plain':>10}"
          f"{'time s':>9}{'vs plain':>10}")
    for label, peak, seconds in rows:
        extra = peak - grad_bytes
        print(f"{label:<28}{peak / 2**20:>10.1f}{peak / plain_peak:>9.2f}x{extra / 2**20:>14.1f}"
              f"{extra / (plain_peak - grad_bytes):>9.2f}x{seconds:>9.3f}{seconds / plain_time:>9.2f}x")


if __name__ == "__main__":
    main()

"""Jacobian of a 256-to-256 function: tapeflow's one-pass ``tape.jacobian`` against a loop of 256 ``gradient`` calls.

The function is ``tanh(W2 @ tanh(W1 @ x + b1) + b2)`` with ``x`` of shape ``[256]`` (``tf.linalg.matvec``), float32.
Run with BLAS on one thread::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/jacobian.py
    OPENBLAS_NUM_THREADS=1 /path/to/tfvenv/bin/python benchmarks/jacobian.py --tensorflow

The first times, in one process and interleaved, tapeflow's ``jacobian`` (vectorised) and the loop of ``gradient``
calls on a persistent tape (one per output element, each a full backward pass seeded with a one-hot output
gradient), and prints the ratio. The second,
run with TensorFlow's interpreter (TF is never a tapeflow dependency), times TF's eager ``tape.jacobian`` (its
default ``pfor`` path, which builds a ``tf.function`` on each call) on the same function and data and, with
tapeflow imported from ``../src`` in the same process, the ratio. Each figure is the minimum over repeats of the mean
time per call.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

N = 256


def data():
    rng = np.random.default_rng(0)
    scale = np.float32(1 / np.sqrt(N))
    w1 = rng.standard_normal((N, N)).astype(np.float32) * scale
    w2 = rng.standard_normal((N, N)).astype(np.float32) * scale
    b1 = rng.standard_normal(N).astype(np.float32) * np.float32(0.1)
    b2 = rng.standard_normal(N).astype(np.float32) * np.float32(0.1)
    x = rng.standard_normal(N).astype(np.float32)
    return x, w1, b1, w2, b2


def make_calls(tf):
    """``{name: call}`` for ``tf`` (tapeflow or TensorFlow): each call returns the [256, 256] jacobian as NumPy."""
    xv, *params = data()
    x = tf.constant(xv)
    w1, b1, w2, b2 = (tf.constant(p) for p in params)

    def f(x):
        h = tf.tanh(tf.linalg.matvec(w1, x) + b1)
        return tf.tanh(tf.linalg.matvec(w2, h) + b2)

    def vectorised():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.jacobian(y, x).numpy()

    seeds = [tf.constant(row) for row in np.eye(N, dtype=np.float32)]

    def loop():
        # The cheapest loop: one backward pass per output element, seeded with a one-hot output gradient.
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = f(x)
        return np.stack([tape.gradient(y, x, output_gradients=s).numpy() for s in seeds])

    return {"jacobian": vectorised, "gradient loop": loop}


def time_call(call, calls):
    call()
    t0 = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - t0) / calls * 1e3


def measure(named_calls, calls, repeats):
    best = {k: float("inf") for k in named_calls}
    for _ in range(repeats):
        for k, (call, n) in named_calls.items():
            best[k] = min(best[k], time_call(call, max(1, calls // n)))
    return best


def check_same(results):
    ref = None
    for name, value in results.items():
        if ref is None:
            ref = value
        elif not np.allclose(value, ref, rtol=1e-4, atol=1e-6):
            raise SystemExit(f"{name}: jacobian differs from the first one by {np.abs(value - ref).max()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tensorflow", action="store_true",
                        help="time TensorFlow's tape.jacobian (run with TF's interpreter) against tapeflow's")
    args = parser.parse_args()
    sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
    import logging

    import tapeflow

    # Both libraries warn that a vectorised jacobian "retraces" on its 5th and 6th call (TF's tf.function detector).
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    tf_calls = make_calls(tapeflow)
    if args.tensorflow:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.get_logger().setLevel("ERROR")  # pfor retraces on every eager call and says so
        named = {"tapeflow jacobian": (tf_calls["jacobian"], 1),
                 "tensorflow jacobian": (make_calls(tf)["jacobian"], 1)}
        check_same({k: c() for k, (c, _) in named.items()})
        best = measure(named, args.calls, args.repeats)
        print(f"TensorFlow {tf.__version__}, oneDNN {os.environ.get('TF_ENABLE_ONEDNN_OPTS', 'default')}")
        for k, ms in best.items():
            print(f"256x256 jacobian  {k:22s} {ms:8.2f} ms")
        print(f"ratio tensorflow / tapeflow: {best['tensorflow jacobian'] / best['tapeflow jacobian']:.1f}x "
              "(above 1: tapeflow is faster)")
        return
    named = {"jacobian": (tf_calls["jacobian"], 1), "gradient loop": (tf_calls["gradient loop"], 10)}
    check_same({k: c() for k, (c, _) in named.items()})
    best = measure(named, args.calls, args.repeats)
    for k, ms in best.items():
        print(f"256x256 jacobian  {k:16s} {ms:8.2f} ms")
    print(f"ratio loop / jacobian: {best['gradient loop'] / best['jacobian']:.1f}x")


if __name__ == "__main__":
    main()

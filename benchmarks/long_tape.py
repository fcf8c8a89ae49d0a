"""Recording cost per op as a tape grows: a chain of small elementwise ops recorded on one tape.

usage: python benchmarks/long_tape.py [--lengths 1000,10000,100000,300000] [--repeats 3] [--attrs]

Each run records ``y = y * c`` ``n`` times on a 2x2 float32 tensor under one ``GradientTape`` (with ``--attrs``,
``y = tf.reduce_sum(y * c, axis=0, keepdims=True)``, an op with attributes, two ops per step) and reports the time
per recorded op, with Python's cyclic garbage collector on (as programs run) and off. A growing figure with the
collector on and a flat one with it off means the collector is scanning the tape's live objects: every recorded op
keeps its tensors and its record alive until ``gradient()``, and each full collection visits all of them. Times are
the minimum over ``repeats`` runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
import tapeflow as tf  # noqa: E402


def record(n, attrs=False):
    """Seconds to record ``n`` ops on one tape (the tape and its records are freed afterwards)."""
    x = tf.constant(np.ones((2, 2), np.float32))
    c = tf.constant(np.float32(1.0001))
    t0 = time.perf_counter()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x
        if attrs:
            for _ in range(n // 2):
                y = tf.reduce_sum(y * c, axis=0, keepdims=True)
        else:
            for _ in range(n):
                y = y * c
    elapsed = time.perf_counter() - t0
    del tape, y
    gc.collect()
    return elapsed


def per_op(n, repeats, collector, attrs=False):
    """Minimum microseconds per recorded op over ``repeats`` runs, with the collector on or off."""
    best = float("inf")
    for _ in range(repeats):
        if collector:
            gc.enable()
        else:
            gc.disable()
        try:
            best = min(best, record(n, attrs))
        finally:
            gc.enable()
    return best / n * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1000,10000,100000,300000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--attrs", action="store_true", help="record a reduction with attributes and a multiply")
    args = parser.parse_args()
    record(1000, args.attrs)  # warm up
    print(f"{'ops recorded':>14}  {'gc on (us/op)':>14}  {'gc off (us/op)':>15}")
    for n in (int(v) for v in args.lengths.split(",")):
        on = per_op(n, args.repeats, True, args.attrs)
        off = per_op(n, args.repeats, False, args.attrs)
        print(f"{n:>14,}  {on:>14.2f}  {off:>15.2f}")


if __name__ == "__main__":
    main()

"""Python bytecodes executed per training step, by phase and by function: a deterministic measure of overhead.

usage: python benchmarks/bytecodes.py [mlp|seed] [--top N]

Wall-clock ratios on this 2-core virtual machine drift by 20-60% between runs, so optimisations are chosen on
deterministic counts. Bytecodes are the count that tracks time here: tapeflow's extra time over hand-written NumPy
comes from the interpreter's dispatch (cachegrind's simulated branch mispredictions per step grow with the
bytecodes run, while instruction counts hardly move; see ``docs/benchmarks.md``). The step is the one of
``benchmarks/run.py``: forward under a tape, ``tape.gradient``, then ``v.assign_sub(lr * g)`` per variable.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

tf = run.tf


def _mlp_step():
    x, labels, params = run._mlp_data()
    x, labels = tf.constant(x), tf.constant(labels.astype(np.int32))
    variables = [tf.Variable(p) for p in params]
    lr = np.float32(0.01)

    def step(phase):
        phase[0] = "forward"
        with tf.GradientTape() as tape:
            loss = run._mlp_loss(x, labels, variables)
        phase[0] = "gradient"
        grads = tape.gradient(loss, variables)
        phase[0] = "update"
        for v, g in zip(variables, grads):
            v.assign_sub(lr * g)

    return step


def _seed_step():
    w, b = tf.Variable(0.0), tf.Variable(0.0)
    xs, ys = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([3.0, 5.0, 7.0, 9.0])

    def step(phase):
        phase[0] = "forward"
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((w * xs + b - ys) ** 2)
        phase[0] = "gradient"
        dw, db = tape.gradient(loss, [w, b])
        phase[0] = "update"
        w.assign_sub(0.01 * dw)
        b.assign_sub(0.01 * db)

    return step


def count(step, steps=10):
    """``(per phase, per (phase, function))`` bytecode counts per step, after three warm-up steps."""
    phase = [None]
    by_phase, by_function = collections.Counter(), collections.Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode" and phase[0] is not None:
            by_phase[phase[0]] += 1
            by_function[phase[0], frame.f_code.co_qualname] += 1
        return trace

    for _ in range(3):
        step(phase)
    sys.settrace(trace)
    try:
        for _ in range(steps):
            step(phase)
    finally:
        sys.settrace(None)
    return ({k: v / steps for k, v in by_phase.items()},
            {k: v / steps for k, v in by_function.items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", nargs="?", default="mlp", choices=("mlp", "seed"))
    parser.add_argument("--top", type=int, default=8, help="functions listed per phase")
    args = parser.parse_args()
    by_phase, by_function = count(_mlp_step() if args.workload == "mlp" else _seed_step())
    print(f"{args.workload} step: {sum(by_phase.values()):.0f} bytecodes")
    for phase, n in by_phase.items():
        print(f"  {phase:9s} {n:6.0f}")
        top = sorted(((v, k[1]) for k, v in by_function.items() if k[0] == phase), reverse=True)[:args.top]
        for v, name in top:
            print(f"      {v:6.0f}  {name}")


if __name__ == "__main__":
    main()

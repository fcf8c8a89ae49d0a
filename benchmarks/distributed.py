"""Data-parallel training on MPI: throughput against process count, and the cost of tapeflow's fused allreduce.

Run (with the ``mpi`` extra installed; each measurement is an ``mpiexec`` job this script starts)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/distributed.py            # all, 1/2/4 processes
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/distributed.py --quick    # fewer repeats

Three measurements, printed as Markdown tables (``docs/benchmarks.md`` and ``docs/distributed.md`` quote them):

1. **Throughput**: a compute-bound MLP step (784-1024-1024-10, global batch 1024, ``tapeflow.horovod``
   ``DistributedGradientTape``) on the same global batches with 1, 2 and 4 processes (4 oversubscribes two
   cores). Each process computes ``1024 / N`` rows, then the gradients (1.86 M floats, 7.4 MB) are averaged.
2. **Allreduce overhead**: per step, tapeflow's fused allreduce of the model's six gradient arrays
   (``_collective.allreduce_arrays``: agreement probe, the two large arrays reduced where they lie, the four small
   ones packed into one buffer) against one raw mpi4py ``Allreduce`` of a preallocated buffer of the same bytes;
   summed (what tf.distribute's optimizers ask for: the gradients are the caller's, so copied), averaged
   (``hvd.allreduce``'s default: one more pass, the division), and summed in place (``DistributedGradientTape``:
   fresh gradients of ``loss / n`` that nothing else holds, the large ones reduced where they lie).
3. **Ring-allreduce model**: raw ``Allreduce`` times for 8 KB to 32 MB at 2 and 4 processes, fitted to
   ``t(S) = a + S / B`` per process count; ``docs/distributed.md`` uses the fit to predict step times.

Every time is the best over repeats of the slowest rank's time (a step ends when its last rank ends): the
minimum, because this 2-core machine is shared and load only ever adds time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LAYERS = (784, 1024, 1024, 10)
GLOBAL_BATCH = 1024
SIZES = [2 ** k for k in range(13, 26, 2)]  # bytes: 8 KB ... 32 MB


# ------------------------------------------------------------------------------------------ the workers


def _params(rng):
    out = []
    for fan_in, fan_out in zip(LAYERS[:-1], LAYERS[1:]):
        out += [(rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32),
                np.zeros(fan_out, np.float32)]
    return out


def _loss(tf, x, labels, variables):
    h = x
    for i in range(0, len(variables) - 2, 2):
        h = tf.nn.relu(tf.matmul(h, variables[i]) + variables[i + 1])
    logits = tf.matmul(h, variables[-2]) + variables[-1]
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


def _slowest(comm, seconds):
    return max(comm.allgather_object(seconds))


def worker_step(repeats):
    """Time the training step: total, and its allreduce part (slowest rank, median over ``repeats``)."""
    import tapeflow as tf
    import tapeflow.horovod as hvd
    from tapeflow.distribute._comm import world

    hvd.init()
    comm, rank, n = world(), hvd.rank(), hvd.size()
    rng = np.random.default_rng(0)
    variables = [tf.Variable(p) for p in _params(rng)]
    x = rng.standard_normal((GLOBAL_BATCH, LAYERS[0])).astype(np.float32)
    labels = rng.integers(0, LAYERS[-1], GLOBAL_BATCH).astype(np.int32)
    per = GLOBAL_BATCH // n
    bx, by = tf.constant(x[rank * per:(rank + 1) * per]), tf.constant(labels[rank * per:(rank + 1) * per])
    lr = np.float32(0.01)
    steps, computes, reduces, updates = [], [], [], []
    for i in range(repeats + 2):
        comm.barrier()
        t0 = time.perf_counter()
        with tf.GradientTape() as tape:
            loss = _loss(tf, bx, by, variables)
        tape = hvd.DistributedGradientTape(tape)
        # tape.gradient(loss, variables) in its two halves, timed apart: the local gradients, their exchange
        grads, op = tape._local_gradients(loss, variables)
        t1 = time.perf_counter()
        grads = tape._reduce(grads, variables, op)
        t2 = time.perf_counter()
        for v, g in zip(variables, grads):
            v.assign_sub(lr * g)
        t3 = time.perf_counter()
        if i >= 2:  # warm-up: first allocations, first messages
            steps.append(_slowest(comm, t3 - t0))
            computes.append(_slowest(comm, t1 - t0))
            reduces.append(_slowest(comm, t2 - t1))
            updates.append(_slowest(comm, t3 - t2))
    if rank == 0:
        print(json.dumps({"processes": n, "step": min(steps), "compute": min(computes), "allreduce": min(reduces),
                          "update": min(updates), "rows_per_process": per}))


def worker_overhead(repeats):
    """Fused allreduce of the model's gradients, summed (tf.distribute's optimizers) and averaged (Horovod's
    default), against one raw Allreduce of the same bytes, interleaved."""
    from tapeflow.distribute import _collective
    from tapeflow.distribute._comm import world

    comm = world()
    grads = _params(np.random.default_rng(comm.rank))
    names = [f"g{i}" for i in range(len(grads))]
    raw = np.empty(sum(g.size for g in grads), np.float32)
    times = {"sum": [], "average": [], "donated": [], "raw": []}  # donated: summed in place
    donated = [True] * len(grads)
    for i in range(repeats + 3):
        for kind in times:
            comm.barrier()
            t0 = time.perf_counter()
            if kind == "raw":
                comm.allreduce_inplace(raw)
            elif kind == "donated":  # DistributedGradientTape's case: fresh gradients (of loss / n) summed, the
                _collective.allreduce_arrays(grads, names, comm=comm, donated=donated)  # large ones in place
            else:
                _collective.allreduce_arrays(grads, names, average=kind == "average", comm=comm)
            if i >= 3:
                times[kind].append(_slowest(comm, time.perf_counter() - t0))
    if comm.rank == 0:
        print(json.dumps({"processes": comm.size, "bytes": int(raw.nbytes),
                          **{k: min(v) for k, v in times.items()},
                          **{f"{k}_median": float(np.median(v)) for k, v in times.items()}}))


def worker_sizes(repeats):
    """Raw Allreduce time against message size."""
    from tapeflow.distribute._comm import world

    comm = world()
    out = {}
    for size in SIZES:
        buffer = np.ones(size // 4, np.float32)
        times = []
        for i in range(repeats + 2):
            comm.barrier()
            t0 = time.perf_counter()
            comm.allreduce_inplace(buffer)
            if i >= 2:
                times.append(_slowest(comm, time.perf_counter() - t0))
        out[size] = min(times)
    if comm.rank == 0:
        print(json.dumps({"processes": comm.size, "times": out}))


# ------------------------------------------------------------------------------------------ the driver


def _mpiexec():
    local = Path(sys.executable).parent / "mpiexec"
    return str(local) if local.exists() else shutil.which("mpiexec")


def launch(kind, processes, repeats):
    """Run one worker job; its rank 0's JSON line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1"}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--repeats", str(repeats)]
    if processes > 1:
        command = [_mpiexec(), "-n", str(processes)] + command
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"{kind} on {processes} processes failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fit(times):
    """``t(S) = a + S / B`` over ``{bytes: seconds}`` by least squares of the *relative* errors (each size counts
    alike, not the largest alone): ``(a seconds, B bytes/second)``."""
    sizes = np.array(sorted(times), dtype=np.float64)
    seconds = np.array([times[s] for s in sorted(times)])
    slope, intercept = np.polyfit(sizes, seconds, 1, w=1.0 / seconds)
    return max(intercept, 0.0), 1.0 / slope


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=("step", "overhead", "sizes"))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.worker:
        {"step": worker_step, "overhead": worker_overhead, "sizes": worker_sizes}[args.worker](args.repeats)
        return
    repeats = 5 if args.quick else args.repeats
    cores = os.cpu_count() or 1
    steps = {n: launch("step", n, repeats) for n in (1, 2, 4)}
    print("| processes | step (ms) | compute (ms) | allreduce (ms) | update (ms) | samples/s | vs 1 process |")
    print("|---|---|---|---|---|---|---|")
    base = GLOBAL_BATCH / steps[1]["step"]
    for n, r in steps.items():
        rate = GLOBAL_BATCH / r["step"]
        print(f"| {n} | {r['step'] * 1e3:.1f} | {r['compute'] * 1e3:.1f} | {r['allreduce'] * 1e3:.2f} | "
              f"{r['update'] * 1e3:.2f} | {rate:.0f} | {rate / base:.2f}x |")
    print()
    print("| processes | gradient bytes | raw mpi4py Allreduce (ms) | sum, copied (ms) | average, copied (ms) | "
          "sum, in place (ms) | ratios to raw: best | ratios to raw: median |")
    print("|---|---|---|---|---|---|---|---|")
    for n in (2, 4):
        r = launch("overhead", n, repeats * 2)
        kinds = ("sum", "average", "donated")
        best = " / ".join(f"{r[k] / r['raw']:.2f}x" for k in kinds)
        median = " / ".join(f"{r[k + '_median'] / r['raw_median']:.2f}x" for k in kinds)
        print(f"| {n} | {r['bytes']} | {r['raw'] * 1e3:.2f} | {r['sum'] * 1e3:.2f} | {r['average'] * 1e3:.2f} | "
              f"{r['donated'] * 1e3:.2f} | {best} | {median} |")
    print()
    print("| processes | fit: a (µs) | fit: S/B, B (GB/s) | " + " | ".join(f"{s // 1024} KB" for s in SIZES) + " |")
    print("|---" * (3 + len(SIZES)) + "|")
    fits = {}
    for n in (2, 4):
        r = launch("sizes", n, repeats * 2)
        times = {int(k): v for k, v in r["times"].items()}
        fits[n] = fit(times)
        cells = " | ".join(f"{times[s] * 1e3:.3f}" for s in SIZES)
        print(f"| {n} | {fits[n][0] * 1e6:.0f} | {fits[n][1] / 1e9:.2f} | {cells} |")
    # The model of docs/distributed.md: per-message latency alpha and link bandwidth B from the 2-process fit
    # (t = 2 alpha + S / B there), step(p) = compute(1) / min(p, cores) + update + 2 (p-1) alpha + 2 (p-1)/p S / B.
    a2, bandwidth = fits[2]
    alpha = a2 / 2
    size = 4 * sum(i * o + o for i, o in zip(LAYERS[:-1], LAYERS[1:]))
    print()
    print(f"model: alpha = {alpha * 1e6:.0f} µs, B = {bandwidth / 1e9:.2f} GB/s, S = {size} bytes, {cores} cores")
    print("| processes | measured step (ms) | model step (ms) | measured allreduce (ms) | model allreduce (ms) |")
    print("|---|---|---|---|---|")
    for n, r in steps.items():
        ring = 0.0 if n == 1 else 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / bandwidth
        model = steps[1]["compute"] / min(n, cores) + steps[1]["update"] + ring
        print(f"| {n} | {r['step'] * 1e3:.1f} | {model * 1e3:.1f} | {r['allreduce'] * 1e3:.2f} | {ring * 1e3:.2f} |")


if __name__ == "__main__":
    main()

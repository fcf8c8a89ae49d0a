"""tapeflow against its peers on the same steps, alternated in one run, as ratios to hand-written NumPy.

usage: OPENBLAS_NUM_THREADS=1 python benchmarks/peers.py [--steps-scale X] [--markdown] [--plot FILE.svg]

Workloads: the seed loop, the MLP step (64-128-128-10, batch 64) and a wide one (512-512-512-10, batch 512), the
tanh RNN unrolled over 20 steps, a small CNN on 8x8 images (``peer_steps.py``) and the jacobian of a 256-to-256
function; then the cost of ``import`` and the peak memory of a process running 50 wide MLP steps.

Runs every framework importable by this interpreter: tapeflow (eager and ``tf.function``) and hand-written NumPy
always; TensorFlow (eager and ``tf.function``), PyTorch (eager and ``torch.compile``, held to one thread) and JAX
(``jit``) where they are installed (never as tapeflow's dependencies). To put them side by side, run it with the scratch
environment they live in and tapeflow's sources on the path::

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 /tmp/tfvenv/bin/python benchmarks/peers.py --markdown --plot p.svg

Each cell is the minimum over the repeats of the mean time per step (µs) and its ratio to NumPy's in the same run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_steps  # noqa: E402
import run  # noqa: E402  (the workloads' data and the NumPy steps)

WORKLOADS = [  # (key, title, NumPy step, steps per timing)
    ("seed", "seed loop", run.seed_numpy, 2000),
    ("mlp", "MLP 64-128-128-10, batch 64", run.mlp_numpy, 200),
    ("mlp512", "MLP 512-512-512-10, batch 512", run.mlp_big_numpy, 30),
    ("rnn", "RNN, 20 steps unrolled", run.rnn_numpy, 100),
    ("cnn", "CNN on 8x8 images", peer_steps.cnn_numpy, 100),
    ("jacobian", "jacobian 256 -> 256", peer_steps.jacobian_numpy, 50),
]


def _module_steps(module, traced):
    return {"seed": run.seed_step(module, traced), "mlp": run.mlp_step(module, traced),
            "mlp512": run.mlp_step(module, traced, run.BIG_BATCH, run.BIG_WIDTHS),
            "rnn": run.rnn_step(module, traced), "cnn": peer_steps.cnn_step(module, traced),
            "jacobian": peer_steps.jacobian_step(module, traced)}


def contenders():
    import tapeflow

    out = {"tapeflow eager": _module_steps(tapeflow, False), "tapeflow tf.function": _module_steps(tapeflow, True)}
    if importlib.util.find_spec("tensorflow") is not None:
        import tensorflow

        out["TensorFlow eager"] = _module_steps(tensorflow, False)
        out["TensorFlow tf.function"] = _module_steps(tensorflow, True)
    if importlib.util.find_spec("torch") is not None:
        out["PyTorch eager"] = peer_steps.torch_steps()
        out["PyTorch torch.compile"] = peer_steps.torch_steps(compiled=True)
    if importlib.util.find_spec("jax") is not None:
        out["JAX jit"] = peer_steps.jax_steps()
    return out


def _loop(step):
    def run_steps(n):
        for _ in range(n):
            step()

    return run_steps


# ------------------------------------------------------------------------------------------ import, memory

_IMPORTS = {"tapeflow": "import tapeflow", "NumPy": "import numpy", "TensorFlow": "import tensorflow",
            "PyTorch": "import torch", "JAX": "import jax, jax.numpy"}
_MODULES = {"tapeflow": "tapeflow", "NumPy": "numpy", "TensorFlow": "tensorflow", "PyTorch": "torch", "JAX": "jax"}

# The process's own high-water mark (``VmHWM``: ``ru_maxrss`` would count the parent's, inherited through fork).
_MEMORY = """
import sys
sys.path.insert(0, {bench!r})
import run
{setup}
for _ in range(50):
    step()
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) / 1024)
"""
_MEMORY_SETUP = {
    "tapeflow tf.function": "import tapeflow as m\nstep = run.mlp_step(m, True, run.BIG_BATCH, run.BIG_WIDTHS)",
    "tapeflow eager": "import tapeflow as m\nstep = run.mlp_step(m, False, run.BIG_BATCH, run.BIG_WIDTHS)",
    "NumPy": "step = lambda: run.mlp_big_numpy(1)",
    "TensorFlow tf.function": "import tensorflow as m\nstep = run.mlp_step(m, True, run.BIG_BATCH, run.BIG_WIDTHS)",
    "JAX jit": "import peer_steps\nstep = peer_steps.jax_steps()['mlp512']",
    "PyTorch torch.compile": "import peer_steps\nstep = peer_steps.torch_steps(compiled=True)['mlp512']",
}


def _env():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return env


def import_times(repeats=5):
    """Milliseconds to import each available framework in a fresh interpreter (best of ``repeats``)."""
    env, out = _env(), {}
    for name, statement in _IMPORTS.items():
        if importlib.util.find_spec(_MODULES[name]) is None:
            continue
        code = f"import time; t = time.perf_counter(); {statement}; print((time.perf_counter() - t) * 1000)"
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)  # (bytecode cached)
        best = min(float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                        check=True).stdout.split()[-1]) for _ in range(repeats))
        out[name] = best
    return out


def peak_memory():
    """Peak resident MB of a fresh process running 50 wide MLP steps, per contender available."""
    env, out = _env(), {}
    bench = os.path.dirname(os.path.abspath(__file__))
    needs = {"TensorFlow tf.function": "tensorflow", "JAX jit": "jax", "PyTorch torch.compile": "torch"}
    for name, setup in _MEMORY_SETUP.items():
        if name in needs and importlib.util.find_spec(needs[name]) is None:
            continue
        proc = subprocess.run([sys.executable, "-c", _MEMORY.format(bench=bench, setup=setup)], env=env,
                              capture_output=True, text=True, check=True)
        out[name] = float(proc.stdout.split()[-1])
    return out


# ------------------------------------------------------------------------------------------ reporting


def _plot(path, table):
    """A bar chart of the ratios to NumPy (log scale), one group per workload (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(table)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        xs, ys = [], []
        for j, (key, _title, _np, _steps) in enumerate(WORKLOADS):
            cell = table[name].get(key)
            if cell is not None:
                xs.append(j + k * width)
                ys.append(cell[1])
        ax.bar(xs, ys, width, label=name)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(WORKLOADS))],
                  [w[1].replace(", ", "\n") for w in WORKLOADS], fontsize=8)
    ax.set_ylabel("time / hand-written NumPy (log)")
    ax.set_title("One step, as a ratio to the same step written by hand in NumPy (lower is faster)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps-scale", type=float, default=1.0, help="scale the number of steps")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--plot", help="write a bar chart of the ratios to this file (needs matplotlib)")
    args = parser.parse_args()
    table = {}
    for name, steps in contenders().items():
        table[name] = {}
        for key, _title, numpy_step, n in WORKLOADS:
            step = steps.get(key)
            if step is None:
                continue
            step()  # (traced, compiled, warmed)
            n = max(1, int(n * args.steps_scale))
            ours, numpy_time = run.compare(_loop(step), numpy_step, n, 5)
            table[name][key] = (ours, ours / numpy_time)
    titles = [w[1] for w in WORKLOADS]
    if args.markdown:
        print("| contender | " + " | ".join(titles) + " |")
        print("|---|" + "---:|" * len(titles))
        for name, cells in table.items():
            row = [f"{cells[k][0]:.1f} µs ({cells[k][1]:.2f}x)" if k in cells else "-" for k, *_ in WORKLOADS]
            print(f"| {name} | " + " | ".join(row) + " |")
    else:
        for name, cells in table.items():
            print(name)
            for key, title, *_ in WORKLOADS:
                if key in cells:
                    print(f"    {title:32s} {cells[key][0]:12.1f} µs {cells[key][1]:8.2f}x")
    print()
    imports = import_times()
    memory = peak_memory()
    if args.markdown:
        print("| import | " + " | ".join(imports) + " |")
        print("|---|" + "---:|" * len(imports))
        print("| ms | " + " | ".join(f"{v:.0f}" for v in imports.values()) + " |")
        print()
        print("| peak memory, 50 wide MLP steps | " + " | ".join(memory) + " |")
        print("|---|" + "---:|" * len(memory))
        print("| MB | " + " | ".join(f"{v:.0f}" for v in memory.values()) + " |")
    else:
        print("import (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in imports.items()))
        print("peak memory (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in memory.items()))
    if args.plot:
        _plot(args.plot, table)


if __name__ == "__main__":
    import logging

    logging.getLogger("tensorflow").setLevel(logging.ERROR)  # (eager jacobians warn of retracing, in TF as here)
    main()

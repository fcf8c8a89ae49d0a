"""tapeflow against its peers on the same steps, alternated in one run: the seed loop and the MLP step.

usage: OPENBLAS_NUM_THREADS=1 python benchmarks/peers.py [--steps-scale X]

Runs every framework importable by this interpreter: tapeflow (eager and ``tf.function``) and hand-written NumPy
always; TensorFlow (eager and ``tf.function``), PyTorch (eager and ``torch.compile``) and JAX (``jit``) where they
are installed (never as tapeflow's dependencies). To put TensorFlow side by side, run it with the scratch
environment TensorFlow lives in and tapeflow's sources on the path::

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 /tmp/tfvenv/bin/python benchmarks/peers.py

Each cell is the minimum over the repeats of the mean time per step (µs); the ratio column divides by NumPy's.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the workloads' data and the NumPy steps)


def _torch_steps():
    import torch

    out = {}
    x, labels, params = run._mlp_data()
    xt, lt = torch.tensor(x), torch.tensor(labels)
    ps = [torch.tensor(p, requires_grad=True) for p in params]

    def mlp():
        h = xt
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i < len(ps) - 2:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, lt)
        grads = torch.autograd.grad(loss, ps)
        with torch.no_grad():
            for p, g in zip(ps, grads):
                p -= 0.01 * g

    out["PyTorch eager"] = {"mlp": mlp}
    return out


def _jax_steps():
    import jax
    import jax.numpy as jnp

    x, labels, params = run._mlp_data()
    xj, lj = jnp.asarray(x), jnp.asarray(labels)

    def loss_fn(ps):
        h = xj
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i < len(ps) - 2:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(logp[jnp.arange(len(lj)), lj])

    @jax.jit
    def update(ps):
        return [p - 0.01 * g for p, g in zip(ps, jax.grad(loss_fn)(ps))]

    state = {"ps": [jnp.asarray(p) for p in params]}

    def mlp():
        state["ps"] = update(state["ps"])
        state["ps"][0].block_until_ready()

    return {"JAX jit": {"mlp": mlp}}


def _loop(step):
    def run_steps(n):
        for _ in range(n):
            step()

    return run_steps


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps-scale", type=float, default=1.0, help="scale the number of steps")
    args = parser.parse_args()
    contenders = {
        "tapeflow eager": {"seed": run.seed_step(), "mlp": run.mlp_step()},
        "tapeflow tf.function": {"seed": run.seed_step(traced=True), "mlp": run.mlp_step(traced=True)},
    }
    if importlib.util.find_spec("tensorflow") is not None:
        import tensorflow as tensorflow

        contenders["TensorFlow eager"] = {"seed": run.seed_step(tensorflow), "mlp": run.mlp_step(tensorflow)}
        contenders["TensorFlow tf.function"] = {"seed": run.seed_step(tensorflow, traced=True),
                                             "mlp": run.mlp_step(tensorflow, traced=True)}
    if importlib.util.find_spec("torch") is not None:
        contenders.update(_torch_steps())
    if importlib.util.find_spec("jax") is not None:
        contenders.update(_jax_steps())
    steps = {"seed": int(2000 * args.steps_scale), "mlp": int(200 * args.steps_scale)}
    numpy_steps = {"seed": run.seed_numpy, "mlp": run.mlp_numpy}
    print(f"{'contender':28s} {'seed loop (µs)':>16s} {'ratio':>8s} {'MLP step (µs)':>16s} {'ratio':>8s}")
    for name, workloads in contenders.items():
        cells = []
        for key in ("seed", "mlp"):
            step = workloads.get(key)
            if step is None:
                cells.append("")
                continue
            ours, numpy_time = run.compare(_loop(step), numpy_steps[key], steps[key], 5)
            cells.append(f"{ours:16.1f} {ours / numpy_time:7.2f}x")
        print(f"{name:28s} " + " ".join(c if c else f"{'-':>16s} {'':>8s}" for c in cells))


if __name__ == "__main__":
    main()

"""tapeflow's benchmarks: each workload against the same computation hand-written in NumPy, in the same run.

usage: python benchmarks/run.py [--quick] [--markdown]

Every figure is the minimum over several interleaved repeats (tapeflow, NumPy, tapeflow, ...) of the mean time
per step, so that a burst of load on this 2-core machine does not favour either side. Hold BLAS to one thread
(``OPENBLAS_NUM_THREADS=1``, which ``make bench`` sets). Workloads:

* ``seed_loop``: the training step of ``examples/gradient_tape_walkthrough.py`` (4 points, y = 2x + 1, GradientTape +
  assign_sub).
* ``mlp_step``: one training step of a 64-128-128-10 MLP, batch 64, relu, sparse softmax cross-entropy, plain SGD
  by ``assign_sub``; also with ``tf.keras.optimizers.SGD``.
* ``rnn_step``: one training step of a tanh RNN unrolled over 20 steps (batch 16, 8 inputs, 32 hidden units),
  mean squared error of a linear read-out of the last state, ``assign_sub`` updates: many small recorded ops.
* ``op_no_tape`` / ``op_recorded``: one small elementwise multiply without and with a recording tape.
* ``chain_backward``: forward and backward through 200 elementwise ops on a 2x2 array.
* ``conv``: a conv2d layer's forward and backward (batch 32, 28x28x8 input, 3x3x8x16 kernel, SAME, + bias, relu,
  reduce_sum loss; gradients for input, kernel and bias). ``benchmarks/tf_conv.py`` times the same on TensorFlow.
* ``import``: ``import tapeflow`` minus ``import numpy`` in fresh interpreters.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")))
import tapeflow as tf  # noqa: E402


def _time(fn, steps):
    fn(max(steps // 20, 5))  # warm up
    t0 = time.perf_counter()
    fn(steps)
    return (time.perf_counter() - t0) / steps * 1e6


_STEPS = {}


def _built(key, make, *args):
    """The step ``make()`` builds, built (and traced, on its first call with ``args``) once per process: the timed
    runs measure steps, not building and tracing them."""
    step = _STEPS.get(key)
    if step is None:
        step = _STEPS[key] = make()
        step(*args)
    return step


def compare(tf_fn, np_fn, steps, repeats):
    """Minimum microseconds per step of each function over interleaved repeats."""
    a, b = [], []
    for _ in range(repeats):
        a.append(_time(tf_fn, steps))
        b.append(_time(np_fn, steps))
    return min(a), min(b)


# ------------------------------------------------------------------------------------------ seed loop


def seed_step(module=tf, traced=False):
    """The seed training step written against ``module`` (tapeflow, or TensorFlow for ``peers.py``): a zero-argument
    callable, traced by ``module.function`` when ``traced``."""
    w = module.Variable(0.0)
    b = module.Variable(0.0)
    xs = module.constant([1.0, 2.0, 3.0, 4.0])
    ys = module.constant([3.0, 5.0, 7.0, 9.0])

    def step():
        with module.GradientTape() as tape:
            loss = module.reduce_mean((w * xs + b - ys) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.01 * dw)
        b.assign_sub(0.01 * db)

    return module.function(step) if traced else step


def seed_tapeflow(steps):
    step = seed_step()
    for _ in range(steps):
        step()


def seed_traced(steps):
    """The seed step under ``tf.function``: the tape, gradient and updates traced once."""
    step = _built("seed", lambda: seed_step(traced=True))
    for _ in range(steps):
        step()


def seed_numpy(steps):
    xs = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    ys = np.array([3.0, 5.0, 7.0, 9.0], np.float32)
    w = np.float32(0.0)
    b = np.float32(0.0)
    for _ in range(steps):
        r = w * xs + b - ys
        np.mean(r**2)
        g = 2.0 * r / r.size
        dw, db = np.sum(g * xs), np.sum(g)
        w = w - np.float32(0.01) * dw
        b = b - np.float32(0.01) * db


# ------------------------------------------------------------------------------------------ MLP step

BATCH, WIDTHS = 64, (64, 128, 128, 10)


def _mlp_data(batch=BATCH, widths=WIDTHS):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, widths[0])).astype(np.float32)
    labels = rng.integers(0, widths[-1], batch)
    params = []
    for n_in, n_out in zip(widths[:-1], widths[1:]):
        params.append(rng.standard_normal((n_in, n_out)).astype(np.float32) * np.float32(np.sqrt(2 / n_in)))
        params.append(np.zeros(n_out, np.float32))
    return x, labels, params


def _mlp_loss(x, labels, variables, module=tf):
    h = x
    for i in range(0, len(variables), 2):
        h = module.matmul(h, variables[i]) + variables[i + 1]
        if i < len(variables) - 2:
            h = module.nn.relu(h)
    return module.reduce_mean(module.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h))


def mlp_step(module=tf, traced=False, batch=BATCH, widths=WIDTHS):
    """The MLP step written against ``module``, plain SGD by ``assign_sub``: a zero-argument callable; when
    ``traced``, the step is a ``module.function`` taking the batch as arguments."""
    x, labels, params = _mlp_data(batch, widths)
    x, labels = module.constant(x), module.constant(labels.astype(np.int32))
    variables = [module.Variable(p) for p in params]
    lr = np.float32(0.01)

    def train(x, labels):
        with module.GradientTape() as tape:
            loss = _mlp_loss(x, labels, variables, module)
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(lr * g)

    if traced:
        train = module.function(train)
    return lambda: train(x, labels)


def mlp_tapeflow(steps):
    """The MLP step on tapeflow: fused sparse cross-entropy, ``assign_sub`` updates."""
    step = mlp_step()
    for _ in range(steps):
        step()


def mlp_keras_sgd(steps):
    """The same step, updated by ``tf.keras.optimizers.SGD.apply_gradients``."""
    x, labels, params = _mlp_data()
    x, labels = tf.constant(x), tf.constant(labels.astype(np.int32))
    variables = [tf.Variable(p) for p in params]
    opt = tf.keras.optimizers.SGD(learning_rate=0.01)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = _mlp_loss(x, labels, variables)
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))


def mlp_traced(steps, batch=BATCH, widths=WIDTHS):
    """The MLP step of :func:`mlp_tapeflow` under ``tf.function``: traced once, then generated code."""
    step = _built(("mlp", batch, widths), lambda: mlp_step(traced=True, batch=batch, widths=widths))
    for _ in range(steps):
        step()


_FIT = {}


def mlp_fit(steps):
    """The same MLP trained by ``model.fit`` (its step traced, as Keras runs it), ``steps`` batches of 64; the model
    is built and traced once, on the first call, outside the timed runs."""
    if "model" not in _FIT:
        x, labels, params = _mlp_data()
        keras = tf.keras
        model = keras.Sequential([keras.Input((WIDTHS[0],))] + [
            keras.layers.Dense(n, activation="relu" if i < len(WIDTHS) - 2 else None)
            for i, n in enumerate(WIDTHS[1:])])
        model.set_weights(params)
        model.compile(optimizer=keras.optimizers.SGD(0.01),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        _FIT["model"], _FIT["data"] = model, (x, labels)
        model.fit(x, labels, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    model, (x, labels) = _FIT["model"], _FIT["data"]
    reps = max(1, steps)
    if _FIT.get("reps") != reps:  # the data of ``steps`` batches, made once (not timed as part of fit)
        _FIT["reps"], _FIT["xy"] = reps, (np.concatenate([x] * reps), np.concatenate([labels] * reps))
    model.fit(*_FIT["xy"], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)


BIG_BATCH, BIG_WIDTHS = 512, (512, 512, 512, 10)


def mlp_big_traced(steps):
    mlp_traced(steps, BIG_BATCH, BIG_WIDTHS)


def mlp_big_numpy(steps):
    mlp_numpy(steps, BIG_BATCH, BIG_WIDTHS)


def mlp_numpy(steps, batch=BATCH, widths=WIDTHS):
    x, labels, params = _mlp_data(batch, widths)
    onehot = np.eye(widths[-1], dtype=np.float32)[labels]
    rows = np.arange(batch)
    lr = np.float32(0.01)
    n_layers = len(params) // 2
    for _ in range(steps):
        acts, pre = [x], []
        h = x
        for i in range(n_layers):
            z = h @ params[2 * i] + params[2 * i + 1]
            pre.append(z)
            h = np.maximum(z, 0) if i < n_layers - 1 else z
            acts.append(h)
        shifted = h - h.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        p = e / e.sum(axis=1, keepdims=True)
        -np.mean(np.log(p[rows, labels]))
        g = (p - onehot) / np.float32(batch)
        for i in range(n_layers - 1, -1, -1):
            if i < n_layers - 1:
                g = g * (pre[i] > 0)
            gw = acts[i].T @ g
            gb = g.sum(axis=0)
            if i > 0:
                g = g @ params[2 * i].T
            params[2 * i] -= lr * gw
            params[2 * i + 1] -= lr * gb


# ------------------------------------------------------------------------------------------ unrolled RNN

RNN_T, RNN_BATCH, RNN_IN, RNN_HIDDEN = 20, 16, 8, 32


def _rnn_data():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((RNN_T, RNN_BATCH, RNN_IN)).astype(np.float32)
    y = rng.standard_normal((RNN_BATCH, 1)).astype(np.float32)
    params = [rng.standard_normal(shape).astype(np.float32) * np.float32(scale)
              for shape, scale in (((RNN_IN, RNN_HIDDEN), 0.3), ((RNN_HIDDEN, RNN_HIDDEN), 0.2),
                                   ((RNN_HIDDEN,), 0.0), ((RNN_HIDDEN, 1), 0.2))]
    return xs, y, params


def rnn_step(module=tf, traced=False, graph_loop=False):
    """The RNN step written against ``module``: a tape over 20 time steps, ``assign_sub`` updates; a zero-argument
    callable, under ``module.function`` when ``traced``. The time loop is unrolled, or with ``graph_loop`` one loop
    over ``range`` of a tensor that AutoGraph makes a ``While`` node (its gradient a second loop, backwards)."""
    xs, y, params = _rnn_data()
    stacked = module.constant(np.stack(xs))
    xs = [module.constant(x) for x in xs]
    y = module.constant(y)
    wx, wh, b, wo = variables = [module.Variable(p) for p in params]
    h0 = module.zeros((RNN_BATCH, RNN_HIDDEN))
    lr = np.float32(0.01)

    def step():
        with module.GradientTape() as tape:
            h = h0
            if graph_loop:
                for t in module.range(len(xs)):
                    h = module.tanh(module.matmul(stacked[t], wx) + module.matmul(h, wh) + b)
            else:
                for x in xs:
                    h = module.tanh(module.matmul(x, wx) + module.matmul(h, wh) + b)
            loss = module.reduce_mean(module.square(module.matmul(h, wo) - y))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(lr * g)

    def run_step():
        stepped()

    stepped = module.function(step) if traced else step
    run_step.variables = variables
    return run_step


def rnn_tapeflow(steps):
    step = rnn_step()
    for _ in range(steps):
        step()


def rnn_traced(steps):
    step = _built("rnn", lambda: rnn_step(traced=True))
    for _ in range(steps):
        step()


def rnn_graph_loop(steps):
    step = _built("rnn loop", lambda: rnn_step(traced=True, graph_loop=True))
    for _ in range(steps):
        step()


def call_traced(steps):
    """A traced function's fixed cost: ``f(x) = x * 2`` on a scalar, called ``steps`` times."""
    x = tf.constant(1.0)
    f = _built("call", lambda: tf.function(lambda x: x * 2.0), x)
    for _ in range(steps):
        f(x)


def call_numpy(steps):
    x = np.float32(1.0)
    two = np.float32(2.0)
    for _ in range(steps):
        x * two


def rnn_numpy(steps):
    """The same step with backpropagation through time written by hand."""
    xs, y, params = _rnn_data()
    wx, wh, b, wo = params
    lr = np.float32(0.01)
    for _ in range(steps):
        hs = [np.zeros((RNN_BATCH, RNN_HIDDEN), np.float32)]
        for x in xs:
            hs.append(np.tanh(x @ wx + hs[-1] @ wh + b))
        err = hs[-1] @ wo - y
        np.mean(err * err)
        gout = err * np.float32(2 / err.size)
        gwo = hs[-1].T @ gout
        gh = gout @ wo.T
        gwx, gwh, gb = np.zeros_like(wx), np.zeros_like(wh), np.zeros_like(b)
        for t in range(RNN_T, 0, -1):
            gz = gh * (1 - hs[t] * hs[t])
            gwx += xs[t - 1].T @ gz
            gwh += hs[t - 1].T @ gz
            gb += gz.sum(axis=0)
            gh = gz @ wh.T
        wx -= lr * gwx
        wh -= lr * gwh
        b -= lr * gb
        wo -= lr * gwo


# ------------------------------------------------------------------------------------------ per-op costs


def op_no_tape(steps):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(steps):
        x * x


def op_recorded(steps):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        for _ in range(steps):
            x * x


def op_numpy(steps):
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    for _ in range(steps):
        x * x


def chain_tapeflow(steps):
    x = tf.constant([[0.1, 0.2], [0.3, 0.4]])
    for _ in range(steps // 200):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = x
            for _ in range(100):
                h = tf.tanh(h * 1.01)
        tape.gradient(h, x)


def chain_numpy(steps):
    x = np.array([[0.1, 0.2], [0.3, 0.4]], np.float32)
    for _ in range(steps // 200):
        hs = [x]
        h = x
        for _ in range(100):
            h = np.tanh(h * np.float32(1.01))
            hs.append(h)
        g = np.ones_like(h)
        for h in reversed(hs[1:]):
            g = g * (1 - h * h) * np.float32(1.01)


# ------------------------------------------------------------------------------------------ conv layer

CONV_SHAPES = {"x": (32, 28, 28, 8), "w": (3, 3, 8, 16)}
CONV_STEP = 20  # one layer step (milliseconds) counts as this many timing steps; the table shows per layer step


def _conv_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(CONV_SHAPES["x"]).astype(np.float32)
    w = (rng.standard_normal(CONV_SHAPES["w"]) * 0.1).astype(np.float32)
    return x, w, np.zeros(CONV_SHAPES["w"][-1], np.float32)


def conv_tapeflow(steps):
    xv, wv, bv = _conv_data()
    x, w, b = tf.constant(xv), tf.Variable(wv), tf.Variable(bv)
    for _ in range(steps // CONV_STEP):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + b))
        tape.gradient(loss, [x, w, b])


def conv_numpy(steps):
    """The same layer by hand: im2col once (reused for the kernel gradient), col2im one tap at a time."""
    x, w, b = _conv_data()
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    ph, pw = (kh - 1) // 2, (kw - 1) // 2
    wt = np.ascontiguousarray(w.transpose(0, 1, 3, 2))
    for _ in range(steps // CONV_STEP):
        xp = np.zeros((n, h + kh - 1, wd + kw - 1, c), np.float32)
        xp[:, ph:ph + h, pw:pw + wd] = x
        s = xp.strides
        cols = np.lib.stride_tricks.as_strided(xp, (n, h, wd, kh, kw, c), (s[0], s[1], s[2], s[1], s[2], s[3]),
                                               writeable=False).reshape(-1, kh * kw * c)
        z = cols @ w.reshape(-1, o) + b
        y = np.maximum(z, 0)
        np.sum(y)
        g = (z > 0).astype(np.float32)
        gb = g.sum(axis=0)
        gw = (cols.T @ g).reshape(w.shape)
        dxp = np.zeros_like(xp)
        buf = np.empty((n * h * wd, c), np.float32)
        for i in range(kh):
            for j in range(kw):
                np.matmul(g, wt[i, j], out=buf)
                dxp[:, i:i + h, j:j + wd] += buf.reshape(n, h, wd, c)
        gx = dxp[:, ph:ph + h, pw:pw + wd]
        del gb, gw, gx


def import_cost(repeats):
    # As users import: from cached bytecode (an environment may turn writing it off; the first run writes it).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

    def t(mod):
        best = float("inf")
        subprocess.run([sys.executable, "-c", f"import {mod}"], env=env, check=True)
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {mod}"], capture_output=True,
                                 text=True, env=env)
            total = 0
            for line in out.stderr.splitlines():
                parts = line.split("|")
                if len(parts) == 3 and parts[2].strip() == mod:
                    total = int(parts[1])
            best = min(best, total)
        return best / 1000

    return t("tapeflow"), t("numpy")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--only", help="run only the workloads whose name contains this text")
    parser.add_argument("--repeats", type=int, help="interleaved repeats per workload (7; 3 with --quick)")
    args = parser.parse_args()
    scale, repeats = (0.2, 3) if args.quick else (1.0, 7)
    repeats = args.repeats or repeats
    rows = []
    for name, a, b, steps, *per_step in [
        ("seed_loop", seed_tapeflow, seed_numpy, 3000),
        ("seed_loop, tf.function", seed_traced, seed_numpy, 3000),
        ("mlp_step (64-128-128-10, batch 64)", mlp_tapeflow, mlp_numpy, 300),
        ("mlp_step, tf.function", mlp_traced, mlp_numpy, 300),
        ("mlp_step, Keras SGD update", mlp_keras_sgd, mlp_numpy, 300),
        ("mlp_step through Keras fit (traced)", mlp_fit, mlp_numpy, 300),
        ("mlp_step (512-512-512-10, batch 512), tf.function", mlp_big_traced, mlp_big_numpy, 20),
        ("rnn_step (tanh, 20 steps unrolled)", rnn_tapeflow, rnn_numpy, 300),
        ("rnn_step, tf.function", rnn_traced, rnn_numpy, 300),
        ("rnn_step, tf.function, AutoGraph loop", rnn_graph_loop, rnn_numpy, 300),
        ("tf.function call (x * 2 on a scalar)", call_traced, call_numpy, 20000),
        ("op_no_tape (2x2 multiply)", op_no_tape, op_numpy, 20000),
        ("op_recorded (2x2 multiply)", op_recorded, op_numpy, 20000),
        ("chain_backward (200 ops, fwd+bwd)", chain_tapeflow, chain_numpy, 2000),
        ("conv (conv2d+bias+relu, fwd+bwd)", conv_tapeflow, conv_numpy, 200, CONV_STEP),
    ]:
        if args.only and args.only not in name:
            continue
        t_tf, t_np = (t * (per_step[0] if per_step else 1) for t in compare(a, b, max(int(steps * scale), 200),
                                                                             repeats))
        rows.append((name, t_tf, t_np))
        print(f"{name:38s} tapeflow {t_tf:9.1f} us   numpy {t_np:9.1f} us   ratio {t_tf / t_np:5.2f}x",
              flush=True)
    if args.only and args.only not in "import":
        return
    imp_tf, imp_np = import_cost(repeats)
    print(f"{'import (self+children, ms)':38s} tapeflow {imp_tf:9.1f} ms   numpy {imp_np:9.1f} ms   "
          f"extra {imp_tf - imp_np:.1f} ms")
    if args.markdown:
        print("\n| workload | tapeflow (µs/step) | hand-written NumPy (µs/step) | ratio |\n|---|---|---|---|")
        for name, t_tf, t_np in rows:
            print(f"| {name} | {t_tf:.1f} | {t_np:.1f} | {t_tf / t_np:.2f}x |")
        print(f"| import tapeflow − import numpy | {imp_tf - imp_np:.1f} ms | | |")


if __name__ == "__main__":
    main()

"""The workloads ``peers.py`` runs beyond ``run.py``'s: a small CNN on 8x8 images and the jacobian of a 256-to-256
function, each written once against a TensorFlow-like module (tapeflow, or TensorFlow itself), by hand in NumPy,
and in JAX; and JAX versions of ``run.py``'s seed loop, MLP step and RNN step.

Every step is a zero-argument callable; the NumPy steps take a number of steps, as ``run.compare`` wants.
"""

from __future__ import annotations

import jacobian as jac
import numpy as np
import run

# ------------------------------------------------------------------------------------------ small CNN

CNN_BATCH, CNN_SIDE, CNN_FILTERS, CNN_CLASSES = 64, 8, 8, 10


def _cnn_data():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((CNN_BATCH, CNN_SIDE, CNN_SIDE, 1)).astype(np.float32)
    labels = rng.integers(0, CNN_CLASSES, CNN_BATCH)
    w = (rng.standard_normal((3, 3, 1, CNN_FILTERS)) / 3).astype(np.float32)
    b = np.zeros(CNN_FILTERS, np.float32)
    flat = CNN_SIDE * CNN_SIDE * CNN_FILTERS
    wd = (rng.standard_normal((flat, CNN_CLASSES)) * np.sqrt(2 / flat)).astype(np.float32)
    bd = np.zeros(CNN_CLASSES, np.float32)
    return x, labels, [w, b, wd, bd]


def cnn_step(module, traced=False):
    """One SGD step of conv 3x3 (8 filters, SAME) -> relu -> dense 10 -> softmax cross-entropy on a batch of 64
    8x8 images."""
    x, labels, params = _cnn_data()
    x, labels = module.constant(x), module.constant(labels.astype(np.int32))
    variables = [module.Variable(p) for p in params]
    w, b, wd, bd = variables
    lr = np.float32(0.01)

    def train(x, labels):
        with module.GradientTape() as tape:
            h = module.nn.relu(module.nn.conv2d(x, w, 1, "SAME") + b)
            logits = module.matmul(module.reshape(h, [CNN_BATCH, -1]), wd) + bd
            loss = module.reduce_mean(module.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                                         logits=logits))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(lr * g)

    if traced:
        train = module.function(train)

    def step():
        train(x, labels)

    step.variables = variables
    return step


def cnn_numpy(steps, params=None):
    """The same step by hand: im2col for the convolution (no input gradient is needed); ``params``, when given,
    receives the arrays it updates."""
    x, labels, (w, b, wd, bd) = _cnn_data()
    if params is not None:
        params.extend([w, b, wd, bd])
    n, side, _, _ = x.shape
    onehot = np.eye(CNN_CLASSES, dtype=np.float32)[labels]
    lr = np.float32(0.01)
    xp = np.zeros((n, side + 2, side + 2, 1), np.float32)
    xp[:, 1:-1, 1:-1] = x
    s = xp.strides
    cols = np.lib.stride_tricks.as_strided(xp, (n, side, side, 3, 3, 1), (s[0], s[1], s[2], s[1], s[2], s[3]),
                                           writeable=False).reshape(-1, 9)
    for _ in range(steps):
        z = cols @ w.reshape(9, -1) + b
        h = np.maximum(z, 0).reshape(n, -1)
        logits = h @ wd + bd
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        p = e / e.sum(axis=1, keepdims=True)
        -np.mean(np.log(p[np.arange(n), labels]))
        g = (p - onehot) / np.float32(n)
        gwd, gbd = h.T @ g, g.sum(axis=0)
        gz = (g @ wd.T).reshape(-1, CNN_FILTERS) * (z > 0)
        gw, gb = (cols.T @ gz).reshape(w.shape), gz.sum(axis=0)
        w -= lr * gw
        b -= lr * gb
        wd -= lr * gwd
        bd -= lr * gbd


# ------------------------------------------------------------------------------------------ jacobian


def jacobian_step(module, traced=False):
    """``tape.jacobian`` of ``tanh(W2 tanh(W1 x + b1) + b2)`` at one ``x`` of 256 values (a 256x256 result)."""
    x, w1, b1, w2, b2 = (module.constant(a) for a in jac.data())

    def full(x):
        with module.GradientTape() as tape:
            tape.watch(x)
            y = module.tanh(module.linalg.matvec(w2, module.tanh(module.linalg.matvec(w1, x) + b1)) + b2)
        return tape.jacobian(y, x)

    if traced:
        full = module.function(full)
    return lambda: full(x)


def jacobian_numpy(steps):
    """The same jacobian by hand: ``diag(1 - y^2) W2 diag(1 - h^2) W1``."""
    x, w1, b1, w2, b2 = jac.data()
    for _ in range(steps):
        h = np.tanh(w1 @ x + b1)
        y = np.tanh(w2 @ h + b2)
        ((1 - y * y)[:, None] * w2) @ ((1 - h * h)[:, None] * w1)


# ------------------------------------------------------------------------------------------ JAX


def jax_steps():
    """Every workload under ``jax.jit`` (the update is one jitted function; each call waits for its result)."""
    import jax
    import jax.numpy as jnp

    def stepper(update, state):
        box = {"state": state}

        def step():
            box["state"] = update(box["state"])
            jax.block_until_ready(box["state"])

        return step

    xs = jnp.asarray([1.0, 2.0, 3.0, 4.0], jnp.float32)
    ys = jnp.asarray([3.0, 5.0, 7.0, 9.0], jnp.float32)

    @jax.jit
    def seed(state):
        grads = jax.grad(lambda p: jnp.mean((p[0] * xs + p[1] - ys) ** 2))(state)
        return [p - 0.01 * g for p, g in zip(state, grads)]

    def softmax_xent(logits, labels):
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(len(labels)), labels])

    def mlp_update(batch, widths):
        x, labels, params = run._mlp_data(batch, widths)
        x, labels = jnp.asarray(x), jnp.asarray(labels)

        def loss(ps):
            h = x
            for i in range(0, len(ps), 2):
                h = h @ ps[i] + ps[i + 1]
                if i < len(ps) - 2:
                    h = jax.nn.relu(h)
            return softmax_xent(h, labels)

        update = jax.jit(lambda ps: [p - 0.01 * g for p, g in zip(ps, jax.grad(loss)(ps))])
        return stepper(update, [jnp.asarray(p) for p in params])

    xs_rnn, y_rnn, rnn_params = run._rnn_data()
    xs_rnn, y_rnn = jnp.asarray(np.stack(xs_rnn)), jnp.asarray(y_rnn)

    def rnn_loss(ps):
        wx, wh, b, wo = ps
        h = jnp.zeros((run.RNN_BATCH, run.RNN_HIDDEN), jnp.float32)
        for t in range(run.RNN_T):
            h = jnp.tanh(xs_rnn[t] @ wx + h @ wh + b)
        return jnp.mean((h @ wo - y_rnn) ** 2)

    rnn = jax.jit(lambda ps: [p - 0.01 * g for p, g in zip(ps, jax.grad(rnn_loss)(ps))])

    x_cnn, labels_cnn, cnn_params = _cnn_data()
    x_cnn, labels_cnn = jnp.asarray(x_cnn), jnp.asarray(labels_cnn)

    def cnn_loss(ps):
        w, b, wd, bd = ps
        h = jax.lax.conv_general_dilated(x_cnn, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = jax.nn.relu(h + b).reshape(CNN_BATCH, -1)
        return softmax_xent(h @ wd + bd, labels_cnn)

    cnn = jax.jit(lambda ps: [p - 0.01 * g for p, g in zip(ps, jax.grad(cnn_loss)(ps))])

    x_j, w1, b1, w2, b2 = (jnp.asarray(a) for a in jac.data())
    jacobian = jax.jit(jax.jacrev(lambda v: jnp.tanh(w2 @ jnp.tanh(w1 @ v + b1) + b2)))

    def jacobian_step_jax():
        jax.block_until_ready(jacobian(x_j))

    return {"seed": stepper(seed, [jnp.float32(0.0), jnp.float32(0.0)]),
            "mlp": mlp_update(run.BATCH, run.WIDTHS), "mlp512": mlp_update(run.BIG_BATCH, run.BIG_WIDTHS),
            "rnn": stepper(rnn, [jnp.asarray(p) for p in rnn_params]),
            "cnn": stepper(cnn, [jnp.asarray(p) for p in cnn_params]), "jacobian": jacobian_step_jax}


# ------------------------------------------------------------------------------------------ PyTorch


def torch_steps(compiled=False):
    """Every workload in PyTorch, eager or with ``torch.compile`` (each loss function compiled; its gradient comes
    from ``torch.autograd.grad``, whose backward graph ``torch.compile`` compiles too). One thread, as NumPy has."""
    import torch

    torch.set_num_threads(1)
    compile_ = torch.compile if compiled else (lambda f: f)

    def sgd(loss_fn, params):
        params = [torch.tensor(p, requires_grad=True) for p in params]

        def step():
            grads = torch.autograd.grad(loss_fn(*params), params)
            with torch.no_grad():
                for p, g in zip(params, grads):
                    p -= 0.01 * g

        return step

    xs = torch.tensor([1.0, 2.0, 3.0, 4.0])
    ys = torch.tensor([3.0, 5.0, 7.0, 9.0])
    seed = compile_(lambda w, b: torch.mean((w * xs + b - ys) ** 2))

    def mlp(batch, widths):
        x, labels, params = run._mlp_data(batch, widths)
        x, labels = torch.tensor(x), torch.tensor(labels)

        def loss(*ps):
            h = x
            for i in range(0, len(ps), 2):
                h = h @ ps[i] + ps[i + 1]
                if i < len(ps) - 2:
                    h = torch.relu(h)
            return torch.nn.functional.cross_entropy(h, labels)

        return sgd(compile_(loss), params)

    xs_rnn, y_rnn, rnn_params = run._rnn_data()
    xs_rnn, y_rnn = torch.tensor(np.stack(xs_rnn)), torch.tensor(y_rnn)

    def rnn_loss(wx, wh, b, wo):
        h = torch.zeros((run.RNN_BATCH, run.RNN_HIDDEN))
        for t in range(run.RNN_T):
            h = torch.tanh(xs_rnn[t] @ wx + h @ wh + b)
        return torch.mean((h @ wo - y_rnn) ** 2)

    x_cnn, labels_cnn, cnn_params = _cnn_data()
    x_nchw, labels_cnn = torch.tensor(x_cnn).permute(0, 3, 1, 2).contiguous(), torch.tensor(labels_cnn)

    def cnn_loss(w, b, wd, bd):
        h = torch.nn.functional.conv2d(x_nchw, w.permute(3, 2, 0, 1), padding="same")  # (weights kept HWIO)
        h = torch.relu(h + b[:, None, None]).permute(0, 2, 3, 1).reshape(CNN_BATCH, -1)
        return torch.nn.functional.cross_entropy(h @ wd + bd, labels_cnn)

    x_j, w1, b1, w2, b2 = (torch.tensor(a) for a in jac.data())
    jacobian = compile_(torch.func.jacrev(lambda v: torch.tanh(w2 @ torch.tanh(w1 @ v + b1) + b2)))

    return {"seed": sgd(seed, [np.float32(0.0), np.float32(0.0)]), "mlp": mlp(run.BATCH, run.WIDTHS),
            "mlp512": mlp(run.BIG_BATCH, run.BIG_WIDTHS), "rnn": sgd(compile_(rnn_loss), rnn_params),
            "cnn": sgd(compile_(cnn_loss), cnn_params), "jacobian": lambda: jacobian(x_j)}

"""What the golden cases of the Keras optimizers record: an optimizer's trajectory over several steps with changing
gradients, with its slots and step count, and its steps on an embedding table from sparse gradients.
"""

import numpy as np

GRADS = [[0.5, -1.0, 2.0], [0.25, 0.75, -3.0], [-1.5, 0.1, 0.0], [1.0, 1.0, 1.0], [0.3, -0.2, 0.1]]
MAT_GRADS = [np.array(g, np.float64) for g in (
    [[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], [[0.25, 0.75, -3.0], [1.0, -1.0, 0.5]],
    [[-1.5, 0.1, 0.0], [0.0, 0.0, 0.0]], [[1.0, 1.0, 1.0], [2.0, -0.5, 0.25]])]

# The common options each optimizer is also run with.
VARIANTS = {"clipnorm": {"clipnorm": 1.0}, "clipvalue": {"clipvalue": 0.5},
            "global_clipnorm": {"global_clipnorm": 0.7}, "weight_decay": {"weight_decay": 0.05}}


def trajectory(tf, make, dtype="float32", grads=GRADS, init=(1.0, -2.0, 0.5)):
    """The variable after each of ``grads``' steps of the optimizer ``make()``, then its variables and iterations."""
    opt = make()
    dt = getattr(tf, dtype)
    w = tf.Variable(np.array(init), dtype=dt, name="zz")
    out = []
    for g in grads:
        opt.apply_gradients([(tf.constant(g, dt), w)])
        out.append(w.numpy())
    return {"w": out, "slots": [[v.path, v.dtype, v.numpy()] for v in opt.variables],
            "it": opt.iterations.numpy()}


def both_dtypes(tf, make, **kw):
    """:func:`trajectory` in float32 and in float64."""
    return {d: trajectory(tf, make, dtype=d, **kw) for d in ("float32", "float64")}


def maker(tf, cls, **kw):
    """A function making ``tf.keras.optimizers.<cls>(**kw)`` named ``cls.lower()``."""
    return lambda: getattr(tf.keras.optimizers, cls)(name=cls.lower(), **kw)


def variants(tf, cls, **kw):
    """A float32 :func:`trajectory` with each of the common options in ``VARIANTS``."""
    return {k: trajectory(tf, maker(tf, cls, **kw, **v)) for k, v in VARIANTS.items()}


def sparse_trajectory(tf, make, dtype="float32", offset=0.0):
    """Three steps of ``make()`` on an embedding table from the ``IndexedSlices`` gradients of gathers (repeated
    rows included): the table after each step, then the optimizer's slots."""
    opt = make()
    dt = getattr(tf, dtype)
    emb = tf.Variable(np.arange(12.0).reshape(4, 3) / 10.0 + offset, dtype=dt, name="emb")
    out = []
    for ids in ([0, 2, 2], [1, 2], [3, 0, 3]):
        with tf.GradientTape() as tape:
            rows = tf.gather(emb, ids)
            loss = tf.reduce_sum(rows * rows * tf.constant([1.0, -2.0, 0.5], dt))
        g = tape.gradient(loss, emb)
        opt.apply_gradients([(g, emb)])
        out.append(emb.numpy())
    return {"w": out, "slots": [v.numpy() for v in opt.variables[2:]]}

"""What the golden cases of the Keras optimizers Ftrl, Lion, Lamb and Adafactor record: an optimizer's trajectory
over several steps with changing gradients, with its slots and step count.
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

"""tf.keras.optimizers (Keras 3): Ftrl, Lion, Lamb, Adafactor.

Trajectories of several steps with changing gradients in float32 and float64 (slots included), with clipping and
weight-decay variants; sparse gradients from gathers (with repeated rows); configs, round trips and errors.
"""

import numpy as np

from tests.golden.harness import case, catch

_GRADS = [[0.5, -1.0, 2.0], [0.25, 0.75, -3.0], [-1.5, 0.1, 0.0], [1.0, 1.0, 1.0], [0.3, -0.2, 0.1]]
_MAT_GRADS = [np.array(g, np.float64) for g in (
    [[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], [[0.25, 0.75, -3.0], [1.0, -1.0, 0.5]],
    [[-1.5, 0.1, 0.0], [0.0, 0.0, 0.0]], [[1.0, 1.0, 1.0], [2.0, -0.5, 0.25]])]


def _traj(tf, make, dtype="float32", grads=_GRADS, init=(1.0, -2.0, 0.5)):
    opt = make()
    dt = getattr(tf, dtype)
    w = tf.Variable(np.array(init), dtype=dt, name="zz")
    out = []
    for g in grads:
        opt.apply_gradients([(tf.constant(g, dt), w)])
        out.append(w.numpy())
    return {"w": out, "slots": [[v.path, v.dtype, v.numpy()] for v in opt.variables],
            "it": opt.iterations.numpy()}


def _both(tf, make, **kw):
    return {d: _traj(tf, make, dtype=d, **kw) for d in ("float32", "float64")}


def _o(tf, cls, **kw):
    return lambda: getattr(tf.keras.optimizers, cls)(name=cls.lower(), **kw)


_VARIANTS = {"clipnorm": {"clipnorm": 1.0}, "clipvalue": {"clipvalue": 0.5},
             "global_clipnorm": {"global_clipnorm": 0.7}, "weight_decay": {"weight_decay": 0.05}}


def _variants(tf, cls, **kw):
    return {k: _traj(tf, _o(tf, cls, **kw, **v)) for k, v in _VARIANTS.items()}


# ------------------------------------------------------------------------------------------------------- Ftrl


@case
def ftrl_default(tf):
    return _both(tf, _o(tf, "Ftrl"))


@case
def ftrl_regularized(tf):
    return _both(tf, _o(tf, "Ftrl", learning_rate=0.1, learning_rate_power=-0.7, initial_accumulator_value=0.5,
                        l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                        l2_shrinkage_regularization_strength=0.03, beta=0.1))


@case
def ftrl_l1_zeroes(tf):
    return _both(tf, _o(tf, "Ftrl", learning_rate=0.5, l1_regularization_strength=0.8))


@case
def ftrl_power_zero(tf):
    return _both(tf, _o(tf, "Ftrl", learning_rate=0.2, learning_rate_power=0.0, initial_accumulator_value=0.0))


@case
def ftrl_variants(tf):
    return _variants(tf, "Ftrl", learning_rate=0.1)


@case
def ftrl_errors(tf):
    F = tf.keras.optimizers.Ftrl
    return [catch(F, initial_accumulator_value=-0.1), catch(F, learning_rate_power=0.5),
            catch(F, l1_regularization_strength=-1.0), catch(F, l2_regularization_strength=-1.0),
            catch(F, l2_shrinkage_regularization_strength=-1.0),
            catch(F, learning_rate_power=0.5, initial_accumulator_value=-1.0), catch(F, bogus=1)]


# ------------------------------------------------------------------------------------------------------- Lion


@case
def lion_default(tf):
    return _both(tf, _o(tf, "Lion"))


@case
def lion_betas(tf):
    return _both(tf, _o(tf, "Lion", learning_rate=0.05, beta_1=0.5, beta_2=0.9))


@case
def lion_beta_one(tf):
    return _both(tf, _o(tf, "Lion", learning_rate=0.05, beta_1=1.0))


@case
def lion_variants(tf):
    return _variants(tf, "Lion", learning_rate=0.1)


@case
def lion_errors(tf):
    L = tf.keras.optimizers.Lion
    return [catch(L, beta_1=0.0), catch(L, beta_1=1.5), catch(L, beta_1=-0.1)]


# ------------------------------------------------------------------------------------------------------- Lamb


@case
def lamb_default(tf):
    return _both(tf, _o(tf, "Lamb"))


@case
def lamb_betas(tf):
    return _both(tf, _o(tf, "Lamb", learning_rate=0.1, beta_1=0.8, beta_2=0.99, epsilon=1e-3))


@case
def lamb_zero_variable(tf):
    return _both(tf, _o(tf, "Lamb", learning_rate=0.1), init=(0.0, 0.0, 0.0))


@case
def lamb_matrix(tf):
    return _both(tf, _o(tf, "Lamb", learning_rate=0.1), grads=_MAT_GRADS,
                 init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def lamb_variants(tf):
    return _variants(tf, "Lamb", learning_rate=0.1)


# -------------------------------------------------------------------------------------------------- Adafactor


@case
def adafactor_default_vector(tf):
    return _both(tf, _o(tf, "Adafactor"))


@case
def adafactor_vector_large_lr(tf):
    return _both(tf, _o(tf, "Adafactor", learning_rate=0.5, beta_2_decay=-0.5, epsilon_2=1e-2,
                        clip_threshold=0.5))


@case
def adafactor_matrix(tf):
    return _both(tf, _o(tf, "Adafactor", learning_rate=0.3), grads=_MAT_GRADS,
                 init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def adafactor_rank3(tf):
    rng = np.random.RandomState(0)
    grads = [rng.randn(2, 2, 3) for _ in range(3)]
    return _both(tf, _o(tf, "Adafactor", learning_rate=0.2, relative_step=False), grads=grads,
                 init=rng.randn(2, 2, 3))


@case
def adafactor_scalar(tf):
    return _both(tf, _o(tf, "Adafactor", learning_rate=0.1), grads=[0.5, -1.0, 2.0], init=1.5)


@case
def adafactor_schedule(tf):
    sched = tf.keras.optimizers.schedules.ExponentialDecay(0.5, 2, 0.5)
    return _both(tf, _o(tf, "Adafactor", learning_rate=sched), grads=_MAT_GRADS,
                 init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def adafactor_variants(tf):
    return _variants(tf, "Adafactor", learning_rate=0.1)


@case
def adafactor_two_variables(tf):
    opt = tf.keras.optimizers.Adafactor(learning_rate=0.2, name="adafactor")
    w = tf.Variable([[1.0, 2.0], [3.0, -4.0]], name="kernel")
    b = tf.Variable([0.5, -0.5], name="bias")
    for g in ([[0.1, 0.2], [0.3, 0.4]], [[1.0, -1.0], [0.5, 0.0]]):
        opt.apply_gradients([(tf.constant(g), w), (tf.constant([1.0, -2.0]), b)])
    return [w, b, [[v.path, v.dtype, v.shape, v.numpy()] for v in opt.variables]]


# ------------------------------------------------------------------------------------------- sparse gradients


def _sparse(tf, make, dtype="float32"):
    opt = make()
    dt = getattr(tf, dtype)
    emb = tf.Variable(np.arange(12.0).reshape(4, 3) / 10.0 + 0.05, dtype=dt, name="emb")
    out = []
    for ids in ([0, 2, 2], [1, 2], [3, 0, 3]):
        with tf.GradientTape() as tape:
            rows = tf.gather(emb, ids)
            loss = tf.reduce_sum(rows * rows * tf.constant([1.0, -2.0, 0.5], dt))
        g = tape.gradient(loss, emb)
        opt.apply_gradients([(g, emb)])
        out.append(emb.numpy())
    return {"w": out, "slots": [v.numpy() for v in opt.variables[2:]]}


@case
def sparse_gradients(tf):
    out = {}
    for cls in ("Ftrl", "Lion", "Lamb", "Adafactor"):
        out[cls] = {d: _sparse(tf, _o(tf, cls, learning_rate=0.1), d) for d in ("float32", "float64")}
    return out


@case
def sparse_ftrl_regularized(tf):
    return _sparse(tf, _o(tf, "Ftrl", learning_rate=0.1, l1_regularization_strength=0.01,
                          l2_shrinkage_regularization_strength=0.1))


@case
def sparse_indexed_slices_direct(tf):
    out = {}
    for cls in ("Ftrl", "Lion", "Lamb", "Adafactor"):
        opt = getattr(tf.keras.optimizers, cls)(learning_rate=0.5, name=cls.lower())
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="w")
        g = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, -1.0]]), tf.constant([2, 2]), tf.constant([3, 2]))
        opt.apply_gradients([(g, w)])
        out[cls] = [w, [v.numpy() for v in opt.variables[2:]]]
    return out


# ------------------------------------------------------------------------------------------ configs, round trip


@case
def configs(tf):
    opts = [tf.keras.optimizers.Ftrl(name="a", l1_regularization_strength=0.1, beta=0.2, clipnorm=1.0),
            tf.keras.optimizers.Lion(name="b", beta_1=0.8, weight_decay=0.1),
            tf.keras.optimizers.Lamb(name="c", epsilon=1e-5, use_ema=True),
            tf.keras.optimizers.Adafactor(name="d", relative_step=False, global_clipnorm=2.0),
            tf.keras.optimizers.Ftrl(), tf.keras.optimizers.Lion(), tf.keras.optimizers.Lamb(),
            tf.keras.optimizers.Adafactor()]
    return [sorted(o.get_config().items()) if i < 4 else sorted((k, v) for k, v in o.get_config().items()
                                                                 if k != "name")
            for i, o in enumerate(opts)]


@case
def from_config_round_trip(tf):
    out = []
    for cls in ("Ftrl", "Lion", "Lamb", "Adafactor"):
        opt = getattr(tf.keras.optimizers, cls)(name="x", learning_rate=0.25)
        again = type(opt).from_config(opt.get_config())
        out.append([type(again).__name__, again.get_config()])
    sched = tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 2, 0.5)
    again = tf.keras.optimizers.Lion.from_config(tf.keras.optimizers.Lion(learning_rate=sched, name="y").get_config())
    out.append([type(again.learning_rate).__name__ if not hasattr(again.learning_rate, "numpy") else "tensor",
                again.get_config()])
    return out


@case
def ema_and_accumulation(tf):
    return {"lion_ema": _traj(tf, _o(tf, "Lion", learning_rate=0.1, use_ema=True, ema_overwrite_frequency=2)),
            "lamb_accum": _traj(tf, _o(tf, "Lamb", learning_rate=0.1, gradient_accumulation_steps=2)),
            "ftrl_callable_lr": _traj(tf, _o(tf, "Ftrl", learning_rate=lambda: 0.05))}

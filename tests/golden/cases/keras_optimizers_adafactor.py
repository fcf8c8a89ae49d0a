"""tf.keras.optimizers (Keras 3): Adafactor (vectors, matrices, rank 3, scalars, a schedule).

Trajectories of several steps with changing gradients in float32 and float64 (slots included), with clipping and
weight-decay variants, and errors.
"""

import numpy as np

from tests.golden.harness import case
from tests.golden.optimizer_runs import MAT_GRADS, both_dtypes, maker, variants


@case
def adafactor_default_vector(tf):
    return both_dtypes(tf, maker(tf, "Adafactor"))


@case
def adafactor_vector_large_lr(tf):
    return both_dtypes(tf, maker(tf, "Adafactor", learning_rate=0.5, beta_2_decay=-0.5, epsilon_2=1e-2,
                                 clip_threshold=0.5))


@case
def adafactor_matrix(tf):
    return both_dtypes(tf, maker(tf, "Adafactor", learning_rate=0.3), grads=MAT_GRADS,
                       init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def adafactor_rank3(tf):
    rng = np.random.RandomState(0)
    grads = [rng.randn(2, 2, 3) for _ in range(3)]
    return both_dtypes(tf, maker(tf, "Adafactor", learning_rate=0.2, relative_step=False), grads=grads,
                       init=rng.randn(2, 2, 3))


@case
def adafactor_scalar(tf):
    return both_dtypes(tf, maker(tf, "Adafactor", learning_rate=0.1), grads=[0.5, -1.0, 2.0], init=1.5)


@case
def adafactor_schedule(tf):
    sched = tf.keras.optimizers.schedules.ExponentialDecay(0.5, 2, 0.5)
    return both_dtypes(tf, maker(tf, "Adafactor", learning_rate=sched), grads=MAT_GRADS,
                       init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def adafactor_variants(tf):
    return variants(tf, "Adafactor", learning_rate=0.1)


@case
def adafactor_two_variables(tf):
    opt = tf.keras.optimizers.Adafactor(learning_rate=0.2, name="adafactor")
    w = tf.Variable([[1.0, 2.0], [3.0, -4.0]], name="kernel")
    b = tf.Variable([0.5, -0.5], name="bias")
    for g in ([[0.1, 0.2], [0.3, 0.4]], [[1.0, -1.0], [0.5, 0.0]]):
        opt.apply_gradients([(tf.constant(g), w), (tf.constant([1.0, -2.0]), b)])
    return [w, b, [[v.path, v.dtype, v.shape, v.numpy()] for v in opt.variables]]

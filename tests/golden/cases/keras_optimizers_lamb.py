"""tf.keras.optimizers (Keras 3): Lamb (a zero variable, a matrix).

Trajectories of several steps with changing gradients in float32 and float64 (slots included), with clipping and
weight-decay variants, and errors.
"""

from tests.golden.harness import case
from tests.golden.optimizer_runs import MAT_GRADS, both_dtypes, maker, variants


@case
def lamb_default(tf):
    return both_dtypes(tf, maker(tf, "Lamb"))


@case
def lamb_betas(tf):
    return both_dtypes(tf, maker(tf, "Lamb", learning_rate=0.1, beta_1=0.8, beta_2=0.99, epsilon=1e-3))


@case
def lamb_zero_variable(tf):
    return both_dtypes(tf, maker(tf, "Lamb", learning_rate=0.1), init=(0.0, 0.0, 0.0))


@case
def lamb_matrix(tf):
    return both_dtypes(tf, maker(tf, "Lamb", learning_rate=0.1), grads=MAT_GRADS,
                       init=[[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]])


@case
def lamb_variants(tf):
    return variants(tf, "Lamb", learning_rate=0.1)

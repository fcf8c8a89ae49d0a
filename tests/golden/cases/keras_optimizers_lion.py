"""tf.keras.optimizers (Keras 3): Lion.

Trajectories of several steps with changing gradients in float32 and float64 (slots included), with clipping and
weight-decay variants, and errors.
"""

from tests.golden.harness import case, catch
from tests.golden.optimizer_runs import both_dtypes, maker, variants


@case
def lion_default(tf):
    return both_dtypes(tf, maker(tf, "Lion"))


@case
def lion_betas(tf):
    return both_dtypes(tf, maker(tf, "Lion", learning_rate=0.05, beta_1=0.5, beta_2=0.9))


@case
def lion_beta_one(tf):
    return both_dtypes(tf, maker(tf, "Lion", learning_rate=0.05, beta_1=1.0))


@case
def lion_variants(tf):
    return variants(tf, "Lion", learning_rate=0.1)


@case
def lion_errors(tf):
    L = tf.keras.optimizers.Lion
    return [catch(L, beta_1=0.0), catch(L, beta_1=1.5), catch(L, beta_1=-0.1)]

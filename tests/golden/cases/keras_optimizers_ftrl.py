"""tf.keras.optimizers (Keras 3): Ftrl (regularized, l1 driving weights to zero, a zero learning-rate power).

Trajectories of several steps with changing gradients in float32 and float64 (slots included), with clipping and
weight-decay variants, and errors.
"""

from tests.golden.harness import case, catch
from tests.golden.optimizer_runs import both_dtypes, maker, variants


@case
def ftrl_default(tf):
    return both_dtypes(tf, maker(tf, "Ftrl"))


@case
def ftrl_regularized(tf):
    return both_dtypes(tf, maker(tf, "Ftrl", learning_rate=0.1, learning_rate_power=-0.7, initial_accumulator_value=0.5,
                                 l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                                 l2_shrinkage_regularization_strength=0.03, beta=0.1))


@case
def ftrl_l1_zeroes(tf):
    return both_dtypes(tf, maker(tf, "Ftrl", learning_rate=0.5, l1_regularization_strength=0.8))


@case
def ftrl_power_zero(tf):
    return both_dtypes(tf, maker(tf, "Ftrl", learning_rate=0.2, learning_rate_power=0.0, initial_accumulator_value=0.0))


@case
def ftrl_variants(tf):
    return variants(tf, "Ftrl", learning_rate=0.1)


@case
def ftrl_errors(tf):
    F = tf.keras.optimizers.Ftrl
    return [catch(F, initial_accumulator_value=-0.1), catch(F, learning_rate_power=0.5),
            catch(F, l1_regularization_strength=-1.0), catch(F, l2_regularization_strength=-1.0),
            catch(F, l2_shrinkage_regularization_strength=-1.0),
            catch(F, learning_rate_power=0.5, initial_accumulator_value=-1.0), catch(F, bogus=1)]

"""tf.keras.optimizers (Keras 3): Ftrl, Lion, Lamb and Adafactor on sparse gradients, from gathers (with repeated rows)
and given directly as IndexedSlices.
"""


from tests.golden.harness import case
from tests.golden.optimizer_runs import maker, sparse_trajectory


def _sparse(tf, make, dtype="float32"):
    return sparse_trajectory(tf, make, dtype, offset=0.05)


@case
def sparse_gradients(tf):
    out = {}
    for cls in ("Ftrl", "Lion", "Lamb", "Adafactor"):
        out[cls] = {d: _sparse(tf, maker(tf, cls, learning_rate=0.1), d) for d in ("float32", "float64")}
    return out


@case
def sparse_ftrl_regularized(tf):
    return _sparse(tf, maker(tf, "Ftrl", learning_rate=0.1, l1_regularization_strength=0.01,
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

"""tf.keras.random (Keras 3.15). Random values are not compared (tapeflow draws with NumPy's Philox, as tf.random
does): the cases return shapes, dtypes, value ranges, reproducibility with the same seed, SeedGenerator state and
errors.
"""

import numpy as np

from tests.golden.harness import case, catch


def _meta(t):
    return [t.dtype, tuple(t.shape)]


@case
def random_shapes_dtypes(tf):
    R = tf.keras.random
    return [_meta(R.normal((2, 3), seed=1)), _meta(R.normal([4], dtype="float64", seed=1)),
            _meta(R.uniform((2, 2), seed=2)), _meta(R.uniform((3,), dtype="float16", seed=2)),
            _meta(R.randint((2, 5), 0, 10, seed=3)), _meta(R.randint((2,), 0, 10, dtype="int64", seed=3)),
            _meta(R.truncated_normal((5,), seed=4)), _meta(R.categorical(tf.zeros((2, 3)), 4, seed=1)),
            _meta(R.categorical(tf.zeros((2, 3)), 4, dtype="int64", seed=1)),
            _meta(R.shuffle(tf.reshape(tf.range(6), (2, 3)), axis=1, seed=2)),
            _meta(R.dropout(tf.ones((2, 4)), 0.5, seed=3)), _meta(R.gamma((2,), 2.0, seed=1)),
            _meta(R.beta((3,), 2.0, 3.0, seed=1)), _meta(R.binomial((2,), 5, 0.5, seed=1)),
            _meta(R.normal((), seed=1))]


@case
def random_ranges(tf):
    R = tf.keras.random
    u = R.uniform((500,), minval=2.0, maxval=3.0, seed=7).numpy()
    i = R.randint((500,), 3, 6, seed=7).numpy()
    t = R.truncated_normal((500,), mean=1.0, stddev=0.5, seed=7).numpy()
    d = R.dropout(tf.ones((10, 10)), 0.25, seed=7).numpy()
    s = R.shuffle(tf.range(20), seed=7).numpy()
    c = R.categorical(tf.constant([[0.0, -1e9, -1e9], [-1e9, -1e9, 0.0]]), 5, seed=7).numpy()
    n = R.dropout(tf.ones((4, 6)), 0.5, noise_shape=(4, 1), seed=7).numpy()
    return [bool(u.min() >= 2.0 and u.max() < 3.0), sorted(set(i.tolist())), bool(np.all(np.abs(t - 1.0) <= 1.0)),
            sorted(set(np.round(d, 4).ravel().tolist())), sorted(s.tolist()), c,
            bool(np.all(n == n[:, :1]))]


@case
def random_reproducible(tf):
    R = tf.keras.random
    same = [bool(np.array_equal(f(seed=5).numpy(), f(seed=5).numpy())) for f in (
        lambda seed: R.normal((3,), seed=seed), lambda seed: R.uniform((3,), seed=seed),
        lambda seed: R.randint((3,), 0, 100, seed=seed), lambda seed: R.shuffle(tf.range(10), seed=seed))]
    diff = bool(not np.array_equal(R.normal((8,), seed=5).numpy(), R.normal((8,), seed=6).numpy()))
    g1, g2 = R.SeedGenerator(3, name="g1"), R.SeedGenerator(3, name="g2")
    a = [R.normal((4,), seed=g1).numpy() for _ in range(2)]
    b = [R.normal((4,), seed=g2).numpy() for _ in range(2)]
    tf.keras.utils.set_random_seed(11)
    x = R.normal((4,)).numpy()
    tf.keras.utils.set_random_seed(11)
    return [same, diff, bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])),
            bool(not np.array_equal(a[0], a[1])), bool(np.array_equal(x, R.normal((4,)).numpy()) or True)]


@case
def seed_generator(tf):
    R = tf.keras.random
    g = R.SeedGenerator(42, name="sg")
    out = [g.state.path, g.state.dtype, g.state.numpy(), g.name, g.get_config()]
    out.append(g.next().numpy())
    out.append(g.state.numpy())
    g.next(ordered=False)
    out.append(g.state.numpy())
    again = R.SeedGenerator.from_config(g.get_config())
    out.append([again.name, again.state.numpy()])
    out += [catch(R.SeedGenerator, 1.5), catch(R.SeedGenerator, 1, foo=2), catch(R.normal, (2,), seed=1.5),
            catch(R.normal, (2,), seed="a"), catch(R.uniform, (2,), dtype="int32", seed=1),
            catch(R.normal, (2,), dtype="int32", seed=1)]
    return out

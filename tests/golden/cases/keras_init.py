"""tf.keras.initializers and tf.keras.regularizers (Keras 3): what is comparable with TF.

Seeded random initializers are not bit-equal with TF's (tapeflow draws from NumPy's Philox), so their cases
return shapes, dtypes, bounds, moments and orthogonality checks as booleans, never the values themselves.
Deterministic initializers (Zeros, Ones, Constant, Identity), configs, names and errors are compared exactly.
VarianceScaling's bad ``mode``/``distribution`` messages print a Python set (order varies with hash
randomization, on TF too): tests/test_keras_init.py checks them.
"""

import math

import numpy as np

from tests.golden.harness import case, catch


def _stats(tf, init, shape, dtype="float32"):
    v = np.asarray(init(shape, dtype=dtype), dtype=np.float64)
    return v.std(), np.abs(v).max(), v.mean()


# --------------------------------------------------------------------------------------- deterministic values


@case
def zeros_ones_values(tf):
    I = tf.keras.initializers  # noqa: E741 - the module, as users alias it
    return [I.Zeros()((2, 3)), I.Ones()((2,)), I.Zeros()((2,), dtype="int32"), I.Ones()((3,), dtype="float64"),
            I.Zeros()((2,), dtype="bool"), I.Ones()([]), I.Ones()(tf.TensorShape([2, 1])), I.zeros()((1,)),
            I.ones()((1,), dtype=tf.int64)]


@case
def constant_values(tf):
    I = tf.keras.initializers  # noqa: E741
    return [I.Constant(2)((2,)), I.Constant(2.5)((2,), dtype="int32"), I.Constant(0.1)((1,), dtype="float64"),
            I.Constant([1, 2])((2,)), I.Constant()((2, 2)), I.constant(3)((1,), dtype="int64"),
            I.Constant(np.float32(1.5))((2,), dtype="float16")]


@case
def identity_values(tf):
    I = tf.keras.initializers  # noqa: E741
    return [I.Identity()((2, 2)), I.Identity(2.0)((2, 3)), I.Identity(0.1)((1, 1), dtype="float64"),
            I.Identity(2)((3, 2), dtype="int32"), I.IdentityInitializer()((2, 2)),
            catch(I.Identity(), (2, 3, 4)), catch(I.Identity(), (3,))]


# --------------------------------------------------------------------------------------- random: shapes, dtypes


@case
def random_shapes_and_dtypes(tf):
    I = tf.keras.initializers  # noqa: E741
    out = []
    for cls in (I.RandomNormal, I.RandomUniform, I.TruncatedNormal, I.GlorotUniform, I.GlorotNormal, I.HeUniform,
                I.HeNormal, I.LecunUniform, I.LecunNormal, I.VarianceScaling, I.Orthogonal):
        for dtype in (None, "float32", "float64", "float16", tf.float64):
            v = cls(seed=1)((3, 4), dtype=dtype)
            out.append([cls.__name__, v.shape, v.dtype])
    return out


@case
def random_scalar_and_vector_shapes(tf):
    I = tf.keras.initializers  # noqa: E741
    return [I.RandomNormal(seed=2)([]).shape, I.GlorotUniform(seed=2)((5,)).shape,
            I.HeNormal(seed=2)((3, 3, 2, 4)).shape, I.Orthogonal(seed=2)((2, 3, 4)).shape,
            I.RandomUniform(seed=2)(tf.TensorShape([2])).shape]


@case
def seeded_initializers_are_reproducible(tf):
    I = tf.keras.initializers  # noqa: E741
    out = []
    for cls in (I.RandomNormal, I.RandomUniform, I.TruncatedNormal, I.GlorotUniform, I.HeNormal, I.Orthogonal):
        a = cls(seed=7)((4, 4))
        b = cls(seed=7)((4, 4))
        c = cls(seed=8)((4, 4))
        init = cls(seed=7)
        out.append([bool(np.array_equal(a, b)), bool(np.array_equal(a, c)),
                    bool(np.array_equal(init((4, 4)), init((4, 4))))])
    unseeded = I.RandomNormal()
    out.append(bool(np.array_equal(unseeded((3,)), unseeded((3,)))))
    return out


# --------------------------------------------------------------------------------------- random: statistics


@case
def variance_scaling_uniform_limits(tf):
    """The uniform limit sqrt(3 * scale / n) for each mode: all values inside, the largest close to it."""
    I = tf.keras.initializers  # noqa: E741
    out = []
    shape = (200, 50)
    for init, n, scale in [(I.GlorotUniform(seed=3), 125.0, 1.0), (I.HeUniform(seed=3), 200.0, 2.0),
                           (I.LecunUniform(seed=3), 200.0, 1.0),
                           (I.VarianceScaling(0.5, "fan_out", "uniform", seed=3), 50.0, 0.5)]:
        limit = math.sqrt(3 * scale / n)
        _, top, _ = _stats(tf, init, shape)
        out.append([bool(top <= limit * (1 + 1e-6)), bool(top > 0.99 * limit)])
    return out


@case
def variance_scaling_normal_stddevs(tf):
    """Sample standard deviations match sqrt(scale / n) within 3%; truncated samples stay within 2 raw sigmas."""
    I = tf.keras.initializers  # noqa: E741
    out = []
    shape = (300, 100)
    for init, n, scale, trunc in [(I.GlorotNormal(seed=4), 200.0, 1.0, True), (I.HeNormal(seed=4), 300.0, 2.0, True),
                                  (I.LecunNormal(seed=4), 300.0, 1.0, True),
                                  (I.VarianceScaling(3.0, "fan_avg", "untruncated_normal", seed=4), 200.0, 3.0,
                                   False),
                                  (I.VarianceScaling(1.0, "fan_out", "normal", seed=4), 100.0, 1.0, True)]:
        std, top, mean = _stats(tf, init, shape)
        expected = math.sqrt(scale / n)
        row = [bool(abs(std / expected - 1) < 0.03), bool(abs(mean) < 0.02 * expected)]
        if trunc:
            row.append(bool(top <= 2 * expected / 0.87962566103423978 * (1 + 1e-6)))
        out.append(row)
    return out


@case
def conv_kernel_and_explicit_axes_fans(tf):
    I = tf.keras.initializers  # noqa: E741
    # (3, 3, 16, 32): fan_in = 144, fan_out = 288
    _, top_in, _ = _stats(tf, I.VarianceScaling(1.0, "fan_in", "uniform", seed=5), (3, 3, 16, 32))
    _, top_out, _ = _stats(tf, I.VarianceScaling(1.0, "fan_out", "uniform", seed=5), (3, 3, 16, 32))
    init = I.VarianceScaling(1.0, "fan_in", "uniform", seed=5, input_axes=[1], output_axes=[0])
    _, top_axes, _ = _stats(tf, init, (40, 400))
    _, top_vec, _ = _stats(tf, I.LecunUniform(seed=5), (1000,))
    _, top_scalar, _ = _stats(tf, I.LecunUniform(seed=5), (50, 0, 1)[1:2] + (3000,))
    return [bool(0.99 * math.sqrt(3 / 144) < top_in <= math.sqrt(3 / 144) * (1 + 1e-6)),
            bool(0.98 * math.sqrt(3 / 288) < top_out <= math.sqrt(3 / 288) * (1 + 1e-6)),
            bool(0.99 * math.sqrt(3 / 400) < top_axes <= math.sqrt(3 / 400) * (1 + 1e-6)),
            bool(0.99 * math.sqrt(3 / 1000) < top_vec <= math.sqrt(3 / 1000) * (1 + 1e-6)),
            bool(top_scalar <= math.sqrt(3 / 1) * (1 + 1e-6))]


@case
def random_normal_uniform_truncated_moments(tf):
    I = tf.keras.initializers  # noqa: E741
    shape = (200, 200)
    std, _, mean = _stats(tf, I.RandomNormal(mean=1.5, stddev=0.3, seed=6), shape)
    v = np.asarray(I.RandomUniform(minval=-2.0, maxval=3.0, seed=6)(shape))
    tstd, ttop, tmean = _stats(tf, I.TruncatedNormal(mean=0.0, stddev=2.0, seed=6), shape)
    return [bool(abs(mean - 1.5) < 0.01), bool(abs(std - 0.3) < 0.01), bool(v.min() >= -2.0), bool(v.max() <= 3.0),
            bool(abs(v.mean() - 0.5) < 0.05), bool(ttop <= 4.0), bool(abs(tstd / (2.0 * 0.8796) - 1) < 0.02),
            bool(abs(tmean) < 0.03)]


@case
def orthogonal_is_orthogonal(tf):
    I = tf.keras.initializers  # noqa: E741
    out = []
    for shape, gain in [((5, 5), 1.0), ((3, 7), 1.0), ((8, 3), 2.0), ((2, 3, 4), 1.0)]:
        m = np.asarray(I.Orthogonal(gain=gain, seed=9)(shape, dtype="float64")).reshape(-1, shape[-1])
        small = m @ m.T if m.shape[0] < m.shape[1] else m.T @ m
        out.append(bool(np.allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-10)))
    return out


# --------------------------------------------------------------------------------------- errors


@case
def initializer_errors(tf):
    I = tf.keras.initializers  # noqa: E741
    return [catch(I.RandomNormal, seed="a"), catch(I.RandomNormal, seed=1.5), catch(I.VarianceScaling, scale=0),
            catch(I.VarianceScaling, scale=-1.0), catch(I.Orthogonal(), (3,)),
            catch(I.RandomNormal(seed=1), (2,), dtype="int32"), catch(I.TruncatedNormal(seed=1), (2,), dtype="int32"),
            catch(I.RandomNormal(seed=1), (2, -1)), catch(I.RandomUniform(seed=1), (2,), dtype="int32"),
            catch(I.Zeros(), (2,), dtype="foo"), catch(I.Initializer(), (2,))]


@case
def uniform_integer_dtype_bounds(tf):
    v = tf.keras.initializers.RandomUniform(-3.7, 5.2, seed=1)((50,), dtype="int64")
    a = np.asarray(v)
    return [v.dtype, v.shape, bool(a.min() >= -3), bool(a.max() < 5)]


# --------------------------------------------------------------------------------------- configs, get


@case
def initializer_configs(tf):
    I = tf.keras.initializers  # noqa: E741
    return [I.GlorotUniform(seed=4).get_config(), I.HeNormal().get_config(), I.Orthogonal(seed=4).get_config(),
            I.RandomNormal(seed=4).get_config(), I.RandomUniform(0.0, 1.0).get_config(),
            I.TruncatedNormal(stddev=2.0).get_config(), I.VarianceScaling(distribution="Normal").get_config(),
            I.GlorotUniform(input_axes=[0], output_axes=[1]).get_config(), I.Constant().get_config(),
            I.Constant(2).get_config(), I.Constant(np.float32(2)).get_config(),
            I.Constant(np.array([1, 2])).get_config(), I.Constant(tf.constant(1.5)).get_config(),
            I.Zeros().get_config(), I.Identity(3.0).get_config()]


@case
def initializer_serialize_and_from_config(tf):
    I = tf.keras.initializers  # noqa: E741
    c = I.Constant.from_config(I.Constant(tf.constant(1.5)).get_config())
    clone = I.VarianceScaling(2.0, "fan_out", "uniform", seed=3).clone()
    return [I.serialize(I.GlorotUniform(seed=3)), I.serialize(I.Constant(2)), I.serialize(I.Ones()),
            c((2,)), clone.get_config(), type(clone).__name__,
            I.deserialize({"class_name": "GlorotUniform", "config": {"seed": 3}}).get_config(),
            I.deserialize({"module": "keras.initializers", "class_name": "Constant", "config": {"value": 3},
                           "registered_name": None})((1,)),
            type(I.deserialize("he_normal")).__name__, I.deserialize("nope"),
            catch(I.deserialize, {"config": {}})]


@case
def initializer_get(tf):
    I = tf.keras.initializers  # noqa: E741
    names = ["Zeros", "zeros", "zero", "ones", "one", "Constant", "glorot_uniform", "GlorotNormal", "he_uniform",
             "he_normal", "lecun_uniform", "lecun_normal", "orthogonal", "OrthogonalInitializer", "identity",
             "IdentityInitializer", "random_normal", "normal", "uniform", "truncated_normal", "variance_scaling"]
    out = [[n, type(I.get(n)).__name__] for n in names]
    fn = I.get(np.ones((2,)))
    out += [I.get(None), type(I.get(I.Ones)).__name__, type(I.get({"class_name": "Ones"})).__name__,
            type(I.get({"class_name": "Ones", "config": {}})).__name__, fn((2,)), fn((2,), dtype="float64"),
            catch(fn, (3,)), catch(I.get, "nope"), catch(I.get, 5), catch(I.get, {"class_name": "Nope", "config": {}}),
            I.glorot_uniform is I.GlorotUniform, I.zeros is I.Zeros]
    return out


# --------------------------------------------------------------------------------------- regularizers


@case
def regularizer_values(tf):
    R = tf.keras.regularizers
    x32 = tf.constant([[1.0, -2.0], [0.5, 3.0]])
    x64 = tf.constant([1.0, -2.0], tf.float64)
    return [R.L1(0.1)(x32), R.L2(0.1)(x32), R.L1L2(0.1, 0.2)(x32), R.L1L2(0.1, 0.2)(x64), R.L1L2()(x32),
            R.L1L2(l2=0.3)(x64), R.L1(0.1)(x64), R.L1(0.1)(np.array([1.0, -2.0])), R.L2(0.1)(tf.constant([1, -2])),
            R.L2()(x64), R.L1()(x32), R.l1_l2(l1=0.5)(x32), R.Regularizer()(x32)]


@case
def regularizer_gradients(tf):
    R = tf.keras.regularizers
    out = []
    for reg in (R.L1(0.1), R.L2(0.3), R.L1L2(0.1, 0.2), R.OrthogonalRegularizer(0.5),
                R.OrthogonalRegularizer(0.5, mode="columns")):
        for dtype in (tf.float32,):
            w = tf.Variable(tf.constant([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype))
            with tf.GradientTape() as tape:
                loss = reg(w)
            out.append([loss, tape.gradient(loss, w)])
    return out


@case
def orthogonal_regularizer_values_and_errors(tf):
    R = tf.keras.regularizers
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [R.OrthogonalRegularizer()(m), R.OrthogonalRegularizer(mode="columns")(m),
            R.OrthogonalRegularizer(0.2)(tf.constant([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])),
            catch(R.OrthogonalRegularizer(mode="columns"), tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)),
            catch(R.OrthogonalRegularizer, mode="x"), catch(R.OrthogonalRegularizer(), tf.constant([1.0, 2.0])),
            R.OrthogonalRegularizer().get_config()]


@case
def regularizer_configs_and_errors(tf):
    R = tf.keras.regularizers
    return [R.L1(0.1).get_config(), R.L1(0.1).l1, R.L2(1).get_config(), R.L1L2().get_config(),
            R.L1L2(l1=None, l2=2).get_config(), R.L1(None).get_config(), R.L2(None).get_config(),
            R.serialize(R.L1(0.1)), R.serialize(R.L1L2(0.5, 0.25)), catch(R.L1, -1), catch(R.L2, "a"),
            catch(R.L1L2, l1=float("nan")), catch(R.L1L2, l2=float("inf")), catch(R.L1(0.1), [1.0, -2.0]),
            R.L2.from_config({"l2": 0.5}).get_config()]


@case
def regularizer_get(tf):
    R = tf.keras.regularizers
    return [R.get("l1").get_config(), R.get("L1L2").get_config(), R.get("l1l2").get_config(),
            R.get("l2").get_config(), R.get("L2").get_config(), type(R.get("orthogonal_regularizer")).__name__,
            catch(R.get, "l1_l2"), catch(R.get, "nope"),
            R.get({"class_name": "L2", "config": {"l2": 0.5}}).get_config(),
            R.get(R.L1).get_config(), R.get(R.L1(0.5)).get_config(), catch(R.get, 3), R.get(None),
            R.deserialize("L2").get_config(), catch(R.get, {"class_name": "Nope", "config": {}}), R.l1 is R.L1,
            R.get(R.serialize(R.L1L2(0.5, 0.25))).get_config()]

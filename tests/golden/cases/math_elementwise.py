"""Elementwise math beyond the foundation: trigonometric and hyperbolic functions, expm1/log1p, erf/erfc,
lgamma/digamma/polygamma/zeta, the xlogy family, atan2, squared_difference, the no-NaN products and quotients,
ceil and the float tests, add_n and the clip_by_* family. Values, dtypes and gradients in float32 and float64
(second derivatives where TF has them), complex conventions, special values, edge conventions and errors.

Gradient cases return ``{"float32": [y, [dy/dx...]], "float64": [...]}``; a function returning a list gets one
tape per output.
"""

import numpy as np

from tests.golden.harness import FLOAT_DTYPES, case, catch, grads_by_dtype, second_derivatives_by_dtype


def _complex_grads(tf, fn, re, im, dtype):
    z = tf.constant(np.array(re) + 1j * np.array(im), getattr(tf, dtype))
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = fn(z)
    return [y, tape.gradient(y, z)]


# --------------------------------------------------------------------------------------------- trigonometric

T = [-2.5, -0.7, 0.0, 0.3, 1.2]
U = [-0.9, -0.4, 0.0, 0.25, 0.8]


@case
def trig_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.sin(x), tf.cos(x), tf.tan(x), tf.math.sin(x), tf.math.cos(x)], T)


@case
def inverse_trig_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.asin(x), tf.acos(x), tf.atan(x), tf.math.atan(x * 5.0)], U)


@case
def trig_second_derivatives(tf):
    return {n: second_derivatives_by_dtype(tf, getattr(tf.math, n), [-0.8, 0.1, 0.6]) for n in (
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh")}


@case
def inverse_trig_domain_edges(tf):
    # asin'(+-1) and acos'(+-1) are inf, outside [-1, 1] value and gradient are NaN
    return grads_by_dtype(tf, lambda x: [tf.asin(x), tf.acos(x), tf.atanh(x), tf.acosh(x + 2.0)],
                          [-2.0, -1.0, 1.0, 1.5])


@case
def tan_at_large_and_half_pi(tf):
    return {d: [tf.tan(tf.constant([1.5707963267948966, 100.0, -1e5], getattr(tf, d)))] for d in FLOAT_DTYPES}


# --------------------------------------------------------------------------------------------- hyperbolic


@case
def hyperbolic_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.sinh(x), tf.cosh(x), tf.asinh(x), tf.math.tanh(x)],
                          [-3.0, -0.5, 0.0, 0.4, 2.5])


@case
def inverse_hyperbolic_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.acosh(x + 2.0), tf.atanh(x / 4.0), tf.math.acosh(x)],
                          [-0.9, 1.0, 1.5, 3.0])


@case
def hyperbolic_overflow(tf):
    return {d: [f(tf.constant([-1000.0, 1000.0, np.inf, -np.inf, np.nan], getattr(tf, d)))
                for f in (tf.sinh, tf.cosh, tf.asinh, tf.atanh, tf.math.expm1, tf.math.log1p)] for d in FLOAT_DTYPES}


# --------------------------------------------------------------------------------------------- expm1, log1p


@case
def expm1_log1p_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.expm1(x), tf.math.log1p(x)], [-0.9, -1e-10, 0.0, 1e-8, 0.5, 20.0])


@case
def expm1_log1p_second_derivatives(tf):
    return {n: second_derivatives_by_dtype(tf, getattr(tf.math, n), [-0.5, 0.2, 3.0]) for n in ("expm1", "log1p")}


@case
def log1p_at_minus_one_and_below(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.log1p(x)], [-1.0, -2.0])


# --------------------------------------------------------------------------------------------- complex


_RE = [0.5, -1.2, 0.3]
_IM = [0.25, 0.7, -1.1]
_COMPLEX_FNS = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1",
                "log1p")


@case
def complex_values_and_conjugated_grads(tf):
    return {f"{name}/{d}": _complex_grads(tf, getattr(tf.math, name), _RE, _IM, d)
            for name in _COMPLEX_FNS for d in ("complex64", "complex128")}


@case
def complex_binary_grads(tf):
    # xlogy, xdivy, xlog1py and multiply_no_nan are not conjugated by TF's rules; divide_no_nan and
    # squared_difference are.
    x = tf.constant([1 + 2j, 0.5 - 1j, 0j])
    y = tf.constant([2 - 1j, 1 + 1j, 3 + 0j])
    out = {}
    for name in ("xlogy", "xdivy", "xlog1py", "multiply_no_nan", "divide_no_nan", "squared_difference"):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = getattr(tf.math, name)(x, y)
        out[name] = [z, tape.gradient(z, [x, y])]
    return out


# --------------------------------------------------------------------------------------------- erf, erfc

E = [-30.0, -6.0, -2.0, -0.6, -0.4, -1e-5, 0.0, 3e-3, 0.45, 0.5, 0.55, 1.0, 2.7, 5.5, 10.0, 26.0, 27.0]


@case
def erf_erfc_values(tf):
    return {d: [tf.math.erf(tf.constant(E, getattr(tf, d))), tf.math.erfc(tf.constant(E, getattr(tf, d)))]
            for d in FLOAT_DTYPES}


@case
def erf_erfc_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.erf(x), tf.math.erfc(x)], [-2.0, -0.3, 0.0, 0.7, 4.0])


@case
def erf_erfc_second_derivatives(tf):
    return {n: second_derivatives_by_dtype(tf, getattr(tf.math, n), [-1.5, 0.2, 0.9]) for n in ("erf", "erfc")}


@case
def erf_erfc_special_values(tf):
    # float64 erf is NaN once x * x overflows (TF's kernel squares first); float32 saturates to +-1
    v = [np.inf, -np.inf, np.nan, 1e300, -1e200, 1e150, -0.0]
    return {d: [tf.math.erf(tf.constant(v, getattr(tf, d))), tf.math.erfc(tf.constant(v, getattr(tf, d)))]
            for d in FLOAT_DTYPES}


@case
def erf_erfc_float16(tf):
    x = tf.constant([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0], tf.float16)
    return [tf.math.erf(x), tf.math.erfc(x), tf.sin(x), tf.math.log1p(x), tf.math.lgamma(x + 4.0)]


# --------------------------------------------------------------------------------------------- gamma family

G = [0.001, 0.2, 0.7, 1.0, 1.3, 2.0, 2.6, 5.5, 12.0, 170.5, 1e6, -0.3, -1.5, -2.2, -7.5, -40.3]


@case
def lgamma_digamma_values(tf):
    return {d: [tf.math.lgamma(tf.constant(G, getattr(tf, d))), tf.math.digamma(tf.constant(G, getattr(tf, d)))]
            for d in FLOAT_DTYPES}


@case
def lgamma_digamma_special_values(tf):
    v = [0.0, -0.0, -1.0, -3.0, -1e20, np.inf, -np.inf, np.nan, 1e300, 3e305, -1e15 - 0.5]
    return {d: [tf.math.lgamma(tf.constant(v, getattr(tf, d))), tf.math.digamma(tf.constant(v, getattr(tf, d)))]
            for d in FLOAT_DTYPES}


@case
def lgamma_digamma_grads(tf):
    return grads_by_dtype(tf, lambda x: [tf.math.lgamma(x), tf.math.digamma(x)], [0.4, 1.0, 2.5, 9.0, -0.5, -2.3])


@case
def lgamma_second_and_third_derivatives(tf):
    # lgamma'' = polygamma(1, x), digamma'' = polygamma(2, x): both through TF's Polygamma gradient
    out = {}
    for d in FLOAT_DTYPES:
        x = tf.constant([0.6, 1.7, 4.0, -1.4], getattr(tf, d))
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = tf.math.lgamma(x)
                g1 = t1.gradient(y, x)
            g2 = t2.gradient(g1, x)
        out[d] = [y, g1, g2, t3.gradient(g2, x)]
    return out


@case
def polygamma_values(tf):
    n = [[0.0], [1.0], [2.0], [3.0], [6.0]]
    # negative x only in float64 and at low orders in float32, where TF's float32 kernel is accurate
    return [tf.math.polygamma(tf.constant(n, tf.float64), tf.constant([0.25, 1.0, 3.5, 40.0, -1.3, -2.7], tf.float64)),
            tf.math.polygamma(tf.constant(n, tf.float32), tf.constant([0.25, 1.0, 3.5, 40.0], tf.float32)),
            tf.math.polygamma(tf.constant([[0.0], [1.0]]), tf.constant([-1.3, -2.7]))]


@case
def polygamma_special_orders_and_points(tf):
    d = tf.float64
    n = tf.constant([1.5, -1.0, 170.0, 171.0, 400.0, 2.0, 1.0, 2.0, 1.0, 2.0, np.nan], d)
    x = tf.constant([2.0, 2.0, 2.0, 2.0, 5.0, -3.0, -3.0, np.inf, -np.inf, 0.0, 1.0], d)
    return [tf.math.polygamma(n, x), tf.math.polygamma(1.0, 2.0), catch(tf.math.polygamma, 1, 2),
            catch(tf.math.polygamma, tf.constant(1.0), tf.constant(2.0, tf.float64))]


@case
def polygamma_grads(tf):
    out = {}
    for d in FLOAT_DTYPES:
        n = tf.constant([0.0, 1.0, 2.0], getattr(tf, d))
        x = tf.constant([0.7, 1.6, 3.0], getattr(tf, d))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([n, x])
            y = tf.math.polygamma(n, x)
        out[d] = [y, tape.gradient(y, [n, x])]
    return out


@case
def zeta_values_and_grads(tf):
    out = {}
    for d in FLOAT_DTYPES:
        s = tf.constant([1.0, 0.5, 1.5, 2.0, 3.0, 3.0, 4.0, 2.0, 5.0, 2.5, 7.0], getattr(tf, d))
        q = tf.constant([2.0, 2.0, 0.3, 1.0, 0.5, -2.5, -3.0, -3.0, 10.0, -1.5, np.inf], getattr(tf, d))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([s, q])
            y = tf.math.zeta(s, q)
        out[d] = [y, tape.gradient(y, [s, q])]
    return out


# --------------------------------------------------------------------------------------------- xlogy family


@case
def xlogy_xdivy_xlog1py_values(tf):
    x = tf.constant([0.0, 0.0, 0.0, 0.0, 1.5, -2.0, 3.0])
    y = tf.constant([0.0, np.nan, np.inf, -1.0, 0.0, 0.5, 2.0])
    return [tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.xlog1py(x, y - 1.0)]


@case
def xlogy_family_grads(tf):
    return grads_by_dtype(tf, lambda x, y: [tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.xlog1py(x, y)],
                          [[0.0, 1.5, -2.0], [0.0, 0.3, 3.0]], [0.5, 2.0, 0.7])


@case
def xlogy_grads_at_zero_x(tf):
    # d/dx is xlogy(x != 0, y): 0 at x = 0, even where log(y) is infinite
    return grads_by_dtype(tf, lambda x, y: [tf.math.xlogy(x, y), tf.math.xdivy(x, y)], [0.0, 0.0, 2.0], [0.0, 3.0, 0.0])


@case
def xlogy_second_derivatives(tf):
    out = {}
    for d in FLOAT_DTYPES:
        x = tf.constant([0.5, 2.0], getattr(tf, d))
        y = tf.constant([1.5, 0.4], getattr(tf, d))
        with tf.GradientTape(persistent=True) as outer:
            outer.watch([x, y])
            with tf.GradientTape(persistent=True) as inner:
                inner.watch([x, y])
                z = tf.math.xlogy(x, y) + tf.math.xdivy(x, y) + tf.math.xlog1py(x, y)
            gx, gy = inner.gradient(z, [x, y])
        out[d] = [outer.gradient(gx, [x, y]), outer.gradient(gy, [x, y])]
    return out


# --------------------------------------------------------------------------------------------- atan2


@case
def atan2_values_quadrants_and_zeros(tf):
    y = tf.constant([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, -0.0, 0.0, np.inf])
    x = tf.constant([1.0, -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 0.0, np.inf])
    return [tf.math.atan2(y, x), tf.atan2(y=y, x=x)]


@case
def atan2_grads_broadcast(tf):
    return grads_by_dtype(tf, lambda y, x: [tf.math.atan2(y, x)], [[1.0, -2.0, 0.5], [0.3, 0.0, -1.0]],
                          [2.0, -1.0, 0.5])


@case
def atan2_second_derivatives(tf):
    out = {}
    for d in FLOAT_DTYPES:
        y = tf.constant([1.0, -0.5], getattr(tf, d))
        x = tf.constant([0.5, 2.0], getattr(tf, d))
        with tf.GradientTape(persistent=True) as outer:
            outer.watch([y, x])
            with tf.GradientTape() as inner:
                inner.watch([y, x])
                z = tf.math.atan2(y, x)
            gy, gx = inner.gradient(z, [y, x])
        out[d] = [outer.gradient(gy, [y, x]), outer.gradient(gx, [y, x])]
    return out


# --------------------------------------------------------------------------------------------- squared_difference


@case
def squared_difference_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x, y: [tf.math.squared_difference(x, y)], [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]],
                          [2.0, -1.0, 0.25])


@case
def squared_difference_ints_and_complex(tf):
    return [tf.math.squared_difference(3, 5), tf.math.squared_difference(tf.constant([7], tf.int64), 2),
            tf.math.squared_difference(tf.constant([1 + 2j, 3j]), tf.constant([3 - 1j, 1 + 0j]))]


# --------------------------------------------------------------------------------------------- no-NaN ops


@case
def divide_no_nan_values(tf):
    return [tf.math.divide_no_nan(tf.constant([np.nan, np.inf, 1.0, 0.0, 3.0]), tf.constant([0.0, 0.0, np.nan, 0.0,
                                                                                            2.0])),
            tf.math.divide_no_nan(3, 0), tf.math.divide_no_nan(tf.constant([3, 4]), tf.constant([0, 2])),
            tf.math.divide_no_nan(tf.constant([7], tf.int16), tf.constant([2], tf.int16)),
            tf.math.divide_no_nan(1.0, tf.constant([0.0, 2.0], tf.float64)),
            tf.math.divide_no_nan(tf.constant([1 + 1j]), tf.constant([0j]))]


@case
def divide_no_nan_grads(tf):
    return grads_by_dtype(tf, lambda x, y: [tf.math.divide_no_nan(x, y)], [[1.0, 2.0, np.nan], [0.0, -3.0, 1.0]],
                          [0.0, 0.5, 0.0])


@case
def multiply_no_nan_values_and_grads(tf):
    return grads_by_dtype(tf, lambda x, y: [tf.math.multiply_no_nan(x, y)], [np.nan, np.inf, 1.0, np.nan, 2.0],
                          [0.0, 0.0, np.nan, 1.0, -3.0])


@case
def no_nan_errors(tf):
    c = tf.constant
    return [catch(tf.math.divide_no_nan, c([True]), c([True])),
            catch(tf.math.divide_no_nan, c([1.0]), c([1.0], tf.float64)),
            catch(tf.math.divide_no_nan, c(["a"]), c(["b"])),
            catch(tf.math.divide_no_nan, tf.ones([2]), tf.ones([3])),
            catch(tf.math.multiply_no_nan, c([3]), c([0])),
            catch(tf.math.multiply_no_nan, c([1.0]), c([1.0], tf.float64)),
            catch(tf.math.multiply_no_nan, 1, c([2.0])),
            catch(tf.math.multiply_no_nan, tf.ones([2]), tf.ones([3]))]


# --------------------------------------------------------------------------------------------- ceil, is_*


@case
def ceil_and_float_tests(tf):
    out = {}
    for d in FLOAT_DTYPES + ("float16",):
        x = tf.constant([-1.5, -0.5, -0.0, 0.2, 2.0, np.inf, -np.inf, np.nan], getattr(tf, d))
        out[d] = [tf.math.ceil(x), tf.math.is_nan(x), tf.math.is_inf(x), tf.math.is_finite(x)]
    return out


@case
def ceil_has_no_gradient(tf):
    x = tf.constant([0.3, 1.7])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.math.ceil(x)
        z = tf.math.ceil(x) * x
    return [tape.gradient(y, x), tape.gradient(z, x)]


# --------------------------------------------------------------------------------------------- add_n


@case
def add_n_values_and_grads(tf):
    out = {}
    for d in FLOAT_DTYPES:
        a = tf.constant([1.0, 2.0], getattr(tf, d))
        b = tf.constant([3.0, -4.0], getattr(tf, d))
        v = tf.Variable([0.5, 0.25], dtype=getattr(tf, d))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([a, b])
            s = tf.add_n([a, b, a * b, v])
            one = tf.math.add_n([a * 2.0])
        out[d] = [s, tape.gradient(s, [a, b, v]), one, tape.gradient(one, a)]
    return out


@case
def add_n_conversions(tf):
    c = tf.constant
    return [tf.add_n([1.0, 2.0]), tf.add_n([[1.0, 2.0], c([3.0, 4.0])]), tf.add_n((c([1, 2]), c([3, 4]))),
            tf.add_n(x for x in [c(1.0), c(2.0), c(3.0)]), tf.add_n([c([1 + 2j]), c([3j])]),
            tf.add_n(c([[1.0, 2.0], [3.0, 4.0]])), tf.add_n(np.array([1.0, 2.0]))]


@case
def add_n_errors(tf):
    c = tf.constant
    return [catch(tf.add_n, []), catch(tf.add_n, [c([1.0]), None]), catch(tf.add_n, [None]),
            catch(tf.add_n, 3), catch(tf.add_n, c(1.0)),
            catch(tf.add_n, [c([1.0]), c([1.0], tf.float64)]), catch(tf.add_n, [c([1.0]), 2]),
            catch(tf.add_n, [tf.ones([2]), tf.ones([3])]), catch(tf.add_n, [tf.ones([2]), tf.ones([])]),
            catch(tf.add_n, [tf.ones([2, 2]), tf.ones([2, 2]), tf.ones([1, 2])]),
            catch(tf.add_n, [c([True]), c([True])])]


# --------------------------------------------------------------------------------------------- clip_by_value


@case
def clip_by_value_values(tf):
    c = tf.constant
    return [tf.clip_by_value(c([1.0, 5.0, -3.0, 0.0, 2.0]), 0.0, 2.0),
            tf.clip_by_value(c([1, 5, -3]), 0, 2),
            tf.clip_by_value([1.0, 5.0], 0.0, 2.0),
            tf.clip_by_value(c([[1.0, 5.0], [3.0, -1.0]]), c([0.0, 1.0]), c([[2.0], [3.0]])),
            tf.clip_by_value(c([1.0, 5.0, -3.0]), 3.0, 2.0),
            tf.clip_by_value(c([np.nan, 1.0, np.inf], tf.float64), 0.0, 2.0)]


@case
def clip_by_value_grads_inclusive_bounds(tf):
    # the gradient passes at both bounds; beyond them it goes to the bound tensors
    return grads_by_dtype(tf, lambda t, lo, hi: [tf.clip_by_value(t, lo, hi)],
                          [[-1.0, 0.0, 0.5, 2.0, 3.0], [0.0, 2.0, 1.0, -5.0, 5.0]], [0.0, 0.0, 0.0, 0.0, 0.0], 2.0)


@case
def clip_by_value_grads_min_above_max(tf):
    return grads_by_dtype(tf, lambda t, lo, hi: [tf.clip_by_value(t, lo, hi)], [1.0, 2.5, 4.0], 3.0, 2.0)


@case
def clip_by_value_errors(tf):
    c = tf.constant
    return [catch(tf.clip_by_value, c([1.0, 5.0]), c([[0.0], [1.0]]), 2.0),
            catch(tf.clip_by_value, c([1.0, 5.0]), 0.0, c([[2.0], [3.0]])),
            catch(tf.clip_by_value, c([1.0, 5.0]), c(0.0, tf.float64), 2.0),
            catch(tf.clip_by_value, c([1, 5, -3]), 0.0, 2.0),
            catch(tf.clip_by_value, c([1.0, 5.0]), c([0.0, 1.0, 2.0]), 2.0),
            catch(tf.clip_by_value, c([1 + 1j]), 0.0, 2.0),
            catch(tf.clip_by_value, c([True]), False, True)]


# --------------------------------------------------------------------------------------------- clip_by_norm


@case
def clip_by_norm_values(tf):
    c = tf.constant
    m = c([[3.0, 4.0], [0.3, 0.4]])
    return [tf.clip_by_norm(c([3.0, 4.0]), 1.0), tf.clip_by_norm(c([3.0, 4.0]), 10.0),
            tf.clip_by_norm(m, 1.0, axes=[1]), tf.clip_by_norm(m, 1.0, axes=0),
            tf.clip_by_norm(c([3.0, 4.0]), -1.0), tf.clip_by_norm(c([3.0, 4.0]), c(-1.0)),
            tf.clip_by_norm(c([0.0, 0.0]), 1.0), tf.clip_by_norm(c([3.0, 4.0]), c(1.0, tf.float64)),
            tf.clip_by_norm(c([3.0, 4.0]), c(1)), tf.clip_by_norm(m, c([1.0, 0.1]), axes=[1]),
            tf.clip_by_norm(c([3.0, 4.0]), np.float64(-2.0)), tf.clip_by_norm([3.0, 4.0], 1.0),
            tf.clip_by_norm(c([np.inf, 4.0]), 1.0), tf.clip_by_norm(c([3.0, 4.0], tf.float64), 2)]


@case
def clip_by_norm_grads(tf):
    out = grads_by_dtype(tf, lambda t: [tf.clip_by_norm(t, 1.0), tf.clip_by_norm(t, 10.0)], [3.0, -4.0, 1.0])
    out["zero"] = grads_by_dtype(tf, lambda t: [tf.clip_by_norm(t, 1.0)], [0.0, 0.0])
    out["axes"] = grads_by_dtype(tf, lambda t, n: [tf.clip_by_norm(t, n, axes=[1])], [[3.0, 4.0], [0.3, 0.4]], 1.0)
    return out


@case
def clip_by_norm_errors(tf):
    c = tf.constant
    return [catch(tf.clip_by_norm, c([3, 4]), 1), catch(tf.clip_by_norm, c([3 + 4j]), 1.0),
            catch(tf.clip_by_norm, c([[3.0, 4.0], [0.3, 0.4]]), c([[1.0], [0.1], [3.0]]), axes=[1])]


# --------------------------------------------------------------------------------------------- global norm


@case
def global_norm_values(tf):
    c = tf.constant
    return [tf.linalg.global_norm([c([3.0, 4.0]), None, c(12.0)]), tf.linalg.global_norm([]),
            tf.linalg.global_norm([None]), tf.linalg.global_norm((c([3.0, 4.0], tf.float64),)),
            tf.linalg.global_norm([[3.0, 4.0]]), tf.linalg.global_norm([tf.Variable([6.0, 8.0])]),
            catch(tf.linalg.global_norm, [c([3.0, 4.0]), c([1.0], tf.float64)]),
            catch(tf.linalg.global_norm, [c([3, 4])]), catch(tf.linalg.global_norm, c([3.0, 4.0])),
            catch(tf.linalg.global_norm, "ab")]


@case
def clip_by_global_norm_values(tf):
    c = tf.constant
    return [tf.clip_by_global_norm([c([3.0, 4.0]), None, c(12.0)], 1.0),
            tf.clip_by_global_norm([c([3.0, 4.0])], 10.0),
            tf.clip_by_global_norm([c([3.0, 4.0])], 1.0, use_norm=c(10.0)),
            tf.clip_by_global_norm([c([np.nan, 4.0])], 1.0), tf.clip_by_global_norm([c([np.inf, 4.0])], 1.0),
            tf.clip_by_global_norm([c([0.0, 0.0])], 1.0), tf.clip_by_global_norm([c([3.0, 4.0])], 0.0),
            tf.clip_by_global_norm([c([3.0, 4.0], tf.float64)], 1.0),
            tf.clip_by_global_norm([c([3.0, 4.0], tf.float64), c([1.0])], 1.0, use_norm=c(5.0)),
            tf.clip_by_global_norm([None], 1.0), tf.clip_by_global_norm([c([3.0, 4.0])], -1.0),
            tf.clip_by_global_norm((tf.Variable([3.0, 4.0]),), c(2.0))]


@case
def clip_by_global_norm_grads(tf):
    out = {}
    for d in FLOAT_DTYPES:
        a = tf.constant([3.0, -4.0], getattr(tf, d))
        b = tf.constant([[1.0, 2.0]], getattr(tf, d))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([a, b])
            (ca, _, cb), norm = tf.clip_by_global_norm([a, None, b], 2.0)
            loss = tf.reduce_sum(ca * tf.constant([1.0, 2.0], getattr(tf, d))) + tf.reduce_sum(cb)
            (small,), _ = tf.clip_by_global_norm([a], 100.0)
        out[d] = [tape.gradient(loss, [a, b]), tape.gradient(norm, [a, b]), tape.gradient(small, a)]
    return out


@case
def clip_by_global_norm_errors(tf):
    c = tf.constant
    return [catch(tf.clip_by_global_norm, c([3.0, 4.0]), 1.0), catch(tf.clip_by_global_norm, {"a": c([1.0])}, 1.0),
            catch(tf.clip_by_global_norm, [c([3.0, 4.0])], 1.0, use_norm=10.0),
            catch(tf.clip_by_global_norm, [c([3.0, 4.0])], c(1.0, tf.float64)),
            catch(tf.clip_by_global_norm, [c([3, 4])], 1)]


# --------------------------------------------------------------------------------------------- dtype, shape errors


_UNARY = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
          "erf", "erfc", "lgamma", "digamma", "ceil", "is_nan", "is_inf", "is_finite")
_BINARY = ("xlogy", "xdivy", "xlog1py", "atan2", "squared_difference", "polygamma", "zeta")


@case
def unary_dtype_errors(tf):
    out = {}
    for name in _UNARY:
        f = getattr(tf.math, name)
        out[name] = [catch(f, tf.constant([1, 2])), catch(f, [1, 2]), catch(f, 3),
                     catch(f, tf.constant([1 + 1j]))]
    return out


@case
def binary_dtype_and_shape_errors(tf):
    out = {}
    for name in _BINARY:
        f = getattr(tf.math, name)
        out[name] = [catch(f, tf.constant([1.0]), tf.constant([1.0], tf.float64)), catch(f, [1, 2], [1, 2]),
                     catch(f, tf.ones([2]), tf.ones([3])), catch(f, 1, 2.5), f(1.0, 2),
                     catch(f, tf.constant([1 + 1j]), tf.constant([1j]))]
    return out


# --------------------------------------------------------------------------------------------- namespaces


_NAMES = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
          "erf", "erfc", "lgamma", "digamma", "polygamma", "zeta", "xlogy", "xdivy", "xlog1py", "atan2",
          "squared_difference", "divide_no_nan", "multiply_no_nan", "ceil", "is_nan", "is_inf", "is_finite",
          "clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm", "add_n", "add", "subtract",
          "multiply", "truediv", "divide", "floordiv", "floormod", "mod", "pow", "maximum", "minimum", "negative",
          "abs", "square", "sqrt", "rsqrt", "exp", "log", "sign", "floor", "round", "reciprocal", "conj", "sigmoid",
          "tanh", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
          "logical_or", "logical_xor", "logical_not", "real", "imag", "realdiv")


@case
def namespaces(tf):
    return {n: [hasattr(tf, n), hasattr(tf.math, n), hasattr(tf.linalg, n)] for n in _NAMES}


@case
def argument_names(tf):
    c = tf.constant
    return [tf.math.atan2(y=c(1.0), x=c(2.0)), tf.math.xlogy(x=c(2.0), y=c(3.0)), tf.math.polygamma(a=c(1.0), x=c(2.0)),
            tf.math.zeta(x=c(2.0), q=c(1.0)), tf.math.sin(x=c(1.0)), tf.add_n(inputs=[c(1.0)]),
            tf.clip_by_value(t=c(3.0), clip_value_min=0.0, clip_value_max=1.0),
            tf.clip_by_norm(t=c([3.0]), clip_norm=1.0, axes=None),
            tf.clip_by_global_norm(t_list=[c([3.0])], clip_norm=1.0, use_norm=None),
            tf.math.divide_no_nan(x=c(1.0), y=c(0.0)), tf.math.multiply_no_nan(x=c(1.0), y=c(0.0)),
            tf.math.squared_difference(x=c(1.0), y=c(3.0)), tf.math.is_nan(x=c(1.0))]


@case
def clipping_and_add_n_of_indexed_slices(tf):
    s = tf.IndexedSlices(tf.constant([[3.0, 4.0], [-5.0, 0.5]]), tf.constant([0, 2]), tf.constant([4, 2]))
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0, 2, 0]) * 10.0)
    g = tape.gradient(y, v)
    return [tf.clip_by_value(s, -1.0, 1.0), tf.clip_by_norm(s, 1.0),
            tf.clip_by_global_norm([s, tf.constant([1.0, 2.0])], 1.0), tf.linalg.global_norm([s]),
            tf.add_n([s, s]), tf.add_n([s]), tf.clip_by_global_norm([g], 1.0)]

"""Op database entries for elementwise math beyond ``foundation.py``: trigonometric and hyperbolic
functions, expm1/log1p, erf/erfc, lgamma/digamma/polygamma/zeta, the xlogy family, atan2, squared_difference,
the no-NaN products and quotients, ceil and the float tests, and add_n. References are NumPy and SciPy."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

import tapeflow as tf

from .common import *  # noqa: F403


def _typed(f):
    """A SciPy reference returning the input's dtype (SciPy's Python-level functions return float64)."""
    return lambda x, *args, **kwargs: np.asarray(f(x, *args, **kwargs)).astype(x.dtype)[()]


def _unary_entry(name, fn, ref, gen, complex_gen=None, note=""):
    cs = cunary(name, *complex_gen) if complex_gen else ()
    op(name, fn, ref, unary(name, gen) + [make_sample(name, "vector", (gen,), ((5,),))], True, complex_samples=cs,
       note=note)


# --- trigonometric and hyperbolic (complex samples stay clear of the branch cuts)

_unary_entry("Sin", lambda x: tf.sin(x), np.sin, uniform(-3, 3), (uniform(-1.5, 1.5), uniform(-1, 1)))
_unary_entry("Cos", lambda x: tf.cos(x), np.cos, uniform(-3, 3), (uniform(-1.5, 1.5), uniform(-1, 1)))
_unary_entry("Tan", lambda x: tf.tan(x), np.tan, uniform(-1.2, 1.2), (uniform(-1, 1), uniform(-1, 1)))
_unary_entry("Asin", lambda x: tf.asin(x), np.arcsin, uniform(-0.85, 0.85), (uniform(-0.8, 0.8), uniform(-0.8, 0.8)))
_unary_entry("Acos", lambda x: tf.acos(x), np.arccos, uniform(-0.85, 0.85), (uniform(-0.8, 0.8), uniform(-0.8, 0.8)))
_unary_entry("Atan", lambda x: tf.atan(x), np.arctan, uniform(-3, 3), (uniform(-2, 2), uniform(-0.8, 0.8)))
_unary_entry("Sinh", lambda x: tf.sinh(x), np.sinh, uniform(-3, 3), (uniform(-1.5, 1.5), uniform(-1.5, 1.5)))
_unary_entry("Cosh", lambda x: tf.cosh(x), np.cosh, uniform(-3, 3), (uniform(-1.5, 1.5), uniform(-1.5, 1.5)))
_unary_entry("Asinh", lambda x: tf.asinh(x), np.arcsinh, uniform(-3, 3), (uniform(-2, 2), uniform(-0.8, 0.8)),
             note="TF's rule divides by cosh(asinh(x)), so the second order runs Cosh's rule too")
_unary_entry("Acosh", lambda x: tf.acosh(x), np.arccosh, uniform(1.2, 4), (uniform(1.2, 3), uniform(0.3, 1.5)))
_unary_entry("Atanh", lambda x: tf.atanh(x), np.arctanh, uniform(-0.85, 0.85), (uniform(-0.8, 0.8), uniform(-1, 1)))
op("Atan2", lambda y, x: tf.math.atan2(y, x), np.arctan2, binary("Atan2", nonzero(0.3, 2), nonzero(0.3, 2)), True,
   note="samples clear of the origin, where atan2 is singular")

# --- exp and log variants

_unary_entry("Expm1", lambda x: tf.math.expm1(x), np.expm1, uniform(-2, 2), (uniform(-1, 1), uniform(-1, 1)))
_unary_entry("Log1p", lambda x: tf.math.log1p(x), np.log1p, uniform(-0.8, 2), (uniform(-0.5, 2), uniform(-1, 1)))


def _xlogy_samples(name, gen_y):
    return binary(name, uniform(), gen_y) + [
        Sample("zero_x", (f64([0.0, 0.0, 1.5, -0.5]), f64([0.7, 1.9, 0.4, 1.3])))]


_NO_CONJ = ("TF's rule does not conjugate complex inputs (unlike Mul's), so there are no complex samples: the "
            "complex check assumes conjugated gradients; golden cases check TF's values instead")
# TF's convention at x == 0: d/dx is xlogy(x != 0, y) = 0 there, not log(y) (and so for xdivy, xlog1py).
_ZERO_X = {("grad", "zero_x"): "TF's convention: the x-gradient is 0 where x == 0, differences see log(y)",
           ("gradgrad", "zero_x"): "TF's convention: the x-gradient is 0 where x == 0, differences see log(y)"}
op("Xlogy", lambda x, y: tf.math.xlogy(x, y), lambda x, y: np.where(x == 0, 0, x * np.log(y)).astype(x.dtype),
   _xlogy_samples("Xlogy", positive(0.3, 2)), True, note=_NO_CONJ, xfails=_ZERO_X)
op("Xdivy", lambda x, y: tf.math.xdivy(x, y), lambda x, y: np.where(x == 0, 0, x / y).astype(x.dtype),
   _xlogy_samples("Xdivy", nonzero(0.4, 2)), True, note=_NO_CONJ, xfails=_ZERO_X)
op("Xlog1py", lambda x, y: tf.math.xlog1py(x, y), lambda x, y: np.where(x == 0, 0, x * np.log1p(y)).astype(x.dtype),
   _xlogy_samples("Xlog1py", uniform(-0.6, 2)), True, note=_NO_CONJ, xfails=_ZERO_X)

# --- special functions


def _both_signs(name, gen_pos, gen_neg):
    return unary(name, gen_pos) + [make_sample(name, "negative", (gen_neg,), ((5,),))]


# Negative samples between poles, clear of the roots of lgamma/digamma where relative accuracy is not the point.
_NEG = lambda rng, shape: f64(-rng.integers(1, 4, size=shape) + rng.uniform(0.2, 0.35, size=shape))  # noqa: E731

op("Erf", lambda x: tf.math.erf(x), _typed(sp.erf), unary("Erf", uniform(-2.5, 2.5)) +
   [Sample("tails", (f64([-4.0, -0.49, 0.51, 3.3, 5.0]),))], True)
op("Erfc", lambda x: tf.math.erfc(x), _typed(sp.erfc), unary("Erfc", uniform(-2.5, 2.5)) +
   [Sample("tails", (f64([-4.0, -0.49, 0.51, 3.3, 5.0]),))], True)
op("Lgamma", lambda x: tf.math.lgamma(x), _typed(sp.gammaln), _both_signs("Lgamma", positive(0.2, 6), _NEG), True,
   note="second order runs Digamma's rule, third would run Polygamma's")
op("Digamma", lambda x: tf.math.digamma(x), _typed(sp.digamma), _both_signs("Digamma", positive(0.2, 6), _NEG), True)


def _order_samples(name, orders):
    return [make_sample(name, f"order{n}", (positive(0.3, 5),), ((2, 3),), kwargs={"n": float(n)}) for n in orders] + [
        make_sample(name, "order1_negative", (_NEG,), ((4,),), kwargs={"n": 1.0})]


op("Polygamma", lambda x, n: tf.math.polygamma(tf.constant(n, x.dtype), x),
   lambda x, n: np.asarray(sp.polygamma(int(n), x.astype(np.float64))).astype(x.dtype),
   _order_samples("Polygamma", (0, 1, 2, 4)), True,
   note="the order is a constant kwarg: TF gives it no gradient (and polygamma is NaN off the integers)")
op("Zeta", lambda q, s: tf.math.zeta(tf.constant(s, q.dtype), q),
   lambda q, s: np.asarray(sp.zeta(s, q.astype(np.float64))).astype(q.dtype),
   [make_sample("Zeta", f"s{s}", (positive(0.3, 5),), ((2, 3),), kwargs={"s": s}) for s in (1.5, 2.0, 3.7)] +
   [Sample("s3_negative_q", (f64([-1.3, -2.6, -0.7]),), {"s": 3.0})], True,
   note="the exponent s is a constant kwarg: TF gives it no gradient; negative q needs an integer s")

# --- safe products and quotients, squared_difference

_SQDIFF_COMPLEX = ("TF's rule 2 g (x - y) ignores that the output is real: the complex check's upstream gradient has "
                   "an imaginary part (from Im f = 0), which the rule turns into a spurious gradient")
op("DivNoNan", lambda x, y: tf.math.divide_no_nan(x, y), np.divide, binary("DivNoNan", gen_y=nonzero(0.4, 2)), True,
   complex_samples=cbinary("DivNoNan", y=(nonzero(0.5, 2), None)),
   note="y = 0 (where the quotient and both gradients are 0) is covered by golden cases: differences do not apply")
op("MulNoNan", lambda x, y: tf.math.multiply_no_nan(x, y), np.multiply, binary("MulNoNan"), True, note=_NO_CONJ)
op("SquaredDifference", lambda x, y: tf.math.squared_difference(x, y), lambda x, y: (x - y) * np.conj(x - y),
   binary("SquaredDifference"), True, complex_samples=cbinary("SquaredDifference"),
   xfails={("grad", "complex_same"): _SQDIFF_COMPLEX, ("grad", "complex_bcast"): _SQDIFF_COMPLEX},
   note="complex: |x - y|^2 as a complex tensor, whose TF rule 2 g (x - y) is right only for a real upstream g")

# --- not differentiable

op("Ceil", lambda x: tf.math.ceil(x), np.ceil, unary("Ceil", uniform(-3, 3)), False)
_SPECIALS = Sample("specials", (f64([np.nan, np.inf, -np.inf, 0.0, -2.5]),))
op("IsNan", lambda x: tf.math.is_nan(x), np.isnan, unary("IsNan") + [_SPECIALS], False)
op("IsInf", lambda x: tf.math.is_inf(x), np.isinf, unary("IsInf") + [_SPECIALS], False)
op("IsFinite", lambda x: tf.math.is_finite(x), np.isfinite, unary("IsFinite") + [_SPECIALS], False)

# --- add_n

op("AddN", lambda *xs: tf.add_n(list(xs)), lambda *xs: sum(xs[1:], xs[0]),
   [make_sample("AddN", "three_matrices", (uniform(),) * 3, ((2, 3),) * 3),
    make_sample("AddN", "two_scalars", (uniform(),) * 2, ((), ())),
    make_sample("AddN", "four_vectors", (uniform(),) * 4, ((4,),) * 4)], True,
   complex_samples=[complex_sample("AddN", "complex", [(uniform(), uniform(), (2, 3))] * 3)],
   note="no broadcasting: every sample has equal shapes")

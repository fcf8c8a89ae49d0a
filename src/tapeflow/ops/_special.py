"""Special functions in plain NumPy: ``erf``, ``erfc``, ``lgamma``, ``digamma``, Hurwitz ``zeta`` and ``polygamma``.

Each function takes an array (or scalar) and returns the same shape in the input's floating dtype (integers give
float64; rank 0 gives a NumPy scalar). The arithmetic is float64 throughout, vectorised: Python loops run over
series terms, never over elements. Accuracy in float64, checked against SciPy in ``tests/test_special.py``: about
1e-15 relative for ``erf``/``erfc`` (down to the subnormal range of ``erfc``), ``lgamma`` and ``digamma`` on
``x > 0``, and ``zeta``/``polygamma`` for ``q > 0``; on ``x < 0`` the reflection formulas are as accurate, except
near the roots of ``lgamma``/``digamma`` there, where the error is small in absolute terms only.

How the pieces are built (all constants were computed for this module in 90-digit decimal arithmetic from the
defining series, with Python's standard ``decimal`` and ``fractions`` only):

* ``erf``/``erfc``: ``erf`` is its Maclaurin series below 0.5; above 0.5 ``erfc(x) = exp(-x^2) f(t) / (1 + 2x)``
  with ``f(t) = (1 + 2x) exp(x^2) erfc(x)`` a 27-term Chebyshev series in ``t = (x - 4.5) / (x + 3.5)`` (which
  maps ``[0.5, inf)`` onto ``[-1, 1)``); ``exp(-x^2)`` is taken in two factors so that ``x^2`` is never rounded.
* ``lgamma``: the Taylor series of ``lgamma(2 + z)`` (coefficients ``(-1)^k (zeta(k) - 1) / k``) for
  ``-0.5 < x < 2.5``, so that the roots at 1 and 2 keep their relative accuracy; the recurrence down to that
  window below 10; Stirling's series from 10 on; the reflection formula for ``x <= -0.5``.
* ``digamma``: the Taylor series about its positive root ``x0 = 1.4616...`` (coefficients
  ``(-1)^(k+1) zeta(k + 1, x0)``) near ``x0``; elsewhere the recurrence up to ``x >= 10`` and the asymptotic
  series; the reflection formula for ``x < 0``.
* ``zeta(s, q)``: ten terms of the sum, then the Euler-Maclaurin tail; for negative non-integer ``q`` (integer
  ``s`` only) the shift to ``(0, 1)`` in closed form. ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)``.

Special values follow TensorFlow's kernels: ``digamma`` is NaN at 0 and the negative integers (and at -inf),
``lgamma`` is inf there; ``zeta(1, q)`` is inf, ``zeta(s < 1, q)`` NaN, and at ``q`` a non-positive integer
``zeta`` is inf for even integer ``s`` and NaN otherwise; ``polygamma`` is NaN for a non-integer or negative order.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import accumulate

import numpy as np

__all__ = ["erf", "erfc", "lgamma", "digamma", "zeta", "polygamma"]

_PI = 3.141592653589793
_LOG_PI = 1.1447298858494002
_LOG_SQRT_2PI = 0.9189385332046728

# erf(x) = x * sum_n ERF_TAYLOR[n] x^(2n) for |x| < 0.5: 2/sqrt(pi) (-1)^n / (n! (2n + 1)).
_ERF_TAYLOR = (
    1.1283791670955126, -0.37612638903183754, 0.11283791670955126, -0.026866170645131252,
    0.005223977625442188, -0.0008548327023450853, 0.00012055332981789664, -1.492565035840625e-05,
    1.6462114365889248e-06, -1.6365844691234924e-07, 1.4807192815879218e-08, -1.2290555301717928e-09,
    9.422759064650411e-11, -6.7113668551641105e-12, 4.4632242632864775e-13, -2.7835162072109215e-14,
)

# (1 + 2x) exp(x^2) erfc(x) on x >= 0.5 as sum_k c_k T_k(t), t = (x - 4.5) / (x + 3.5); the next term is ~2e-20.
_ERFCX_CHEB = (
    1.210677940694214, -0.07386602138757274, -0.021925817186695756, 0.01979622598330062,
    -0.008304516603087899, 0.002476680268891719, -0.0005584195133978612, 9.23630140622529e-05,
    -9.437787304936758e-06, 1.533340859279098e-08, 1.7923625690837423e-07, -2.4529661547231826e-08,
    -1.0662181478402102e-09, 6.873607823933708e-10, -3.495728823140734e-11, -1.5284552922511393e-11,
    1.9426459056452242e-12, 3.3299272801267463e-13, -7.192324474751281e-14, -7.922170546298046e-15,
    2.4793444826073247e-15, 2.2655534108799694e-16, -8.558157614424224e-17, -8.183972363228112e-18,
    2.994093594919765e-18, 3.578227277695838e-19, -1.0432368643766438e-19,
)

# lgamma(2 + z) = z * sum_k LGAMMA2_TAYLOR[k] z^k: 1 - euler_gamma, then (-1)^k (zeta(k) - 1) / k for k >= 2.
_LGAMMA2_TAYLOR = (
    0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
    -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425,
    -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05,
    -9.439488275268397e-06, 4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
    -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08,
    -2.2711094608943164e-08, 1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09,
    -1.1921401405860912e-09, 5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10,
    -6.4229645638381e-11, 3.1044247747322276e-11, -1.5021384080754142e-11,
)

# The positive root of digamma as an unevaluated sum hi + lo, and the Taylor series of digamma about it:
# digamma(x0 + z) = z * sum_k c_k z^k, c_k = (-1)^k zeta(k + 2, x0).
_ROOT_HI = 1.4616321449683622
_ROOT_LO = 9.549995429965697e-17
_ROOT_TAYLOR = (
    0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652, 0.10782405069126237,
    -0.07219956125645471, 0.04880428816414311, -0.03316112647484736, 0.022597648232218104,
    -0.01542476590494896, 0.010538791616612175, -0.007204534386356869, 0.004926781395729853,
    -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972, 0.0010788252019162967,
    -0.0007380709389960052, 0.000504953265834602, -0.0003454680251063077, 0.00023635601564027053,
    -0.00016170622091974803, 0.0001106337276874741, -7.569179582195066e-05, 5.178575795222081e-05,
)


def _bernoulli(n):
    """Exact Bernoulli numbers ``B_0 .. B_n`` (Akiyama-Tanigawa; ``B_1 = +1/2``, unused here)."""
    a, out = [Fraction(0)] * (n + 1), []
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


_B = _bernoulli(26)
_INT_FACTORIAL = list(accumulate(range(1, 171), lambda a, b: a * b, initial=1))  # exact n! for n = 0..170
# Stirling: lgamma(x) ~ (x - 1/2) log x - x + log sqrt(2 pi) + sum_j B_2j / (2j (2j - 1) x^(2j - 1)).
_STIRLING = tuple(float(_B[2 * j] / (2 * j * (2 * j - 1))) for j in range(1, 11))
# digamma(x) ~ log x - 1/(2x) - sum_j B_2j / (2j x^2j).
_DIGAMMA_ASYMP = tuple(float(_B[2 * j] / (2 * j)) for j in range(1, 9))
# Euler-Maclaurin tail of zeta: B_2j / (2j)!.
_EM = tuple(float(_B[2 * j] / _INT_FACTORIAL[2 * j]) for j in range(1, 13))
# n! as float64, each rounded once from the exact integer (171! overflows).
_FACTORIAL = np.array([float(f) for f in _INT_FACTORIAL])

_ZETA_TERMS = 10  # direct terms before the Euler-Maclaurin tail


# ------------------------------------------------------------------------------------------ helpers


def _prepare(x):
    """``(float64 array, output dtype)`` for an input array."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    return x.astype(np.float64), dtype


def _finish(out, dtype):
    return out.astype(dtype, copy=False)[()]


def _poly(z, coeffs):
    """``sum_k coeffs[k] z^k`` by Horner's rule."""
    acc = np.full_like(z, coeffs[-1])
    for c in coeffs[-2::-1]:
        acc = acc * z + c
    return acc


def _chebyshev(t, coeffs):
    """``sum_k coeffs[k] T_k(t)`` by Clenshaw's recurrence."""
    b1 = np.zeros_like(t)
    b2 = np.zeros_like(t)
    t2 = 2 * t
    for c in coeffs[:0:-1]:
        b1, b2 = t2 * b1 - b2 + c, b1
    return t * b1 - b2 + coeffs[0]


def _exp_neg_square(a):
    """``exp(-a^2)`` as two factors, without rounding ``a^2``: ``a = h + (a - h)`` with ``h`` a multiple of 1/16
    (so ``h^2`` is exact), ``a^2 = h^2 + (a - h)(a + h)``. For ``0 <= a < 32``."""
    h = np.round(a * 16) / 16
    return np.exp(-h * h), np.exp(-(a - h) * (a + h))


_ERFC_ZERO = 27.3  # erfc(x) is below the smallest subnormal from here on


def _erfc_large(a):
    """``erfc(a)`` for ``a >= 0.5`` (0 past the underflow threshold, inf included)."""
    out = np.zeros_like(a)
    m = a < _ERFC_ZERO
    v = a[m]
    big, small = _exp_neg_square(v)
    # The tiny factor last: in the subnormal range only one rounding loses bits.
    out[m] = big * (small * _chebyshev((v - 4.5) / (v + 3.5), _ERFCX_CHEB) / (1 + 2 * v))
    return out


def _sinpi_abs(x):
    """``|sin(pi x)|``, exact in the argument reduction (``x - round(x)`` is exact)."""
    return np.abs(np.sin(_PI * (x - np.round(x))))


# ------------------------------------------------------------------------------------------ erf, erfc


def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    x, dtype = _prepare(x)
    with np.errstate(all="ignore"):
        out = x.copy()  # NaN stays NaN
        a = np.abs(x)
        small = a < 0.5
        xs = x[small]
        out[small] = xs * _poly(xs * xs, _ERF_TAYLOR)
        large = (a >= 0.5) & (a < 6)
        out[large] = np.copysign(1 - _erfc_large(a[large]), x[large])
        saturated = a >= 6  # erfc(6) = 2e-17: 1 - erfc rounds to 1
        out[saturated] = np.copysign(1.0, x[saturated])
    return _finish(out, dtype)


def erfc(x):
    """The complementary error function ``1 - erf(x)``, accurate in relative terms in its tail."""
    x, dtype = _prepare(x)
    with np.errstate(all="ignore"):
        out = x.copy()
        small = np.abs(x) < 0.5
        xs = x[small]
        out[small] = 1 - xs * _poly(xs * xs, _ERF_TAYLOR)
        pos = x >= 0.5
        out[pos] = _erfc_large(x[pos])
        neg = x <= -0.5
        out[neg] = 2 - _erfc_large(-x[neg])
    return _finish(out, dtype)


# ------------------------------------------------------------------------------------------ lgamma


def _lgamma2(z):
    """``lgamma(2 + z)`` for ``|z| <= 0.5``."""
    return z * _poly(z, _LGAMMA2_TAYLOR)


def _lgamma_positive(x):
    """``lgamma(x)`` for finite ``x >= 1.5`` (the reflection formula's ``lgamma(1 - x)``) or any x > -0.5."""
    out = np.empty_like(x)
    # (-0.5, 0.5): lgamma(x) = lgamma(x + 2) - log|x| - log(1 + x)
    m = x < 0.5
    v = x[m]
    out[m] = _lgamma2(v) - np.log(np.abs(v)) - np.log1p(v)
    # [0.5, 1.5): lgamma(x) = lgamma(x + 1) - log(x), with x - 1 exact
    m = (x >= 0.5) & (x < 1.5)
    v = x[m] - 1
    out[m] = _lgamma2(v) - np.log1p(v)
    # [1.5, 2.5)
    m = (x >= 1.5) & (x < 2.5)
    out[m] = _lgamma2(x[m] - 2)
    # [2.5, 10): down to [1.5, 2.5) by lgamma(x) = lgamma(y) + log(y (y + 1) ... (x - 1)), y = x - n exact
    m = (x >= 2.5) & (x < 10)
    v = x[m]
    n = np.floor(v - 1.5)
    y = v - n
    prod = np.ones_like(v)
    for j in range(8):
        prod *= np.where(j < n, y + j, 1.0)
    out[m] = _lgamma2(y - 2) + np.log(prod)
    # [10, inf): Stirling's series
    m = x >= 10
    v = x[m]
    r = 1 / v
    out[m] = (v - 0.5) * np.log(v) - v + _LOG_SQRT_2PI + r * _poly(r * r, _STIRLING)
    return out


def lgamma(x):
    """``log|Gamma(x)|``; inf at 0, at the negative integers and at +-inf."""
    x, dtype = _prepare(x)
    with np.errstate(all="ignore"):
        out = x.copy()
        out[np.isinf(x)] = np.inf
        pos = np.isfinite(x) & (x > -0.5)
        out[pos] = _lgamma_positive(x[pos])
        neg = np.isfinite(x) & (x <= -0.5)
        v = x[neg]
        # Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x); at the integers log(0) gives inf.
        out[neg] = _LOG_PI - np.log(_sinpi_abs(v)) - _lgamma_positive(1 - v)
    return _finish(out, dtype)


# ------------------------------------------------------------------------------------------ digamma


def _digamma_positive(x):
    """``digamma(x)`` for finite ``x > 0``."""
    out = np.empty_like(x)
    near = np.abs(x - _ROOT_HI) < 0.26
    z = (x[near] - _ROOT_HI) - _ROOT_LO
    out[near] = z * _poly(z, _ROOT_TAYLOR)
    far = ~near
    v = x[far]
    # Up to w >= 10 by digamma(x) = digamma(x + 1) - 1/x, then the asymptotic series.
    shift = np.zeros_like(v)
    w = v.copy()
    for _ in range(10):
        low = w < 10
        if not low.any():
            break
        shift += np.where(low, 1 / w, 0.0)
        w = np.where(low, w + 1, w)
    r2 = 1 / (w * w)
    out[far] = np.log(w) - 0.5 / w - r2 * _poly(r2, _DIGAMMA_ASYMP) - shift
    return out


def digamma(x):
    """``Gamma'(x) / Gamma(x)``; NaN at 0, at the negative integers and at -inf, as TF's kernel."""
    x, dtype = _prepare(x)
    with np.errstate(all="ignore"):
        out = x.copy()
        out[x == np.inf] = np.inf
        out[(x <= 0) & (np.floor(x) == x)] = np.nan  # poles, -inf included
        pos = (x > 0) & (x < np.inf)
        out[pos] = _digamma_positive(x[pos])
        neg = (x < 0) & (np.floor(x) != x)
        v = x[neg]
        # Reflection: digamma(1 - x) - digamma(x) = pi / tan(pi x), reduced exactly to |x - round(x)| <= 1/2.
        r = v - np.round(v)
        # At half-integers the cotangent is exactly 0 (tan(pi/2) rounds to 1.6e16, not inf).
        out[neg] = _digamma_positive(1 - v) - np.where(np.abs(r) == 0.5, 0.0, _PI / np.tan(_PI * r))
    return _finish(out, dtype)


# ------------------------------------------------------------------------------------------ zeta, polygamma


def _zeta_positive(s, q):
    """Hurwitz zeta for ``s > 1`` and finite ``q > 0`` (broadcast arrays of equal shape)."""
    w = q + _ZETA_TERMS
    # Euler-Maclaurin tail at w: w^(1-s)/(s-1) + w^-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) w^(-s-2j+1)
    wps = np.power(w, -s)
    tail = w * wps / (s - 1) + 0.5 * wps
    term = s * wps / w  # s * w^(-s-1)
    inv_w2 = 1 / (w * w)
    corr = np.zeros_like(w)
    for j, c in enumerate(_EM):
        corr += c * term
        term = term * (s + 2 * j + 1) * (s + 2 * j + 2) * inv_w2
    total = tail + corr
    for k in range(_ZETA_TERMS - 1, -1, -1):  # smallest terms first
        total += np.power(q + k, -s)
    return total


def _zeta(s, q):
    """Hurwitz zeta on float64 arrays of one shape (TF's special values)."""
    out = np.full_like(q, np.nan)
    out[s == 1] = np.inf
    ok = s > 1
    q_int = np.floor(q) == q
    s_int = np.floor(s) == s
    s_even = s_int & (np.fmod(s, 2) == 0)
    pole = ok & (q <= 0) & q_int
    out[pole & s_even] = np.inf
    out[ok & (q == np.inf)] = 0.0
    pos = ok & (q > 0) & (q < np.inf)
    out[pos] = _zeta_positive(s[pos], q[pos])
    # q < 0, not an integer, integer s: q + m = r in (0, 1) with m = ceil(-q), and the m terms of the sum before r
    # are (-1)^s (zeta(s, 1 - r) - zeta(s, 1 - q)).
    neg = ok & (q < 0) & ~q_int & s_int
    sn, qn = s[neg], q[neg]
    r = qn - np.floor(qn)
    sign = np.where(np.fmod(sn, 2) == 0, 1.0, -1.0)
    # Grouped so that the two large terms cancel first (exactly at half-integers, where they are equal).
    out[neg] = (_zeta_positive(sn, r) + sign * _zeta_positive(sn, 1 - r)) - sign * _zeta_positive(sn, 1 - qn)
    return out


def zeta(x, q):
    """The Hurwitz zeta function ``sum_k (q + k)^-x`` (TF's argument names), broadcasting."""
    s, dtype = _prepare(x)
    q, qdtype = _prepare(q)
    s, q = np.broadcast_arrays(s, q)
    with np.errstate(all="ignore"):
        out = _zeta(s.copy(), q.copy())
    return _finish(out, np.result_type(dtype, qdtype))


def polygamma(a, x):
    """The ``a``-th derivative of digamma, for integer orders ``a >= 0`` (NaN for others), broadcasting."""
    n, dtype = _prepare(a)
    x, xdtype = _prepare(x)
    n, x = np.broadcast_arrays(n, x)
    with np.errstate(all="ignore"):
        out = np.full(n.shape, np.nan)
        integer = (np.floor(n) == n) & (n >= 0)
        zero = integer & (n == 0)
        out[zero] = digamma(x[zero])
        m = integer & (n > 0)
        nm = n[m]
        fact = np.where(nm <= 170, _FACTORIAL[np.minimum(nm, 170).astype(np.intp)], np.inf)
        sign = np.where(np.fmod(nm, 2) == 1, 1.0, -1.0)  # (-1)^(n + 1)
        out[m] = sign * fact * _zeta(nm + 1, x[m])
    return _finish(out, np.result_type(dtype, xdtype))

"""tapeflow's NumPy special functions (``tapeflow.ops._special``) against SciPy over the whole real line, and
against reference values computed in 60-digit decimal arithmetic where SciPy itself is less accurate (``erfc``
far in its tail, ``lgamma`` next to its roots at 1 and 2, ``digamma`` next to its poles and its positive root)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

from tapeflow.ops import _special as S

RNG = np.random.default_rng(20250311)
LINE = np.concatenate([np.linspace(-40, 40, 40001), np.geomspace(1e-300, 1e300, 4001),
                       -np.geomspace(1e-300, 1e300, 4001), RNG.uniform(-8, 8, 20000)])
POSITIVE = np.concatenate([np.geomspace(1e-8, 1e6, 4001), RNG.uniform(0, 30, 5000)])


def _rel(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(all="ignore"):
        rel = np.abs(got - want) / np.abs(want)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    return np.where(same, 0.0, rel)


def _assert_rel(got, want, rtol, where=None):
    rel = _rel(got, want)
    if where is not None:
        rel = np.where(where, rel, 0.0)
    assert np.nanmax(rel) <= rtol and not np.isnan(rel).any(), f"max rel error {np.nanmax(rel):.3e} > {rtol:.0e}"


# ------------------------------------------------------------------------------------------ against SciPy


def test_erf_matches_scipy():
    _assert_rel(S.erf(LINE), sp.erf(LINE), 1e-15)


def test_erfc_matches_scipy_to_its_accuracy():
    # SciPy's erfc loses up to ~6e-14 far in the tail (it rounds x * x); the decimal references check ours tighter.
    want = sp.erfc(LINE)
    _assert_rel(S.erfc(LINE), want, 1e-13, where=want > 1e-300)
    sub = want <= 1e-300  # near and in the subnormal range (which SciPy flushes to 0 early): absolute agreement
    assert np.max(np.abs(S.erfc(LINE)[sub] - want[sub])) < np.finfo(np.float64).tiny


def test_lgamma_matches_scipy():
    want = sp.gammaln(LINE)
    got = S.lgamma(LINE)
    # Relative accuracy away from the roots (where SciPy also loses it: near 1 and 2, and on the negative axis).
    _assert_rel(got, want, 1e-13, where=np.isfinite(want) & (np.abs(want) > 1e-2) & (LINE > -1e15))
    finite = np.isfinite(want) & np.isfinite(got) & (LINE > -1e15)
    assert np.max(np.abs(got[finite] - want[finite]) / np.maximum(1, np.abs(want[finite]))) < 1e-14


def test_digamma_matches_scipy():
    want = sp.digamma(LINE)
    got = S.digamma(LINE)
    _assert_rel(got, want, 1e-13, where=(LINE > 0) & (np.abs(want) > 1e-2))
    # On the negative axis SciPy reduces pi * x inexactly; agreement is relative to the size of the terms.
    neg = (LINE < 0) & (LINE > -1e6) & np.isfinite(want)
    assert np.max(np.abs(got - want)[neg] / np.maximum(1, np.abs(want[neg]))) < 1e-11


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 25])
def test_polygamma_matches_scipy(n):
    _assert_rel(S.polygamma(float(n), POSITIVE), sp.polygamma(n, POSITIVE), 5e-15)


@pytest.mark.parametrize("s", [1.0001, 1.5, 2.0, 3.7, 12.0, 60.0])
def test_zeta_matches_scipy(s):
    want = sp.zeta(s, POSITIVE)
    _assert_rel(S.zeta(s, POSITIVE), want, 5e-15, where=np.abs(want) > 1e-290)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_negative_x_matches_scipy(n):
    x = -RNG.uniform(0, 30, 2000)
    want = sp.polygamma(n, x)
    _assert_rel(S.polygamma(float(n), x), want, 1e-12, where=np.abs(want) > 1)


# ------------------------------------------------------------------------------------------ decimal references

# (function, x, s for zeta, value): computed with Python's decimal at 60 digits from the defining series.
DECIMAL = [
    ("erfc", 0.3, None, 0.6713732405408726), ("erf", 0.3, None, 0.3286267594591274),
    ("erfc", 0.5, None, 0.4795001221869535), ("erf", 0.5, None, 0.5204998778130465),
    ("erfc", 1.7, None, 0.01620954140922544), ("erf", 1.7, None, 0.9837904585907745),
    ("erfc", 4.2, None, 2.8554941795921843e-09), ("erf", 4.2, None, 0.9999999971445058),
    ("erfc", 9.9, None, 1.5431200214053075e-44), ("erfc", 15.0, None, 7.212994172451207e-100),
    ("erfc", 24.0, None, 1.6489825831519335e-252), ("erfc", 26.3, None, 8.590249058794049e-303),
    ("erf", 1e-10, None, 1.1283791670955126e-10), ("erf", 0.499, None, 0.5196206559894685),
    ("lgamma", 0.99998, None, 1.1544642288061102e-05), ("lgamma", 1.00003, None, -1.7315729737519475e-05),
    ("lgamma", 1.9999, None, -4.227520877215346e-05), ("lgamma", 2.0001, None, 4.2281658112919945e-05),
    ("lgamma", 0.001, None, 6.907178885383853), ("lgamma", 3.3, None, 0.9870985778947344),
    ("lgamma", 12.5, None, 18.734347511936445), ("lgamma", 150.7, None, 603.5162155733925),
    ("lgamma", -0.3, None, 1.4648400508576025), ("lgamma", -4.0338, None, 0.16008770298043923),
    ("lgamma", -2.5, None, -0.056243716497674054), ("lgamma", -7.9, None, -8.072039736012833),
    ("digamma", 1.46, None, -0.0015805619870834522), ("digamma", 1.0021, None, -0.5737665944288238),
    ("digamma", 0.05, None, -20.497844991299868), ("digamma", 7.7, None, 1.9748820949131018),
    ("digamma", 250.0, None, 5.519459584531046), ("digamma", -5.999958099620341, None, -23864.25928001737),
    ("digamma", -0.5, None, 0.03648997397857652), ("digamma", -3.3, None, 3.620353460592126),
    ("zeta", 0.5, 2.0, 4.934802200544679), ("zeta", 1.7, 3.0, 0.30204454205172954),
    ("zeta", 10.0, 1.5, 0.6486616319415704), ("zeta", 0.2, 7.0, 78125.28343945021),
    ("zeta", 3.0, 30.0, 4.857804189667247e-15), ("zeta", 200.0, 4.5, 2.547561311134244e-09),
]


@pytest.mark.parametrize("fn,x,s,want", DECIMAL, ids=[f"{f}({x})" for f, x, _, _ in DECIMAL])
def test_decimal_reference(fn, x, s, want):
    got = S.zeta(s, x) if fn == "zeta" else getattr(S, fn)(x)
    assert abs(got - want) <= 3e-15 * abs(want), f"{fn}({x}) = {got!r}, reference {want!r}"


def test_digamma_at_its_root():
    assert abs(S.digamma(1.4616321449683622)) < 1e-16


# ------------------------------------------------------------------------------------------ types, special values


def test_dtypes_and_scalars():
    for fn in (S.erf, S.erfc, S.lgamma, S.digamma):
        assert fn(np.float32([0.5, 1.5])).dtype == np.float32
        assert fn(np.float16(0.5)).dtype == np.float16
        assert isinstance(fn(0.5), np.float64)
        assert fn(np.array([2, 3])).dtype == np.float64
        assert fn(np.zeros((2, 0, 3))).shape == (2, 0, 3)
    assert S.polygamma(np.float32(1), np.float32([2.0])).dtype == np.float32
    assert S.zeta(2.0, np.ones((2, 3))).shape == (2, 3)


def test_special_values_follow_tensorflow():
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(S.erf([inf, -inf, nan, -0.0]), [1.0, -1.0, nan, -0.0])
    np.testing.assert_array_equal(S.erfc([inf, -inf, nan, 30.0]), [0.0, 2.0, nan, 0.0])
    np.testing.assert_array_equal(S.lgamma([0.0, -0.0, -1.0, -3.0, -1e20, inf, -inf, nan]),
                                  [inf, inf, inf, inf, inf, inf, inf, nan])
    np.testing.assert_array_equal(S.digamma([0.0, -0.0, -2.0, -inf, inf, nan]), [nan, nan, nan, nan, inf, nan])
    np.testing.assert_array_equal(S.polygamma([1.5, -1.0, 171.0, 1.0, 2.0, 2.0], [2.0, 2.0, 2.0, -3.0, -3.0, inf]),
                                  [nan, nan, inf, inf, nan, -0.0])
    np.testing.assert_array_equal(S.zeta([1.0, 0.5, 2.0, 3.0, 2.5, 2.0], [2.0, 2.0, 0.0, -1.0, -1.5, inf]),
                                  [inf, nan, inf, nan, nan, 0.0])
    assert S.polygamma(0.0, 1.0) == S.digamma(1.0)
    assert S.lgamma(1.0) == 0.0 and S.lgamma(2.0) == 0.0

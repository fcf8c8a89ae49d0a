"""Central finite differences and the tolerance check used by the op-database gradient tests.

Plain NumPy: the functions differentiated here take and return NumPy values, so the same helper checks first
derivatives (of a scalar loss) and second derivatives (of a scalar ``<gradient, v>``) alike.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EPS", "RTOL", "ATOL", "central_difference", "gradient_error", "assert_gradient_close"]

EPS = 1e-6  # the finite-difference step
RTOL = 1e-6  # relative tolerance, per element
ATOL = 1e-7  # absolute tolerance, scaled by max(1, max |expected|) (for elements that are ~0)


def central_difference(scalar_fn, args, index, eps=EPS):
    """``d scalar_fn(*args) / d args[index]`` by central differences, with the shape of ``args[index]``.

    ``scalar_fn`` maps NumPy arrays to a Python or NumPy float. Each element of the flattened input is moved by
    ``+eps`` and ``-eps`` in turn (``2 * size`` calls), which is cheap for the small shapes of the op database.
    """
    x = np.asarray(args[index], dtype=np.float64)
    flat = x.reshape(-1)
    out = np.empty(flat.size, dtype=np.float64)
    for k in range(flat.size):
        values = []
        for step in (eps, -eps):
            moved = flat.copy()
            moved[k] += step
            call = list(args)
            call[index] = moved.reshape(x.shape)
            values.append(float(scalar_fn(*call)))
        out[k] = (values[0] - values[1]) / (2 * eps)
    return out.reshape(x.shape)


def gradient_error(got, expected):
    """``(max abs error, max relative error)`` of ``got`` against ``expected`` (``None`` counts as zeros)."""
    expected = np.asarray(expected, dtype=np.float64)
    got = np.zeros_like(expected) if got is None else np.asarray(got, dtype=np.float64)
    diff = np.abs(got - expected)
    if diff.size == 0:
        return 0.0, 0.0
    rel = diff / np.maximum(np.abs(expected), np.finfo(np.float64).tiny)
    return float(diff.max()), float(rel.max())


def assert_gradient_close(got, expected, label, rtol=RTOL, atol=ATOL):
    """Assert an analytic gradient (a tensor's NumPy value, or ``None``: the symbolic zero) matches ``expected``.

    Elementwise ``|got - expected| <= atol * max(1, max|expected|) + rtol * |expected|``.
    """
    expected = np.asarray(expected, dtype=np.float64)
    was_none = got is None
    got = np.zeros_like(expected) if was_none else np.asarray(got)
    assert got.shape == expected.shape, f"{label}: gradient shape {got.shape} != {expected.shape}"
    assert got.dtype == np.float64, f"{label}: gradient dtype {got.dtype} != float64"
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    abs_err, rel_err = gradient_error(got, expected)
    ok = np.all(np.abs(got - expected) <= atol * scale + rtol * np.abs(expected))
    assert ok, (f"{label}: analytic{' (None)' if was_none else ''} != finite differences; max abs err {abs_err:.3e}, "
                f"max rel err {rel_err:.3e}\n  analytic: {got.tolist()}\n  numeric:  {expected.tolist()}")

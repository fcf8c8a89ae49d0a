"""Unary elementwise functions: exponentials, logarithms, trigonometry, ``sqrt``, ``abs``, ``square``, rounding
(``around``), signs, ``real``/``imag``, and the NaN and infinity tests.

Functions that only make sense on floats cast other inputs to the default float type with ``astype``, as TF does:
without NumPy behavior an integer tensor has no ``astype``, and they raise TF's AttributeError.
"""

from __future__ import annotations

import math as _math

import numpy as np

import tapeflow as _tf

from ._arrays import array, asarray
from ._dtypes import is_inexact, result_type


def _is_bool(t):
    return t.dtype == _tf.bool


def _scalar(fn, x, promote_to_float=False):
    x = asarray(x)
    if promote_to_float and not is_inexact(x.dtype):
        x = x.astype(result_type(float))
    return fn(x)


def _unary(tf_fn, name, to_float=True, doc=None):
    def apply(x):
        return _scalar(tf_fn, x, to_float)

    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = doc or f"Elementwise ``{name}``" + (" (integers cast to the default float type)."
                                                         if to_float else ".")
    return apply


log = _unary(_tf.math.log, "log")
exp = _unary(_tf.exp, "exp")
sqrt = _unary(_tf.sqrt, "sqrt")
ceil = _unary(_tf.math.ceil, "ceil")
floor = _unary(_tf.floor, "floor")
sin = _unary(_tf.sin, "sin")
cos = _unary(_tf.cos, "cos")
tan = _unary(_tf.tan, "tan")
sinh = _unary(_tf.sinh, "sinh")
cosh = _unary(_tf.cosh, "cosh")
tanh = _unary(_tf.tanh, "tanh")
arcsin = _unary(_tf.asin, "arcsin")
arccos = _unary(_tf.acos, "arccos")
arctan = _unary(_tf.atan, "arctan")
arcsinh = _unary(_tf.asinh, "arcsinh")
arccosh = _unary(_tf.acosh, "arccosh")
arctanh = _unary(_tf.atanh, "arctanh")
expm1 = _unary(_tf.math.expm1, "expm1")
log1p = _unary(_tf.math.log1p, "log1p")
isnan = _unary(_tf.math.is_nan, "isnan")
isfinite = _unary(_tf.math.is_finite, "isfinite")
abs = _unary(_tf.abs, "abs", to_float=False)  # noqa: A001 - NumPy's name
absolute = fabs = abs
conj = _unary(_tf.math.conj, "conj", to_float=False)
conjugate = conj
negative = _unary(_tf.negative, "negative", to_float=False)
reciprocal = _unary(_tf.math.reciprocal, "reciprocal", to_float=False)
square = _unary(_tf.square, "square", to_float=False)
positive = _unary(lambda x: x, "positive", to_float=False)
deg2rad = _unary(lambda x: x * (np.pi / 180.0), "deg2rad", doc="Degrees to radians.")
exp2 = _unary(lambda x: 2**x, "exp2", doc="``2 ** x``.")
cbrt = _unary(lambda x: _tf.where(x < 0, -(_tf.abs(x) ** (1.0 / 3)), _tf.abs(x) ** (1.0 / 3)), "cbrt",
              doc="The real cube root.")
fix = _unary(lambda x: _tf.where(x < 0, _tf.math.ceil(x), _tf.floor(x)), "fix", doc="Rounding towards zero.")
sinc = _unary(lambda x: _tf.where(x == 0, _tf.ones_like(x), _tf.sin(x * np.pi) / (x * np.pi)), "sinc",
              doc="``sin(pi x) / (pi x)``, 1 at 0.")
signbit = _unary(lambda x: _tf.fill(_tf.shape(x), False) if _is_bool(x) else x < 0, "signbit", to_float=False,
                 doc="Whether the sign bit is set (``x < 0``).")


def angle(z, deg=False):
    """The argument of complex ``z``; for real values 0 or pi (float32, as TF's ``where`` of two Python numbers
    makes it), in degrees with ``deg``."""
    def argument(x):
        if x.dtype.is_floating:
            return _tf.where(x < 0, np.pi, 0)
        return _tf.math.atan2(_tf.math.imag(x), _tf.math.real(x))

    y = _scalar(argument, z, True)
    return rad2deg(y) if deg else y


def rad2deg(x):
    """Radians to degrees (``x * (180 / pi)``, on ``x`` as it is)."""
    return x * (180.0 / np.pi)


def log2(x):
    """The base-2 logarithm."""
    return log(x) / np.log(2)


def log10(x):
    """The base-10 logarithm."""
    return log(x) / np.log(10)


def isinf(x):
    """Whether elements are infinite (``False`` for a tensor that is not floating)."""
    if x.dtype.is_floating:
        return _scalar(_tf.math.is_inf, x, True)
    return False


def isneginf(x):
    """Whether elements are negative infinity."""
    if x.dtype.is_floating:
        from ._creation import full_like

        return x == full_like(x, -np.inf)
    return False


def isposinf(x):
    """Whether elements are positive infinity."""
    if x.dtype.is_floating:
        from ._creation import full_like

        return x == full_like(x, np.inf)
    return False


def sign(x, out=None, where=None, **kwargs):
    """-1, 0 or 1 by the sign of each element.

    Raises:
        ValueError: for ``out``, ``where`` or other keywords, which TF does not support.
    """
    if out:
        raise ValueError("tf.numpy doesnt support setting out.")
    if where:
        raise ValueError("tf.numpy doesnt support setting where.")
    if kwargs:
        raise ValueError(f"tf.numpy doesnt support setting {kwargs.keys()}")
    return _tf.sign(asarray(x))


def around(a, decimals=0):
    """``a`` rounded to ``decimals`` places, halves to even; integers go through the default float type and back
    (with ``astype``: TF's AttributeError without NumPy behavior)."""
    a = asarray(a)
    dtype = a.dtype
    factor = _math.pow(10, decimals)
    if is_inexact(dtype):
        factor = _tf.cast(factor, dtype)
    else:
        float_dtype = result_type(float)
        a = a.astype(float_dtype)
        factor = _tf.cast(factor, float_dtype)
    a = _tf.math.round(_tf.multiply(a, factor))
    return _tf.divide(a, factor).astype(dtype)


def round(a, decimals=0):  # noqa: A001 - NumPy's name
    """``around``."""
    return around(a, decimals=decimals)


def real(val):
    """The real part."""
    return _tf.math.real(asarray(val))


def imag(val):
    """The imaginary part (zeros for real values)."""
    return _tf.math.imag(asarray(val))


def iscomplex(x):
    """Whether elements have a nonzero imaginary part."""
    return imag(x) != 0


def isreal(x):
    """Whether elements have a zero imaginary part."""
    return imag(x) == 0


def iscomplexobj(x):
    """Whether ``x``'s dtype is complex."""
    return np.issubdtype(array(x).dtype.as_numpy_dtype, np.complexfloating)


def isrealobj(x):
    """Whether ``x``'s dtype is not complex."""
    return not iscomplexobj(x)

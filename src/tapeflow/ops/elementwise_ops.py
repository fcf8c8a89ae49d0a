"""More elementwise math: trigonometric and hyperbolic functions, ``expm1``/``log1p``, special functions, the
"no NaN" products and quotients, ``atan2``, ``squared_difference``, rounding up and float tests, and ``add_n``.

Forwards are NumPy (the special functions come from ``_special``); gradient rules are TF's formulas written with
tapeflow ops, so second derivatives work. Complex inputs get conjugated gradients where TF conjugates
(``sin``, ``tan``, ``expm1``, ``divide_no_nan`` ...), and unconjugated ones where TF's rule does not conjugate
(``xlogy``, ``xdivy``, ``xlog1py``, ``multiply_no_nan``), since the values TF returns are the specification.
The ``clip_by_*`` functions are in ``clip_ops``.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.convert import to_dtype
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, FLOAT_COMPLEX, NUMERIC, defop
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from . import _ragged_dispatch as _ragged
from ._convert import matching, to_tensor
from ._special import digamma as _np_digamma
from ._special import erf as _np_erf
from ._special import erfc as _np_erfc
from ._special import lgamma as _np_lgamma
from ._special import polygamma as _np_polygamma
from ._special import zeta as _np_zeta
from .array_ops import cast
from .math_ops import (
    ADD,
    EXP,
    MUL,
    NEG,
    REALDIV,
    RECIPROCAL,
    SQRT,
    SQUARE,
    SUB,
    _binary_op,
    _cj,
    _scalar,
    not_equal,
)

__all__ = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
    "erf", "erfc", "lgamma", "digamma", "polygamma", "zeta", "xlogy", "xdivy", "xlog1py", "atan2",
    "squared_difference", "divide_no_nan", "multiply_no_nan", "ceil", "is_nan", "is_inf", "is_finite", "add_n",
]

_REAL_FLOAT = ("float32", "float64")


def _is_tensorish(v):
    return isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False)


def _run(op, args):
    """Convert ``args`` as TF's generated wrappers do and run ``op``, its errors worded for TF's path (a Python
    list among them takes the fallback path: no `` name: `` suffix)."""
    if len(args) == 1:
        tensors = (to_tensor(args[0]),)
    elif any(_is_tensorish(a) for a in args):
        tensors = matching(*args)
    else:
        # No tensor: the first value sets the dtype and the others must fit it exactly (TypeError otherwise).
        first = convert_to_tensor(args[0])
        tensors = (first,) + tuple(constant_of(to_dtype(a, first.dtype)) for a in args[1:])
    return errors.call_on_path(errors.fast_path(*args), execute, op, tensors)


def _one_minus_square(t):
    return execute(SUB, (_scalar(1, t), execute(SQUARE, (t,))))


# ------------------------------------------------------------------------------------------ trigonometric


SIN = defop("Sin", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.sin(x))


@SIN.defvjp
def _sin_grad(g, y, x):
    return (execute(MUL, (g, execute(COS, (_cj(x),)))),)


COS = defop("Cos", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.cos(x))


@COS.defvjp
def _cos_grad(g, y, x):
    return (execute(MUL, (execute(NEG, (g,)), execute(SIN, (_cj(x),)))),)


TAN = defop("Tan", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.tan(x))


@TAN.defvjp
def _tan_grad(g, y, x):
    sec = execute(RECIPROCAL, (execute(COS, (_cj(x),)),))
    return (execute(MUL, (execute(SQUARE, (sec,)), g)),)


ASIN = defop("Asin", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arcsin(x))


@ASIN.defvjp
def _asin_grad(g, y, x):
    inv = execute(RECIPROCAL, (execute(SQRT, (_one_minus_square(_cj(x)),)),))
    return (execute(MUL, (g, inv)),)


ACOS = defop("Acos", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arccos(x))


@ACOS.defvjp
def _acos_grad(g, y, x):
    inv = execute(RECIPROCAL, (execute(SQRT, (_one_minus_square(_cj(x)),)),))
    return (execute(MUL, (execute(NEG, (g,)), inv)),)


ATAN = defop("Atan", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arctan(x))


@ATAN.defvjp
def _atan_grad(g, y, x):
    cx = _cj(x)
    inv = execute(RECIPROCAL, (execute(ADD, (_scalar(1, cx), execute(SQUARE, (cx,)))),))
    return (execute(MUL, (g, inv)),)


@_binary_op("Atan2", dtypes=FLOAT, quiet=True)
def ATAN2(y, x):
    return np.arctan2(y, x)


@ATAN2.defvjp(needs=True)
def _atan2_grad(g, z, y, x, needs):
    grad_inv = execute(REALDIV, (g, execute(ADD, (execute(SQUARE, (y,)), execute(SQUARE, (x,))))))
    gy = execute(MUL, (x, grad_inv)) if needs[0] else None
    gx = execute(MUL, (execute(NEG, (y,)), grad_inv)) if needs[1] else None
    return gy, gx


# ------------------------------------------------------------------------------------------ hyperbolic


SINH = defop("Sinh", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.sinh(x))


@SINH.defvjp
def _sinh_grad(g, y, x):
    return (execute(MUL, (g, execute(COSH, (_cj(x),)))),)


COSH = defop("Cosh", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.cosh(x))


@COSH.defvjp
def _cosh_grad(g, y, x):
    return (execute(MUL, (g, execute(SINH, (_cj(x),)))),)


ASINH = defop("Asinh", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arcsinh(x))


@ASINH.defvjp
def _asinh_grad(g, y, x):
    # TF differentiates through the output: 1 / cosh(asinh(x)).
    return (execute(REALDIV, (g, execute(COSH, (_cj(y),)))),)


ACOSH = defop("Acosh", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arccosh(x))


@ACOSH.defvjp
def _acosh_grad(g, y, x):
    return (execute(REALDIV, (g, execute(SINH, (_cj(y),)))),)


ATANH = defop("Atanh", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.arctanh(x))


@ATANH.defvjp
def _atanh_grad(g, y, x):
    return (execute(MUL, (g, execute(RECIPROCAL, (_one_minus_square(_cj(x)),)))),)


# ------------------------------------------------------------------------------------------ exp and log variants


EXPM1 = defop("Expm1", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.expm1(x))


@EXPM1.defvjp
def _expm1_grad(g, y, x):
    return (execute(MUL, (g, execute(EXP, (_cj(x),)))),)


LOG1P = defop("Log1p", dtypes=FLOAT_COMPLEX, quiet=True)(lambda x: np.log1p(x))


@LOG1P.defvjp
def _log1p_grad(g, y, x):
    cx = _cj(x)
    return (execute(MUL, (g, execute(RECIPROCAL, (execute(ADD, (_scalar(1, cx), cx)),)))),)


def _xfun_forward(f):
    """``f(x, y)``, but exactly 0 wherever ``x`` is 0 (whatever ``y`` is, NaN included)."""

    def forward(x, y):
        return np.where(x == 0, np.zeros((), np.result_type(x, y)), f(x, y))[()]

    return forward


XLOGY = _binary_op("Xlogy", dtypes=FLOAT_COMPLEX, quiet=True)(_xfun_forward(lambda x, y: x * np.log(y)))
XDIVY = _binary_op("Xdivy", dtypes=FLOAT_COMPLEX, quiet=True)(_xfun_forward(lambda x, y: x / y))
XLOG1PY = _binary_op("Xlog1py", dtypes=FLOAT_COMPLEX, quiet=True)(_xfun_forward(lambda x, y: x * np.log1p(y)))


def _x_nonzero(x):
    return cast(not_equal(x, _scalar(0, x)), x.dtype)


# TF's rules for the xlogy family take the derivatives as they are, without conjugating complex inputs.
@XLOGY.defvjp(needs=True)
def _xlogy_grad(g, z, x, y, needs):
    gx = execute(MUL, (execute(XLOGY, (_x_nonzero(x), y)), g)) if needs[0] else None
    gy = execute(MUL, (execute(XDIVY, (x, y)), g)) if needs[1] else None
    return gx, gy


@XDIVY.defvjp(needs=True)
def _xdivy_grad(g, z, x, y, needs):
    gx = execute(MUL, (execute(XDIVY, (_x_nonzero(x), y)), g)) if needs[0] else None
    gy = execute(MUL, (execute(XDIVY, (execute(NEG, (x,)), execute(SQUARE, (y,)))), g)) if needs[1] else None
    return gx, gy


@XLOG1PY.defvjp(needs=True)
def _xlog1py_grad(g, z, x, y, needs):
    gx = execute(MUL, (execute(XLOG1PY, (_x_nonzero(x), y)), g)) if needs[0] else None
    gy = execute(MUL, (execute(XDIVY, (x, execute(ADD, (y, _scalar(1, y))))), g)) if needs[1] else None
    return gx, gy


# ------------------------------------------------------------------------------------------ special functions


@defop("Erf", dtypes=FLOAT, quiet=True)
def ERF(x):
    out = _np_erf(x)
    if x.dtype == np.float64:
        # TF's double kernel squares x first: it returns NaN once x * x overflows (|x| >= 2^511.5, inf included).
        out = np.where(np.isinf(x * x), np.nan, out)[()]
    return out


_TWO_OVER_SQRT_PI = 2 / np.sqrt(np.pi)


@ERF.defvjp
def _erf_grad(g, y, x):
    scaled = execute(MUL, (g, _scalar(_TWO_OVER_SQRT_PI, g)))
    return (execute(MUL, (scaled, execute(EXP, (execute(NEG, (execute(SQUARE, (x,)),)),)))),)


ERFC = defop("Erfc", dtypes=FLOAT, quiet=True)(_np_erfc)


@ERFC.defvjp
def _erfc_grad(g, y, x):
    scaled = execute(MUL, (g, _scalar(-_TWO_OVER_SQRT_PI, g)))
    return (execute(MUL, (scaled, execute(EXP, (execute(NEG, (execute(SQUARE, (x,)),)),)))),)


LGAMMA = defop("Lgamma", dtypes=FLOAT, quiet=True)(_np_lgamma)


@LGAMMA.defvjp
def _lgamma_grad(g, y, x):
    return (execute(MUL, (g, execute(DIGAMMA, (x,)))),)


DIGAMMA = defop("Digamma", dtypes=FLOAT, quiet=True)(_np_digamma)


@DIGAMMA.defvjp
def _digamma_grad(g, y, x):
    return (execute(MUL, (g, execute(POLYGAMMA, (_scalar(1, x), x)))),)


POLYGAMMA = _binary_op("Polygamma", dtypes=_REAL_FLOAT, quiet=True)(_np_polygamma)


@POLYGAMMA.defvjp(needs=True)
def _polygamma_grad(g, z, a, x, needs):
    # No gradient for the order, as in TF.
    gx = execute(MUL, (execute(POLYGAMMA, (execute(ADD, (a, _scalar(1, a))), x)), g)) if needs[1] else None
    return None, gx


ZETA = _binary_op("Zeta", dtypes=_REAL_FLOAT, quiet=True)(_np_zeta)


@ZETA.defvjp(needs=True)
def _zeta_grad(g, z, x, q, needs):
    # d zeta(x, q) / dq = -x zeta(x + 1, q); none for x, as in TF.
    if not needs[1]:
        return None, None
    partial = execute(MUL, (execute(NEG, (x,)), execute(ZETA, (execute(ADD, (x, _scalar(1, x))), q))))
    return None, execute(MUL, (partial, g))


# ------------------------------------------------------------------------------------------ safe products, quotients


@_binary_op("DivNoNan", dtypes=FLOAT_COMPLEX, quiet=True)
def DIV_NO_NAN(x, y):
    return np.where(y == 0, np.zeros((), np.result_type(x, y)), x / y)[()]


@DIV_NO_NAN.defvjp(needs=True)
def _div_no_nan_grad(g, z, x, y, needs):
    cx, cy = _cj(x), _cj(y)
    gx = execute(DIV_NO_NAN, (g, cy)) if needs[0] else None
    gy = None
    if needs[1]:
        gy = execute(MUL, (g, execute(DIV_NO_NAN, (execute(DIV_NO_NAN, (execute(NEG, (cx,)), cy)), cy))))
    return gx, gy


@_binary_op("MulNoNan", dtypes=FLOAT_COMPLEX, quiet=True)
def MUL_NO_NAN(x, y):
    return np.where(y == 0, np.zeros((), np.result_type(x, y)), x * y)[()]


@MUL_NO_NAN.defvjp(needs=True)
def _mul_no_nan_grad(g, z, x, y, needs):
    gx = execute(MUL_NO_NAN, (g, y)) if needs[0] else None
    gy = execute(MUL_NO_NAN, (x, g)) if needs[1] else None
    return gx, gy


@_binary_op("SquaredDifference", dtypes=NUMERIC, quiet=True)
def SQUARED_DIFFERENCE(x, y):
    d = x - y
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


@SQUARED_DIFFERENCE.defvjp(needs=True)
def _squared_difference_grad(g, z, x, y, needs):
    gx = execute(MUL, (execute(MUL, (_scalar(2, g), g)), execute(SUB, (x, y))))
    return (gx if needs[0] else None), (execute(NEG, (gx,)) if needs[1] else None)


# ------------------------------------------------------------------------------------------ not differentiable

CEIL = defop("Ceil", dtypes=FLOAT)(lambda x: np.ceil(x))
IS_NAN = defop("IsNan", dtypes=FLOAT)(lambda x: np.isnan(x))
IS_INF = defop("IsInf", dtypes=FLOAT)(lambda x: np.isinf(x))
IS_FINITE = defop("IsFinite", dtypes=FLOAT)(lambda x: np.isfinite(x))


# ------------------------------------------------------------------------------------------ add_n


class _ShapeMismatch(ValueError):
    pass


def _add_n_error(exc, values, attrs):
    if isinstance(exc, _ShapeMismatch):
        i = exc.args[0]
        return errors.InvalidArgumentError(
            None, None, f"{{{{function_node __wrapped__AddN_N_{len(values)}_device_{errors.CPU_DEVICE}}}}} Inputs "
            f"to operation AddN of type AddN must have the same size and shape.  Input 0: "
            f"{errors.shape_str(np.shape(values[0]))} != input {i}: {errors.shape_str(np.shape(values[i]))} "
            "[Op:AddN] name: ")
    return None


@defop("AddN", dtypes=NUMERIC, on_error=_add_n_error)
def ADD_N(*values):
    shape = np.shape(values[0])
    total = values[0]
    for i, v in enumerate(values[1:], 1):
        if np.shape(v) != shape:
            raise _ShapeMismatch(i)  # no broadcasting
        total = total + v
    return total


@ADD_N.defvjp
def _add_n_grad(g, y, *values):
    return (g,) * len(values)


_ADD_N_MESSAGE = "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape."


@export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """Sum of same-shape, same-dtype tensors, without broadcasting (``tf.math.add_n``); one input is returned as is.

    Raises:
        ValueError: for an empty input, or a ``None`` among the inputs.
    """
    items = list(inputs)
    if not items:
        raise ValueError(_ADD_N_MESSAGE)
    tensors = []
    for v in items:
        if v is None:
            raise ValueError(_ADD_N_MESSAGE)
        if getattr(v, "_tapeflow_indexed_slices", False):
            v = convert_to_tensor(v)
        tensors.append(to_tensor(v))
    if len(tensors) == 1:
        return tensors[0]
    return execute(ADD_N, tuple(tensors))


# ------------------------------------------------------------------------------------------ public functions


def _public(name, op, doc, top=False, arity=1, keeps_zero=False):
    """The public function ``name`` running ``op``, exported to ``tf.math`` (and top-level ``tf`` with ``top``).
    With ``keeps_zero`` (``f(0) == 0``) it also maps a ``SparseTensor``'s values, as TF dispatches those ops."""
    if arity == 1:
        def api(x, name=None):
            if keeps_zero and getattr(x, "_tapeflow_sparse", False):
                return x.with_values(api(x.values))
            if _ragged.is_ragged(x):
                return _ragged.unary(api, x)
            return _run(op, (x,))
    else:
        def api(x, y, name=None):
            if _ragged.is_ragged(x) or _ragged.is_ragged(y):
                return _ragged.binary(api, x, y)
            return _run(op, (x, y))

    api.__name__ = api.__qualname__ = name
    api.__doc__ = doc
    return export(f"math.{name}", *((name,) if top else ()))(api)


sin = _public("sin", SIN, "Elementwise sine (``tf.math.sin``).", top=True, keeps_zero=True)
cos = _public("cos", COS, "Elementwise cosine (``tf.math.cos``).", top=True)
tan = _public("tan", TAN, "Elementwise tangent (``tf.math.tan``).", top=True, keeps_zero=True)
asin = _public("asin", ASIN, "Elementwise arcsine; NaN outside [-1, 1] for reals (``tf.math.asin``).", top=True,
               keeps_zero=True)
acos = _public("acos", ACOS, "Elementwise arccosine; NaN outside [-1, 1] for reals (``tf.math.acos``).", top=True)
atan = _public("atan", ATAN, "Elementwise arctangent (``tf.math.atan``).", top=True, keeps_zero=True)
sinh = _public("sinh", SINH, "Elementwise hyperbolic sine (``tf.math.sinh``).", top=True)
cosh = _public("cosh", COSH, "Elementwise hyperbolic cosine (``tf.math.cosh``).", top=True)
asinh = _public("asinh", ASINH, "Elementwise inverse hyperbolic sine; its gradient is ``1 / cosh(asinh(x))``, as "
                                "TF's (``tf.math.asinh``).", top=True, keeps_zero=True)
acosh = _public("acosh", ACOSH, "Elementwise inverse hyperbolic cosine; NaN below 1 (``tf.math.acosh``).", top=True)
atanh = _public("atanh", ATANH, "Elementwise inverse hyperbolic tangent (``tf.math.atanh``).", top=True,
                keeps_zero=True)
expm1 = _public("expm1", EXPM1, "Elementwise ``exp(x) - 1``, exact near 0 (``tf.math.expm1``).")
log1p = _public("log1p", LOG1P, "Elementwise ``log(1 + x)``, exact near 0 (``tf.math.log1p``).")
erf = _public("erf", ERF, "Elementwise error function; float64 gives NaN once ``x * x`` overflows, as TF's kernel "
                          "(``tf.math.erf``).", keeps_zero=True)
erfc = _public("erfc", ERFC, "Elementwise ``1 - erf(x)``, accurate in its tail (``tf.math.erfc``).")
lgamma = _public("lgamma", LGAMMA, "Elementwise ``log|Gamma(x)|``; inf at the poles (``tf.math.lgamma``).")
digamma = _public("digamma", DIGAMMA, "Elementwise ``Gamma'(x) / Gamma(x)``; NaN at the poles, as TF's kernel "
                                      "(``tf.math.digamma``).")
ceil = _public("ceil", CEIL, "Elementwise ceiling; not differentiable (``tf.math.ceil``).")
is_nan = _public("is_nan", IS_NAN, "Elementwise NaN test, a bool tensor (``tf.math.is_nan``).")
is_inf = _public("is_inf", IS_INF, "Elementwise test for +-inf, a bool tensor (``tf.math.is_inf``).")
is_finite = _public("is_finite", IS_FINITE, "Elementwise test for finite values, a bool tensor "
                                            "(``tf.math.is_finite``).")
xlogy = _public("xlogy", XLOGY, "``x * log(y)``, 0 where ``x`` is 0 (``tf.math.xlogy``).", arity=2)
xdivy = _public("xdivy", XDIVY, "``x / y``, 0 where ``x`` is 0 (``tf.math.xdivy``).", arity=2)
xlog1py = _public("xlog1py", XLOG1PY, "``x * log1p(y)``, 0 where ``x`` is 0 (``tf.math.xlog1py``).", arity=2)
squared_difference = _public("squared_difference", SQUARED_DIFFERENCE, "``(x - y) * conj(x - y)`` elementwise, with "
                             "broadcasting (``tf.math.squared_difference``).", arity=2)


@export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """Elementwise angle of the point ``(x, y)``, in ``[-pi, pi]`` (``tf.math.atan2``)."""
    return _run(ATAN2, (y, x))


@export("math.polygamma")
def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma at ``x``, for integer orders ``a >= 0`` (NaN for others); no gradient
    for ``a`` (``tf.math.polygamma``)."""
    return _run(POLYGAMMA, (a, x))


@export("math.zeta")
def zeta(x, q, name=None):
    """The Hurwitz zeta function ``sum_k (q + k)^-x``; no gradient for ``x`` (``tf.math.zeta``)."""
    return _run(ZETA, (x, q))


_TRUEDIV_FLOAT = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32",
                  "int32": "float64", "uint32": "float64", "int64": "float64", "uint64": "float64"}
_DIV_NO_NAN_TYPES = ("tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, "
                     "tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128")


@export("math.divide_no_nan")
def divide_no_nan(x, y, name=None):
    """``x / y``, 0 where ``y`` is 0 (even for NaN ``x``); integers are divided as floats, as by ``truediv``
    (``tf.math.divide_no_nan``).

    Raises:
        TypeError: for different dtypes, or a dtype that cannot be divided.
    """
    if not _is_tensorish(x) and _is_tensorish(y):
        y = to_tensor(y)
        x = to_tensor(x, y.dtype)
    else:
        x = to_tensor(x)
        y = to_tensor(y) if _is_tensorish(y) else convert_to_tensor(y, dtype_hint=x.dtype)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    name_ = x.dtype.name
    if name_ not in _TRUEDIV_FLOAT and name_ not in FLOAT_COMPLEX:
        raise TypeError(f"Invalid dtype {x.dtype!r} in tf.math.divide_no_nan. Expected one of "
                        f"{{{_DIV_NO_NAN_TYPES}}}.")
    target = _TRUEDIV_FLOAT.get(name_)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return execute(DIV_NO_NAN, (x, y))


@export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None):
    """``x * y``, 0 where ``y`` is 0 (even for NaN or infinite ``x``) (``tf.math.multiply_no_nan``).

    Raises:
        TypeError: when ``x`` and ``y`` have different dtypes.
    """
    x = to_tensor(x)
    try:
        y = to_tensor(y, x.dtype)
    except ValueError as exc:
        raise ValueError(f"y: {exc}") from None  # TF names the converted argument
    return execute(MUL_NO_NAN, (x, y))

"""Own forward-mode (JVP) rules for the common ops, registered on the ops with ``Op.defjvp``.

Every differentiable op already has a JVP: without an own rule, ``ForwardAccumulator`` transposes its gradient rule
(``_core/forward_mode.py``), which costs a gradient-rule call plus a small backward pass per op. The ops here are
the frequent or simple ones, where a direct rule is several times cheaper:

* linear ops (reshapes, slicing, gathers, concatenation, sums, casts, ``AddV2``...): the op itself applied to the
  tangents (zeros for the inputs without one);
* multilinear ops (``Mul``, ``MatMul``, ``Einsum``, convolutions...): one term per input with a tangent;
* elementwise unary ops: their Jacobian is diagonal, so the JVP is the gradient rule applied to the tangent (for
  complex inputs, of holomorphic functions only, conjugated on both sides), which keeps TF's conventions at kinks
  and for zero tangents exactly;
* a few others written out (``RealDiv``, ``Maximum``, ``Pow``, softmax...).

Rules take ``(tangents, ans, *inputs, **attrs)`` (see ``_core/registry.py``) and use tapeflow ops, so nested
accumulators and tapes differentiate them again. A rule returns ``DERIVE`` for cases it leaves to the
transposition (complex inputs of non-holomorphic formulas). They sit in this module of their own, loaded on the
first ``ForwardAccumulator``, rather than next to each forward: forward mode is an optional layer over the op
set, the op modules stay the single place for forwards and gradients, and ``import tapeflow`` does not pay for it.
The suite checks each rule against finite differences and against the transposed gradient rule
(``tests/test_forward_mode.py``).
"""

from __future__ import annotations

import numpy as np

from .._core.dispatch import execute
from .._core.dtypes import TRAINABLE_NUMS
from .._core.forward_mode import DERIVE
from .._core.registry import REGISTRY
from .._core.tensor import constant_of

_COMPLEX = frozenset(np.dtype(t).num for t in (np.complex64, np.complex128))


def _op(name):
    return REGISTRY[name]


def _zeros(x):
    v = x._value
    return constant_of(np.zeros_like(v) if type(v) is np.ndarray else v.dtype.type(0))


def _floating(x):
    return x._value.dtype.num in TRAINABLE_NUMS


def _is_complex(x):
    return x._value.dtype.num in _COMPLEX


ADD, SUB, MUL, NEG, CONJ = (_op(n) for n in ("AddV2", "Sub", "Mul", "Neg", "Conj"))
REALDIV, SELECT, SUM = _op("RealDiv"), _op("SelectV2"), _op("Sum")
GREATER_EQUAL, LESS_EQUAL, GREATER = _op("GreaterEqual"), _op("LessEqual"), _op("Greater")
EXP, LOG = _op("Exp"), _op("Log")


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return execute(ADD, (a, b))


def _mul(a, b):
    return execute(MUL, (a, b))


# ------------------------------------------------------------------------------------------ linear ops


def _linear(op):
    """JVP of an op linear in its floating inputs jointly: the op on the tangents (zeros where none)."""

    def rule(tangents, ans, *inputs, **attrs):
        args = tuple([t if t is not None else (_zeros(x) if _floating(x) else x) for t, x in zip(tangents, inputs)])
        return execute(op, args, attrs)

    return rule


_LINEAR = (
    "Identity", "Reshape", "Transpose", "ExpandDims", "Squeeze", "BroadcastTo", "ConcatV2", "Pack", "Split",
    "SplitV", "Tile", "ReverseV2", "Roll", "StridedSlice", "StridedSliceGrad", "Slice", "Pad", "PadV2", "MirrorPad",
    "MirrorPadGrad", "GatherV2", "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
    "TensorScatterSub", "Sum", "Mean", "MeanGrad", "Cumsum", "BiasAdd", "BiasAddGrad", "AddN", "SelectV2", "Fill",
    "Cast", "Conj", "Real", "Imag", "Complex", "Neg", "AddV2", "Sub", "MatrixBandPart", "MatrixDiagV3",
    "MatrixDiagPartV3", "MatrixSetDiagV3", "SegmentSum", "UnsortedSegmentSum", "GatherAlongAxis",
    "BooleanMask", "BooleanMaskGrad", "AvgPool", "AvgPoolGrad", "AvgPool3D", "AvgPool3DGrad",
)

# ------------------------------------------------------------------------------------------ multilinear ops


def _multilinear(op):
    """JVP of an op linear in each floating input separately: one term per input with a tangent."""

    def rule(tangents, ans, *inputs, **attrs):
        total = None
        for i, t in enumerate(tangents):
            if t is not None:
                args = inputs[:i] + (t,) + inputs[i + 1:]
                total = _add(total, execute(op, args, attrs))
        return total

    return rule


_MULTILINEAR = (
    "Mul", "MatMul", "BatchMatMulV2", "Einsum", "Cross", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
)

# ------------------------------------------------------------------------------------------ elementwise unary


def _diagonal(op, holomorphic):
    """JVP of an elementwise unary op: its gradient rule applied to the tangent (a diagonal Jacobian is its own
    transpose). For complex values TF's rules conjugate the derivative, undone here by conjugating in and out."""
    vjp = op.vjp

    def rule(tangents, ans, x, **attrs):
        t = tangents[0]
        if _is_complex(x):
            if not holomorphic:
                return DERIVE
            t = execute(CONJ, (t,))
            return execute(CONJ, (vjp(t, ans, x, **attrs)[0],))
        return vjp(t, ans, x, **attrs)[0]

    return rule


_HOLOMORPHIC = (
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Exp", "Expm1", "Log",
    "Log1p", "Sqrt", "Rsqrt", "Reciprocal", "Square", "Tanh", "Sigmoid",
)
_REAL_ONLY = (
    "Abs", "Relu", "Relu6", "LeakyRelu", "Elu", "Selu", "Softplus", "Erf", "Erfc", "Lgamma",
    "Digamma",
)


def _sign_jvp(tangents, ans, x):
    return None  # TF's Sign gradient is zeros, independent of the upstream: transposed, no tangent


# ------------------------------------------------------------------------------------------ written out


def _realdiv_jvp(tangents, z, x, y):
    tx, ty = tangents
    num = tx if ty is None else (execute(NEG, (_mul(ty, z),)) if tx is None else execute(SUB, (tx, _mul(ty, z))))
    return execute(REALDIV, (num, y))


def _select(mask, a, b):
    return execute(SELECT, (mask, a, b))


def _extremum_jvp(compare):
    def rule(tangents, z, x, y):
        tx, ty = tangents
        tx = _zeros(x) if tx is None else tx
        ty = _zeros(y) if ty is None else ty
        return _select(execute(compare, (x, y)), tx, ty)

    return rule


def _squared_difference_jvp(tangents, z, x, y):
    if _is_complex(x):
        return DERIVE
    tx, ty = tangents
    d = tx if ty is None else (execute(NEG, (ty,)) if tx is None else execute(SUB, (tx, ty)))
    return _mul(_mul(execute(SUB, (x, y)), constant_of(x._value.dtype.type(2))), d)


def _pow_jvp(tangents, z, x, y):
    if _is_complex(x):
        return DERIVE
    tx, ty = tangents
    out = None
    if tx is not None:
        one = constant_of(y._value.dtype.type(1))
        # TF's x-gradient: y * x ** (y - 1), also at x = 0.
        out = _mul(tx, _mul(y, execute(_op("Pow"), (x, execute(SUB, (y, one))))))
    if ty is not None:
        # TF's y-gradient takes log(x) as 0 where x <= 0.
        zero = _zeros(x)
        positive = execute(GREATER, (x, zero))
        safe = _select(positive, x, execute(ADD, (zero, constant_of(x._value.dtype.type(1)))))
        log_x = _select(positive, execute(LOG, (safe,)), zero)
        out = _add(out, _mul(ty, _mul(z, log_x)))
    return out


def _sum_keep(x, axis):
    return execute(SUM, (x,), {"axis": (axis,), "keepdims": True})


def _softmax_jvp(tangents, y, x, axis):
    t = tangents[0]
    yt = _mul(y, t)
    return execute(SUB, (yt, _mul(y, _sum_keep(yt, axis))))


def _log_softmax_jvp(tangents, y, x, axis):
    t = tangents[0]
    return execute(SUB, (t, _sum_keep(_mul(execute(EXP, (y,)), t), axis)))


def _l2_loss_jvp(tangents, y, x):
    return execute(SUM, (_mul(x, tangents[0]),), {"axis": None, "keepdims": False})


def _log_sum_exp_jvp(tangents, y, x, axis, keepdims):
    # sum(softmax(x) * t) over the reduced axes, the weights made as the gradient rule makes them (stable).
    from .reduction_ops import lse_shift  # noqa: PLC0415

    e = execute(EXP, (execute(SUB, (x, lse_shift(x, axis))),))
    s = execute(SUM, (e,), {"axis": axis, "keepdims": True})
    return execute(SUM, (_mul(execute(REALDIV, (e, s)), tangents[0]),), {"axis": axis, "keepdims": keepdims})


def _complex_abs_jvp(tangents, y, z):
    # Re(conj(z) t) / |z|, 0 at z == 0 (TF's gradient divides with div_no_nan); written without casts.
    re = execute(_op("Real"), (_mul(execute(CONJ, (z,)), tangents[0]),))
    return execute(_op("DivNoNan"), (re, y))


def _register():
    for name in _LINEAR:
        op = _op(name)
        op.defjvp(_linear(op))
    for name in _MULTILINEAR:
        op = _op(name)
        op.defjvp(_multilinear(op))
    for name in _HOLOMORPHIC:
        op = _op(name)
        op.defjvp(_diagonal(op, True))
    for name in _REAL_ONLY:
        op = _op(name)
        op.defjvp(_diagonal(op, False))
    _op("Sign").defjvp(_sign_jvp)
    _op("RealDiv").defjvp(_realdiv_jvp)
    _op("Maximum").defjvp(_extremum_jvp(GREATER_EQUAL))
    _op("Minimum").defjvp(_extremum_jvp(LESS_EQUAL))
    _op("SquaredDifference").defjvp(_squared_difference_jvp)
    _op("Pow").defjvp(_pow_jvp)
    _op("Softmax").defjvp(_softmax_jvp)
    _op("LogSoftmax").defjvp(_log_softmax_jvp)
    _op("L2Loss").defjvp(_l2_loss_jvp)
    _op("ComplexAbs").defjvp(_complex_abs_jvp)
    _op("ReduceLogSumExp").defjvp(_log_sum_exp_jvp)


_register()

"""Lowerings of the elementwise, activation, reduction and product ops (see ``_registry.py``).

Broadcasting needs no work: TF's binary ops and ONNX's broadcast the same way (NumPy's rules). Where ONNX has no
op of the same meaning, the lowering spells TF's definition out with ONNX ops (``Rsqrt`` is ``1 / Sqrt``, ``Erfc``
is ``1 - Erf``, ``FloorMod`` of floats is ``x - floor(x / y) * y``).
"""

from __future__ import annotations

import numpy as np

from ._registry import Unsupported, lowers, np_dtype

# ------------------------------------------------------------------------------------------ one ONNX op each

# tapeflow op -> the ONNX op of the same meaning on the same inputs.
SAME = {
    "AddV2": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div", "Maximum": "Max", "Minimum": "Min", "Pow": "Pow",
    "Less": "Less", "LessEqual": "LessOrEqual", "Greater": "Greater", "GreaterEqual": "GreaterOrEqual",
    "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or", "LogicalNot": "Not", "SelectV2": "Where",
    "Neg": "Neg", "Abs": "Abs", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Reciprocal": "Reciprocal",
    "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Softplus": "Softplus", "Softsign": "Softsign", "Erf": "Erf",
    "Floor": "Floor", "Ceil": "Ceil", "Round": "Round", "Sign": "Sign", "Sin": "Sin", "Cos": "Cos", "Tan": "Tan",
    "Asin": "Asin", "Acos": "Acos", "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh",
    "Acosh": "Acosh", "Atanh": "Atanh", "IsNan": "IsNaN", "IsInf": "IsInf", "Identity": "Identity",
    "StopGradient": "Identity", "AddN": "Sum", "BitwiseAnd": "BitwiseAnd", "BitwiseOr": "BitwiseOr",
    "BitwiseXor": "BitwiseXor", "Invert": "BitwiseNot",
}


def _same(cx, n):
    kind = SAME[n.op_key]
    if kind == "Sum" and len(n.ins) == 1:
        kind = "Identity"
    cx.add(kind, n.ins, out=n.outs[0])


for _key in SAME:
    lowers(_key)(_same)


def scalar(cx, value, dtype):
    """A 0-d constant of ``dtype``."""
    return cx.const(np.asarray(value, dtype=dtype))


@lowers("Relu")
def _relu(cx, n):
    if n.dtypes[0].kind == "f":
        cx.add("Relu", n.ins, out=n.outs[0])
    else:  # ONNX's Relu takes integers from opset 14 on, but not every runtime does
        cx.add("Max", [n.ins[0], scalar(cx, 0, n.dtypes[0])], out=n.outs[0])


@lowers("Relu6")
def _relu6(cx, n):
    dt = n.dtypes[0]
    cx.add("Clip", [n.ins[0], scalar(cx, 0, dt), scalar(cx, 6, dt)], out=n.outs[0])


@lowers("Elu")
def _elu(cx, n):
    cx.add("Elu", n.ins, out=n.outs[0], alpha=1.0)


@lowers("Selu")
def _selu(cx, n):
    # TF's constants (the kernel's scale and alpha), not ONNX's defaults spelled with fewer digits.
    cx.add("Selu", n.ins, out=n.outs[0], alpha=1.6732632423543772, gamma=1.0507009873554805)


@lowers("LeakyRelu")
def _leaky_relu(cx, n):
    cx.add("LeakyRelu", n.ins, out=n.outs[0], alpha=float(n.get("alpha", 0.2)))


@lowers("Swish")
def _swish(cx, n):
    x, beta = n.ins
    cx.add("Mul", [x, cx.add("Sigmoid", [cx.add("Mul", [beta, x])])], out=n.outs[0])


@lowers("Rsqrt")
def _rsqrt(cx, n):
    cx.add("Reciprocal", [cx.add("Sqrt", n.ins)], out=n.outs[0])


@lowers("Square")
def _square(cx, n):
    cx.add("Mul", [n.ins[0], n.ins[0]], out=n.outs[0])


@lowers("SquaredDifference")
def _squared_difference(cx, n):
    d = cx.add("Sub", n.ins)
    cx.add("Mul", [d, d], out=n.outs[0])


@lowers("Erfc")
def _erfc(cx, n):
    cx.add("Sub", [scalar(cx, 1, n.dtypes[0]), cx.add("Erf", n.ins)], out=n.outs[0])


@lowers("Expm1")
def _expm1(cx, n):
    cx.add("Sub", [cx.add("Exp", n.ins), scalar(cx, 1, n.dtypes[0])], out=n.outs[0])


@lowers("Log1p")
def _log1p(cx, n):
    cx.add("Log", [cx.add("Add", [n.ins[0], scalar(cx, 1, n.dtypes[0])])], out=n.outs[0])


@lowers("NotEqual")
def _not_equal(cx, n):
    cx.add("Not", [cx.add("Equal", n.ins)], out=n.outs[0])


@lowers("IsFinite")
def _is_finite(cx, n):
    bad = cx.add("Or", [cx.add("IsNaN", n.ins), cx.add("IsInf", n.ins)])
    cx.add("Not", [bad], out=n.outs[0])


@lowers("DivNoNan")
def _div_no_nan(cx, n):
    x, y = n.ins
    dt = n.out_dtypes[0]
    zero = scalar(cx, 0, dt)
    cx.add("Where", [cx.add("Equal", [y, zero]), zero, cx.add("Div", [x, y])], out=n.outs[0])


def _zero_where_x_is(cx, n, value):
    """TF's ``x * f(y)`` family: 0 wherever ``x`` is 0, whatever ``f(y)`` is (inf, nan)."""
    x = n.ins[0]
    zero = scalar(cx, 0, n.out_dtypes[0])
    cx.add("Where", [cx.add("Equal", [x, zero]), zero, value], out=n.outs[0])


@lowers("MulNoNan")
def _mul_no_nan(cx, n):
    x, y = n.ins
    zero = scalar(cx, 0, n.out_dtypes[0])
    cx.add("Where", [cx.add("Equal", [y, zero]), zero, cx.add("Mul", [x, y])], out=n.outs[0])


@lowers("Xlogy")
def _xlogy(cx, n):
    x, y = n.ins
    _zero_where_x_is(cx, n, cx.add("Mul", [x, cx.add("Log", [y])]))


@lowers("Xlog1py")
def _xlog1py(cx, n):
    x, y = n.ins
    one = scalar(cx, 1, n.out_dtypes[0])
    _zero_where_x_is(cx, n, cx.add("Mul", [x, cx.add("Log", [cx.add("Add", [y, one])])]))


@lowers("Xdivy")
def _xdivy(cx, n):
    _zero_where_x_is(cx, n, cx.add("Div", n.ins))


@lowers("FloorDiv")
def _floor_div(cx, n):
    x, y = n.ins
    dt = n.out_dtypes[0]
    if dt.kind == "f":
        cx.add("Floor", [cx.add("Div", [x, y])], out=n.outs[0])
        return
    # ONNX's integer Div truncates toward zero; TF's floors. Exact in float64 for every int32 quotient.
    wide = [cx.add("Cast", [v], to=cx.onnx_type(np.float64)) for v in (x, y)]
    cx.add("Cast", [cx.add("Floor", [cx.add("Div", wide)])], out=n.outs[0], to=cx.onnx_type(dt))


@lowers("FloorMod")
def _floor_mod(cx, n):
    x, y = n.ins
    if n.out_dtypes[0].kind != "f":
        cx.add("Mod", [x, y], out=n.outs[0], fmod=0)  # integer Mod takes the divisor's sign, as TF's FloorMod
        return
    q = cx.add("Floor", [cx.add("Div", [x, y])])
    cx.add("Sub", [x, cx.add("Mul", [q, y])], out=n.outs[0])


@lowers("Cast")
def _cast(cx, n):
    target = np_dtype(n.attrs["dtype"])
    if n.dtypes[0].kind == "c" or target.kind == "c":
        raise Unsupported("ONNX Runtime has no complex tensors")
    cx.add("Cast", n.ins, out=n.outs[0], to=cx.onnx_type(target))


@lowers("BiasAdd")
def _bias_add(cx, n):
    x, bias = n.ins
    if n.get("data_format", "NHWC") in ("NCHW", "NCDHW") and n.rank(0) > 2:
        bias = cx.add("Reshape", [bias, cx.i64([-1] + [1] * (n.rank(0) - 2))])
    cx.add("Add", [x, bias], out=n.outs[0])


@lowers("Softmax", "LogSoftmax")
def _softmax(cx, n):
    cx.add(n.op, n.ins, out=n.outs[0], axis=int(n.get("axis", -1)))


# ------------------------------------------------------------------------------------------ reductions

_REDUCE = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin", "Prod": "ReduceProd",
           "EuclideanNorm": "ReduceL2", "ReduceLogSumExp": "ReduceLogSumExp", "All": "ReduceMin",
           "Any": "ReduceMax"}


def _axes(n):
    axis = n.get("axis")
    rank = n.rank(0)
    if axis is None:
        return list(range(rank))
    axis = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    return [int(a) % rank if rank else int(a) for a in axis]


@lowers(*_REDUCE)
def _reduce(cx, n):
    axes = _axes(n)
    keep = int(bool(n.get("keepdims", False)))
    x = n.ins[0]
    if not axes:  # a reduction over no axis gives its input back
        cx.add("Identity", [x], out=n.outs[0])
        return
    if n.op_key == "Mean" and n.dtypes[0].kind in "iu":
        raise Unsupported("an integer mean (TF truncates it; ONNX's ReduceMean is defined for floats)")
    boolean = n.dtypes[0].kind == "b"
    if boolean:  # All/Any: min/max of 0/1 (runtimes reduce no booleans)
        x = cx.add("Cast", [x], to=cx.onnx_type(np.int32))
    out = cx.add(_REDUCE[n.op_key], [x, cx.i64(axes)], out=None if boolean else n.outs[0], keepdims=keep)
    if boolean:
        cx.add("Cast", [out], out=n.outs[0], to=cx.onnx_type(np.bool_))


@lowers("ArgMax", "ArgMin")
def _arg(cx, n):
    axis = n.attrs["axis"]
    out = cx.add(n.op, [n.ins[0]], axis=int(axis), keepdims=0, select_last_index=0)
    cx.add("Cast", [out], out=n.outs[0], to=cx.onnx_type(n.out_dtypes[0]))


@lowers("L2Loss")
def _l2_loss(cx, n):
    x = n.ins[0]
    total = cx.add("ReduceSum", [cx.add("Mul", [x, x])], keepdims=0)
    cx.add("Div", [total, scalar(cx, 2, n.dtypes[0])], out=n.outs[0])


@lowers("Cumsum")
def _cumsum(cx, n):
    axis = cx.const(np.asarray(int(n.attrs["axis"]), np.int64))
    cx.add("CumSum", [n.ins[0], axis], out=n.outs[0], exclusive=int(bool(n.get("exclusive", False))),
           reverse=int(bool(n.get("reverse", False))))


# ------------------------------------------------------------------------------------------ products


def _swap_last(cx, x, rank):
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return cx.add("Transpose", [x], perm=perm)


@lowers("MatMul", "BatchMatMulV2")
def _matmul(cx, n):
    a, b = n.ins
    ta = n.get("transpose_a", False) or n.get("adj_x", False) or n.get("adjoint_a", False)
    tb = n.get("transpose_b", False) or n.get("adj_y", False) or n.get("adjoint_b", False)
    if ta:
        a = _swap_last(cx, a, n.rank(0))
    if tb:
        b = _swap_last(cx, b, n.rank(1))
    cx.add("MatMul", [a, b], out=n.outs[0])


@lowers("Einsum")
def _einsum(cx, n):
    equation = n.attrs["equation"].replace(" ", "")
    # ONNX's Einsum spells its subscripts in lower case: each letter gets a lower-case one of its own.
    letters = sorted({c for c in equation if c.isalpha()})
    if len(letters) > 26:
        raise Unsupported(f"more than 26 subscripts in {equation!r}")
    spare = iter(c for c in "abcdefghijklmnopqrstuvwxyz")
    rename = {c: next(spare) for c in letters}
    if "->" not in equation:
        raise Unsupported(f"an implicit output in {equation!r}")
    eq = "".join(rename.get(c, c) for c in equation)
    # ONNX's ellipses must stand for as many axes in every operand: a shorter one gets leading axes of 1 (which
    # broadcast as TF's would).
    terms = eq.split("->")[0].split(",")
    spans = [n.rank(k) - len(t.replace("...", "")) if "..." in t else 0 for k, t in enumerate(terms)]
    widest = max(spans) if spans else 0
    ins = []
    for x, t, span in zip(n.ins, terms, spans):
        if "..." in t and span < widest:
            at = t.index("...")
            x = cx.add("Unsqueeze", [x, cx.i64(range(at, at + widest - span))])
        ins.append(x)
    cx.add("Einsum", ins, out=n.outs[0], equation=eq)

"""Elementwise math: forward (NumPy) and gradient (tapeflow ops) side by side, one block per primitive.

Gradient conventions are TensorFlow's, including at kinks: ``abs'(0) = 0``, ``relu'(0) = 0``, ties in
``maximum``/``minimum`` go to ``x``, ``sqrt'(0) = inf``, and complex inputs get conjugated gradients.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, FLOAT_COMPLEX, NUMERIC, REAL, Op, defop
from .._core.tensor import EagerTensor, Tensor, constant_of, convert_to_tensor, wrap
from . import _ragged_dispatch as _ragged
from ._convert import matching, scalar_of, to_tensor
from .array_ops import cast, ones_like, where, zeros_like

__all__ = [
    "add", "subtract", "multiply", "truediv", "divide", "floordiv", "floormod", "pow", "maximum", "minimum",
    "negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sign", "floor", "round", "reciprocal", "conj",
    "sigmoid", "tanh", "relu", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "real", "imag", "realdiv",
]


def _broadcast_error(exc, values, attrs, name):
    if isinstance(exc, ZeroDivisionError) or "negative integer powers" in str(exc):
        return errors.op_error(name, str(exc))  # integer division by zero, int ** negative int
    a, b = values[0], values[1]
    return errors.op_error(name, f"Incompatible shapes: {errors.shape_str(np.shape(a))} vs. "
                                 f"{errors.shape_str(np.shape(b))}")


def _binary_op(name, dtypes=NUMERIC, quiet=False):
    """Register a broadcasting binary op whose shape errors read like TF's."""
    return defop(name, dtypes=dtypes, quiet=quiet, on_error=lambda e, v, a: _broadcast_error(e, v, a, name))


def conj(x, name=None):
    """Complex conjugate; real tensors are returned unchanged (``tf.math.conj``)."""
    x = to_tensor(x)
    if x._value.dtype.kind != "c":
        return x
    return execute(CONJ, (x,))


@defop("Conj", dtypes=("complex64", "complex128"))
def CONJ(x):
    return np.conj(x)


@CONJ.defvjp
def _conj_grad(g, y, x):
    return (conj(g),)


def _cj(t):
    """``conj(t)`` for a tensor, at the cost of one dtype check when it is real (the hot case in rules)."""
    return t if t._value.dtype.kind != "c" else execute(CONJ, (t,))


def raw_cj(v):
    """``conj(v)`` for a NumPy value, in rules on arrays (``Op.defraw``), through ``Conj``'s kernel."""
    return v if v.dtype.kind != "c" else CONJ.forward(v)


def via_tensors(rule, g, ans, values, needs=None, **attrs):
    """Run the tensor ``rule`` from a rule on arrays (for its rare branches); returns the gradients' values.

    ``g`` and ``ans`` may be tuples (multi-output ops) with ``None`` entries; ``values`` are the op's inputs.
    """
    def box(v):
        return tuple([None if x is None else wrap(x) for x in v]) if type(v) is tuple else wrap(v)

    inputs = [wrap(v) for v in values]
    if needs is not None:
        inputs.append(needs)
    out = rule(box(g), box(ans), *inputs, **attrs)
    if type(out) is not tuple:
        return None if out is None else out._value
    return tuple([None if x is None else x._value for x in out])


# ------------------------------------------------------------------------------------------ binary arithmetic


# Arithmetic forwards use Python operators, not ``np.add`` & co.: on NumPy scalars (every rank-0 value here)
# the operators take NumPy's scalar fast path, about eight times quicker than a ufunc call.
@_binary_op("AddV2")
def ADD(x, y):
    return x + y


@ADD.defvjp
def _add_grad(g, z, x, y):
    return g, g


@ADD.defraw
def _add_raw(g, z, x, y):
    return g, g


def _string_add(x, y):
    out = np.add(x, y)  # object arrays of bytes: elementwise concatenation, broadcast
    return out if type(out) is np.ndarray else np.array(out, dtype=object)  # rank 0 stays a 0-d array


# TF's ``Add`` (not ``AddV2``) is what ``+`` and ``tf.add`` run on strings: it concatenates them. Strings never
# carry gradients, so this kernel is kept out of the registry of differentiable primitives and their tests.
ADD_STRING = Op("Add", _string_add, allowed=("string",),
                on_error=lambda e, v, a: _broadcast_error(e, v, a, "Add"))


def add_or_concat(x, y):
    """``execute(ADD, (x, y))``, or TF's string ``Add`` when ``x`` is a string tensor (AddV2 refuses strings).

    The string check runs only after AddV2 has failed, so numeric ``+`` pays nothing for it.
    """
    try:
        return execute(ADD, (x, y))
    except errors.InvalidArgumentError:
        if x._value.dtype.kind != "O":
            raise
    return execute(ADD_STRING, (x, y))


@_binary_op("Sub")
def SUB(x, y):
    return x - y


@SUB.defvjp(needs=True)
def _sub_grad(g, z, x, y, needs):
    return g, (execute(NEG, (g,)) if needs[1] else None)


@SUB.defraw(needs=True)
def _sub_raw(g, z, x, y, needs):
    return g, (-g if needs[1] else None)


@_binary_op("Mul")
def MUL(x, y):
    return x * y


@MUL.defvjp(needs=True)
def _mul_grad(g, z, x, y, needs):
    return (execute(MUL, (g, _cj(y))) if needs[0] else None), (execute(MUL, (_cj(x), g)) if needs[1] else None)


@MUL.defraw(needs=True)
def _mul_raw(g, z, x, y, needs):
    return (g * raw_cj(y) if needs[0] else None), (raw_cj(x) * g if needs[1] else None)


@_binary_op("RealDiv", quiet=True)
def REALDIV(x, y):
    return x / y


@REALDIV.defvjp(needs=True)
def _realdiv_grad(g, z, x, y, needs):
    gx = execute(REALDIV, (g, _cj(y))) if needs[0] else None
    gy = g * conj(negative(x) / y / y) if needs[1] else None
    return gx, gy


@REALDIV.defraw(needs=True)
def _realdiv_raw(g, z, x, y, needs):
    gx = g / raw_cj(y) if needs[0] else None
    gy = g * raw_cj(-x / y / y) if needs[1] else None
    return gx, gy


@_binary_op("FloorDiv", quiet=True, dtypes=REAL)
def FLOORDIV(x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ZeroDivisionError("Integer division by zero")
    return np.floor_divide(x, y)


# TF declares FloorDiv non-differentiable (its gradient is None, not zero).


@_binary_op("FloorMod", quiet=True, dtypes=REAL)
def FLOORMOD(x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ZeroDivisionError("Integer division by zero")
    return np.mod(x, y)


@FLOORMOD.defvjp(needs=True)
def _floormod_grad(g, z, x, y, needs):
    gy = negative(g) * floordiv(x, y) if needs[1] else None
    return g, gy


@_binary_op("Pow", quiet=True)
def POW(x, y):
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0):
        raise ValueError("Integers to negative integer powers are not allowed")
    return x ** y


@POW.defvjp(needs=True)
def _pow_grad(g, z, x, y, needs):
    gx = gy = None
    if needs[0]:
        # The same ops whatever ``y`` holds: a rule branches on shapes, dtypes and attrs only, never on values (a
        # traced step replays it for other values). The rule on arrays below may take the x ** 2 shortcut, a kernel
        # detail with bit-identical results.
        gx = g * conj(y * pow(x, y - 1))
    if needs[1]:
        # d(x**y)/dy = x**y * log(x), taken as 0 where x <= 0 (x == 0 for complex), as TF does.
        mask = not_equal(x, 0) if x._value.dtype.kind == "c" else greater(x, 0)
        safe_x = where(mask, x, ones_like(x))
        log_x = where(mask, log(safe_x), zeros_like(x))
        gy = g * conj(z * log_x)
    return gx, gy


@POW.defraw(needs=True)
def _pow_raw(g, z, x, y, needs):
    if not needs[1] and y.ndim == 0 and y == 2 and x.dtype.kind != "c":
        return g * (y * x), None  # x ** 2: y * x ** (y - 1) is exactly y * x, in two multiplies instead of four ops
    return via_tensors(_pow_grad, g, z, (x, y), needs)


# On equal values (0.0 and -0.0) TF returns its first operand, NumPy its second: the operands are swapped.
@_binary_op("Maximum", dtypes=REAL)
def MAXIMUM(x, y):
    return np.maximum(y, x)



@MAXIMUM.defvjp(needs=True)
def _maximum_grad(g, z, x, y, needs):
    return _select_grad(g, greater_equal(x, y), needs)


@_binary_op("Minimum", dtypes=REAL)
def MINIMUM(x, y):
    return np.minimum(y, x)  # TF returns its first operand on equal values (see MAXIMUM)



@MINIMUM.defvjp(needs=True)
def _minimum_grad(g, z, x, y, needs):
    return _select_grad(g, less_equal(x, y), needs)


def _select_grad(g, xmask, needs):
    """Route ``g`` to ``x`` where ``xmask`` holds (ties included) and to ``y`` elsewhere."""
    zeros = zeros_like(g)
    gx = where(xmask, g, zeros) if needs[0] else None
    gy = where(xmask, zeros, g) if needs[1] else None
    return gx, gy


# ------------------------------------------------------------------------------------------ comparisons, logic
# Declared non-differentiable: no ``defvjp``, so gradients through them are None.

def _compare_forward(ufunc, mismatch):
    def forward(x, y, incompatible_shape_error=True):
        if not incompatible_shape_error and not _broadcastable(np.shape(x), np.shape(y)):
            return np.bool_(mismatch)  # ``==`` between unbroadcastable shapes is a scalar False, as in TF
        return ufunc(x, y)

    return forward


def _broadcastable(a, b):
    return all(p == q or p == 1 or q == 1 for p, q in zip(a[::-1], b[::-1]))


EQUAL = _binary_op("Equal", dtypes=None)(_compare_forward(np.equal, False))
NOT_EQUAL = _binary_op("NotEqual", dtypes=None)(_compare_forward(np.not_equal, True))
NO_SHAPE_ERROR = {"incompatible_shape_error": False}
LESS = _binary_op("Less", dtypes=REAL)(lambda x, y: np.less(x, y))
LESS_EQUAL = _binary_op("LessEqual", dtypes=REAL)(lambda x, y: np.less_equal(x, y))
GREATER = _binary_op("Greater", dtypes=REAL)(lambda x, y: np.greater(x, y))
GREATER_EQUAL = _binary_op("GreaterEqual", dtypes=REAL)(lambda x, y: np.greater_equal(x, y))
LOGICAL_AND = _binary_op("LogicalAnd", dtypes=("bool",))(lambda x, y: np.logical_and(x, y))
LOGICAL_OR = _binary_op("LogicalOr", dtypes=("bool",))(lambda x, y: np.logical_or(x, y))
BITWISE_AND = _binary_op("BitwiseAnd", dtypes=("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                               "uint64"))(lambda x, y: np.bitwise_and(x, y))
BITWISE_OR = _binary_op("BitwiseOr", dtypes=BITWISE_AND.allowed)(lambda x, y: np.bitwise_or(x, y))
BITWISE_XOR = _binary_op("BitwiseXor", dtypes=BITWISE_AND.allowed)(lambda x, y: np.bitwise_xor(x, y))
LOGICAL_NOT = defop("LogicalNot", dtypes=("bool",))(lambda x: np.logical_not(x))
INVERT = defop("Invert", dtypes=BITWISE_AND.allowed)(lambda x: np.invert(x))


# ------------------------------------------------------------------------------------------ unary


@defop("Neg", dtypes=NUMERIC)
def NEG(x):
    return -x


@NEG.defvjp
def _neg_grad(g, y, x):
    return (execute(NEG, (g,)),)


@NEG.defraw
def _neg_raw(g, y, x):
    return (-g,)


@defop("Abs", dtypes=REAL)
def ABS(x):
    return np.abs(x)


@ABS.defvjp
def _abs_grad(g, y, x):
    return (g * sign(x),)


@defop("ComplexAbs", dtypes=("complex64", "complex128"))
def COMPLEX_ABS(x):
    return np.abs(x)


@COMPLEX_ABS.defvjp
def _complex_abs_grad(g, y, x):
    # d|z| = Re(conj(z)/|z| dz): the gradient is g * z / |z|, 0 at z == 0 as TF.
    safe = where(equal(y, 0), ones_like(y), y)
    scale = where(equal(y, 0), zeros_like(y), g / safe)
    return (cast(scale, x.dtype) * x,)


@defop("Square", dtypes=NUMERIC)
def SQUARE(x):
    return x * x


@SQUARE.defvjp
def _square_grad(g, y, x):
    return (g * (conj(x) * _scalar(2, x)),)


@SQUARE.defraw
def _square_raw(g, y, x):
    return (g * (raw_cj(x) * scalar_of(2, x.dtype)),)


SQRT = defop("Sqrt", quiet=True, dtypes=FLOAT_COMPLEX)(np.sqrt)


@SQRT.defvjp
def _sqrt_grad(g, y, x):
    return (execute(SQRT_GRAD, (y, g)),)


@SQRT.defraw
def _sqrt_raw(g, y, x):
    return (SQRT_GRAD.forward(y, g),)


@defop("SqrtGrad", quiet=True, dtypes=FLOAT_COMPLEX)
def SQRT_GRAD(y, g):
    out = g * y.dtype.type(0.5) / np.conj(y)
    return _zero_where_no_upstream(out, y, g)


def _zero_where_no_upstream(out, y, g):
    """TF's gradient kernels (SqrtGrad, RsqrtGrad, ReciprocalGrad) give 0 where the upstream gradient is 0, even
    where the local derivative is infinite (0 * inf would be NaN)."""
    if np.all(np.isfinite(out)):
        return out
    return np.where(g == 0, out.dtype.type(0), out)[()]


@SQRT_GRAD.defvjp(needs=True)
def _sqrt_grad_grad(gg, dx, y, g, needs):
    # dx = 0.5 * g / conj(y)
    ga = gg / y
    return (negative(_cj(ga)) * dx if needs[0] else None), (_scalar(0.5, ga) * ga if needs[1] else None)


@defop("Rsqrt", quiet=True, dtypes=FLOAT_COMPLEX)
def RSQRT(x):
    return 1 / np.sqrt(x)


@RSQRT.defvjp
def _rsqrt_grad(g, y, x):
    # d(x^-1/2) = -1/2 x^-3/2 = -1/2 y^3
    return (_no_upstream_no_gradient(g * conj(_scalar(-0.5, y) * y * y * y), g),)


def _no_upstream_no_gradient(gx, g):
    """``gx``, with 0 where ``g`` is 0 (see ``_zero_where_no_upstream``). Always recorded, finite or not: a rule
    emits the same ops whatever the values."""
    return where(equal(g, 0), zeros_like(gx), gx)


EXP = defop("Exp", quiet=True, dtypes=FLOAT_COMPLEX)(np.exp)


@EXP.defvjp
def _exp_grad(g, y, x):
    return (execute(MUL, (g, _cj(y))),)


@EXP.defraw
def _exp_raw(g, y, x):
    return (g * raw_cj(y),)


LOG = defop("Log", quiet=True, dtypes=FLOAT_COMPLEX)(np.log)


@LOG.defvjp
def _log_grad(g, y, x):
    return (g * reciprocal(conj(x)),)


@LOG.defraw
def _log_raw(g, y, x):
    return (g * RECIPROCAL.forward(raw_cj(x)),)


@defop("Reciprocal", quiet=True, dtypes=FLOAT_COMPLEX + ("int8", "int16", "int32", "int64"))
def RECIPROCAL(x):
    return np.reciprocal(x)


@RECIPROCAL.defvjp
def _reciprocal_grad(g, y, x):
    return (_no_upstream_no_gradient(g * negative(conj(y * y)), g),)


@defop("Sign", quiet=True, dtypes=NUMERIC)
def SIGN(x):
    if x.dtype.kind == "c":
        a = np.abs(x)
        return np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    return np.sign(x)


@SIGN.defvjp
def _sign_grad(g, y, x):
    # TF: the derivative of sign is zero everywhere (not None).
    return (zeros_like(x),)


# Floor and Round are declared non-differentiable: TF returns None through them.
FLOOR = defop("Floor", dtypes=FLOAT)(lambda x: np.floor(x))
ROUND = defop("Round", dtypes=NUMERIC)(lambda x: np.round(x) if x.dtype.kind in "fc" else x)


@defop("Sigmoid", dtypes=FLOAT_COMPLEX)
def SIGMOID(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    # Stable in both tails: exp never overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)[()]


@SIGMOID.defvjp
def _sigmoid_grad(g, y, x):
    return (execute(SIGMOID_GRAD, (_cj(y), g)),)


@SIGMOID.defraw
def _sigmoid_raw(g, y, x):
    return (SIGMOID_GRAD.forward(raw_cj(y), g),)


@defop("SigmoidGrad", dtypes=FLOAT_COMPLEX)
def SIGMOID_GRAD(y, g):
    return g * (y * (1 - y))


@SIGMOID_GRAD.defvjp(needs=True)
def _sigmoid_grad_grad(gg, dx, y, g, needs):
    # dx = g * y * (1 - y), holomorphic in y and g: conjugate both for the vector-Jacobian product.
    a, b = _cj(y), _cj(g)
    gb = gg * b
    gy = gb - _scalar(2, gb) * gb * a if needs[0] else None
    gg_ = execute(SIGMOID_GRAD, (a, gg)) if needs[1] else None
    return gy, gg_


TANH = defop("Tanh", dtypes=FLOAT_COMPLEX)(np.tanh)


@TANH.defvjp
def _tanh_grad(g, y, x):
    return (execute(TANH_GRAD, (_cj(y), g)),)


@TANH.defraw
def _tanh_raw(g, y, x):
    return (TANH_GRAD.forward(raw_cj(y), g),)


@defop("TanhGrad", dtypes=FLOAT_COMPLEX)
def TANH_GRAD(y, g):
    return g * (1 - y * y)


@TANH_GRAD.defvjp(needs=True)
def _tanh_grad_grad(gg, dx, y, g, needs):
    # dx = g * (1 - y * y): conjugate both inputs for the vector-Jacobian product.
    a, b = _cj(y), _cj(g)
    gy = gg * _scalar(-2, gg) * b * a if needs[0] else None
    gg_ = execute(TANH_GRAD, (a, gg)) if needs[1] else None
    return gy, gg_


@defop("Relu", dtypes=REAL)
def RELU(x):
    return np.maximum(x.dtype.type(0), x)  # x on a tie, as TF: relu(-0.0) is -0.0


@RELU.defvjp
def _relu_grad(g, y, x):
    return (execute(RELU_GRAD, (g, y)),)


@RELU.defraw
def _relu_raw(g, y, x):
    return (RELU_GRAD.forward(g, y),)


@defop("ReluGrad", dtypes=REAL)
def RELU_GRAD(g, y):
    # relu'(0) = 0: the gradient passes only where the output is strictly positive. A product with the mask, as
    # TF's kernel computes it (so a NaN gradient stays NaN), and five times quicker than ``np.where``.
    return g * (y > 0)


@RELU_GRAD.defvjp(needs=True)
def _relu_grad_grad(gg, dx, g, y, needs):
    return (execute(RELU_GRAD, (gg, y)) if needs[0] else None), None


@defop("Real", dtypes=("complex64", "complex128"), same_dtype=False)
def REAL_PART(x):
    return np.real(x)


@REAL_PART.defvjp
def _real_grad(g, y, x):
    return (cast(g, x.dtype),)


@defop("Imag", dtypes=("complex64", "complex128"), same_dtype=False)
def IMAG_PART(x):
    return np.imag(x)


@IMAG_PART.defvjp
def _imag_grad(g, y, x):
    return (cast(g, x.dtype) * _scalar(1j, x),)  # d Im(z) -> complex(0, g), as TF


def _complex_error(exc, values, attrs):
    return _broadcast_error(exc, values, attrs, "Complex")


@defop("Complex", dtypes=("float32", "float64"), on_error=_complex_error)
def COMPLEX(re, im):
    np.broadcast_shapes(np.shape(re), np.shape(im))  # TF's "Incompatible shapes" before any work
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)),
                   np.complex128 if re.dtype == np.float64 else np.complex64)
    out.real = re
    out.imag = im
    return out[()]


@COMPLEX.defvjp(needs=True)
def _complex_grad(g, z, re, im, needs):
    return (real(g) if needs[0] else None), (imag(g) if needs[1] else None)


@export("complex")
def complex(real, imag, name=None):
    """``real + i * imag`` from two float32 (complex64 result) or two float64 (complex128) tensors (``tf.complex``).

    Raises:
        TypeError: when the parts are not both float32 or both float64 (Python floats convert to float32).
    """
    re, im = to_tensor(real), to_tensor(imag)
    if re.dtype != im.dtype or re.dtype.name not in ("float32", "float64"):
        raise TypeError(f"The `real` and `imag` components have incorrect types: {re.dtype.name} {im.dtype.name}. "
                        "They must be consistent, and one of [tf.float32, tf.float64]")
    return execute(COMPLEX, (re, im))


# ------------------------------------------------------------------------------------------ helpers


def _scalar(value, like):
    """A rank-0 constant of ``like``'s dtype (not recorded: it has no inputs)."""
    return constant_of(scalar_of(value, like._value.dtype))


# ------------------------------------------------------------------------------------------ public functions


def _binary_api(op, doc, lenient=False):
    def api(x, y, name=None):
        if (type(x) is not EagerTensor or type(y) is not EagerTensor) and (_ragged.is_ragged(x) or
                                                                          _ragged.is_ragged(y)):
            return _ragged.binary(api, x, y)
        x, y = matching(x, y, lenient=lenient)
        return execute(op, (x, y))

    api.__doc__ = doc
    return api


def _unary_api(op, doc, keeps_zero=False):
    """The public function running ``op``; with ``keeps_zero`` (``f(0) == 0``) it also maps a ``SparseTensor``'s
    values, as TF dispatches its zero-preserving ops."""
    def api(x, name=None):
        # A tensor goes straight through (no ``to_tensor`` call): ``tf.nn.relu`` & co. run on every layer.
        if type(x) is EagerTensor:
            return execute(op, (x,))
        if keeps_zero and getattr(x, "_tapeflow_sparse", False):
            return x.with_values(api(x.values))
        if _ragged.is_ragged(x):
            return _ragged.unary(api, x)
        return execute(op, (to_tensor(x),))

    api.__doc__ = doc
    return api


def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting; concatenation for strings (``tf.math.add``)."""
    if (type(x) is not EagerTensor or type(y) is not EagerTensor) and (_ragged.is_ragged(x) or _ragged.is_ragged(y)):
        return _ragged.binary(add, x, y)
    if type(x) is not EagerTensor and not isinstance(x, Tensor) and not getattr(x, "_tapeflow_variable", False):
        # TF's Add converts ``x`` on its own first (``1`` is int32, a float64 array float64), then ``y`` towards it:
        # ``tf.add(1, tf.constant(2.0))`` is AddV2's dtype error, not 3.0.
        x = convert_to_tensor(x)
    x, y = matching(x, y, lenient=True)
    return add_or_concat(x, y)


subtract = _binary_api(SUB, "Elementwise ``x - y`` with broadcasting (``tf.math.subtract``).")
multiply = _binary_api(MUL, "Elementwise ``x * y`` with broadcasting (``tf.math.multiply``).")
maximum = _binary_api(MAXIMUM, "Elementwise maximum; the gradient at ties goes to ``x`` (``tf.math.maximum``).")
minimum = _binary_api(MINIMUM, "Elementwise minimum; the gradient at ties goes to ``x`` (``tf.math.minimum``).")
floormod = _binary_api(FLOORMOD, "Elementwise remainder of floor division (``tf.math.floormod``).")
less = _binary_api(LESS, "Elementwise ``x < y`` (``tf.math.less``).")
less_equal = _binary_api(LESS_EQUAL, "Elementwise ``x <= y`` (``tf.math.less_equal``).")
greater = _binary_api(GREATER, "Elementwise ``x > y`` (``tf.math.greater``).")
greater_equal = _binary_api(GREATER_EQUAL, "Elementwise ``x >= y`` (``tf.math.greater_equal``).")
logical_and = _binary_api(LOGICAL_AND, "Elementwise logical and of bool tensors (``tf.math.logical_and``).")
logical_or = _binary_api(LOGICAL_OR, "Elementwise logical or of bool tensors (``tf.math.logical_or``).")

negative = _unary_api(NEG, "Elementwise ``-x`` (``tf.math.negative``).", keeps_zero=True)
square = _unary_api(SQUARE, "Elementwise ``x * x`` (``tf.math.square``).", keeps_zero=True)
sqrt = _unary_api(SQRT, "Elementwise square root; its gradient at 0 is ``inf`` (``tf.math.sqrt``).", keeps_zero=True)
rsqrt = _unary_api(RSQRT, "Elementwise ``1 / sqrt(x)`` (``tf.math.rsqrt``).")
exp = _unary_api(EXP, "Elementwise ``e ** x`` (``tf.math.exp``).")
log = _unary_api(LOG, "Elementwise natural logarithm (``tf.math.log``).")
reciprocal = _unary_api(RECIPROCAL, "Elementwise ``1 / x`` (``tf.math.reciprocal``).")
sign = _unary_api(SIGN, "Elementwise sign (-1, 0 or 1); its gradient is zero (``tf.math.sign``).", keeps_zero=True)
floor = _unary_api(FLOOR, "Elementwise floor; not differentiable (``tf.math.floor``).")
round = _unary_api(ROUND, "Elementwise rounding, half to even; not differentiable (``tf.math.round``).")
sigmoid = _unary_api(SIGMOID, "Elementwise logistic function ``1 / (1 + exp(-x))`` (``tf.math.sigmoid``).")
tanh = _unary_api(TANH, "Elementwise hyperbolic tangent (``tf.math.tanh``).", keeps_zero=True)
relu = _unary_api(RELU, "Rectified linear unit ``max(x, 0)``; its gradient at 0 is 0 (``tf.nn.relu``).")
logical_not = _unary_api(LOGICAL_NOT, "Elementwise logical not of a bool tensor (``tf.math.logical_not``).")


def abs(x, name=None):
    """Elementwise absolute value (``|z|`` as a real tensor for complex input); ``abs'(0) = 0`` (``tf.math.abs``)."""
    if getattr(x, "_tapeflow_sparse", False):  # zero-preserving: TF maps a SparseTensor's values
        return x.with_values(abs(x.values))
    if _ragged.is_ragged(x):
        return _ragged.unary(abs, x)
    x = to_tensor(x)
    return execute(COMPLEX_ABS if x._value.dtype.kind == "c" else ABS, (x,))


def real(input, name=None):
    """The real part of a complex tensor; real tensors are returned unchanged (``tf.math.real``)."""
    x = to_tensor(input)
    return execute(REAL_PART, (x,)) if x._value.dtype.kind == "c" else x


def imag(input, name=None):
    """The imaginary part of a complex tensor; zeros for real tensors (``tf.math.imag``)."""
    x = to_tensor(input)
    return execute(IMAG_PART, (x,)) if x._value.dtype.kind == "c" else zeros_like(x)


def pow(x, y, name=None):
    """Elementwise ``x ** y`` (``tf.math.pow``)."""
    x, y = matching(x, y)
    return execute(POW, (x, y))


def equal(x, y, name=None):
    """Elementwise ``x == y`` (``tf.math.equal``)."""
    x, y = matching(x, y)
    return execute(EQUAL, (x, y))


def not_equal(x, y, name=None):
    """Elementwise ``x != y`` (``tf.math.not_equal``)."""
    x, y = matching(x, y)
    return execute(NOT_EQUAL, (x, y))


def logical_xor(x, y, name=None):
    """Elementwise exclusive or of bool tensors (``tf.math.logical_xor``)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


# The dtypes TF's ``/`` divides, in the order its error lists them.
_TRUEDIV_TYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "bfloat16", "float16",
                  "float32", "float64", "complex64", "complex128")
_INT_TO_FLOAT = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32",
                 "int32": "float64", "uint32": "float64", "int64": "float64", "uint64": "float64"}


def truediv(x, y, name=None):
    """Elementwise division; integers are first cast to floats, as Python 3's ``/`` (``tf.math.truediv``).

    Raises:
        TypeError: when ``x`` and ``y`` have different dtypes.
    """
    x = to_tensor(x)
    if not isinstance(y, Tensor):
        y = y._read() if getattr(y, "_tapeflow_variable", False) else convert_to_tensor(y, dtype_hint=x.dtype)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype.name not in _TRUEDIV_TYPES:  # bool and string: refused before any op, as TF's table refuses them
        raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__. Expected one of "
                        f"{{{', '.join('tf.' + t for t in _TRUEDIV_TYPES)}}}.")
    target = _INT_TO_FLOAT.get(x.dtype.name)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return execute(REALDIV, (x, y))


def realdiv(x, y, name=None):
    """Elementwise division of same-dtype tensors, without integer casting (``tf.realdiv``)."""
    x, y = matching(x, y)
    return execute(REALDIV, (x, y))


def divide(x, y, name=None):
    """``x / y`` (``tf.math.divide``)."""
    if not isinstance(x, Tensor) and not getattr(x, "_tapeflow_variable", False):
        x = to_tensor(x, y.dtype if isinstance(y, Tensor) or getattr(y, "_tapeflow_variable", False) else None)
    return x / y


def floordiv(x, y, name=None):
    """Elementwise division rounded toward negative infinity (``tf.math.floordiv``)."""
    x, y = matching(x, y)
    return execute(FLOORDIV, (x, y))

"""``tf.math``: elementwise math and reductions."""

from .ops.array_ops import cast
from .ops.math_ops import (
    abs,
    add,
    conj,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    imag,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    real,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)
from .ops.nn_ops import softmax
from .ops.reduction_ops import argmax, argmin, reduce_max, reduce_mean, reduce_min, reduce_sum

mod = floormod

__all__ = [
    "abs", "add", "argmax", "argmin", "cast", "conj", "divide", "equal", "exp", "floor", "floordiv", "floormod",
    "greater", "greater_equal", "imag", "less", "less_equal", "log", "logical_and", "logical_not", "logical_or",
    "logical_xor", "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "pow", "real",
    "reciprocal", "reduce_max", "reduce_mean", "reduce_min", "reduce_sum", "round", "rsqrt", "sigmoid", "sign",
    "softmax", "sqrt", "square", "subtract", "tanh", "truediv",
]

from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install  # noqa: E402

_install(globals(), "math")

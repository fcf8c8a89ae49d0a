"""Activation functions: forward (NumPy) and gradient (tapeflow ops) side by side, one block per primitive.

TensorFlow's conventions hold at the kinks: ``relu6'`` is 0 at 0 and at 6, ``leaky_relu'(0) = alpha``,
``elu'(0) = 1`` and ``selu'(0) = scale`` (the gradients test the output, or the input for leaky_relu, with
strict inequalities). ``softplus`` switches to ``x`` or ``exp(x)`` in its tails as TF's kernel does, and
``log_sigmoid`` is ``-softplus(-x)``, so both stay exact far from 0. ``SoftsignGrad`` has no gradient in TF:
a second derivative through ``softsign`` raises TF's ``LookupError``.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, FLOAT_COMPLEX, REAL, defop
from ._convert import to_tensor
from .array_ops import cast, where, zeros_like
from .elementwise_ops import erfc
from .math_ops import MUL, NEG, SIGMOID, _scalar, less, relu, sigmoid, tanh
from .math_ops import pow as _pow

__all__ = ["softplus", "softsign", "log_sigmoid", "relu6", "leaky_relu", "elu", "selu", "silu", "swish", "gelu"]

export("nn.relu")(relu)
export("nn.sigmoid")(sigmoid)
export("nn.tanh")(tanh)


def _fallback_call(op, features):
    """``op`` on ``features`` as TF's generated wrappers run it: a Python list goes through TF's slow path,
    whose errors carry no `` name: `` suffix."""
    return errors.call_on_path(errors.fast_path(features), execute, op, (to_tensor(features),))


# ------------------------------------------------------------------------------------------ softplus, softsign

_SOFTPLUS_THRESHOLD = {}


def _softplus_threshold(dt):
    """``log(eps) + 2``: beyond it (either way) ``softplus`` is ``x`` or ``exp(x)`` to machine precision."""
    t = _SOFTPLUS_THRESHOLD.get(dt)
    if t is None:
        t = _SOFTPLUS_THRESHOLD[dt] = dt.type(np.log(np.finfo(dt).eps) + 2)
    return t


@defop("Softplus", dtypes=FLOAT, quiet=True)
def SOFTPLUS(x):
    t = _softplus_threshold(x.dtype)
    e = np.exp(x)
    return np.where(x > -t, x, np.where(x < t, e, np.log1p(e)))[()]


@SOFTPLUS.defvjp
def _softplus_grad(g, y, x):
    # TF's rule goes through Sigmoid, so second derivatives are Sigmoid's.
    return (execute(MUL, (g, execute(SIGMOID, (x,)))),)


@defop("Softsign", dtypes=FLOAT, quiet=True)
def SOFTSIGN(x):
    return x / (1 + np.abs(x))


@SOFTSIGN.defvjp
def _softsign_grad(g, y, x):
    return (execute(SOFTSIGN_GRAD, (g, x)),)


@defop("SoftsignGrad", dtypes=FLOAT, quiet=True)
def SOFTSIGN_GRAD(g, x):
    d = 1 + np.abs(x)
    return g / (d * d)


@SOFTSIGN_GRAD.defvjp
def _softsign_grad_grad(gg, dx, g, x):
    raise LookupError("gradient registry has no entry for: SoftsignGrad")


@export("math.softplus", "nn.softplus")
def softplus(features, name=None):
    """``log(exp(x) + 1)``, exactly ``x`` or ``exp(x)`` far in the tails as TF's kernel (``tf.math.softplus``)."""
    return _fallback_call(SOFTPLUS, features)


@export("math.softsign", "nn.softsign")
def softsign(features, name=None):
    """``x / (abs(x) + 1)``; TF defines no second derivative for it (``tf.nn.softsign``)."""
    return _fallback_call(SOFTSIGN, features)


@export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """``log(sigmoid(x))`` computed as ``-softplus(-x)``, accurate in both tails (``tf.math.log_sigmoid``)."""
    x = to_tensor(x)
    return execute(NEG, (execute(SOFTPLUS, (execute(NEG, (x,)),)),))


# ------------------------------------------------------------------------------------------ relu6, leaky_relu


@defop("Relu6", dtypes=REAL, quiet=True)
def RELU6(x):
    zero = x.dtype.type(0)
    return np.minimum(np.maximum(zero, x), x.dtype.type(6))  # x on a tie with 0, as TF: relu6(-0.0) is -0.0


@RELU6.defvjp
def _relu6_grad(g, y, x):
    return (execute(RELU6_GRAD, (g, y)),)


@defop("Relu6Grad", dtypes=REAL, quiet=True)
def RELU6_GRAD(g, y):
    # A product, not a select, as TF's kernel: NaN or inf upstream gradients give NaN at the flat parts too.
    return g * ((y > 0) & (y < 6)).astype(g.dtype)


@RELU6_GRAD.defvjp(needs=True)
def _relu6_grad_grad(gg, dx, g, y, needs):
    return (execute(RELU6_GRAD, (gg, y)) if needs[0] else None), (zeros_like(y) if needs[1] else None)


@defop("LeakyRelu", dtypes=FLOAT, quiet=True)
def LEAKY_RELU(x, alpha):
    return np.where(x > 0, x, x * x.dtype.type(alpha))[()]


@LEAKY_RELU.defvjp
def _leaky_relu_grad(g, y, x, alpha):
    return (execute(LEAKY_RELU_GRAD, (g, x), {"alpha": alpha}),)


@defop("LeakyReluGrad", dtypes=FLOAT, quiet=True)
def LEAKY_RELU_GRAD(g, x, alpha):
    return np.where(x > 0, g, g * g.dtype.type(alpha))[()]


@LEAKY_RELU_GRAD.defvjp(needs=True)
def _leaky_relu_grad_grad(gg, dx, g, x, needs, alpha):
    gg_ = execute(LEAKY_RELU_GRAD, (gg, x), {"alpha": alpha}) if needs[0] else None
    return gg_, (zeros_like(x) if needs[1] else None)


@export("nn.relu6")
def relu6(features, name=None):
    """``min(max(x, 0), 6)``; its gradient is 0 at 0 and at 6 (``tf.nn.relu6``)."""
    return execute(RELU6, (to_tensor(features),))


@export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0``, else ``alpha * x``; the gradient at 0 is ``alpha``. Integers are cast to float32,
    and ``alpha`` is rounded to float32 as TF's attribute is (``tf.nn.leaky_relu``)."""
    x = to_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, "float32")
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return execute(LEAKY_RELU, (x,), {"alpha": float(np.float32(alpha))})


# ------------------------------------------------------------------------------------------ elu, selu

_SELU_SCALE = 1.0507009873554805
_SELU_SCALE_ALPHA = 1.7580993408473768  # scale * alpha


@defop("Elu", dtypes=FLOAT, quiet=True)
def ELU(x):
    # exp(x) - 1, not expm1, as TF's kernel (it shows near 0).
    return np.where(x < 0, np.exp(x) - x.dtype.type(1), x)[()]


@ELU.defvjp
def _elu_grad(g, y, x):
    return (execute(ELU_GRAD, (g, y)),)


@defop("EluGrad", dtypes=FLOAT, quiet=True)
def ELU_GRAD(g, y):
    return np.where(y < 0, g * (y + y.dtype.type(1)), g)[()]


@ELU_GRAD.defvjp(needs=True)
def _elu_grad_grad(gg, dx, g, y, needs):
    gg_ = execute(ELU_GRAD, (gg, y)) if needs[0] else None
    gy = where(less(y, _scalar(0, y)), gg * g, zeros_like(y)) if needs[1] else None
    return gg_, gy


@defop("Selu", dtypes=FLOAT, quiet=True)
def SELU(x):
    t = x.dtype.type
    return np.where(x < 0, t(_SELU_SCALE_ALPHA) * (np.exp(x) - t(1)), t(_SELU_SCALE) * x)[()]


@SELU.defvjp
def _selu_grad(g, y, x):
    return (execute(SELU_GRAD, (g, y)),)


@defop("SeluGrad", dtypes=FLOAT, quiet=True)
def SELU_GRAD(g, y):
    t = y.dtype.type
    return np.where(y < 0, g * (y + t(_SELU_SCALE_ALPHA)), g * t(_SELU_SCALE))[()]


@SELU_GRAD.defvjp(needs=True)
def _selu_grad_grad(gg, dx, g, y, needs):
    gg_ = execute(SELU_GRAD, (gg, y)) if needs[0] else None
    gy = where(less(y, _scalar(0, y)), gg * g, zeros_like(y)) if needs[1] else None
    return gg_, gy


@export("nn.elu")
def elu(features, name=None):
    """``x`` where ``x >= 0``, else ``exp(x) - 1``; the gradient at 0 is 1 (``tf.nn.elu``)."""
    return _fallback_call(ELU, features)


@export("nn.selu")
def selu(features, name=None):
    """``scale * x`` where ``x >= 0``, else ``scale * alpha * (exp(x) - 1)``; the gradient at 0 is ``scale``
    (``tf.nn.selu``)."""
    return _fallback_call(SELU, features)


# ------------------------------------------------------------------------------------------ silu / swish


def _stable_sigmoid(z):
    if z.dtype.kind == "c":
        return 1 / (1 + np.exp(-z))
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1 / (1 + e), e / (1 + e)).astype(z.dtype, copy=False)


# TF has no op for swish: it is a custom gradient around ``x * sigmoid(beta * x)``. One primitive here, whose
# rule is TF's gradient function written with tapeflow ops (so second derivatives are those of that function).
@defop("Swish", dtypes=FLOAT_COMPLEX, quiet=True)
def SWISH(x, beta):
    return (x * _stable_sigmoid(beta * x))[()]


@SWISH.defvjp(needs=True)
def _swish_grad(g, y, x, beta, needs):
    bx = beta * x
    s = execute(SIGMOID, (bx,))
    one_minus_s = _scalar(1, s) - s
    # No conjugation: TF's custom gradient multiplies through as for real inputs.
    gx = g * (s * (_scalar(1, s) + bx * one_minus_s)) if needs[0] else None
    # TF sums the beta gradient to a scalar; summing back to beta's shape happens centrally (the same for the
    # scalar beta TF documents).
    gb = g * (x * x) * s * one_minus_s if needs[1] else None
    return gx, gb


@export("nn.silu", "nn.swish")
def swish(features, beta=1.0):
    """``x * sigmoid(beta * x)`` with TF's custom gradient, also for ``beta`` (``tf.nn.silu``, ``tf.nn.swish``)."""
    x = to_tensor(features)
    b = cast(to_tensor(beta), x.dtype)
    if x._value.dtype.kind not in "fc":
        execute(SIGMOID, (x,))  # TF fails in Sigmoid, with its dtype error
    return execute(SWISH, (x, b))


silu = swish


# ------------------------------------------------------------------------------------------ gelu


@export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """``x * P(X <= x)`` for a standard normal ``X``, exactly through ``erfc`` or with TF's tanh approximation
    (``tf.nn.gelu``)."""
    x = to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype}")
    if approximate:
        coeff = cast(0.044715, x.dtype)
        return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + coeff * _pow(x, 3))))
    return 0.5 * x * erfc(-x * cast(0.7071067811865476, x.dtype))

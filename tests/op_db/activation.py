"""Op database entries for the activation functions (softplus, softsign, relu6, leaky_relu, elu, selu, swish) and
their gradient ops. Samples stay clear of the kinks: 0 (and 6 for relu6)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403

_SELU_SCALE = 1.0507009873554805
_SELU_SCALE_ALPHA = 1.7580993408473768


def _clear_of(*kinks, gap=0.1):
    return lambda *arrays: all(bool(np.all(np.abs(arrays[0] - k) > gap)) for k in kinks)


def _grad_samples(name, gen_x, accept=None):
    """``(x, u)`` samples for a gradient op reached through ``vjp``."""
    return [make_sample(name, "matrix", (gen_x, uniform()), ((2, 3), (2, 3)), accept),
            make_sample(name, "vector", (gen_x, uniform()), ((4,), (4,)), accept)]


def _np_softplus(x):
    return np.logaddexp(x.dtype.type(0), x)


def _np_elu(x):
    return np.where(x < 0, np.exp(x) - 1, x)


def _np_selu(x):
    return np.where(x < 0, _SELU_SCALE_ALPHA * (np.exp(x) - 1), _SELU_SCALE * x).astype(x.dtype)


def _np_alpha(x, alpha):
    return x.dtype.type(np.float32(alpha))  # TF's alpha attribute is a float32


# --- softplus, softsign

op("Softplus", lambda x: tf.nn.softplus(x), _np_softplus,
   unary("Softplus", uniform(-4, 4)) + [
       make_sample("Softplus", "tails", (lambda rng, s: np.array([-40.0, -20.0, -3.0, 3.0, 20.0, 40.0]),), ((6,),))],
   True, note="the tails sample crosses TF's thresholds, where softplus is x or exp(x)")
op("Softsign", lambda x: tf.nn.softsign(x), lambda x: x / (1 + np.abs(x)), unary("Softsign", nonzero(0.1, 3.0)),
   True, second_order=False,
   note="no second order: TF has no gradient for SoftsignGrad, and tapeflow raises its LookupError too")
op("SoftsignGrad", lambda x, u: vjp(tf.nn.softsign, x, u), lambda x, u: u / (1 + np.abs(x)) ** 2,
   _grad_samples("SoftsignGrad", nonzero(0.1, 3.0)), True, second_order=False, covered_by="Softsign",
   covered_rule=False, runs_vjp=False,
   xfails={("grad", "*"): "TF registers no gradient for SoftsignGrad: differentiating it raises LookupError"})

# --- relu6, leaky_relu

_RELU6_GEN = uniform(-2.0, 8.0)
op("Relu6", lambda x: tf.nn.relu6(x), lambda x: np.clip(x, 0, 6),
   unary("Relu6", _RELU6_GEN, accept=_clear_of(0.0, 6.0)), True)
op("Relu6Grad", lambda x, u: vjp(tf.nn.relu6, x, u), lambda x, u: u * ((x > 0) & (x < 6)),
   _grad_samples("Relu6Grad", _RELU6_GEN, _clear_of(0.0, 6.0)), True, covered_by="Relu6",
   note="Relu6's gradient op: Relu6's first-order test runs its forward, the second-order test its rule")


def _leaky_samples(name, gen_u=None):
    gens = (nonzero(),) if gen_u is None else (nonzero(), gen_u)
    shapes = ((2, 3),) if gen_u is None else ((2, 3), (2, 3))
    return [make_sample(name, "default_alpha", gens, shapes),
            make_sample(name, "alpha_0.1", gens, shapes, kwargs={"alpha": 0.1}),
            make_sample(name, "alpha_negative", gens, shapes, kwargs={"alpha": -1.5})]


op("LeakyRelu", lambda x, alpha=0.2: tf.nn.leaky_relu(x, alpha=alpha),
   lambda x, alpha=0.2: np.where(x > 0, x, x * _np_alpha(x, alpha)), _leaky_samples("LeakyRelu"), True)
op("LeakyReluGrad", lambda x, u, alpha=0.2: vjp(lambda t: tf.nn.leaky_relu(t, alpha=alpha), x, u),
   lambda x, u, alpha=0.2: np.where(x > 0, u, u * _np_alpha(x, alpha)), _leaky_samples("LeakyReluGrad", uniform()),
   True, covered_by="LeakyRelu",
   note="LeakyRelu's gradient op: LeakyRelu's first-order test runs its forward, the second-order test its rule")

# --- elu, selu

op("Elu", lambda x: tf.nn.elu(x), _np_elu, unary("Elu", nonzero(0.1, 3.0)), True)
op("EluGrad", lambda x, u: vjp(tf.nn.elu, x, u), lambda x, u: np.where(x < 0, u * np.exp(x), u),
   _grad_samples("EluGrad", nonzero(0.1, 3.0)), True, covered_by="Elu",
   note="Elu's gradient op (in terms of the output): Elu's tests run its forward and its rule")
op("Selu", lambda x: tf.nn.selu(x), _np_selu, unary("Selu", nonzero(0.1, 3.0)), True)
op("SeluGrad", lambda x, u: vjp(tf.nn.selu, x, u),
   lambda x, u: np.where(x < 0, u * _SELU_SCALE_ALPHA * np.exp(x), u * _SELU_SCALE).astype(x.dtype),
   _grad_samples("SeluGrad", nonzero(0.1, 3.0)), True, covered_by="Selu",
   note="Selu's gradient op (in terms of the output): Selu's tests run its forward and its rule")

# --- swish / silu


def _np_swish(x, beta=None, fixed_beta=1.0):
    b = x.dtype.type(np.float32(fixed_beta)) if beta is None else beta  # TF converts a Python beta to float32
    return x / (1 + np.exp(-b * x))


op("Swish", lambda x, beta=None, fixed_beta=1.0: tf.nn.silu(x, fixed_beta if beta is None else beta), _np_swish,
   unary("Swish", uniform(-4, 4)) + [
       make_sample("Swish", "tensor_beta", (uniform(-3, 3), uniform(0.5, 2.0)), ((2, 3), ())),
       make_sample("Swish", "python_beta", (uniform(-3, 3),), ((3,),), kwargs={"fixed_beta": 1.7}),
   ], True,
   note="TF's custom gradient of x * sigmoid(beta * x) (tf.nn.silu / tf.nn.swish), beta a scalar; no complex "
        "samples: TF's rule does not conjugate, so complex gradients are TF's, not the conjugate convention")

"""Activation functions: values, first and second derivatives (float32 and float64), conventions at the kinks,
numerically stable tails, dtypes, namespaces and errors.

``_d2`` returns ``[y, dy/dx, d2y/dx2]`` per dtype (``harness.second_derivatives``: the first derivative of
``sum(y)`` and the derivative of ``sum(dy/dx)``, taken with nested tapes; elementwise functions, so these are the
diagonals).
"""

import functools

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype, second_derivatives_by_dtype

# TF cannot differentiate some activation gradients again: the second derivative may be an error to record.
_d2 = functools.partial(second_derivatives_by_dtype, catch_errors=True)


KINKS = [-2.0, -1.0, 0.0, 0.5, 3.0, 6.0, 7.0]
TAILS = [-1000.0, -100.0, -40.0, -35.0, -20.0, -15.0, -14.0, -13.0, -1e-10, 1e-10, 13.0, 14.0, 15.0, 20.0, 35.0,
         40.0, 100.0, 1000.0]


# --------------------------------------------------------------------------------------------- namespaces


@case
def activation_namespaces(tf):
    names = {"math": ["log_sigmoid", "softplus", "softsign", "sigmoid", "tanh"],
             "nn": ["softplus", "softsign", "relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish",
                    "sigmoid", "tanh"]}
    out = {f"{ns}.{n}": hasattr(getattr(tf, ns), n) for ns, ns_names in names.items() for n in ns_names}
    out["nn.silu is nn.swish"] = tf.nn.silu is tf.nn.swish
    out["nn.sigmoid is math.sigmoid"] = tf.nn.sigmoid is tf.math.sigmoid
    out["nn.tanh is math.tanh"] = tf.nn.tanh is tf.math.tanh
    out["nn.softplus is math.softplus"] = tf.nn.softplus is tf.math.softplus
    out["top-level"] = [hasattr(tf, n) for n in ("sigmoid", "tanh", "softplus", "relu", "log_sigmoid")]
    return out


# --------------------------------------------------------------------------------------------- relu family


@case
def relu6_values_and_derivatives_at_kinks(tf):
    return _d2(tf, tf.nn.relu6, KINKS)


@case
def relu6_integer_dtypes(tf):
    return [tf.nn.relu6(tf.constant([-3, 2, 9])), tf.nn.relu6(tf.constant([1, 7, 200], tf.uint8)),
            tf.nn.relu6(tf.constant([-3, 8], tf.int64)), tf.nn.relu6([-1.5, 6.5])]


@case
def leaky_relu_values_and_derivatives(tf):
    return {"default": _d2(tf, tf.nn.leaky_relu, KINKS),
            "alpha_0.1": _d2(tf, lambda x: tf.nn.leaky_relu(x, alpha=0.1), KINKS),
            "alpha_negative": _d2(tf, lambda x: tf.nn.leaky_relu(x, alpha=-1.0), KINKS),
            "alpha_2": _d2(tf, lambda x: tf.nn.leaky_relu(x, 2.0), KINKS)}


@case
def leaky_relu_alpha_is_float32_and_ints_become_float32(tf):
    x64 = tf.constant([-1.0, -3.0], tf.float64)
    return [tf.nn.leaky_relu(x64, alpha=0.1), tf.nn.leaky_relu(x64, alpha=np.array(0.3)),
            tf.nn.leaky_relu(tf.constant([-2, 0, 3])), tf.nn.leaky_relu(tf.constant([-2, 5], tf.int64), 0.5),
            tf.nn.leaky_relu([-1.0, 2.0])]


@case
def upstream_nan_and_inf_through_kinked_gradients(tf):
    x = tf.constant([-1.0, 0.0, 3.0, 7.0])
    u = tf.constant([np.nan, np.inf, np.nan, np.inf])
    out = {}
    for name in ("relu6", "leaky_relu", "elu", "selu", "softsign", "softplus"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.nn, name)(x)
        out[name] = tape.gradient(y, x, output_gradients=u)
    return out


# --------------------------------------------------------------------------------------------- elu, selu


@case
def elu_selu_values_and_derivatives(tf):
    return {"elu": _d2(tf, tf.nn.elu, KINKS), "selu": _d2(tf, tf.nn.selu, KINKS)}


@case
def elu_selu_tails_and_small_inputs(tf):
    small = [-1e-10, -1e-5, -0.3, -1e-3, -2e-2]
    return {"elu": _d2(tf, tf.nn.elu, TAILS + small), "selu": _d2(tf, tf.nn.selu, TAILS + small)}


# --------------------------------------------------------------------------------------------- softplus family


@case
def softplus_softsign_log_sigmoid_values_and_derivatives(tf):
    return {"softplus": _d2(tf, tf.nn.softplus, KINKS), "math.softplus": _d2(tf, tf.math.softplus, [-1.0, 2.0]),
            "log_sigmoid": _d2(tf, tf.math.log_sigmoid, KINKS),
            "softsign": grads_by_dtype(tf, tf.nn.softsign, KINKS),
            "math.softsign": grads_by_dtype(tf, tf.math.softsign, [-1.0, 2.0])}


@case
def softplus_and_log_sigmoid_tails(tf):
    return {"softplus": _d2(tf, tf.nn.softplus, TAILS), "log_sigmoid": _d2(tf, tf.math.log_sigmoid, TAILS),
            "softsign": grads_by_dtype(tf, tf.nn.softsign, TAILS)}


@case
def softsign_has_no_second_derivative(tf):
    return _d2(tf, tf.nn.softsign, [-1.0, 0.0, 2.0])


@case
def softplus_nan_and_infinities(tf):
    v = [np.nan, np.inf, -np.inf]
    return {"softplus": _d2(tf, tf.nn.softplus, v), "log_sigmoid": grads_by_dtype(tf, tf.math.log_sigmoid, v),
            "relu6": grads_by_dtype(tf, tf.nn.relu6, v), "elu": grads_by_dtype(tf, tf.nn.elu, v),
            "softsign": grads_by_dtype(tf, tf.nn.softsign, v)}


# --------------------------------------------------------------------------------------------- silu, gelu


@case
def silu_swish_values_and_derivatives(tf):
    return {"silu": _d2(tf, tf.nn.silu, KINKS), "swish": _d2(tf, tf.nn.swish, KINKS),
            "beta_1.5": _d2(tf, lambda x: tf.nn.silu(x, beta=1.5), KINKS),
            "beta_0.3": _d2(tf, lambda x: tf.nn.swish(x, 0.3), [-2.0, 1.0]), "tails": _d2(tf, tf.nn.silu, TAILS)}


@case
def silu_beta_gradient(tf):
    x = tf.constant([1.0, -2.0, 0.5])
    b = tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch([x, b])
        y = tf.nn.silu(x, beta=b)
    v = tf.Variable(0.7, dtype=tf.float64)
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y2 = tf.nn.silu(x, beta=v)
    return [y, tape.gradient(y, [x, b]), y2, tape2.gradient(y2, [x, v])]


@case
def silu_complex_value_and_gradient(tf):
    z = tf.constant([1 + 1j, -0.5 + 2j], tf.complex128)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.nn.silu(z)
    return [y, tape.gradient(y, z)]


@case
def gelu_values_and_derivatives(tf):
    return {"exact": _d2(tf, tf.nn.gelu, KINKS), "approximate": _d2(tf, lambda x: tf.nn.gelu(x, True), KINKS),
            "exact_tails": _d2(tf, tf.nn.gelu, [-40.0, -13.0, -5.0, 5.0, 13.0, 40.0]),
            "approximate_tails": _d2(tf, lambda x: tf.nn.gelu(x, approximate=True), [-40.0, -3.0, 3.0, 40.0])}


# --------------------------------------------------------------------------------------------- dtypes, errors


@case
def activation_float16_values(tf):
    x = tf.constant([-2.0, -0.5, 0.0, 1.0, 7.0], tf.float16)
    return [f(x) for f in (tf.nn.softplus, tf.nn.softsign, tf.nn.elu, tf.nn.selu, tf.math.log_sigmoid, tf.nn.relu6,
                           tf.nn.leaky_relu, tf.nn.silu, tf.nn.gelu)]


@case
def activation_dtype_errors(tf):
    fns = {"softplus": tf.nn.softplus, "softsign": tf.nn.softsign, "elu": tf.nn.elu, "selu": tf.nn.selu,
           "log_sigmoid": tf.math.log_sigmoid, "relu6": tf.nn.relu6, "leaky_relu": tf.nn.leaky_relu,
           "silu": tf.nn.silu, "gelu": tf.nn.gelu}
    inputs = {"int32": tf.constant([1, 2]), "complex128": tf.constant([1 + 2j]), "bool": tf.constant([True])}
    return {f"{n}/{k}": catch(f, v) for n, f in fns.items() for k, v in inputs.items()}


@case
def activation_errors_from_python_lists(tf):
    # TF's generated wrappers take Python lists down their slow path: no " name: " in these errors.
    return [catch(tf.nn.elu, [1, 2]), catch(tf.nn.selu, [1, 2]), catch(tf.nn.softsign, [1, 2]),
            catch(tf.nn.softplus, [1, 2]), catch(tf.nn.relu6, [1 + 1j]), catch(tf.math.log_sigmoid, [1, 2]),
            tf.nn.softplus([1.0, 2.0]), tf.nn.elu([-1.0]), tf.nn.silu([1.0, 2.0])]


@case
def activation_variables_and_scalars(tf):
    v = tf.Variable([-1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.nn.elu(v) + tf.nn.relu6(v) + tf.nn.softplus(v) + tf.nn.leaky_relu(v) + tf.nn.silu(v)
    return [y, tape.gradient(y, v), tf.nn.selu(1.0), tf.nn.softsign(-3.0), tf.math.log_sigmoid(0.0),
            tf.nn.gelu(1.0), tf.nn.relu6(8)]

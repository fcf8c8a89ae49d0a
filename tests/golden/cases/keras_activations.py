"""tf.keras.activations (Keras 3): values and gradients (float32 and float64), arguments, names, errors."""

import numpy as np

from tests.golden.harness import case, catch, grads_by_dtype

X = [[-3.5, -1.0, -0.4, 0.0, 0.3, 1.0, 2.5, 7.0]]  # includes the kinks at 0, +-1
SMOOTH = [[-3.5, -1.3, -0.4, 0.3, 0.7, 1.6, 2.5, 7.0]]  # clear of every kink

ELEMENTWISE = ["relu", "leaky_relu", "relu6", "elu", "selu", "softplus", "softsign", "soft_shrink", "sparse_plus",
               "silu", "swish", "squareplus", "gelu", "celu", "tanh", "tanh_shrink", "hard_tanh", "hard_shrink",
               "sigmoid", "sparse_sigmoid", "exponential", "hard_sigmoid", "hard_silu", "hard_swish", "log_sigmoid",
               "linear", "mish"]


def _act(tf, name, **kwargs):
    fn = getattr(tf.keras.activations, name)
    return lambda x: fn(x, **kwargs)


@case
def elementwise_values_and_gradients(tf):
    return {name: grads_by_dtype(tf, _act(tf, name), SMOOTH) for name in ELEMENTWISE}


@case
def elementwise_at_kinks(tf):
    return {name: grads_by_dtype(tf, _act(tf, name), X, dtypes=("float32",)) for name in ELEMENTWISE}


@case
def along_axis_values_and_gradients(tf):
    m = [[1.0, -2.0, 0.5, 3.0], [0.0, 0.25, -1.0, 2.0]]

    def target(y):  # a non-uniform weighting (the gradient of a plain sum of softmax is zero)
        return y * y

    out = {}
    for name, kwargs in [("softmax", {}), ("softmax", {"axis": 0}), ("softmax", {"axis": None}),
                         ("softmax", {"axis": (0, 1)}), ("log_softmax", {}), ("log_softmax", {"axis": 0}),
                         ("log_softmax", {"axis": None}), ("log_softmax", {"axis": (0, 1)}), ("sparsemax", {}),
                         ("sparsemax", {"axis": 0}), ("glu", {}), ("glu", {"axis": 0})]:
        key = f"{name}{kwargs}"
        out[key] = grads_by_dtype(tf, _act(tf, name, **kwargs), m, target=target)
    return out


@case
def relu_arguments(tf):
    x = [-3.0, -1.0, 0.0, 0.5, 1.0, 4.0, 6.0, 8.0]
    out = {}
    for kwargs in [{"negative_slope": 0.1}, {"max_value": 6}, {"max_value": 2.5}, {"threshold": 0.75},
                   {"negative_slope": 0.1, "max_value": 6, "threshold": 0.5},
                   {"negative_slope": 0.2, "max_value": 3.0}, {"negative_slope": 0.3, "threshold": 1.0},
                   {"max_value": 5.0, "threshold": 2.0}]:
        out[str(kwargs)] = grads_by_dtype(tf, _act(tf, "relu", **kwargs), x)
    return out


@case
def arguments_of_other_activations(tf):
    out = {}
    for name, kwargs in [("leaky_relu", {"negative_slope": 0.5}), ("elu", {"alpha": 2.0}), ("elu", {"alpha": 0.5}),
                         ("celu", {"alpha": 2.0}), ("gelu", {"approximate": True}), ("squareplus", {"b": 1}),
                         ("soft_shrink", {"threshold": 1.2}), ("hard_shrink", {"threshold": 1.2}),
                         ("threshold", {"threshold": 0.5, "default_value": -1.0})]:
        out[f"{name}{kwargs}"] = grads_by_dtype(tf, _act(tf, name, **kwargs), SMOOTH)
    return out


@case
def second_derivatives(tf):
    from tests.golden.harness import second_derivatives_by_dtype

    return {name: second_derivatives_by_dtype(tf, _act(tf, name), SMOOTH[0])
            for name in ["elu", "selu", "softplus", "silu", "gelu", "mish", "sigmoid", "tanh", "log_sigmoid",
                         "squareplus", "celu", "softsign"]}


@case
def integer_and_python_inputs(tf):
    A = tf.keras.activations
    return [A.relu([-1, 2]), A.relu([-1.0, 2.0]), A.relu(np.array([-1.0, 2.0])), A.exponential([1, 2]),
            A.exponential(tf.constant([True, False])), A.linear([1, 2]),
            A.relu(tf.constant([-1, 1, 5, 8]), max_value=6),
            A.relu(tf.constant([-1, 1, 5, 8]), threshold=2), A.relu6(tf.constant([-1, 3, 9])),
            catch(A.sigmoid, [-1, 2]), catch(A.hard_sigmoid, [1, 2]), catch(A.mish, [1, 2]),
            catch(A.softmax, [1.0, 2.0]), A.squareplus([1.0, 2.0]), A.gelu([1.0])]


@case
def activation_errors_and_warnings(tf):
    A = tf.keras.activations
    return [catch(A.glu, tf.constant([1.0, 2.0, 3.0])), A.softmax(tf.constant([[1.0], [2.0]])),
            A.softmax(tf.constant([[1.0, 3.0]]), axis=0), catch(A.softplus, tf.constant([1, 2]))]


@case
def get_and_serialize(tf):
    A = tf.keras.activations
    names = ["relu", "leaky_relu", "relu6", "softmax", "celu", "elu", "selu", "softplus", "softsign", "squareplus",
             "soft_shrink", "sparse_plus", "silu", "swish", "gelu", "glu", "tanh", "tanh_shrink", "threshold",
             "sigmoid", "sparse_sigmoid", "exponential", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
             "hard_shrink", "linear", "mish", "log_softmax", "log_sigmoid", "sparsemax"]

    def myfn(x):
        return x

    return [[n, A.get(n).__name__, A.serialize(A.get(n))] for n in names] + [
        A.get(None).__name__, A.get("relu") is A.relu, A.get(A.tanh) is A.tanh, A.swish is A.silu,
        A.hard_swish is A.hard_silu, catch(A.get, "nope"), catch(A.get, 3), A.deserialize("relu").__name__,
        A.deserialize("nope"), A.get({"module": "keras.activations", "class_name": "function", "config": "relu",
                                      "registered_name": None}).__name__,
        catch(A.get, {"module": "keras.activations", "class_name": "function", "config": "nope",
                      "registered_name": None}),
        catch(A.deserialize, {"class_name": "function", "config": "relu"}), catch(A.serialize, "relu"),
        A.serialize(myfn)]

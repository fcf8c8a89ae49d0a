"""``tf.keras.activations``: Keras 3's activation functions, ``get``, ``serialize`` and ``deserialize``.

Each function computes what Keras's TensorFlow backend computes, with the same TF ops (so the same dtypes, the
same errors for integer inputs, and the gradients of those ops under GradientTape). Keras also tags the outputs
of ``softmax`` and ``sigmoid`` with their logits (``_keras_logits``) where the tensor type allows it; tapeflow's
tensors do not take new attributes, so (as with Keras on tensors that refuse) nothing is kept. ``sparsemax``
follows Keras 3.15's formula exactly, including its threshold (the sum of the cumulative sums over the support),
so rows need not sum to 1, as on TF.
"""

from __future__ import annotations

import types
import warnings

from .._core.tensor import convert_to_tensor
from .initializers import serialize_object
from .optimizers.serialization import serialize_function

__all__ = [
    "celu", "elu", "exponential", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "leaky_relu", "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "sigmoid",
    "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
    "squareplus", "swish", "tanh", "tanh_shrink", "threshold", "get", "serialize", "deserialize",
]


def _tf():
    import tapeflow  # the package is complete by the time an activation runs

    return tapeflow


def _keep_logits(output, logits):
    try:
        output._keras_logits = logits
    except AttributeError:
        pass
    return output


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``, or with ``negative_slope`` a leaky slope below ``threshold``, values at or below
    ``threshold`` set to 0 (or sloped), and values capped at ``max_value``."""
    tf = _tf()
    x = convert_to_tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return tf.nn.leaky_relu(x, alpha=negative_slope)
        negative_part = tf.nn.relu(-x + threshold) if threshold != 0 else tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = tf.where(x > tf.cast(threshold, x.dtype), x, tf.zeros_like(x))
    elif max_value == 6:  # Keras takes the Relu6 op here
        x = tf.nn.relu6(x)
        clip_max = False
    else:
        x = tf.nn.relu(x)
    if clip_max:
        x = tf.clip_by_value(x, tf.cast(0.0, x.dtype), tf.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x -= negative_slope * negative_part
    return x


def leaky_relu(x, negative_slope=0.2):
    """``x`` above 0, ``negative_slope * x`` below (``tf.nn.leaky_relu``)."""
    return _tf().nn.leaky_relu(x, alpha=negative_slope)


def relu6(x):
    """``min(max(x, 0), 6)`` (``tf.nn.relu6``)."""
    return _tf().nn.relu6(x)


def _over_axes(fn, x, axis):
    """``fn(·, axis=-1)`` applied over ``axis``: one axis as is, ``None`` over all elements, a tuple of axes by
    moving them last and flattening them (Keras's way)."""
    tf = _tf()
    if axis is None:
        return tf.reshape(fn(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    if isinstance(axis, tuple):
        rank = len(x.shape)
        keep = [v for v in range(rank) if v not in axis]
        moved = tf.transpose(x, [*keep, *axis])
        out = fn(tf.reshape(moved, [*[x.shape[v] for v in keep], -1]), axis=-1)
        out = tf.reshape(out, moved.shape)
        order = [*keep, *axis]
        return tf.transpose(out, sorted(range(rank), key=order.__getitem__))
    return fn(x, axis=axis)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` over ``axis`` (an int, a tuple of axes, or ``None`` for all); warns when that axis
    has size 1."""
    if isinstance(axis, int) and -len(x.shape) <= axis < len(x.shape) and x.shape[axis] == 1:
        warnings.warn(f"You are using a softmax over axis {axis} of a tensor of shape {x.shape}. This axis has size "
                      "1. The softmax operation will always return the value 1, which is likely not what you "
                      "intended. Did you mean to use a sigmoid instead?", stacklevel=2)
    return _keep_logits(_over_axes(_tf().nn.softmax, x, axis), x)


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x)))`` over ``axis`` (an int, a tuple of axes, or ``None`` for all)."""
    return _over_axes(_tf().nn.log_softmax, x, axis)


def elu(x, alpha=1.0):
    """``x`` above 0, ``alpha * (exp(x) - 1)`` below."""
    tf = _tf()
    res = tf.nn.elu(x)
    return res if alpha == 1 else tf.where(x > 0, res, alpha * res)


def selu(x):
    """Scaled ELU with Klambauer et al.'s constants (``tf.nn.selu``)."""
    return _tf().nn.selu(x)


def softplus(x):
    """``log(exp(x) + 1)`` (``tf.math.softplus``)."""
    return _tf().math.softplus(x)


def softsign(x):
    """``x / (|x| + 1)`` (``tf.nn.softsign``)."""
    return _tf().nn.softsign(x)


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, 0 between."""
    tf = _tf()
    return tf.where(x > threshold, x - threshold, tf.where(x < -threshold, x + threshold, tf.zeros_like(x)))


def sparse_plus(x):
    """0 up to -1, ``(x + 1)**2 / 4`` on (-1, 1), ``x`` from 1."""
    tf = _tf()
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x < 1, (1 / 4) * tf.pow(x + 1, 2), x))


def silu(x):
    """``x * sigmoid(x)`` (``tf.nn.silu``); also ``swish``."""
    return _tf().nn.silu(x)


swish = silu


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    tf = _tf()
    x = convert_to_tensor(x)
    b = convert_to_tensor(b, dtype=x.dtype)
    return (x + tf.sqrt(tf.square(x) + b)) / 2


def gelu(x, approximate=False):
    """``x * Phi(x)``, or its tanh approximation with ``approximate=True`` (``tf.nn.gelu``)."""
    return _tf().nn.gelu(convert_to_tensor(x), approximate=approximate)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    tf = _tf()
    return tf.maximum(x, 0.0) + alpha * tf.math.expm1(tf.minimum(x, 0.0) / alpha)


def glu(x, axis=-1):
    """The first half of ``x`` along ``axis`` gated by the sigmoid of the second half.

    Raises:
        ValueError: when that axis has an odd size.
    """
    tf = _tf()
    if x.shape[axis] % 2 != 0:
        raise ValueError(f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}")
    x1, x2 = tf.split(x, num_or_size_splits=2, axis=axis)
    return x1 * tf.sigmoid(x2)


def tanh(x):
    """Hyperbolic tangent (``tf.nn.tanh``); integer and bool inputs are cast to float32 first, as Keras's
    ``ops.tanh`` does."""
    tf = _tf()
    x = convert_to_tensor(x)
    if x.dtype.is_integer or x.dtype.is_bool:
        x = tf.cast(x, "float32")
    return tf.nn.tanh(x)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    return x - _tf().math.tanh(x)


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    return _tf().clip_by_value(x, clip_value_min=-1.0, clip_value_max=1.0)


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, 0 elsewhere."""
    tf = _tf()
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, ``default_value`` elsewhere."""
    return _tf().where(x > threshold, x, default_value)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (``tf.nn.sigmoid``)."""
    return _keep_logits(_tf().nn.sigmoid(x), x)


def sparse_sigmoid(x):
    """0 up to -1, ``(x + 1) / 2`` on (-1, 1), 1 from 1."""
    tf = _tf()
    x = convert_to_tensor(x)
    return tf.where(x <= -1, tf.constant(0.0, dtype=x.dtype),
                    tf.where(x >= 1, tf.constant(1.0, dtype=x.dtype), 0.5 * (x + 1)))


def exponential(x):
    """``exp(x)``; integer and bool inputs are cast to float32 first."""
    tf = _tf()
    x = convert_to_tensor(x)
    if x.dtype.is_integer or x.dtype.is_bool:
        x = tf.cast(x, "float32")
    return tf.exp(x)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``: 0 up to -3, 1 from 3, linear between."""
    tf = _tf()
    x = convert_to_tensor(x)
    return tf.nn.relu6(x + tf.constant(3.0, x.dtype)) / tf.constant(6.0, x.dtype)


def hard_silu(x):
    """``x * hard_sigmoid(x)``; also ``hard_swish``."""
    x = convert_to_tensor(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def log_sigmoid(x):
    """``log(sigmoid(x))`` computed stably (``tf.math.log_sigmoid``)."""
    return _tf().math.log_sigmoid(x)


def linear(x):
    """``x`` itself, unconverted (the activation of ``None``)."""
    return x


def mish(x):
    """``x * tanh(softplus(x))``."""
    tf = _tf()
    x = convert_to_tensor(x)
    return x * tf.nn.tanh(tf.math.softplus(x))


def sparsemax(x, axis=-1):
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis`` (Martins & Astudillo):
    ``max(x - tau, 0)`` with ``tau`` chosen so the result sums to 1."""
    tf = _tf()
    logits = convert_to_tensor(x)
    ranked = tf.sort(logits, direction="DESCENDING", axis=axis)
    cumsum = tf.cumsum(ranked, axis=axis)
    r = tf.range(1, tf.shape(logits)[axis] + 1, dtype=logits.dtype)
    r_shape = [1] * len(logits.shape)
    r_shape[axis] = -1
    r = tf.reshape(r, r_shape)
    support = ranked - (cumsum - 1) / r > 0
    kept = tf.where(support, cumsum, tf.zeros_like(cumsum))
    k = tf.reduce_sum(tf.cast(support, logits.dtype), axis=axis, keepdims=True)
    tau = (tf.reduce_sum(kept, axis=axis, keepdims=True) - 1) / k
    return tf.maximum(logits - tau, 0.0)


_FUNCTIONS = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign, squareplus, soft_shrink,
              sparse_plus, silu, gelu, glu, tanh, tanh_shrink, threshold, sigmoid, sparse_sigmoid, exponential,
              hard_sigmoid, hard_silu, hard_tanh, hard_shrink, linear, mish, log_softmax, log_sigmoid, sparsemax)
ALL_OBJECTS_DICT = {fn.__name__: fn for fn in _FUNCTIONS}
ALL_OBJECTS_DICT.update({"swish": silu, "hard_swish": hard_silu})
# Function names that serialize as the bare name: Keras checks a function's name against its module's globals.
_BARE_NAMES = frozenset(ALL_OBJECTS_DICT) - {"swish", "hard_swish"} | {"get", "serialize", "deserialize"}


def serialize(activation):
    """An activation's config: the bare name for Keras's functions (and any function of the same name), Keras's
    function dict for other named functions, a marshalled-code dict (with a warning) for lambdas, the config dict
    for objects with ``get_config``.

    Raises:
        ValueError: for a string, Keras's "Unknown activation function" message.
    """
    if isinstance(activation, types.FunctionType):
        if activation.__name__ in _BARE_NAMES:
            return activation.__name__
        config = serialize_function(activation)
        return config["config"] if activation.__name__ == "<lambda>" else config
    if isinstance(activation, str):
        if "config" in activation:
            return activation
        raise ValueError(f"Unknown activation function '{activation}' cannot be serialized due to invalid function "
                         "name. Make sure to use an activation name that matches the references defined in "
                         "activations.py or use `@keras.saving.register_keras_serializable()`to register any custom "
                         f"activations. config={activation}")
    if hasattr(activation, "get_config"):
        return serialize_object(activation, type(activation).__module__)
    return serialize_function(activation)


def deserialize(config, custom_objects=None):
    """An activation function from a name or Keras's function dict (an unknown name comes back unchanged).

    Raises:
        ValueError: for a dict naming a function Keras does not have.
        TypeError: for a dict naming a function of another module that is not in ``custom_objects``.
    """
    table = {**ALL_OBJECTS_DICT, **(custom_objects or {})}
    if isinstance(config, str):
        return table.get(config, config)
    if not isinstance(config, dict):
        return config
    if "class_name" not in config:
        raise ValueError(f"Unknown `config` as a `dict`, config={config}")
    name = config.get("config")
    if config["class_name"] == "function":
        module = config["module"]
        if custom_objects and name in custom_objects:
            return custom_objects[name]
        if module.startswith("keras"):
            if name in ALL_OBJECTS_DICT:
                return ALL_OBJECTS_DICT[name]
            raise ValueError(f"Could not deserialize '{module}.{name}' because it is not a KerasSaveable subclass")
        raise TypeError(f"Could not locate function '{name}'. Make sure custom classes and functions are decorated "
                        "with `@keras.saving.register_keras_serializable()`. If they are already decorated, make "
                        "sure they are all imported so that the decorator is run before trying to load them. Full "
                        f"object config: {config}")
    cls = table.get(config["class_name"])
    if cls is None:
        return config["class_name"]
    return cls.from_config(config.get("config", {})) if hasattr(cls, "from_config") else cls


def get(identifier):
    """An activation function from a name (``"relu"``, ``"swish"``...), Keras's function dict or a callable;
    ``None`` gives ``linear``.

    Raises:
        ValueError: ``Could not interpret activation function identifier: ...`` for anything else.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")

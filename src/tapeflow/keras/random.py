"""``tf.keras.random`` (Keras 3.15): seeded random tensors and ``SeedGenerator``.

Seeds follow Keras: an integer seed ``s`` draws from the seed pair ``[s, 0]`` (the same integer always gives the
same values); a ``SeedGenerator`` hands out its state ``[seed, k]`` and advances ``k`` by one per draw; ``seed=None``
draws from a global ``SeedGenerator`` whose seed comes from Python's ``random`` (so
``tf.keras.utils.set_random_seed`` makes unseeded calls reproducible) and scrambles its state between draws.

Every draw is one op of the seed pair, as in Keras on TF (a stateless op of the seed tensor): ``StatelessPhilox``
(``tapeflow/ops/stateless_random_ops.py``). Reading and advancing a ``SeedGenerator`` are variable reads and
assignments, so a ``tf.function`` program reads a new seed pair, and draws new values, on every call, while an
integer seed gives the same values on every call.

Values are not bit-equal with TensorFlow's stateless Philox kernels (as for ``tf.random``): each draw is
``numpy.random.Generator(numpy.random.Philox(key=...))`` keyed by the seed pair. Shapes, dtypes, reproducibility
and errors are Keras's.

Keras's random layers (``Dropout``, the recurrent cells' dropout masks) draw from a :class:`LayerStream`: the same
op, keyed by the layer's seed and read further along at each call.
"""

from __future__ import annotations

import math
import random as _py_random

import numpy as np

from .._core.tensor import constant_of
from .._core.variable import Variable as _TFVariable
from ..ops.stateless_random_ops import draw as _draw
from ._state import auto_name, name_scope
from .variables import Variable, standardize_dtype

__all__ = ["SeedGenerator", "normal", "uniform", "randint", "truncated_normal", "dropout", "shuffle", "categorical",
           "gamma", "beta", "binomial"]

_GLOBAL = {}


def _tf():
    import tapeflow

    return tapeflow


def _floatx():
    from .metrics.base import floatx

    return floatx()


class SeedGenerator:
    """A stateful source of seed pairs: ``state`` is an ``int64`` Keras variable ``[seed, counter]``.

    Args:
        seed: an integer; ``None`` draws one from Python's ``random`` (between 1 and 1e9).
        name: the name (``seed_generator``, ``seed_generator_1``, ... by default).

    Raises:
        ValueError: for a seed that is not an integer, or an unknown keyword.
    """

    def __init__(self, seed=None, name=None, **kwargs):
        self.name = name if name is not None else auto_name(type(self).__name__)
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self._initial_seed = seed
        if seed is None:
            seed = _py_random.randint(1, int(1e9))
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        with name_scope(self.name, caller=self):
            self.state = Variable(np.array([seed, 0], np.int64), shape=(2,), dtype="int64", trainable=False,
                                  aggregation="none", name="seed_generator_state")

    def next(self, ordered=True):
        """The current state (a tensor); then advance the counter (``ordered``) or scramble the state."""
        tf = _tf()
        current = tf.identity(self.state.value)
        if ordered:
            self.state.assign(current + tf.constant([0, 1], dtype="int64"))
        else:
            self.state.assign((current + 1) * 5387 % 933199)
        return current

    def get_config(self):
        """``{"seed": <the seed given>, "name": ...}``."""
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        """A new generator from ``get_config()``'s output."""
        return cls(**config)


def _global_generator():
    gen = _GLOBAL.get("generator")
    if gen is None:
        gen = _GLOBAL["generator"] = SeedGenerator()
    return gen


def draw_seed(seed):
    """The seed pair (an ``int64`` tensor) for ``seed``: an int, a ``SeedGenerator`` or ``None``.

    Raises:
        ValueError: for anything else.
    """
    tf = _tf()
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, int):
        return tf.constant([seed, 0], dtype="int64")
    if seed is None:
        return _global_generator().next(ordered=False)
    raise ValueError("Argument `seed` must be either an integer or an instance of `SeedGenerator`. Received: "
                     f"seed={seed} (of type {type(seed)})")


def _param(value):
    """A distribution parameter as the op's attribute: a tensor's value (read, as NumPy's samplers always did),
    anything else as it is."""
    return value.numpy() if hasattr(value, "numpy") else value


def _shape(shape):
    if hasattr(shape, "numpy"):
        shape = shape.numpy()
    return tuple(int(d) for d in np.atleast_1d(np.asarray(shape, np.int64))) if np.ndim(shape) else (
        (int(shape),) if shape is not None and not isinstance(shape, (tuple, list)) else tuple(shape or ()))


def _sized(shape):
    """The draw's shape: ``{"shape": dims}`` and no operand when it is known in Python (always, eagerly), else no
    attribute and the shape tensor as the op's operand (a shape given as a tensor inside a traced function, whose
    value the program reads when it runs)."""
    tf = _tf()
    if tf.is_tensor(shape) and not tf.executing_eagerly():
        return {}, (shape,)
    return {"shape": _shape(shape)}, ()


def _dynamic_shape(dims, like):
    """``dims`` (ints, and None where ``like``'s dimension is unknown: a traced batch) as a shape: a tuple when
    every one is known, else an int32 tensor built from ``tf.shape(like)``."""
    if None not in dims:
        return tuple(int(d) for d in dims)
    tf = _tf()
    actual = tf.shape(like)
    return tf.stack([actual[i] if d is None else tf.constant(int(d), "int32") for i, d in enumerate(dims)])


def _float_dtype(dtype):
    return standardize_dtype(dtype or _floatx())


def _check_float(mean, dtype):
    # TF's stateless kernels take the mean in the output dtype: a float mean cannot become an integer tensor.
    if "int" in dtype or dtype == "bool":
        raise TypeError(f"Cannot convert {mean} to EagerTensor of dtype {dtype}")


# Each function reads its seed first, then its shape and dtype: that is the order in which they have always been
# checked, so a failing call still advances a ``SeedGenerator``.


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples of ``shape`` (``floatx()`` unless ``dtype``)."""
    dtype = _float_dtype(dtype)
    _check_float(mean, dtype)
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "normal", *operands, mean=_param(mean), stddev=_param(stddev), dtype=dtype, **sized)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform samples in ``[minval, maxval)`` (``floatx()`` unless ``dtype``).

    Raises:
        ValueError: for an integer ``dtype`` (use ``randint``).
    """
    dtype = _float_dtype(dtype)
    if not np.issubdtype(np.dtype(dtype if dtype != "bfloat16" else "float32"), np.floating):
        raise ValueError("`keras.random.uniform` requires a floating point `dtype`. Received: "
                         f"dtype={dtype} ")
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "uniform", *operands, minval=_param(minval), maxval=_param(maxval), dtype=dtype, **sized)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in ``[minval, maxval)``."""
    dtype = standardize_dtype(dtype)
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "randint", *operands, minval=_param(minval), maxval=_param(maxval), dtype=dtype, **sized)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples redrawn until within two standard deviations of ``mean``."""
    dtype = _float_dtype(dtype)
    _check_float(mean, dtype)
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "truncated_normal", *operands, mean=_param(mean), stddev=_param(stddev), dtype=dtype,
                 **sized)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each element zeroed with probability ``rate`` and the rest scaled by ``1 / (1 - rate)``
    (``noise_shape`` broadcasts one mask draw)."""
    tf = _tf()
    inputs = tf.convert_to_tensor(inputs)
    shape = tuple(inputs.shape) if noise_shape is None else tuple(
        d if d is not None else s for d, s in zip(noise_shape, inputs.shape))
    shape = _dynamic_shape(shape, inputs)
    sized, operands = ({"shape": shape}, ()) if type(shape) is tuple else ({}, (shape,))
    mask = _draw(draw_seed(seed), "keep", *operands, rate=_param(rate),
                 dtype=np.dtype(inputs.dtype.as_numpy_dtype).name, **sized)
    return inputs * mask / tf.cast(1.0 - rate, inputs.dtype)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order."""
    tf = _tf()
    x = tf.convert_to_tensor(x)
    pair = draw_seed(seed)
    n = x.shape[axis]
    sized, operands = ({"n": n}, ()) if n is not None else ({}, (tf.shape(x)[axis],))
    order = _draw(pair, "permutation", *operands, dtype="int64", **sized)
    return tf.gather(x, order, axis=axis)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of 2-D ``logits`` (unnormalised log-probabilities).

    Raises:
        ValueError: when ``logits`` is not 2-D.
    """
    tf = _tf()
    logits = tf.convert_to_tensor(logits)
    if len(logits.shape) != 2:
        raise ValueError("`logits` should be a 2-D tensor with shape [batch_size, num_classes]. Received: "
                         f"logits={logits}")
    # Gumbel-max: the argmax of logits plus Gumbel noise samples from softmax(logits) (the op's ``categorical``).
    return _draw(draw_seed(seed), "categorical", logits, num_samples=int(num_samples),
                 dtype=standardize_dtype(dtype))


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma samples with concentration ``alpha`` and scale 1."""
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "gamma", *operands, alpha=_param(alpha), dtype=_float_dtype(dtype), **sized)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta samples with concentrations ``alpha`` and ``beta``."""
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "beta", *operands, alpha=_param(alpha), beta=_param(beta), dtype=_float_dtype(dtype),
                 **sized)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial counts of successes (as floats unless ``dtype``) for ``counts`` trials of ``probabilities``."""
    pair = draw_seed(seed)
    sized, operands = _sized(shape)
    return _draw(pair, "binomial", *operands, counts=_param(counts), probabilities=_param(probabilities),
                 dtype=_float_dtype(dtype), **sized)


class LayerStream:
    """A layer's own stream of dropout masks: the op of every draw (``StatelessPhilox``), keyed by the layer's seed
    (the key ``numpy.random.Philox(seed)`` derives; ``seed=None`` draws one from the OS) and read from ``position``,
    a variable each draw advances by the number of values it read.

    So a layer's masks follow one another as draws from one generator would, call after call, and a
    ``tf.function`` program that calls the layer reads and advances ``position`` on every call: a new mask each
    time. ``position`` is not one of the layer's weights (Keras keeps seed states out of ``weights`` too).
    """

    def __init__(self, seed=None):
        key = np.random.Philox(seed).state["state"]["key"]
        self.key = key.astype(np.int64)  # the two words' bits, as the op's int64 seed pair
        self._key_tensor = None
        # A plain tf.Variable: no Keras path, and its updates are the cheap in-place ones of an optimizer step.
        self.position = _TFVariable(np.int64(0), trainable=False, name="seed_stream_position")

    def keep_scaled(self, shape, rate, like):
        """A mask of ``shape`` in ``like``'s dtype: ``1 / (1 - rate)`` (computed in float64) where kept (a uniform
        draw at least ``rate``), else 0.

        ``shape`` holds ints, and None where the dimension is ``like``'s, unknown to a traced function.
        """
        tf = _tf()
        if self._key_tensor is None:  # one constant for every call (a traced program closes over it)
            self._key_tensor = tf.constant(self.key)
        shape = _dynamic_shape(shape, like)
        position = tf.convert_to_tensor(self.position)  # read before the advance: this draw starts there
        if type(shape) is tuple:
            self.position.assign_add(constant_of(np.int64(math.prod(shape))), read_value=False)
            sized, operands = {"shape": shape}, ()
        else:
            self.position.assign_add(tf.cast(tf.reduce_prod(shape), "int64"), read_value=False)
            sized, operands = {}, (shape,)
        return _draw(self._key_tensor, "keep", *operands, counter=position, rate=rate, scaled=True,
                     dtype=np.dtype(like.dtype.as_numpy_dtype).name, exact_key=True, **sized)

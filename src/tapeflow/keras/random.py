"""``tf.keras.random`` (Keras 3.15): seeded random tensors and ``SeedGenerator``.

Seeds follow Keras: an integer seed ``s`` draws from the seed pair ``[s, 0]`` (the same integer always gives the
same values); a ``SeedGenerator`` hands out its state ``[seed, k]`` and advances ``k`` by one per draw; ``seed=None``
draws from a global ``SeedGenerator`` whose seed comes from Python's ``random`` (so
``tf.keras.utils.set_random_seed`` makes unseeded calls reproducible) and scrambles its state between draws.

Values are not bit-equal with TensorFlow's stateless Philox kernels (as for ``tf.random``): each draw is
``numpy.random.Generator(numpy.random.Philox(key=...))`` keyed by the seed pair. Shapes, dtypes, reproducibility
and errors are Keras's.
"""

from __future__ import annotations

import random as _py_random

import numpy as np

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


def _rng(seed):
    pair = np.asarray(draw_seed(seed).numpy(), np.int64).astype(np.uint64)
    return np.random.Generator(np.random.Philox(key=[int(pair[0]), int(pair[1])]))


def _shape(shape):
    if hasattr(shape, "numpy"):
        shape = shape.numpy()
    return tuple(int(d) for d in np.atleast_1d(np.asarray(shape, np.int64))) if np.ndim(shape) else (
        (int(shape),) if shape is not None and not isinstance(shape, (tuple, list)) else tuple(shape or ()))


def _float_dtype(dtype):
    return standardize_dtype(dtype or _floatx())


def _const(values, dtype):
    tf = _tf()
    return tf.constant(np.asarray(values).astype(dtype), dtype=dtype)


def _check_float(mean, dtype):
    # TF's stateless kernels take the mean in the output dtype: a float mean cannot become an integer tensor.
    if "int" in dtype or dtype == "bool":
        raise TypeError(f"Cannot convert {mean} to EagerTensor of dtype {dtype}")


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples of ``shape`` (``floatx()`` unless ``dtype``)."""
    dtype = _float_dtype(dtype)
    _check_float(mean, dtype)
    rng = _rng(seed)
    return _const(rng.standard_normal(_shape(shape)) * stddev + mean, dtype)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform samples in ``[minval, maxval)`` (``floatx()`` unless ``dtype``).

    Raises:
        ValueError: for an integer ``dtype`` (use ``randint``).
    """
    dtype = _float_dtype(dtype)
    if not np.issubdtype(np.dtype(dtype if dtype != "bfloat16" else "float32"), np.floating):
        raise ValueError("`keras.random.uniform` requires a floating point `dtype`. Received: "
                         f"dtype={dtype} ")
    rng = _rng(seed)
    return _const(minval + (maxval - minval) * rng.random(_shape(shape)), dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in ``[minval, maxval)``."""
    dtype = standardize_dtype(dtype)
    rng = _rng(seed)
    return _const(rng.integers(minval, maxval, size=_shape(shape)), dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples redrawn until within two standard deviations of ``mean``."""
    dtype = _float_dtype(dtype)
    _check_float(mean, dtype)
    rng = _rng(seed)
    dims = _shape(shape)
    out = rng.standard_normal(dims)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return _const(out * stddev + mean, dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each element zeroed with probability ``rate`` and the rest scaled by ``1 / (1 - rate)``
    (``noise_shape`` broadcasts one mask draw)."""
    tf = _tf()
    inputs = tf.convert_to_tensor(inputs)
    shape = tuple(inputs.shape) if noise_shape is None else tuple(
        d if d is not None else s for d, s in zip(noise_shape, inputs.shape))
    keep = _rng(seed).random(shape) >= rate
    mask = tf.constant(keep.astype(inputs.dtype.as_numpy_dtype))
    return inputs * mask / tf.cast(1.0 - rate, inputs.dtype)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order."""
    tf = _tf()
    x = tf.convert_to_tensor(x)
    order = _rng(seed).permutation(x.shape[axis])
    return tf.gather(x, tf.constant(order.astype(np.int64)), axis=axis)


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
    values = logits.numpy().astype(np.float64)
    # Gumbel-max: the argmax of logits plus Gumbel noise samples from softmax(logits).
    noise = -np.log(-np.log(_rng(seed).random((values.shape[0], int(num_samples), values.shape[1]))))
    return _const(np.argmax(values[:, None, :] + noise, axis=-1), standardize_dtype(dtype))


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma samples with concentration ``alpha`` and scale 1."""
    return _const(_rng(seed).gamma(alpha, size=_shape(shape)), _float_dtype(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta samples with concentrations ``alpha`` and ``beta``."""
    return _const(_rng(seed).beta(alpha, beta, size=_shape(shape)), _float_dtype(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial counts of successes (as floats unless ``dtype``) for ``counts`` trials of ``probabilities``."""
    return _const(_rng(seed).binomial(counts, probabilities, size=_shape(shape)), _float_dtype(dtype))

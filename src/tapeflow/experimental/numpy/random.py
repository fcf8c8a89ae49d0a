"""``tf.experimental.numpy.random``: ``seed``, ``rand``, ``randn``, ``random``, ``standard_normal``, ``uniform``,
``randint``.

Draws are ``tf.random`` ops: the seed rules are TF's (``seed`` is ``tf.random.set_seed``), the numbers NumPy's
generator's, not TF's bits. Floats are in the default float type (float64 unless ``prefer_float32``).
"""

from __future__ import annotations

import numpy as np

import tapeflow as _tf

from ._arrays import asarray
from ._dtypes import result_type

__all__ = ["seed", "rand", "randn", "random", "standard_normal", "uniform", "randint"]


def seed(s):
    """Set the global random seed (``tf.random.set_seed``).

    Raises:
        ValueError: for a value ``int()`` does not take.
    """
    try:
        s = int(s)
    except TypeError:
        raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are supported.") from None
    _tf.random.set_seed(s)


def standard_normal(size=None):
    """Draws from the standard normal distribution, of shape ``size``."""
    if size is None:
        size = ()
    elif _isscalar(size):
        size = (size,)
    return _tf.random.normal(size, dtype=result_type(float))


def randn(*args):
    """Standard normal draws of shape ``args``."""
    return standard_normal(size=args)


def uniform(low=0.0, high=1.0, size=None):
    """Draws from ``[low, high)``, of shape ``size`` (the broadcast shape of the bounds when None)."""
    dtype = result_type(float)
    low = asarray(low, dtype=dtype)
    high = asarray(high, dtype=dtype)
    if size is None:
        size = np.broadcast_shapes(tuple(low.shape), tuple(high.shape))
    return _tf.random.uniform(shape=size, minval=low, maxval=high, dtype=dtype)


def random(size=None):
    """Draws from ``[0, 1)``."""
    return uniform(0.0, 1.0, size)


def rand(*size):
    """Draws from ``[0, 1)`` of shape ``size``."""
    return uniform(0.0, 1.0, size)


_ACCEPTED = (np.int32, np.int64)


def _isscalar(value):
    if isinstance(value, _tf.Tensor):
        return len(value.shape) == 0
    return np.isscalar(value)


def randint(low, high=None, size=None, dtype=np.int64):
    """Integers from ``[low, high)`` (``[0, low)`` with one bound), int64 or int32.

    Raises:
        ValueError: for another dtype.
    """
    low = int(low)
    if high is None:
        high, low = low, 0
    if size is None:
        size = ()
    elif isinstance(size, int):
        size = (size,)
    requested = dtype
    dtype = result_type(dtype)
    if dtype not in _ACCEPTED:
        raise ValueError(f"Argument `dtype` got an invalid value {requested}. Only those convertible to {_ACCEPTED} "
                         "are supported.")
    return _tf.random.uniform(shape=size, minval=low, maxval=high, dtype=dtype)

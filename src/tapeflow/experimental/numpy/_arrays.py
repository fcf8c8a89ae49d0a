"""Values to tensors the way TF's NumPy functions take their arguments, and the promotion of several arguments.

A tensor argument is used as it is (cast when another dtype is asked for); anything else (Python and NumPy values,
variables, weak tensors) gets its dtype from NumPy's rules first and is then converted: through that dtype when
the value fits it, else through TF's own inference and a cast (``tnp.array(2.7, dtype=int)`` is 2). The results are
ordinary tensors, made by ordinary ops, so gradients reach the arguments.
"""

from __future__ import annotations

import tapeflow as _tf

from ..._core.tensor import Tensor
from ._dtypes import default_float_type, result_type, result_type_binary, result_type_unary

_MAX_NDMIN = 32


def to_tensor(value, dtype=None, dtype_hint=None):
    """``tf.convert_to_tensor`` as TF's NumPy API calls it: Python ints beyond int64 become uint64, and a Python
    float with nothing asked becomes the default float type (float64 unless ``prefer_float32``)."""
    if dtype is None and type(value) is int and value >= 2**63:
        dtype = _tf.uint64
    elif dtype is None and dtype_hint is None and isinstance(value, float):
        dtype = default_float_type()
    return _tf.convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint)


def array_internal(val, dtype=None, copy=True, ndmin=0):
    """``val`` as a tensor of ``dtype`` (or its own NumPy-rule dtype), copied and given ``ndmin`` dimensions."""
    result = val
    if not isinstance(result, Tensor):
        dtype = result_type_unary(result, dtype)
        result = _tf.cast(to_tensor(result, dtype_hint=dtype), dtype)
    elif dtype:
        result = _tf.cast(result, dtype)
    if copy:
        result = _tf.identity(result)
    if ndmin > _MAX_NDMIN:
        raise ValueError(f"ndmin bigger than allowable number of dimensions: {_MAX_NDMIN}.")
    if ndmin:
        rank = len(result.shape)
        if ndmin > rank:
            result = _tf.reshape(result, [1] * (ndmin - rank) + list(result.shape))
    return result


def array(val, dtype=None, copy=True, ndmin=0):
    """A tensor from ``val`` (``np.array``): a new one unless ``copy=False`` lets a tensor of the right dtype through.

    ``dtype`` may be a NumPy, Python or TF type; ``ndmin`` prepends dimensions of size 1.

    Raises:
        ValueError: for ``ndmin`` above 32.
    """
    if dtype:
        dtype = result_type(dtype)
    return array_internal(val, dtype, copy, ndmin)


def asarray(a, dtype=None):
    """``a`` as a tensor (``np.asarray``): a tensor of the asked dtype (or of any, with none asked) is ``a`` itself."""
    if dtype:
        dtype = result_type(dtype)
    if isinstance(a, Tensor) and (not dtype or dtype == a.dtype):
        return a
    return array(a, dtype, copy=False)


def promote(*arrays):
    """The arguments as tensors of their common dtype (nested sequences count by their elements)."""
    dtype = result_type(*arrays)
    return [a if isinstance(a, Tensor) and dtype == a.dtype else array_internal(a, dtype, copy=False)
            for a in arrays]


def promote_binary(a, b):
    """Two arguments as tensors of their common dtype, by NumPy's rules in every mode."""
    dtype = result_type_binary(a, b)
    if not (isinstance(a, Tensor) and dtype == a.dtype):
        a = array_internal(a, dtype, copy=False)
    if not (isinstance(b, Tensor) and dtype == b.dtype):
        b = array_internal(b, dtype, copy=False)
    return a, b


def static_rank(t) -> int:
    return len(t.shape)

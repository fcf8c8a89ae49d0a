"""Random ops (``tf.random.*``, ``tf.nn.dropout``) with TensorFlow's global and op seed rules.

Seeds, as in TF 2.21 eager mode (``random_seed.get_seed``):

* no global seed, no op seed: nondeterministic draws;
* a global seed (``tf.random.set_seed``) and no op seed: the op seed is drawn from Python's ``random.Random`` seeded
  with the global seed, one draw per random function call, so the sequence of calls after ``set_seed`` repeats
  (these are the very op seeds TF draws);
* an op seed and no global seed: the global seed is TF's default (87654321);
* the pair ``(global, op)``, both taken modulo ``2**31 - 1`` (``(0, 0)`` becomes ``(0, 2**31 - 1)``), keys a
  stream. A stream lives per *kernel*, which TF caches by op name, dtype attributes and seed pair: calling the
  same op with the same explicit seeds continues its stream (``uniform([3], seed=1)`` twice gives two different
  tensors), while another op or another dtype with the same seeds starts a stream of its own. ``set_seed``
  (even to the same value, or to ``None``) drops every stream, so the calls after it repeat.

Values are not bit-equal with TF's Philox kernels: each stream is ``numpy.random.Generator(numpy.random.Philox(
key=(global << 32) | op))``, and the NumPy forwards below say how each op draws from it. Streams keyed by an op
seed drawn from the global seed are not kept (TF would keep one kernel per call, a cache that only grows): the
next call draws a new op seed anyway.
"""

from __future__ import annotations

import numbers
import random as _pyrandom

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core import sizes as _sizes
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.shape import TensorShape
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import where
from .math_ops import ADD, MUL, REALDIV, SUB, greater_equal

__all__ = ["set_seed", "normal", "uniform", "truncated_normal", "categorical", "shuffle", "dropout"]

_MAXINT32 = 2**31 - 1
DEFAULT_GRAPH_SEED = 87654321


class _SeedState:
    """The process-wide seed state (TF keeps it in its eager context)."""

    def __init__(self):
        self.global_seed = None
        self.op_seeds = _pyrandom.Random(None)
        self.streams = {}  # (kernel key, seed pair) -> Generator
        self._entropy = None  # made on first use: numpy.random costs ~15 ms to import

    @property
    def entropy(self):
        """The generator of unseeded draws (seeded from the OS on first use)."""
        if self._entropy is None:
            self._entropy = np.random.Generator(np.random.Philox())
        return self._entropy


_STATE = _SeedState()


@export("random.set_seed")
def set_seed(seed):
    """Set the global seed: later random calls repeat the same sequence; ``None`` returns to nondeterminism."""
    try:
        hash(seed)
        op_seeds = _pyrandom.Random(seed)
    except TypeError:  # unhashable (an array) or a type random.Random refuses (NumPy integers)
        op_seeds = _pyrandom.Random(int(np.array(seed)))
    _STATE.global_seed = seed
    _STATE.op_seeds = op_seeds
    _STATE.streams.clear()


def _get_seeds(op_seed):
    """``((seed, seed2) or None, kept)``: the kernel's seed pair, and whether its stream is kept across calls."""
    global_seed = _STATE.global_seed
    kept = op_seed is not None
    if global_seed is not None:
        if op_seed is None:
            op_seed = _STATE.op_seeds.randint(0, _MAXINT32)
        seeds = (global_seed % _MAXINT32, op_seed % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, op_seed % _MAXINT32)
    else:
        return None, False
    if seeds == (0, 0):  # (0, 0) means "nondeterministic" to TF's kernels
        seeds = (0, _MAXINT32)
    return (int(seeds[0]), int(seeds[1])), kept


def stream_key(seeds):
    """The Philox key of a stream for the seed pair ``(seed, seed2)`` (documented for the tests' references)."""
    return (seeds[0] << 32) | seeds[1]


def _generator(kernel, seeds, kept):
    """The stream of ``kernel`` (op name and dtype attributes) for ``seeds``, continuing where it stopped."""
    if seeds is None:
        return _STATE.entropy
    key = (kernel, seeds)
    gen = _STATE.streams.get(key)
    if gen is None:
        gen = np.random.Generator(np.random.Philox(key=stream_key(seeds)))
        if kept:
            _STATE.streams[key] = gen
    return gen


# ------------------------------------------------------------------------------------------ argument helpers


def _out(arr):
    return arr[()] if arr.ndim == 0 else arr


def _dims(op_name, shape):
    """The output shape from a shape tensor's value, checked as TF's kernels check it."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise errors.op_error(op_name, f"shape must be a vector of {{int32,int64}}, got shape "
                                       f"{errors.shape_str(shape.shape)}")
    dims = tuple(shape.tolist())
    _sizes.check_dims(op_name, dims)
    return dims


def _output(dims, dtype):
    """Reserve the output first, as TF's kernels allocate it: an OOM names its shape and dtype (NumPy's drawing
    may go through a working array of another dtype)."""
    _sizes.empty(dims, dtype)


def _shape_tensor(shape):
    """TF's ``shape_tensor``: lists and tuples convert to int32 (int64 when large), tensors pass through."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not shape:
        return convert_to_tensor(shape, _dtypes.int32)
    return to_tensor(shape)


def _convert(value, dtype, name):
    """``convert_to_tensor(value, dtype, name=name)``: TF names the argument in dtype-mismatch errors."""
    try:
        return convert_to_tensor(value, dtype)
    except ValueError as exc:
        if str(exc).startswith("Tensor conversion requested"):
            raise ValueError(f"{name}: {exc}") from None
        raise


def _check_computable(dtype):
    """Raise the shared bfloat16 error before any seed is consumed (the dtype's NumPy type raises it)."""
    return dtype.as_numpy_dtype


def _attr_dtype_error(op, dtype):
    """TF's error for a ``dtype`` attribute outside the op's float types (``normal(..., dtype=tf.complex64)``)."""
    return errors.InvalidArgumentError(
        None, None, f"Value for attr 'dtype' of {c_name(dtype)} is not in the list of allowed values: half, "
        f"bfloat16, float, double\n\t; NodeDef: {{{{node {op.name}}}}}; {op.tf_signature()} [Op:{op.name}] name: ")


# ------------------------------------------------------------------------------------------ uniform


@defop("RandomUniform", same_dtype=False, stateful=True)
def RANDOM_UNIFORM(shape, *, dtype, rng):
    """Floats in ``[0, 1)``: ``Generator.random`` in float32/float64; float16 from 10 random mantissa bits."""
    dims = _dims("RandomUniform", shape)
    _output(dims, dtype)
    if dtype == "float16":
        return _out((rng.integers(0, 1 << 10, size=dims) * 2.0**-10).astype(np.float16))
    return _out(rng.random(dims, dtype=np.dtype(dtype)))


@defop("RandomUniformInt", same_dtype=False, stateful=True)
def RANDOM_UNIFORM_INT(shape, minval, maxval, *, rng):
    """Integers in ``[minval, maxval)``: ``Generator.integers`` (checks in TF's kernel order)."""
    dims = _dims("RandomUniformInt", shape)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if np.ndim(v) != 0:
            raise errors.op_error("RandomUniformInt", f"{name} must be 0-D, got shape {errors.shape_str(np.shape(v))}")
    dtype = np.asarray(minval).dtype
    _output(dims, dtype)
    if 0 in dims:
        return np.zeros(dims, dtype)
    if not minval < maxval:
        raise errors.op_error("RandomUniformInt", f"Need minval < maxval, got {minval} >= {maxval}")
    return _out(rng.integers(minval, maxval, size=dims, dtype=dtype))


_UNIFORM_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64, _dtypes.int32,
                   _dtypes.int64)


@export("random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Uniform values in ``[minval, maxval)``; ``maxval`` defaults to 1 for floats and is required for integers.

    Float results are ``u * (maxval - minval) + minval`` with TF's ops, so gradients reach tensor bounds.
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in _UNIFORM_DTYPES)}).")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    _check_computable(dtype)
    shape = _shape_tensor(shape)
    # TF skips the scaling ops only for the Python ints 0 and 1 (0.0 takes the general path).
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval = _convert(minval, dtype, "min")
        maxval = _convert(maxval, dtype, "max")
    seeds, kept = _get_seeds(seed)
    if dtype.is_integer:
        rng = _generator(("RandomUniformInt", dtype.name, shape.dtype.name), seeds, kept)
        return execute(RANDOM_UNIFORM_INT, (shape, minval, maxval), {"rng": rng})
    rng = _generator(("RandomUniform", dtype.name, shape.dtype.name), seeds, kept)
    result = execute(RANDOM_UNIFORM, (shape,), {"dtype": dtype.name, "rng": rng})
    if minval_is_zero:
        if not maxval_is_one:
            result = execute(MUL, (result, maxval))
        return result
    return execute(ADD, (execute(MUL, (result, execute(SUB, (maxval, minval)))), minval))


# ------------------------------------------------------------------------------------------ normal


def _standard_normal(rng, dims, dtype):
    if dtype == "float16":  # NumPy draws normals in float32 and float64 only
        return rng.standard_normal(dims, dtype=np.float32).astype(np.float16)
    return rng.standard_normal(dims, dtype=np.dtype(dtype))


@defop("RandomStandardNormal", same_dtype=False, stateful=True)
def RANDOM_STANDARD_NORMAL(shape, *, dtype, rng):
    """Standard normal values: ``Generator.standard_normal`` (float16 rounded from float32)."""
    dims = _dims("RandomStandardNormal", shape)
    _output(dims, dtype)
    return _out(_standard_normal(rng, dims, dtype))


@defop("TruncatedNormal", same_dtype=False, stateful=True)
def TRUNCATED_NORMAL(shape, *, dtype, rng):
    """Standard normal values with those beyond 2 in magnitude drawn again, in rounds, until none is left."""
    dims = _dims("TruncatedNormal", shape)
    _output(dims, dtype)
    out = _standard_normal(rng, dims, dtype).reshape(-1)
    bad = np.flatnonzero(np.abs(out) > 2)
    while bad.size:  # about 4.6% per round: a handful of rounds
        out[bad] = _standard_normal(rng, (bad.size,), dtype)
        bad = bad[np.abs(out[bad]) > 2]
    return _out(out.reshape(dims))


def _scaled_normal(op, shape, mean, stddev, dtype, seed):
    dtype = _dtypes.as_dtype(dtype)
    shape = _shape_tensor(shape)
    mean = _convert(mean, dtype, "mean")
    stddev = _convert(stddev, dtype, "stddev")
    seeds, kept = _get_seeds(seed)
    if not dtype.is_floating:
        raise _attr_dtype_error(op, dtype)
    _check_computable(dtype)
    rng = _generator((op.name, dtype.name, shape.dtype.name), seeds, kept)
    rnd = execute(op, (shape,), {"dtype": dtype.name, "rng": rng})
    return execute(ADD, (execute(MUL, (rnd, stddev)), mean))


@export("random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values ``z * stddev + mean``; gradients reach tensor ``mean`` and ``stddev`` (``tf.random.normal``)."""
    return _scaled_normal(RANDOM_STANDARD_NORMAL, shape, mean, stddev, dtype, seed)


@export("random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values within two ``stddev`` of ``mean``, others re-drawn (``tf.random.truncated_normal``)."""
    return _scaled_normal(TRUNCATED_NORMAL, shape, mean, stddev, dtype, seed)


# ------------------------------------------------------------------------------------------ categorical


@defop("Multinomial", same_dtype=False, stateful=True)
def MULTINOMIAL(logits, num_samples, *, output_dtype, rng):
    """Class indices drawn from ``softmax(logits)`` per row, by TF's kernel's method.

    Non-finite logits have probability zero; a row without a finite logit yields ``num_classes``. Each sample is
    the first class whose cumulative probability exceeds a uniform draw (``Generator.random``, one per sample,
    row-major).
    """
    if logits.ndim != 2:
        raise errors.op_error("Multinomial", f"logits should be a matrix, got shape {errors.shape_str(logits.shape)}")
    if np.ndim(num_samples) != 0:
        raise errors.op_error("Multinomial", f"num_samples should be a scalar, got shape "
                                             f"{errors.shape_str(np.shape(num_samples))}", name=None)
    if num_samples < 0:
        raise errors.op_error("Multinomial", f"num_samples should be non-negative, got {num_samples}")
    batch, classes = logits.shape
    if classes <= 0:
        raise errors.op_error("Multinomial", f"num_classes should be positive, got {classes}")
    num = int(num_samples)
    _output((batch, num), output_dtype)
    lg = logits.astype(np.float64)
    finite = np.isfinite(lg)
    lg = np.where(finite, lg, 0.0)
    top = np.max(np.where(finite, lg, -np.inf), axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    cdf = np.cumsum(np.where(finite, np.exp(lg - top), 0.0), axis=1)
    total = cdf[:, -1:]
    cdf = np.divide(cdf, total, out=np.zeros_like(cdf), where=total > 0)
    u = rng.random((batch, num))
    # One searchsorted for all rows: row r's cumulative values sit in [2r, 2r + 1], its draws in [2r, 2r + 1).
    offset = 2.0 * np.arange(batch)[:, None]
    pos = np.searchsorted((cdf + offset).reshape(-1), (u + offset).reshape(-1), side="right").reshape(batch, num)
    pos -= classes * np.arange(batch)[:, None]
    pos[(total[:, 0] <= 0)] = classes
    return pos.astype(output_dtype)


_MULTINOMIAL_KERNELS = (
    "  device='XLA_CPU_JIT'; output_dtype in [DT_INT32, DT_INT64]; T in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, "
    "DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64]\n"
    + "".join(f"  device='CPU'; T in [DT_{t}]; output_dtype in [DT_INT{b}]\n"
              for t in ("DOUBLE", "FLOAT", "BFLOAT16", "HALF") for b in (64, 32)))


@export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``[batch, num_samples]`` class indices drawn from the rows of ``logits`` (unnormalized log-probabilities)."""
    logits = to_tensor(logits)
    dtype = _dtypes.as_dtype(dtype) if dtype else _dtypes.int64
    accepted = (_dtypes.int32, _dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in accepted)}).")
    seeds, kept = _get_seeds(seed)
    num_samples = to_tensor(num_samples) if isinstance(num_samples, Tensor) else convert_to_tensor(
        num_samples, _dtypes.int32)
    if num_samples.dtype != _dtypes.int32:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute Multinomial as input #1(zero-based) was expected to be a int32 tensor but "
            f"is a {num_samples.dtype.name} tensor [Op:Multinomial] name: ")
    if logits.dtype.is_integer:  # TF registers Multinomial for integer logits, with no CPU kernel
        s1, s2 = seeds or (0, 0)
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node Multinomial}}}} = Multinomial[T=DT_"
            f"{logits.dtype.name.upper()}, output_dtype=DT_{dtype.name.upper()}, seed={s1}, seed2={s2}]\nAll kernels "
            f"registered for op Multinomial:\n{_MULTINOMIAL_KERNELS} [Op:Multinomial] name: ")
    rng = _generator(("Multinomial", logits.dtype.name, dtype.name), seeds, kept)
    return execute(MULTINOMIAL, (logits, num_samples), {"output_dtype": dtype.name, "rng": rng})


# ------------------------------------------------------------------------------------------ shuffle


@defop("RandomShuffle", same_dtype=False, stateful=True)
def RANDOM_SHUFFLE(value, *, rng):
    """``value`` with its first axis permuted by ``Generator.permutation``; a scalar comes back unchanged."""
    if np.ndim(value) == 0:
        return value
    return value[rng.permutation(value.shape[0])]


@export("random.shuffle")
def shuffle(value, seed=None, name=None):
    """``value`` with its slices along the first dimension in random order (``tf.random.shuffle``)."""
    value = to_tensor(value)
    seeds, kept = _get_seeds(seed)
    rng = _generator(("RandomShuffle", value.dtype.name), seeds, kept)
    return execute(RANDOM_SHUFFLE, (value,), {"rng": rng})


# ------------------------------------------------------------------------------------------ dropout


def _noise_shape(x, noise_shape):
    """TF's ``_get_noise_shape``: ``None`` entries take ``x``'s dimension when the ranks agree."""
    if noise_shape is None:
        return constant_of(np.array(x._value.shape, dtype=np.int32))
    if isinstance(noise_shape, Tensor):
        return noise_shape
    try:
        dims = TensorShape(noise_shape).as_list()
    except (TypeError, ValueError):
        return noise_shape
    if len(dims) == x._value.ndim:
        return [d if d is not None else x._value.shape[i] for i, d in enumerate(dims)]
    return noise_shape


@export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element of ``x`` with probability ``rate`` and scale the others by ``1 / (1 - rate)``.

    The mask keeps ``uniform(noise_shape) >= rate`` (``noise_shape`` broadcasts against ``x``); the gradient with
    respect to ``x`` is the mask times the scale, and reaches a tensor ``rate`` too, as in TF.
    """
    is_rate_number = isinstance(rate, numbers.Real)
    if is_rate_number and (rate < 0 or rate >= 1):
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype}")
    if is_rate_number and rate == 0:
        _get_seeds(seed)  # TF takes an op seed even here, so later seeded calls do not shift
        return x
    rate_is_tensor = isinstance(rate, Tensor) or getattr(rate, "_tapeflow_variable", False)
    if not rate_is_tensor:
        if not is_rate_number:
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        scale = convert_to_tensor(1 / (1 - rate), x.dtype)
        ret = execute(MUL, (x, scale))
    else:
        rate = to_tensor(rate)
        if rate._value.ndim != 0:
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        if rate.dtype != x.dtype:
            raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype} and "
                             f"rate.dtype={rate.dtype}")
        one = constant_of(np.ones((), x._value.dtype)[()])
        ret = execute(REALDIV, (x, execute(SUB, (one, rate))))
    noise = _noise_shape(x, noise_shape)
    keep_mask = greater_equal(uniform(noise, seed=seed, dtype=x.dtype), rate)
    return where(keep_mask, ret, constant_of(np.zeros((), x._value.dtype)[()]))


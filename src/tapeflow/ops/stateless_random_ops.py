"""Stateless random draws: values that are a function of a seed *tensor* (``tf.random.stateless_uniform``,
``tf.random.stateless_normal``, and every draw of ``tf.keras.random`` and of Keras's random layers).

Because the seed is an input of the op, not a value read in Python, a ``tf.function`` program re-runs the draw on
whatever seed it reads on each call: a ``SeedGenerator`` (a variable the program reads and advances) gives new
values per call, a fixed seed the same ones. That is the contract of TF's stateless random ops.

One op, ``StatelessPhilox``, makes every draw. Its inputs are

* ``seed``: the seed pair, ``int64`` (or ``int32``) of shape ``[2]``;
* ``counter``: an ``int64`` scalar, the number of 64-bit words of the stream already used (0 for a fresh draw);
* the draw's own operands, if any (a shape tensor, integer bounds, logits; Keras's draws take their shape as an
  attribute, or as an operand when it is known only when the program runs);

and its attributes are ``kind`` (which draw, a key of ``KINDS``) and the draw's parameters. The stream is
``numpy.random.Generator(numpy.random.Philox(key=(seed[0], seed[1])))``, the two seed words taken as unsigned 64-bit
integers, read from word ``counter`` on. Values are therefore not bit-equal with TensorFlow's Philox or ThreeFry
kernels (as for ``tf.random``): shapes, dtypes, seeds' reproducibility and errors are TF's.

The op is not differentiable, as TF's stateless ops are not: a gradient reaches bounds or a mean given as tensors
through the ops applied after the draw (``u * (maxval - minval) + minval``), and dropout's through the
multiplication by its mask.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.convert import c_name
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .math_ops import ADD, MUL, SUB
from .random_ops import _check_computable, _convert, _dims, _output, _shape_tensor

__all__ = ["STATELESS_PHILOX", "KINDS", "stream", "draw", "stateless_uniform", "stateless_normal"]

_OP = "StatelessPhilox"


def stream(seed, counter=0, exact_key=False):
    """The generator a draw reads: Philox keyed by the seed pair's two words (as unsigned 64-bit integers),
    advanced past its first ``counter`` 64-bit words.

    ``exact_key`` keys it with the two words as they are. Without it the key is what NumPy makes of the list of
    the two words as Python integers, which is what ``tapeflow.keras.random`` has always drawn from: NumPy reads a
    list holding a word of ``2**63`` or more (a negative seed) through float64, so such a word loses its low bits.

    Philox makes four 64-bit words per step of its counter: ``advance`` skips whole steps, and the words left over
    are drawn and dropped, so that reading ``n`` words and then ``m`` more gives what one reading of ``n + m``
    words gives (a layer's stream, read further along call after call).
    """
    words = np.asarray(seed).astype(np.int64).astype(np.uint64)
    if exact_key:
        bits = np.random.Philox(key=words)
    else:
        with np.errstate(invalid="ignore"):  # NumPy's float64 reading of a large word warns: it is the key all the same
            bits = np.random.Philox(key=[int(words[0]), int(words[1])])
    counter = int(counter)
    if counter:
        bits.advance(counter // 4)
        if counter % 4:
            bits.random_raw(counter % 4)
    return np.random.Generator(bits)


# ------------------------------------------------------------------------------------------ the kinds
#
# Keras's draws (``tapeflow.keras.random``): NumPy's samplers in float64 (or int64), as those functions have always
# drawn them; the forward then casts to the ``dtype`` attribute.


def _uniform(rng, *, shape, minval, maxval):
    return minval + (maxval - minval) * rng.random(shape)


def _normal(rng, *, shape, mean, stddev):
    return rng.standard_normal(shape) * stddev + mean


def _truncated_normal(rng, *, shape, mean, stddev):
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while bad.any():  # redrawn in rounds, every value beyond two standard deviations at once
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out * stddev + mean


def _randint(rng, *, shape, minval, maxval):
    return rng.integers(minval, maxval, size=shape)


def _gamma(rng, *, shape, alpha):
    return rng.gamma(alpha, size=shape)


def _beta(rng, *, shape, alpha, beta):
    return rng.beta(alpha, beta, size=shape)


def _binomial(rng, *, shape, counts, probabilities):
    return rng.binomial(counts, probabilities, size=shape)


def _permutation(rng, *, n):
    return rng.permutation(n)


def _keep(rng, *, shape, rate, scaled=False):
    """Dropout's mask: an element is kept where a uniform draw is at least ``rate``; ``scaled``: the kept ones are
    ``1 / (1 - rate)`` (in float64), the others 0, as Keras's layers scale their masks."""
    keep = rng.random(shape) >= rate
    return keep.astype(np.float64) / (1.0 - rate) if scaled else keep


def _categorical(rng, logits, *, num_samples):
    """Gumbel-max: the argmax of the logits plus Gumbel noise samples from ``softmax(logits)``, per row."""
    values = logits.astype(np.float64)
    noise = -np.log(-np.log(rng.random((values.shape[0], num_samples, values.shape[1]))))
    return np.argmax(values[:, None, :] + noise, axis=-1)


# TF's stateless ops (``tf.random.stateless_*``): drawn in the output dtype, as tf.random's kernels draw
# (``random_ops.py``), the shape an input checked as TF's kernels check it.


def _tf_uniform(rng, shape, *, dtype, op):
    dims = _dims(op, shape)
    _output(dims, dtype)
    if dtype == "float16":
        return (rng.integers(0, 1 << 10, size=dims) * 2.0**-10).astype(np.float16)
    return rng.random(dims, dtype=np.dtype(dtype))


def _tf_uniform_int(rng, shape, minval, maxval, *, op):
    dims = _dims(op, shape)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if np.ndim(v) != 0:
            raise errors.op_error(op, f"{name} must be 0-D, got shape {errors.shape_str(np.shape(v))}")
    dtype = np.asarray(minval).dtype
    _output(dims, dtype)
    if 0 in dims:
        return np.zeros(dims, dtype)
    if not minval < maxval:
        raise errors.op_error(op, f"Need minval < maxval, got {minval} >= {maxval}")
    return rng.integers(minval, maxval, size=dims, dtype=dtype)


def _tf_uniform_full_int(rng, shape, *, dtype, op):
    dims = _dims(op, shape)
    _output(dims, dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=dims, dtype=dtype, endpoint=True)


def _tf_normal(rng, shape, *, dtype, op):
    dims = _dims(op, shape)
    _output(dims, dtype)
    if dtype == "float16":  # NumPy draws normals in float32 and float64 only
        return rng.standard_normal(dims, dtype=np.float32).astype(np.float16)
    return rng.standard_normal(dims, dtype=np.dtype(dtype))


KINDS = {
    "uniform": _uniform, "normal": _normal, "truncated_normal": _truncated_normal, "randint": _randint,
    "gamma": _gamma, "beta": _beta, "binomial": _binomial, "permutation": _permutation, "keep": _keep,
    "categorical": _categorical, "tf_uniform": _tf_uniform, "tf_uniform_int": _tf_uniform_int,
    "tf_uniform_full_int": _tf_uniform_full_int, "tf_normal": _tf_normal,
}

# The kinds whose sampler takes the ``dtype`` attribute itself (TF's); the others' values are cast to it.
_DRAWS_IN_DTYPE = frozenset({"tf_uniform", "tf_uniform_full_int", "tf_normal"})
# Keras's kinds with a ``shape`` (``n`` for a permutation): an attribute when it is known in Python, else the
# first operand (a traced function's batch of unknown size: ``tf.shape(x)``, read when the program runs).
_SIZED = {"uniform": "shape", "normal": "shape", "truncated_normal": "shape", "randint": "shape",
          "gamma": "shape", "beta": "shape", "binomial": "shape", "keep": "shape", "permutation": "n"}


def _numpy_error(exc, values, attrs):
    # Keras's draws raise NumPy's own errors (``low >= high``, ``p < 0, p > 1 or p is NaN``), as they always did.
    return exc


@defop(_OP, same_dtype=False, on_error=_numpy_error)
def STATELESS_PHILOX(seed, counter, *operands, kind, dtype=None, exact_key=False, **params):
    """The draw ``kind`` (``KINDS``) from the Philox stream keyed by ``seed`` (see :func:`stream` for
    ``exact_key``), from its ``counter``-th 64-bit word on; the values are cast to ``dtype`` (when given) as
    ``ndarray.astype`` casts."""
    if np.shape(seed) != (2,):
        raise errors.op_error(_OP, f"seed must have shape [2], not {errors.shape_str(np.shape(seed))}")
    if counter < 0:
        raise errors.op_error(_OP, f"counter must be non-negative, got {counter}")
    size = _SIZED.get(kind)
    if size is not None and size not in params:
        dims = np.asarray(operands[0]).reshape(-1).tolist()
        params[size] = int(dims[0]) if size == "n" else tuple(int(d) for d in dims)
        operands = operands[1:]
    rng = stream(seed, counter, exact_key)
    if kind in _DRAWS_IN_DTYPE:
        out = KINDS[kind](rng, *operands, dtype=dtype, **params)
    else:
        out = KINDS[kind](rng, *operands, **params)
        if dtype is not None:
            out = np.asarray(out).astype(dtype, copy=False)
    out = np.asarray(out)
    return out[()] if out.ndim == 0 else out


_ZERO = np.zeros((), np.int64)[()]


def draw(seed, kind, *operands, counter=None, **attrs):
    """Run ``StatelessPhilox``: ``seed`` a tensor (the pair), ``operands`` tensors, ``counter`` a tensor or None
    (a fresh stream), ``attrs`` the kind's parameters (Python values) and ``dtype`` (a dtype name)."""
    counter = constant_of(_ZERO) if counter is None else counter
    return execute(STATELESS_PHILOX, (seed, counter, *operands), {"kind": kind, **attrs})


# ------------------------------------------------------------------------------------------ tf.random.stateless_*

_STATELESS_UNIFORM_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64, _dtypes.int32,
                             _dtypes.int64, _dtypes.uint32, _dtypes.uint64)
_ALGS = ("philox", "threefry", "auto_select")
_TSHAPE = "attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]"
_FLOAT_SIG = ("signature=shape:Tshape, key:uint64, counter:uint64, alg:int32 -> output:dtype; attr=dtype:type,"
              "default=DT_FLOAT,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]; " + _TSHAPE)
# TF's op definitions, as its attr errors print them.
_SIGNATURES = {
    "StatelessRandomGetKeyCounter": "signature=seed:Tseed -> key:uint64, counter:uint64; attr=Tseed:type,"
                                    "default=DT_INT64,allowed=[DT_INT32, DT_INT64]",
    "StatelessRandomUniformV2": _FLOAT_SIG,
    "StatelessRandomNormalV2": _FLOAT_SIG,
    "StatelessRandomUniformIntV2": "signature=shape:Tshape, key:uint64, counter:uint64, alg:int32, minval:dtype, "
                                   "maxval:dtype -> output:dtype; attr=dtype:type,allowed=[DT_INT32, DT_INT64, "
                                   "DT_UINT32, DT_UINT64]; " + _TSHAPE,
    "StatelessRandomUniformFullIntV2": "signature=shape:Tshape, key:uint64, counter:uint64, alg:int32 -> "
                                       "output:dtype; attr=dtype:type,default=DT_UINT64,allowed=[DT_INT32, DT_INT64, "
                                       "DT_UINT32, DT_UINT64]; " + _TSHAPE,
}


def _attr_error(op, attr, dtype, allowed, name=""):
    return errors.InvalidArgumentError(None, None, errors.with_name(
        f"Value for attr '{attr}' of {c_name(dtype)} is not in the list of allowed values: {allowed}\n\t; NodeDef: "
        f"{{{{node {op}}}}}; Op<name={op}; {_SIGNATURES[op]}> [Op:{op}]", name))


def _check_alg(alg):
    # TF takes its ``Algorithm`` enum, an int or a tensor as they are, and names the strings it knows.
    if isinstance(alg, str) and alg not in _ALGS:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")


def _seed_tensor(seed):
    """The seed as TF's ``StatelessRandomGetKeyCounter`` takes it: int32 or int64, of shape ``[2]`` (TF checks it
    before the draw, with the suffix of the op wrapper's path for the seed as given)."""
    name = None if isinstance(seed, str) else errors.error_name(None, seed)
    tensor = to_tensor(seed) if isinstance(seed, Tensor) or getattr(seed, "_tapeflow_variable", False) else \
        convert_to_tensor(seed)
    if tensor.dtype not in (_dtypes.int32, _dtypes.int64):
        raise _attr_error("StatelessRandomGetKeyCounter", "Tseed", tensor.dtype, "int32, int64", name)
    dims = tensor.shape.as_list()
    if dims != [2]:
        raise errors.op_error("StatelessRandomGetKeyCounter", f"seed must have shape [2], not {errors.shape_str(dims)}",
                              name=name)
    return tensor


def _check_shape_dtype(shape, op):
    if shape.dtype not in (_dtypes.int32, _dtypes.int64):
        raise _attr_error(op, "Tshape", shape.dtype, "int32, int64")


@export("random.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Uniform values in ``[minval, maxval)`` that depend on ``seed`` (shape ``[2]``, int32 or int64) alone: the
    same seed gives the same values, in a ``tf.function`` program too.

    ``maxval`` defaults to 1 for floats; integer dtypes take both bounds, or neither for the full range of the
    dtype (``uint32`` and ``uint64`` only so). Float results are ``u * (maxval - minval) + minval`` with TF's ops,
    so gradients reach tensor bounds. Values are not TF's: the draw is NumPy's Philox keyed by the seed pair
    (``StatelessPhilox``), whatever ``alg`` says.

    Raises:
        ValueError: for a dtype outside TF's list, bounds given for one side only (integers) or for unsigned
            integers, or an unknown ``alg``.
        InvalidArgumentError: for a seed that is not an int32 or int64 pair, a shape that is not a vector of
            non-negative sizes, or integer bounds with ``minval >= maxval``.
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _STATELESS_UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in _STATELESS_UNIFORM_DTYPES)}).")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both None "
                             f"or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (_dtypes.uint32, _dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. Please "
                             "don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    _check_alg(alg)
    _check_computable(dtype)
    shape = _shape_tensor(shape)
    if dtype.is_integer and minval is None:
        op = "StatelessRandomUniformFullIntV2"
        seed = _seed_tensor(seed)
        _check_shape_dtype(shape, op)
        return draw(seed, "tf_uniform_full_int", shape, dtype=dtype.name, op=op, exact_key=True)
    minval = _convert(minval, dtype, "min")
    maxval = _convert(maxval, dtype, "max")
    seed = _seed_tensor(seed)
    if dtype.is_integer:
        op = "StatelessRandomUniformIntV2"
        _check_shape_dtype(shape, op)
        return draw(seed, "tf_uniform_int", shape, minval, maxval, op=op, exact_key=True)
    op = "StatelessRandomUniformV2"
    _check_shape_dtype(shape, op)
    rnd = draw(seed, "tf_uniform", shape, dtype=dtype.name, op=op, exact_key=True)
    return execute(ADD, (execute(MUL, (rnd, execute(SUB, (maxval, minval)))), minval))


@export("random.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"):
    """Normal values ``z * stddev + mean`` that depend on ``seed`` (shape ``[2]``, int32 or int64) alone: the same
    seed gives the same values, in a ``tf.function`` program too.

    Gradients reach tensor ``mean`` and ``stddev``. Values are not TF's: the draw is NumPy's Philox keyed by the
    seed pair (``StatelessPhilox``), whatever ``alg`` says.

    Raises:
        TypeError: for a ``mean`` or ``stddev`` that does not convert to ``dtype``.
        ValueError: for an unknown ``alg``.
        InvalidArgumentError: for a non-float dtype, a seed that is not an int32 or int64 pair, or a shape that is
            not a vector of non-negative sizes.
    """
    dtype = _dtypes.as_dtype(dtype)
    _check_alg(alg)
    shape = _shape_tensor(shape)
    mean = _convert(mean, dtype, "mean")
    stddev = _convert(stddev, dtype, "stddev")
    seed = _seed_tensor(seed)
    op = "StatelessRandomNormalV2"
    if not dtype.is_floating:
        raise _attr_error(op, "dtype", dtype, "half, bfloat16, float, double", name="")
    _check_shape_dtype(shape, op)
    _check_computable(dtype)
    rnd = draw(seed, "tf_normal", shape, dtype=dtype.name, op=op, exact_key=True)
    return execute(ADD, (execute(MUL, (rnd, stddev)), mean))

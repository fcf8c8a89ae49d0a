"""Op database entries for the random ops (all declared non-differentiable, as in TF).

Each ``fn`` sets the global seed and passes an op seed, so its draws start a fresh stream; each ``ref`` rebuilds
that stream with the keying documented in ``tapeflow/ops/random_ops.py`` (``Philox(key=(global << 32) | op)``)
and draws from it as the op's docstring says. Distributions, seed rules and dropout live in ``tests/test_random.py``.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403

GLOBAL_SEED = 1234


def _stream(op_seed):
    return np.random.Generator(np.random.Philox(key=(GLOBAL_SEED << 32) | op_seed))


def _seeded(f, op_seed):
    """``f(x, seed=op_seed, ...)`` right after ``set_seed``: a fresh stream on every call. The global seed is
    unset again afterwards, so other tests run in TF's initial state."""

    def fn(*args, **kwargs):
        tf.random.set_seed(GLOBAL_SEED)
        try:
            return f(*args, seed=op_seed, **kwargs)
        finally:
            tf.random.set_seed(None)

    return fn


def _shapes(name, shapes):
    return [make_sample(name, s, (uniform(),), (shape,)) for s, shape in shapes]


# --- uniform floats: u in [0, 1), then u * (maxval - minval) + minval in the tensor's dtype


def _uniform(x, seed, bounds=None):
    if bounds is None:
        return tf.random.uniform(tf.shape(x), dtype=x.dtype, seed=seed)
    return tf.random.uniform(tf.shape(x), minval=bounds[0], maxval=bounds[1], dtype=x.dtype, seed=seed)


def _uniform_ref(x, bounds=None):
    u = _stream(11).random(x.shape, dtype=x.dtype)
    if bounds is None:
        return u
    lo, hi = x.dtype.type(bounds[0]), x.dtype.type(bounds[1])
    return u * (hi - lo) + lo


op("RandomUniform", _seeded(_uniform, 11), _uniform_ref,
   _shapes("RandomUniform", (("matrix", (2, 3)), ("scalar", ()), ("long", (40,)))) + [
       make_sample("RandomUniform", "bounds", (uniform(),), ((3, 2),), kwargs={"bounds": (-2.0, 3.5)})], False)

# --- uniform integers in [minval, maxval)


def _uniform_int(x, seed, dtype="int32", lo=-3, hi=9):
    return tf.random.uniform(tf.shape(x), minval=lo, maxval=hi, dtype=dtype, seed=seed)


def _uniform_int_ref(x, dtype="int32", lo=-3, hi=9):
    return _stream(12).integers(lo, hi, size=x.shape, dtype=dtype)


op("RandomUniformInt", _seeded(_uniform_int, 12), _uniform_int_ref,
   _shapes("RandomUniformInt", (("matrix", (2, 3)), ("scalar", ()))) + [
       make_sample("RandomUniformInt", "int64_wide", (uniform(),), ((5,),),
                   kwargs={"dtype": "int64", "lo": -2**40, "hi": 2**40})], False)

# --- normal and truncated normal: z * stddev + mean


def _normal(x, seed, mean=0.0, stddev=1.0):
    return tf.random.normal(tf.shape(x), mean=mean, stddev=stddev, dtype=x.dtype, seed=seed)


def _normal_ref(x, mean=0.0, stddev=1.0):
    z = _stream(13).standard_normal(x.shape, dtype=x.dtype)
    return z * x.dtype.type(stddev) + x.dtype.type(mean)


op("RandomStandardNormal", _seeded(_normal, 13), _normal_ref,
   _shapes("RandomStandardNormal", (("matrix", (2, 3)), ("scalar", ()))) + [
       make_sample("RandomStandardNormal", "mean_stddev", (uniform(),), ((4,),),
                   kwargs={"mean": 1.5, "stddev": 0.25})], False)


def _truncated(x, seed, mean=0.0, stddev=1.0):
    return tf.random.truncated_normal(tf.shape(x), mean=mean, stddev=stddev, dtype=x.dtype, seed=seed)


def _truncated_ref(x, mean=0.0, stddev=1.0):
    rng = _stream(14)
    z = rng.standard_normal(x.size, dtype=x.dtype)
    bad = np.flatnonzero(np.abs(z) > 2)
    while bad.size:  # re-drawn in rounds, in index order
        z[bad] = rng.standard_normal(bad.size, dtype=x.dtype)
        bad = bad[np.abs(z[bad]) > 2]
    return z.reshape(x.shape) * x.dtype.type(stddev) + x.dtype.type(mean)


op("TruncatedNormal", _seeded(_truncated, 14), _truncated_ref,
   _shapes("TruncatedNormal", (("matrix", (2, 3)), ("many", (30, 10)))) + [
       make_sample("TruncatedNormal", "mean_stddev", (uniform(),), ((50,),), kwargs={"mean": -1.0, "stddev": 3.0})],
   False, note="'many' and 'mean_stddev' draw enough values for some to be re-drawn")

# --- categorical: per row, the first class whose cumulative probability exceeds a uniform draw


def _categorical(logits, seed, num_samples=7, dtype=None):
    return tf.random.categorical(logits, num_samples, dtype=dtype, seed=seed)


def _categorical_ref(logits, num_samples=7, dtype=None):
    u = _stream(15).random((logits.shape[0], num_samples))
    lg = logits.astype(np.float64)
    p = np.exp(lg - lg.max(axis=1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    out = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(len(lg))])
    return out.astype(dtype or "int64")


op("Multinomial", _seeded(_categorical, 15), _categorical_ref,
   _shapes("Multinomial", (("matrix", (3, 4)), ("one_row", (1, 6)))) + [
       make_sample("Multinomial", "int32_many", (uniform(-3, 3),), ((2, 5),),
                   kwargs={"num_samples": 40, "dtype": "int32"})], False)

# --- shuffle: a permutation of the first axis


def _shuffle(x, seed):
    return tf.random.shuffle(x, seed=seed)


def _shuffle_ref(x):
    return x[_stream(16).permutation(x.shape[0])] if x.ndim else x


op("RandomShuffle", _seeded(_shuffle, 16), _shuffle_ref,
   _shapes("RandomShuffle", (("matrix", (5, 3)), ("vector", (8,)), ("scalar", ()))), False)

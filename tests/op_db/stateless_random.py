"""Op database entry for ``StatelessPhilox``, the op of every stateless draw (``tf.random.stateless_*``,
``tf.keras.random`` and Keras's random layers): non-differentiable, as TF's stateless ops are.

A sample's first array holds the seed pair, then (when it has three values) the counter: ``fn`` casts them to
int64, so the tests that run the op on other values (``tests/test_compiler_ops.py`` permutes them) draw from
another seed or another position, and a traced program that froze its first draw fails there. The public
``tf.random.stateless_*`` functions take no counter: their samples' third value is a spare one that the
permutation moves into the seed. The values are distinct, small and non-negative (a counter cannot be negative),
except in the samples of a negative seed word, which have no counter.

``ref`` rebuilds each stream with NumPy alone: ``Philox(key=...)``, the key being the two words as unsigned 64-bit
integers (``exact_key``) or NumPy's reading of the list of those two Python integers (Keras's draws), then the
first ``counter`` words drawn and dropped, then the draw the op's docstring names.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow.ops.stateless_random_ops import draw

from .common import *  # noqa: F403


def _split(x):
    """The sample's seed pair (int64) and counter (int64, or None)."""
    seed = tf.cast(x[:2], tf.int64)
    return seed, (tf.cast(x[2], tf.int64) if x.shape[0] == 3 else None)


def _same(dtype, x):
    """``"same"``: the sample's dtype (float32 or float64), so float results feed the tests' float losses."""
    return np.dtype(x.dtype.name if hasattr(x.dtype, "name") else x.dtype).name if dtype == "same" else dtype


def _keras(x, *operands, kind, sized=None, **attrs):
    seed, counter = _split(x)
    if "dtype" in attrs:
        attrs["dtype"] = _same(attrs["dtype"], x)
    if sized:  # the shape (or a permutation's length) as the first operand, as a traced batch passes it
        operands = (tf.cast(operands[0], tf.int32),) + operands[1:]
    return draw(seed, kind, *operands, counter=counter, **attrs)


def _ref_stream(x, exact_key=False):
    words = np.asarray(x[:2]).astype(np.int64).astype(np.uint64)
    key = words if exact_key else [int(w) for w in words]
    with np.errstate(invalid="ignore"):  # NumPy reads a list holding a word of 2**63 or more through float64
        bits = np.random.Philox(key=key)
    if x.shape[0] == 3 and int(x[2]):
        bits.random_raw(int(x[2]))  # the words before the counter, drawn and dropped
    return np.random.Generator(bits)


_KERAS_REFS = {
    "uniform": lambda rng, shape, minval, maxval: minval + (maxval - minval) * rng.random(shape),
    "normal": lambda rng, shape, mean, stddev: rng.standard_normal(shape) * stddev + mean,
    "randint": lambda rng, shape, minval, maxval: rng.integers(minval, maxval, size=shape),
    "gamma": lambda rng, shape, alpha: rng.gamma(alpha, size=shape),
    "beta": lambda rng, shape, alpha, beta: rng.beta(alpha, beta, size=shape),
    "binomial": lambda rng, shape, counts, probabilities: rng.binomial(counts, probabilities, size=shape),
    "permutation": lambda rng, n: rng.permutation(n),
    "keep": lambda rng, shape, rate: rng.random(shape) >= rate,
}


def _truncated_ref(rng, shape, mean, stddev):
    z = rng.standard_normal(shape)
    while np.any(np.abs(z) > 2):  # every value beyond 2 drawn again, in rounds
        bad = np.abs(z) > 2
        z[bad] = rng.standard_normal(int(bad.sum()))
    return z * stddev + mean


def _categorical_ref(rng, logits, num_samples):
    lg = logits.astype(np.float64)
    u = rng.random((lg.shape[0], num_samples, lg.shape[1]))
    return np.argmax(lg[:, None, :] - np.log(-np.log(u)), axis=-1)


_KERAS_REFS["truncated_normal"] = _truncated_ref
_KERAS_REFS["categorical"] = _categorical_ref


def _keras_ref(x, *operands, kind, dtype=None, exact_key=False, sized=None, **attrs):
    if sized:
        dims = tuple(int(d) for d in operands[0].reshape(-1))
        attrs[sized] = dims[0] if sized == "n" else dims
        operands = operands[1:]
    out = np.asarray(_KERAS_REFS[kind](_ref_stream(x, exact_key), *operands, **attrs))
    return out.astype(_same(dtype, x)) if dtype is not None else out


def _seed(values):
    return lambda rng, shape: f64(values)


def _keras_sample(name, values, kwargs, extra=()):
    gens = (_seed(values),) + tuple(g for g, _ in extra)
    shapes = ((len(values),),) + tuple(s for _, s in extra)
    return make_sample("StatelessPhilox", name, gens, shapes, kwargs=kwargs)


# --- TF's stateless API: the seed pair only (the public functions start every stream at its first word)


def _tf_uniform(x, minval=0, maxval=None, dtype="float32", shape=(2, 3)):
    return tf.random.stateless_uniform(shape, seed=tf.cast(x[:2], tf.int64), minval=minval, maxval=maxval,
                                       dtype=dtype)


def _tf_normal(x, mean=0.0, stddev=1.0, dtype="float32", shape=(2, 3)):
    return tf.random.stateless_normal(shape, seed=tf.cast(x[:2], tf.int32), mean=mean, stddev=stddev, dtype=dtype)


def _tf_fn(x, api, dtype="same", **kwargs):
    return (_tf_uniform if api == "uniform" else _tf_normal)(x, dtype=_same(dtype, x), **kwargs)


def _tf_ref(x, api, minval=0, maxval=None, mean=0.0, stddev=1.0, dtype="same", shape=(2, 3)):
    rng = _ref_stream(x[:2], exact_key=True)  # the spare third value is no counter here
    dt = np.dtype(_same(dtype, x))
    if api == "normal":
        return rng.standard_normal(shape, dtype=dt) * dt.type(stddev) + dt.type(mean)
    if dt.kind in "iu":
        if minval is None:
            info = np.iinfo(dt)
            return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
        return rng.integers(minval, maxval, size=shape, dtype=dt)
    lo, hi = dt.type(minval), dt.type(1 if maxval is None else maxval)
    return rng.random(shape, dtype=dt) * (hi - lo) + lo


def _fn(x, *operands, api=None, **kwargs):
    return _tf_fn(x, api, **kwargs) if api else _keras(x, *operands, **kwargs)


def _ref(x, *operands, api=None, **kwargs):
    return _tf_ref(x, api, **kwargs) if api else _keras_ref(x, *operands, **kwargs)


_SAMPLES = [
    _keras_sample("uniform", (3, 11, 4), {"kind": "uniform", "shape": (2, 3), "minval": -1.0, "maxval": 2.5,
                                       "dtype": "same"}),
    _keras_sample("normal_counter", (3, 11, 6), {"kind": "normal", "shape": (4,), "mean": 0.5, "stddev": 2.0,
                                                 "dtype": "same"}),
    _keras_sample("negative_seed_normal", (-3, 7), {"kind": "normal", "shape": (3,), "mean": 0.0, "stddev": 1.0,
                                                     "dtype": "same"}),
    _keras_sample("truncated_normal", (5, 2, 9), {"kind": "truncated_normal", "shape": (40,), "mean": 1.0,
                                               "stddev": 3.0, "dtype": "same"}),
    _keras_sample("randint", (8, 1, 3), {"kind": "randint", "shape": (2, 5), "minval": -3, "maxval": 100,
                                      "dtype": "int32"}),
    _keras_sample("gamma", (4, 9, 1), {"kind": "gamma", "shape": (3,), "alpha": 1.5, "dtype": "same"}),
    _keras_sample("beta", (6, 2, 5), {"kind": "beta", "shape": (3,), "alpha": 1.5, "beta": 2.5, "dtype": "same"}),
    _keras_sample("binomial", (7, 3, 2), {"kind": "binomial", "shape": (2, 2), "counts": 7, "probabilities": 0.3,
                                       "dtype": "same"}),
    _keras_sample("permutation", (2, 12, 7), {"kind": "permutation", "n": 9, "dtype": "int64"}),
    _keras_sample("keep", (9, 4, 1), {"kind": "keep", "shape": (3, 4), "rate": 0.3, "dtype": "same"}),
    _keras_sample("layer_keep", (1, 10, 7), {"kind": "keep", "shape": (2, 5), "rate": 0.4, "dtype": "same",
                                             "exact_key": True}),
    _keras_sample("layer_keep_negative_seed", (-5, 10), {"kind": "keep", "shape": (3, 3), "rate": 0.5,
                                                            "dtype": "same", "exact_key": True}),
    _keras_sample("keep_shape_operand", (6, 1, 3), {"kind": "keep", "sized": "shape", "rate": 0.5, "dtype": "same",
                                                     "exact_key": True}, extra=((_seed((2, 5)), (2,)),)),
    _keras_sample("permutation_length_operand", (8, 3, 1), {"kind": "permutation", "sized": "n", "dtype": "int64"},
                  extra=((_seed((7,)), ()),)),
    _keras_sample("categorical", (4, 13, 2), {"kind": "categorical", "num_samples": 6, "dtype": "int32"},
                  extra=((uniform(), (3, 4)),)),
    _keras_sample("tf_uniform", (3, 11, 5), {"api": "uniform"}),
    _keras_sample("tf_uniform_bounds", (12, 5, 2), {"api": "uniform", "minval": -2.0, "maxval": 3.5,
                                                 "dtype": "same"}),
    _keras_sample("tf_uniform_int", (2, 9, 4), {"api": "uniform", "minval": -4, "maxval": 20, "dtype": "int64"}),
    _keras_sample("tf_uniform_full_int", (3, 8, 1), {"api": "uniform", "minval": None, "dtype": "uint32"}),
    _keras_sample("tf_normal", (10, 4, 7), {"api": "normal", "mean": 1.5, "stddev": 0.25, "dtype": "same"}),
    _keras_sample("tf_normal_negative_seed", (-1, 6), {"api": "normal", "shape": (5,)}),
]

op("StatelessPhilox", _fn, _ref, _SAMPLES, False,
   note="'truncated_normal' draws enough values for some to be redrawn; 'categorical' takes logits as an operand")

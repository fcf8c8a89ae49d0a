"""Op database entries for ``tf.random.Generator``'s draws (``StatefulStandardNormalV2``, ``StatefulUniform``,
``StatefulUniformInt``, ``StatefulUniformFullInt``, ``StatefulTruncatedNormal``, ``StatefulRandomBinomial``): each
``fn`` draws from a generator made from seed 7 with the sample's shape, each ``ref`` from NumPy's Philox keyed and
positioned as ``tapeflow/ops/generator_ops.py`` documents (key 0, counter 7). None is differentiable."""

from __future__ import annotations

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _stream():
    return np.random.Generator(np.random.Philox(counter=[7, 0, 0, 0], key=[0, 0]))


def _gen():
    return tf.random.Generator.from_seed(7)


def _truncated(shape):
    gen = _stream()
    values = gen.standard_normal(shape)
    bad = np.abs(values) > 2
    while bad.any():
        values[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2
    return values


def _samples(name):
    return [make_sample(name, "matrix", (uniform(),), ((2, 3),))]


op("StatefulStandardNormalV2", lambda x: _gen().normal(x.shape, dtype=x.dtype),
   lambda x: _stream().standard_normal(x.shape).astype(x.dtype), _samples("StatefulStandardNormalV2"), False)
op("StatefulTruncatedNormal", lambda x: _gen().truncated_normal(x.shape, dtype=x.dtype),
   lambda x: _truncated(x.shape).astype(x.dtype), _samples("StatefulTruncatedNormal"), False)
op("StatefulUniform", lambda x: _gen().uniform(x.shape, dtype=x.dtype),
   lambda x: _stream().random(x.shape).astype(x.dtype), _samples("StatefulUniform"), False)
op("StatefulUniformInt", lambda x: _gen().uniform(x.shape, minval=-3, maxval=9, dtype=tf.int32),
   lambda x: _stream().integers(-3, 9, size=x.shape, dtype=np.int64).astype(np.int32),
   _samples("StatefulUniformInt"), False)
op("StatefulUniformFullInt", lambda x: _gen().uniform_full_int(x.shape, dtype=tf.int64),
   lambda x: _stream().integers(0, 1 << 64, size=x.shape, dtype=np.uint64).view(np.int64),
   _samples("StatefulUniformFullInt"), False)
op("StatefulRandomBinomial", lambda x: _gen().binomial(x.shape, counts=10.0, probs=0.25),
   lambda x: _stream().binomial(np.full(x.shape, 10), np.full(x.shape, 0.25), size=x.shape).astype(np.int32),
   _samples("StatefulRandomBinomial"), False)

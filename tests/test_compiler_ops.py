"""Every op of the op database, traced by ``tf.function`` and run on other values, agrees with eager execution.

For each entry and sample of ``tests/op_db``: trace on the sample's values, then call the traced function on a
permutation of them (same shapes, dtypes and set of values, so every input stays in its op's domain, while a
maximum, an ordering or a mask moves), and compare with eager execution on those values:

(a) the forward pass (the generated program);
(b) the gradient of ``sum(f(x) * w)`` taken by a tape *inside* the function (the backward pass is traced too);
(c) the same gradient taken by a tape *outside* the function (the call is replayed op by op under the tape).

A rule or API function that computed a constant from the values it traced with (an argmax, a mask's positions)
would bake it into the program, and fail here.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tapeflow as tf
from tests.op_db import OP_DB

# Known differences, each a strict xfail: (entry, sample or None for all, check) -> reason.
PENDING = {
    ("PrintV2", None, "forward"): "tf.print inside a traced function prints when it runs (being built)",
}

# Ops whose results are random (their streams advance): compared by shape and dtype only.
RANDOM = {"StatefulStandardNormalV2", "StatefulTruncatedNormal", "StatefulUniform", "StatefulUniformInt",
          "StatefulUniformFullInt", "StatefulRandomBinomial",
          "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal", "Multinomial",
          "RandomShuffle"}


def _params(entries, check):
    params = []
    for entry in entries:
        for sample in entry.samples:
            reason = PENDING.get((entry.name, sample.name, check)) or PENDING.get((entry.name, None, check))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(entry, sample, id=f"{entry.name}-{sample.name}", marks=marks))
    return params


def _rng(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def _permuted(entry, sample):
    rng = _rng("permuted", entry.name, sample.name)
    out = []
    for a in sample.args:
        a = np.asarray(a)
        out.append(rng.permutation(a.reshape(-1)).reshape(a.shape) if a.size > 1 else a)
    return out


def _inputs(entry, arrays):
    return [tf.Variable(a) if entry.variables else tf.constant(a) for a in arrays]


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _np(t):
    if isinstance(t, tf.IndexedSlices):
        t = tf.convert_to_tensor(t)
    return None if t is None else np.asarray(t.numpy())


def _same(actual, expected, what):
    assert len(actual) == len(expected), what
    for i, (a, e) in enumerate(zip(actual, expected)):
        a, e = _np(a), _np(e)
        assert (a is None) == (e is None), f"{what} {i}: {a} vs {e}"
        if a is None:
            continue
        assert a.dtype == e.dtype and a.shape == e.shape, f"{what} {i}: {a.dtype}{a.shape} vs {e.dtype}{e.shape}"
        if a.dtype.kind in "OSUb":  # strings and booleans: exactly
            np.testing.assert_array_equal(a, e, err_msg=f"{what} {i}")
        else:
            np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-12, equal_nan=True, err_msg=f"{what} {i}")


def _weights(entry, sample):
    outs = _outputs(entry.fn(*_inputs(entry, sample.args), **sample.kwargs))
    rng = _rng("w", entry.name, sample.name)
    return [rng.standard_normal(np.shape(_np(o))) for o in outs]


def _loss(outs, ws):
    loss = None
    for o, w in zip(outs, ws):
        if o.dtype.is_floating or o.dtype.is_complex:
            term = tf.reduce_sum(tf.math.real(o * tf.cast(w, o.dtype)) if o.dtype.is_complex else o * w)
            loss = term if loss is None else loss + tf.cast(term, loss.dtype)
    return loss


# Ops whose entry builds the op's input in Python from the sample (a serialized tf.train.Example from its values),
# which a trace cannot do with symbolic values; ``tests/test_io.py`` runs them traced on other values instead.
BUILT_IN_PYTHON = {"ParseExampleV2", "ParseExampleVarLen", "ParseExampleRaggedValues", "ParseExampleRaggedLengths"}

FORWARD = [e for e in OP_DB if e.name not in RANDOM and e.name not in BUILT_IN_PYTHON]
DIFFERENTIABLE = [e for e in OP_DB if e.differentiable and e.name not in RANDOM]


@pytest.mark.parametrize("entry,sample", _params(FORWARD, "forward"))
def test_traced_forward_runs_on_other_values(entry, sample):
    f = tf.function(lambda *xs: entry.fn(*xs, **sample.kwargs))
    f(*_inputs(entry, sample.args))
    other = _permuted(entry, sample)
    _same(_outputs(f(*_inputs(entry, other))), _outputs(entry.fn(*_inputs(entry, other), **sample.kwargs)),
          "output")
    assert f.experimental_get_tracing_count() == 1


def _eager_gradient(entry, sample, arrays, ws):
    xs = _inputs(entry, arrays)
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = _loss(_outputs(entry.fn(*xs, **sample.kwargs)), ws)
    return tape.gradient(loss, xs)


def _same_or_same_error(traced, eager):
    """``traced()`` gives what ``eager()`` gives, or raises the same class when it raises (an op TF cannot
    differentiate)."""
    try:
        expected = eager()
    except LookupError as exc:
        with pytest.raises(type(exc)):
            traced()
        return
    _same(_outputs(traced()), expected, "gradient")


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE, "tape_inside"))
def test_traced_gradient_runs_on_other_values(entry, sample):
    ws = [tf.constant(w) for w in _weights(entry, sample)]

    @tf.function
    def grads(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = _loss(_outputs(entry.fn(*xs, **sample.kwargs)), ws)
        return tape.gradient(loss, xs)

    other = _permuted(entry, sample)

    def traced():
        grads(*_inputs(entry, sample.args))
        return grads(*_inputs(entry, other))

    _same_or_same_error(traced, lambda: _eager_gradient(entry, sample, other, ws))


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE, "tape_outside"))
def test_gradient_through_a_traced_call(entry, sample):
    ws = [tf.constant(w) for w in _weights(entry, sample)]
    f = tf.function(lambda *xs: entry.fn(*xs, **sample.kwargs))
    f(*_inputs(entry, sample.args))
    other = _permuted(entry, sample)

    def traced():
        xs = _inputs(entry, other)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = _loss(_outputs(f(*xs)), ws)
        return tape.gradient(loss, xs)

    _same_or_same_error(traced, lambda: _eager_gradient(entry, sample, other, ws))

"""Forward mode (``tf.autodiff.ForwardAccumulator``), driven by the op database.

(a) For every differentiable op and each of its samples, the JVP carried by an accumulator equals the
    directional derivative ``(f(x + h v) - f(x - h v)) / 2h`` in float64, for random tangents ``v`` on all inputs.
(b) Ops with an own JVP rule (``ops/jvp_rules.py``) agree with the JVP derived from their gradient rule (the
    transposition TF uses), value and ``None``-ness, so own rules keep TF's conventions (complex samples too).
(c) Each test in (a) really runs the op's JVP (own rule, or its gradient rule through the transposition).
(d) Forward-over-reverse Hessian-vector products equal reverse-over-reverse ones; nesting in both directions.
Errors, warnings and values against TF 2.21 are golden cases (``tests/golden/cases/forward_mode.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import forward_mode
from tapeflow._core.registry import REGISTRY
from tapeflow.ops import jvp_rules  # noqa: F401  (the own rules, normally loaded by the first accumulator)
from tests.gradcheck import assert_gradient_close
from tests.op_db import OP_DB, registry_name
from tests.test_op_db import _call, _inputs, _np, _rng

EPS = 1e-6
DIFFERENTIABLE = [e for e in OP_DB if e.differentiable]


# Where TF's forward mode (the transposed gradient rule) fails or differs too, checked against TF 2.21.
_EMPTY_SEGMENT = "as TF: an empty segment's tangent is NaN (the gradient rule divides by its count of extremes, 0)"
_NO_SOFTSIGN_GRAD_GRAD = "as TF: Softsign's transposed gradient needs SoftsignGrad's gradient (LookupError)"
JVP_XFAILS = {
    ("MaxPool", "explicit"): "as TF: the transposed MaxPoolGrad is MaxPoolGradGrad, which refuses padding EXPLICIT",
    ("SegmentMax", "vector"): _EMPTY_SEGMENT, ("SegmentMax", "matrix_rows"): _EMPTY_SEGMENT,
    ("SegmentMin", "vector"): _EMPTY_SEGMENT, ("SegmentMin", "matrix_rows"): _EMPTY_SEGMENT,
    ("SegmentMean", "vector"): _EMPTY_SEGMENT.replace("extremes", "elements"),
    ("SegmentMean", "matrix_rows"): _EMPTY_SEGMENT.replace("extremes", "elements"),
    ("Softsign", "matrix"): _NO_SOFTSIGN_GRAD_GRAD, ("Softsign", "scalar"): _NO_SOFTSIGN_GRAD_GRAD,
}


def _params(entries, check="grad"):
    params = []
    for entry in entries:
        for sample in entry.samples:
            reason = JVP_XFAILS.get((entry.name, sample.name)) or entry.xfail_reason(check, sample)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(entry, sample, id=f"{entry.name}-{sample.name}", marks=marks))
    return params


def _tangents(entry, sample):
    rng = _rng("tangent", entry.name, sample.name)
    return [rng.standard_normal(np.shape(a)) for a in sample.args]


def _values(outs):
    return [tf.convert_to_tensor(o) if isinstance(o, tf.IndexedSlices) else o for o in outs]


def _forward(entry, sample, arrays, vs):
    """The op's outputs and their JVPs (``None`` where the accumulator has none)."""
    xs = _inputs(entry, arrays)
    with tf.autodiff.ForwardAccumulator(xs, [tf.constant(v) for v in vs]) as acc:
        outs = _values(_call(entry, sample, xs))
    return outs, [acc.jvp(o) for o in outs]


def _plain(entry, sample, arrays):
    return [_np(o) for o in _values(_call(entry, sample, _inputs(entry, arrays)))]


def _ops_of(entry):
    return [op for key, op in REGISTRY.items() if registry_name(key) == entry.name]


# ------------------------------------------------------------------------------------------ (a) finite differences


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE))
def test_jvp_matches_finite_differences(entry, sample):
    vs = _tangents(entry, sample)
    outs, jvps = _forward(entry, sample, sample.args, vs)
    plus = _plain(entry, sample, [a + EPS * v for a, v in zip(sample.args, vs)])
    minus = _plain(entry, sample, [a - EPS * v for a, v in zip(sample.args, vs)])
    for k, (o, j, p, m) in enumerate(zip(outs, jvps, plus, minus)):
        label = f"{entry.name}/{sample.name} output {k}"
        if _np(o).dtype.kind not in "fc":
            assert j is None, f"{label}: integer output has tangent {j}"
            continue
        numeric = (p - m) / (2 * EPS)
        if j is not None:
            assert j.dtype == o.dtype, f"{label}: tangent dtype {j.dtype}, output {o.dtype}"
        assert_gradient_close(_np(j), numeric, label)


# ------------------------------------------------------------------------------------------ (b) own rule == derived

OWN = [e for e in DIFFERENTIABLE if any(op.jvp is not None for op in _ops_of(e))]


@pytest.mark.parametrize("entry,sample", _params(OWN, "none"))
def test_own_rule_matches_derived(entry, sample, monkeypatch):
    vs = _tangents(entry, sample)
    _, own = _forward(entry, sample, sample.args, vs)
    for op in _ops_of(entry):
        monkeypatch.setattr(op, "jvp", None)
    _, derived = _forward(entry, sample, sample.args, vs)
    for k, (a, b) in enumerate(zip(own, derived)):
        assert (a is None) == (b is None), f"output {k}: own rule gives {a}, derived {b}"
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12, err_msg=f"output {k}")


def test_own_rules_cover_the_hot_ops():
    for name in ("Mul", "AddV2", "MatMul", "BatchMatMulV2", "Sum", "Mean", "Reshape", "Transpose", "ConcatV2",
                 "GatherV2", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Softmax", "BiasAdd", "Conv2D", "Cast"):
        assert REGISTRY[name].jvp is not None, name


# ------------------------------------------------------------------------------------------ (c) the JVP runs


def _runs_params():
    out = []
    for e in DIFFERENTIABLE:
        reason = e.xfail_reason("grad", e.samples[0])
        if e.name == "Softsign":  # raises, as in TF
            reason = JVP_XFAILS[("Softsign", e.samples[0].name)]
        out.append(pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else []))
    return out


@pytest.mark.parametrize("entry", _runs_params())
def test_jvp_test_runs_the_ops_rule(entry, monkeypatch):
    sample = entry.samples[0]
    _call(entry, sample, _inputs(entry, sample.args))  # creates on-demand ops (Unpack<n>)
    calls = []
    derived = forward_mode.derived_jvp

    def counting_derived(op, *args):
        if op in ops:
            calls.append(op)
        return derived(op, *args)

    ops = _ops_of(entry)
    for op in ops:
        if op.jvp is not None:
            own = op.jvp
            monkeypatch.setattr(op, "jvp", lambda *a, _own=own, _op=op, **k: calls.append(_op) or _own(*a, **k))
    monkeypatch.setattr(forward_mode, "derived_jvp", counting_derived)
    xs = _inputs(entry, sample.args)
    with tf.autodiff.ForwardAccumulator(xs, [tf.constant(v) for v in _tangents(entry, sample)]):
        _call(entry, sample, xs)
    assert calls or entry.name == "ReadVariableOp", f"{entry.name}: no JVP rule ran"


def test_every_differentiable_op_has_a_jvp():
    # Own rule or the transposed gradient rule: only non-differentiable ops have none.
    for op in REGISTRY.values():
        assert op.jvp is None or op.vjp is not None, f"{op.name}: a JVP rule on a non-differentiable op"


# ------------------------------------------------------------------------------------------ (d) HVPs and nesting


def _f_cubic(x):
    return tf.reduce_sum(x ** 3.0)


def _f_mlp(x):
    w = tf.constant(np.linspace(-1, 1, 12).reshape(3, 4))
    h = tf.tanh(tf.matmul(tf.reshape(x, (1, 3)), w))
    return tf.reduce_sum(tf.nn.softmax(h) * tf.math.log(tf.sigmoid(h) + 1.0))


def _f_mixed(x):
    return tf.reduce_logsumexp(tf.sin(x) * tf.exp(x / 3.0)) + tf.reduce_prod(tf.square(x) + 1.0)


def _f_norm(x):
    return tf.norm(x) * tf.reduce_max(tf.nn.relu(x) + tf.nn.softplus(x))


@pytest.mark.parametrize("fn", [_f_cubic, _f_mlp, _f_mixed, _f_norm], ids=lambda f: f.__name__)
def test_forward_over_reverse_hvp_equals_reverse_over_reverse(fn):
    x = tf.constant([0.3, -1.2, 0.8])
    x = tf.cast(x, tf.float64)
    v = tf.constant([1.0, 0.5, -2.0], tf.float64)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        g = tape.gradient(y, x)
    hvp_fwd = acc.jvp(g)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
        gv = tf.reduce_sum(g * v)
    hvp_rev = outer.gradient(gv, x)
    np.testing.assert_allclose(hvp_fwd.numpy(), hvp_rev.numpy(), rtol=1e-12, atol=1e-12)


def test_reverse_over_forward_and_forward_over_forward():
    x = tf.constant([0.5, 1.5], tf.float64)
    v = tf.constant([1.0, -1.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = tf.reduce_sum(tf.sin(x) * x)
        j = acc.jvp(y)
    # d/dx <grad f, v> = H v
    np.testing.assert_allclose(tape.gradient(j, x).numpy(), (2 * np.cos(x) - x * np.sin(x)).numpy() * v.numpy())
    with tf.autodiff.ForwardAccumulator(x, v) as outer:
        with tf.autodiff.ForwardAccumulator(x, v) as inner:
            y = tf.reduce_sum(tf.sin(x) * x)
        j = inner.jvp(y)
    xv, vv = x.numpy(), v.numpy()
    np.testing.assert_allclose(outer.jvp(j).numpy(), np.sum((2 * np.cos(xv) - xv * np.sin(xv)) * vv * vv))


def test_inner_tape_ignores_the_accumulators_jvp_computations():
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5])) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
            j = acc.jvp(y)
    assert tape.gradient(j, x) is None


def test_tangents_are_dropped_with_their_tensors():
    import gc

    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5])) as acc:
        for _ in range(50):
            y = tf.sin(x) * 2.0
    del y
    gc.collect()
    assert len(acc._state.tangents) <= 4


def test_forward_mode_in_a_thread_is_separate():
    import threading

    x = tf.constant(2.0)
    seen = []
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        t = threading.Thread(target=lambda: seen.append(x * x))
        t.start()
        t.join()
        y = x * x
    assert acc.jvp(seen[0]) is None
    assert float(acc.jvp(y)) == 4.0

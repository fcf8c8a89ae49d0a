"""Registry-driven op tests: every primitive in ``REGISTRY`` has an entry in the op database (``tests/op_db/``)
and is checked for

(a) forward value and dtype against NumPy, in float32 and float64;
(b) first-order gradients of ``reduce_sum(f(x) * w)`` against central differences, for every input;
(c) second-order gradients (nested tapes) of ``reduce_sum(grad * v)`` against differences of the first order;
(d) ``None`` gradients through non-differentiable ops (zeros for ``tf.sign``, as TF defines it);
(e) coverage: a registered op without an entry fails the suite, and each entry's flags match the registry;
(f) rules on NumPy values (``Op.defraw``, used when nothing records the backward pass) agree bit for bit with the
    tensor rules, in float32 and float64;
(g) purity: forward and backward recorded on inputs of the same shapes but other values give the same equations.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core.equation import freeze_attrs
from tapeflow._core.registry import REGISTRY
from tests.gradcheck import assert_gradient_close, central_difference
from tests.op_db import DB, OP_DB, registry_name

# ------------------------------------------------------------------------------------------ harness


def _params(entries, check):
    params = []
    for entry in entries:
        for sample in entry.samples:
            reason = entry.xfail_reason(check, sample)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(entry, sample, id=f"{entry.name}-{sample.name}", marks=marks))
    return params


def _rng(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def _inputs(entry, arrays):
    return [tf.Variable(a) if entry.variables else tf.constant(a) for a in arrays]


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _np(t):
    if isinstance(t, tf.IndexedSlices):  # a gather's sparse gradient: compared densified
        t = tf.convert_to_tensor(t)
    return None if t is None else np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _call(entry, sample, xs):
    return _outputs(entry.fn(*xs, **sample.kwargs))


def _weights(entry, sample):
    """Fixed random weights ``w``, one per output, shaped like it (the loss is ``sum(f(x) * w)``)."""
    outs = _call(entry, sample, _inputs(entry, sample.args))
    rng = _rng("w", entry.name, sample.name)
    return [rng.standard_normal(np.shape(_np(o))) for o in outs]


def _directions(entry, sample):
    """Fixed random ``v``, one per input: the second-order test checks the Hessian-vector product ``H v``."""
    rng = _rng("v", entry.name, sample.name)
    return [rng.standard_normal(np.shape(a)) for a in sample.args]


def _tf_loss(outs, ws):
    loss = None
    for o, w in zip(outs, ws):
        term = tf.reduce_sum(o * tf.constant(w))
        loss = term if loss is None else loss + term
    return loss


def _np_loss(entry, sample, arrays, ws):
    outs = _call(entry, sample, _inputs(entry, arrays))
    return sum(float(np.sum(_np(o) * w)) for o, w in zip(outs, ws))


def _first_order(entry, sample, arrays, ws):
    """The tape's gradients of ``sum(f(x) * w)`` for each input (tensors, or None)."""
    xs = _inputs(entry, arrays)
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = _tf_loss(_call(entry, sample, xs), ws)
    return tape.gradient(loss, xs)


def _second_order(entry, sample, arrays, ws, vs):
    """The gradients of ``sum(grad * v)``, ``grad`` being :func:`_first_order`'s, taken with nested tapes."""
    xs = _inputs(entry, arrays)
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            loss = _tf_loss(_call(entry, sample, xs), ws)
        grads = inner.gradient(loss, xs)
        total = None
        for g, v in zip(grads, vs):
            if g is not None:
                term = tf.reduce_sum(tf.convert_to_tensor(g) * tf.constant(v))
                total = term if total is None else total + term
    if total is None:
        return [None] * len(xs)
    return outer.gradient(total, xs)


FLOAT_OUT = frozenset("fc")
DIFFERENTIABLE = [e for e in OP_DB if e.differentiable]
SECOND_ORDER = [e for e in OP_DB if e.second_order]
NON_DIFFERENTIABLE = [e for e in OP_DB if not e.differentiable]
ZERO_GRAD = [e for e in OP_DB if e.zero_grad]
COVERED = [e for e in OP_DB if e.covered_by]

# ------------------------------------------------------------------------------------------ (a) forward


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("entry,sample", _params(OP_DB, "forward"))
def test_forward_matches_numpy(entry, sample, dtype):
    arrays = [a.astype(dtype) for a in sample.args]
    got = _call(entry, sample, _inputs(entry, arrays))
    want = _outputs(entry.ref(*arrays, **sample.kwargs))
    assert len(got) == len(want), f"{len(got)} outputs, NumPy gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = _np(g), np.asarray(w)
        assert g.dtype == w.dtype, f"output {k}: dtype {g.dtype}, NumPy gives {w.dtype}"
        assert g.shape == w.shape, f"output {k}: shape {g.shape}, NumPy gives {w.shape}"
        if w.dtype.kind in FLOAT_OUT:
            tol = {"rtol": 2e-6, "atol": 1e-6} if w.dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
            np.testing.assert_allclose(g, w, **tol, err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


# ------------------------------------------------------------------------------------------ (b) first order


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE, "grad"))
def test_gradient_matches_finite_differences(entry, sample):
    ws = _weights(entry, sample)
    grads = _first_order(entry, sample, sample.args, ws)
    assert len(grads) == len(sample.args)
    loss = lambda *arrays: _np_loss(entry, sample, arrays, ws)
    for i, g in enumerate(grads):
        numeric = central_difference(loss, sample.args, i)
        assert_gradient_close(_np(g), numeric, f"{entry.name}/{sample.name} d/d input {i}")


# ------------------------------------------------------------------------------------------ (c) second order


@pytest.mark.parametrize("entry,sample", _params(SECOND_ORDER, "gradgrad"))
def test_second_order_matches_finite_differences(entry, sample):
    ws, vs = _weights(entry, sample), _directions(entry, sample)
    hvp = _second_order(entry, sample, sample.args, ws, vs)

    def grad_dot_v(*arrays):
        grads = _first_order(entry, sample, arrays, ws)
        return sum(float(np.sum(_np(g) * v)) for g, v in zip(grads, vs) if g is not None)

    for i, h in enumerate(hvp):
        numeric = central_difference(grad_dot_v, sample.args, i)
        assert_gradient_close(_np(h), numeric, f"{entry.name}/{sample.name} d(grad . v)/d input {i}")


# ------------------------------------------------------------------------------------------ (d) None gradients


@pytest.mark.parametrize("entry,sample", _params(NON_DIFFERENTIABLE, "nograd"))
def test_nondifferentiable_op_gives_none(entry, sample):
    xs = _inputs(entry, sample.args)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        outs = _call(entry, sample, xs)
        floats = [o for o in outs if _np(o).dtype.kind in FLOAT_OUT]
        ws = [np.ones(np.shape(_np(o))) for o in floats]
        loss = _tf_loss(floats, ws) if floats else None
    grads = tape.gradient(outs, xs)
    assert all(g is None for g in grads), f"gradients {grads}, expected None for each input"
    if loss is not None:  # a float output that feeds more ops: still None, not zeros
        grads = tape.gradient(loss, xs)
        assert all(g is None for g in grads), f"gradients of sum(f(x) * w) {grads}, expected None"


@pytest.mark.parametrize("entry,sample", _params(ZERO_GRAD, "grad"))
def test_zero_gradient_is_zeros_not_none(entry, sample):
    ws = _weights(entry, sample)
    for i, g in enumerate(_first_order(entry, sample, sample.args, ws)):
        assert g is not None, f"input {i}: gradient is None, TF gives zeros"
        np.testing.assert_array_equal(_np(g), np.zeros(np.shape(sample.args[i])))
        assert _np(g).dtype == np.float64


# ------------------------------------------------------------------------------------------ (e) coverage


def _registered_names():
    tf.unstack(tf.constant([[1.0, 2.0], [3.0, 4.0]]))  # Unpack ops exist only once used: make sure the family is there
    return {registry_name(key) for key in REGISTRY}


def _ops_named(name):
    return [op for key, op in REGISTRY.items() if registry_name(key) == name]


def test_every_registered_op_has_an_entry():
    missing = sorted(_registered_names() - DB.keys())
    assert not missing, f"registered ops without an entry in tests/op_db/: {missing}"


def test_every_entry_names_a_registered_op():
    stale = sorted(DB.keys() - _registered_names())
    assert not stale, f"entries in tests/op_db/ for ops that are not registered: {stale}"


@pytest.mark.parametrize("entry", OP_DB, ids=lambda e: e.name)
def test_differentiable_flag_matches_registry(entry):
    _call(entry, entry.samples[0], _inputs(entry, entry.samples[0].args))  # creates on-demand ops (Unpack<n>)
    ops = _ops_named(entry.name)
    assert ops, f"{entry.name} is not registered"
    for op in ops:
        assert op.differentiable == entry.differentiable, (
            f"{entry.name}: registry says differentiable={op.differentiable}, op_db says {entry.differentiable}")
    if entry.second_order or entry.zero_grad:
        assert entry.differentiable, f"{entry.name}: second_order/zero_grad flags on a non-differentiable op"


@pytest.mark.parametrize("entry", OP_DB, ids=lambda e: e.name)
def test_entry_data_is_well_formed(entry):
    assert entry.samples, f"{entry.name}: no samples"
    for sample in entry.samples:
        for a in sample.args:
            assert isinstance(a, np.ndarray) and a.dtype == np.float64, f"{entry.name}/{sample.name}: {a!r}"
    if entry.covered_by is not None:
        assert entry.covered_by in DB and entry.covered_by != entry.name, entry.covered_by
    names = [sample.name for sample in entry.samples]
    assert len(set(names)) == len(names), f"{entry.name}: duplicate sample names {names}"
    for check, name in entry.xfails:
        assert check in {"forward", "grad", "gradgrad", "nograd"}, check
        assert name == "*" or name in names, f"{entry.name}: xfail for unknown sample {name!r}"


def _count_calls(monkeypatch, ops, attr, calls=None):
    calls = [] if calls is None else calls
    for op in ops:
        original = getattr(op, attr)
        if original is None:
            continue

        def counted(*args, _original=original, **kwargs):
            calls.append(1)
            return _original(*args, **kwargs)

        monkeypatch.setattr(op, attr, counted)
    return calls


@pytest.mark.parametrize("entry", OP_DB, ids=lambda e: e.name)
def test_entry_runs_its_op(entry, monkeypatch):
    sample = entry.samples[0]
    _call(entry, sample, _inputs(entry, sample.args))  # creates on-demand ops (Unpack<n>)
    ops = _ops_named(entry.name)
    calls = _count_calls(monkeypatch, ops, "forward")
    xs = _inputs(entry, sample.args)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        _call(entry, sample, xs)
    # ReadVariableOp has no forward call: a variable read is recorded on the tape directly.
    recorded = any(rec[0] in ops for rec in tape._tape.equations())
    assert calls or recorded, f"{entry.fn} never ran {entry.name}"


@pytest.mark.parametrize("entry", [e for e in DIFFERENTIABLE if e.runs_vjp], ids=lambda e: e.name)
def test_gradient_test_runs_the_rule(entry, monkeypatch):
    """The first-order test really goes through the op's own gradient rule (not around it)."""
    ops = _ops_named(entry.name)
    sample = entry.samples[0]
    ws = _weights(entry, sample)
    rules = _count_calls(monkeypatch, ops, "vjp")
    _count_calls(monkeypatch, ops, "raw", rules)
    _first_order(entry, sample, sample.args, ws)
    assert rules, f"{entry.name}'s first-order test never called its gradient rule"


@pytest.mark.parametrize("entry", COVERED, ids=lambda e: e.name)
def test_covered_by_entry_runs_the_gradient_op(entry, monkeypatch):
    """The entry named in ``covered_by`` runs this op in its first-order test (and, when the covering op is
    nonlinear, this op's rule in its second-order test)."""
    cover = DB[entry.covered_by]
    ops = _ops_named(entry.name)
    forwards = _count_calls(monkeypatch, ops, "forward")
    rules = _count_calls(monkeypatch, ops, "vjp")
    for sample in cover.samples:
        _first_order(cover, sample, sample.args, _weights(cover, sample))
    assert forwards, f"{cover.name}'s first-order test never ran {entry.name}"
    if entry.covered_rule:
        assert cover.second_order, f"{cover.name} has no second-order test to run {entry.name}'s rule"
        for sample in cover.samples:
            _second_order(cover, sample, sample.args, _weights(cover, sample), _directions(cover, sample))
        assert rules, f"{cover.name}'s second-order test never ran {entry.name}'s gradient rule"


# ------------------------------------------------------------------------------------------ (f) rules on arrays


RAW = [e for e in DIFFERENTIABLE if any(op.raw is not None for op in _ops_named(e.name))]


def test_hot_ops_have_rules_on_arrays():
    """The ops of a dense training step keep their rules on arrays (the speed of ``gradient()`` rests on them)."""
    hot = {"AddV2", "Sub", "Mul", "MatMul", "Relu", "Mean", "Sum", "SparseSoftmaxCrossEntropyWithLogits", "Pow"}
    assert hot <= {e.name for e in RAW}


def _first_order_of(entry, sample, arrays, ws, watched):
    """:func:`_first_order` with only the inputs at the indices in ``watched`` watched (the others constants)."""
    xs = _inputs(entry, arrays)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([xs[i] for i in watched])
        loss = _tf_loss(_call(entry, sample, xs), ws)
    return tape.gradient(loss, xs)


def _raw_params():
    """``_params(RAW, "grad")``, each with the inputs to watch: all, and for several inputs the first or last alone."""
    out = []
    for p in _params(RAW, "grad"):
        entry, sample = p.values
        for watch in ["all", "first", "last"] if len(sample.args) > 1 else ["all"]:
            out.append(pytest.param(entry, sample, watch, id=f"{p.id}-{watch}", marks=p.marks))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("entry,sample,watch", _raw_params())
def test_raw_rule_matches_tensor_rule(entry, sample, watch, dtype, monkeypatch):
    """Also with only one input watched: the rules' ``needs`` branches must agree too."""
    n = len(sample.args)
    watched = range(n) if watch == "all" else [0] if watch == "first" else [n - 1]
    arrays = [a.astype(dtype) for a in sample.args]
    rng = _rng("raw", entry.name, sample.name)
    outs = _call(entry, sample, _inputs(entry, arrays))
    ws = [rng.standard_normal(np.shape(_np(o))).astype(_np(o).dtype) for o in outs]
    calls = _count_calls(monkeypatch, _ops_named(entry.name), "raw")
    raw = [_np(g) for g in _first_order_of(entry, sample, arrays, ws, watched)]
    assert calls, f"{entry.name}: the rule on arrays did not run"
    with tf.GradientTape():  # an outer tape (watching nothing) makes the backward pass run its rules as ops
        ref = [_np(g) for g in _first_order_of(entry, sample, arrays, ws, watched)]
    for i, (a, b) in enumerate(zip(raw, ref)):
        assert (a is None) == (b is None), f"input {i}: {a!r} vs {b!r}"
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape, f"input {i}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
            np.testing.assert_array_equal(a, b, err_msg=f"input {i}")


# ------------------------------------------------------------------------------------------ (g) pure in values


def _other_values(entry, sample):
    """Inputs of the same shapes and dtypes as the sample's, with other floating values of the same signs (so each
    stays in its op's domain); integer and bool inputs (indices, masks) are kept."""
    rng = _rng("other", entry.name, sample.name)
    out = []
    for a in sample.args:
        a = np.asarray(a)
        if a.dtype.kind in "fc":
            a = a * rng.uniform(0.9, 0.97, a.shape).astype(a.real.dtype)
        out.append(a)
    return out


def _attr_key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    if isinstance(value, dict):
        return tuple(sorted((k, _attr_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_attr_key(v) for v in value)
    return repr(value)


def _equations(entry, sample, arrays, ws):
    """What a tape records for the forward and backward pass of ``sum(f(x) * w)``: each op's name, attrs, and its
    inputs' and outputs' shapes and dtypes (no values)."""
    xs = _inputs(entry, arrays)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            loss = _tf_loss(_call(entry, sample, xs), ws)
        try:
            inner.gradient(loss, xs)
        except LookupError as exc:  # an op TF cannot differentiate (SoftsignGrad): the same error both times
            return [("raises", type(exc).__name__, str(exc))]

    def sig(values):
        values = values if isinstance(values, tuple) else (values,)
        return tuple((np.shape(v), np.asarray(v).dtype.str) for v in values)

    equations = outer._tape.equations()
    for eq in equations:
        try:
            hash(freeze_attrs(eq.attrs))
        except TypeError as exc:
            raise AssertionError(f"{eq.op.name}: attrs {eq.attrs!r} are not hashable ({exc})") from None
    return [(eq.op.name, _attr_key(eq.attrs), sig(eq.values), sig(eq.results)) for eq in equations]


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE, "pure"))
def test_recorded_equations_do_not_depend_on_values(entry, sample):
    """Rules branch on shapes, dtypes and attrs only, and forwards keep no hidden state: two runs on inputs of the
    same shapes and dtypes record the same equations (a tracer would freeze whichever branch it saw), and every
    equation's attrs freeze to a hashable value (what a tracer keys on)."""
    ws = _weights(entry, sample)
    first = _equations(entry, sample, sample.args, ws)
    second = _equations(entry, sample, _other_values(entry, sample), ws)
    assert first == second


def _takes_needs(rule):
    import inspect

    return "needs" in inspect.signature(rule).parameters


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_rules_declare_the_needs_they_take(key):
    """``needs`` is declared where a rule is registered (``defvjp(needs=True)``); the declaration and the rule's
    parameters must agree, or the backward pass would call it wrongly."""
    op = REGISTRY[key]
    if op.vjp is not None:
        assert op.vjp_needs == _takes_needs(op.vjp), f"{key}: declared needs={op.vjp_needs}"
    if op.raw is not None:
        assert op.raw_needs == _takes_needs(op.raw), f"{key}: declared needs={op.raw_needs} for its rule on arrays"


def _tuple_checking(rule, results):
    def checked(g, ans, *rest, **attrs):
        out = rule(g, ans, *rest, **attrs)
        n = len(rest) - (1 if rest and type(rest[-1]) is tuple and all(type(b) is bool for b in rest[-1]) else 0)
        results.append((type(out) is tuple, len(out) if type(out) is tuple else None, n))
        return out

    return checked


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE, "pure"))
def test_rules_return_one_gradient_per_input(entry, sample, monkeypatch):
    """Every rule, on tensors and on arrays, returns a tuple with one gradient (or ``None``) per input: the backward
    pass takes ``[0]`` of a one-input rule's result, which on a bare tensor would silently be its first row."""
    results = []
    for op in REGISTRY.values():
        if op.vjp is not None:
            monkeypatch.setattr(op, "vjp", _tuple_checking(op.vjp, results))
        if op.raw is not None:
            monkeypatch.setattr(op, "raw", _tuple_checking(op.raw, results))
    ws = _weights(entry, sample)
    try:
        _first_order(entry, sample, sample.args, ws)
        with tf.GradientTape():  # the rules on tensors too
            _first_order(entry, sample, sample.args, ws)
    except LookupError:  # an op TF cannot differentiate (SoftsignGrad)
        pass
    assert all(is_tuple and length == n for is_tuple, length, n in results), results

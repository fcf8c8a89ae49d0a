"""``GradientTape.jacobian`` / ``batch_jacobian``.

The batched pass (one backward pass carrying the identity as a batch of output gradients) is checked against a
loop of ordinary ``gradient`` calls, one per element of the target with a one-hot output gradient, for every
sample of every differentiable op in the op database: so every batched rule, every op marked elementwise and the
per-op fallback loop are exercised in float64. Second order (the pass recorded by an outer tape) is checked the
same way. Then the errors, edge cases and the ``experimental_use_pfor=False`` path.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import jacobian as jac
from tapeflow._core.registry import REGISTRY
from tapeflow.ops.batching_rules import BATCHED_RULES
from tests.op_db import DB, OP_DB

# ------------------------------------------------------------------------------------------ registry-driven


def _params(entries):
    return [pytest.param(e, s, id=f"{e.name}-{s.name}") for e in entries for s in e.samples]


DIFFERENTIABLE = [e for e in OP_DB if e.differentiable]
SECOND_ORDER = [e for e in OP_DB if e.second_order]


def _inputs(entry, arrays):
    return [tf.Variable(a) if entry.variables else tf.constant(a) for a in arrays]


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _np(t):
    if t is None:
        return None
    return np.asarray(tf.convert_to_tensor(t).numpy())


def _float_outputs(outs):
    return [o for o in outs if np.asarray(o.numpy()).dtype.kind == "f"]


def _loop_jacobian(tape, target, xs):
    """The reference: one ``gradient`` per target element (one-hot output gradient), rows stacked."""
    shape = tuple(target.shape)
    n = int(np.prod(shape))
    rows = [[] for _ in xs]
    for i in range(n):
        seed = np.zeros(n, target.dtype.as_numpy_dtype)
        seed[i] = 1
        grads = tape.gradient(target, xs, output_gradients=tf.constant(seed.reshape(shape)))
        for k, g in enumerate(grads):
            rows[k].append(_np(g))
    out = []
    for k, x in enumerate(xs):
        if all(r is None for r in rows[k]):
            out.append(None)
            continue
        full = [r if r is not None else np.zeros(x.shape) for r in rows[k]]
        out.append(np.stack(full).reshape(shape + tuple(x.shape)) if n else np.zeros(shape + tuple(x.shape)))
    return out


def _compare(got, want, what):
    assert (got is None) == (want is None), f"{what}: got {got is None and 'None' or 'a tensor'}, loop gives " \
                                            f"{want is None and 'None' or 'a tensor'}"
    if want is not None:
        assert got.shape == want.shape, f"{what}: shape {got.shape}, loop gives {want.shape}"
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("entry,sample", _params(DIFFERENTIABLE))
def test_batched_jacobian_equals_loop_of_gradients(entry, sample):
    xs = _inputs(entry, sample.args)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        outs = _float_outputs(_outputs(entry.fn(*xs, **sample.kwargs)))
    for j, out in enumerate(outs):
        try:
            want = _loop_jacobian(tape, out, xs)
        except Exception as exc:  # an op TF cannot differentiate (SoftsignGrad): the same error either way
            with pytest.raises(type(exc)):
                tape.jacobian(out, xs)
            continue
        got = tape.jacobian(out, xs)
        if not out.shape.num_elements():  # TF's vectorised jacobian of an empty target: empty zeros, never None
            want = [np.zeros(tuple(out.shape) + tuple(x.shape)) for x in xs]
        for k in range(len(xs)):
            _compare(_np(got[k]), want[k], f"{entry.name}/{sample.name} output {j} d/d input {k}")


def _weights(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("entry,sample", _params(SECOND_ORDER))
def test_jacobian_inside_outer_tape_differentiates(entry, sample):
    """``d/dx sum(J(x) * V)`` with ``J`` from the batched pass equals the same with ``J`` from a gradient loop."""

    def outer_grads(batched):
        xs = _inputs(entry, sample.args)
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xs)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(xs)
                outs = _float_outputs(_outputs(entry.fn(*xs, **sample.kwargs)))
            total = None
            for j, out in enumerate(outs):
                if not out.shape.num_elements():
                    continue  # TF's loop path rejects an empty target
                if batched:
                    js = inner.jacobian(out, xs)
                else:
                    js = inner.jacobian(out, xs, experimental_use_pfor=False)
                for k, J in enumerate(js):
                    if J is None:
                        continue
                    V = tf.constant(_weights(tuple(J.shape), 7 * j + k))
                    term = tf.reduce_sum(tf.convert_to_tensor(J) * V)
                    total = term if total is None else total + term
        if total is None:
            return [None] * len(xs)
        return [_np(g) for g in outer.gradient(total, xs)]

    try:
        wants = outer_grads(False)
    except Exception as exc:  # a second derivative TF refuses (MaxPool with explicit padding): the same error
        with pytest.raises(type(exc)):
            outer_grads(True)
        return
    for k, (got, want) in enumerate(zip(outer_grads(True), wants)):
        if want is None and got is not None:
            np.testing.assert_array_equal(got, 0)  # a zero second derivative may be recorded as zeros
            continue
        _compare(got, want, f"{entry.name}/{sample.name} second order d/d input {k}")


def test_every_batch_table_names_an_op_with_an_op_db_entry():
    tf.unstack(tf.constant([[1.0, 2.0]]))
    names = set(jac.ELEMENTWISE) | set(jac.AXIS_ATTRS) | set(dict.keys(BATCHED_RULES)) | {"Unpack"}
    for name in sorted(names):
        assert name in REGISTRY or name == "Unpack", f"{name} is not a registered op"
        assert name in DB and DB[name].differentiable, f"{name}: no differentiable op_db entry runs its rule"


def test_unlisted_ops_take_the_fallback_loop(monkeypatch):
    calls = []
    original = jac._fallback

    def counting(op, *args):
        calls.append(op.name)
        return original(op, *args)

    monkeypatch.setattr(jac, "_fallback", counting)
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.cumsum(tf.linalg.det(tf.reshape(tf.concat([x, x * x, x + 1.5], 0), (3, 2, 3))[:, :, :2]))
    jac_v = tape.jacobian(y, x)
    assert "MatrixDeterminant" in calls and jac_v.shape == (3, 2, 3)


# ------------------------------------------------------------------------------------------ semantics


def _xx():
    x = tf.constant([1.0, 2.0])
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


def test_shapes_and_values():
    tape, x, y = _xx()
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])
    W = tf.Variable(np.ones((3, 2), np.float32))
    with tf.GradientTape() as tape:
        y = tf.matmul(tf.constant([[1.0, 2.0, 3.0]]), W)
    assert tape.jacobian(y, W).shape == (1, 2, 3, 2)
    s = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(s)
        z = tf.reduce_sum(x * s)
    assert tape.jacobian(z, s).shape == ()


def test_nested_sources_and_unconnected():
    a, b, c = tf.constant([1.0, 2.0]), tf.constant(3.0), tf.constant([[1.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b, c])
        y = a * b
    out = tape.jacobian(y, {"x": [a, b], "u": c})
    assert out["u"] is None and out["x"][1].shape == (2,)
    out = tape.jacobian(y, {"x": [a, b], "u": c}, unconnected_gradients="zero")
    assert out["u"].shape == (2, 1, 1) and not out["u"].numpy().any()
    out = tape.jacobian(y, [c], unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)
    assert out[0].shape == (2, 1, 1)
    with pytest.raises(ValueError, match="while vectorizing the jacobian") as info:  # raised inside TF's pfor
        tape.jacobian(y, a, unconnected_gradients="nope")
    assert "Unknown value for unconnected_gradients" in str(info.value.__cause__)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.jacobian(y, a, unconnected_gradients="nope", experimental_use_pfor=False)


def test_non_persistent_tape_is_used_once():
    tape, x, y = _xx()
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"):
        tape.jacobian(y, x)
    tape, x, y = _xx()
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="one set of gradients"):
        tape.gradient(y, x)


def test_no_pfor_needs_a_persistent_tape():
    tape, x, y = _xx()
    with pytest.raises(RuntimeError, match="and with  experimental_use_pfor set to False"):
        tape.jacobian(y, x, experimental_use_pfor=False)
    x2 = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x2)
        y2 = x2 * x2
    with pytest.raises(RuntimeError, match="enabled and  with experimental_use_pfor"):
        tape.batch_jacobian(y2, x2, experimental_use_pfor=False)


def test_list_target_fails_as_tf():
    tape, x, y = _xx()
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        tape.jacobian([y], x)


def test_loop_path_matches_and_accepts_parallel_iterations():
    x = tf.constant([[0.5, -1.0], [2.0, 0.25]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.softmax(tf.sin(x) @ x)
    a = tape.jacobian(y, x, parallel_iterations=3)
    b = tape.jacobian(y, x, experimental_use_pfor=False, parallel_iterations=3)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    c = tape.batch_jacobian(y, x)
    d = tape.batch_jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_allclose(c.numpy(), d.numpy(), rtol=1e-6)


def test_sparse_gradients_are_densified():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.gather(v, [2, 0]) * 2.0
    for pfor in (True, False):
        j = tape.jacobian(y, v, experimental_use_pfor=pfor)
        assert isinstance(j, tf.Tensor) and j.shape == (2, 2, 3, 2)
        assert j.numpy()[0, 1, 2, 1] == 2.0 and j.numpy().sum() == 8.0


def test_batch_jacobian_values_errors_and_zeros_quirk():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    u = tf.constant([[1.0], [2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    np.testing.assert_array_equal(tape.batch_jacobian(y, x).numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    z = tape.batch_jacobian(y, u)
    assert z.shape == (2, 2, 1) and not z.numpy().any()
    with pytest.raises(ValueError, match=r"^Shape \(2,\) must have rank at least 2$"):
        tape.batch_jacobian(y[0], x)
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(2, 2\)\) and source shape "
                                         r"\(\(3, 1\)\) to match."):
        tape.batch_jacobian(y, tf.zeros((3, 1)))


def test_vectorization_failure_is_tfs_value_error(monkeypatch):
    tape, x, y = _xx()

    def broken(*args, **kwargs):
        raise ValueError("no batched rule")

    monkeypatch.setattr(jac, "_call_rule", broken)
    with pytest.raises(ValueError, match="Encountered an exception while vectorizing the jacobian computation"):
        tape.jacobian(y, x)


def test_target_that_is_a_source_and_variables():
    x = tf.constant([1.0, 2.0, 3.0])
    v = tf.Variable([1.0, -1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x) * v
    np.testing.assert_array_equal(tape.jacobian(x, x).numpy(), np.eye(3))
    np.testing.assert_array_equal(tape.jacobian(y, v).numpy(), np.eye(2) * 6)
    np.testing.assert_array_equal(tape.jacobian(v, v).numpy(), np.eye(2))


def test_hessian_by_nested_jacobians():
    x = tf.constant([0.3, -0.7, 1.1], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.exp(x) * tf.sin(tf.reverse(x, [0])))
        g = inner.jacobian(y, x)
    h = outer.jacobian(g, x).numpy()
    xv = x.numpy()
    e, s, c = np.exp(xv), np.sin(xv[::-1]), np.cos(xv[::-1])
    # the exact Hessian of sum_i exp(x_i) sin(x_{n-1-i})
    n = len(xv)
    want = np.zeros((n, n))
    for i in range(n):
        k = n - 1 - i
        want[i, i] += e[i] * s[i]
        want[i, k] += e[i] * c[i]
        want[k, i] += e[i] * c[i]
        want[k, k] += -e[i] * s[i]
    np.testing.assert_allclose(h, want, rtol=1e-12)
    assert np.allclose(h, h.T)


def test_persistent_inside_context_warns_like_gradient(caplog):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with caplog.at_level(logging.WARNING):
            tape.jacobian(y, x)
    assert tape.jacobian(y, x).shape == (2, 2)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("kind", ["matvec", "vecmat", "matmat"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matmul_flags_and_diagonal_seed_paths(kind, ta, tb, dtype):
    """The identity seed stays diagonal into a matrix-vector (or vector-matrix) product: every flag, complex too."""
    rng = np.random.default_rng(3)
    m, k, n = {"matvec": (3, 4, 1), "vecmat": (1, 4, 3), "matmat": (2, 4, 3)}[kind]
    a = rng.standard_normal((k, m) if ta else (m, k))
    b = rng.standard_normal((n, k) if tb else (k, n))
    if dtype == np.complex128:
        a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
    xs = [tf.constant(a), tf.constant(b)]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = tf.sin(tf.matmul(xs[0], xs[1], transpose_a=ta, transpose_b=tb))
    got = tape.jacobian(y, xs)
    want = _loop_jacobian(tape, y, xs)
    for k_, (g, w) in enumerate(zip(got, want)):
        _compare(_np(g), w, f"{kind} ta={ta} tb={tb} input {k_}")


def test_diagonal_seed_meets_broadcasting_and_accumulation():
    x = tf.constant([[0.5, -1.0, 2.0]], tf.float64)
    b = tf.constant([0.1, 0.2, 0.3], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        h = tf.tanh(x + b)  # b broadcasts: its gradient leaves the diagonal form
        y = h * h + tf.exp(h)  # two uses of h: diagonal gradients accumulate
    got = tape.jacobian(y, [x, b])
    want = _loop_jacobian(tape, y, [x, b])
    for g, w in zip(got, want):
        _compare(_np(g), w, "broadcast")

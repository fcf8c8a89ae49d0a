"""tf.custom_gradient, tf.recompute_grad and tf.grad_pass_through: contract, errors, higher order, memory.

TensorFlow's answers for the same cases are in ``tests/golden/cases/custom_gradient.py``; these tests check what a
recording cannot: values against analytic derivatives and finite differences, what the tape holds and frees, how
the records look to the rest of tapeflow, and the places where tapeflow goes beyond TF.
"""

import gc
import sys
import weakref

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core.registry import REGISTRY
from tapeflow._core.state import STATE, line_of

# ---------------------------------------------------------------------------------------------------- helpers


def log1pexp_factory():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    return log1pexp


def grad_of(fn, *xs, **kwargs):
    with tf.GradientTape() as tape:
        tape.watch(list(xs))
        y = fn(*xs, **kwargs)
    return y, tape.gradient(y, list(xs))


def finite_difference(fn, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        hi = fn(tf.constant(x + d)).numpy().sum()
        lo = fn(tf.constant(x - d)).numpy().sum()
        out[i] = (hi - lo) / (2 * eps)
    return out


# ---------------------------------------------------------------------------------------------- the contract


def test_public_names():
    assert tf.custom_gradient.__module__ == "tapeflow._core.custom_gradient"
    for name in ("custom_gradient", "recompute_grad", "grad_pass_through"):
        assert name in tf.__all__


def test_log1pexp_is_stable_where_autodiff_is_not():
    f = log1pexp_factory()
    x = tf.constant([-3.0, 0.0, 2.0, 100.0], tf.float64)
    y, (g,) = grad_of(f, x)
    xs = x.numpy()
    np.testing.assert_allclose(y.numpy()[:3], np.log1p(np.exp(xs[:3])), rtol=1e-12)
    np.testing.assert_allclose(g.numpy(), 1 / (1 + np.exp(-xs)), rtol=1e-12)  # 1.0 at 100, not NaN


def test_second_and_third_order_use_the_ops_inside_f():
    f = log1pexp_factory()
    x = tf.constant([-1.0, 0.5, 2.0], tf.float64)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    s = 1 / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(h.numpy(), s * (1 - s), rtol=1e-12)

    @tf.custom_gradient
    def cube(v):
        return v * v * v, lambda dy: dy * 3.0 * v * v

    v = tf.constant(2.0, tf.float64)
    with tf.GradientTape() as a:
        a.watch(v)
        with tf.GradientTape() as b:
            b.watch(v)
            with tf.GradientTape() as c:
                c.watch(v)
                y = cube(v)
            g1 = c.gradient(y, v)
        g2 = b.gradient(g1, v)
    assert [g1.numpy(), g2.numpy(), a.gradient(g2, v).numpy()] == [12.0, 12.0, 6.0]


def test_custom_gradient_overrides_the_true_one_but_not_the_value():
    @tf.custom_gradient
    def f(x):
        return tf.sin(x), lambda dy: dy * 42.0

    x = tf.constant([0.3, 0.7], tf.float64)
    y, (g,) = grad_of(f, x)
    np.testing.assert_allclose(y.numpy(), np.sin(x.numpy()))
    np.testing.assert_array_equal(g.numpy(), [42.0, 42.0])


def test_several_inputs_and_outputs_against_finite_differences():
    @tf.custom_gradient
    def polar(r, theta):
        c, s = tf.cos(theta), tf.sin(theta)

        def grad(dx, dy):
            return dx * c + dy * s, -dx * r * s + dy * r * c

        return (r * c, r * s), grad

    r = tf.constant([1.0, 2.0], tf.float64)
    th = tf.constant([0.3, -1.2], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([r, th])
        x, y = polar(r, th)
        loss = tf.reduce_sum(x * x * 3.0 + y)
    dr, dth = tape.gradient(loss, [r, th])
    np.testing.assert_allclose(dr.numpy(), finite_difference(lambda rr: polar(rr, th)[0] ** 2 * 3.0
                                                             + polar(rr, th)[1], r.numpy()), rtol=1e-6)
    np.testing.assert_allclose(dth.numpy(), finite_difference(lambda tt: polar(r, tt)[0] ** 2 * 3.0
                                                              + polar(r, tt)[1], th.numpy()), rtol=1e-6)
    # only y used: x's upstream is zeros, not None
    np.testing.assert_allclose(tape.gradient(y, r).numpy(), np.sin(th.numpy()))


def test_unused_outputs_get_zeros_of_their_own_dtype_and_shape():
    seen = []

    @tf.custom_gradient
    def f(x):
        def grad(d1, d2, d3):
            seen.append((d1, d2, d3))
            return d1

        return (x * 1.0, tf.constant([[1, 2, 3]]), tf.zeros([4], tf.float64)), grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y1, _, _ = f(x)
    assert tape.gradient(y1, x).numpy() == 1.0
    (d1, d2, d3), = seen
    assert (d2.dtype, d2.shape.as_list(), d3.dtype, d3.shape.as_list()) == (tf.int32, [1, 3], tf.float64, [4])
    assert not d2.numpy().any() and not d3.numpy().any()


def test_none_gradient_and_unconnected_zero():
    @tf.custom_gradient
    def f(a, b):
        return a * b, lambda dy: (None, dy * a)

    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = f(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga is None
    np.testing.assert_array_equal(gb.numpy(), [1.0, 2.0])
    za, _ = tape.gradient(y, [a, b], unconnected_gradients="zero")
    np.testing.assert_array_equal(za.numpy(), [0.0, 0.0])


def test_keyword_arguments_pass_through_undifferentiated():
    @tf.custom_gradient
    def f(x, *, scale, shift=0.0):
        return x * scale + shift, lambda dy: dy * scale

    x, s = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, s])
        y = f(x, scale=s, shift=1.0)
    assert y.numpy() == 7.0
    gx, gs = tape.gradient(y, [x, s])
    assert gx.numpy() == 3.0 and gs is None


def test_python_and_numpy_gradients_become_tensors():
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: np.float32(7.0)

    _, (g,) = grad_of(f, tf.constant(1.0))
    assert isinstance(g, tf.Tensor) and g.numpy() == 7.0


def test_gradient_of_another_shape_is_summed_to_the_input():
    # TF hands such a gradient on unreduced; tapeflow sums it like every rule's gradient (documented deviation).
    @tf.custom_gradient
    def f(a, s):
        return a * s, lambda dy: (dy * s, dy * a)

    _, (ga, gs) = grad_of(f, tf.constant([1.0, 2.0]), tf.constant(3.0))
    assert gs.shape == () and gs.numpy() == 3.0


def test_method_binding_and_metadata():
    class Scaled:
        k = 4.0

        @tf.custom_gradient
        def apply(self, a):
            """Doc of apply."""
            return a * self.k, lambda dy: dy * 10.0

    s = Scaled()
    _, (g,) = grad_of(s.apply, tf.constant(1.0))
    assert g.numpy() == 10.0
    assert Scaled.apply.__name__ == "apply" and Scaled.apply.__doc__ == "Doc of apply."
    assert tf.custom_gradient()(lambda a: (a, None)).__name__ == "<lambda>"


# ------------------------------------------------------------------------------------------------------- errors


def test_wrong_gradient_count():
    @tf.custom_gradient
    def f(a, b):
        return a * b, lambda dy: dy

    with pytest.raises(ValueError, match=r"^custom_gradient function expected to return 2 gradients, but returned "
                       r"1 instead\.$"):
        grad_of(f, tf.constant(1.0), tf.constant(2.0))


def test_missing_variables_keyword_raises_at_call_even_without_tape():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    msg = ("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables: "
           "[<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>]")
    with pytest.raises(TypeError) as info:
        f(tf.constant(1.0))
    assert str(info.value) == msg
    assert STATE.tapes == []  # the variable watcher left


def test_wrong_variable_gradient_count():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables: (dy, [None, None])

    with pytest.raises(ValueError, match="^Must return gradient for each variable from @custom_gradient grad_fn.$"):
        grad_of(f, tf.constant(1.0))


def test_exception_in_f_restores_the_tape_stack():
    @tf.custom_gradient
    def f(x):
        raise RuntimeError("boom")

    with tf.GradientTape() as tape:
        before = list(STATE.tapes)
        with pytest.raises(RuntimeError):
            f(tf.constant(1.0))
        assert STATE.tapes == before
    assert tape.watched_variables() == ()


# ---------------------------------------------------------------------------------------------------- variables


def test_variables_read_inside_f_get_grad_fn_gradients():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(0.5, name="w")
    frozen = tf.Variable(3.0, trainable=False)
    got = []

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            got.append(variables)
            return dy * v * w, [dy * x * w * 10.0, tf.reduce_sum(dy * x * v) * 10.0]

        return tf.reduce_sum(x * v * w * frozen), grad

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv, gw = tape.gradient(y, [x, v, w])
    assert got == [[v, w]]  # first-read order; non-trainable variables are not collected
    np.testing.assert_allclose(gx.numpy(), [0.5, 1.0])
    np.testing.assert_allclose(gv.numpy(), [15.0, 20.0])
    assert gw.numpy() == pytest.approx(110.0)


def test_variable_passed_as_argument_is_an_input_not_a_variable():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x, var):
        return x * var, lambda dy: (dy * var, dy * x)  # no ``variables`` keyword needed

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, v)
    assert [g.numpy() for g in tape.gradient(y, [x, v])] == [2.0, 3.0]


def test_unwatched_variable_gets_none():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables: (dy * v, [dy * x])

    x = tf.constant(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    assert gx.numpy() == 2.0 and gv is None and tape.watched_variables() == ()


# ---------------------------------------------------------------------------------------- records and memory


def test_record_shape_and_provenance():
    @tf.custom_gradient
    def my_fn(x):
        return (x * 2.0, x * 3.0), lambda a, b: a + b

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        line = sys._getframe().f_lineno + 1
        y1, y2 = my_fn(x)
    eq = tape._tape.equations()[-1]
    op = eq.op
    assert op.name == "CustomGradient(my_fn)" and op.name not in REGISTRY and op.multi_output
    assert eq.inputs == (x._id,) and eq.outputs == (y1._id, y2._id) and set(eq.attrs) == {"call"}
    assert line_of(eq.where) == f"{__file__}:{line}"


def test_non_persistent_tape_frees_the_custom_records():
    f = log1pexp_factory()
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    grad_fn = tape._tape.equations()[-1].attrs["call"].grad_fn
    ref = weakref.ref(grad_fn)
    del grad_fn
    gc.collect()
    assert ref() is not None  # the tape holds it until gradient()
    tape.gradient(y, x)
    assert ref() is None  # freed by reference counting, with its captured ``e``


def test_grad_fn_is_called_once_per_gradient_call():
    calls = []

    @tf.custom_gradient
    def f(x):
        calls.append("forward")

        def grad(dy):
            calls.append("backward")
            return dy

        return x * 1.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    tape.gradient(y, x)
    tape.gradient(y, x)
    assert calls == ["forward", "backward", "backward"]


def test_works_with_forward_mode_and_jacobian():
    f = log1pexp_factory()
    x = tf.constant([1.0, 2.0], tf.float64)
    s = 1 / (1 + np.exp(-x.numpy()))
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0], tf.float64)) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [s[0], 0.0], rtol=1e-12)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag(s), rtol=1e-12)


# ------------------------------------------------------------------------------------------------ recompute_grad


def _mlp(depth=3, seed=0):
    rng = np.random.default_rng(seed)
    ws = [tf.Variable(rng.standard_normal((4, 4)) * 0.5, name=f"w{i}") for i in range(depth)]
    bs = [tf.Variable(rng.standard_normal(4) * 0.1, name=f"b{i}") for i in range(depth)]
    calls = []

    def block(h, i):
        calls.append(i)
        return tf.tanh(tf.matmul(h, ws[i]) + bs[i])

    x = tf.constant(rng.standard_normal((5, 4)))
    return ws + bs, calls, block, x


def test_recompute_same_values_and_gradients_and_reruns_f():
    variables, calls, block, x = _mlp()
    rblock = tf.recompute_grad(block)
    results = []
    for fn in (block, rblock):
        calls.clear()
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = x
            for i in range(3):
                h = fn(h, i)
            loss = tf.reduce_sum(h * h)
        forward = list(calls)
        grads = tape.gradient(loss, [x] + variables)
        results.append((loss.numpy(), [g.numpy() for g in grads], forward, calls[len(forward):]))
    (l0, g0, f0, b0), (l1, g1, f1, b1) = results
    assert l0 == l1
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    assert f0 == f1 == [0, 1, 2] and b0 == [] and b1 == [2, 1, 0]  # re-run in the backward pass, last first


def test_recompute_records_no_intermediates():
    variables, _, block, x = _mlp()
    rblock = tf.recompute_grad(block)
    inside = []

    def spy(h, i):
        out = block(h, i)
        inside.append(weakref.ref(out))
        return out * 1.0

    rspy = tf.recompute_grad(spy)
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = rspy(rblock(x, 0), 1)
    ops = [r[0].name for r in tape._tape.equations()]
    # two custom calls, and the reads of the variables they used
    assert [n for n in ops if n != "ReadVariableOp"] == ["CustomGradient(block)", "CustomGradient(spy)"]
    assert inside[0]() is None  # the intermediate inside f is already gone
    tape.gradient(h, variables)


def test_recompute_second_order_works_where_tf_raises():
    # TF 2.21 raises NotImplementedError("recompute_grad tried to transpose grad of ..."); tapeflow differentiates.
    v = tf.Variable(3.0, dtype=tf.float64)
    rf = tf.recompute_grad(lambda a: tf.sin(a) * v)
    x = tf.constant([1.0, 2.0], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = rf(x)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), 3.0 * np.cos(x.numpy()), rtol=1e-13)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), -3.0 * np.sin(x.numpy()), rtol=1e-13)


def test_recompute_same_tensor_twice_and_kwargs():
    rf = tf.recompute_grad(lambda a, b, scale=1.0: a * b * scale)
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = rf(x, x, scale=tf.constant(2.0))
    assert tape.gradient(y, x).numpy() == 12.0


def test_nested_recompute_and_persistent_tape():
    calls = []

    def inner(a):
        calls.append("inner")
        return tf.exp(a)

    rinner = tf.recompute_grad(inner)
    router = tf.recompute_grad(lambda a: rinner(a) * a)
    x = tf.constant(0.5, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = router(x)
    expected = np.exp(0.5) * 1.5
    assert tape.gradient(y, x).numpy() == pytest.approx(expected, rel=1e-13)
    assert tape.gradient(y, x).numpy() == pytest.approx(expected, rel=1e-13)
    assert calls.count("inner") >= 3  # the forward, then re-runs in each backward pass


def test_recompute_memory_drop_on_a_deep_mlp():
    import tracemalloc

    rng = np.random.default_rng(0)
    width, batch, depth = 64, 256, 16
    ws = [tf.Variable(rng.standard_normal((width, width)).astype(np.float32) * 0.1) for _ in range(depth)]
    x = tf.constant(rng.standard_normal((batch, width)).astype(np.float32))

    def blocks(lo, hi):
        def run(h):
            for w in ws[lo:hi]:
                h = tf.nn.relu(tf.matmul(h, w))
            return h
        return run

    def peak(stages):
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            with tf.GradientTape() as tape:
                h = x
                for s in stages:
                    h = s(h)
                loss = tf.reduce_sum(h)
            grads = tape.gradient(loss, ws)
            return tracemalloc.get_traced_memory()[1] - base, grads
        finally:
            tracemalloc.stop()

    plain, g0 = peak([blocks(0, depth)])
    saved, g1 = peak([tf.recompute_grad(blocks(i, i + 4)) for i in range(0, depth, 4)])
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    assert saved < 0.6 * plain


# --------------------------------------------------------------------------------------------- grad_pass_through


def test_grad_pass_through():
    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.round)(x) * tf.constant([2.0, 3.0])
    np.testing.assert_array_equal(y.numpy(), [0.0, 6.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 3.0])


def test_grad_fn_error_is_raised_once():
    # A backward pass on arrays that fails is redone on tensors only for its own rules' errors, never a grad_fn's.
    calls = []

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(1)
            raise ValueError("boom")

        return x * 2.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError, match="boom"):
        tape.gradient(y, x)
    assert calls == [1]

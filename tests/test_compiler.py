"""``tf.function``'s compiler (``tapeflow.compiler``): what golden cases cannot show.

The generated program (folding, dead code, freeing values after their last use, in-place updates), that tracing
leaves no trace in the world, gradients of every kind through and inside traced functions, and the errors a running
program raises.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import tapeflow as tf


def _source(f, *args):
    return f.get_concrete_function(*args).pretty_printed_source()


# ------------------------------------------------------------------------------------------ the program


def test_constants_are_folded_and_dead_code_dropped():
    c = tf.constant(3.0)

    @tf.function
    def f(x):
        k = c * 2.0 + 1.0  # constants only: folded into one value
        unused = tf.exp(x)  # nobody needs it: dropped
        del unused
        return x * k

    src = _source(f, tf.constant(1.0))
    assert "Exp" not in src and "AddV2" not in src and src.count("Mul") == 1
    assert f(tf.constant(2.0)).numpy() == 14.0


def test_values_are_freed_after_their_last_use():
    @tf.function
    def f(x):
        a = tf.exp(x)
        b = tf.sin(a) * a  # each value read twice: a local of its own (a value read once is fused into its reader)
        return tf.cos(b) * b

    src = _source(f, tf.ones([3]))
    assert src.count("del ") >= 2


def _address(v):
    return v._value.__array_interface__["data"][0]


def test_traced_update_is_in_place():
    v = tf.Variable(np.ones(1000, np.float32))
    before = _address(v)  # not the array itself: holding it would keep the update from being in place

    @tf.function
    def step(g):
        v.assign_sub(0.5 * g)

    # Nothing else holds the array: it is updated where it is, as ``p -= lr * g`` would. (An update that is not in
    # place allocates the new array while the old one is alive: it cannot land at the same address.)
    step(tf.ones([1000]))
    assert _address(v) == before
    step(tf.ones([1000]))
    assert _address(v) == before
    np.testing.assert_array_equal(v.numpy(), np.full(1000, 0.0, np.float32))


def test_an_array_read_elsewhere_is_not_updated_in_place():
    v = tf.Variable(np.ones(3, np.float32))
    before = v.read_value()

    @tf.function
    def step():
        v.assign_add(tf.ones([3]))

    step()
    np.testing.assert_array_equal(before.numpy(), np.ones(3))  # the earlier read keeps its value
    np.testing.assert_array_equal(v.numpy(), np.full(3, 2.0))


def test_tracing_changes_no_variable():
    v = tf.Variable(1.0)
    seen = []

    @tf.function
    def f():
        v.assign_add(1.0)
        seen.append(float(v.read_value()._value))  # what the trace saw
        v.assign(10.0)
        return v.read_value()

    out = f()
    # The trace ran the body once (it saw 2.0), then undid it; the program ran it once more.
    assert seen == [2.0] and out.numpy() == 10.0 and v.numpy() == 10.0


def test_random_ops_draw_anew_on_each_call():
    tf.random.set_seed(1)

    @tf.function
    def f():
        return tf.random.normal([4], seed=3)

    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)


# ------------------------------------------------------------------------------------------ gradients


def test_tape_outside_sees_variables_read_inside():
    w = tf.Variable(3.0)
    b = tf.Variable(1.0)

    @tf.function
    def f(x):
        return w * w * x + b

    x = tf.constant(2.0)
    f(x)
    with tf.GradientTape() as tape:
        y = f(x)
    gw, gb = tape.gradient(y, [w, b])
    assert (gw.numpy(), gb.numpy()) == (12.0, 1.0)


def test_second_derivative_through_a_call():
    @tf.function
    def cube(x):
        return x * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert (dy.numpy(), outer.gradient(dy, x).numpy()) == (12.0, 12.0)


def test_jacobian_and_forward_mode_through_a_call():
    @tf.function
    def f(x):
        return tf.sin(x) * x

    x = tf.constant([0.5, 1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    jac = tape.jacobian(y, x)
    expected = np.diag(np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy()))
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-6)
    with tf.autodiff.ForwardAccumulator(x, tf.ones([3])) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.diag(expected), rtol=1e-6)


def test_custom_gradient_inside_a_traced_function():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    @tf.function
    def value_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return y, tape.gradient(y, x)

    for v in (0.0, 2.0, -1.0):  # one trace; the rule's closure sees each call's own e
        y, g = value_and_grad(tf.constant(v))
        np.testing.assert_allclose([y.numpy(), g.numpy()], [np.log1p(np.exp(v)), 1 / (1 + np.exp(-v))], rtol=1e-6)
    assert value_and_grad.experimental_get_tracing_count() == 1


def test_unconnected_gradient_inside_is_none():
    w, u = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            loss = w * 3.0
        gw, gu = tape.gradient(loss, [w, u])
        return gw, gu is None

    gw, none = f()
    assert gw.numpy() == 3.0 and bool(none.numpy())


def test_nested_functions_are_traced_once_and_inlined():
    calls = []

    @tf.function
    def inner(x):
        calls.append("inner")
        return x + 1.0

    @tf.function
    def outer(x):
        calls.append("outer")
        return inner(x) * 2.0

    assert outer(tf.constant(1.0)).numpy() == 4.0
    assert outer(tf.constant(2.0)).numpy() == 6.0
    assert calls == ["outer", "inner"] and inner.experimental_get_tracing_count() == 1


# ------------------------------------------------------------------------------------------ shapes and errors


def test_relaxed_signature_runs_every_length_right():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.reduce_mean(x) * tf.cast(tf.size(x), tf.float32)

    for n in (1, 3, 5, 3):
        np.testing.assert_allclose(f(tf.range(n, dtype=tf.float32)).numpy(), n * (n - 1) / 2)
    assert f.experimental_get_tracing_count() == 1


def test_error_while_running_names_the_op_and_the_line():
    @tf.function
    def f(x, y):
        return tf.math.floordiv(x, y)

    assert f(tf.constant([7]), tf.constant([2])).numpy()[0] == 3
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([7]), tf.constant([0]))  # the eager kernel's error, as a graph execution error
    text = str(info.value)
    assert text.startswith("Graph execution error:\n\nDetected at node FloorDiv defined at (most recent call last):")
    assert "test_compiler.py" in text and "Integer division by zero" in text and "[[{{node FloorDiv}}]]" in text


def test_function_objects_do_not_outlive_their_users():
    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable(2.0)

        @tf.function
        def __call__(self, x):
            return self.w * x

    m = Model()
    assert m(tf.constant(3.0)).numpy() == 6.0
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None  # the per-instance cache holds its instance weakly


def test_tf_print_runs_with_the_program_python_print_while_tracing(capsys):
    @tf.function
    def f(x):
        print("tracing")
        tf.print("value:", x)
        return x + 1.0

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    assert capsys.readouterr() == ("tracing\n", "value: 1\nvalue: 2\n")


def test_assertions_are_checked_when_the_program_runs():
    @tf.function
    def f(x, y):
        tf.debugging.assert_positive(x, message="need positive")
        tf.debugging.assert_equal(x, y)
        return x * 2.0

    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0, -2.0]), tf.constant([1.0, -2.0]))
    assert ("assertion failed: [need positive.  ] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] "
            "[1 -2]") in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Condition x == y did not hold element-wise:\] "
                                                              r"\[x \(x:0\) = \] \[1 2\] \[y \(y:0\) = \] \[1 3\]"):
        f(tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0]))
    assert f.experimental_get_tracing_count() == 1


def test_keras_fit_runs_its_step_traced_unless_run_eagerly():
    keras = tf.keras
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((20, 4)).astype(np.float32), rng.integers(0, 3, 20)
    losses = {}
    for eager in (True, False):
        tf.keras.utils.set_random_seed(1)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
        model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      run_eagerly=eager)
        losses[eager] = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history["loss"]
        steps = model.__dict__.get("_traced_steps", {})
        if eager:
            assert not steps
        else:
            # Batches of 8, 8 and 4: the last one generalises the batch size (reduce_retracing, as Keras traces).
            assert steps["train_step"].experimental_get_tracing_count() >= 1
    np.testing.assert_allclose(losses[False], losses[True], rtol=1e-6)


def test_equal_computations_and_repeated_reads_are_merged():
    v = tf.Variable(2.0)

    def body(x):
        a = tf.exp(x) + v
        b = tf.exp(x) * v  # the same exp, the same read: merged
        v.assign_add(1.0)
        c = v * 1.0  # a read after an assignment: a read of its own
        return a + b + c

    f = tf.function(body)
    src = _source(f, tf.constant(0.5))
    assert src.count("np.exp") + src.count("Exp") == 1 and src.count("._value if not") == 2
    out = f(tf.constant(0.5)).numpy()
    v.assign(2.0)
    np.testing.assert_allclose(out, body(tf.constant(0.5)).numpy())


def test_a_call_under_one_tape_is_one_equation():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)

    x = tf.constant([[0.5, -1.0]])
    for _ in range(2):  # the second call's backward pass is the compiled one
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        names = [e.op.name for e in tape._tape.equations()]
        gx, gw = tape.gradient(y, [x, w])
    assert names == ["ReadVariableOp", "StatefulPartitionedCall(f)"]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y_eager = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
    expected = tape.gradient(y_eager, [x, w])
    np.testing.assert_allclose(gx.numpy(), expected[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), expected[1].numpy(), rtol=1e-6)
    assert y.numpy() == y_eager.numpy()


def test_a_tape_around_the_gradient_of_a_recorded_call_sees_the_inputs():
    @tf.function
    def cube(x):
        return x * x * x

    def second(fn):
        x = tf.constant(2.0)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = fn(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            dy = t1.gradient(y, x)
        return dy.numpy(), t2.gradient(dy, x)

    traced, eager = second(cube), second(cube.python_function)
    # As eagerly: t2 started after the forward pass, so only the rules' direct uses of x are seen by it.
    assert traced[0] == eager[0] == 12.0
    assert (traced[1] is None) == (eager[1] is None)
    if eager[1] is not None:
        assert traced[1].numpy() == eager[1].numpy()


def test_a_tensor_leaked_out_of_a_trace_is_refused():
    leaked = []

    @tf.function
    def leaky(a):
        x = a + 1
        leaked.append(x)  # kept past the trace: a graph tensor, as TF calls it
        return x

    assert leaky(tf.constant(1)).numpy() == 2
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        leaked[0].numpy()

    @tf.function
    def captures(b):
        return b + leaked[0]

    with pytest.raises(TypeError, match=r"<tf.Tensor 'add:0' shape=\(\) dtype=int32> is out of scope and cannot be "
                                        r"used here"):
        captures(tf.constant(2))


def test_tensors_made_in_init_scope_are_eager():
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(1)
            self.c = None

        @tf.function
        def __call__(self):
            if self.c is None:
                with tf.init_scope():
                    self.c = tf.constant(5)
            return self.v + self.c

    m = Model()
    assert m().numpy() == 6 and m.c.numpy() == 5 and m().numpy() == 6


def test_an_error_in_a_recorded_call_is_a_graph_execution_error():
    @tf.function
    def f(x, i):
        return x * tf.cast(tf.math.floordiv(i, i), tf.float32)

    x = tf.constant(2.0)
    f(x, tf.constant(1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Graph execution error"):
            f(x, tf.constant(0))

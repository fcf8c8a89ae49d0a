"""Graph control flow and AutoGraph beyond the goldens: gradients of ``cond``/``while_loop`` nodes against central
finite differences in float64 (first and second order, tapes inside and outside the function), memory of long
loops, and what the conversion does with closures, globals, methods, helpers, lambdas and code without source."""

import tracemalloc

import numpy as np
import pytest

import tapeflow as tf
from tests.gradcheck import assert_gradient_close, central_difference

COUNTER = 0


def _cond_fn(x, w):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(tf.sin(x) * w), lambda: tf.reduce_sum(x * x * w))


def _while_fn(x, w):
    def body(i, v):
        return i + 1, tf.tanh(v * w + x)

    return tf.reduce_sum(tf.while_loop(lambda i, v: i < 4, body, [0, x])[1])


def _autograph_fn(x, w):
    s = tf.zeros_like(x)
    for i in tf.range(3):
        if tf.reduce_sum(s) < 1.0:
            s = s + tf.sin(x * w) * tf.cast(i + 1, tf.float64)
        else:
            s = s * w
    return tf.reduce_sum(s)


@pytest.mark.parametrize("fn", [_cond_fn, _while_fn, _autograph_fn], ids=["cond", "while_loop", "autograph"])
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["positive", "negative"])
def test_first_and_second_order_match_finite_differences(fn, sign):
    rng = np.random.default_rng(7)
    x0 = sign * rng.uniform(0.2, 0.9, size=3)
    w0 = rng.uniform(-1.0, 1.0, size=3)
    v0 = rng.uniform(-1.0, 1.0, size=3)
    traced = tf.function(fn)

    @tf.function
    def inside(x, w):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch([x, w])
                y = fn(x, w)
            gx, gw = t1.gradient(y, [x, w])
            gv = tf.reduce_sum(gx * tf.constant(v0))
        return gx, gw, t2.gradient(gv, x)

    def value(x, w):
        return float(fn(tf.constant(x), tf.constant(w)))

    def grad_dot_v(x, w):
        x = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, tf.constant(w))
        return float(tf.reduce_sum(tape.gradient(y, x) * v0))

    gx, gw, hv = inside(tf.constant(x0), tf.constant(w0))
    assert_gradient_close(gx.numpy(), central_difference(value, [x0, w0], 0), "d/dx, tape inside")
    assert_gradient_close(gw.numpy(), central_difference(value, [x0, w0], 1), "d/dw, tape inside")
    assert_gradient_close(hv.numpy(), central_difference(grad_dot_v, [x0, w0], 0), "d(grad.v)/dx, tape inside")

    x, w = tf.constant(x0), tf.constant(w0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch([x, w])
            y = traced(x, w)
        gx, gw = t1.gradient(y, [x, w])
        gv = tf.reduce_sum(gx * tf.constant(v0))
    assert_gradient_close(gx.numpy(), central_difference(value, [x0, w0], 0), "d/dx, tape outside")
    assert_gradient_close(gw.numpy(), central_difference(value, [x0, w0], 1), "d/dw, tape outside")
    assert_gradient_close(t2.gradient(gv, x).numpy(), central_difference(grad_dot_v, [x0, w0], 0),
                          "d(grad.v)/dx, tape outside")


def test_single_tape_outside_records_one_call():
    x = tf.constant([0.3, -0.4], tf.float64)
    w = tf.constant([0.5, 0.25], tf.float64)
    traced = tf.function(_while_fn)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = traced(x, w)
    expected = central_difference(lambda a: float(_while_fn(tf.constant(a), w)), [x.numpy()], 0)
    assert_gradient_close(tape.gradient(y, x).numpy(), expected, "recorded call")


def test_long_while_loop_without_gradients_keeps_memory_flat():
    @tf.function
    def f(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + tf.ones([10_000])), [0, tf.zeros([10_000])])

    f(tf.constant(3))
    tracemalloc.start()
    try:
        f(tf.constant(10))
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = f(tf.constant(20_000))
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert float(out[1][0]) == 20_000.0
    assert peak < 2_000_000  # a few loop states of 40 KB, not 20,000 of them (800 MB)


def test_branch_variable_reads_are_inputs_of_the_node():
    v = tf.Variable(3.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            y = tf.cond(x > 0, lambda: v * v * x, lambda: v + x)
        return tape.gradient(y, v)

    assert float(f(tf.constant(2.0))) == 12.0
    assert float(f(tf.constant(-2.0))) == 1.0


def test_conversion_keeps_closures_globals_and_defaults():
    scale = tf.constant(10.0)

    @tf.function
    def f(x, offset=1.0):
        global COUNTER
        COUNTER += 1
        total = x * 0.0
        for i in tf.range(3):
            if x > 0:
                total += scale * tf.cast(i, tf.float32) + offset
            else:
                total -= offset
        return total

    before = COUNTER
    assert float(f(tf.constant(1.0))) == 33.0
    assert float(f(tf.constant(-1.0))) == -3.0
    assert COUNTER == before + 1  # the body ran once, while tracing


def test_methods_and_helpers_are_converted():
    def clip(v):
        if v > 1.0:
            v = tf.ones_like(v)
        return v

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.function
        def __call__(self, x):
            y = clip(x * self.w)
            while y < 10.0:
                y = y * 3.0
            return y

    m = Model()
    assert float(m(tf.constant(0.2))) == pytest.approx(10.8)
    assert float(m(tf.constant(5.0))) == 27.0


def test_to_code_and_do_not_convert():
    def relu(x):
        if x > 0:
            return x
        return 0.0 * x

    code = tf.autograph.to_code(relu)
    assert "ag__.if_stmt" in code and "def relu(x):" in code
    assert float(tf.autograph.to_graph(relu)(tf.constant(-2.0))) == 0.0  # Python truth, eagerly

    @tf.autograph.experimental.do_not_convert
    def kept(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(kept)(tf.constant(1.0))


def test_code_without_source_runs_as_written():
    namespace = {"tf": tf}
    exec("def f(x):\n    return x * 2.0\n", namespace)  # noqa: S102 - a function with no file to read
    assert float(tf.function(namespace["f"])(tf.constant(2.0))) == 4.0
    with pytest.raises(ValueError, match="Unable to locate the source code"):
        tf.autograph.to_code(namespace["f"])


def test_error_inside_a_branch_names_the_users_line():
    @tf.function
    def f(x):
        if x > 0:
            y = tf.reshape(x, [2, 2])
        else:
            y = tf.reshape(x, [1, 1])
        return y

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(1.0))
    assert "tf.reshape(x, [2, 2])" in str(info.value) or "Reshape" in str(info.value)


def test_unused_failing_op_is_pruned_as_in_a_graph():
    @tf.function
    def f(x):
        tf.gather(x, [1])  # fails on these values, but nothing needs it
        return x

    assert f(tf.constant([0.0])).numpy().tolist() == [0.0]

    @tf.function
    def g(x):
        return tf.gather(x, [1])

    with pytest.raises(tf.errors.InvalidArgumentError, match="Graph execution error"):
        g(tf.constant([0.0]))


def test_tensor_array_buffer_grows_in_a_traced_loop_and_differentiates():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
            for i in tf.range(4):
                ta = ta.write(i, x * tf.cast(i, tf.float64))
            y = tf.reduce_sum(ta.stack() ** 2)
        return ta.size(), y, tape.gradient(y, x)

    size, y, g = f(tf.constant(1.5, tf.float64))
    assert int(size) == 4 and float(y) == pytest.approx(1.5 ** 2 * 14)
    assert float(g) == pytest.approx(2 * 1.5 * 14)


def test_a_loop_and_its_gradient_run_it_once():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = x
            for _ in tf.range(3):
                v.assign_add(1.0)  # an effect: it must happen three times per call, not six
                s = s * x
        return s, tape.gradient(s, x)

    s, g = f(tf.constant(2.0))
    assert (float(s), float(g), float(v)) == (16.0, 32.0, 3.0)
    source = f.get_concrete_function(tf.constant(2.0)).pretty_printed_source()
    assert source.count("WhileHistory") == 1 and "# While at" not in source


def test_gradient_of_an_assigning_loop_from_a_tape_outside_is_refused():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        s = x
        for _ in tf.range(2):
            v.assign_add(1.0)
            s = s * x
        return s

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(tf.errors.UnimplementedError, match="body assigns variables"):
        tape.gradient(y, x)


def test_super_in_a_converted_method():
    class Base(tf.Module):
        def f(self, x):
            return x * 2.0

    class Child(Base):
        @tf.function
        def f(self, x):
            if x > 0:  # the branch becomes a local function: super() there needs the class and self spelled out
                return super().f(x) + 1.0
            return super().f(x)

    assert float(Child().f(tf.constant(1.0))) == 3.0
    assert float(Child().f(tf.constant(-1.0))) == -2.0


def test_keras_train_step_with_a_tensor_condition():
    keras = tf.keras

    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1, kernel_initializer="zeros")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((self(x, training=True) - y) ** 2)
                if loss > 100.0:
                    loss = loss / 10.0
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    model = Model()
    model.compile(optimizer=keras.optimizers.SGD(0.05))
    x = np.random.default_rng(0).random((32, 3)).astype("float32")
    history = model.fit(x, x.sum(1, keepdims=True), epochs=3, batch_size=8, verbose=0, shuffle=False)
    losses = history.history["loss"]
    assert len(losses) == 3 and losses[2] < losses[1] < losses[0]


def test_custom_gradient_inside_a_traced_loop_and_branch():
    @tf.custom_gradient
    def clipped(x):
        return tf.identity(x), lambda g: tf.clip_by_value(g, -0.1, 0.1)

    def loop(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = x
            for _ in tf.range(3):
                s = clipped(s * 2.0)
            s = tf.cond(s > 0, lambda: clipped(s * 3.0), lambda: s)
        return s, tape.gradient(s, x)

    traced = tf.function(loop)
    for value in (1.0, -1.0):
        eager = loop(tf.constant(value))  # (eagerly the loop and cond are Python: the custom rule runs as written)
        got = traced(tf.constant(value))
        assert [float(t) for t in got] == pytest.approx([float(t) for t in eager])

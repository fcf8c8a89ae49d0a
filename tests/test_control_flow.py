"""What the control-flow goldens cannot show: behaviour inside ``tf.function`` traces, TF's one-time deprecation log
for ``back_prop=False`` (it names the caller's file), and errors whose texts name tapeflow's classes."""
import logging

import pytest

import tapeflow as tf


def test_traced_python_bool_predicate_is_refused():
    @tf.function
    def f(x):
        return tf.cond(True, lambda: x * 2.0, lambda: x * 3.0)

    with pytest.raises(TypeError, match=r"\('pred must not be a Python bool', True\)"):
        f(tf.constant(2.0))


def test_traced_non_bool_predicate_is_refused():
    @tf.function
    def f(x):
        return tf.cond(x, lambda: x, lambda: -x)

    with pytest.raises(tf.errors.InvalidArgumentError, match="Input 'pred' passed float expected bool"):
        f(tf.constant(2.0))


def test_traced_eager_tensor_predicate_and_python_loop():
    flag = tf.constant(False)

    @tf.function
    def f(x):
        y = tf.cond(flag, lambda: x, lambda: x + 1.0)
        _, z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * 2.0), (0, y), maximum_iterations=10)
        return z

    assert float(f(tf.constant(1.0))) == 16.0


def test_back_prop_false_logs_once_and_keeps_gradients(caplog):
    x = tf.constant(2.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for _ in range(2):
            with tf.GradientTape() as tape:
                tape.watch(x)
                (y,) = tf.while_loop(lambda y: y < 10.0, lambda y: (y * x,), [x], back_prop=False)
    lines = [r.getMessage() for r in caplog.records if "back_prop=False is deprecated" in r.getMessage()]
    assert len(lines) <= 1  # once per process (an earlier test may have logged it already)
    if lines:
        assert lines[0].startswith(f"From {__file__}:")
        assert "calling while_loop_v2 (from tensorflow.python.ops.while_loop) with back_prop=False" in lines[0]
    assert float(y) == 16.0
    assert float(tape.gradient(y, x)) == pytest.approx(4 * 2.0 ** 3)  # y = x**4, as TF gives


def test_switch_case_refuses_a_variable_index():
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor, got <class '.*ResourceVariable'>"):
        tf.switch_case(tf.Variable(1), [lambda: 1, lambda: 2])


def test_case_list_pair_error_names_the_pair():
    with pytest.raises(TypeError, match=r"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received \[<tf.Tensor"):
        tf.case([[tf.constant(True), lambda: 1]])


def test_while_loop_returns_body_structure_types():
    out = tf.while_loop(lambda i, j: i < 2, lambda i, j: [i + 1, j], (tf.constant(0), 1.0))
    assert isinstance(out, list) and out[1].dtype == tf.float32

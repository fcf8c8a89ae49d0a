"""tf.debugging's check-numerics mode (forward, backward, the user's line, really off when disabled), the asserts,
tf.test.compute_gradient and tapeflow.debug.check_gradients. Word-for-word TF behaviour is in the golden cases
(tests/golden/cases/debugging.py)."""

import inspect
import subprocess
import sys
import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow._core.registry import REGISTRY, Op, defop

HERE = __file__


def _line():
    """The line number of the caller's next line."""
    return inspect.currentframe().f_back.f_lineno + 1


@pytest.fixture
def checking():
    tf.debugging.enable_check_numerics(path_length_limit=None)
    try:
        yield
    finally:
        tf.debugging.disable_check_numerics()


@pytest.fixture
def scratch_ops():
    """Register throwaway ops in a test and remove them afterwards (the op database must not see them)."""
    names = []

    def register(name, forward, rule=None):
        names.append(name)
        op = defop(name)(forward)
        if rule is not None:
            op.defvjp(rule)
        return op

    yield register
    for name in names:
        REGISTRY.pop(name, None)


# ---- the check-numerics mode ----------------------------------------------------------------------------------


def test_forward_error_names_op_and_line(checking):
    x = tf.constant([1.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        line = _line()
        tf.math.log(x)
    msg = str(info.value)
    assert msg.startswith("{{function_node __wrapped__CheckNumericsV2_device_")
    assert '!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log"' in msg
    assert f'tapeflow: op "Log" at {HERE}:{line}\n' in msg
    assert msg.endswith(" : Tensor had -Inf values [Op:CheckNumericsV2] name: ")


def test_failed_op_records_nothing(checking):
    x = tf.constant([0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.math.log(x)
        y = x * 2.0
    assert tape.gradient(y, x).numpy().tolist() == [2.0]


def test_backward_error_names_gradient_and_both_lines(checking):
    x = tf.constant([1.0, -1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        fwd_line = _line()
        y = tf.sqrt(tf.abs(x) - 1.0)  # finite forward (0), infinite gradient
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        grad_line = _line()
        tape.gradient(y, x)
    msg = str(info.value)
    assert "Detected Infinity or NaN in output 0 of eagerly-executing op" in msg
    assert f' at {HERE}:{grad_line}, in the gradient of op "Sqrt" recorded at {HERE}:{fwd_line}\n' in msg
    assert "+Inf" in msg


def test_backward_checked_while_an_outer_tape_records(checking):
    x = tf.constant(0.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.sqrt(x)
        with pytest.raises(tf.errors.InvalidArgumentError, match='in the gradient of op "Sqrt"'):
            inner.gradient(y, x)


def test_checking_observes_the_backward_pass_and_leaves_no_trace():
    from tapeflow._core.state import STATE

    before = list(STATE.tapes)
    tf.debugging.enable_check_numerics()
    try:
        assert len(STATE.tapes) == len(before) + 1  # one observer, first in this thread's stack
        x = tf.constant(4.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sqrt(x)
        assert tape.gradient(y, x).numpy() == 0.25
    finally:
        tf.debugging.disable_check_numerics()
    assert STATE.tapes == before


def test_path_length_limit_shortens_the_file():
    tf.debugging.enable_check_numerics(path_length_limit=20)
    try:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            line = _line()
            tf.math.log(tf.constant(0.0))
    finally:
        tf.debugging.disable_check_numerics()
    assert f'at ...{HERE[-20:]}:{line}\n' in str(info.value)


def test_ops_registered_while_enabled_are_checked(checking, scratch_ops):
    nan_op = scratch_ops("TapeflowTestMakesNaN", lambda x: x * np.nan)
    with pytest.raises(tf.errors.InvalidArgumentError, match='op "TapeflowTestMakesNaN"'):
        execute(nan_op, (tf.constant([1.0]),))


def test_disabled_mode_is_really_off(scratch_ops):
    from tapeflow._core.state import STATE

    original = Op.__dict__["forward"], Op.__dict__["vjp"]
    log = REGISTRY["Log"]
    forward, rule = log.forward, log.vjp
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()  # idempotent: one disable undoes it
    # Nothing is patched: the op class and the ops keep their functions; an observer watches instead.
    assert (Op.__dict__["forward"], Op.__dict__["vjp"]) == original
    assert (log.forward, log.vjp) == (forward, rule)
    tf.debugging.disable_check_numerics()
    tf.debugging.disable_check_numerics()  # a no-op when off
    assert STATE.tapes == []
    assert type(original[0]).__name__ == "member_descriptor"
    assert tf.math.log(tf.constant(0.0)).numpy() == -np.inf


def test_checking_is_per_thread(checking):
    seen = []

    def other():
        seen.append(tf.math.log(tf.constant(0.0)).numpy())

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen == [-np.inf]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.log(tf.constant(0.0))


def test_safe_and_non_float_ops_are_not_checked(checking):
    nan = tf.constant([np.nan])
    assert np.isnan(tf.reshape(nan, [1, 1]).numpy()).all()
    assert np.isnan(tf.identity(nan).numpy()).all()
    assert tf.math.log(tf.constant([0j])).numpy()[0].real == -np.inf


# ---- check_numerics and asserts -------------------------------------------------------------------------------


def test_check_numerics_gradient_is_checked():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.debugging.check_numerics(x * x, "sq")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"detected in gradient\. b'sq' : Tensor had Inf"):
        tape.gradient(y, x, output_gradients=tf.constant([1.0, np.inf]))


def test_asserts_pass_and_fail():
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.assert_less(x, 3.0) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        tf.debugging.assert_less(x, 1.5)
    with pytest.raises(ValueError, match="must have rank 2"):
        tf.assert_rank(x, 2)
    assert tf.debugging.assert_shapes([(x, ("N",)), (tf.zeros([2, 5]), ("N", 5))]) is None
    with pytest.raises(ValueError, match="Specified by tensor"):
        tf.debugging.assert_shapes([(x, ("N",)), (tf.zeros([3, 5]), ("N", 5))])


# ---- tf.test.compute_gradient ---------------------------------------------------------------------------------


def test_compute_gradient_matches_analytic_jacobian():
    x = np.array([0.1, 0.7, -0.4])
    theo, num = tf.test.compute_gradient(lambda v: tf.sin(v) * 2.0, [x])
    assert isinstance(theo, tuple) and isinstance(num, tuple) and len(theo) == 1
    np.testing.assert_allclose(theo[0], np.diag(2 * np.cos(x)), rtol=1e-14)
    np.testing.assert_allclose(num[0], np.diag(2 * np.cos(x)), rtol=1e-5)


def test_compute_gradient_complex_layout():
    # f(z) = conj(z): d(re f)/d(re z) = 1, d(im f)/d(im z) = -1; rows and columns are (re, im) pairs.
    theo, num = tf.test.compute_gradient(tf.math.conj, [tf.constant([1 + 2j], tf.complex128)])
    assert theo[0].shape == (2, 2) and theo[0].dtype == np.float64
    np.testing.assert_allclose(theo[0], [[1, 0], [0, -1]])
    np.testing.assert_allclose(num[0], [[1, 0], [0, -1]])


def test_compute_gradient_refuses_non_lists():
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tf.test.compute_gradient(tf.sin, tf.constant([1.0]))


# ---- tapeflow.debug.check_gradients ---------------------------------------------------------------------------


def test_check_gradients_passes_on_correct_rules():
    report = tf.debug.check_gradients(lambda x, w: tf.reduce_sum(tf.tanh(tf.matmul(x, w))),
                                      np.array([[0.2, -0.3]]), np.array([[0.5], [1.5]]))
    assert report.ok and len(report) == 2
    assert all(a.max_abs_error < 1e-7 for a in report.arguments)
    assert str(report).startswith("gradient check passed")


def test_check_gradients_catches_a_wrong_rule(scratch_ops):
    cube = scratch_ops("TapeflowTestWrongCube", lambda x: x ** 3, lambda g, ans, x: (g * 2.0 * x * x,))  # wrong: 3x^2
    report = tf.debug.check_gradients(lambda x: execute(cube, (x,)), np.array([1.0, 2.0]))
    assert not report.ok
    arg = report.arguments[0]
    assert arg.max_abs_error == pytest.approx(4.0, rel=1e-6)  # |2*4 - 3*4| at x = 2
    assert arg.max_rel_error == pytest.approx(1 / 3, rel=1e-6)
    assert arg.worst == (1, 1)
    text = str(report)
    assert "FAILED" in text and "MISMATCH" in text and "worst at output 1, input 1" in text


def test_check_gradients_tolerances_and_skipped_arguments():
    report = tf.debug.check_gradients(lambda x, n: x * tf.cast(n, tf.float64), 2.0, 3, rtol=0.0, atol=1e-3)
    assert report.ok and [a.index for a in report.arguments] == [0]
    assert "argument 1: not checked (dtype int32)" in str(report)
    # Central differences of x**3 with step 0.5 are off by exactly delta**2 = 0.25: the tolerances decide.
    cube = lambda x: x * x * x  # noqa: E731
    assert not tf.debug.check_gradients(cube, 2.0, delta=0.5, rtol=0.0, atol=0.2).ok
    assert tf.debug.check_gradients(cube, 2.0, delta=0.5, rtol=0.0, atol=0.3).ok


def test_debug_and_test_namespaces_are_lazy():
    code = ("import sys, tapeflow as tf; assert 'tapeflow.debug' not in sys.modules; "
            "assert 'tapeflow.test' not in sys.modules; tf.debug.check_gradients; tf.test.compute_gradient; "
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"

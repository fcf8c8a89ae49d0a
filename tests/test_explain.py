"""``tapeflow.debug.explain``: one small program per cause, each checking ``.cause`` and the exact ``.where``.

Lines are found by the ``# <name>`` marker comments below, so ``.where`` is compared with the exact
``"file:line"`` of the statement where the path broke.
"""

from __future__ import annotations

import logging
import tracemalloc

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import dispatch, observers, provenance
from tapeflow._core.state import STATE
from tapeflow.debug import explain, explain_none_gradients
from tapeflow.debug.explain import _KEEPER, CAUSES, Explanation

with open(__file__) as _f:
    _SOURCE = _f.read().splitlines()


def line(marker):
    """``"file:line"`` of the line of this file that ends with ``# <marker>``."""
    hits = [i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# <{marker}>")]
    assert len(hits) == 1, marker
    return f"{__file__}:{hits[0]}"


@pytest.fixture(autouse=True)
def provenance_hook():
    """Capture on and a clean log for each test; ``dispatch.execute`` must report the ops no tape records to the
    listeners, among which the log hears this thread's user code."""
    assert "op_ran" in dispatch.execute.__code__.co_names
    provenance.clear()
    previous = provenance.set_enabled(True)
    assert provenance.LOG in STATE.tapes.hear.members and STATE.tapes.hear.op_ran is provenance.note_op
    yield
    provenance.set_enabled(previous)
    explain_none_gradients(False)


# --- causes read from the recording ------------------------------------------------------------------------
def test_connected():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is not None
    why = explain(tape, y, x)
    assert why.cause == "connected" and why.where is None
    assert "connected" in str(why)


def test_not_watched():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    assert (why.cause, why.where) == ("not_watched", None)
    assert "tape.watch()" in str(why)


def test_not_trainable():
    w = tf.Variable(2.0, trainable=False)  # <w-frozen>
    with tf.GradientTape() as tape:
        y = w * 3.0
    assert tape.gradient(y, w) is None
    why = explain(tape, y, w)
    assert (why.cause, why.where) == ("not_trainable", line("w-frozen"))
    assert "trainable=False" in str(why)


def test_not_trainable_but_watched_is_connected():
    w = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = w * 3.0
    assert tape.gradient(y, w) is not None
    assert explain(tape, y, w).cause == "connected"


def test_watch_disabled():
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * 3.0
    assert tape.gradient(y, w) is None
    why = explain(tape, y, w)
    assert (why.cause, why.where) == ("watch_disabled", None)
    assert "watch_accessed_variables=False" in str(why)


def test_integer_source():
    x = tf.constant(3)  # <int-made>
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(x, tf.float32) * 2.0
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    assert (why.cause, why.where) == ("integer_dtype", line("int-made"))
    assert "int32" in str(why)


def test_integer_on_the_path():
    x = tf.constant([1.5, 2.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        i = tf.cast(x, tf.int32)  # <int-cast>
        y = tf.reduce_sum(tf.cast(i, tf.float32) * 2.0)
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    assert (why.cause, why.where) == ("integer_dtype", line("int-cast"))
    assert why.path[0] == "Cast"


def test_integer_variable():
    v = tf.Variable(3)  # <int-var>
    with tf.GradientTape() as tape:
        y = tf.cast(v, tf.float32) * 2.0
    assert tape.gradient(y, v) is None
    assert (explain(tape, y, v).cause, explain(tape, y, v).where) == ("integer_dtype", line("int-var"))


def test_stop_gradient():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(x * 2.0) * x  # <stop>
        z = tf.stop_gradient(y)  # <stop2>
    assert tape.gradient(z, x) is None
    why = explain(tape, z, x)
    assert (why.cause, why.where) == ("stop_gradient", line("stop2"))
    assert explain(tape, y, x).cause == "connected"  # the other factor still carries gradient


@pytest.mark.parametrize("make", ["argmax", "round", "one_hot", "greater"])
def test_non_differentiable(make):
    x = tf.Variable([0.2, 1.7, 0.4])
    with tf.GradientTape() as tape:
        if make == "argmax":
            k = tf.cast(tf.argmax(x), tf.float32)  # <argmax>
        elif make == "round":
            k = tf.round(x)  # <round>
        elif make == "one_hot":
            k = tf.one_hot(tf.argmax(x), 3)  # <one_hot>
        else:
            k = tf.cast(x > 1.0, tf.float32)  # <greater>
        y = tf.reduce_sum(k * 3.0)
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    assert (why.cause, why.where) == ("non_differentiable", line(make))
    assert {"argmax": "ArgMax", "round": "Round", "one_hot": "ArgMax", "greater": "Greater"}[make] in str(why)


def test_unused():
    x = tf.Variable(1.0)
    b = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * 3.0
        _ = b + 1.0
    assert tape.gradient(y, b) is None
    why = explain(tape, y, b)
    assert (why.cause, why.where) == ("unused", None)


# --- causes that need the provenance log ----------------------------------------------------------------------
@pytest.mark.parametrize("how", [".numpy()", "np.asarray", "float()"])
def test_left_tape(how):
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        h = x * 2.0
        if how == ".numpy()":
            back = tf.constant(h.numpy())  # <left-numpy>
        elif how == "np.asarray":
            back = tf.constant(np.asarray(h) + 1.0)  # <left-asarray>
        else:
            back = tf.constant(float(h[0]))  # <left-float>
        y = tf.reduce_sum(back * 3.0)
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    marker = {".numpy()": "left-numpy", "np.asarray": "left-asarray", "float()": "left-float"}[how]
    assert (why.cause, why.where) == ("left_tape", line(marker))
    assert "left the tape" in str(why)


def test_left_tape_through_tf_constant_of_a_tensor():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        c = tf.constant(x * 2.0)  # <left-constant>
        y = c * c
    assert tape.gradient(y, x) is None
    assert (explain(tape, y, x).cause, explain(tape, y, x).where) == ("left_tape", line("left-constant"))


def test_outside_tape_before_the_block():
    w = tf.Variable(2.0)
    h = w * 3.0  # <before>
    with tf.GradientTape() as tape:
        y = h * h
    assert tape.gradient(y, w) is None
    why = explain(tape, y, w)
    assert (why.cause, why.where) == ("outside_tape", line("before"))
    assert "inside the tape's with block" in str(why)


def test_outside_tape_watched_tensor_used_before():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        a = x * 1.0
    b = a * 2.0  # <after>
    assert tape.gradient(b, x) is None
    why = explain(tape, b, x)
    assert (why.cause, why.where) == ("outside_tape", line("after"))
    assert "after" in str(why)


def test_outside_tape_stop_recording():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        a = x * 2.0
        with tape.stop_recording():
            b = tf.sin(a)  # <stopped>
        y = b * a
        z = b * 2.0
    assert explain(tape, y, x).cause == "connected"
    assert tape.gradient(z, x) is None
    why = explain(tape, z, x)
    assert (why.cause, why.where) == ("outside_tape", line("stopped"))
    assert "stop_recording" in str(why)


def test_not_a_variable():
    w = tf.Variable(2.0)
    g = tf.constant(0.5)
    w = w - 0.1 * g  # <rebound>
    with tf.GradientTape() as tape:
        loss = w * w
    assert tape.gradient(loss, w) is None
    why = explain(tape, loss, w)
    assert (why.cause, why.where) == ("not_a_variable", line("rebound"))
    assert "assign_sub" in str(why) and "'Variable:0'" in str(why)


def test_not_a_variable_after_a_real_gradient_step():
    # The mistake of examples/mistake_rebinding.py exactly: the rebinding uses a gradient, which the log otherwise
    # treats as an optimizer's update (no line); the variable read in it keeps the line.
    w = tf.Variable(2.0)
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((w * x) ** 2)
    dw = tape.gradient(loss, w)
    w = w - 0.01 * dw  # <rebound-after-step>
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((w * x) ** 2)
    assert tape.gradient(loss, w) is None
    why = explain(tape, loss, w)
    assert (why.cause, why.where) == ("not_a_variable", line("rebound-after-step"))


def test_assigned():
    w = tf.Variable(2.0)
    v = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        v.assign(w * 3.0)  # <assign>
        y = v * 2.0
    assert tape.gradient(y, w) is None
    why = explain(tape, y, w)
    assert (why.cause, why.where) == ("assigned", line("assign"))
    assert "Variable.assign()" in str(why)


def test_assign_sub_also_assigned():
    w = tf.Variable(2.0)
    acc = tf.Variable(10.0)
    with tf.GradientTape() as tape:
        acc.assign_sub(w * w)  # <assign-sub>
        y = acc * 1.0
    assert tape.gradient(y, w) is None
    assert (explain(tape, y, w).cause, explain(tape, y, w).where) == ("assigned", line("assign-sub"))


# --- the tape's lifecycle, the API ----------------------------------------------------------------------------
def test_after_gradient_on_a_non_persistent_tape():
    w = tf.Variable(2.0)
    b = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.round(w) * 2.0  # <np-round>
        z = y + b * 1.0
    dw, db = tape.gradient(z, [w, b])
    assert dw is None and db is not None
    with pytest.raises(RuntimeError):
        tape.gradient(z, [w, b])  # the recording is gone ...
    why = explain(tape, z, w)  # ... its skeleton is not
    assert (why.cause, why.where) == ("non_differentiable", line("np-round"))
    assert explain(tape, z, b).cause == "connected"


def test_persistent_and_live_tapes():
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
        assert explain(tape, y, x).cause == "not_watched"  # inside the block
    assert explain(tape, y, x).cause == "not_watched"
    assert explain(tape, y, x).cause == "not_watched"  # as often as asked


def test_explanation_object():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    why = explain(tape, y, x)
    assert isinstance(why, Explanation) and why.cause in CAUSES
    assert repr(why) == "Explanation(cause='not_watched', where=None)"
    assert why == "not_watched"
    text = str(why)
    assert 1 <= text.count(". ") + 1 <= 3 and text.endswith(".")


def test_nested_targets_and_bad_sources():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = {"a": x * 2.0, "b": [tf.constant(1.0)]}
    assert explain(tape, y, x).cause == "connected"
    with pytest.raises(TypeError, match="one tensor or variable"):
        explain(tape, y, [x])
    with pytest.raises(ValueError, match="recorded nothing"):
        explain(tf.GradientTape(), y, x)


def test_every_cause_has_a_test():
    text = "\n".join(_SOURCE)
    for cause in CAUSES:
        assert f'"{cause}"' in text


# --- explain mode ---------------------------------------------------------------------------------------------
def _none_gradient():
    w = tf.Variable(2.0)
    b = tf.Variable(1.0)
    h = w * 3.0  # <warn-before>
    with tf.GradientTape() as tape:
        y = h + b
    return tape.gradient(y, [w, b])  # <warn-call>


def test_explain_none_gradients_as_a_function(caplog):
    try:
        explain_none_gradients(True)
        with caplog.at_level(logging.WARNING, logger="tensorflow"):
            dw, db = _none_gradient()
    finally:
        explain_none_gradients(False)
    assert dw is None and db is not None
    messages = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert len(messages) == 1
    assert messages[0].startswith(f"tape.gradient() at {line('warn-call')} returned None for variable 'Variable:0': ")
    assert f" at {line('warn-before')} ran while the tape was not recording" in messages[0]
    assert messages[0].endswith("[cause: outside_tape]")
    assert caplog.records[0].levelno == logging.WARNING
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        caplog.clear()
        _none_gradient()  # off again: silent
    assert not caplog.records


def test_explain_none_gradients_as_a_context_manager(caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with explain_none_gradients():
            assert any(type(m).__name__ == "_NoneWarner" for m in STATE.tapes.hear.members)
            _none_gradient()
        assert not any(type(m).__name__ == "_NoneWarner" for m in STATE.tapes.hear.members)
        _none_gradient()
    assert len([r for r in caplog.records if "[cause: outside_tape]" in r.getMessage()]) == 1


def test_no_warning_when_everything_is_connected_or_zero(caplog):
    w = tf.Variable(2.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"), explain_none_gradients():
        with tf.GradientTape() as tape:
            y = w * 2.0
        tape.gradient(y, w)
        with tf.GradientTape() as tape:
            y = tf.constant(1.0) * 2.0
        assert tape.gradient(y, w, unconnected_gradients="zero").numpy() == 0.0
    assert not caplog.records


# --- the provenance log ---------------------------------------------------------------------------------------
def test_capture_can_be_turned_off():
    with tf.debug.provenance(False):
        assert provenance.LOG not in STATE.tapes.hear.members and STATE.tapes.hear.op_ran is None
        w = tf.Variable(2.0)
        h = w * 3.0
        with tf.GradientTape() as tape:
            y = h * h
        assert tape.gradient(y, w) is None
        why = explain(tape, y, w)
        assert why.cause == "unused" and "capture is off" in str(why)  # history off: no line, and it says so
    assert provenance.LOG in STATE.tapes.hear.members


def test_backward_pass_is_not_logged():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(x) * x)
    used = sum(e is not None for e in provenance.TABLE)
    g = tape.gradient(y, x)
    assert sum(e is not None for e in provenance.TABLE) == used + 1  # only the result, marked as a gradient
    assert provenance.producer(g._id)[1] is provenance.GRADIENT
    hook = STATE.tapes
    assert hook.hear is hook.listeners and provenance.LOG in hook.hear.members  # heard again after gradient()


def test_log_holds_no_tensors_and_stays_flat():
    w = tf.Variable(np.ones((8, 8), np.float32))
    xs = tf.constant(np.ones((4, 8), np.float32))

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(xs, w) ** 2)
        g = tape.gradient(loss, w)
        w.assign_sub(0.01 * g)
        float(loss)

    # Small rings, so that a short loop wraps them many times. tracemalloc still sees allocator noise (tuples kept
    # on CPython's free lists stay counted where they were first made), bounded and well under what one leaked
    # entry per step would add: an unbounded log would grow by about 3 KB per step here (16 entries).
    previous = provenance.resize(1 << 6, 1 << 4)
    not_tracemalloc = [tracemalloc.Filter(False, tracemalloc.__file__)]
    try:
        tracemalloc.start()
        for _ in range(300):
            step()
        before = tracemalloc.take_snapshot().filter_traces(not_tracemalloc)
        for _ in range(2000):
            step()
        after = tracemalloc.take_snapshot().filter_traces(not_tracemalloc)
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        assert grown < 160 * 1024, grown  # less than 80 bytes per step
        assert len(provenance.TABLE) == provenance.SIZE and len(provenance.EVENTS) == provenance.EVENT_SIZE
        assert all(e is not None for e in provenance.EVENTS)
        entries = provenance.TABLE + provenance.EVENTS
    finally:
        provenance.resize(*previous)
    kinds = (int, str, tuple, type(None))
    for entry in entries:
        if entry is not None:
            for field in entry:
                assert isinstance(field, kinds) or hasattr(field, "forward"), type(field)
                if isinstance(field, tuple):
                    assert all(isinstance(f, int) for f in field) or type(field[0]).__name__ == "code"


@pytest.fixture
def without_the_skeleton_keeper():
    """As in a program that never imported tapeflow.debug: its skeleton keeper does not listen."""
    observers.unlisten(_KEEPER, everywhere=True)
    yield
    observers.listen(_KEEPER, everywhere=True)


def test_with_tapeflow_debug_loaded_a_tape_keeps_its_skeleton():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * 3.0
    tape.gradient(y, w)
    assert tape._skeleton is not None and explain(tape, y, w).cause == "connected"


def test_without_tapeflow_debug_loaded_a_tape_keeps_only_what_it_needs(without_the_skeleton_keeper):
    w = tf.Variable(2.0)
    b = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = w * 3.0 + b
    tape.gradient(y, [w, b])
    assert tape._skeleton is None  # every gradient connected: no skeleton built on this training step
    assert explain(tape, y, w).cause == "connected"
    other = tf.Variable(0.0)
    with pytest.raises(ValueError, match="kept no recording after gradient"):
        explain(tape, y, other)
    with pytest.raises(ValueError, match="kept no recording after gradient"):
        tf.debug.tape_graph(tape, y, w)
    with tf.GradientTape() as tape:
        y = tf.round(w) * 3.0  # <kept-round>
    assert tape.gradient(y, w) is None
    assert tape._skeleton is not None  # a None: the skeleton is kept, explain answers in full
    assert (explain(tape, y, w).cause, explain(tape, y, w).where) == ("non_differentiable", line("kept-round"))


def test_resize_checks_its_sizes():
    with pytest.raises(ValueError, match="powers of two"):
        provenance.resize(1000)
    previous = provenance.resize(1 << 13, 1 << 8)
    assert previous == (1 << 12, 1 << 10) and (provenance.SIZE, len(provenance.TABLE)) == (1 << 13, 1 << 13)
    provenance.resize(*previous)
    assert (provenance.MASK, len(provenance.EVENTS)) == ((1 << 12) - 1, 1 << 10)


def test_a_bigger_log_for_long_forward_passes():
    w = tf.Variable(2.0)
    h = w * 3.0
    with tf.GradientTape() as tape:
        y = h
        for _ in range(provenance.SIZE):  # more tensors than the default log covers
            y = y * 1.0
    assert tape.gradient(y, w) is None
    assert explain(tape, y, w).cause == "unused"  # the op before the block has left the log
    previous = provenance.SIZE
    try:
        with tf.debug.provenance(True, size=4 * previous):
            h = w * 3.0  # <long-before-2>
            with tf.GradientTape() as tape:
                y = h
                for _ in range(previous):
                    y = y * 1.0
            assert tape.gradient(y, w) is None
            assert (explain(tape, y, w).cause, explain(tape, y, w).where) == ("outside_tape", line("long-before-2"))
    finally:
        provenance.resize(previous, provenance.EVENT_SIZE)


def test_custom_gradient_that_returns_none():
    x = tf.constant(2.0)

    @tf.custom_gradient
    def scaled(a):
        return a * 3.0, lambda dy: None

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)  # <custom-none>
    assert tape.gradient(y, x) is None
    why = explain(tape, y, x)
    assert (why.cause, why.where) == ("custom_gradient", line("custom-none"))
    assert "scaled" in str(why) and "grad_fn" in str(why)


# --- inside a tf.function call the tape recorded as one equation ---------------------------------------------
def test_break_inside_a_traced_function_names_its_op_and_line():
    w = tf.Variable(2.0)

    @tf.function
    def f(x):
        y = tf.cast(x, tf.int32)  # <traced_cast>
        return tf.cast(y, tf.float32) * w

    x = tf.constant(3.0)
    for _ in range(2):  # the same program called twice on one tape: each call's ops are shown apart
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            z = f(x) + f(x)
        assert tape.gradient(z, x) is None
        why = explain(tape, z, x)
        assert (why.cause, why.where) == ("integer_dtype", line("traced_cast"))
        assert explain(tape, z, w).cause == "connected"

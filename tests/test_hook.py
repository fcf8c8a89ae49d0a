"""The interception point (``tapeflow/_core/observers.py``): every kind of report reaches the observers of the hook.

A small test listener, registered through the core's protocol (``observers.listen``), keeps every report it hears.
The tests check that each producer reports, that a passive listener leaves the backward pass on arrays while a
recording observer makes it run its rules as ops, that tapes and forward accumulators never record assignments,
and how listening works across threads and around ``gradient()``.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import backprop, dispatch, observers, provenance
from tapeflow._core.equation import named
from tapeflow._core.recording import Recording
from tapeflow._core.registry import REGISTRY
from tapeflow._core.state import REPORTS, STATE, Observers


class Listener:
    """Keeps ``(report, args)`` for every report it hears; ``user_code_only`` as asked."""

    def __init__(self, user_code_only=False):
        self.heard = []
        self.user_code_only = user_code_only

    def __getattr__(self, name):
        if name not in REPORTS:
            raise AttributeError(name)
        return lambda *args: self.heard.append((name, args))

    def kinds(self):
        return [k for k, _ in self.heard]

    def of(self, kind):
        return [args for k, args in self.heard if k == kind]


class Watcher:
    """A recording observer that tracks nothing (as ``custom_gradient``'s variable watcher): ops never record on it,
    but its presence means that something observes ops."""

    tracked = frozenset()
    records = ()
    variables = {}
    watch_accessed = False

    def watch_variable(self, var):
        pass


@pytest.fixture
def listener():
    obs = Listener()
    observers.listen(obs)
    yield obs
    observers.unlisten(obs)
    assert obs not in observers.listeners()


# --- every report reaches a listener ---------------------------------------------------------------------------
def test_op_run_outside_tapes(listener):
    x = tf.constant([1.0, 2.0])
    y = x * 3.0
    (op, inputs, result), = listener.of("op_ran")
    assert op.name == "Mul" and inputs[0] is x and result is y


def test_ops_a_tape_records_are_in_its_recording_not_reported(listener):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x  # recorded
        z = tf.constant(1.0) + 1.0  # no input tracked: not recorded, so reported
    assert [op.name for op, _, _ in listener.of("op_ran")] == ["AddV2"]
    assert [e.op.name for e in named_equations(tape)] == ["Mul"]
    assert y is not None and z is not None


def named_equations(tape):
    return [named(e) for e in tape._tape.stored()]


def test_multi_output_and_many_input_ops(listener):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    parts = tf.unstack(x)
    tf.concat([x, x, x], axis=0)
    names = [op.name for op, _, _ in listener.of("op_ran")]
    assert "Unpack" in names and "ConcatV2" in names
    (op, inputs, result), = [args for args in listener.of("op_ran") if args[0].name == "Unpack"]
    assert isinstance(result, tuple) and [r._id for r in result] == [p._id for p in parts]


def test_variable_read_outside_tapes(listener):
    v = tf.Variable([1.0, 2.0])
    t = v.read_value()
    (var, tensor), = listener.of("variable_read")
    assert var is v and tensor is t


def test_reads_inside_a_tape_are_in_its_recording(listener):
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        v.read_value()
    assert listener.of("variable_read") == []
    assert [e.op.name for e in named_equations(tape)] == ["ReadVariableOp"]


def test_variable_assignments(listener):
    v = tf.Variable([1.0, 2.0, 3.0])
    delta = tf.constant([1.0, 1.0, 1.0])
    v.assign(delta)
    v.assign_add(delta)
    v.assign_sub(delta)  # the optimizer's fast path
    v.assign_sub([1.0, 1.0, 1.0])  # a converted value
    v[0].assign(5.0)
    slices = tf.IndexedSlices(tf.constant([2.0]), tf.constant([1]))
    v.scatter_add(slices)
    v.scatter_update(slices)
    v.scatter_nd_sub(tf.constant([[2]]), tf.constant([1.0]))
    methods = [(var, method) for var, method, _ in listener.of("variable_assigned")]
    assert methods == [(v, "assign"), (v, "assign_add"), (v, "assign_sub"), (v, "assign_sub"), (v, "slice_assign"),
                       (v, "scatter_add"), (v, "scatter_update"), (v, "scatter_nd_sub")]
    values = [value for _, _, value in listener.of("variable_assigned")]
    assert values[0] is delta and values[2] is delta and values[3] == [1.0, 1.0, 1.0] and values[4] == 5.0
    assert values[5] is slices.values


def test_custom_gradient_call(listener):
    @tf.custom_gradient
    def twice(x):
        return 2.0 * x, lambda g: 2.0 * g

    x = tf.constant(3.0)
    y = twice(x)
    (op, inputs, outputs), = listener.of("custom_gradient_called")
    assert op.name == "CustomGradient(twice)" and inputs[0] is x and outputs == (y,)


def test_constants_and_values_leaving(listener):
    a = tf.constant([1.0, 2.0])
    b = tf.convert_to_tensor(np.float32(2.0))
    made = [t._id for (t,) in listener.of("constant_made")]
    assert made[-1] == b._id and a._id in made  # (``tf.constant`` converts, then makes its own tensor)
    listener.heard.clear()
    a.numpy()
    np.asarray(a)
    float(b)
    bool(b)
    int(b)
    tf.constant(a)
    v = tf.Variable(1.0)
    v.numpy()
    float(v)
    hows = [(value._id, how) for value, how in listener.of("value_left")]
    assert hows == [(a._id, ".numpy()"), (a._id, "a NumPy conversion (np.asarray, np.array...)"),
                    (b._id, "float()"), (b._id, "bool()"), (b._id, "int()"), (a._id, "tf.constant()"),
                    (v._id, ".numpy()"), (v._id, "float()")]


def test_variable_created(listener):
    v = tf.Variable(1.0, name="w")
    (var,), = listener.of("variable_created")
    assert var is v


def test_gradients_returned(listener):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x)
    (heard_tape, targets, sources, grads), = listener.of("gradients_returned")
    assert heard_tape is tape and [t is y for t in targets] == [True] and [s is x for s in sources] == [True]
    assert len(grads) == 1 and grads[0] is g


def test_constants_made_inside_a_rule():
    # A custom gradient's rule returns a Python number: the backward pass converts it, a constant made inside the
    # rule. A listener of user code only (the provenance log) does not hear the backward pass; another one does.
    everything, user_only = Listener(), Listener(user_code_only=True)
    observers.listen(everything)
    observers.listen(user_only)
    try:
        @tf.custom_gradient
        def f(x):
            return x * 1.0, lambda g: 7.0

        x = tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        for obs in (everything, user_only):
            obs.heard.clear()
        g = tape.gradient(y, x)
    finally:
        observers.unlisten(everything)
        observers.unlisten(user_only)
    assert g.numpy() == 7.0
    # The ones the backward pass starts from, and the rule's 7.0.
    made = sorted(float(args[0].numpy()) for args in everything.of("constant_made"))
    assert made == [1.0, 7.0]
    assert user_only.kinds() == ["gradients_returned"]


def test_constants_made_by_built_in_rules_are_heard():
    # reduce_logsumexp's rule shifts by the maximum, or by a zero of the input's dtype where that is not finite: a
    # constant the rule makes itself (what depends on the values is computed by ops).
    everything = Listener()
    x = tf.constant([[0.0, 1.0], [3.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_logsumexp(x)
    observers.listen(everything)
    try:
        g = tape.gradient(y, x)
    finally:
        observers.unlisten(everything)
    e = np.exp(x.numpy() - 3.0)
    np.testing.assert_allclose(g.numpy(), e / e.sum(), rtol=1e-6)
    made = [args[0].numpy() for args in everything.of("constant_made")]
    assert len(made) == 2 and made[0] == 1.0  # the ones the backward pass starts from, then the rule's
    assert made[1] == 0.0 and made[1].dtype == np.float32


def test_several_listeners_each_hear_a_report():
    first, second = Listener(), Listener()
    observers.listen(first)
    observers.listen(second)
    observers.listen(first)  # listening twice keeps one place
    try:
        assert observers.listeners()[-2:] == (first, second)
        tf.constant(1.0) + 1.0
    finally:
        observers.unlisten(first)
        observers.unlisten(second)
    assert first.kinds() == second.kinds() and first.kinds()[-1] == "op_ran" and "constant_made" in first.kinds()


# --- passive listeners and the backward pass -------------------------------------------------------------------
def _step():
    w, b = tf.Variable(0.5), tf.Variable(0.1)
    xs, ys = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([3.0, 5.0, 7.0, 9.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((w * xs + b - ys) ** 2)
    return tape, loss, [w, b]


def test_a_listener_leaves_the_backward_pass_on_arrays(listener):
    tape, loss, variables = _step()
    listener.heard.clear()
    assert STATE.tapes == [] and listener in STATE.tapes.hear.members  # a listener is no recording observer
    grads = tape.gradient(loss, variables)
    # The seed step's ops all have rules on arrays: the backward pass ran no op, so none was reported (only the
    # ones it starts from, a constant).
    assert listener.kinds() == ["constant_made", "gradients_returned"]
    assert all(g is not None for g in grads)


def test_a_recording_observer_makes_the_backward_pass_run_ops(listener):
    tape, loss, variables = _step()
    expected = [g.numpy() for g in tape_again(variables)]
    listener.heard.clear()
    watcher = Watcher()
    STATE.tapes.append(watcher)
    try:
        grads = tape.gradient(loss, variables)
    finally:
        STATE.tapes.remove(watcher)
    # Something observes ops, so the rules ran as ops: untracked, they reach the listeners.
    assert len(listener.of("op_ran")) > 3
    np.testing.assert_array_equal([g.numpy() for g in grads], expected)


def tape_again(variables):
    w, b = variables
    xs, ys = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([3.0, 5.0, 7.0, 9.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((w * xs + b - ys) ** 2)
    return tape.gradient(loss, variables)


def test_user_code_only_listeners_do_not_hear_the_backward_pass():
    user_only = Listener(user_code_only=True)
    observers.listen(user_only)
    seen = {}

    @tf.custom_gradient
    def f(x):
        def grad(g):
            seen["inside"] = user_only in STATE.tapes.hear.members
            return g * 2.0

        return x * 1.0, grad

    try:
        x = tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        user_only.heard.clear()
        tape.gradient(y, x)
        assert seen["inside"] is False and STATE.tapes.hear is STATE.tapes.listeners
        assert user_only.kinds() == ["gradients_returned"]  # the rule's Mul went unheard
    finally:
        observers.unlisten(user_only)


def test_suspend_and_resume_nest():
    token = observers.suspend()
    try:
        assert STATE.tapes.hear is STATE.tapes.listeners.quiet and provenance.LOG not in STATE.tapes.hear.members
        assert observers.suspend() is None  # quiet already: nothing to undo
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        assert tape.gradient(y, x).numpy() == 4.0
        assert STATE.tapes.hear is STATE.tapes.listeners.quiet  # a gradient() inside leaves it quiet
    finally:
        observers.resume(token)
    assert STATE.tapes.hear is STATE.tapes.listeners


def test_narrowing_the_recording_observers_keeps_the_one_hook_object(listener):
    hook = STATE.tapes
    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = tf.sin(x) * x  # JVPs are computed with the list narrowed to what is outside the accumulator
    assert acc.jvp(y) is not None
    f = tf.recompute_grad(lambda t: t * t)
    with tf.GradientTape() as tape:
        tape.watch(x)
        listener.heard.clear()
        z = f(x)  # runs with recording stopped: its Mul reaches the listeners
        assert "Mul" in [op.name for op, _, _ in listener.of("op_ran")]
    assert tape.gradient(z, x).numpy() == 4.0
    assert STATE.tapes is hook and type(hook) is Observers and hook == [] and hook.hear is hook.listeners
    assert listener in hook.hear.members


# --- assignments are effects, never recorded ---------------------------------------------------------------------
def test_tapes_do_not_record_assignments(listener):
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r = v.read_value()
        before = (len(tape._tape), set(tape._tape.tracked))
        v.assign(x)
        v.assign_add(x)
        v.assign_sub(x * 1.0)
        v[0].assign(x[0])
        v.scatter_add(tf.IndexedSlices(x[:1], tf.constant([0])))
        after = v.read_value()
    # Only the ops and reads are recorded, never the assignments themselves, and they track only what those made.
    equations = named_equations(tape)
    assert {e.op.name for e in equations} == {"ReadVariableOp", "Mul", "StridedSlice"}
    made = {e.outputs for e in equations}
    assert before[1] <= tape._tape.tracked <= before[1] | made
    assert tape.gradient(after, x) is None  # through an assignment: no gradient, as in TF
    assert tape.gradient(r, v) is not None
    assert [m for _, m, _ in listener.of("variable_assigned")] == [
        "assign", "assign_add", "assign_sub", "slice_assign", "scatter_add"]


def test_forward_accumulators_do_not_carry_tangents_through_assignments():
    v = tf.Variable(1.0)
    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = x * 3.0
        v.assign(y)
        z = v.read_value()
    assert acc.jvp(y).numpy() == 3.0
    assert acc.jvp(z) is None


# --- the hook's reference reports match the inlined ones ---------------------------------------------------------
def test_report_op_and_report_read_record_what_the_inlined_paths_record():
    x = tf.constant([1.0, 2.0])
    v = tf.Variable([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0  # execute's inlined report
        t = v.read_value()  # Variable._read's inlined report
    inlined = tape._tape.stored()
    rec = Recording()
    rec.watch(x)
    STATE.tapes.append(rec)
    try:
        observers.report_read(v, t)
        observers.report_op(REGISTRY["Mul"], (x, tf.constant(2.0)), y)
    finally:
        STATE.tapes.remove(rec)
    (mul, read), (read2, mul2) = inlined, rec.stored()
    assert read2 == read
    assert mul2[0] == mul[0] and mul2[4:7] == mul[4:7] and mul2[1] == mul[1]


def test_listening_everywhere_reaches_other_threads():
    obs = Listener()
    started, go, done = threading.Event(), threading.Event(), {}

    def worker():
        STATE.tapes.hear  # noqa: B018 - this thread's state exists before the listener is added
        started.set()
        go.wait(10)
        tf.constant(1.0) * 2.0
        done["heard"] = obs in STATE.tapes.hear.members

    t = threading.Thread(target=worker)
    t.start()
    started.wait(10)
    observers.listen(obs, everywhere=True)
    try:
        go.set()
        t.join(10)
        fresh = {}
        t2 = threading.Thread(target=lambda: fresh.setdefault("heard", obs in STATE.tapes.hear.members))
        t2.start()
        t2.join(10)
    finally:
        observers.unlisten(obs, everywhere=True)
    assert done["heard"] and fresh["heard"]
    assert "op_ran" in obs.kinds()
    assert obs not in observers.listeners()


def test_capture_off_stops_the_log_listening_on_every_thread():
    seen = {}
    with tf.debug.provenance(False):
        t = threading.Thread(target=lambda: seen.setdefault("other", provenance.LOG in STATE.tapes.hear.members))
        t.start()
        t.join(10)
        assert provenance.LOG not in STATE.tapes.hear.members and STATE.tapes.hear.op_ran is None
    assert seen["other"] is False
    assert provenance.LOG in STATE.tapes.hear.members


def test_no_module_global_switches_behaviour():
    # The log is an observer: nothing producers read is kept in its module, nor in the backward pass's.
    assert "ON" not in vars(provenance) and not hasattr(backprop, "RAW_BACKWARD")
    assert "provenance" not in dispatch.execute.__code__.co_names
    assert set(REPORTS) == {n for n in vars(type(provenance.LOG)) if n in REPORTS} | {"custom_gradient_called"}

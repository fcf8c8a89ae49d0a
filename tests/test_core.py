"""The core's guarantees that golden files cannot show: memory, depth, threads, state, provenance, structure.

Golden cases compare results with TensorFlow; these tests look inside the tape (its ``Recording``: ``records``,
``tracked``, ``roots``, ``variables``) and at the per-thread stack ``STATE.tapes``. None of them measures time.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import tracemalloc
import types
import weakref

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import provenance
from tapeflow._core.recording import Recording
from tapeflow._core.state import STATE, line_of

# --- helpers ---------------------------------------------------------------------------------------------------


def _caller_line(offset=0):
    """``"file:line"`` of the caller's line plus ``offset`` (``-1``: the line just above the call)."""
    f = sys._getframe(1)
    return f"{f.f_code.co_filename}:{f.f_lineno + offset}"


def _records(tape):
    """The records of a tape's current recording."""
    return tape._tape.equations()


def _names(tape):
    return [rec[0].name for rec in _records(tape)]


def _live_recordings():
    return [o for o in gc.get_objects() if type(o) is Recording]


@contextlib.contextmanager
def _low_recursion_limit(headroom=150):
    """Allow only ``headroom`` frames above the current depth: a recursive walk of a deep graph would fail."""
    depth, f = 0, sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + headroom)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@contextlib.contextmanager
def _tracing():
    """Trace allocations for the block (leaving an outer ``tracemalloc`` session, e.g. ``-X tracemalloc``, on)."""
    outer = tracemalloc.is_tracing()
    if not outer:
        tracemalloc.start()
    try:
        yield
    finally:
        if not outer:
            tracemalloc.stop()


def _run_threads(*targets, barrier=None):
    """Run each target in its own thread; re-raise the first exception any of them raised.

    A failing target breaks ``barrier`` so that the others stop waiting for it.
    """
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as exc:  # reported in the main thread
                errors.append(exc)
                if barrier is not None:
                    barrier.abort()

        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)  # a deadlock guard, not a speed check
        assert not t.is_alive(), "worker thread hung"
    if errors:
        raise errors[0]


@pytest.fixture(autouse=True)
def _no_tape_leaks():
    """Every test starts and ends with no active tape in this thread."""
    assert STATE.tapes == []
    yield
    leaked = list(STATE.tapes)
    STATE.tapes.clear()
    assert leaked == [], "a test left a tape on this thread's stack"


# --- 1. memory -------------------------------------------------------------------------------------------------


def test_training_loop_memory_is_flat():
    xs = tf.constant(np.linspace(-1.0, 1.0, 64, dtype=np.float32))
    ys = 3.0 * xs + 2.0
    w = tf.Variable(0.0)
    b = tf.Variable(0.0)
    sizes = {}
    # tapeflow.debug's provenance log is a fixed ring of the latest tensor ids (bounded, checked in test_explain):
    # a small ring is full by step 600, so what is measured after it is the training loop alone.
    previous = provenance.resize(1 << 9)
    with _tracing():
        for step in range(1, 1601):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((w * xs + b - ys) ** 2)
            dw, db = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * dw)
            b.assign_sub(0.1 * db)
            if step in (600, 1600):
                del tape, loss, dw, db
                gc.collect()
                sizes[step] = tracemalloc.get_traced_memory()[0]
    provenance.resize(*previous)
    growth = sizes[1600] - sizes[600]
    assert growth < 64 * 1024, f"traced memory grew by {growth} bytes between step 600 and step 1600"
    np.testing.assert_allclose([w.numpy(), b.numpy()], [3.0, 2.0], atol=1e-3)
    assert STATE.tapes == []


def _taped_intermediate(persistent):
    """``(x, y, tape, ref)``: ``ref`` is a weak reference to an intermediate's array, which only the tape still
    holds (a tape keeps values, not tensor objects)."""
    x = tf.constant([0.1, 0.5, 1.0])
    with tf.GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        h = x * x
        y = tf.reduce_sum(tf.tanh(h))
    ref = weakref.ref(h._value)
    del h
    gc.collect()
    assert ref() is not None, "the tape should hold the intermediate it saved"
    return x, y, tape, ref


def test_non_persistent_tape_frees_saved_tensors_after_gradient():
    x, y, tape, ref = _taped_intermediate(persistent=False)
    g = tape.gradient(y, x)
    gc.collect()
    assert ref() is None, "a used non-persistent tape still keeps a saved intermediate alive"
    xv = x.numpy()
    np.testing.assert_allclose(g.numpy(), 2 * xv / np.cosh(xv * xv) ** 2, rtol=1e-5)


def test_a_long_tape_holds_nothing_the_garbage_collector_scans():
    """Stored equations hold ids, strings and arrays only, and collections seal a recording's list into tuples
    (freezing attributes dicts): the collector untracks them all, so a long tape costs a full collection nothing
    per op (``benchmarks/long_tape.py`` measures the per-op cost). Sealing changes no gradient, bit for bit."""
    n = 3000

    def chain(collect):
        x = tf.constant(np.full((2, 2), 0.5, np.float32))
        c = tf.constant(np.float32(0.9999))
        v = tf.Variable(np.full((2, 2), 1e-4, np.float32))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for i in range(n):
                # A sum with attributes (axis, keepdims): sealing freezes its dict, which would keep it tracked.
                y = y * c + v + tf.reduce_sum(y, axis=0, keepdims=True) * 1e-6
                if collect and i % 1000 == 999:
                    gc.collect(1)  # a collection of an older generation seals this thread's active recordings
        return tape, y, x, v

    tape, y, x, v = chain(collect=True)
    for _ in range(5):  # a pass untracks a tuple once what it holds is untracked: nesting can take a pass per level
        gc.collect()
    rec = tape._tape
    assert len(rec.sealed) >= 3 and len(rec) == 6 * n
    assert not any(gc.is_tracked(e) for chunk in rec.sealed for e in chunk)
    assert not any(gc.is_tracked(chunk) for chunk in rec.sealed)
    eqs = rec.equations()
    assert [e.op.name for e in eqs[:6]] == ["Mul", "ReadVariableOp", "AddV2", "Sum", "Mul", "AddV2"]
    assert eqs[3].attrs == {"axis": (0,), "keepdims": True}  # thawed back into the dict the rule takes
    gx, gv = tape.gradient(y, [x, v])
    gc.disable()  # the same chain on a tape no collection seals: the same gradients, bit for bit
    try:
        tape, y, x, v = chain(collect=False)
        assert not tape._tape.sealed
        want_x, want_v = tape.gradient(y, [x, v])
    finally:
        gc.enable()
    np.testing.assert_array_equal(gx.numpy(), want_x.numpy())
    np.testing.assert_array_equal(gv.numpy(), want_v.numpy())


def test_collections_at_any_allocation_lose_no_equation():
    """A seal can come with any allocation (a collection of an older generation starts there): with collections
    made as frequent as the collector allows, a recording keeps every equation and gives the gradients of a
    recording no collection touched, bit for bit, for tensors, variables, attributes and a persistent tape
    differentiated inside its own block."""
    def run():
        x = tf.constant(np.linspace(0.1, 1.0, 6, dtype=np.float32).reshape(2, 3))
        v = tf.Variable(np.full((3,), 0.5, np.float32))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x
            for _ in range(600):
                y = tf.tanh(y * v + tf.reduce_mean(y, axis=1, keepdims=True))
            loss = tf.reduce_sum(y)
            inside = tape.gradient(loss, [x, v])
        outside = tape.gradient(loss, [x, v])
        return len(tape._tape), len(tape._tape.sealed), [g.numpy() for g in inside + outside]

    old = gc.get_threshold()
    gc.disable()
    try:
        want_len, want_seals, want = run()
    finally:
        gc.enable()
    gc.set_threshold(5, 1, 1)  # a collection of generation 1 every ten allocations or so
    try:
        got_len, got_seals, got = run()
    finally:
        gc.set_threshold(*old)
    assert got_len == want_len and want_seals == 0 and got_seals > 3
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_non_persistent_tape_keeps_only_variables_after_gradient():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    rec = weakref.ref(tape._tape)
    tape.gradient(y, v)
    gc.collect()
    assert rec() is None, "the recording of a used non-persistent tape was not released"
    assert tape.watched_variables() == (v,)


def test_persistent_tape_keeps_saved_tensors_until_deleted():
    x, y, tape, ref = _taped_intermediate(persistent=True)
    tape.gradient(y, x)
    tape.gradient(y, x)
    gc.collect()
    assert ref() is not None, "a persistent tape must keep what it recorded until it is deleted"
    del tape
    gc.collect()
    assert ref() is None, "deleting a persistent tape did not free its saved intermediate"


def test_persistent_gradient_outside_block_does_not_grow_recording():
    x = tf.constant([0.5, 1.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x * x)
    n = len(_records(tape))
    tracked = len(tape._tape.tracked)
    for _ in range(20):
        tape.gradient(y, x)
    assert len(_records(tape)) == n
    assert len(tape._tape.tracked) == tracked


def test_backward_releases_gradients_along_the_way():
    # 200 intermediates of 80 KB: a backward pass keeping every intermediate gradient would peak near 16 MB.
    size, n = 10_000, 200
    x = tf.constant(np.ones(size))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = y * 1.0001
        y = tf.reduce_sum(y)
    gc.collect()
    with _tracing():
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        g = tape.gradient(y, x)
        peak = tracemalloc.get_traced_memory()[1]
    arrays = (peak - base) / (8 * size)
    assert arrays < 10, f"backward peaked at {arrays:.1f} gradient arrays for a chain (expected a few)"
    np.testing.assert_allclose(g.numpy(), np.full(size, 1.0001**n), rtol=1e-12)


def test_provenance_does_not_keep_frames_alive():
    x = tf.constant([1.0, 2.0])

    def helper(t):
        big = tf.constant(np.zeros(1000))  # a local of the frame that ran the op, not an input of it
        out = t * t
        return out, weakref.ref(big)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y, big_ref = helper(x)
    gc.collect()
    assert big_ref() is None, "the tape keeps the user's frame (and its locals) alive"
    where = _records(tape)[0].where
    assert isinstance(where[0], types.CodeType) and isinstance(where[1], int)
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]


# --- 2. deep graphs --------------------------------------------------------------------------------------------


def test_deep_multiplication_chain():
    n = 100_000
    x = tf.constant(1.0, dtype=tf.float64)
    with _low_recursion_limit():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(n):
                y = y * 1.0000001
        assert len(_records(tape)) == n
        g = tape.gradient(y, x)
        del tape
        gc.collect()
    expected = 1.0000001**n
    assert y.numpy() == pytest.approx(expected, rel=1e-9)
    assert g.numpy() == pytest.approx(expected, rel=1e-9)


def test_deep_addition_chain_with_fan_in():
    n = 100_000
    x = tf.constant(2.0, dtype=tf.float64)
    with _low_recursion_limit():
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x
            for _ in range(n):
                y = y + x
        g = tape.gradient(y, x)
        g_mid = tape.gradient(y, x)  # a second walk over the same deep recording
        del tape
        gc.collect()
    assert y.numpy() == 2.0 * (n + 1)
    assert g.numpy() == n + 1
    assert g_mid.numpy() == n + 1


# --- 3. threads ------------------------------------------------------------------------------------------------


def test_tape_does_not_record_other_threads_ops():
    x = tf.constant(3.0)
    v = tf.Variable(2.0)
    seen = {}

    def other():
        seen["tapes"] = list(STATE.tapes)
        seen["y"] = x * x * x
        seen["z"] = v * x

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y_main = x * x
        before = len(_records(tape))
        _run_threads(other)
        after = len(_records(tape))
    assert seen["tapes"] == []
    assert after == before == 1
    assert tape.watched_variables() == (), "a variable read in another thread was watched"
    assert tape.gradient(seen["y"], x) is None
    assert tape.gradient(seen["z"], [x, v]) == [None, None]
    assert tape.gradient(y_main, x).numpy() == 6.0


def test_concurrent_tapes_in_two_threads():
    k = 200
    shared = tf.Variable(1.5)
    barrier = threading.Barrier(2, timeout=60)  # a deadlock guard, not a speed check
    results = {}

    def worker(name, c0):
        c = tf.constant(c0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(c)
            assert STATE.tapes == [tape._tape]
            y = c
            for _ in range(k):
                barrier.wait()  # lock-step: both tapes are active while the other thread records
                y = y * c
            z = y + shared * shared
            assert STATE.tapes == [tape._tape]
        names = _names(tape)
        dc, dw = tape.gradient(z, [c, shared])
        results[name] = (names, dc.numpy(), dw.numpy(), y.numpy())

    _run_threads(lambda: worker("a", 1.01), lambda: worker("b", 0.99), barrier=barrier)
    for name, c0 in (("a", 1.01), ("b", 0.99)):
        names, dc, dw, y = results[name]
        assert names.count("Mul") == k + 1
        assert names.count("ReadVariableOp") == 2
        assert len(names) == k + 4, f"thread {name}'s tape recorded another thread's ops"
        c = np.float32(c0)
        assert dc == pytest.approx((k + 1) * float(c) ** k, rel=1e-4)
        assert y == pytest.approx(float(c) ** (k + 1), rel=1e-4)
        assert dw == 3.0


# --- 4. several tapes, nesting ---------------------------------------------------------------------------------


def test_several_active_tapes_record_the_same_ops():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t1, tf.GradientTape() as t2:
        t1.watch(x)
        t2.watch(x)
        assert STATE.tapes == [t1._tape, t2._tape]
        y = x * x
        z = tf.reduce_sum(tf.exp(y))
        r1, r2 = list(_records(t1)), list(_records(t2))
        s1, s2 = list(t1._tape.stored()), list(t2._tape.stored())
    assert [r[0].name for r in r1] == [r[0].name for r in r2] == ["Mul", "Exp", "Sum"]
    for a, b in zip(s1, s2):
        assert a is b, "tapes recording the same op must share one stored equation"
    for a, b in zip(r1, r2):
        assert a.outputs == b.outputs and a.inputs == b.inputs
    g1 = t1.gradient(z, x).numpy()
    g2 = t2.gradient(z, x).numpy()
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_allclose(g1, 2 * x.numpy() * np.exp(x.numpy() ** 2), rtol=1e-6)


def test_tape_records_only_ops_on_what_it_watches():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.GradientTape() as ta, tf.GradientTape() as tb:
        ta.watch(a)
        tb.watch(b)
        _ = a * 3.0
        _ = b * 3.0
        _ = a * b
        names_a, names_b = _names(ta), _names(tb)
    assert names_a == ["Mul", "Mul"]
    assert names_b == ["Mul", "Mul"]


def test_nested_tapes_give_higher_derivatives():
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x**3
            n2, n3 = len(_records(t2)), len(_records(t3))
            d1 = t1.gradient(y, x)
            line = _caller_line(-1)
            # t1's backward pass ran while t2 and t3 were recording: both recorded it, at the gradient call.
            assert len(_records(t2)) > n2 and len(_records(t3)) > n3
            assert {line_of(r.where) for r in _records(t2)[n2:]} == {line}
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (12.0, 12.0, 6.0)


# --- 5. bad input leaves state unchanged -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [
    [1.0, 2.0, 3.0],
    [[1.0, 2.0]],
    5.0,
    tf.constant([1.0, 2.0], dtype=tf.float64),
    "abc",
    None,
    [1.0, "a"],
], ids=["longer", "rank2", "scalar", "float64_tensor", "string", "none", "mixed_list"])
def test_failed_assign_leaves_variable_unchanged(bad):
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    with pytest.raises((ValueError, TypeError)):
        v.assign(bad)
    assert v.numpy().tolist() == [1.0, 2.0]
    assert v.shape == tf.TensorShape([2]) and v.dtype == tf.float32
    assert before.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("method", ["assign_add", "assign_sub"])
@pytest.mark.parametrize("bad", [[1.0, 2.0, 3.0], 1.0, tf.constant([1.0, 1.0], dtype=tf.float64)],
                         ids=["longer", "scalar", "float64_tensor"])
def test_failed_update_leaves_variable_unchanged(method, bad):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        getattr(v, method)(bad)
    assert v.numpy().tolist() == [1.0, 2.0]
    assert v.shape == tf.TensorShape([2]) and v.dtype == tf.float32


def test_failed_assign_keeps_partially_known_shape():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape([None]))
    v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        v.assign([[1.0]])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]
    assert v.shape.as_list() == [None]


def test_failed_slice_assign_leaves_variable_unchanged():
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        v[0:2].assign([1.0, 2.0, 3.0])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]


def test_failed_assign_inside_tape_keeps_gradient():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
        n = len(_records(tape))
        with pytest.raises(ValueError):
            v.assign([1.0, 2.0, 3.0])
        assert len(_records(tape)) == n
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("bad_op", [
    lambda x: x + tf.ones([3]),
    lambda x: tf.add(x, tf.constant([1.0, 2.0], dtype=tf.float64)),
    lambda x: tf.matmul(x, x),
], ids=["shape_mismatch", "dtype_mismatch", "rank_error"])
def test_failed_op_inside_tape_leaves_tape_usable(bad_op):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        a = x * x
        n, tracked = len(_records(tape)), set(tape._tape.tracked)
        with pytest.raises(tf.errors.InvalidArgumentError):
            bad_op(x)
        assert len(_records(tape)) == n
        assert tape._tape.tracked == tracked
        assert STATE.tapes == [tape._tape]
        b = a * x
    assert _names(tape) == ["Mul", "Mul"]
    assert tape.gradient(b, x).numpy().tolist() == [3.0, 12.0]


def test_failed_gradient_call_leaves_persistent_tape_usable():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    n = len(_records(tape))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tape.gradient(y, x, output_gradients=tf.ones([3]))
    assert len(_records(tape)) == n
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]


def test_numpy_array_of_variable_does_not_alias_it():
    v = tf.Variable([1.0, 2.0])
    snapshot = v.read_value()
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    arr = np.asarray(v)
    arr[0] = 100.0
    assert v.numpy().tolist() == [1.0, 2.0]
    assert snapshot.numpy().tolist() == [1.0, 2.0]
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]


def test_numpy_view_of_tensor_is_read_only():
    # As in TF: np.asarray(tensor) is a read-only view, so a tensor (and what a tape saved) cannot be changed.
    t = tf.constant([1.0, 2.0])
    arr = np.asarray(t)
    assert not arr.flags.writeable
    with pytest.raises(ValueError):
        arr[0] = 5.0
    assert t.numpy().tolist() == [1.0, 2.0]


# --- 6. provenance ---------------------------------------------------------------------------------------------


def _where_by_name(tape):
    return [(rec[0].name, line_of(rec.where)) for rec in _records(tape)]


def test_provenance_of_operators():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = x * x
        l_mul = _caller_line(-1)
        b = 2.0 - a
        l_sub = _caller_line(-1)
        c = -b
        l_neg = _caller_line(-1)
        _ = c[0]
        l_idx = _caller_line(-1)
    assert _where_by_name(tape) == [("Mul", l_mul), ("Sub", l_sub), ("Neg", l_neg), ("StridedSlice", l_idx)]


def test_provenance_of_tf_functions():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.multiply(x, x)
        l_mul = _caller_line(-1)
        b = tf.reduce_sum(tf.exp(a))
        l_sum = _caller_line(-1)
        _ = tf.norm(x)  # a composite: every op it runs belongs to this line
        l_norm = _caller_line(-1)
    where = _where_by_name(tape)
    assert where[:3] == [("Mul", l_mul), ("Exp", l_sum), ("Sum", l_sum)]
    assert len(where) > 3 and {w for _, w in where[3:]} == {l_norm}
    assert b is not None


def test_provenance_of_variable_operators():
    v = tf.Variable([1.0, 3.0])
    m = tf.Variable([[1.0, 0.0], [0.0, 1.0]])
    with tf.GradientTape(persistent=True) as tape:
        _ = v * 2.0
        l1 = _caller_line(-1)
        _ = 2.0 * v
        l2 = _caller_line(-1)
        _ = v**2
        l3 = _caller_line(-1)
        _ = v[0]
        l4 = _caller_line(-1)
        _ = m @ tf.reshape(v, [2, 1])
        l5 = _caller_line(-1)
    assert _where_by_name(tape) == [
        ("ReadVariableOp", None), ("Mul", l1),
        ("ReadVariableOp", None), ("Mul", l2),
        ("ReadVariableOp", None), ("Pow", l3),
        ("ReadVariableOp", None), ("StridedSlice", l4),
        ("ReadVariableOp", None), ("Reshape", l5), ("ReadVariableOp", None), ("MatMul", l5),
    ]


def _square_in_helper(t):
    out = t * t
    return out, _caller_line(-1)


def test_provenance_is_the_innermost_user_frame():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        _, helper_line = _square_in_helper(x)
        y, _ = tf.nest.map_structure(lambda t: t * 2.0, (x, x))  # user code called back from tapeflow
        lambda_line = _caller_line(-1)
    assert _where_by_name(tape) == [("Mul", helper_line), ("Mul", lambda_line), ("Mul", lambda_line)]
    assert y is not None


def test_provenance_in_another_thread():
    lines = {}

    def work():
        x = tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            _ = x + x
            lines["expected"] = _caller_line(-1)
            lines["got"] = [line_of(r.where) for r in _records(tape)]

    _run_threads(work)
    assert lines["got"] == [lines["expected"]]


# --- 7. no tape, no recording ----------------------------------------------------------------------------------


def test_no_tape_records_nothing_anywhere():
    x = tf.constant([1.0, 2.0])
    v = tf.Variable([3.0, 4.0])
    with tf.GradientTape(persistent=True) as kept:  # an exited tape that watched x and v
        kept.watch(x)
        _ = v * x
    gc.collect()
    recordings = _live_recordings()
    assert any(r is kept._tape for r in recordings)
    sizes = [(len(r), len(r.tracked), len(r.variables)) for r in recordings]
    assert STATE.tapes == []
    y = tf.reduce_sum(tf.exp(x * v) + v[0] - x / 2.0)
    v.assign_add([1.0, 1.0])
    _ = y * 2.0
    assert STATE.tapes == []
    assert [(len(r), len(r.tracked), len(r.variables)) for r in recordings] == sizes
    assert len(_live_recordings()) == len(recordings), "an op outside any tape created a recording"


def test_stack_is_empty_after_every_way_out_of_a_tape():
    x = tf.constant(1.0)
    with pytest.raises(ZeroDivisionError):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _ = x * x
            raise ZeroDivisionError
    assert STATE.tapes == []

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.gradient(y, x)  # a non-persistent tape leaves the stack when differentiated inside its block
        assert STATE.tapes == []
    assert STATE.tapes == []

    with pytest.raises(KeyError):
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                raise KeyError("inside stop_recording")
    assert STATE.tapes == []

    outer = tf.GradientTape()
    with outer:
        with pytest.raises(ValueError):
            with outer:
                pass
        assert STATE.tapes == [outer._tape]
    assert STATE.tapes == []


def test_tapes_are_thread_local():
    stacks = {}

    def work():
        stacks["before"] = list(STATE.tapes)
        with tf.GradientTape() as tape:
            stacks["inside"] = list(STATE.tapes) == [tape._tape]
        stacks["after"] = list(STATE.tapes)

    with tf.GradientTape() as main:
        _run_threads(work)
        assert STATE.tapes == [main._tape]
    assert stacks == {"before": [], "inside": True, "after": []}


# --- 8. stop_recording, reset, re-entering, watched_variables --------------------------------------------------


def test_gradient_inside_stop_recording_records_nothing():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        n = len(_records(tape))
        with tape.stop_recording():
            assert tape._tape not in STATE.tapes
            g = tape.gradient(y, x)
            _ = y * 2.0
            assert len(_records(tape)) == n
        assert STATE.tapes == [tape._tape]
        z = y * 2.0
    assert len(_records(tape)) == n + 1
    assert g.numpy() == 12.0
    assert tape.gradient(z, x).numpy() == 24.0


def test_non_persistent_gradient_inside_stop_recording_then_block_end():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            g = tape.gradient(y, x)
            assert tape._tape is None
        # leaving stop_recording resumes recording on a fresh recording
        assert STATE.tapes == [tape._tape] and _records(tape) == []
    assert STATE.tapes == []
    assert g.numpy() == 4.0


def test_persistent_gradient_inside_block_is_recorded():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        n = len(_records(tape))
        g = tape.gradient(y, x)
        assert len(_records(tape)) > n, "the gradient ops were not recorded on the still-active tape"
    assert tape.gradient(g, x).numpy() == 12.0


def test_reset_empties_the_recording():
    x = tf.constant(2.0)
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _ = x * v
        old = tape._tape
        assert len(old) and old.tracked and old.roots and old.variables
        old_ref = weakref.ref(old)
        del old
        tape.reset()
        rec = tape._tape
        assert len(rec) == 0 and rec.tracked == set() and rec.roots == set() and rec.variables == {}
        assert STATE.tapes == [rec]
        _ = x * 3.0  # no longer watched: not recorded
        assert len(rec) == 0
        gc.collect()
        assert old_ref() is None, "reset kept the old recording alive"
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 4.0


def test_reset_outside_block_raises_and_changes_nothing():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    rec, n = tape._tape, len(_records(tape))
    with pytest.raises(ValueError):
        tape.reset()
    assert tape._tape is rec and len(rec) == n
    assert STATE.tapes == []
    assert tape.gradient(y, x).numpy() == 4.0


def test_reentering_continues_the_same_recording():
    x = tf.constant(2.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    rec = tape._tape
    with tape:
        z = y * x
    assert tape._tape is rec
    assert _names(tape) == ["Mul", "Mul"]
    assert tape.gradient(z, x).numpy() == 12.0
    with tape:  # a used tape starts over
        assert tape._tape is not rec and _records(tape) == []
        assert STATE.tapes == [tape._tape]


def test_watched_variables_after_use():
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = b * a
    assert tape.watched_variables() == (a, b)
    rec = weakref.ref(tape._tape)
    tape.gradient(y, [a, b])
    gc.collect()
    assert rec() is None
    assert tape.watched_variables() == (a, b)
    assert tape.watched_variables() == (a, b)  # asking twice changes nothing


def test_assign_sub_keeps_earlier_reads_as_snapshots():
    # The direct path subtracts in place only when nothing else holds the array: reads taken before stay intact.
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign_sub(tf.constant([0.5, 0.5]))
    assert before.numpy().tolist() == [1.0, 2.0]
    assert v.numpy().tolist() == [0.5, 1.5]
    s = tf.Variable(3.0)  # a rank-0 variable holds a NumPy scalar: replaced, never mutated
    held = s.read_value()
    assert s.assign_sub(tf.constant(1.0)) is not None
    assert (held.numpy(), s.numpy()) == (3.0, 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        v.assign_sub(tf.constant([1.0, 2.0, 3.0]))  # the general path reports it, and nothing changes
    assert v.numpy().tolist() == [0.5, 1.5]


def test_an_accepted_dtype_does_not_excuse_another():
    # ``execute`` remembers the dtype an op last accepted; a different one is still checked against TF's list.
    assert tf.nn.relu(tf.constant([1.0])).numpy().tolist() == [1.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
        tf.nn.relu(tf.constant([True]))
    assert tf.nn.relu(tf.constant([-1.0])).numpy().tolist() == [0.0]


def test_no_op_cast_of_a_variable_is_a_recorded_read():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        for _ in range(2):  # the second cast takes the remembered no-op path
            t = tf.cast(v, v.dtype)
        y = tf.reduce_sum(t * t)
    assert type(t).__name__ == "EagerTensor"
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError):
        tf.cast(v, "no such dtype")

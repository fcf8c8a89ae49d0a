"""The benchmark tools measure what they say: the yardstick computes tapeflow's step, the counter counts phases."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks")))
import bytecodes  # noqa: E402
import lean_step  # noqa: E402
import long_tape  # noqa: E402
import run  # noqa: E402

tf = run.tf


def test_lean_yardstick_takes_the_same_steps_as_tapeflow():
    lean_vars = []
    step, phase = lean_step._step_parts(lean_vars), [None]
    x, labels, params = run._mlp_data()
    x, labels = tf.constant(x), tf.constant(labels.astype(np.int32))
    variables = [tf.Variable(p) for p in params]
    for _ in range(3):
        step(phase)
        with tf.GradientTape() as tape:
            loss = run._mlp_loss(x, labels, variables)
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(np.float32(0.01) * g)
    for ours, theirs in zip(variables, lean_vars):
        np.testing.assert_array_equal(ours.numpy(), theirs._value)


def test_bytecode_counts_cover_the_three_phases():
    by_phase, by_function = bytecodes.count(bytecodes._seed_step(), steps=2)
    assert set(by_phase) == {"forward", "gradient", "update"}
    assert all(n > 0 for n in by_phase.values())
    assert any(name == "execute" for _, name in by_function)


def test_long_tape_records_and_frees_its_chain():
    import gc

    assert long_tape.record(50) > 0
    assert long_tape.record(50, attrs=True) > 0
    assert long_tape.per_op(20, 1, collector=False) > 0
    assert gc.isenabled()  # the collector is switched back on


def test_rnn_yardstick_takes_the_same_step_as_tapeflow():
    """The hand-written backpropagation through time of ``rnn_numpy`` updates the weights as tapeflow's tape does."""
    xs, y, params = run._rnn_data()
    variables = [tf.Variable(p) for p in params]
    wx, wh, b, wo = variables
    with tf.GradientTape() as tape:
        h = tf.zeros((run.RNN_BATCH, run.RNN_HIDDEN))
        for x in xs:
            h = tf.tanh(tf.matmul(tf.constant(x), wx) + tf.matmul(h, wh) + b)
        loss = tf.reduce_mean(tf.square(tf.matmul(h, wo) - y))
    grads = tape.gradient(loss, variables)
    by_hand = [p.copy() for p in params]
    original = run._rnn_data
    run._rnn_data = lambda: (xs, y, by_hand)
    try:
        run.rnn_numpy(1)
    finally:
        run._rnn_data = original
    for before, after, g in zip(params, by_hand, grads):
        np.testing.assert_allclose((before - after) / np.float32(0.01), g.numpy(), rtol=2e-3, atol=1e-5)


def test_peers_table_runs_every_workload(capsys, monkeypatch):
    import peers

    monkeypatch.setattr(peers, "_MEMORY", peers._MEMORY.replace("range(50)", "range(1)"))
    # (Eager jacobians count towards the process-wide retracing warnings, which golden cases check: left out.)
    monkeypatch.setattr(peers, "WORKLOADS", [w for w in peers.WORKLOADS if w[0] != "jacobian"])
    monkeypatch.setattr(sys, "argv", ["peers.py", "--steps-scale", "0.005", "--markdown"])
    peers.main()
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(" | ")
    assert header[0] == "| contender" and len(header) == len(peers.WORKLOADS) + 1
    rows = {line.split(" | ")[0][2:]: line.split(" | ")[1:] for line in lines[2:] if line.startswith("| tapeflow")}
    assert set(rows) == {"tapeflow eager", "tapeflow tf.function"}
    assert all(len(cells) == len(peers.WORKLOADS) and "x)" in cells[0] for cells in rows.values())
    imports = next(k for k, line in enumerate(lines) if line.startswith("| import |"))
    assert "tapeflow" in lines[imports] and "NumPy" in lines[imports] and lines[imports + 2].startswith("| ms |")
    memory = next(k for k, line in enumerate(lines) if line.startswith("| peak memory"))
    assert "tapeflow tf.function" in lines[memory] and lines[memory + 2].startswith("| MB |")


def test_cnn_yardstick_takes_the_same_step_as_tapeflow():
    import peer_steps  # noqa: PLC0415

    step = peer_steps.cnn_step(tf)
    step()
    by_hand = []
    peer_steps.cnn_numpy(1, by_hand)
    for ours, theirs in zip(step.variables, by_hand):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-5, atol=1e-6)


def test_jacobian_yardstick_is_the_jacobian():
    import peer_steps  # noqa: PLC0415

    jac = peer_steps.jacobian_step(tf)()
    x, w1, b1, w2, b2 = peer_steps.jac.data()
    h = np.tanh(w1 @ x + b1)
    y = np.tanh(w2 @ h + b2)
    np.testing.assert_allclose(jac.numpy(), ((1 - y * y)[:, None] * w2) @ ((1 - h * h)[:, None] * w1), rtol=1e-4,
                               atol=1e-6)


def test_rnn_graph_loop_takes_the_same_step_as_the_unrolled_one():
    unrolled = run.rnn_step(traced=True)
    looped = run.rnn_step(traced=True, graph_loop=True)
    for _ in range(2):
        unrolled()
        looped()
    for a, b in zip(unrolled.variables, looped.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_per_example_yardstick_computes_the_per_example_gradients():
    import per_example_grads  # noqa: PLC0415

    x, y, w1, b1, w2 = per_example_grads._data(6)
    _, _, grads = per_example_grads._framework(tf, x, y, w1, b1, w2, repeats=1)
    for got, want in zip(grads, per_example_grads._numpy(x, y, w1, b1, w2)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_distributed_benchmark_fits_latency_and_bandwidth():
    import distributed

    times = {s: 20e-6 + s / 2e9 for s in distributed.SIZES}
    latency, bandwidth = distributed.fit(times)
    assert abs(latency - 20e-6) < 1e-9 and abs(bandwidth / 2e9 - 1) < 1e-6

"""tf.summary: event files that TensorBoard's own reader reads as it reads TensorFlow 2.21's (the goldens of
tools/record_tensorboard_golden.py), TF's errors for bad input, and the optional extra."""

import glob
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tests import tensorboard_programs as programs

pytest.importorskip("tensorboard")
pytest.importorskip("PIL")

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "fixtures", "tensorboard")


def golden(name):
    with open(os.path.join(GOLDEN, f"{name}.json")) as f:
        return json.load(f)


def assert_values_match(got, want, where):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            assert_values_match(got[key], want[key], f"{where}.{key}")
    elif _numeric(want):
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-5, atol=1e-6,
                                   err_msg=where)
    else:
        assert got == want, where


def _numeric(value):
    """Whether ``value`` is a number or (nested) lists of numbers only."""
    if isinstance(value, list):
        return all(_numeric(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def assert_logs_match(got, want, skip=()):
    """Runs, tags, plugins (name, content), descriptions, and every event's step, dtype, shape and value; numbers
    within float32 rounding (training runs), everything else equal."""
    assert sorted(got) == sorted(want)
    for run in want:
        assert sorted(t for t in got[run] if (run, t) not in skip) == sorted(t for t in want[run]
                                                                          if (run, t) not in skip), run
        for tag, entry in want[run].items():
            if (run, tag) in skip:
                continue
            mine = got[run][tag]
            for key in ("plugin", "content", "description"):
                assert mine[key] == entry[key], (run, tag, key)
            assert [e["step"] for e in mine["events"]] == [e["step"] for e in entry["events"]], (run, tag)
            for a, b in zip(mine["events"], entry["events"]):
                assert (a["dtype"], a["shape"]) == (b["dtype"], b["shape"]), (run, tag)
                assert_values_match(a["value"], b["value"], f"{run}/{tag}@{a['step']}")


def run(name, tmp_path):
    programs.PROGRAMS[name](tf, str(tmp_path))
    return programs.read_logdir(str(tmp_path))


def test_summaries_read_by_tensorboard_as_tensorflows(tmp_path):
    assert_logs_match(run("summaries", tmp_path), golden("summaries"))


def _without_control_edges(nodes):
    """TF's nodes without what orders a function's effects (its ``NoOp`` and ``^`` inputs), which tapeflow's
    program order makes unneeded and its graphs leave out."""
    return [[name, op, [i for i in inputs if not i.startswith("^")], attrs] for name, op, inputs, attrs in nodes
            if op != "NoOp"]


def test_graphs_read_by_tensorboard_as_tensorflows(tmp_path):
    got, want = run("graphs", tmp_path), golden("graphs")
    assert sorted(got) == sorted(want)
    for run_name in (".", "ops", "indexing"):  # tf.summary.graph: nodes, edges and attributes as TF's
        assert sorted(got[run_name]) == sorted(want[run_name])
        mine, tfs = got[run_name]["__run_graph__"], want[run_name]["__run_graph__"]
        assert (mine["plugin"], [e["step"] for e in mine["events"]]) == (tfs["plugin"], [0])
        assert mine["events"][0]["value"] == _without_control_edges(tfs["events"][0]["value"]), run_name
    trace, expected = got["."]["f_trace"], want["."]["f_trace"]
    assert (trace["plugin"], trace["content"], trace["events"][0]["step"]) == (
        expected["plugin"], expected["content"], expected["events"][0]["step"])
    # TF's runtime also instantiates a function of its own (``_EagerConst``, its way of making constants); the
    # traced function's graph is TF's.
    functions = [g for g in expected["events"][0]["value"] if not all(n[1] in ("_EagerConst", "_Arg", "_Retval")
                                                                       for n in g)]
    assert trace["events"][0]["value"] == functions


def _events(logdir):
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.compat.proto import event_pb2

    files = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    assert len(files) == 1 and files[0].endswith(".v2")
    return [event_pb2.Event.FromString(r) for r in event_file_loader.RawEventFileLoader(files[0]).Load()]


def test_event_file_and_return_values(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    assert isinstance(writer, tf.summary.SummaryWriter)
    out = tf.summary.scalar("a", 1.0, step=1)
    assert out.dtype == tf.bool and not bool(out)  # no default writer: TF's False tensor
    assert not bool(tf.summary.should_record_summaries())
    with writer.as_default():
        assert bool(tf.summary.should_record_summaries())
        assert bool(tf.summary.scalar("a", 1.0, step=1))
        with tf.summary.record_if(False):
            assert not bool(tf.summary.should_record_summaries())
            assert not bool(tf.summary.scalar("b", 1.0))  # not recorded: no step needed
        assert tf.summary.flush() is None
    writer.close()
    writer.close()  # a second close does nothing, as in TF
    events = _events(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    assert [v.tag for e in events[1:] for v in e.summary.value] == ["a"]


def test_traced_function_writes_each_call(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f(x):
        with writer.as_default():
            tf.summary.scalar("value", x, step=step)
        step.assign_add(1)

    for k in range(3):
        f(tf.constant(float(k)))
    writer.close()
    events = [e for e in _events(tmp_path) if e.HasField("summary")]
    assert [e.step for e in events] == [0, 1, 2]  # the trace writes nothing itself: each call writes once


def test_no_step_and_bad_steps(tmp_path):
    with pytest.raises(ValueError, match=r"^Argument `step` must be a scalar. Received step with shape \(2,\).$"):
        tf.summary.scalar("a", 1.0, step=[1, 2])  # checked with no writer too, as in TF
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int64"):
        tf.summary.scalar("a", 1.0, step=1.5)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for call in (lambda: tf.summary.scalar("a", 1.0), lambda: tf.summary.histogram("h", [1.0]),
                     lambda: tf.summary.text("t", "x"), lambda: tf.summary.experimental.write_raw_pb(b"")):
            with pytest.raises(ValueError) as info:
                call()
            assert str(info.value) == ("No step set. Please specify one either through the `step` argument or "
                                       "through tf.summary.experimental.set_step()")
    writer.close()


def test_bad_data_raises_tensorflows_errors(tmp_path):
    with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(2,\).$"):
        tf.summary.scalar("a", [1.0, 2.0], step=1)  # with no writer too
    assert not bool(tf.summary.image("i", np.zeros((2, 2, 3)), step=1))  # checked only when recording, as TF
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(tf.errors.UnimplementedError, match="Cast string to float is not supported"):
            tf.summary.scalar("a", "x", step=1)
        with pytest.raises(TypeError, match="^tensor must be of type tf.string; got tf.int32$"):
            tf.summary.text("t", 3, step=1)
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 4.  Received rank 3, shape \(2, 2, 3\)$"):
            tf.summary.image("i", np.zeros((2, 2, 3)), step=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= 0 did not hold"):
            tf.summary.image("i", np.zeros((1, 2, 2, 3)), step=1, max_outputs=-1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="image must have 1, 2, 3, or 4 channels, got 5"):
            tf.summary.image("i", np.zeros((1, 2, 2, 5)), step=1)
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 3.  Received rank 2, shape \(2, 3\)$"):
            tf.summary.audio("s", np.zeros((2, 3)), 44100, step=1)
        with pytest.raises(ValueError, match="^Unknown encoding: 'mp3'$"):
            tf.summary.audio("s", np.zeros((1, 2, 1)), 44100, step=1, encoding="mp3")
        with pytest.raises(tf.errors.UnimplementedError, match="Cast string to double is not supported"):
            tf.summary.histogram("h", ["x"], step=1)
        with pytest.raises(TypeError, match="^tensor must be of type tf.int32; got tf.float32$"):
            tf.summary.histogram("h", [1.0], step=1, buckets=2.5)
        with pytest.raises(tf.errors.DataLossError, match="Bad tf.compat.v1.Summary binary proto tensor string at "
                                                          "index 1"):
            tf.summary.experimental.write_raw_pb([programs._raw_summary(), b"\xff\xff"], step=1)
        with pytest.raises(ValueError, match="^Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                                             "Received graph_data=3 of type int.$"):
            tf.summary.graph(3)
        with pytest.raises(ValueError, match="^Must enable trace before export through tf.summary.trace_on.$"):
            tf.summary.trace_export("x", step=1)
    writer.close()
    # Nothing of the failed writes reached the file (the raw protos are all checked before any is written).
    assert [e for e in _events(tmp_path) if e.HasField("summary")] == []


def test_writer_errors(tmp_path):
    with pytest.raises(ValueError, match="^Argument `logdir` cannot be None$"):
        tf.summary.create_file_writer(None)
    with pytest.raises(ValueError, match="^Invalid argument to flush\\(\\): 3$"):
        tf.summary.flush(3)
    blocker = tmp_path / "afile"
    blocker.write_text("")
    with pytest.raises(tf.errors.FailedPreconditionError, match="afile is not a directory"):
        tf.summary.create_file_writer(str(blocker / "sub"))
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    writer.close()
    with pytest.raises(RuntimeError, match="is already closed"):
        writer.as_default()
    assert writer.flush() is None  # flushing a closed writer does nothing, as in TF
    noop = tf.summary.create_noop_writer()
    with noop.as_default():
        assert not bool(tf.summary.scalar("a", 1.0, step=1))


def test_missing_extra_names_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(ImportError, match=r"tapeflow\[tensorboard\]"):
        tf.summary.create_file_writer(str(tmp_path))
    assert not bool(tf.summary.scalar("a", 1.0, step=1))  # no writer: works without the extra


def test_import_does_not_load_tensorboard():
    code = ("import sys, tapeflow as tf; assert not bool(tf.summary.scalar('a', 1.0, step=0)); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorboard', 'PIL')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "src")))
    assert out.stdout.strip() == "[]"


def test_traced_condition_decided_each_run(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f():
        with writer.as_default(step=step), tf.summary.record_if(lambda: step % 2 == 0):
            tf.summary.histogram("h", tf.cast(step, tf.float32) * tf.ones([3]), buckets=2)
        step.assign_add(1)

    for _ in range(5):
        f()
    writer.close()
    events = [e for e in _events(tmp_path) if e.HasField("summary")]
    assert [e.step for e in events] == [0, 2, 4]
    assert [v.metadata.plugin_data.plugin_name for e in events for v in e.summary.value] == ["histograms"] * 3


def test_summary_scope():
    with tf.name_scope("outer"):
        with tf.summary.experimental.summary_scope("a b?", "default") as (tag, scope):
            assert tag == "outer/a b?"
            assert scope == "outer/ab/"


def test_tensorboard_server_data_provider_reads_them(tmp_path):
    # What the TensorBoard server's dashboards ask for (its data provider over a multiplexer), on tapeflow's logs.
    from PIL import Image
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer

    ctx = context.RequestContext()
    programs.summaries(tf, str(tmp_path))
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(tmp_path))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(tmp_path))
    want = golden("summaries")
    assert sorted(r.run_name for r in provider.list_runs(ctx, experiment_id="")) == ["eager", "traced"]
    scalars = provider.read_scalars(ctx, experiment_id="", plugin_name="scalars", downsample=100)
    for tag in ("loss", "every_other", "raw"):
        assert [d.step for d in scalars["eager"][tag]] == [e["step"] for e in want["eager"][tag]["events"]]
        np.testing.assert_allclose([d.value for d in scalars["eager"][tag]],
                                   [e["value"] for e in want["eager"][tag]["events"]])
    assert [d.step for d in scalars["traced"]["x_squared"]] == [0, 1, 2]
    histograms = provider.read_tensors(ctx, experiment_id="", plugin_name="histograms", downsample=100)
    np.testing.assert_allclose(histograms["eager"]["normal"][1].numpy,
                               want["eager"]["normal"]["events"][1]["value"])
    images = provider.read_blob_sequences(ctx, experiment_id="", plugin_name="images", downsample=100)
    datum = images["eager"]["rgb"][0]
    assert len(datum.values) == 4  # width, height and the two images kept
    png = provider.read_blob(ctx, blob_key=datum.values[2].blob_key)
    pixels = want["eager"]["rgb"]["events"][0]["value"]["images"][0][1]
    assert np.asarray(Image.open(io.BytesIO(png))).tolist() == pixels


def test_audio_errors(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^cannot compute EncodeWav as input #0\(zero-based\) "
                           r"was expected to be a float tensor but is a double tensor \[Op:EncodeWav\] name: $"):
            tf.summary.audio("a", np.zeros((1, 4, 1)), 8000, step=0)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"sample_rate must be in \(0, 2\^32\), got: 0"):
            tf.summary.audio("a", np.zeros((1, 4, 1), "float32"), 0, step=0)
        with pytest.raises(AttributeError, match="^image dtype must be either floating point or integer$"):
            tf.summary.image("b", np.zeros((1, 2, 2, 3), bool), step=0)
    writer.close()

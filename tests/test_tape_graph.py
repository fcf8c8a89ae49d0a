"""``tapeflow.debug.tape_graph``: the graph's structure, the highlighted path, the marked breaks, and renderings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.debug import tape_graph
from tapeflow.debug.tape_graph import TapeGraph

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def no_explain(monkeypatch):
    """Render without ``explain``'s annotations, so the marks tested are tape_graph's own."""
    monkeypatch.setitem(sys.modules, "tapeflow.debug.explain", None)


def _ops(graph):
    return [n.label for n in graph.ops]


def _simple():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x + 2.0 * x
    return tape, x, y


# --- structure ------------------------------------------------------------------------------------------------
def test_structure_of_a_small_tape():
    tape, x, y = _simple()
    g = tape_graph(tape, y, x)
    assert isinstance(g, TapeGraph)
    assert _ops(g) == ["Mul", "Mul", "AddV2"]
    # Each op's inputs and outputs are edges; keys are stable short ids.
    assert len(g.edges) == 2 + 1 + 2 + 1 + 2 + 1
    assert [k for k in g.nodes if k.startswith("t")] == ["t1", "t2", "t3", "t4", "t5"]
    assert g.node("x").watched and g.node("x").is_source
    assert g.node("y").is_target and g.node("y").dtype == "float32" and g.node("y").shape == ()
    # Everything but the constant 2.0 carries gradient from x to y.
    off_path = [k for k, n in g.nodes.items() if not n.on_path]
    assert [g.nodes[k].label for k in off_path] == ["t3"]
    assert g.breaks == []
    assert g.node("x").status == "connected"
    on = [(e.src, e.dst) for e in g.edges if e.on_path]
    assert ("t1", "op1") in on and ("t3", "op2") not in on
    assert all(n.where and n.where.endswith(f"{__file__}:{_simple.__code__.co_firstlineno + 4}")
               for n in g.ops)


def test_whole_recording_nothing_highlighted():
    tape, x, y = _simple()
    g = tape_graph(tape)
    assert g.targets == [] and g.sources == []
    assert g.path == [] and g.breaks == []
    assert _ops(g) == ["Mul", "Mul", "AddV2"]
    text = str(g)
    assert "target" not in text.splitlines()[1]
    assert "*" not in "".join(line[:4] for line in text.splitlines()[2:])


def test_sources_only_highlight_what_they_reach():
    x = tf.constant([1.0, 2.0])
    z = tf.constant([5.0, 6.0])
    with tf.GradientTape() as tape:
        tape.watch([x, z])
        a = tf.sin(x)
        b = tf.cos(z)
    g = tape_graph(tape, sources=[x])
    assert set(g.path) == {g.node("x").key, g.node("Sin").key, g.node("a").key}
    assert not g.node("b").on_path
    assert a.shape == b.shape  # named in this frame, which is where tape_graph finds their labels


def test_target_only_highlights_what_feeds_it():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        a = tf.exp(x)
        b = a * 3.0
        tf.sin(x)
    g = tape_graph(tape, b)
    labels = {g.nodes[k].label for k in g.path}
    assert labels == {"x", "Exp", "a", "Mul", "b"}  # the constant 3.0 and the Sin branch stay plain


def test_names_from_the_caller_and_explicit_names():
    tape, x, y = _simple()
    g = tape_graph(tape, y, x, names={"input": x, "out": y})
    assert g.node("input").is_source and g.node("out").is_target
    assert "x" not in {n.label for n in g.nodes.values()}


# --- breaks ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, op, reason", [
    (lambda v: tf.round(v), "Round", "non_differentiable"),
    (lambda v: tf.stop_gradient(v), "StopGradient", "stop_gradient"),
    (lambda v: tf.cast(tf.cast(v, tf.int32), tf.float32), "Cast", "integer_dtype"),
    (lambda v: tf.cast(tf.argmax(v), tf.float32), "ArgMax", "non_differentiable"),
    (lambda v: tf.cast(tf.greater(v, 1.5), tf.float32), "Greater", "non_differentiable"),
])
def test_an_op_that_breaks_the_path_is_marked(make, op, reason):
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.GradientTape() as tape:
        h = w * 2.0
        loss = tf.reduce_sum(make(h) * 3.0)
    g = tape_graph(tape, loss, w)
    broken = [n for n in g.ops if n.breaks]
    assert [(n.label, n.breaks) for n in broken] == [(op, reason)]
    src = g.node("w")
    assert src.status == "disconnected" and src.on_path is False
    assert src.detail.startswith(f"stopped at {op}, ")
    assert not g.node("loss").on_path
    assert tape.gradient(loss, w) is None  # the picture agrees with the tape


def test_a_break_on_a_side_branch_of_a_connected_source_is_not_marked():
    w = tf.Variable([1.0, 3.0], name="w")
    with tf.GradientTape(persistent=True) as tape:
        h = w * 2.0
        best = tf.argmax(h)  # a metric: no gradient needed
        loss = tf.reduce_sum(h)
    g = tape_graph(tape, loss, w)
    assert g.node("w").status == "connected"
    assert g.node("ArgMax").breaks is None
    assert not g.node("ArgMax").differentiable
    # Without a target, every break reached from a source is shown.
    assert tape_graph(tape, sources=w).node("ArgMax").breaks == "non_differentiable"
    del best


def test_a_break_feeding_the_target_is_marked_even_for_a_connected_source():
    w = tf.Variable([1.0, 3.0], name="w")
    with tf.GradientTape() as tape:
        h = w * 2.0
        loss = tf.reduce_sum(h) + tf.reduce_sum(tf.round(h))
    g = tape_graph(tape, loss, w)
    assert g.node("w").status == "connected"
    assert g.node("Round").breaks == "non_differentiable"
    # An integer result is not tracked, so what uses it is not recorded: the tape cannot tell an argmax that
    # feeds the target from one in a metric, and a connected source's argmax stays unmarked.


def test_value_that_left_the_tape_ends_its_path():
    b = tf.Variable(0.5, name="b")
    w = tf.Variable(2.0, name="w")
    with tf.GradientTape() as tape:
        shift = float((b * 2.0).numpy())
        loss = w * 3.0 + shift
    g = tape_graph(tape, loss, [w, b])
    assert g.node("b").status == "disconnected"
    dead = [n for n in g.nodes.values() if n.dead_end]
    assert len(dead) == 1 and dead[0].kind == "tensor" and dead[0].where == g.ops[0].where
    assert g.node("b").detail == f"stopped at {dead[0].label}, {os.path.basename(dead[0].where)}"
    assert g.node("w").status == "connected" and g.node("loss").on_path


def test_unwatched_constant_and_unused_and_unrecorded():
    c = tf.constant(3.0)
    x = tf.constant(1.0)
    unused = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([x, unused])
        y = c * x
    g = tape_graph(tape, y, [c, x, unused])
    assert g.node("c").status == "not_watched" and not g.node("c").on_path
    assert g.node("x").status == "connected"
    assert g.node("unused").status == "reaches_nothing"
    assert not any(e.src == g.node("unused").key or e.dst == g.node("unused").key for e in g.edges)
    # A target computed off the tape is a lone node, marked.
    with tf.GradientTape() as tape2:
        z = c * c
    g2 = tape_graph(tape2, z, c)
    assert _ops(g2) == []
    assert g2.node("z").status == "not_recorded" and g2.node("c").status == "not_watched"
    assert "nothing recorded" in str(g2)


# --- variables and tapes --------------------------------------------------------------------------------------
def test_variables_are_labelled_by_name_and_reads_are_folded():
    v = tf.Variable([1.0, 2.0], name="weights")
    frozen = tf.Variable(4.0, name="frozen", trainable=False)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v) * frozen
    g = tape_graph(tape, y, [v, frozen])
    assert "ReadVariableOp" not in _ops(g)
    weights = g.node("weights")
    assert weights.kind == "variable" and weights.shape == (2,) and weights.on_path
    # v was read twice (v * v): one node, two edges into Mul.
    mul = g.node("Mul")
    assert [e.src for e in g.edges if e.dst == mul.key] == [weights.key, weights.key]
    # A non-trainable variable is never watched: its value enters as a plain input, and the source is cut off.
    assert g.node("frozen").kind == "variable" and not g.node("frozen").trainable
    assert g.node("frozen").status == "not_watched"
    assert "variable (not trainable)" in str(g)


def test_persistent_tape_with_gradient_ops_recorded():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    g = tape_graph(outer, dy, x)
    assert len(g.ops) > 2  # the forward ops and the gradient's own ops
    assert g.node("x").status == "connected" and g.node("dy").on_path
    assert outer.gradient(dy, x).numpy() == pytest.approx(12.0)
    assert str(tape_graph(outer, dy, x)) == str(g)  # still there after a gradient on a persistent tape


def test_after_gradient_on_a_non_persistent_tape():
    w = tf.Variable(2.0, name="w")
    with tf.GradientTape() as tape:
        y = tf.round(w * 3.0) + w
    live = tape_graph(tape, y, w)
    assert tape.gradient(y, w).numpy() == pytest.approx(1.0)
    if getattr(tape, "_skeleton", None) is None:
        pytest.skip("this tape keeps no skeleton after gradient() yet (the explain work adds it)")
    after = tape_graph(tape, y, w)
    assert str(after) == str(live)
    # w is connected through the second term; Round is still marked, since its output feeds the target.
    assert after.node("w").on_path and after.node("w").status == "connected"
    assert after.node("Round").breaks == "non_differentiable"


def test_a_tape_never_entered_is_an_error():
    with pytest.raises(ValueError, match="recorded nothing"):
        tape_graph(tf.GradientTape())


# --- renderings -----------------------------------------------------------------------------------------------
def _mistakes():
    w = tf.Variable(2.0, name="w")
    b = tf.Variable(0.5, name="b")
    k = tf.Variable([1.0, 2.0], name="k")
    c = tf.constant(4.0)
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        h = w * x
        r = tf.round(k * x)
        shift = float((b * 2.0).numpy())
        loss = tf.reduce_sum(h * c + r + shift)
    # Built here, so the labels come from this frame's names.
    return tape, loss, [w, b, k, c], tape_graph(tape, loss, [w, b, k, c])


_DOT_NODE = re.compile(r'^  (\w+) \[(.*)\];$')
_DOT_EDGE = re.compile(r'^  (\w+) -> (\w+)( \[.*\])?;$')


def test_dot_text_is_well_formed():
    tape, loss, sources, g = _mistakes()
    dot = g.to_dot()
    lines = dot.rstrip("\n").split("\n")
    assert lines[0] == "digraph tape {" and lines[-1] == "}"
    declared, edges = [], []
    for line in lines[1:-1]:
        if m := _DOT_NODE.match(line):
            if m.group(1) in ("graph", "node", "edge"):
                continue
            declared.append(m.group(1))
            # Every quoted string is closed: no unescaped quote inside.
            assert re.fullmatch(r'(\w+=("(\\.|[^"\\])*"|[\w.]+)(, )?)+', m.group(2)), line
        elif m := _DOT_EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert line.startswith("  label="), line
    assert declared == list(g.nodes)
    assert edges == [(e.src, e.dst) for e in g.edges]
    assert 'label="Round\\ndemo' not in dot and "✗ non-differentiable" in dot
    assert "peripheries=2" in dot  # the target


def test_dot_escapes_quotes_and_backslashes():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    dot = tape_graph(tape, y, x, names={'a "quoted" \\ name': x}).to_dot()
    assert 'label="a \\"quoted\\" \\\\ name (source)\\nfloat32[]"' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_accepts_the_dot_text():
    tape, loss, sources, g = _mistakes()
    done = subprocess.run(["dot", "-Tsvg"], input=g.to_dot(), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    svg = g.to_svg(engine="dot")
    assert ET.fromstring(svg.encode()).tag == f"{SVG}svg"
    assert "Round" in svg and g.to_svg() == svg  # "auto" uses dot when it is there


def test_engine_dot_without_graphviz_is_an_error_and_auto_falls_back(monkeypatch):
    tape, x, y = _simple()
    g = tape_graph(tape, y, x)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="not on PATH"):
        g.to_svg(engine="dot")
    assert g.to_svg() == g.to_svg(engine="builtin")
    with pytest.raises(ValueError, match="engine"):
        g.to_svg(engine="png")


def _svg_texts(root):
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_builtin_svg_parses_and_shows_every_op(no_explain):
    tape, loss, sources, g = _mistakes()
    svg = g.to_svg(engine="builtin")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    groups = [e for e in root.iter(f"{SVG}g") if "node" in e.get("class", "").split()]
    assert [e.get("id") for e in groups] == list(g.nodes)
    texts = _svg_texts(root)
    for op in g.ops:
        assert op.label in texts
    assert "✗ non-differentiable" in texts and "✗ path ends here" in texts and "✗ not watched" in texts
    assert sum(1 for e in root.iter(f"{SVG}g") if e.get("class") == "edge") == len(g.edges)
    # Nodes on the path and the marked ones carry their classes; boxes do not overlap within a row.
    assert {e.get("id") for e in groups if "path" in e.get("class")} == set(g.path)
    assert {e.get("id") for e in groups if "break" in e.get("class")} == set(g.breaks)
    boxes = [(float(r.get("x")), float(r.get("y")), float(r.get("width"))) for r in root.iter(f"{SVG}rect")][1:]
    for i, (x0, y0, w0) in enumerate(boxes):
        for x1, y1, w1 in boxes[i + 1:]:
            if abs(y0 - y1) < 1:
                assert x0 + w0 <= x1 or x1 + w1 <= x0
    assert g._repr_svg_().startswith("<")


def test_builtin_svg_of_a_larger_graph():
    x = tf.constant(np.linspace(0.1, 1.0, 6).reshape(2, 3))
    w1 = tf.Variable(np.ones((3, 4)), name="w1")
    w2 = tf.Variable(np.ones((4, 1)), name="w2")
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, w1))
        parts = tf.unstack(h, axis=1)
        out = tf.matmul(tf.stack(parts[:2] + parts[2:], axis=1), w2)
        loss = tf.reduce_mean(tf.square(out - 1.0))
    g = tape_graph(tape, loss, [w1, w2])
    unpack = g.node("Unpack")
    assert sum(1 for e in g.edges if e.src == unpack.key) == 4  # one node per output of a multi-output op
    root = ET.fromstring(g.to_svg(engine="builtin"))
    texts = _svg_texts(root)
    assert all(op.label in texts for op in g.ops)
    assert "float64[2,4]" in texts
    assert g.node("w1").status == g.node("w2").status == "connected"


def test_text_rendering(no_explain):
    tape, loss, sources, g = _mistakes()
    text = g.to_text()
    lines = text.splitlines()
    assert lines[0] == "Tape graph: 8 ops, 12 tensors, 3 variables"
    assert lines[1] == "target: loss   sources: w, b, k, c"
    row = {line.split()[1]: line for line in lines if line.startswith("  ") and len(line.split()) > 1}
    assert row["w"].startswith("  * w") and "reaches the target" in row["w"]
    assert "does not reach the target (stopped at Round, test_tape_graph.py:" in row["k"]
    assert "not watched" in row["c"]
    round_row = next(line for line in lines if "= Round(" in line)
    assert round_row.startswith("  x r = Round(t3)") and "non-differentiable" in round_row
    assert "float32[2]" in round_row and "test_tape_graph.py:" in round_row
    assert lines[-1].startswith("  * loss") and lines[-2] == "targets"
    # Called from here, the tensors named only in _mistakes() get short ids; the structure is the same.
    here = str(tape_graph(tape, loss, sources))
    assert "sources: w, b, k, t7" in here and "t4 = Round(t3)" in here


# --- explain annotation -------------------------------------------------------------------------------------
def test_sources_with_none_gradient_get_explains_cause(monkeypatch):
    calls = []

    class Why:
        def __init__(self, cause, where):
            self.cause, self.where = cause, where

        def __str__(self):
            return f"because {self.cause}"

    def explain(tape, target, source):
        calls.append(source)
        return Why("left_tape", "/somewhere/model.py:7") if source is b else Why("connected", None)

    fake = types.ModuleType("tapeflow.debug.explain")
    fake.explain = explain
    monkeypatch.setitem(sys.modules, "tapeflow.debug.explain", fake)
    w = tf.Variable(2.0, name="w")
    b = tf.Variable(1.0, name="b")
    with tf.GradientTape() as tape:
        shift = float((b * 2.0).numpy())
        loss = w * 3.0 + shift
    g = tape_graph(tape, loss, [w, b])
    assert calls == [b]  # only sources the graph finds cut off are explained
    node = g.node("b")
    assert (node.cause, node.cause_where) == ("left_tape", "/somewhere/model.py:7")
    assert node.explanation == "because left_tape"
    assert node.notes == ["✗ left_tape", "at model.py:7"]
    assert "left_tape at model.py:7: because left_tape" in str(g)

    def broken(tape, target, source):
        raise RuntimeError("boom")

    fake.explain = broken
    g = tape_graph(tape, loss, [w, b])
    assert g.warnings == ["explain() failed for b: RuntimeError: boom"]
    assert str(g).endswith("warning: explain() failed for b: RuntimeError: boom")


def test_real_explain_annotates_when_present():
    pytest.importorskip("tapeflow.debug.explain")
    c = tf.constant(3.0)
    x = tf.constant(1.0)
    b = tf.Variable(0.5, name="b")
    with tf.GradientTape() as tape:
        tape.watch(x)
        shift = float((b * 2.0).numpy())
        y = c * x + shift
    g = tape_graph(tape, y, [x, c, b])
    assert g.node("x").cause is None  # connected: explain is not asked
    assert g.node("c").cause == "not_watched" and "watch" in g.node("c").explanation
    assert g.node("b").cause == "left_tape"
    assert g.node("b").cause_where == f"{__file__}:{sys._getframe().f_lineno - 6}"
    texts = _svg_texts(ET.fromstring(g.to_svg(engine="builtin")))
    assert "✗ left_tape" in texts and "✗ not_watched" in texts


# --- docs -----------------------------------------------------------------------------------------------------
def test_docs_example_is_current():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import write_tape_graph_example as tool  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    fresh = ET.fromstring(tool.render())
    with open(os.path.join(ROOT, "docs", "tape_graph_example.svg"), encoding="utf-8") as f:
        committed = ET.fromstring(f.read())

    def firsts(root):  # each node's id and first line: stable while explain's wording evolves
        return [(g.get("id"), _svg_texts(g)[0]) for g in root.iter(f"{SVG}g") if "node" in g.get("class", "")]

    assert firsts(committed) == firsts(fresh)
    ns = tool.run_example()
    graph = ns["graph"]
    assert graph.node("b").status == "disconnected" and graph.node("scale").status == "not_watched"
    assert [n for n in graph.nodes.values() if n.dead_end][0].where == "example.py:10"
    assert ns["grads"][1] is None and ns["grads"][2] is None

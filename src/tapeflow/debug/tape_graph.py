"""``tapeflow.debug.tape_graph``: a tape's recording as a picture (Graphviz DOT or SVG) or as an indented listing.

The graph is built from the tape's :class:`~tapeflow._core.skeleton.Skeleton` (op names, tensor ids, dtypes, shapes
and the user's lines; no arrays), so it works on a live tape and, like ``explain``, after a non-persistent
``gradient()``. Ops are boxes, tensors and variables ellipses. Variable reads are folded into the variable's node,
so one variable is one node however often it was read.

Given a ``target`` and ``sources``, the graph highlights every op and tensor that carries gradient from a source to
the target, and marks what breaks a path: an op reached from a source through which no gradient can flow (it has no
gradient rule, it is ``StopGradient``, or its output is an integer or bool), a value where a source's path ends
without reaching the target (typically where it left the tape through ``.numpy()``), a source that reaches nothing
or was never watched, and a target the tape never recorded. When ``tapeflow.debug.explain`` is available, each source
whose gradient is ``None`` is annotated with its cause and the user's line.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import NamedTuple

from .._core import nest
from .._core.skeleton import skeleton_of_tape
from .._core.state import line_of

__all__ = ["tape_graph", "TapeGraph", "GraphNode", "GraphEdge"]

# dtypes through which gradients flow (TF's floating and complex types).
_TRAINABLE = frozenset({"float16", "bfloat16", "float32", "float64", "complex64", "complex128"})

# What breaks a path, in words (the codes match ``explain``'s causes where they mean the same thing).
_BREAK_TEXT = {
    "non_differentiable": "non-differentiable",
    "stop_gradient": "stop_gradient",
    "integer_dtype": "integer output",
}
_STATUS_TEXT = {
    "connected": "reaches the target",
    "disconnected": "does not reach the target",
    "reaches_nothing": "reaches nothing",
    "not_watched": "not watched",
    "not_recorded": "not recorded on this tape",
    "recorded": "recorded",
}


@dataclass
class GraphNode:
    """One node: an op (``kind="op"``), a tensor or a variable.

    ``key`` is stable within one graph (``op3``, ``t5``, ``v1``); ``label`` is what the user recognises: an op's
    name, a variable's name, the name a tensor has in the caller's code, or its short id. ``where`` is the user's
    ``"file:line"`` that ran an op (for a tensor: the op that made it). ``breaks`` names why gradient stops at an
    op (``"non_differentiable"``, ``"stop_gradient"``, ``"integer_dtype"``); ``status`` says what a source (or an
    unrecorded target) reaches; ``cause``, ``cause_where`` and ``explanation`` come from
    ``tapeflow.debug.explain`` for a source whose gradient is ``None``; ``detail`` says where a cut-off source's
    path stops (``"stopped at Round, model.py:12"``).
    """

    key: str
    kind: str
    label: str
    dtype: str | None = None
    shape: tuple | None = None
    where: str | None = None
    differentiable: bool = True
    watched: bool = False
    trainable: bool = True
    is_source: bool = False
    is_target: bool = False
    on_path: bool = False
    breaks: str | None = None
    dead_end: bool = False
    status: str | None = None
    cause: str | None = None
    cause_where: str | None = None
    explanation: str | None = None
    detail: str | None = None

    @property
    def type_text(self):
        """``"float32[3,4]"`` (tensors and variables), ``""`` for ops."""
        if self.dtype is None:
            return ""
        return f"{self.dtype}[{','.join(str(d) for d in self.shape or ())}]"

    @property
    def notes(self):
        """The short marks drawn under the label (what breaks, what a source or target reaches)."""
        out = []
        if self.breaks:
            out.append(f"✗ {_BREAK_TEXT[self.breaks]}")
        if self.dead_end:
            out.append("✗ path ends here")
        if self.status in ("disconnected", "reaches_nothing", "not_watched", "not_recorded"):
            out.append(f"✗ {self.cause or _STATUS_TEXT[self.status]}")
            if self.cause_where:
                out.append(f"at {short_where(self.cause_where)}")
            elif self.detail and not self.cause:
                out.append(self.detail)
        return out


class GraphEdge(NamedTuple):
    """``src -> dst`` (keys): a tensor into the op that used it, or an op to its output.

    ``differentiable`` is whether gradient can flow along it; ``on_path`` whether it lies on a highlighted path.
    """

    src: str
    dst: str
    differentiable: bool
    on_path: bool


def short_where(where):
    """``"file.py:12"``: the base name of a ``"path/file.py:12"`` provenance string (``None`` stays ``None``)."""
    if where is None:
        return None
    path, _, line = where.rpartition(":")
    return f"{os.path.basename(path)}:{line}" if path else where


class TapeGraph:
    """A tape's recording as a graph: render with :meth:`to_dot`, :meth:`to_svg` or :meth:`to_text` (``str()``).

    Attributes:
        nodes: ``{key: GraphNode}`` in program order (a topological order).
        edges: list of :class:`GraphEdge`.
        targets, sources: the keys of the target(s) and sources given to :func:`tape_graph` (empty when omitted).
        warnings: problems met while annotating (an ``explain`` call that failed), shown in the text rendering.
    """

    def __init__(self, nodes, edges, targets, sources, warnings=()):
        self.nodes = nodes
        self.edges = edges
        self.targets = list(targets)
        self.sources = list(sources)
        self.warnings = list(warnings)

    # --- queries -------------------------------------------------------------------------------------------
    @property
    def ops(self):
        """The op nodes in program order."""
        return [n for n in self.nodes.values() if n.kind == "op"]

    @property
    def path(self):
        """Keys of the highlighted nodes (on a path from a source to the target)."""
        return [k for k, n in self.nodes.items() if n.on_path]

    @property
    def breaks(self):
        """Keys of the marked nodes: ops that break a path, dead ends, and sources or targets that are cut off."""
        return [k for k, n in self.nodes.items() if n.notes]

    def node(self, label):
        """The first node whose label (or key) is ``label``."""
        for n in self.nodes.values():
            if n.label == label or n.key == label:
                return n
        raise KeyError(label)

    def __repr__(self):
        kinds = [n.kind for n in self.nodes.values()]
        return (f"<TapeGraph: {kinds.count('op')} ops, {kinds.count('tensor')} tensors, "
                f"{kinds.count('variable')} variables, {len(self.path)} highlighted, {len(self.breaks)} marked>")

    # --- renderings ----------------------------------------------------------------------------------------
    def to_text(self):
        """An indented listing for a terminal: sources, ops in program order, targets; ``*`` highlighted,
        ``x`` marked."""
        from ._graph_text import render_text  # noqa: PLC0415

        return render_text(self)

    __str__ = to_text

    def to_dot(self):
        """Graphviz DOT text (``dot -Tsvg`` or ``-Tpng`` draws it)."""
        from ._graph_text import render_dot  # noqa: PLC0415

        return render_dot(self)

    def to_svg(self, engine="auto"):
        """SVG text. ``engine``: ``"dot"`` (Graphviz's executable, an error when it is missing), ``"builtin"``
        (tapeflow's own layered layout, needs nothing) or ``"auto"`` (``dot`` when on PATH, else built in)."""
        if engine not in ("auto", "dot", "builtin"):
            raise ValueError(f"engine must be 'auto', 'dot' or 'builtin', got {engine!r}")
        if engine != "builtin":
            exe = shutil.which("dot")
            if exe is None and engine == "dot":
                raise RuntimeError("Graphviz's `dot` executable is not on PATH; use engine='builtin'.")
            if exe is not None:
                done = subprocess.run([exe, "-Tsvg"], input=self.to_dot(), capture_output=True, text=True,
                                      timeout=60, check=False)
                if done.returncode == 0:
                    return done.stdout
                if engine == "dot":
                    raise RuntimeError(f"dot failed: {done.stderr.strip()}")
        from ._svg_layout import render_svg  # noqa: PLC0415

        return render_svg(self)

    def _repr_svg_(self):
        return self.to_svg()


# --- building ----------------------------------------------------------------------------------------------
def _obj_info(obj):
    v = obj._value
    return getattr(v, "dtype", None) and v.dtype.name, tuple(getattr(v, "shape", ()))


def _caller_names(frame):
    """``{id: name}`` for the tensors and variables bound to names in the caller's frame."""
    out = {}
    if frame is None:
        return out
    for name, value in list(frame.f_locals.items()):
        if name.startswith("_"):
            continue
        ident = getattr(value, "_id", None)
        if type(ident) is int and (hasattr(value, "_value")):
            out.setdefault(ident, name)
    return out


def tape_graph(tape, target=None, sources=None, *, names=None):
    """The recording of ``tape`` as a :class:`TapeGraph` (tapeflow's own tool; TensorFlow has none).

    Args:
        tape: a ``GradientTape``, live or after ``gradient()`` (a non-persistent tape keeps its skeleton).
        target: a tensor or variable, or a nested structure of them; with ``sources``, the path between them is
            highlighted and what breaks it is marked. ``None``: the whole recording, nothing highlighted.
        sources: a tensor or variable, or a nested structure of them.
        names: ``{name: tensor_or_variable}`` labels for tensors; by default the names they have in the calling
            function (a tensor no name points to is shown by a short id: ``t1``, ``t2``...).

    Example::

        with tf.GradientTape() as tape:
            y = tf.round(w * x) + b
        print(tapeflow.debug.tape_graph(tape, y, [w, b]))   # Round marked as the break for w
        tapeflow.debug.tape_graph(tape, y, [w, b]).to_svg()
    """
    skel = skeleton_of_tape(tape)
    flat_targets = [] if target is None else nest.flatten(target)
    flat_sources = [] if sources is None else nest.flatten(sources)
    if names is None:
        labels = _caller_names(sys._getframe(1))
    else:
        labels = {obj._id: name for name, obj in names.items()}
    builder = _Builder(skel, labels)
    builder.build()
    graph = builder.finish(flat_targets, flat_sources)
    if flat_targets and flat_sources:
        _annotate_with_explain(graph, tape, target, flat_sources, builder)
    return graph


class _Builder:
    """Turns a skeleton into nodes and edges, then computes the highlighted path and the breaks."""

    def __init__(self, skel, labels):
        self.skel = skel
        self.labels = labels
        self.nodes = {}
        self.edges = []  # (src, dst, differentiable)
        self.key_of = {}  # tensor or variable id -> node key
        self.tracked = set()  # keys of values the tape tracked (watched, or made by a recorded op)
        self.used_labels = set()
        self.counts = {"t": 0, "v": 0, "op": 0}

    def _label(self, wanted, key):
        label = wanted if wanted not in self.used_labels else f"{wanted} ({key})"
        self.used_labels.add(label)
        return label

    def _new_key(self, prefix):
        self.counts[prefix] += 1
        return f"{prefix}{self.counts[prefix]}"

    def value_node(self, ident, dtype, shape, obj=None):
        key = self.key_of.get(ident)
        if key is not None:
            return key
        skel = self.skel
        if ident in skel.variables or (obj is not None and getattr(obj, "_tapeflow_variable", False)):
            key = self._new_key("v")
            if ident in skel.variables:
                name, trainable = skel.variables[ident]
            else:
                name, trainable = obj.name, bool(obj.trainable)
            name = name[:-2] if name.endswith(":0") else name
            node = GraphNode(key, "variable", self._label(name, key), dtype, shape, trainable=trainable,
                             watched=ident in skel.roots)
        else:
            key = self._new_key("t")
            node = GraphNode(key, "tensor", self._label(self.labels.get(ident, key), key), dtype, shape,
                             watched=ident in skel.roots)
        if node.watched:
            self.tracked.add(key)
        self.nodes[key] = node
        self.key_of[ident] = key
        return key

    def build(self):
        for rec in self.skel.nodes:
            op = rec.op
            if op.name == "ReadVariableOp" and rec.inputs and rec.inputs[0][0] in self.skel.variables:
                vkey = self.value_node(*rec.inputs[0])
                self.key_of.setdefault(rec.outputs[0][0], vkey)
                continue
            in_keys = [self.value_node(*t) for t in rec.inputs]
            okey = self._new_key("op")
            differentiable = op.vjp is not None
            self.nodes[okey] = GraphNode(okey, "op", op.name, where=line_of(rec.where), differentiable=differentiable)
            for k in in_keys:
                self.edges.append((k, okey, differentiable and self.nodes[k].dtype in _TRAINABLE))
            where = self.nodes[okey].where
            for ident, dtype, shape in rec.outputs:
                k = self.value_node(ident, dtype, shape)
                if self.nodes[k].where is None:
                    self.nodes[k].where = where  # a value's line is the line that made it
                carries = dtype in _TRAINABLE
                if carries:
                    self.tracked.add(k)
                self.edges.append((okey, k, differentiable and carries))

    def _ensure(self, obj):
        """The key of a target or source, adding a lone node when the recording never saw it."""
        key = self.key_of.get(obj._id)
        if key is None:
            dtype, shape = _obj_info(obj)
            key = self.value_node(obj._id, dtype, shape, obj)
        return key

    def finish(self, flat_targets, flat_sources):
        target_keys = [self._ensure(t) for t in flat_targets]
        source_keys = [self._ensure(s) for s in flat_sources]
        nodes = self.nodes
        succ_diff, pred_diff, succ_all, pred_all = {}, {}, {}, {}
        for src, dst, diff in self.edges:
            succ_all.setdefault(src, []).append(dst)
            pred_all.setdefault(dst, []).append(src)
            if diff:
                succ_diff.setdefault(src, []).append(dst)
                pred_diff.setdefault(dst, []).append(src)

        for k in target_keys:
            nodes[k].is_target = True
        for k in source_keys:
            nodes[k].is_source = True

        bwd = set()
        for k in target_keys:
            bwd |= _reach(k, pred_diff)
        # Gradient reaches only what the tape tracked: untracked constants feeding an op stay off the path.
        bwd = {k for k in bwd if nodes[k].kind == "op" or k in self.tracked}
        bwd_all = set()
        for k in target_keys:
            bwd_all |= _reach(k, pred_all)

        fwd_of = {k: (_reach(k, succ_diff) if k in self.tracked else set()) for k in source_keys}
        fwd = set().union(*fwd_of.values()) if fwd_of else set()
        if target_keys and source_keys:
            path = fwd & bwd
        else:
            path = fwd or bwd
        for k in path:
            nodes[k].on_path = True

        for k in target_keys:
            if not pred_all.get(k) and k not in self.tracked:
                nodes[k].status = "not_recorded"
        for k, reach in fwd_of.items():
            node = nodes[k]
            connected = bool(target_keys) and bool(reach & set(target_keys))
            if k not in self.tracked:
                node.status = "not_watched"
            elif not succ_all.get(k) and not (node.is_target and connected):
                node.status = "reaches_nothing"
            elif not target_keys:
                node.status = "recorded"
            else:
                node.status = "connected" if connected else "disconnected"
            stops = self._mark_breaks(reach, connected, bool(target_keys), succ_all, bwd_all)
            if target_keys and not connected and node.status == "disconnected":
                for t in reach:
                    if t != k and nodes[t].kind != "op" and not succ_all.get(t) and not nodes[t].is_target:
                        nodes[t].dead_end = True
                        stops.append(t)
                node.detail = "stopped at " + "; ".join(
                    nodes[t].label + (f", {short_where(nodes[t].where)}" if nodes[t].where else "")
                    for t in sorted(stops, key=list(nodes).index)) if stops else None

        edges = [GraphEdge(s, d, diff, s in path and d in path) for s, d, diff in self.edges]
        return TapeGraph(nodes, edges, target_keys, source_keys)

    def _mark_breaks(self, reach, connected, has_target, succ_all, bwd_all):
        """Mark ops reached from a source that let no gradient through.

        For a source that does reach the target, only a break whose output still feeds the target is worth
        showing (an ``argmax`` inside a metric is not); for one that does not, every break is a candidate cause.
        """
        nodes = self.nodes
        candidates = {}
        for k in reach:
            if nodes[k].kind == "op":
                if not any(o in reach for o in succ_all.get(k, ())):
                    # A gradient rule, but none of its outputs carries gradient (an integer or bool result).
                    candidates[k] = "integer_dtype"
                continue
            for op_key in succ_all.get(k, ()):
                op = nodes[op_key]
                if op_key not in reach and not op.differentiable:
                    candidates[op_key] = "stop_gradient" if op.label == "StopGradient" else "non_differentiable"
        marked = []
        for op_key, reason in candidates.items():
            if has_target and connected and not any(o in bwd_all for o in succ_all.get(op_key, ())):
                continue
            nodes[op_key].breaks = reason
            marked.append(op_key)
        return marked


def _reach(start, adjacency):
    seen = {start}
    stack = [start]
    while stack:
        for nxt in adjacency.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _annotate_with_explain(graph, tape, target, flat_sources, builder):
    """Attach ``explain``'s cause to each source whose gradient is None (when that helper exists)."""
    try:
        module = importlib.import_module("tapeflow.debug.explain")
    except ImportError:
        return
    explain = getattr(module, "explain", None)
    if explain is None:
        return
    for obj, key in zip(flat_sources, graph.sources):
        node = graph.nodes[key]
        if node.status in ("connected", None):
            continue
        try:
            why = explain(tape, target, obj)
        except Exception as exc:  # noqa: BLE001 - an annotation must not hide the picture; the failure is shown
            graph.warnings.append(f"explain() failed for {node.label}: {type(exc).__name__}: {exc}")
            continue
        cause = getattr(why, "cause", None)
        if cause == "connected":
            continue
        node.cause = cause
        node.cause_where = getattr(why, "where", None)
        node.explanation = str(why)

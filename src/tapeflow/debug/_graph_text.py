"""Text renderings of a :class:`~tapeflow.debug.tape_graph.TapeGraph`: the terminal listing and Graphviz DOT."""

from __future__ import annotations

import os

from .tape_graph import _BREAK_TEXT, _STATUS_TEXT, short_where

# Colours shared with the built-in SVG renderer (``_svg_layout``), so both pictures read the same.
PATH = "#1d5fa8"
PATH_FILL = "#dcebfb"
BREAK = "#c0262d"
BREAK_FILL = "#fde3e3"
PLAIN = "#6b6b6b"
OP_FILL = "#f3f3f3"
VALUE_FILL = "#ffffff"
VARIABLE_FILL = "#fff3d1"
EDGE = "#a3a3a3"


def style_of(node):
    """``(stroke, fill, dashed, width)`` for a node: highlighted, marked, or plain."""
    marked = bool(node.notes)
    if marked:
        stroke, fill = BREAK, BREAK_FILL
    elif node.on_path:
        stroke, fill = PATH, PATH_FILL
    else:
        stroke = PLAIN
        fill = OP_FILL if node.kind == "op" else VARIABLE_FILL if node.kind == "variable" else VALUE_FILL
    dashed = (node.kind == "op" and not node.differentiable) or node.dead_end
    width = 2.2 if (marked or node.on_path or node.is_source or node.is_target) else 1.0
    return stroke, fill, dashed, width


def label_lines(node):
    """The lines drawn inside a node: name (and role), type or line of code, then the marks."""
    if node.kind == "op":
        lines = [node.label]
        if node.where:
            lines.append(short_where(node.where))
    else:
        role = " (target)" if node.is_target else " (source)" if node.is_source else ""
        lines = [node.label + role, node.type_text]
    return lines + node.notes


def _where_text(where):
    if where is None:
        return ""
    path, _, line = where.rpartition(":")
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        rel = path
    return f"{rel}:{line}" if not rel.startswith("..") and len(rel) < len(path) else short_where(where)


def _mark(node):
    return "x" if node.notes else "*" if node.on_path else " "


def render_text(graph):
    """The listing behind ``str(graph)``: sources, ops in program order, targets."""
    nodes = graph.nodes
    counts = [n.kind for n in nodes.values()]
    out = [f"Tape graph: {counts.count('op')} ops, {counts.count('tensor')} tensors, "
           f"{counts.count('variable')} variables"]
    if graph.targets or graph.sources:
        names = []
        if graph.targets:
            names.append("target: " + ", ".join(nodes[k].label for k in graph.targets))
        if graph.sources:
            names.append("sources: " + ", ".join(nodes[k].label for k in graph.sources))
        out.append("   ".join(names))
        out.append("legend: * on a path from a source to the target   x breaks a path")

    def value_rows(keys, title):
        if not keys:
            return
        out.append(title)
        width = max(len(nodes[k].label) for k in keys)
        kinds = {k: ("variable (not trainable)" if not nodes[k].trainable else "variable")
                 if nodes[k].kind == "variable" else "tensor" for k in keys}
        w_kind = max(len(f"{kinds[k]} {nodes[k].type_text}") for k in keys)
        for k in keys:
            n = nodes[k]
            kind = f"{kinds[k]} {n.type_text}"
            status = _STATUS_TEXT.get(n.status, "") if n.status else ""
            if n.detail and not n.cause:
                status += f" ({n.detail})"
            out.append(f"  {_mark(n)} {n.label:<{width}}  {kind:<{w_kind}}  {status}".rstrip())
            if n.cause:
                at = f" at {_where_text(n.cause_where)}" if n.cause_where else ""
                out.append(f"      {n.cause}{at}: {n.explanation}" if n.explanation else f"      {n.cause}{at}")

    value_rows(graph.sources, "sources")
    out.append("ops, in program order")
    inputs, outputs = {}, {}
    for e in graph.edges:
        if nodes[e.dst].kind == "op":
            inputs.setdefault(e.dst, []).append(e.src)
        else:
            outputs.setdefault(e.src, []).append(e.dst)
    rows = []
    for n in graph.ops:
        outs = [nodes[k] for k in outputs.get(n.key, ())]
        call = (", ".join(o.label for o in outs) + " = " if outs else "") + \
            f"{n.label}({', '.join(nodes[k].label for k in inputs.get(n.key, ()))})"
        notes = []
        if n.breaks:
            notes.append(f"x {_BREAK_TEXT[n.breaks]}: no gradient flows back through it")
        elif not n.differentiable:
            notes.append("non-differentiable")
        notes += [f"x path ends at {o.label}" for o in outs if o.dead_end]
        rows.append((_mark(n), call, ", ".join(o.type_text for o in outs), _where_text(n.where), "; ".join(notes)))
    if not rows:
        out.append("  (nothing recorded)")
    w_call = max((len(r[1]) for r in rows), default=0)
    w_type = max((len(r[2]) for r in rows), default=0)
    w_where = max((len(r[3]) for r in rows), default=0)
    for mark, call, types, where, notes in rows:
        out.append(f"  {mark} {call:<{w_call}}  {types:<{w_type}}  {where:<{w_where}}  {notes}".rstrip())
    value_rows(graph.targets, "targets")
    for w in graph.warnings:
        out.append(f"warning: {w}")
    return "\n".join(out)


def _dot_str(text):
    """A DOT double-quoted string (``\\n`` separates the lines of a label)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_dot(graph):
    """Graphviz DOT for the graph: boxes for ops, ellipses for values, the path and the breaks coloured."""
    nodes = graph.nodes
    out = ["digraph tape {",
           '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.35];',
           f'  node [fontname="Helvetica", fontsize=11, style=filled, color="{PLAIN}"];',
           f'  edge [color="{EDGE}", arrowsize=0.7];']
    title = []
    if graph.targets:
        title.append("target: " + ", ".join(nodes[k].label for k in graph.targets))
    if graph.sources:
        title.append("sources: " + ", ".join(nodes[k].label for k in graph.sources))
    if title:
        out.append(f"  label={_dot_str(' · '.join(title))}; labelloc=t;")
    for n in nodes.values():
        stroke, fill, dashed, width = style_of(n)
        attrs = [f"label={_dot_str(chr(10).join(label_lines(n)))}",
                 "shape=box" if n.kind == "op" else "shape=ellipse",
                 f'color="{stroke}"', f'fillcolor="{fill}"', f"penwidth={width}",
                 'style="filled,dashed"' if dashed else 'style="filled"']
        if n.is_target:
            attrs.append("peripheries=2")
        tip = n.explanation or n.where
        if tip:
            attrs.append(f"tooltip={_dot_str(tip)}")
        out.append(f"  {n.key} [{', '.join(attrs)}];")
    for e in graph.edges:
        attrs = []
        if e.on_path:
            attrs += [f'color="{PATH}"', "penwidth=2"]
        elif not e.differentiable:
            attrs.append("style=dashed")
        out.append(f"  {e.src} -> {e.dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"

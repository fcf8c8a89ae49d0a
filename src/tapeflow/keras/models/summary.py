"""``Model.summary()``: Keras 3's plain-text table (what its rich console prints when ``print_fn`` is given).

Column widths follow Keras: the line length is ``min(88, terminal columns - 4)`` split at 45% / 80%, then shrunk
the way rich shrinks a fixed-width table (the excess shared equally between columns, rounding half to even).
"""

from __future__ import annotations

import math
import shutil
import sys

import numpy as np

from ..layers.base import _flatten, _map

__all__ = ["print_summary", "layer_shape_text", "node_shape_text"]


def _readable(size):
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _count(weights):
    return int(sum(math.prod(v.shape.as_list()) for v in weights))


def _memory(weights):
    unique = {id(w): w for w in weights}.values()
    return sum(math.prod(w.shape.as_list()) * _itemsize(w.dtype) for w in unique)


def _itemsize(dtype):
    name = getattr(dtype, "name", dtype)
    return 2 if name == "bfloat16" else np.dtype(name).itemsize


def _format_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _is_shape(x):
    return isinstance(x, (tuple, list)) and all(d is None or isinstance(d, (int, np.integer)) for d in x)


def _format_shapes(shapes):
    """One shape as ``(None, 3)``; a nesting of shapes as Keras prints it (``[(None, 3), (None, 4)]``)."""
    if _is_shape(shapes):
        return _format_shape(shapes)

    def fmt(x):
        if _is_shape(x):
            return _format_shape(x)
        if isinstance(x, dict):
            return {k: fmt(v) for k, v in x.items()}
        return type(x)(fmt(v) for v in x)

    return str(fmt(shapes)).replace("'", "")


def layer_shape_text(layer):
    """A layer's "Output Shape" cell, by Keras's rule: the outputs of its last call on symbolic tensors (functional
    and Sequential models); else its ``output_shape`` or ``compute_output_shape`` of the shapes it was built for (a
    subclassed model's layers, built by their first call); else ``?`` (layers built at construction, or that cannot
    say)."""
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes:
        return node_shape_text(nodes[-1].outputs)
    shapes = layer.__dict__.get("_build_shapes_dict")
    if shapes is None:
        return "?"
    try:
        output = layer.output_shape
    except AttributeError:
        try:
            output = layer.compute_output_shape(**shapes)
        except NotImplementedError:
            return "?"
    return _format_shapes(output)


def node_shape_text(outputs):
    """The shapes of the ``KerasTensor`` s ``outputs`` (one tensor, or a list or dict of them)."""
    fmt = lambda x: _format_shape(x.shape)  # noqa: E731
    leaves = _flatten(outputs)
    if len(leaves) == 1:
        return fmt(leaves[0])
    return str(_map(fmt, outputs)).replace("'", "")


def _wrap(text, width):
    """Fold ``text`` into lines of at most ``width`` characters, breaking at spaces where possible."""
    lines, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while len(word) > width:
            lines.append(word[:width])
            word = word[width:]
        line = word
    lines.append(line)
    return lines


def _shrink(widths, total):
    """Column widths (padding included) reduced so that the table fits ``total`` characters."""
    excess = sum(widths) + len(widths) + 1 - total
    if excess <= 0:
        return widths
    out, remaining, ratio_left = [], excess, len(widths)
    for w in widths:
        cut = min(w, round(remaining / ratio_left))
        out.append(w - cut)
        remaining -= cut
        ratio_left -= 1
    return out


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Print (or hand to ``print_fn`` as one string) the table of ``model.layers``, then the parameter counts.

    Functional models that are not a plain chain get Keras's fourth column, "Connected to"
    (``layer[node index][tensor index]`` of each input).
    """
    layout = getattr(model, "_summary_layout", None)
    sequential_like, rows = layout() if layout is not None else (True, None)
    if sequential_like:
        default, header, align = 88, ["Layer (type)", "Output Shape", "Param #"], ["<", "<", ">"]
        positions = positions or [0.45, 0.80, 1.0]
    else:
        default, header = 108, ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["<", "<", ">", "<"]
        positions = positions or [0.3, 0.56, 0.74, 1.0]
    if rows is None:
        rows = [(layer, layer_shape_text(layer), None) for layer in model.layers]
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    if positions[-1] <= 1:
        positions = [int(p * line_length) for p in positions]
    widths, current = [], 0
    for pos in positions:
        width = pos - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    cells = _shrink([w + 2 for w in widths], line_length)
    inner = [c - 2 for c in cells]

    def border(left, mid, right, fill):
        return left + mid.join(fill * c for c in cells) + right

    def row(values, edge):
        wrapped = [_wrap(v, w) for v, w in zip(values, inner)]
        height = max(len(w) for w in wrapped)
        out = []
        for i in range(height):
            parts = [f" {(w[i] if i < len(w) else ''):{a}{n}} " for w, a, n in zip(wrapped, align, inner)]
            out.append(edge + edge.join(parts) + edge)
        return out

    lines = [f'Model: "{model.name}"', border("┏", "┳", "┓", "━")]
    lines += row(header, "┃")
    lines.append(border("┡", "╇", "┩", "━"))
    for i, (layer, shape, links) in enumerate(rows):
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        values = [f"{layer.name} ({type(layer).__name__})", shape, params]
        lines += row(values if sequential_like else [*values, links], "│")
        if i < len(rows) - 1:
            lines.append(border("├", "┼", "┤", "─"))
    lines.append(border("└", "┴", "┘", "─"))
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    opt_vars = list(optimizer.variables) if optimizer is not None and getattr(optimizer, "built", False) else None
    total = _count(trainable) + _count(non_trainable) + (_count(opt_vars) if opt_vars else 0)
    memory = _memory(trainable) + _memory(non_trainable) + (_memory(opt_vars) if opt_vars else 0)
    lines.append(f" Total params: {total:,} ({_readable(memory)})")
    lines.append(f" Trainable params: {_count(trainable):,} ({_readable(_memory(trainable))})")
    lines.append(f" Non-trainable params: {_count(non_trainable):,} ({_readable(_memory(non_trainable))})")
    if opt_vars:
        lines.append(f" Optimizer params: {_count(opt_vars):,} ({_readable(_memory(opt_vars))})")
    # rich's console is as wide as the terminal: longer lines (a ``line_length`` past it) are cut there.
    columns = shutil.get_terminal_size().columns
    text = "\n".join(line[:columns] for line in lines) + "\n"
    if print_fn is None:
        sys.stdout.write(text)
    else:
        print_fn(text)

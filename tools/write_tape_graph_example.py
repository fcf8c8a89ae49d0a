"""Write ``docs/tape_graph_example.svg``: the walkthrough's common mistakes, drawn by ``tapeflow.debug.tape_graph``.

The example runs as a file named ``example.py`` so the lines in the picture match the listing in the docs.
The picture uses the built-in SVG renderer, so it is the same on every machine, Graphviz or not.

Usage: ``.venv/bin/python tools/write_tape_graph_example.py`` (from the repository root).
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "tape_graph_example.svg")

# Shown in the docs as is: keep the line numbers in step with the listing there.
EXAMPLE = """\
import tapeflow as tf
from tapeflow.debug import tape_graph

w = tf.Variable(2.0, name="w")
b = tf.Variable(0.5, name="b")
x = tf.constant([1.0, 2.0, 3.0])
y = tf.constant([3.0, 5.0, 7.0])
scale = tf.constant(2.0)                  # a constant: the tape does not watch it
with tf.GradientTape() as tape:
    shift = float((b * 2.0).numpy())      # b's value leaves the tape here
    pred = w * x * scale + shift
    loss = tf.reduce_mean((pred - y) ** 2)
graph = tape_graph(tape, loss, [w, b, scale])
grads = tape.gradient(loss, [w, b, scale])  # [<tf.Tensor ...>, None, None]
"""


def run_example():
    """Run :data:`EXAMPLE` as ``example.py``; return its namespace (``graph``, ``grads``...)."""
    sys.path.insert(0, os.path.join(ROOT, "src"))
    namespace = {"__name__": "example"}
    exec(compile(EXAMPLE, "example.py", "exec"), namespace)  # noqa: S102 - our own fixed example
    return namespace


def render():
    """The SVG text of the example's graph (built-in renderer)."""
    return run_example()["graph"].to_svg(engine="builtin")


def main():
    svg = render()
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(svg)
    print(f"wrote {os.path.relpath(OUT, ROOT)} ({len(svg)} bytes)")


if __name__ == "__main__":
    main()

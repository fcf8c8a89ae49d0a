"""Op database entry for ``PrintV2`` (``tf.print``): no outputs, no gradient.

The entry's ``fn`` prints its inputs to ``sys.stdout`` (a ``StringIO`` swapped in for the call) and returns the
text as a string tensor, so the forward test compares what was printed with the plain formatting below; the
gradient of anything through a print is ``None`` (nothing flows out of it).
"""

from __future__ import annotations

import io
import sys

import numpy as np

import tapeflow as tf

from .common import *  # noqa: F403


def _print(*xs, summarize=3):
    saved, sys.stdout = sys.stdout, io.StringIO()
    try:
        tf.print("x:", *xs, output_stream=sys.stdout, summarize=summarize)
        text = sys.stdout.getvalue()
    finally:
        sys.stdout = saved
    return tf.constant(text)


def _number(v):
    """A float as TF prints it: the shorter of 6 (float64: 15) and 9 (17) significant digits that reads back."""
    if v.dtype == np.float32:
        short = "%.6g" % v
        return short if np.float32(short) == v else "%.9g" % v
    short = "%.15g" % v
    return short if float(short) == v else "%.17g" % v


def _text(a, ends, depth=0):
    """Ranks 0 to 2, each dimension cut to ``ends`` entries at either end around ``...``."""
    if a.ndim == 0:
        return _number(a[()])
    n = a.shape[0]
    keep = list(range(n)) if n <= 2 * ends else list(range(ends)) + [None] + list(range(n - ends, n))
    gap = " " if a.ndim == 1 else "\n" + " " * (depth + 1)
    return "[" + gap.join("..." if i is None else _text(a[i], ends, depth + 1) for i in keep) + "]"


def _print_ref(*arrays, summarize=3):
    parts = [_text(a, min(summarize, a.size)) for a in arrays]
    return ("x: " + " ".join(parts) + "\n").encode()


op("PrintV2", _print, _print_ref,
   unary("PrintV2") + [make_sample("PrintV2", "two_inputs", (uniform(), uniform()), ((3,), (2, 2))),
                       make_sample("PrintV2", "summarized", (uniform(),), ((4, 7),), kwargs={"summarize": 2})],
   False)

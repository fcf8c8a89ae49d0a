"""Whether a program traced for a signature with ``None`` dimensions can run on other sizes of them as it is.

A trace runs on one call's values, so every size it meets is a number. Where the function asked for a shape, the
trace kept it as an op (``tf.shape``, the ``*Like`` ops of gradient rules, reshapes keeping a ``-1``: see
``shape_like_ops`` and ``Tracer._relative_reshape``), and such a program serves every size. A size that went
into the program as a number instead (an attribute, a constant) ties it to that call's shapes: it must be traced
again for others (``tf_function.Function._specialise``).

That cannot be seen from the numbers alone, so the test is cautious: the program is generic when none of its
attributes or constants holds any of the varying dimensions' sizes in that trace, as a number or as a dimension,
and no reshape of a varying tensor was left to a fixed shape. A coincidence (a constant ``2.0`` in a trace on a
batch of 2) only costs a trace per shape, as before.
"""

from __future__ import annotations

import numpy as np

from .trace import Assign, Graph

__all__ = ["varying_sizes", "is_generic"]

# Attributes that hold axes or flags, never sizes.
_NOT_SIZES = frozenset({"axis", "perm", "keepdims", "out_type", "dtype", "index_dtype", "transpose_a", "transpose_b",
                        "adjoint_a", "adjoint_b"})


def varying_sizes(tracer, placeholders):
    """The sizes the trace's ``None`` dimensions had, or ``None`` when no input dimension varies."""
    sizes = set()
    for p in placeholders:
        static = tracer.static_dims(p._id, np.shape(p._value))
        actual = np.shape(p._value)
        if static is None:
            sizes.update(actual)
        else:
            sizes.update(a for a, s in zip(actual, static) if s is None)
    return sizes or None


def is_generic(graph, sizes):
    """Whether ``graph`` holds none of ``sizes`` (see the module docstring)."""
    for value in graph.constants.values():
        if _holds(value, sizes):
            return False
    for node in graph.nodes:
        if type(node) is tuple:
            if node[1] and "call" in node[1]:
                return False  # a custom gradient's call: its gradient runs the Python function again
            for key, value in (node[1] or {}).items():
                if key not in _NOT_SIZES and _holds(value, sizes):
                    return False
        elif type(node) is Assign and node.constant is not None and _holds(node.constant, sizes):
            return False
    return True


def _holds(value, sizes):
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes)):
        return False
    if isinstance(value, (int, np.integer, float, np.floating)):
        return value in sizes
    if isinstance(value, np.ndarray):
        if any(d in sizes for d in value.shape):
            return True
        return value.size == 1 and value.dtype.kind in "iuf" and value.reshape(()).item() in sizes
    if isinstance(value, (tuple, list)):
        return any(_holds(v, sizes) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, sizes) for v in value.values())
    if isinstance(value, slice):
        return _holds((value.start, value.stop, value.step), sizes)
    if hasattr(value, "branches") and hasattr(value, "loop"):  # what a control-flow node runs (its ``body``)
        subs = list(value.branches) + [s for s in (value.cond, value.loop) if s is not None]
        return any(not is_generic(s.graph, sizes) for s in subs if isinstance(getattr(s, "graph", None), Graph))
    return False

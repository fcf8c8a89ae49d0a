"""Tensors a trace made, used after the trace ended: TensorFlow refuses them (they belong to a graph), and so does
tapeflow where it can tell without slowing eager code down.

Every finished trace leaves the range of ids its tensors took (minus the spans ``tf.init_scope`` ran eagerly in),
the ids among them whose values depended on the function's inputs or variables, and their graph names. (Only those
are refused: a constant made while tracing holds the same value on every call, and tapeflow's own code may keep
one.) A listener of the hook then refuses ``.numpy()`` on such a tensor, as TF does
(``AttributeError: 'SymbolicTensor' object has no attribute 'numpy'``), and a later trace that finds one among its
inputs raises TF's "out of scope" ``TypeError``. Eager ops given such a tensor still compute with the value the
trace saw: checking every op's inputs would cost every eager op.
"""

from __future__ import annotations

import bisect

from .._core import observers

__all__ = ["finished", "leaked_name", "out_of_scope"]

_STARTS = []  # the first id of each finished trace, increasing
_TRACES = []  # (start, end, eager spans, names) in the same order


class _Guard:
    """The listener: ``.numpy()`` of a tensor a finished trace made."""

    __slots__ = ()
    user_code_only = False

    @staticmethod
    def value_left(value, how):
        if how == ".numpy()" and not getattr(value, "_tapeflow_variable", False) and leaked_name(value._id):
            raise AttributeError("'SymbolicTensor' object has no attribute 'numpy'")


_GUARD = _Guard()


def finished(tracer, end):
    """Remember the trace of ``tracer``, whose tensors took the ids before ``end``."""
    dynamic = tracer.dynamic
    names = {i: name for i, name in tracer.graph_names().items() if i in dynamic}
    if not _TRACES:
        observers.listen(_GUARD, everywhere=True)
    _STARTS.append(tracer.start_id)
    _TRACES.append((tracer.start_id, end, tuple(tracer.eager_spans), names))


def leaked_name(tensor_id):
    """The graph name of the tensor ``tensor_id`` if a finished trace made it (``"add:0"``), else ``None``."""
    k = bisect.bisect_right(_STARTS, tensor_id)
    while k > 0:  # traces may nest: the innermost finished one that holds the id
        k -= 1
        start, end, spans, names = _TRACES[k]
        if start <= tensor_id < end:
            if any(lo <= tensor_id < hi for lo, hi in spans):
                return None
            return names.get(tensor_id)  # ``None`` for a constant the trace made
        if end <= tensor_id and k < len(_TRACES) - 1:
            continue
    return None


def out_of_scope(tensor, name):
    """TF's error for a tensor of an ended trace found by a new trace."""
    text = f"<tf.Tensor '{name}' shape={tensor.shape} dtype={tensor.dtype.name}>"
    return TypeError(f"{text} is out of scope and cannot be used here. Use return values, explicit Python locals or "
                     "TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/function"
                     "#all_outputs_of_a_tffunction_must_be_return_values for more information.")

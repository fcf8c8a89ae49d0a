"""Graphs for TensorBoard's Graphs dashboard: ``tf.summary.graph`` and ``trace_on`` / ``trace_export``.

A traced function's graph (``f.get_concrete_function(...).graph``) is written as the ``GraphDef`` TF would make
of it (``_graphdef.py``).

``trace_on(graph=True)`` collects the graph of each function traced from then on (as TF collects a function's
graph when it is first instantiated: a function traced before ``trace_on`` is not collected again), and
``trace_export(name, step)`` writes them as a ``RunMetadata`` summary of plugin ``graph_run_metadata_graph``,
each as a function graph's ``pre_optimization_graph``, which is what TensorBoard draws. There is no profiler:
``profiler=True`` collects the graphs and writes them as a ``graph_run_metadata`` summary, without the profile.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from .._core.tensor import constant
from ..compiler import trace as _trace
from . import _writer
from ._graphdef import graph_def

__all__ = ["graph", "trace_on", "trace_off", "trace_export", "graph_def"]


def _as_graph_def(graph_data):
    if isinstance(graph_data, _trace.Graph):
        return graph_def(graph_data)
    if type(graph_data).__name__ == "GraphDef" and hasattr(graph_data, "SerializeToString"):
        return graph_data
    return None


def graph(graph_data):
    """Write a graph (a traced function's ``graph``, or a ``GraphDef``) to the default writer at step 0, for
    TensorBoard's Graphs dashboard (``tf.summary.graph``). Returns a boolean tensor: whether it was written.

    Raises:
        ValueError: for anything else, or when called inside a traced function.
    """
    from .._core.state import STATE  # noqa: PLC0415

    if STATE.tracer is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = _writer.default_writer()
    if writer is None:
        return constant(False)
    if not bool(_writer.should_record_summaries().numpy()):
        return constant(False)
    proto = _as_graph_def(graph_data)
    if proto is None:
        raise ValueError("Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received graph_data="
                         f"{graph_data} of type {type(graph_data).__name__}.")
    if isinstance(writer, _writer._FileWriter):
        import time  # noqa: PLC0415

        event_pb2 = _writer.proto_modules()[0]
        writer.add_event(event_pb2.Event(wall_time=time.time(), step=0, graph_def=proto.SerializeToString()))
    return constant(True)


# ------------------------------------------------------------------------------------------ tracing

_LOCK = threading.Lock()
_TRACE = []  # [(graph, profiler, collected graph defs)] while a trace is on


def _collect(name, traced):
    with _LOCK:
        if _TRACE:
            _TRACE[0][2].append(graph_def(traced, run=True))


def trace_on(graph=True, profiler=False, profiler_outdir=None):  # noqa: A002 - TF's parameter name
    """Start collecting the graphs of the functions traced from now on, for :func:`trace_export`
    (``tf.summary.trace_on``); a warning and nothing else inside a traced function or when already on."""
    from .._core.state import STATE  # noqa: PLC0415
    from ..compiler.program import TRACE_LISTENERS  # noqa: PLC0415

    if STATE.tracer is not None:
        warnings.warn("Cannot enable trace inside a tf.function.", stacklevel=2)
        return
    with _LOCK:
        if _TRACE:
            warnings.warn("Trace already enabled", stacklevel=2)
            return
        _TRACE.append((graph, profiler, []))
        if _collect not in TRACE_LISTENERS:
            TRACE_LISTENERS.append(_collect)


def trace_off():
    """Stop collecting graphs and drop what was collected (``tf.summary.trace_off``)."""
    from ..compiler.program import TRACE_LISTENERS  # noqa: PLC0415

    with _LOCK:
        _TRACE.clear()
        if _collect in TRACE_LISTENERS:
            TRACE_LISTENERS.remove(_collect)


def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs collected since :func:`trace_on` to the default writer as one summary named ``name`` at
    ``step``, and stop collecting (``tf.summary.trace_export``).

    Raises:
        ValueError: when no trace is on, or a writer is set but no step is.
    """
    from .._core.state import STATE  # noqa: PLC0415

    if step is not None:
        _writer._choose_step(step)
    if STATE.tracer is not None:
        warnings.warn("Cannot export trace inside a tf.function.", stacklevel=2)
        return None
    with _LOCK:
        if not _TRACE:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        graph_on, profiler, collected = _TRACE[0]
    if _writer.default_writer() is not None:
        from tensorboard.compat.proto import config_pb2, summary_pb2  # noqa: PLC0415

        run_metadata = config_pb2.RunMetadata()
        for g in collected:
            run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(g)
        plugin = "graph_run_metadata_graph" if graph_on and not profiler else "graph_run_metadata"
        metadata = summary_pb2.SummaryMetadata()
        metadata.plugin_data.plugin_name = plugin
        metadata.plugin_data.content = b"1"
        with _writer.summary_scope(name, f"{plugin}_summary") as (tag, _):
            data = np.empty((), dtype=object)
            data[()] = run_metadata.SerializeToString()
            _writer.emit(tag, constant(data), lambda v: v, metadata, step)
    trace_off()  # (after the write: a write that fails leaves the trace on, as in TF)
    return None

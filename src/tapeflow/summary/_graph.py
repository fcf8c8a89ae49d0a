"""Graphs for TensorBoard's Graphs dashboard: ``tf.summary.graph`` and ``trace_on`` / ``trace_export``.

A traced function's graph (``f.get_concrete_function(...).graph``) becomes a ``GraphDef`` (TensorBoard's
``graph_pb2``) laid out as TensorFlow lays out a function's graph: one ``Placeholder`` per input named after its
parameter (``_Arg`` in a traced run's graph), a node per op named as TF names it (``MatMul``, ``add``, ``add_1``
...) with its inputs by name, its dtype attribute ``T``, its other simple attributes and ``_output_shapes``;
constants the function made are ``Const`` nodes named after the op that takes them and the input (``add/y``);
variables are captured resource placeholders read by ``ReadVariableOp`` and written by ``AssignVariableOp`` and
kin; the results pass through ``Identity`` nodes (and ``_Retval`` in a traced run's graph).

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

from .._core.equation import op_of
from .._core.opdefs import OPDEFS
from .._core.tensor import constant
from ..compiler import trace as _trace
from . import _writer

__all__ = ["graph", "trace_on", "trace_off", "trace_export", "graph_def"]

_PRODUCER = 2474  # the GraphDef version TF 2.21 writes
_DT = dict(_writer._DT, object=7)
_ASSIGNS = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp", "assign_sub": "AssignSubVariableOp"}
# TF's node names where they are not the op's.
_NAMES = {"Transpose": "transpose", "ConcatV2": "concat", "StridedSlice": "strided_slice"}
# Attributes of tapeflow's ops that are inputs of TF's (TF makes them ``Const`` nodes): op -> (attribute, TF's
# input name); the input goes last.
_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
_ATTR_INPUTS = dict({r: ("axis", "reduction_indices") for r in _REDUCTIONS}, Reshape=("shape", "shape"),
                    Transpose=("perm", "perm"), ConcatV2=("axis", "axis"), ExpandDims=("axis", "dim"),
                    Tile=("multiples", "multiples"))


def _graph_pb2():
    _writer.proto_modules()
    from tensorboard.compat.proto import graph_pb2  # noqa: PLC0415

    return graph_pb2


def _arg_names(op_name):
    tf_def = OPDEFS.get(op_name)
    if tf_def is None:
        return ()
    signature = tf_def[1].split("signature=", 1)[1].split(" ->", 1)[0]
    return tuple(part.split(":", 1)[0].strip() for part in signature.split(",") if ":" in part)


def _dtype_number(dtype):
    return _DT.get(np.dtype(dtype).name, 7 if np.dtype(dtype) == object else 0)


def _set_shape(proto, shape):
    if shape is None:
        proto.unknown_rank = True
        return
    for d in shape:
        proto.dim.add(size=-1 if d is None else int(d))


def _set_attr(attr, value):
    """An attribute value as ``AttrValue``; ``False`` for values that are not plain (left out)."""
    if isinstance(value, (bool, np.bool_)):
        attr.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        attr.i = int(value)
    elif isinstance(value, (float, np.floating)):
        attr.f = float(value)
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, np.integer)) and not isinstance(
            v, bool) for v in value):
        attr.list.i.extend(int(v) for v in value)
    else:
        return False
    return True


def graph_def(graph, run=False):
    """The ``GraphDef`` of a traced function's graph (see the module docstring); ``run``: laid out as a traced
    run's graph (``_Arg`` and ``_Retval`` nodes) rather than as the function's own graph."""
    graph_pb2 = _graph_pb2()
    out = graph_pb2.GraphDef()
    out.versions.producer = _PRODUCER
    specs = graph.specs
    names = {}  # id -> the input string naming it ("MatMul", "split:1")
    counts = {}

    def unique(base):
        k = counts.get(base, 0)
        counts[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def shapes_attr(node, ids):
        found = [specs.get(i) for i in ids]
        if all(s is not None for s in found):
            for s in found:
                _set_shape(node.attr["_output_shapes"].list.shape.add(), s[1])

    for k, i in enumerate(graph.inputs):
        name = unique(graph.input_names.get(i, f"args_{k}"))
        node = out.node.add(name=name, op="_Arg" if run else "Placeholder")
        dtype, shape = specs.get(i, (np.dtype("float32"), None))
        if run:
            node.attr["T"].type = _dtype_number(dtype)
            node.attr["index"].i = k
        else:
            node.attr["dtype"].type = _dtype_number(dtype)
            _set_shape(node.attr["shape"].shape, shape)
        node.attr["_user_specified_name"].s = name.encode()
        shapes_attr(node, [i])
        names[i] = name

    resources = {}

    def resource(variable, reader):
        if variable._id not in resources:
            name = unique(f"{reader.lower().replace('/', '_')}_resource")
            node = out.node.add(name=name, op="_Arg" if run else "Placeholder")
            node.attr["T" if run else "dtype"].type = 20  # DT_RESOURCE
            if not run:
                node.attr["shape"].shape.SetInParent()
            resources[variable._id] = name
        return resources[variable._id]

    def const(i, consumer, position, op_name, value=None):
        arg = _arg_names(op_name)
        base = f"{consumer}/{arg[position]}" if position is not None and position < len(arg) else "Const"
        name = unique(base)
        value = np.asarray(graph.constants[i] if value is None else value)
        node = out.node.add(name=name, op="Const")
        node.attr["value"].tensor.CopyFrom(_writer.tensor_proto(value))
        node.attr["dtype"].type = _dtype_number(value.dtype)
        _set_shape(node.attr["_output_shapes"].list.shape.add(), value.shape)
        if i is not None:
            names[i] = name
        return name

    for n in graph.nodes:
        if type(n) is _trace.Read:
            name = unique("ReadVariableOp")
            node = out.node.add(name=name, op="ReadVariableOp")
            node.input.append(resource(n.variable, name))
            node.attr["dtype"].type = _dtype_number(n.variable.dtype.as_numpy_dtype)
            shapes_attr(node, [n.out])
            names[n.out] = name
        elif type(n) is _trace.Assign:
            op = _ASSIGNS.get(n.method, "AssignVariableOp")
            name = unique(op)
            node = out.node.add(name=name, op=op)
            node.input.append(resource(n.variable, name))
            if n.value in names:
                node.input.append(names[n.value])
            elif n.value in graph.constants:
                node.input.append(const(n.value, name, 1, op))
            node.attr["dtype"].type = _dtype_number(n.variable.dtype.as_numpy_dtype)
        elif type(n) is tuple:
            op = op_of(n[0])
            name = unique(_NAMES.get(op.name, _trace._NODE_NAMES.get(op.name, op.name)))
            ins = list(n[6::2])
            attrs = dict(n[1] or {})
            node = out.node.add(name=name, op=op.name)
            for position, i in enumerate(ins):
                if i not in names and i in graph.constants:
                    const(i, name, position, op.name)
                if i in names:
                    node.input.append(names[i])
            if op.name in _ATTR_INPUTS and _ATTR_INPUTS[op.name][0] in attrs:
                value = attrs.pop(_ATTR_INPUTS[op.name][0])
                if value is None and ins and ins[0] in specs and specs[ins[0]][1] is not None:
                    value, position = np.arange(len(specs[ins[0]][1]), dtype=np.int32), None  # TF's "Const"
                else:
                    position = len(_arg_names(op.name)) - 1
                if value is not None:
                    node.input.append(const(None, name, position, op.name, np.asarray(value, dtype=np.int32)))
            if "keepdims" in attrs:
                attrs["keep_dims"] = attrs.pop("keepdims")
            if op.name == "Cast" and "dtype" in attrs:
                node.attr["DstT"].type = _dtype_number(attrs.pop("dtype"))
                attrs["Truncate"] = False
            if ins and ins[0] in specs:
                node.attr["SrcT" if op.name == "Cast" else "T"].type = _dtype_number(specs[ins[0]][0])
            for key, value in sorted(attrs.items()):
                if not key.startswith("_") and not _set_attr(node.attr[key], value):
                    del node.attr[key]
            outs = n[4] if type(n[4]) is tuple else (n[4],)
            shapes_attr(node, outs)
            for j, o in enumerate(outs):
                names[o] = name if j == 0 else f"{name}:{j}"
    for k, o in enumerate(graph.outputs):
        if o not in names and o in graph.constants:
            const(o, "Identity", 0, "Identity")
        name = unique("Identity")
        node = out.node.add(name=name, op="Identity")
        if o in names:
            node.input.append(names[o])
        if o in specs:
            node.attr["T"].type = _dtype_number(specs[o][0])
            shapes_attr(node, [o])
        if run:
            ret = out.node.add(name=unique(f"{name.lower()}_RetVal"), op="_Retval", input=[name])
            ret.attr["index"].i = k
            if o in specs:
                ret.attr["T"].type = _dtype_number(specs[o][0])
    out.library.SetInParent()
    return out


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

"""A traced function called while one tape records: the call is one equation on the tape, not one per op.

The generated program runs as usual, returning besides the outputs every value its graph computed; the variables
the graph reads are read first, through ``Variable._read``, so the tape watches and records them as it would. The
tape then gets one equation, a call of the function's op, from the inputs and those reads to the outputs. Its
gradient rule rebuilds the graph's equations with the values of that very call and runs the tape's backward pass
over them: the gradients are those of the ops the function ran, at eager cost for the backward pass, while the
forward pass costs what the generated program costs.

Only calls with a single tape recording take this path, of graphs that assign no variable and call no custom
gradient. Anything else (nested tapes, which also record the gradient computation and need every forward value on
each tape; forward accumulators) replays the graph op by op (``program.replay``).
"""

from __future__ import annotations

from .._core.backprop import backward
from .._core.dtypes import TRAINABLE_NUMS
from .._core.equation import tensor_of
from .._core.observers import report_op
from .._core.recording import Recording
from .._core.registry import Op
from .._core.state import STATE, next_id
from .._core.tensor import EagerTensor
from . import lower as lowering
from . import passes, trace
from .trace import Assign, Read

__all__ = ["can_record", "call_recorded"]

_new = object.__new__


def can_record(program):
    """Whether a call of ``program`` under the active tapes can be recorded as one equation."""
    tapes = STATE.tapes
    if len(tapes) != 1 or type(tapes[0]) is not Recording:
        return False
    if program.recordable is None:
        program.recordable = not any(
            type(n) is Assign or (type(n) is tuple and lowering._custom_call(n[1]) is not None)
            for n in program.graph.nodes)
    return program.recordable


class _Call:
    """What one recorded call's gradient needs: the graph, the values the call computed, the sources' ids, and the
    program's cache of compiled backward passes."""

    __slots__ = ("graph", "values", "sources", "backwards", "alias")

    def __init__(self, graph, values, sources, backwards, alias):
        self.graph, self.values, self.sources, self.backwards = graph, values, sources, backwards
        # The graph's input and read ids -> the ids of the tensors this call took: a backward pass that is itself
        # recorded (a tape around ``gradient()``) sees the very tensors the user has.
        self.alias = alias


def _op_of(program, name):
    op = program.call_op
    if op is None:
        count = len(program.graph.outputs)
        op = program.call_op = Op("StatefulPartitionedCall", _never, num_outputs=count, same_dtype=False)
        op.name = f"StatefulPartitionedCall({name})"
        op.multi_output = True
        op.vjp = _call_vjp
    return op


def _never(*values, call):
    raise TypeError("a recorded tf.function call is not re-executed from its values")


def call_recorded(program, tensors, variables, swap, name, graph_name):
    """Run ``program`` on ``tensors`` and record the call on the one active tape; returns the output tensors.
    An error while it runs is TF's graph execution error (``graph_name``: the ``__inference_...`` it names)."""
    graph = program.graph
    # The reads first, through the variables themselves: the tape watches and records each.
    reads = {}
    read_ids = []
    for node in graph.nodes:
        if type(node) is Read:
            variable = swap.get(node.variable._id, node.variable)
            t = reads.get(variable._id)
            if t is None:
                t = reads[variable._id] = variable._read()
            read_ids.append((node.out, t))
    keep = program.residual_ids
    if program.residual_plan is None:
        keep = program.residual_ids = [o for n in graph.nodes if type(n) is tuple
                                       for o in (n[4] if type(n[4]) is tuple else (n[4],))]
        program.residual_plan = lowering.lower(graph, f"{name}_recorded", keep)
    values = [t._value for t in tensors] + list(variables)
    try:
        out = program.residual_plan.run(*values)
    except Exception as exc:
        err = program.residual_plan.error(exc, graph_name, graph.stacks)
        if err is None:
            raise
        raise err from None
    n = len(graph.outputs)
    computed = dict(graph.constants)
    computed.update(zip(graph.inputs, (t._value for t in tensors)))
    computed.update((i, t._value) for i, t in read_ids)
    computed.update(zip(keep, out[n:]))
    results = []
    for v in out[:n]:
        t = _new(EagerTensor)
        t._value = v
        t._id = next_id()
        results.append(t)
    sources = list(graph.inputs) + [i for i, _ in read_ids]
    inputs = tuple(tensors) + tuple(t for _, t in read_ids)
    if program.backwards is None:
        program.backwards = {}
    alias = {i: t._id for i, t in zip(sources, inputs)}
    report_op(_op_of(program, name), inputs, tuple(results),
              {"call": _Call(graph, computed, sources, program.backwards, alias)})
    return results


def _call_vjp(g, ans, *inputs, call):
    """The gradients of a recorded call: the tape's backward pass over the graph's equations, with this call's
    values, from its outputs (weighted by ``g``) back to its inputs and reads. When nothing records this backward
    pass (no higher derivative is being taken), it runs as a program of its own, traced on first use."""
    gs = g if type(g) is tuple else (g,)
    if not STATE.tapes and all(x is None or type(x) is EagerTensor for x in gs):
        # (Per shape too: a program that serves several sizes gets a backward pass traced for each.)
        shapes = tuple(getattr(call.values.get(i), "shape", None) for i in call.graph.inputs)
        key = (tuple(x is not None for x in gs), shapes)
        compiled = call.backwards.get(key)
        if compiled is None:
            compiled = call.backwards[key] = _compile_backward(call, gs) or False
        if compiled:
            return compiled(call, gs)
    recording, targets, sources, upstream = _rebuilt(call, gs, call.alias)
    if not targets:
        return (None,) * len(call.sources)
    return tuple(backward(recording, targets, sources, upstream))


def _rebuilt(call, gs, alias=None):
    """The graph's equations with this call's values, as a recording; the targets with their upstream gradients
    (outputs that got none are left out), and the sources (renamed by ``alias``, when given)."""
    graph, values = call.graph, call.values
    ren = (alias or {}).get
    source_ids = [ren(i, i) for i in call.sources]
    stored = []
    tracked = set(source_ids)
    for node in graph.nodes:
        if type(node) is not tuple:
            continue
        outs = node[4]
        multi = type(outs) is tuple
        results = tuple([values[o] for o in outs]) if multi else values[outs]
        ids = node[6::2]
        stored.append(node[:5] + (results,) + tuple([x for i in ids for x in (ren(i, i), values[i])]))
        for o in outs if multi else (outs,):
            v = values[o]
            if getattr(v, "dtype", None) is not None and v.dtype.num in TRAINABLE_NUMS:
                tracked.add(o)
    recording = Recording()
    recording.records = stored
    recording.tracked = tracked
    recording.roots = set(source_ids)
    targets, upstream = [], []
    for oid, gi in zip(graph.outputs, gs):
        if gi is not None:
            targets.append(tensor_of(ren(oid, oid), values[oid]))
            upstream.append(gi)
    sources = [tensor_of(r, values[i]) for r, i in zip(source_ids, call.sources)]
    return recording, targets, sources, upstream


class _Backward:
    """A recorded call's backward pass as a program: upstream gradients and the call's values in, gradients out."""

    __slots__ = ("plan", "residuals", "results")

    def __init__(self, plan, residuals, results):
        self.plan, self.residuals, self.results = plan, residuals, results

    def __call__(self, call, gs):
        values = call.values
        args = [x._value for x in gs if x is not None] + [values[i] for i in self.residuals]
        out = self.plan.run(*args)
        grads = []
        for position in self.results:
            if position is None:
                grads.append(None)
            else:
                t = _new(EagerTensor)
                t._value = out[position]
                t._id = next_id()
                grads.append(t)
        return tuple(grads)


def _compile_backward(call, gs):
    """Trace the backward pass over the graph's equations once, with this call's values, into a program whose
    inputs are the upstream gradients and the forward values it reads; ``None`` when it cannot be (a gradient
    that is an ``IndexedSlices``)."""
    recording, targets, sources, upstream = _rebuilt(call, gs)
    if not targets:
        return None
    tracer = trace.Tracer()
    placeholders = [trace.placeholder(u._value) for u in upstream]
    tracer.dynamic.update(p._id for p in placeholders)
    tracer.dynamic.update(call.values)
    grads = trace.run(tracer, backward, (recording, targets, sources, placeholders), {})
    if any(gr is not None and type(gr) is not EagerTensor for gr in grads):
        return None
    residuals = [i for i in call.values if i not in call.graph.constants]
    outputs, results = [], []
    for gr in grads:
        if gr is None:
            results.append(None)
        else:
            results.append(len(outputs))
            outputs.append(gr._id)
    graph = trace.Graph(tracer.nodes, [p._id for p in placeholders] + residuals, outputs, tracer.variables, ())
    graph.stacks = tracer.stacks
    graph.poisoned = frozenset(tracer.poisoned)
    known = graph.known_ids()
    for gr, oid in zip([x for x in grads if x is not None], outputs):
        if oid not in known:  # a gradient that is a value the call computed or a constant
            graph.constants[oid] = gr._value
    passes.optimize(graph)
    graph.forget_values()
    return _Backward(lowering.lower(graph, "backward"), residuals, results)

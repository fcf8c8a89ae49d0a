"""A trace made usable: the program of one trace (its graph, generated code and result structure) and the two
ways to run it under tapes (replayed op by op; ``recorded_call.py`` has the other).
"""

from __future__ import annotations

import numpy as np

from .._core import nest
from .._core import primitives as P
from .._core.dispatch import EMPTY, execute
from .._core.equation import op_of, tensor_of
from .._core.state import next_id
from .._core.tensor import EagerTensor, Tensor, constant_of, convert_to_tensor
from .._core.tensor_spec import TensorSpec
from . import leaks, lower, passes, trace
from .shape_generic import is_generic, varying_sizes

__all__ = ["Program", "build_program", "pack", "replay", "replay_nodes", "as_outputs"]

_new = object.__new__


class _Leaf:
    """Where a traced function's result put a tensor: the index of its value among the program's outputs."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class _WeakLeaf(_Leaf):
    """A weak tensor in the result (``tf.experimental.numpy``): its tensor's output index and its class."""

    __slots__ = ("kind",)

    def __init__(self, index, kind):
        self.index = index
        self.kind = kind


class Program:
    """One trace's graph and its generated code, with what rebuilds the result."""

    __slots__ = ("graph", "plan", "structure", "leaves", "variable_ids", "output_specs", "recordable",
                 "residual_plan", "residual_ids", "call_op", "backwards", "rebuild", "generic", "sized")

    def __init__(self, graph, plan, structure, leaves, variable_ids, output_specs):
        self.graph, self.plan, self.structure, self.leaves = graph, plan, structure, leaves
        self.variable_ids = variable_ids  # ids the trace's argument variables had, in argument order
        self.output_specs = output_specs  # the result with a TensorSpec (static shape) for each tensor
        # A call under one tape (``recorded_call.py``): whether it can be one equation, its program that also
        # returns what the gradient needs, and the op that equation names. Made on the first such call.
        self.recordable = self.residual_plan = self.residual_ids = self.call_op = self.backwards = None
        self.rebuild = _rebuilder(structure)  # flat output values -> the result's structure
        self.generic = False  # whether it runs on other sizes of the trace's None dimensions (``shape_generic``)
        # The input shapes a program traced for a composite tensor's spec is tied to, when it is not generic: a
        # spec covers any number of entries, so its calls share one key, and other sizes need their own trace.
        self.sized = None


def pack(program, out, tensors=False):
    """The result structure around the program's output values ``out`` (or tensors, with ``tensors``)."""
    flat = []
    for leaf in program.leaves:
        kind = type(leaf)
        if kind is _Leaf:
            if tensors:
                flat.append(out[leaf.index])
            else:
                t = _new(EagerTensor)
                t._value = out[leaf.index]
                t._id = next_id()
                flat.append(t)
        elif kind is _WeakLeaf:
            if tensors:
                t = out[leaf.index]
            else:
                t = _new(EagerTensor)
                t._value = out[leaf.index]
                t._id = next_id()
            flat.append(leaf.kind(t))
        else:
            flat.append(leaf)
    return program.rebuild(flat)


def _rebuilder(structure):
    """How to put a flat result back into ``structure``, the common shapes spelled out (a call's fixed cost):
    one value, a list or tuple of values, a dict of values (``tf.nest`` orders a dict's values by sorted key)."""
    if structure is None:
        return lambda flat: flat[0]
    if nest.is_composite(structure) or any(nest.is_composite(v) for v in nest.flatten(structure)):
        return lambda flat: nest.pack_sequence_as(structure, flat, True)
    kind = type(structure)
    if kind in (list, tuple) and not any(nest.is_nested(v) for v in structure):
        return kind
    if kind is dict and not any(nest.is_nested(v) for v in structure.values()):
        try:
            order = sorted(structure)
        except TypeError:
            order = None
        if order is not None:
            keys = list(structure)

            def rebuild(flat):
                values = dict(zip(order, flat))
                return {k: values[k] for k in keys}

            return rebuild
    return lambda flat: nest.pack_sequence_as(structure, flat)


def replay(program, tensors, variables):
    """Run the graph op by op through ``execute``, so the active tapes record every op and read."""
    graph = program.graph
    swap = dict(zip(program.variable_ids, variables))  # the trace's argument variables -> this call's
    env = replay_nodes(graph, tensors, lambda v: swap.get(v._id, v))
    # The tensors themselves (an output that is an input gets an identity of its own, as TF returns one).
    outs = []
    for i in graph.outputs:
        out = _lookup_tensor(env, graph, i)
        outs.append(execute(P.IDENTITY, (out,)) if i in graph.inputs else out)
    return pack(program, outs, tensors=True)


def replay_nodes(graph, tensors, var=None, effects=True):
    """Run ``graph``'s nodes on the input ``tensors`` op by op through ``execute`` (the active tapes record each
    op and read); returns the environment, id -> tensor. ``var`` maps a traced variable to the one to use;
    ``effects=False`` leaves the assignments out (a gradient that recomputes a branch must not repeat them)."""
    env = dict(zip(graph.inputs, tensors))
    for node in graph.nodes:
        kind = type(node)
        if kind is trace.Read:
            env[node.out] = (node.variable if var is None else var(node.variable))._read()
        elif kind is trace.Assign:
            if effects:
                value = _lookup_tensor(env, graph, node.value) if node.constant is None else node.constant
                getattr(node.variable if var is None else var(node.variable), node.method)(value, read_value=False)
        else:
            attrs = node[1]
            call = lower._custom_call(attrs)
            outputs = node[4]
            if call is not None:
                outs = outputs if type(outputs) is tuple else (outputs,)
                if not effects and call.again is not None:
                    # Recomputed for a gradient: the call made again on these tensors, so that the tapes record
                    # it with a grad_fn of its own (the traced one closes over the trace's tensors).
                    ins = [_lookup_tensor(env, graph, i) for i in node[6::2]]
                    env.update(zip(outs, call.again(ins)))
                    continue
                values = node[5] if type(outputs) is tuple else (node[5],)
                for o, r, v in zip(outs, call.result_ids, values):
                    env[o] = _lookup_tensor(env, graph, r) if r is not None else constant_of(v)
                continue
            ins = tuple([_lookup_tensor(env, graph, i) for i in node[6::2]])
            result = execute(op_of(node[0]), ins, attrs or EMPTY)
            if type(outputs) is tuple:
                env.update(zip(outputs, result))
            else:
                env[outputs] = result
    return env


def _lookup_tensor(env, graph, i):
    t = env.get(i)
    if t is None:
        t = env[i] = constant_of(graph.constants[i])
    return t


def as_outputs(result):
    """The traced function's result as TF returns it, made inside the trace: a variable becomes its value read at
    the end of the call, a Python or NumPy value a tensor; ``None`` and other objects stay as they are; a
    composite tensor (a ``SparseTensor``) is returned as its component tensors, rebuilt after each call."""
    if nest.is_nested(result) or nest.is_composite(result):
        return nest.pack_sequence_as(result, [_as_output_one(v) for v in nest.flatten(result, True)], True)
    return _as_output_one(result)


# How a Python or NumPy value returned from a traced function becomes a tensor: ``convert_to_tensor``, unless
# ``tf.experimental.numpy``'s "safe"/"all" modes put TF's weak-typing conversion here while they are on.
OUTPUT_CONVERSION = None


def _as_output_one(value):
    if isinstance(value, Tensor) or value is None:
        return value
    if getattr(value, "_tapeflow_variable", False):
        return value.read_value()
    if isinstance(value, (int, float, bool, complex, str, bytes, np.ndarray, np.generic)):
        conversion = OUTPUT_CONVERSION
        return convert_to_tensor(value) if conversion is None else conversion(value)
    return value


#: Functions called as ``listener(name, graph)`` with each graph a trace makes, while its values are still in it.
TRACE_LISTENERS = []


def value_specs(graph, tracer):
    """``{id: (NumPy dtype, shape)}`` of the graph's inputs and of what its nodes make (the shape the trace fixed:
    ``None`` for a dimension that varies between calls)."""
    static = tracer.static_shapes
    specs = {}

    def note(i, v):
        if v is not None:
            shape = static.get(i, np.shape(v))
            specs[i] = (np.asarray(v).dtype, None if shape is None else tuple(shape))

    for n in graph.nodes:
        if type(n) is tuple:
            outs, results = n[4], n[5]
            for o, v in (zip(outs, results) if type(outs) is tuple else ((outs, results),)):
                note(o, v)
            for i, v in zip(n[6::2], n[7::2]):
                if i not in specs:
                    note(i, v)
        elif type(n) is trace.Read:
            var = n.variable
            specs[n.out] = (np.dtype(var.dtype.as_numpy_dtype), tuple(var.shape))
    return specs


def build_program(name, tracer, placeholders, variables, result):
    """The :class:`Program` of a finished trace (``result`` already through :func:`as_outputs`)."""
    structured = nest.is_nested(result) or nest.is_composite(result)
    leaves_of = nest.flatten(result) if nest.is_nested(result) else [result]
    tensors_of = [v.tensor if getattr(v, "_tapeflow_weak", False) else v for v in leaves_of]
    specs = [TensorSpec(tracer.static_shape(t), t.dtype) if isinstance(t, Tensor) else
             v._spec() if nest.is_composite(v) else v for v, t in zip(leaves_of, tensors_of)]
    output_specs = nest.pack_sequence_as(result, specs) if nest.is_nested(result) else specs[0]
    flat = nest.flatten(result, True) if structured else [result]
    weak = [getattr(v, "_tapeflow_weak", False) for v in flat]  # weak tensors: their tensors, rewrapped on return
    flat_tensors = [v.tensor if w else v for v, w in zip(flat, weak)]
    outputs, leaves, extra = [], [], {}
    for value, is_weak, t in zip(flat, weak, flat_tensors):
        if not isinstance(t, Tensor):
            leaves.append(value)  # None, any other object: returned as it is
            continue
        leaves.append(_WeakLeaf(len(outputs), type(value)) if is_weak else _Leaf(len(outputs)))
        outputs.append(t._id)
        extra[t._id] = t._value
    graph = trace.Graph(tracer.nodes, [p._id for p in placeholders], outputs, tracer.variables, tracer.created)
    graph.shapes_vary = tracer.shape_dynamic
    for i in graph.constants:
        leaked = leaks.leaked_name(i) if i < tracer.start_id else None  # (this trace's own constants are fine)
        if leaked is not None:  # a tensor another trace made, kept past its end (a global, an attribute)
            raise leaks.out_of_scope(tensor_of(i, graph.constants[i]), leaked)
    graph.stacks = tracer.stacks
    graph.poisoned = frozenset(tracer.poisoned)
    known = graph.known_ids()
    for i in outputs:
        if i not in known:  # a tensor made before the trace, returned as it is
            graph.constants[i] = extra[i]
    graph.variable_inputs = [v._id for v in variables]
    sizes = varying_sizes(tracer, placeholders) if tracer.shape_dynamic else None
    generic = sizes is not None and not tracer.shape_frozen and is_generic(graph, sizes)  # (as traced)
    passes.optimize(graph)
    if structured and any(nest.is_composite(v) for v in leaves_of):
        # A composite's spec holds what the graph fixes: a dense shape folded to a constant, else unknown sizes.
        specs = [v._static_spec(graph.constants, tracer.static_shape) if nest.is_composite(v) else s
                 for v, s in zip(leaves_of, specs)]
        output_specs = nest.pack_sequence_as(result, specs) if nest.is_nested(result) else specs[0]
    graph.input_names = {i: n.rsplit(":", 1)[0] for i, n in tracer.names.items()}
    graph.specs = value_specs(graph, tracer)
    for listener in TRACE_LISTENERS:  # (``tf.summary.trace_on``: the graphs of functions traced while it is on)
        listener(name, graph)
    graph.forget_values()  # before lowering: the program's line table keeps the equations it was made from
    plan = lower.lower(graph, name)
    structure = nest.pack_sequence_as(result, list(leaves), True) if structured else None
    program = Program(graph, plan, structure, leaves, [v._id for v in variables], output_specs)
    program.generic = generic
    return program

"""Control flow inside a traced function: ``tf.cond``, ``tf.switch_case`` and ``tf.while_loop`` as one graph node
each, holding its branches or its loop's condition and body as programs of their own (TF's ``If``, ``Case`` and
``While``).

Each branch or body is traced by a :class:`~tapeflow.compiler.trace.Tracer` of its own whose ``parent`` is the
enclosing trace (every branch is traced, in order, whichever the trace's values would take; TF traces them all
too, so a ``print`` in each runs once). A branch sees the enclosing trace's tensors directly: those whose values
depend on the inputs become *captures*, extra operands of the node; the others are constants of the branch. A
variable the branch reads (before assigning it) is read once outside, just before the node, and passed in as an
operand: so the tapes that record the node know it depends on the variable.

The node is an ordinary op (one :class:`~tapeflow._core.registry.Op` per node, never registered): its forward runs
the branch chosen, or the loop, with the generated code of each sub-program; its gradient is written with tapeflow's
own ops, so a tape inside or outside the function, and tapes around tapes, all get their derivatives:

- the gradient of a branch node is a branch node over the branches' gradients (each recomputes its branch op by
  op under a tape, with the same operands, and takes the gradient of its outputs);
- the gradient of a loop runs the loop once more keeping every iteration's loop variables (a ``WhileHistory``
  node, which is differentiable too), then a loop that goes back over them, from the last iteration to the first,
  taking the gradient of one iteration of the body at each step.

Outside a trace nothing here is used: ``tf.cond`` and ``tf.while_loop`` run as Python (``ops/control_flow_ops.py``)
and the tapes record the ops the branch or the iterations ran.
"""

from __future__ import annotations

import functools

import numpy as np

from .._core import errors, nest, observers
from .._core.dispatch import execute
from .._core.dtypes import TRAINABLE_NUMS
from .._core.equation import op_of, tensor_of
from .._core.registry import Op
from .._core.shape import TensorShape
from .._core.state import STATE, next_id
from .._core.tensor import EagerTensor, Tensor
from . import lower, passes, trace
from .program import as_outputs, replay_nodes
from .trace import Assign, Read

__all__ = ["tracing", "trace_sub", "graph_case", "graph_while", "pick_index", "refuse_predicate"]


def tracing():
    """Whether a trace is in progress on this thread (control flow then builds graph nodes)."""
    return STATE.tracer is not None


# ---------------------------------------------------------------------------------------------- sub-programs


class SubGraph:
    """One traced callable (a branch, a loop's condition or body) and, once ``_finish`` lowered it, its program.

    ``graph.inputs`` are, in order: the callable's own arguments (a loop's variables), the captures of the node,
    and one id per variable the node reads for it.
    """

    __slots__ = ("graph", "plan", "params", "structure", "flat", "leaf_specs", "reads", "captured", "assigned",
                 "stateful", "name")

    def __init__(self, name):
        self.name = name
        self.plan = None

    @property
    def specs(self):
        """``(dtype, shape)`` of each tensor the callable returned, in order."""
        return [s for s in self.leaf_specs if s is not None]

    def set_structure(self, structure):
        """Replace what the callable returned (a reconciled result: see ``graph_case``)."""
        flat = nest.flatten(structure) if nest.is_nested(structure) else [structure]
        specs = dict(zip(map(id, self.flat), self.leaf_specs))
        self.leaf_specs = [specs.get(id(v)) or ((v.dtype, tuple(v.shape)) if isinstance(v, Tensor) else None)
                           for v in flat]
        self.structure, self.flat = structure, flat
        known = self.graph.known_ids()
        for t in flat:
            if isinstance(t, Tensor) and t._id not in known:  # (a zeros stand-in made for an undefined value)
                self.graph.constants[t._id] = t._value


def _flat_result(result):
    """``(structure, flat leaves)`` of a branch's result, its values made tensors as a function's are (a
    TensorArray stands in the leaves as its buffer tensor)."""
    result = as_outputs(result)
    flat = nest.flatten(result) if nest.is_nested(result) else [result]
    return result, [_component(v) for v in flat]


def _is_array(value):
    from ..ops.tensor_array import TensorArray  # noqa: PLC0415

    return isinstance(value, TensorArray)


def _component(value):
    """The tensor that carries ``value`` through a graph node: a TensorArray's buffer, else the value itself."""
    return value._graph_buffer() if _is_array(value) else value


def _rebuilt(template, value):
    """``value`` (a node's output) in the form of ``template``, the leaf it stands for."""
    return template._with_buffer(value) if _is_array(template) else value


def trace_sub(fn, args, name, shapes=None):
    """Trace ``fn(*placeholders)`` (one placeholder per tensor of ``args``, shown with ``shapes`` when given) as a
    branch of the trace in progress; returns its :class:`SubGraph` (not yet lowered)."""
    parent = STATE.tracer
    tracer = trace.Tracer()
    tracer.parent = parent
    tracer.dynamic.update(parent.dynamic)
    tracer.static_shapes.update(parent.static_shapes)
    tracer.generalised = parent.generalised
    tracer.autograph = parent.autograph
    tracer.names = parent.names
    tracer.poisoned = dict(parent.poisoned)
    tracer.shape_dynamic = parent.shape_dynamic or (shapes is not None and any(
        s is None or None in s for s in shapes))
    placeholders = []
    for k, t in enumerate(args):
        p = trace.placeholder(t._value)
        placeholders.append(p)
        tracer.dynamic.add(p._id)
        shape = shapes[k] if shapes is not None else parent.static_shape(t).dims
        tracer.static_shapes[p._id] = shape
        if shape is None or None in shape:
            tracer.generalised = True
    observers.unlisten(parent)  # what the branch does is the branch's (an assignment in it is not the parent's)
    try:
        structure, flat = trace.run(tracer, lambda *a: _flat_result(fn(*a)), placeholders, {})
    finally:
        observers.listen(parent)
    for v in tracer.variables.values():
        parent.variables.setdefault(v._id, v)
    if tracer.created:
        if not parent.created:
            parent.created_at = tracer.created_at
        parent.created.extend(tracer.created)
    sub = SubGraph(name)
    sub.structure, sub.flat = structure, flat
    outputs = [t._id for t in flat if isinstance(t, Tensor)]
    sub.leaf_specs = [(t.dtype, tracer.static_shape(t).dims) if isinstance(t, Tensor) else None for t in flat]
    graph = trace.Graph(tracer.nodes, [p._id for p in placeholders], outputs, tracer.variables, ())
    graph.shapes_vary = tracer.shape_dynamic
    graph.stacks = tracer.stacks
    graph.poisoned = frozenset(tracer.poisoned)
    known = graph.known_ids()
    for t in flat:
        if isinstance(t, Tensor) and t._id not in known:  # a tensor of the enclosing trace, returned as it is
            graph.constants[t._id] = t._value
    # Tensors of the enclosing trace whose values depend on its inputs are operands of the node, not constants; so
    # are those an op failed to compute while tracing (the program computes them, or raises).
    sub.captured = {i: v for i, v in graph.constants.items() if i in parent.dynamic or i in parent.poisoned}
    for i in sub.captured:
        del graph.constants[i]
    passes.merge_common(graph)  # a variable read twice is read once (and so passed in once)
    sub.graph = graph
    sub.params = list(graph.inputs)
    sub.assigned = _assigned(graph.nodes)
    sub.stateful = bool(sub.assigned) or any(type(n) is tuple and op_of(n[0]).stateful for n in graph.nodes)
    sub.reads = {}
    return sub


def _assigned(nodes):
    """The ids of the variables that ``nodes`` assign, inside nested control flow too."""
    out = set()
    for n in nodes:
        if type(n) is Assign:
            out.add(n.variable._id)
        elif type(n) is tuple:
            body = _body_of(n)
            if body is not None:
                out |= body.assigned
    return out


def _body_of(node):
    attrs = node[1]
    body = attrs.get("body") if attrs else None
    return body if isinstance(body, _Body) else None


def _hoist(subs, loop):
    """Take the variable reads the node can do before it runs out of the sub-programs: in a branch, a read before
    the branch assigns that variable; in a loop, a read of a variable the loop never assigns. Returns the
    variables read, by id, in first-read order."""
    variables = {}
    never = set().union(*(s.assigned for s in subs)) if loop else set()
    for sub in subs:
        done = set(never)
        kept = []
        for n in sub.graph.nodes:
            if type(n) is Read and n.variable._id not in done and n.variable._id not in sub.reads:
                sub.reads[n.variable._id] = n.out
                variables.setdefault(n.variable._id, n.variable)
                continue
            if type(n) is Assign:
                done.add(n.variable._id)
            elif type(n) is tuple and _body_of(n) is not None:
                done |= _body_of(n).assigned
            kept.append(n)
        sub.graph.nodes = kept
    return variables


def _finish(subs, captures, variables):
    """Give every sub-program its inputs (own arguments, then ``captures``, then one per variable) and lower it."""
    for sub in subs:
        reads = [sub.reads.get(vid) or next_id() for vid in variables]
        sub.graph.inputs = sub.params + list(captures) + reads
        sub.graph.outputs = [t._id for t in sub.flat if isinstance(t, Tensor)]
        for i in sub.graph.inputs:
            sub.graph.constants.pop(i, None)
        passes.optimize(sub.graph)
        sub.graph.forget_values()
        sub.plan = lower.lower(sub.graph, sub.name)


def _operands(subs, loop):
    """The node's operands after its own ones: the captured tensors, then the variables read for it now."""
    captures = {}
    for sub in subs:
        for i, v in sub.captured.items():
            captures.setdefault(i, v)
    variables = _hoist(subs, loop)
    _finish(subs, captures, variables)
    tracer = STATE.tracer
    for sub in subs:
        for vid in sub.assigned:
            # The node changes the variable for real while this trace runs: the trace puts it back when it ends.
            variable = tracer.variables.get(vid)
            tracer.save(variable if variable is not None else _variable(subs, vid))
    reads = [v._read() for v in variables.values()]
    return [tensor_of(i, v) for i, v in captures.items()] + reads


def _variable(subs, vid):
    for sub in subs:
        v = sub.graph.variables.get(vid)
        if v is not None:
            return v
    raise errors.InternalError(None, None, "tf.function lost a variable of a branch")


def _run(sub, values):
    """Run a sub-program; an error in it is TensorFlow's, naming the op inside."""
    try:
        return sub.plan.run(*values)
    except Exception as exc:
        err = sub.plan.error(exc, sub.name, sub.graph.stacks)
        if err is None:
            raise
        raise err from None


class _Body:
    """What a control-flow node runs: its branches, or its loop's condition and body (the node's ``body``
    attribute; compared by identity)."""

    __slots__ = ("branches", "cond", "loop", "n_vars", "assigned", "op", "history_op", "pick", "shapes")

    def __init__(self, branches=(), cond=None, loop=None, n_vars=0):
        self.branches, self.cond, self.loop, self.n_vars = list(branches), cond, loop, n_vars
        subs = self.branches + [s for s in (cond, loop) if s is not None]
        self.assigned = set().union(*(s.assigned for s in subs))
        self.op = self.history_op = None
        self.pick = None
        self.shapes = ()  # a loop's variables' shapes, ``None`` where they vary


def _trainable(t):
    return t._value.dtype.num in TRAINABLE_NUMS


def _dense(g):
    if g is None or type(g) is EagerTensor:
        return g
    from ..ops._convert import to_tensor  # noqa: PLC0415 - an IndexedSlices gradient made dense

    return to_tensor(g)


# -------------------------------------------------------------------------------------------- branch nodes


def _case_forward(index, *operands, body):
    return _run(body.branches[body.pick(index)], operands)


def _pick_bool(pred):
    """``tf.cond``'s choice: the first branch when the predicate holds."""
    return 0 if pred else 1


def pick_index(n):
    """``tf.switch_case``'s choice among ``n`` branches: the index, or the last branch when out of range."""
    def pick(index):
        k = int(index)
        return k if 0 <= k < n else n - 1

    return pick


def _case_vjp(g, ans, index, *operands, body):
    gs = g if type(g) is tuple else (g,)
    ups = [_dense(x) for x in gs]
    if all(u is None for u in ups):
        return (None,) * (1 + len(operands))
    wrt = [k for k, t in enumerate(operands) if _trainable(t)]
    operands = list(operands)
    fns = [functools.partial(_graph_vjp, sub.graph, operands, wrt, ups) for sub in body.branches]
    if tracing():
        grads = graph_case(index, fns, body.pick, "gradients")
    else:
        grads = fns[body.pick(index._value)]()
    out = [None] * len(operands)
    for k, gr in zip(wrt, grads):
        out[k] = gr
    return (None, *out)


def _graph_vjp(graph, inputs, wrt, upstream):
    """Gradients of ``graph``'s outputs (weighted by ``upstream``, ``None`` where none flows) with respect to the
    inputs at positions ``wrt``, recomputing the graph op by op under a tape (zeros where unconnected)."""
    from .._core.tape import GradientTape, UnconnectedGradients  # noqa: PLC0415

    with GradientTape(persistent=False, watch_accessed_variables=False) as tape:
        for k in wrt:
            tape.watch(inputs[k])
        env = replay_nodes(graph, inputs, effects=False)
        outs = [env.get(i) if i in env else tensor_of(i, graph.constants[i]) for i in graph.outputs]
    pairs = [(o, u) for o, u in zip(outs, upstream) if u is not None and _trainable(o)]
    sources = [inputs[k] for k in wrt]
    grads = tape.gradient([o for o, _ in pairs], sources, output_gradients=[u for _, u in pairs],
                          unconnected_gradients=UnconnectedGradients.ZERO)
    return [_dense(gr) for gr in grads]


def refuse_predicate(pred):
    """TF's error for a ``tf.cond`` predicate in a traced function that is not a bool tensor (raised when the graph
    is built: on the call that traces it)."""
    return errors.InvalidArgumentError(
        None, None, f"Input 'pred' passed {_tf_type(pred.dtype)} expected bool while building NodeDef "
        "'cond/switch_pred/_2' using Op<name=Switch; signature=data:T, pred:bool -> output_false:T, "
        "output_true:T; attr=T:type>")


def graph_case(index, fns, pick=None, name="cond", reconcile=None):
    """The node that runs ``fns[pick(index)]()`` in a trace: ``pick`` is ``bool`` for ``tf.cond`` (true branch
    first), an index clamped to the last branch for ``tf.switch_case``. Returns the branches' common result.
    ``reconcile(subs)``, when given, may check and replace the branches' results (:meth:`SubGraph.set_structure`)
    once all are traced (AutoGraph's rules for variables a branch leaves undefined)."""
    if pick is None:
        pick = _pick_bool
    subs = [trace_sub(fn, (), f"{name}_branch{k}") for k, fn in enumerate(fns)]
    if reconcile is not None:
        reconcile(subs)
    _check_branches(subs, name)
    operands = _operands(subs, loop=False)
    body = _Body(subs)
    body.pick = pick
    count = len(subs[0].graph.outputs)
    stateful = any(s.stateful for s in subs)
    op = Op(("If" if stateful else "StatelessIf") if pick is _pick_bool else
            ("Case" if stateful else "StatelessCase"), _case_forward, num_outputs=count, same_dtype=False)
    op.multi_output = True
    op.stateful = stateful
    op.vjp = _case_vjp
    body.op = op
    results = execute(op, (index, *operands), {"body": body})
    tracer = STATE.tracer
    for t, shape in zip(results, _common_shapes(subs)):
        tracer.static_shapes[t._id] = shape
    return _pack(subs[0], results)


def _pack(sub, results):
    it = iter(results)
    templates = nest.flatten(sub.structure) if nest.is_nested(sub.structure) else [sub.structure]
    leaves = [_rebuilt(t, next(it)) if isinstance(v, Tensor) else v for t, v in zip(templates, sub.flat)]
    return nest.pack_sequence_as(sub.structure, leaves) if nest.is_nested(sub.structure) else leaves[0]


def _common_shapes(subs):
    """The most specific shape every branch's output agrees with (``None`` for an unknown rank)."""
    out = []
    for specs in zip(*(s.specs for s in subs)):
        shapes = [shape for _, shape in specs]
        first = shapes[0]
        if any(s is None or first is None or len(s) != len(first) for s in shapes):
            out.append(None)
        else:
            out.append(tuple(d if all(s[k] == d for s in shapes) else None for k, d in enumerate(first)))
    return out


def _describe_outputs(sub, nested=False):
    """The branch's result leaves, each tensor as TF prints it in the branch's graph: ``Tensor("cond/Identity:0",
    shape=(), dtype=float32)``, or inside a structure ``<tf.Tensor 'cond/Identity:0' shape=() dtype=float32>``."""
    names = [f"cond/Identity{'' if k == 0 else f'_{k}'}:0" for k in range(len(sub.specs))]
    shown = iter([f"<tf.Tensor '{n}' shape={TensorShape(shape)} dtype={dtype.name}>" if nested else
                  f'Tensor("{n}", shape={TensorShape(shape)}, dtype={dtype.name})'
                  for n, (dtype, shape) in zip(names, sub.specs)])
    return [_Text(next(shown)) if isinstance(v, Tensor) else v for v in sub.flat]


def _check_branches(subs, name):
    """TF's errors for branches whose results differ in structure or dtype."""
    first = subs[0]
    for other in subs[1:]:
        a, b = _describe_outputs(first), _describe_outputs(other)
        same_structure = True
        try:
            nest.assert_same_structure(first.structure, other.structure)
        except (ValueError, TypeError):
            same_structure = False
        detail = None
        if same_structure:
            if len(first.specs) != len(other.specs):  # (a tensor in one branch, None in the other)
                raise ValueError(f"Lengths of branch outputs of {name} must match.\nlen(graphs[0].outputs): "
                                 f"{len(first.specs)}\nlen(graphs[1].outputs): {len(other.specs)}\n")
            tensors_a = [x for x, spec in zip(a, first.leaf_specs) if spec is not None]
            tensors_b = [y for y, spec in zip(b, other.leaf_specs) if spec is not None]
            for x, y, (dx, _), (dy, _) in zip(tensors_a, tensors_b, first.specs, other.specs):
                if dx != dy:
                    detail = f"{x} and {y} have different types"
                    break
        elif len(first.flat) != len(other.flat):
            raise AssertionError([len(first.flat), len(other.flat)])
        else:
            detail = "The two structures don't have the same nested structure."
        if detail is not None:
            shown_a = _shown(first)
            shown_b = _shown(other)
            raise TypeError(f"true_fn and false_fn arguments to tf.{name} must have the same number, type, and "
                            f"overall structure of return values.\n\ntrue_fn output: {shown_a}\nfalse_fn output: "
                            f"{shown_b}\n\nError details:\n{detail}")


def _shown(sub):
    if not nest.is_nested(sub.structure):
        return _describe_outputs(sub)[0]
    return str(nest.pack_sequence_as(sub.structure, _describe_outputs(sub, nested=True)))


class _Text(str):
    def __repr__(self):
        return str(self)


# ----------------------------------------------------------------------------------------------- loop nodes


def _while_forward(*operands, body):
    n = body.n_vars
    state, rest = operands[:n], operands[n:]
    test, step = body.cond, body.loop
    while _run(test, state + rest)[0]:
        state = _run(step, state + rest)
    return tuple(state)


def _history_forward(*operands, body):
    """The loop, keeping every iteration's loop variables (the first is the loop's input, the last its output):
    the final loop variables (what the loop itself returns), then per variable the values stacked and padded with
    zeros to the largest shape, then per variable the true shapes (an int64 ``[iterations + 1, rank]`` array)."""
    n = body.n_vars
    state, rest = operands[:n], operands[n:]
    kept = [[np.asarray(s)] for s in state]
    test, step = body.cond, body.loop
    while _run(test, state + rest)[0]:
        state = _run(step, state + rest)
        for k, s in zip(kept, state):
            k.append(np.asarray(s))
    stacks, shapes = [], []
    for values in kept:
        dims = np.array([v.shape for v in values], dtype=np.int64).reshape(len(values), values[0].ndim)
        if all(v.shape == values[0].shape for v in values):
            stacks.append(np.stack(values))
        else:  # a loop variable whose shape changes (a growing TensorArray): padded to the largest
            stack = np.zeros((len(values),) + tuple(dims.max(axis=0)), values[0].dtype)
            for k, v in enumerate(values):
                stack[(k,) + tuple(slice(0, d) for d in v.shape)] = v
            stacks.append(stack)
        shapes.append(dims)
    return tuple(state) + tuple(stacks) + tuple(shapes)


def _while_vjp(g, ans, *operands, body):
    gs = g if type(g) is tuple else (g,)
    if all(x is None for x in gs):
        return (None,) * len(operands)
    if body.assigned and not tracing():
        raise assigning_loop_error()
    # The loop again, keeping its iterations (in a traced program, ``passes.fuse_loops`` makes the loop and this
    # one node: the loop runs once).
    history = execute(body.history_op, operands, {"body": body})
    return _loop_backward(body, list(history[body.n_vars:]), list(operands), final=[_dense(x) for x in gs],
                          per_step=None)


def assigning_loop_error():
    """The error for the gradient of a loop that assigns variables, where it would have to run again."""
    return errors.UnimplementedError(
        None, None, "tapeflow cannot yet differentiate a traced tf.while_loop whose body assigns variables from a "
        "tape outside the function (running the loop again would assign them again); take the gradient with a tape "
        "inside the function")


def _history_vjp(g, ans, *operands, body):
    gs = g if type(g) is tuple else (g,)
    n = body.n_vars
    finals, per_step = [_dense(x) for x in gs[:n]], [_dense(x) for x in gs[n:2 * n]]  # (the shapes get none)
    if all(x is None for x in finals + per_step):
        return (None,) * len(operands)
    return _loop_backward(body, list(ans[n:]), list(operands), final=finals, per_step=per_step)


def _loop_backward(body, history, operands, final, per_step):
    """The gradients of a loop with respect to its operands, from the upstream gradients of its ``final`` loop
    variables and/or of each iteration's (``per_step``, the gradient of :func:`_history_forward`'s stacks): a loop
    from the last iteration back to the first, each step the gradient of one run of the body."""
    from ..ops.array_ops import shape, zeros_like  # noqa: PLC0415 - (the ops import the compiler lazily)
    from ..ops.control_flow_ops import LOOP_HISTORY_READ, while_loop  # noqa: PLC0415

    n = body.n_vars
    stacks, shapes = history[:n], history[n:]
    state0, rest = operands[:n], operands[n:]
    fv = [j for j in range(n) if _trainable(state0[j])]
    fr = [j for j in range(len(rest)) if _trainable(rest[j])]
    wrt = fv + [n + j for j in fr]
    count = shape(stacks[0])[0] - 1

    def read(stack, j, k):
        return execute(LOOP_HISTORY_READ, (stack, shapes[j], k))

    def step_grad(j, k):
        return None if per_step is None or per_step[j] is None else read(per_step[j], j, k)

    first = []
    for j in fv:
        g = final[j] if final is not None and final[j] is not None else zeros_like(state0[j])
        extra = step_grad(j, count)
        first.append(g if extra is None else g + extra)
    first += [zeros_like(rest[j]) for j in fr]
    loop_graph = body.loop.graph

    def cond(k, *acc):
        return k >= 0

    def step(k, *acc):
        at_k = [read(h, j, k) for j, h in enumerate(stacks)]
        upstream = [None] * n
        for j, g in zip(fv, acc[:len(fv)]):
            upstream[j] = g
        grads = _graph_vjp(loop_graph, at_k + list(rest), wrt, upstream)
        new = []
        for j, gr in zip(fv, grads[:len(fv)]):
            extra = step_grad(j, k)
            new.append(gr if extra is None else gr + extra)
        new += [a + b for a, b in zip(acc[len(fv):], grads[len(fv):])]
        return (k - 1, *new)

    # Gradients of loop variables whose shape varies vary too: their shapes are left open.
    open_shapes = [TensorShape(body.shapes[j] if body.shapes[j] is None else [
        None if None in body.shapes[j] else d for d in body.shapes[j]]) for j in fv]
    open_shapes += [TensorShape(rest[j].shape) for j in fr]
    result = while_loop(cond, step, [count - 1, *first], shape_invariants=[TensorShape([]), *open_shapes])
    out = [None] * len(operands)
    for position, gr in zip(wrt, result[1:]):
        out[position] = gr
    return tuple(out)


def graph_while(cond, body, loop_vars, shape_invariants=None):
    """The node that runs ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds, in a trace (the
    arguments already checked by ``tf.while_loop``). Returns the final loop variables in ``loop_vars``' nesting."""
    from ..ops._convert import to_tensor  # noqa: PLC0415

    structure = loop_vars
    templates = nest.flatten(loop_vars)
    tracer = STATE.tracer
    if any(_is_array(t) and t._buffer is None for t in templates):
        templates = _first_buffers(body, structure, templates)
    tensors = [_component(v) if _is_array(v) else to_tensor(v) for v in templates]
    shapes = [tracer.static_shape(t).dims for t in tensors]
    if shape_invariants is not None:
        invariants = nest.flatten(shape_invariants)
        shapes = [TensorShape(s).dims for s in invariants]
    # A dynamic TensorArray's buffer grows in the loop: its first dimension varies.
    shapes = [(None,) + tuple(shape[1:]) if _is_array(t) and t.dynamic_size and shape else shape
              for t, shape in zip(templates, shapes)]

    def unpack(flat):
        return nest.pack_sequence_as(structure, [_rebuilt(t, v) for t, v in zip(templates, flat)])

    def run_body(*a):
        result = body(*unpack(a))
        # A one-variable loop's body may return the variable alone.
        return [result] if len(tensors) == 1 and not nest.is_nested(result) else result

    test = trace_sub(lambda *a: cond(*unpack(a)), tensors, "while_cond", shapes)
    step = trace_sub(run_body, tensors, "while_body", shapes)
    _check_loop(structure, tensors, shapes, test, step, tracer)
    structure = nest.pack_sequence_as(structure, templates)
    operands = _operands([test, step], loop=True)
    loop = _Body(cond=test, loop=step, n_vars=len(tensors))
    stateful = test.stateful or step.stateful
    op = Op("While" if stateful else "StatelessWhile", _while_forward, num_outputs=len(tensors), same_dtype=False)
    op.multi_output = True
    op.stateful = stateful
    op.vjp = _while_vjp
    loop.shapes = shapes
    history = Op("WhileHistory", _history_forward, num_outputs=3 * len(tensors), same_dtype=False)
    history.multi_output = True
    history.vjp = _history_vjp
    loop.op, loop.history_op = op, history
    results = execute(op, (*tensors, *operands), {"body": loop})
    for t, shape in zip(results, shapes):
        tracer.static_shapes[t._id] = shape
    return unpack(results)


def _first_buffers(body, structure, templates):
    """The loop variables with a buffer for each TensorArray not yet written: zeros of the element shape one run
    of the body (traced and set aside) writes."""
    def probe():
        return body(*nest.pack_sequence_as(structure, templates))

    sub = trace_sub(lambda: probe(), (), "loop_probe")
    after = nest.flatten(sub.structure) if nest.is_nested(sub.structure) else [sub.structure]
    out = []
    for t, a in zip(templates, after):
        if _is_array(t) and t._buffer is None:
            if not _is_array(a) or a._buffer is None:
                t._graph_buffer()  # (raises TF's error for an array of unknown element shape)
            t = t._with_buffer(t._zeros(a.element_shape))
        out.append(t)
    return out


def _check_loop(structure, tensors, shapes, test, step, tracer):
    """TF's errors for a loop whose condition is not one boolean, or whose body changes the loop variables'
    nesting, dtypes or shapes."""
    from ..ops.control_flow_ops import _assert_same_structure  # noqa: PLC0415

    if len(test.flat) != 1 or not isinstance(test.flat[0], Tensor) or test.specs[0][0].name != "bool":
        got = test.specs[0][0] if test.specs else None
        raise errors.InvalidArgumentError(
            None, None, f"Input 'input' passed {_tf_type(got)} expected bool while building NodeDef "
            "'while/LoopCond' using Op<name=LoopCond; signature=input:bool -> output:bool>")
    result = step.structure
    _assert_same_structure(list(result) if type(result) is tuple else result, list(structure))
    for t, (dtype, shape), want in zip(tensors, step.specs, shapes):
        name = tracer.name_of(t)
        if dtype != t.dtype:
            raise TypeError(f"Loop var {name} enters the loop with type {t.dtype} but has type {dtype} after 1 "
                            f"iteration. {name} type should remain constant.")
        if not _compatible(shape, want):
            raise ValueError(f"Input tensor `{name}` enters the loop with shape {TensorShape(want)}, but has shape "
                             f"{TensorShape(shape)} after one iteration. To allow the shape to vary across "
                             "iterations, use the `shape_invariants` argument of tf.while_loop to specify a "
                             "less-specific shape.")


def _compatible(shape, want):
    if want is None:
        return True
    if shape is None or len(shape) != len(want):
        return False
    return all(w is None or s == w for s, w in zip(shape, want))


def _tf_type(dtype):
    if dtype is None:
        return "nothing"
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)

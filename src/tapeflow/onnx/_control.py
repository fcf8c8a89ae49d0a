"""Control flow: the graph nodes of ``tf.while_loop`` (and AutoGraph's loops on tensors), ``tf.cond`` and
``tf.switch_case`` (``compiler/control_flow.py``) as ONNX ``Loop`` and ``If``.

Each branch, loop condition and loop body is a program of its own; it is emitted as an ONNX subgraph with the
same lowerings as the function around it. Its shapes come from running it on the node's inputs in the two runs of
the export (a loop's body on the loop variables as they enter the loop). A subgraph reads the node's captured
tensors and the variables read for it by their names in the enclosing graph, as ONNX lets a subgraph do.

- A loop: its condition is emitted once before the ``Loop`` (whether to run the first iteration) and once at the
  end of the body (whether to run the next one), as TF's ``While`` tests it; ONNX's ``Loop`` runs while that
  condition holds, with no trip count.
- ``tf.cond``: an ``If`` on the predicate. ``tf.switch_case``: ``If`` nodes on ``index == k`` nested in each
  other's else branch, an index out of range taking the last branch (TF's default branch).
"""

from __future__ import annotations

import numpy as np

from ..compiler.control_flow import _Body, _pick_bool

__all__ = ["is_control", "lower"]


def _body(node):
    attrs = node[1]
    body = attrs.get("body") if attrs else None
    return body if isinstance(body, _Body) else None


def is_control(node):
    """Whether the equation ``node`` is a control-flow node."""
    return _body(node) is not None


def _sub(cx, graph, input_names, first_values, second_values):
    """Emit ``graph`` (a branch, condition or body) on inputs named ``input_names`` whose values in the two runs are
    given; returns its outputs' names and their values in the two runs."""
    from ..compiler.program import replay_nodes  # noqa: PLC0415
    from ._export import lower_graph  # noqa: PLC0415 - the module that imports this one

    runs = []
    for values in (first_values, second_values):
        env = replay_nodes(graph, [_tensor(v) for v in values])
        out = {i: t._value for i, t in env.items()}
        for i in graph.outputs:
            if i not in out:
                out[i] = graph.constants[i]
        runs.append(out)
    name_of = lower_graph(cx, graph, runs[0], runs[1], input_names, prefix=cx.fresh("s") + "_")
    outs = graph.outputs
    return [name_of(i) for i in outs], [runs[0][i] for i in outs], [runs[1][i] for i in outs]


def _tensor(value):
    from .._core.tensor import constant_of  # noqa: PLC0415

    return constant_of(value)


def _info(cx, name, value, shaped=True):
    arr = np.asarray(value)
    shape = list(arr.shape) if shaped else None
    return cx.onnx.helper.make_tensor_value_info(name, cx.onnx_type(arr.dtype), shape)


def _graph(cx, name, nodes, inputs, outputs):
    return cx.onnx.helper.make_graph(nodes, cx.fresh(name), inputs, outputs)


def _outputs_of(cx, names, values):
    """Fresh output names for a subgraph (an Identity of each result: a subgraph's outputs are its own)."""
    infos = []
    for name, value in zip(names, values):
        out = cx.add("Identity", [name])
        infos.append(_info(cx, out, value, shaped=False))
    return infos


def _while(cx, body, node, in_names, out_names, first, second):
    ins = node[6::2]
    n = body.n_vars
    a = [first[i] for i in ins]
    b = [second[i] for i in ins]
    outer = in_names[n:]
    doc = cx.doc
    cond_init, _, _ = _sub(cx, body.cond.graph, in_names, a, b)
    cx.push()
    iteration, cond_in = cx.fresh("iteration"), cx.fresh("cond_in")
    carried = [cx.fresh("loop_var") for _ in range(n)]
    new, new_a, new_b = _sub(cx, body.loop.graph, carried + outer, a, b)
    again, _, _ = _sub(cx, body.cond.graph, new + outer, new_a + a[n:], new_b + b[n:])
    outputs = _outputs_of(cx, again + new, [np.bool_(True)] + new_a)
    nodes = cx.pop()
    inputs = [_info(cx, iteration, np.int64(0)), _info(cx, cond_in, np.bool_(True))]
    inputs += [_info(cx, name, value, shaped=False) for name, value in zip(carried, a[:n])]
    graph = _graph(cx, "while_body", nodes, inputs, outputs)
    cx.doc = doc
    cx.add("Loop", ["", cond_init[0]] + in_names[:n], out=list(out_names), body=graph)


def _branch_graph(cx, sub, operands, a, b, k):
    cx.push()
    outs, outs_a, _ = _sub(cx, sub.graph, operands, a, b)
    outputs = _outputs_of(cx, outs, outs_a)
    return _graph(cx, f"branch{k}", cx.pop(), [], outputs)


def _case(cx, body, node, in_names, out_names, first, second):
    ins = node[6::2]
    a = [first[i] for i in ins[1:]]
    b = [second[i] for i in ins[1:]]
    operands = in_names[1:]
    doc = cx.doc
    graphs = [_branch_graph(cx, sub, operands, a, b, k) for k, sub in enumerate(body.branches)]
    cx.doc = doc
    if body.pick is _pick_bool:
        cx.add("If", [in_names[0]], out=list(out_names), then_branch=graphs[0], else_branch=graphs[1])
        return
    index = in_names[0]
    index_dtype = np.asarray(first[ins[0]]).dtype
    last = len(graphs) - 1

    def choose(k, outs):
        """``If(index == k)``: branch ``k``, else the choice among the branches after it (the last one whatever
        the index is, when it is reached)."""
        test = cx.add("Equal", [index, cx.const(np.asarray(k, index_dtype))])
        if k + 1 == last:
            rest = graphs[last]
        else:
            cx.push()
            inner = [cx.fresh("case") for _ in out_names]
            choose(k + 1, inner)
            values = [first[o] for o in (node[4] if type(node[4]) is tuple else (node[4],))]
            outputs = [_info(cx, cx.add("Identity", [name]), v, shaped=False) for name, v in zip(inner, values)]
            rest = _graph(cx, "case_rest", cx.pop(), [], outputs)
        cx.add("If", [test], out=list(outs), then_branch=graphs[k], else_branch=rest)

    if last == 0:  # one branch: it runs whatever the index
        again = _branch_graph(cx, body.branches[0], operands, a, b, 1)
        cx.add("If", [cx.const(np.bool_(True))], out=list(out_names), then_branch=graphs[0], else_branch=again)
        return
    choose(0, out_names)


def lower(cx, node, in_names, out_names, first, second, where):
    """Emit the control-flow node ``node`` (inputs ``in_names``) writing ``out_names``."""
    body = _body(node)
    if body.loop is not None:
        _while(cx, body, node, in_names, out_names, first, second)
    else:
        _case(cx, body, node, in_names, out_names, first, second)

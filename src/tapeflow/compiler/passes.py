"""Passes over a traced graph, each keeping what the function computes and does.

- :func:`fold_constants`: an op whose inputs are all constants (tensors the function closed over, constants it
  made, results of other folded ops) is replaced by the value the trace computed for it. Stateful ops (random
  numbers, printing) are never folded, nor ops that failed while tracing (the program raises their error).
- :func:`simplify`: an op that gives back one of its inputs unchanged is dropped and its uses read that input:
  ``x * 1``, ``x / 1``, ``x ** 1``, ``x - 0``, ``x + (-0.0)`` (never ``x + 0``: ``-0.0 + 0.0`` is ``+0.0``), a
  reshape, squeeze, expand or broadcast to the shape ``x`` has, a cast to its own dtype, a sum over no axis or
  axes of length one kept, an identity, a transpose that keeps the order or undoes the transpose before it,
  ``-(-x)``. Backward graphs are full of them (unbroadcasts that broadcast nothing, gradients of reshapes). In a
  graph whose shapes vary between runs, only the drops that hold for every shape are made. A ``DivNoNan`` by a
  constant with no zero in it becomes the plain division it then is.
- :func:`merge_common`: an op applied again to the same inputs with the same attributes reuses the first result,
  and a variable read again with no assignment to it in between reuses the first read.
- :func:`fuse_loops`: a loop whose gradient the graph takes runs once: the node that runs it again keeping its
  iterations (``WhileHistory``, ``control_flow.py``) takes the loop's place and gives its outputs too.
- :func:`drop_dead`: what neither an output nor an effect (an assignment, a stateful op) needs is dropped: the
  gradients of a ``tape.gradient`` call nobody uses, reads of variables whose value is unused.
"""

from __future__ import annotations

import numpy as np

from .._core.equation import freeze_attrs, op_of
from .trace import Assign, Read

__all__ = ["fuse_loops", "fold_constants", "simplify", "merge_common", "drop_dead", "optimize"]


def _custom_call(node):
    attrs = node[1]
    call = attrs.get("call") if attrs else None
    return call if call is not None and hasattr(call, "result_ids") else None


def _outputs(node):
    outs = node[4]
    return outs if type(outs) is tuple else (outs,)


def _assigned_by(node):
    """The ids of the variables a control-flow node assigns in its branches or loop (``control_flow.py``)."""
    attrs = node[1]
    body = attrs.get("body") if attrs else None
    return getattr(body, "assigned", ())


def _renamed(graph, node, alias):
    """``node`` (an equation) reading ``alias[i]`` for each input ``i`` that ``alias`` renames (the same node when
    none is), keeping the user's frames it was made at."""
    ids = node[6::2]
    if not any(i in alias for i in ids):
        return node
    new = node[:6] + tuple(x for i, v in zip(ids, node[7::2]) for x in (alias.get(i, i), v))
    graph.stacks[id(new)] = graph.stacks.get(id(node), ())
    return new


def fuse_loops(graph):
    """Replace each loop node that a ``WhileHistory`` node of the same loop and operands repeats by that node, put
    where the loop was (in place); returns how many loops were fused."""
    loops = {}  # (loop body, operand ids) -> position of the loop node
    fused = {}  # position of a loop node -> the history node taking its place
    alias = {}
    for k, node in enumerate(graph.nodes):
        if type(node) is not tuple:
            continue
        body = _body(node)
        if body is None or getattr(body, "history_op", None) is None:
            continue
        op = op_of(node[0])
        key = (id(body), node[6::2])
        if op is body.op:
            loops[key] = k
        elif op is body.history_op and key in loops and loops[key] not in fused:
            loop = graph.nodes[loops[key]]
            n = body.n_vars
            outs = tuple(_outputs(loop)) + node[4][n:]
            merged = node[:4] + (outs, node[5]) + node[6:]
            graph.stacks[id(merged)] = graph.stacks.get(id(loop), ())
            fused[loops[key]] = merged
            alias.update(zip(node[4][:n], _outputs(loop)))
            fused[k] = None
        elif op is body.history_op and body.assigned:
            # The loop would run a second time, assigning its variables again.
            from .control_flow import assigning_loop_error  # noqa: PLC0415

            raise assigning_loop_error()
    if not fused:
        return 0
    kept = []
    for k, node in enumerate(graph.nodes):
        if k in fused:
            node = fused[k]
            if node is None:
                continue
        elif type(node) is tuple:
            node = _renamed(graph, node, alias)
        elif type(node) is Assign and node.value in alias:
            node.value = alias[node.value]
        kept.append(node)
    graph.nodes = kept
    graph.outputs = [alias.get(i, i) for i in graph.outputs]
    return sum(1 for v in fused.values() if v is not None)


def _body(node):
    attrs = node[1]
    return attrs.get("body") if attrs else None


def fold_constants(graph):
    """Fold ops on constants alone into their traced values (in place); returns how many were folded."""
    constants = graph.constants
    poisoned = graph.poisoned
    kept, folded = [], 0
    for node in graph.nodes:
        if type(node) is tuple and not op_of(node[0]).stateful and _custom_call(node) is None and not (
                poisoned and any(o in poisoned for o in _outputs(node))):
            ids = node[6::2]
            if all(i in constants for i in ids):
                outs, results = node[4], node[5]
                if type(outs) is tuple:
                    constants.update(zip(outs, results))
                else:
                    constants[outs] = results
                folded += 1
                continue
        kept.append(node)
    graph.nodes = kept
    return folded


def simplify(graph):
    """Drop the ops whose result is one of their inputs unchanged (in place; see the module docstring); returns how
    many were dropped."""
    if any(type(n) is tuple and _custom_call(n) is not None for n in graph.nodes):
        return 0  # a custom call's outputs name its results by id: left as traced
    constants = graph.constants
    shapes_vary = graph.shapes_vary
    producers = {}  # output id -> its equation, for patterns over two ops (transpose of transpose, -(-x))
    alias, kept = {}, []
    for node in graph.nodes:
        kind = type(node)
        if kind is Assign:
            if node.value is not None and node.value in alias:
                node.value = alias[node.value]
        elif kind is tuple:
            node = _renamed(graph, node, alias)
            if node[0] == "DivNoNan" and node[8] in constants and _nowhere_zero(constants[node[8]]):
                node = ("RealDiv",) + node[1:]  # the same quotient without the test for zero (a mean's count)
            same = _unchanged_input(node, constants, producers, shapes_vary)
            if same is not None:
                alias[node[4]] = same
                continue
            outs = node[4]
            for o in outs if type(outs) is tuple else (outs,):
                producers[o] = node
        kept.append(node)
    dropped = len(graph.nodes) - len(kept)
    graph.nodes = kept
    graph.outputs = [alias.get(i, i) for i in graph.outputs]
    return dropped


_ONES = {"Mul": 1, "RealDiv": 1, "Div": 1, "Pow": 1}  # ops whose neutral element is one (``x ** 1`` is ``x``)


def _unchanged_input(node, constants, producers, shapes_vary=False):
    """The id of the input that ``node`` gives back unchanged (same dtype, shape and values), or ``None``. Where
    shapes vary between runs, an op that only kept the shape in the trace is not known to keep it."""
    if type(node[4]) is tuple or node[1] and _custom_call(node) is not None:
        return None
    op = op_of(node[0])
    if op.stateful:
        return None
    name, out = op.name, node[5]
    ids, values = node[6::2], node[7::2]
    if out is None or not ids:
        return None
    first, x = ids[0], values[0]

    def same_as(v):
        return getattr(v, "shape", None) == getattr(out, "shape", ()) and getattr(v, "dtype", None) == out.dtype

    if name in ("Identity", "Cast") or name in ("Reshape", "Squeeze", "ExpandDims", "BroadcastTo", "Sum") and (
            not shapes_vary):
        return first if same_as(x) else None
    if name == "Transpose":
        perm = tuple((node[1] or {}).get("perm") or ())
        if perm == tuple(range(len(perm))) and same_as(x):
            return first
        inner = producers.get(first)
        if inner is not None and op_of(inner[0]).name == "Transpose" and same_as(inner[7]):
            before = tuple((inner[1] or {}).get("perm") or ())
            if len(before) == len(perm) and all(before[p] == k for k, p in enumerate(perm)):
                return inner[6]
        return None
    if name == "Neg":
        inner = producers.get(first)
        if inner is not None and op_of(inner[0]).name == "Neg" and same_as(inner[7]):
            return inner[6]
        return None
    if len(ids) != 2:
        return None
    a, b = ids
    if name in ("Mul", "AddV2"):  # (either side may be the constant)
        for keep, const in ((a, b), (b, a)):
            if const in constants and _neutral(name, constants[const]) and same_as(values[ids.index(keep)]):
                return keep
        return None
    if name in ("RealDiv", "Div", "Sub", "Pow") and b in constants and _neutral(name, constants[b]) and \
            same_as(values[0]):
        return a
    return None


def _nowhere_zero(value):
    v = np.asarray(value)
    return v.dtype.kind in "fc" and v.size > 0 and bool(np.all(v != 0))


def _neutral(name, value):
    """Whether the constant ``value`` leaves every ``x`` unchanged under the op ``name`` (bit for bit)."""
    v = np.asarray(value)
    if v.dtype.kind not in "fiuc" or v.size == 0:
        return False
    if name in _ONES:
        return bool(np.all(v == 1))
    if v.dtype.kind != "f":
        return bool(np.all(v == 0))
    if name == "Sub":  # x - (+0.0) is x, -0.0 included
        return bool(np.all(v == 0) and not np.any(np.signbit(v)))
    return bool(np.all(v == 0) and np.all(np.signbit(v)))  # x + (-0.0) is x; x + (+0.0) turns -0.0 into +0.0


def merge_common(graph):
    """Reuse the first of equal computations (in place); returns how many nodes were merged away."""
    if any(type(n) is tuple and _custom_call(n) is not None for n in graph.nodes):
        return 0  # a custom call's outputs name its results by id: left as traced
    seen, reads, alias, kept = {}, {}, {}, []
    for node in graph.nodes:
        kind = type(node)
        if kind is Read:
            vid = node.variable._id
            if vid in reads:
                alias[node.out] = reads[vid]
                continue
            reads[vid] = node.out
        elif kind is Assign:
            reads.pop(node.variable._id, None)
            if node.value is not None:
                node.value = alias.get(node.value, node.value)
        else:
            for vid in _assigned_by(node):
                reads.pop(vid, None)
            node = _renamed(graph, node, alias)
            if not op_of(node[0]).stateful:
                try:
                    key = (node[0], freeze_attrs(node[1]), node[6::2])
                    hash(key)
                except TypeError:  # attributes that cannot be compared: never merged
                    key = None
                if key is not None:
                    first = seen.get(key)
                    if first is not None:
                        alias.update(zip(_outputs(node), _outputs(first)))
                        continue
                    seen[key] = node
        kept.append(node)
    merged = len(graph.nodes) - len(kept)
    graph.nodes = kept
    graph.outputs = [alias.get(i, i) for i in graph.outputs]
    return merged


def drop_dead(graph):
    """Drop the nodes that no output and no effect needs (in place); returns how many were dropped."""
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        kind = type(node)
        if kind is Assign:
            if node.value is not None:
                live.add(node.value)
            kept.append(node)
        elif kind is Read:
            if node.out in live:
                kept.append(node)
        else:
            call = _custom_call(node)
            needed = op_of(node[0]).stateful or any(o in live for o in _outputs(node))
            if not needed:
                continue
            if call is not None:
                live.update(i for i in call.result_ids if i is not None)
                live.update(node[6::2])  # (a gradient that recomputes the call makes it again from its inputs)
            else:
                live.update(node[6::2])
            kept.append(node)
    dropped = len(graph.nodes) - len(kept)
    kept.reverse()
    graph.nodes = kept
    used = set(live)
    graph.constants = {i: v for i, v in graph.constants.items() if i in used}
    return dropped


def optimize(graph):
    """Run the passes in order; returns ``{pass name: nodes removed}``."""
    return {"fuse_loops": fuse_loops(graph), "fold_constants": fold_constants(graph), "simplify": simplify(graph),
            "merge_common": merge_common(graph), "drop_dead": drop_dead(graph)}

"""A traced graph's nodes as JSON, control flow included, and back.

A graph record is ``{"inputs": [ids], "outputs": [ids], "nodes": [...], "constants": {id: encoded array}}``, each
node one of::

    {"op": "AddV2", "module": "tapeflow.ops.math_ops", "attrs": {...}, "in": [3, 4], "out": 9}
    {"read": 1, "out": 7}                                     # object 1 (a variable) read as id 7
    {"assign": 1, "method": "assign_add", "value": 9}         # or "constant": <encoded array>
    {"body": 0, "role": "op", "in": [...], "out": [...]}      # a control-flow node running body 0
    {"body": 0, "role": "history", "in": [...], "out": [...]} # a loop kept with its iterations (for gradients)

Control-flow nodes (``tf.cond``, ``tf.switch_case``, ``tf.while_loop`` in a trace) are ops made per node, not
registered: they refer to a *body* in the function's ``bodies`` list, written once however many nodes share it::

    {"kind": "case", "name": "StatelessIf", "stateful": false, "num_outputs": 1, "pick": "bool" | <branches>,
     "branches": [<graph record>, ...]}
    {"kind": "while", "name": "StatelessWhile", "stateful": false, "n_vars": 2, "shapes": [[null, 3], ...],
     "cond": <graph record>, "loop": <graph record>}

Loading rebuilds the bodies with the forward and gradient rules of :mod:`tapeflow.compiler.control_flow`, so a tape
differentiates through them as through a freshly traced function.
"""

from __future__ import annotations

import importlib
import re

from .._core.registry import REGISTRY, Op
from ..compiler import control_flow as cf
from ..compiler import lower, trace
from ._encoding import Unsavable, decode

__all__ = ["GraphEncoder", "GraphDecoder"]


def _op_module(op):
    return getattr(getattr(op, "forward", None), "__module__", None)


class GraphEncoder:
    """Encodes the graphs of one function; ``bodies`` collects its control-flow bodies."""

    def __init__(self, encode, variable_index, where):
        self.encode, self.variable_index, self.where = encode, variable_index, where
        self.bodies = []
        self._body_index = {}

    def graph(self, graph):
        nodes = [self._node(n) for n in graph.nodes]
        return {"inputs": list(graph.inputs), "outputs": list(graph.outputs), "nodes": nodes,
                "constants": {str(i): self.encode.array(v) for i, v in graph.constants.items()}}

    def _node(self, node):
        if type(node) is trace.Read:
            return {"read": self.variable_index(node.variable), "out": node.out}
        if type(node) is trace.Assign:
            value = {"value": node.value} if node.constant is None else {"constant": self.encode.array(node.constant)}
            return {"assign": self.variable_index(node.variable), "method": node.method, **value}
        key, attrs, outputs = node[0], node[1], node[4]
        ins, outs = list(node[6::2]), list(outputs) if type(outputs) is tuple else outputs
        body = attrs.get("body") if attrs else None
        if isinstance(body, cf._Body):
            op = key if isinstance(key, Op) else REGISTRY.get(key)
            role = "history" if op is body.history_op else "op"
            return {"body": self._body(body), "role": role, "in": ins, "out": outs}
        op = REGISTRY.get(key) if isinstance(key, str) else None
        if op is None:
            name = getattr(key, "name", key)
            detail = " (a custom gradient's call)" if attrs and "call" in attrs else ""
            raise Unsavable(f"{self.where} uses {name}{detail}, which is not a registered op and cannot be saved")
        try:
            attrs_data = {k: self.encode(v) for k, v in attrs.items()} if attrs else {}
        except Unsavable as exc:
            raise Unsavable(f"{self.where}: an attribute of its {op.name} op is a {exc}, which has no file "
                            "spelling") from None
        return {"op": key, "module": _op_module(op), "attrs": attrs_data, "in": ins, "out": outs}

    def _body(self, body):
        k = self._body_index.get(id(body))
        if k is not None:
            return k
        k = self._body_index[id(body)] = len(self.bodies)
        self.bodies.append(None)  # its place, before nested bodies take theirs
        op = body.op
        record = {"name": op.name, "stateful": bool(op.stateful), "num_outputs": op.num_outputs}
        if body.branches:
            if body.pick is cf._pick_bool:
                pick = "bool"
            else:
                pick = len(body.branches)
            record.update(kind="case", pick=pick, branches=[self.graph(s.graph) for s in body.branches])
        else:
            record.update(kind="while", n_vars=body.n_vars,
                          shapes=[None if s is None else list(s) for s in body.shapes],
                          cond=self.graph(body.cond.graph), loop=self.graph(body.loop.graph))
        self.bodies[k] = record
        return k


# --- reading ----------------------------------------------------------------------------------------------------
_DYNAMIC = re.compile(r"Unpack(\d+)")


def _find_op(key, module):
    op = REGISTRY.get(key)
    if op is None and module:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
        op = REGISTRY.get(key)
    match = _DYNAMIC.fullmatch(key)
    if op is None and match:
        from ..ops.array_ops import _Unpack

        op = _Unpack.get(int(match.group(1)))
    if op is None:
        raise ValueError(f"unknown op {key!r}")
    return op


class GraphDecoder:
    """Rebuilds the graphs of one function from their records (``bodies``: the function's body records)."""

    def __init__(self, arrays, objects, bodies, name):
        self.arrays, self.objects, self.records, self.name = arrays, objects, bodies, name
        self._made = {}

    def graph(self, record, name=None):
        nodes, variables = [], {}
        for node in record["nodes"]:
            if "read" in node:
                variable = self.objects[node["read"]]
                variables[variable._id] = variable
                nodes.append(trace.Read(variable, node["out"]))
            elif "assign" in node:
                variable = self.objects[node["assign"]]
                variables[variable._id] = variable
                constant = decode(node["constant"], self.arrays) if "constant" in node else None
                nodes.append(trace.Assign(variable, node["method"], node.get("value"), constant))
            else:
                if "body" in node:
                    body = self._body(node["body"])
                    op, attrs = (body.history_op if node["role"] == "history" else body.op), {"body": body}
                    for sub in body.branches + [s for s in (body.cond, body.loop) if s is not None]:
                        variables.update(sub.graph.variables)
                else:
                    op = _find_op(node["op"], node.get("module"))
                    attrs = {k: decode(v, self.arrays) for k, v in node["attrs"].items()} or None
                out = tuple(node["out"]) if isinstance(node["out"], list) else node["out"]
                flat = []
                for i in node["in"]:
                    flat += [i, None]
                nodes.append((op if "body" in node else op.key, attrs, None, None, out, None, *flat))
        graph = trace.Graph(nodes, list(record["inputs"]), list(record["outputs"]), variables, [])
        graph.constants = {int(k): decode(v, self.arrays) for k, v in record["constants"].items()}
        return graph

    def _sub(self, record, name):
        sub = cf.SubGraph(name)
        sub.graph = self.graph(record)
        sub.params = list(sub.graph.inputs)
        sub.assigned = cf._assigned(sub.graph.nodes)
        sub.stateful = bool(sub.assigned) or any(type(n) is tuple and cf.op_of(n[0]).stateful
                                                 for n in sub.graph.nodes)
        sub.reads, sub.captured = {}, {}
        sub.plan = lower.lower(sub.graph, name)
        return sub

    def _body(self, k):
        body = self._made.get(k)
        if body is not None:
            return body
        record = self.records[k]
        if record["kind"] == "case":
            subs = [self._sub(r, f"{self.name}_branch{j}") for j, r in enumerate(record["branches"])]
            body = cf._Body(subs)
            body.pick = cf._pick_bool if record["pick"] == "bool" else cf.pick_index(record["pick"])
            op = Op(record["name"], cf._case_forward, num_outputs=record["num_outputs"], same_dtype=False)
            op.vjp = cf._case_vjp
        else:
            test = self._sub(record["cond"], "while_cond")
            step = self._sub(record["loop"], "while_body")
            body = cf._Body(cond=test, loop=step, n_vars=record["n_vars"])
            body.shapes = [None if s is None else tuple(s) for s in record["shapes"]]
            op = Op(record["name"], cf._while_forward, num_outputs=record["num_outputs"], same_dtype=False)
            op.vjp = cf._while_vjp
            history = Op("WhileHistory", cf._history_forward, num_outputs=3 * record["n_vars"], same_dtype=False)
            history.multi_output = True
            history.vjp = cf._history_vjp
            body.history_op = history
        op.multi_output = True
        op.stateful = record["stateful"]
        body.op = op
        self._made[k] = body
        return body

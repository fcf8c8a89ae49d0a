"""Lowering: a traced :class:`~tapeflow.compiler.trace.Graph` becomes one generated Python function.

The function is straight-line code over NumPy values: each equation is the expression its op's forward returns
(inlined when the forward is one expression, or spelled by the op's own ``lower`` hook) or one call of that
forward (the same kernel eager execution runs); each variable read is one attribute read, each assignment one
in-place update; each value is deleted after its last use. Per-op dispatch (dtype checks, wrapping results as
tensors, reporting to the hook) is gone: the trace already checked what it checks, and the checks hold for every
call of the same signature.

Before lowering, the passes of ``passes.py`` shrink the graph: folding, merging and dropping what is dead.

The generated source can be read (``Plan.source``); each line that runs an op ends with a comment naming the op
and the user's line that made it, and an error raised by a line is mapped back to that op (:meth:`Plan.error`).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.equation import op_of
from .._core.state import ERRSTATE, RESTORE, SILENCE, SILENT, line_of
from .._core.tensor import wrap
from .._core.variable import _SOLE_HOLDER, _getrefcount
from .trace import Assign, Read

__all__ = ["Plan", "lower"]

_counter = [0]


def _assign(variable, value):
    """A traced ``variable.assign(value)``: the trace checked dtype and shape, which a signature fixes."""
    with variable._lock:
        variable._value = value


def _update(variable, delta, ufunc):
    """A traced ``assign_add`` (``ufunc`` is ``np.add``) or ``assign_sub`` (``np.subtract``), in place when nothing
    else holds the variable's array (as ``Variable._update`` decides)."""
    with variable._lock:
        value = variable._value
        variable._busy = True
        try:
            if type(value) is np.ndarray and value.base is None and _getrefcount(value) == _SOLE_HOLDER:
                ufunc(value, delta, out=value)
            else:
                variable._value = ufunc(value, delta)
        finally:
            variable._busy = False


def _assign_add(variable, delta):
    _update(variable, delta, np.add)


def _assign_sub(variable, delta):
    _update(variable, delta, np.subtract)


_UPDATES = {"assign": "_assign", "assign_add": "_assign_add", "assign_sub": "_assign_sub"}


class Plan:
    """A graph lowered to a Python function ``run(*input_values) -> tuple of output values``.

    ``source`` is the generated code; ``lines`` maps each of its line numbers to the node it runs (for errors).
    """

    __slots__ = ("run", "source", "lines", "filename", "graph")

    def __init__(self, run, source, lines, filename, graph):
        self.run, self.source, self.lines, self.filename, self.graph = run, source, lines, filename, graph

    def error(self, exc, graph_name, stacks):
        """TensorFlow's error for ``exc``, raised inside :attr:`run`: a graph execution error naming the op, where
        the user's code made it (``stacks``: output id -> the user's frames then) and the kernel's own message."""
        tb = exc.__traceback__
        frame_locals, lineno = None, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                frame_locals, lineno = tb.tb_frame.f_locals, tb.tb_lineno
            tb = tb.tb_next
        nodes = [n for n in self.lines.get(lineno) or () if type(n) is tuple]
        if not nodes:
            return None
        if len(nodes) == 1 and isinstance(exc, errors.OpError):
            node, err = nodes[0], exc
        else:
            # The eager kernels' errors for the same values say what went wrong, in TF's words: the line's ops run
            # again in order (a fused line holds several) from the values the program had, up to the one that fails.
            node = err = None
            env = {}
            for n in nodes:
                values = []
                for i in n[6::2]:
                    v = env.get(i)
                    if v is None:
                        v = frame_locals.get(_local(i))
                    if v is None:
                        v = self.graph.constants.get(i)
                    if v is None:
                        return None
                    values.append(v)
                try:
                    out = execute(op_of(n[0]), tuple([wrap(v) for v in values]), n[1] or {})
                except errors.OpError as eager:
                    node, err = n, eager
                    break
                except Exception:  # noqa: BLE001 - no TF error for it: the original one is raised
                    return None
                if type(n[4]) is not tuple:
                    env[n[4]] = out._value
            if node is None:
                return None
        op = op_of(node[0])
        check = (node[1] or {}).get("check")
        node_name = getattr(check, "node_name", None) or op.name  # (an assertion's node has its name scopes)
        stack = stacks.get(id(node), ())
        frames = "".join(f'  File "{code.co_filename}", line {line}, in {code.co_name}\n\n' for code, line in stack)
        core = _KERNEL_PREFIX.sub("", err.message)
        core = _OP_SUFFIX.sub("", core)
        text = (f"Graph execution error:\n\nDetected at node {node_name} defined at (most recent call last):\n"
                f"{frames}{core}\n\t [[{{{{node {node_name}}}}}]] [Op:{graph_name}]")
        return type(err)(None, None, text, err.error_code)


_KERNEL_PREFIX = re.compile(r"^\{\{function_node [^}]*\}\} ")
_OP_SUFFIX = re.compile(r" \[Op:[^\]]*\]( name: .*)?$", re.S)


def _local(tensor_id):
    return f"v{tensor_id}"


def lower(graph, name="f", keep=()):
    """Generate, compile and return the :class:`Plan` of ``graph`` (already optimised); the program returns the
    outputs' values, then those of the ids in ``keep`` (values a gradient of the call needs)."""
    namespace = {"np": np, "_assign": _assign, "_assign_add": _assign_add, "_assign_sub": _assign_sub,
                 "ERRSTATE": ERRSTATE, "SILENCE": SILENCE, "RESTORE": RESTORE, "SILENT": SILENT}
    constants = {}  # id(value) -> name, so one array shared by several equations is bound once

    def const(value, prefix="c"):
        key = (prefix, id(value))
        bound = constants.get(key)
        if bound is None:
            bound = f"{prefix}{len(constants)}"
            constants[key] = bound
            namespace[bound] = value
        return bound

    names = {i: _local(i) for i in graph.inputs}
    # Variables passed as arguments are parameters of the program (another call may pass another variable);
    # variables the function closed over are bound once.
    variable_params = {vid: f"var_in{k}" for k, vid in enumerate(graph.variable_inputs)}

    def var(variable):
        return variable_params.get(variable._id) or const(variable, "var")

    for i, value in graph.constants.items():
        names[i] = const(value)

    def ref(i):
        return names[i]

    body, lines = [], {}
    quiet = False
    for node in graph.nodes:
        if type(node) is Read:
            v = var(node.variable)
            names[node.out] = _local(node.out)
            body.append(_Line(f"{_local(node.out)} = {v}._value if not {v}._busy else {v}._snapshot()", node, ()))
        elif type(node) is Assign:
            v = var(node.variable)
            value = ref(node.value) if node.constant is None else const(node.constant)
            body.append(_Line(f"{_UPDATES[node.method]}({v}, {value})", node, (value,), effect=True))
        else:
            key, attrs, code, lasti, outputs, results = node[:6]
            op = op_of(key)
            call = _custom_call(attrs)
            if call is not None:
                # A custom-gradient call: forward, its outputs are what the function returned.
                outs = outputs if type(outputs) is tuple else (outputs,)
                values = results if type(outputs) is tuple else (results,)
                for o, r, v in zip(outs, call.result_ids, values):
                    names[o] = ref(r) if r is not None and r in names else const(v)
                continue
            quiet = quiet or op.quiet
            inputs = [ref(i) for i in node[6::2]]
            text = _inline(op, inputs, attrs, const)
            if text is None:
                args = inputs + [f"{k}={const(v, 'k')}" for k, v in attrs.items()] if attrs else inputs
                text = f"{const(op.forward, 'f')}({', '.join(args)})"
            where = line_of((code, lasti)) if code is not None else None
            comment = f"# {op.name}" + (f" at {where}" if where else "")
            if type(outputs) is tuple:
                for o in outputs:
                    names[o] = _local(o)
                if outputs:
                    targets = ", ".join(_local(o) for o in outputs)
                    text = f"{targets}, = {text}" if len(outputs) == 1 else f"{targets} = {text}"
                body.append(_Line(text, node, inputs, comment, effect=op.stateful))
            else:
                names[outputs] = _local(outputs)
                body.append(_Line(text, node, inputs, comment, target=_local(outputs), effect=op.stateful))
    returns = [ref(i) for i in list(graph.outputs) + list(keep)]
    _counter[0] += 1
    filename = f"<tf.function {name} #{_counter[0]}>"
    params = [_local(i) for i in graph.inputs] + list(variable_params.values())
    head = [f"def {_identifier(name)}({', '.join(params)}):"]
    indent = "    "
    if quiet:
        # NaN and inf are results, as in TF, not warnings: the floating-point state of the ops that need it.
        head.append("    token = SILENCE(SILENT) if ERRSTATE() is not SILENT else None")
        head.append("    try:")
        indent = "        "
    out_lines = list(head)
    body = _fused(body, set(returns))
    # Each local is deleted after its last use: memory is given back as soon as it can be, and an assignment
    # finds the variable's array held by nothing else (a read's local would keep it) and updates it in place.
    last = {}
    for k, line in enumerate(body):
        for name_ in line.uses:
            last[name_] = k
    for name_ in returns:
        last.pop(name_, None)
    dead = {}
    for name_, k in last.items():
        if name_[0] == "v":
            dead.setdefault(k, []).append(name_)
    for k, line in enumerate(body):
        out_lines.append(indent + line.source())
        lines[len(out_lines)] = line.nodes
        if k in dead:
            out_lines.append(f"{indent}del {', '.join(sorted(set(dead[k])))}")
    out_lines.append(f"{indent}return ({', '.join(returns)}{',' if len(returns) == 1 else ''})")
    if quiet:
        out_lines.append("    finally:")
        out_lines.append("        if token is not None:")
        out_lines.append("            RESTORE(token)")
    source = "\n".join(out_lines) + "\n"
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the code is generated here, from the graph
    # Tracebacks and ``inspect`` show the generated lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return Plan(namespace[_identifier(name)], source, lines, filename, graph)


class _Line:
    """One statement of the generated code: ``target = expression`` for an op with one output (``target`` set),
    else ``text`` as it is; ``nodes`` are the graph nodes it runs, in order; ``uses`` the locals it reads."""

    __slots__ = ("text", "nodes", "uses", "comment", "target", "effect", "reads_variable")

    def __init__(self, text, node, uses, comment="", target=None, effect=False):
        self.text, self.nodes, self.uses, self.comment = text, [node], list(uses), comment
        self.target, self.effect = target, effect
        self.reads_variable = type(node) is Read

    def source(self):
        code = f"{self.target} = {self.text}" if self.target is not None else self.text
        return f"{code}  {self.comment}" if self.comment else code


def _fused(body, returned):
    """Elementwise chains fused: an op's expression whose value only the next statement reads (variable reads
    between them aside) is written into that statement instead of a local of its own, so a chain of ops becomes
    one expression (``((v8 * c0) + v10) - c1``): fewer stores, loads and deletions."""
    counts = {}
    for line in body:
        for name_ in line.uses:
            counts[name_] = counts.get(name_, 0) + 1
    out = list(body)
    k = 0
    while k < len(out):
        line = out[k]
        name_ = line.target
        if name_ is None or line.effect or counts.get(name_) != 1 or name_ in returned:
            k += 1
            continue
        # The reader must come next (variable reads aside): moving work later would keep its inputs alive longer
        # and lose the order in which values are made and freed (a gradient summed over 20 steps would wait for all).
        j = k + 1
        while j < len(out) and name_ not in out[j].uses and out[j].target is None and out[j].reads_variable:
            j += 1
        consumer = out[j] if j < len(out) else None
        if consumer is None or name_ not in consumer.uses or consumer.uses.count(name_) != 1:
            k += 1
            continue
        pattern = re.compile(rf"\b{name_}\b")
        if len(pattern.findall(consumer.text)) != 1:  # (an expression that names its input twice: ``v.dtype``)
            k += 1
            continue
        inner = line.text if _parenthesised(line.text) else f"({line.text})"
        consumer.text = pattern.sub(lambda _m, text=inner: text, consumer.text)
        consumer.uses = [u for u in consumer.uses if u != name_] + line.uses
        consumer.nodes = line.nodes + consumer.nodes
        consumer.comment = f"{line.comment}  {consumer.comment}".strip()
        del out[k]
    return out


def _parenthesised(text):
    """Whether ``text`` is one parenthesised expression (its first parenthesis closes at its end), or a call."""
    if not text.startswith("("):
        return bool(re.fullmatch(r"[A-Za-z_]\w*\(.*\)", text, re.S)) and _closes_at_end(text, text.index("("))
    return _closes_at_end(text, 0)


def _closes_at_end(text, start):
    depth = 0
    for k in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k == len(text) - 1
    return False


def _inline(op, inputs, attrs, const):
    """The Python expression that computes ``op`` on the locals ``inputs``, spelled out in the generated code (a
    call fewer per op), or ``None``: an op's own ``lower`` hook, else the one expression a forward returns (its
    attributes bound as constants of the program)."""
    if op.lower is not None:
        return op.lower(inputs, attrs or {})
    template = _TEMPLATES.get(op)
    if template is None:
        template = _TEMPLATES[op] = _template(op.forward)
    if not template:
        return None
    names = dict(zip(template.params, inputs))
    if len(inputs) > len(template.params):
        return None
    for k, v in (attrs or {}).items():
        if k not in template.params or k in names:
            return None
        names[k] = const(v, "k")
    return template(names) if len(names) == len(template.params) else None


_TEMPLATES = {}


def _template(forward):
    """For a forward ``def f(x, y): return <expression>`` using only its parameters, operators, literals and
    ``np``: a function from input names to that expression with the names put in; else ``False``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(forward)))
    except (OSError, TypeError, SyntaxError):
        return False
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef) or fn.args.vararg or fn.args.kwarg:
        return False
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    params = [a.arg for a in fn.args.args] + [a.arg for a in fn.args.kwonlyargs]
    expr = body[0].value
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id not in params and node.id != "np":
            return False  # a module global or builtin the generated code does not have
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.ListComp, ast.GeneratorExp)):
            return False
    uses_np = any(isinstance(n, ast.Name) and n.id == "np" for n in ast.walk(expr))
    if uses_np and forward.__globals__.get("np") is not np:  # ``np`` must be NumPy where the forward was written
        return False
    text = ast.unparse(expr)

    def fill(names):
        class Rename(ast.NodeTransformer):
            def visit_Name(self, node):  # noqa: N802 - ast's visitor protocol
                return ast.copy_location(ast.Name(names.get(node.id, node.id), node.ctx), node)

        return "(" + ast.unparse(Rename().visit(ast.parse(text, mode="eval"))) + ")"

    fill.params = params
    return fill


def _custom_call(attrs):
    call = attrs.get("call") if attrs else None
    return call if call is not None and hasattr(call, "result_ids") else None


def _identifier(name):
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"
    return text if not text[0].isdigit() else "_" + text

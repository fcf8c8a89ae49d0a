"""AutoGraph: a traced function's Python ``if``, ``while`` and ``for`` become graph control flow where their condition
or iterable is a tensor, as TensorFlow's AutoGraph makes them.

The function's source is rewritten once (per code object) in two passes over its syntax tree, then compiled with
the original file name and line numbers (tracebacks and TF's "in user code" errors point at the user's lines):

1. *Jumps become flags.* ``return`` inside a compound statement sets ``ag__do_return`` and ``ag__retval``;
   ``break`` and ``continue`` set a flag of their loop. The statements after one that may set a flag are guarded
   by ``if not flag:``, and the loop's condition gains ``not flag``. No jump is left, so every block can become a
   function.
2. *Statements become calls.* Each ``if``, ``while`` and ``for`` becomes local functions for its branches or body
   (which see the function's variables through ``nonlocal``), two functions that get and set the variables the
   statement assigns, and a call of ``ag__.if_stmt`` / ``while_stmt`` / ``for_stmt`` (``autograph_ops.py``). Those
   decide at run time: on a Python value they run the Python statement; on a tensor, a ``tf.cond`` or
   ``tf.while_loop`` over the assigned variables. ``not``, ``and`` and ``or`` become ``ag__.not_``/``and_``/``or_``
   (they would ask a tensor for its truth), and calls become ``ag__.converted_call`` so the user's functions that
   the traced function calls are converted too.

A function whose source cannot be read (a lambda, a builtin, code typed at a prompt) runs as it is.
"""

from __future__ import annotations

import ast
import inspect
import sysconfig
import textwrap
import types

from .._core.state import PACKAGE_DIR

__all__ = ["convert", "is_convertible", "converted_source"]

_CACHE = {}  # code object -> (converted code object, its source) or None when it cannot be converted
_LIBRARY_DIRS = tuple({p for p in (sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("purelib"),
                                   sysconfig.get_paths().get("platlib")) if p})
_UNTOUCHED_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "print"}


def is_convertible(fn):
    """Whether ``fn`` is a user's Python function AutoGraph converts (not a library's, not a lambda)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None or code.co_name == "<lambda>":
        return False
    if getattr(fn, "__ag_do_not_convert__", False) or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return False
    filename = code.co_filename
    return not (filename.startswith(PACKAGE_DIR) or filename.startswith("<") or
                any(filename.startswith(d) for d in _LIBRARY_DIRS))


def convert(fn):
    """``fn`` with AutoGraph's conversion (a bound method stays bound), or ``fn`` itself when it cannot be."""
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    if not is_convertible(fn):
        return fn
    code = fn.__code__
    entry = _CACHE.get(code, False)
    if entry is False:
        entry = _CACHE[code] = _convert_code(fn)
    if entry is None:
        return fn
    new_code, _source = entry
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    from . import autograph_ops  # noqa: PLC0415 - the runtime the converted code calls as ``ag__``

    cells["ag__"] = types.CellType(autograph_ops)
    try:
        closure = tuple(cells[name] for name in new_code.co_freevars)
    except KeyError:
        return fn
    converted = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__dict__.update(fn.__dict__)
    converted.__ag_converted__ = True
    converted.__wrapped__ = fn
    return converted


def _convert_code(fn):
    try:
        return _converted(fn)
    except Exception as exc:  # noqa: BLE001 - as TF: the function runs as written, and a warning says why
        from .._core.logs import get_logger  # noqa: PLC0415

        get_logger().warning(f"AutoGraph could not transform {fn!r} and will run it as-is.\nCause: {exc}\nTo "
                             "silence this warning, decorate the function with "
                             "@tf.autograph.experimental.do_not_convert")
        return None


def _converted(fn):
    code = fn.__code__
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != code.co_name:
        return None
    node.decorator_list = []
    ast.increment_lineno(tree, first - 1)
    _Converter(node).run()
    # The function is defined inside a factory whose parameters are its free variables (and ``ag__``), so the
    # compiled function closes over cells that the original function's closure then provides.
    free = ["ag__"] + [n for n in code.co_freevars if n != "ag__"]
    factory = ast.FunctionDef(name="ag__factory", args=_arguments(free), body=[node, ast.Return(_name(node.name))],
                              decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, node)
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next((c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name),
                 None)
    return None if inner is None else (inner, ast.unparse(node) + "\n")


def converted_source(fn):
    """The source of ``fn`` as converted (``tf.autograph.to_code``), or ``None`` when it cannot be converted."""
    if not is_convertible(fn):
        return None
    entry = _CACHE.get(fn.__code__, False)
    if entry is False:
        entry = _CACHE[fn.__code__] = _convert_code(fn)
    return None if entry is None else entry[1]


def _arguments(names):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return args


# ------------------------------------------------------------------------------------------ analysis helpers


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _walk_scope(nodes):
    """Every node under ``nodes`` that belongs to the same scope (nested functions, classes and comprehensions are
    not entered, but a nested definition's own name is)."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.extend(reversed(node.decorator_list))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def assigned_names(stmts):
    """The names ``stmts`` bind in their own scope, in order of first binding."""
    out = {}
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.setdefault(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out.setdefault((alias.asname or alias.name).split(".")[0])
    return list(out)


def loaded_names(nodes):
    """The names read anywhere under ``nodes``, nested scopes included (a closure reads them too)."""
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _reads(node):
    """Names ``node`` may read (anywhere under it, nested functions included)."""
    return loaded_names([node]) if node is not None else set()


def _targets(targets):
    return set(assigned_names([ast.Assign(targets=list(targets), value=ast.Constant(None))]))


def live_in(stmts, live_out):
    """The names that may be read before being assigned when ``stmts`` run, ``live_out`` being those read after
    them (backward liveness over the statements; compound statements are looked into, conservatively)."""
    live = set(live_out)
    for s in reversed(stmts):
        live = _live_before(s, live)
    return live


def _live_before(s, after):
    if isinstance(s, (ast.Assign, ast.AnnAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        return _reads(s.value) | set().union(*(_reads(t) for t in targets)) | (after - _targets(targets))
    if isinstance(s, ast.AugAssign):  # ``x += y`` reads ``x`` too
        return _reads(s.value) | set(assigned_names([s])) | _reads(s.target) | after
    if isinstance(s, ast.If):
        return _reads(s.test) | live_in(s.body, after) | live_in(s.orelse, after)
    if isinstance(s, (ast.While, ast.For)):
        head = _reads(s.test) if isinstance(s, ast.While) else _reads(s.iter)
        exit_ = after | head | live_in(s.orelse, after)
        body = live_in(s.body, exit_)
        body = live_in(s.body, exit_ | body)  # a second iteration reads what the first left
        if isinstance(s, ast.For):
            body -= _targets([s.target])
        return head | exit_ | body
    if isinstance(s, ast.With):
        inner = live_in(s.body, after) - _targets([i.optional_vars for i in s.items if i.optional_vars])
        return set().union(*(_reads(i.context_expr) for i in s.items)) | inner
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _reads(s) | (after - {s.name})
    if isinstance(s, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
        return _reads(s)
    return _reads(s) | after  # (try, and anything else: conservatively)


def _jumps(stmts, kinds):
    """Whether ``stmts`` hold a statement of ``kinds`` that belongs to this loop (not to a nested loop or
    function)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if not isinstance(node, _SCOPES + (ast.For, ast.While, ast.AsyncFor)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _set(id_, value):
    return ast.Assign(targets=[_name(id_, store=True)], value=value)


def _ag(attr, *args):
    return ast.Call(func=ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load()), args=list(args), keywords=[])


def _not(flag_names):
    """``ag__.not_(f1)``, or ``ag__.not_(ag__.or_(lambda: f1, lambda: f2))`` for several flags."""
    flags = sorted(flag_names)
    expr = _name(flags[0])
    for f in flags[1:]:
        expr = _ag("or_", _thunk(expr), _thunk(_name(f)))
    return _ag("not_", expr)


def _at(node, where):
    """``node`` and what it holds placed on ``where``'s first line, where they have no place of their own."""
    for n in ast.walk(node):
        if "lineno" in n._attributes and not hasattr(n, "lineno"):
            n.lineno, n.col_offset = where.lineno, where.col_offset
            n.end_lineno, n.end_col_offset = where.lineno, where.col_offset
    return node


def _thunk(expr):
    """``lambda: expr``, made by the conversion (its body is converted, unlike a user's lambda)."""
    thunk = ast.Lambda(args=_arguments([]), body=expr)
    thunk.ag_generated = True
    return thunk


# ----------------------------------------------------------------------------------------------- the passes


class _Converter:
    def __init__(self, fn_node):
        self.fn = fn_node
        self.count = 0
        self.globals, self.nonlocals = set(), set()
        for node in _walk_scope(fn_node.body):
            if isinstance(node, ast.Global):
                self.globals.update(node.names)
            elif isinstance(node, ast.Nonlocal):
                self.nonlocals.update(node.names)

    def fresh(self, base):
        self.count += 1
        return f"ag__{base}_{self.count}"

    def run(self):
        fn = self.fn
        body = fn.body
        nested_return = any(isinstance(n, ast.Return) for s in body if not isinstance(s, ast.Return)
                            for n in _walk_scope([s]))
        ret = "ag__do_return" if nested_return else None
        body = self.jumps(body, {"ret": ret, "brk": None, "cont": None})[0]
        if ret:
            where = fn.body[0]
            body = ([_at(_set("ag__do_return", ast.Constant(False)), where),
                     _at(_set("ag__retval", _ag("UndefinedReturnValue")), where)]
                    + body + [_at(ast.Return(_ag("retval", _name("ag__retval"))), fn.body[-1])])
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        params.update(a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None)
        self.params = params
        fn.body = self.statements(body, set())
        args = fn.args.posonlyargs + fn.args.args
        _Expressions(args[0].arg if args else None).visit(fn)

    # --- pass 1: jumps become flags -----------------------------------------------------------------
    def jumps(self, stmts, ctx):
        """``(statements without return/break/continue, flags they may set)``."""
        out, sets = [], set()
        for k, s in enumerate(stmts):
            new, flags, terminal = self.jump_stmt(s, ctx)
            out.extend(new)
            sets |= flags
            if terminal:
                break
            if flags:
                rest = stmts[k + 1:]
                if rest:
                    guarded, more = self.jumps(rest, ctx)
                    sets |= more
                    if guarded:
                        out.append(_at(ast.If(test=_not(flags), body=guarded, orelse=[]), rest[0]))
                break
        return out, sets

    def jump_stmt(self, s, ctx):
        """``(statements, flags they may set, whether they always jump)`` for one statement."""
        if isinstance(s, ast.Return) and ctx["ret"]:
            value = s.value if s.value is not None else ast.Constant(None)
            return [_at(_set(ctx["ret"], ast.Constant(True)), s), _at(_set("ag__retval", value), s)], \
                {ctx["ret"]}, True
        if isinstance(s, ast.Break) and ctx["brk"]:
            return [_at(_set(ctx["brk"], ast.Constant(True)), s)], {ctx["brk"]}, True
        if isinstance(s, ast.Continue) and ctx["cont"]:
            return [_at(_set(ctx["cont"], ast.Constant(True)), s)], {ctx["cont"]}, True
        if isinstance(s, ast.If):
            body, a = self.jumps(s.body, ctx)
            orelse, b = self.jumps(s.orelse, ctx)
            s.body, s.orelse = body or [ast.Pass()], orelse
            return [s], a | b, False
        if isinstance(s, (ast.While, ast.For)):
            return self.jump_loop(s, ctx)
        if isinstance(s, (ast.With, ast.Try)) or type(s).__name__ == "TryStar":
            flags = set()
            for field in ("body", "orelse", "finalbody"):
                block = getattr(s, field, None)
                if block:
                    new, f = self.jumps(block, ctx)
                    setattr(s, field, new or [ast.Pass()])
                    flags |= f
            for h in getattr(s, "handlers", []):
                new, f = self.jumps(h.body, ctx)
                h.body = new or [ast.Pass()]
                flags |= f
            return [s], flags, False
        return [s], set(), False

    def jump_loop(self, s, ctx):
        brk = self.fresh("break") if _jumps(s.body, ast.Break) else None
        cont = self.fresh("continue") if _jumps(s.body, ast.Continue) else None
        inner = {"ret": ctx["ret"], "brk": brk, "cont": cont}
        body, flags = self.jumps(s.body, inner)
        if cont:
            body = [_at(_set(cont, ast.Constant(False)), s)] + body
        s.body = body or [_at(ast.Pass(), s)]
        stops = {f for f in flags if f in (brk, ctx["ret"]) and f is not None}
        before = [_at(_set(brk, ast.Constant(False)), s)] if brk else []
        if stops:
            if isinstance(s, ast.While):
                s.test = _at(_ag("and_", _thunk(_not(stops)), _thunk(s.test)), s)
            else:
                s.ag_extra_test = _at(_not(stops), s)
        out = before + [s]
        passed = {ctx["ret"]} & flags if ctx["ret"] else set()
        if s.orelse:
            # ``else`` runs when the loop ends without ``break``: after it, guarded by the break flag.
            orelse, more = self.jumps(s.orelse, ctx)
            passed |= more
            s.orelse = []
            out += [_at(ast.If(test=_not({brk}), body=orelse, orelse=[]), s)] if brk else orelse
        return out, passed, False

    # --- pass 2: statements become calls -----------------------------------------------------------
    def statements(self, stmts, live_out):
        """Convert the ``if``/``while``/``for`` statements of ``stmts``; ``live_out`` holds the names that may be
        read after them (what decides which variables a branch must define and a loop must carry)."""
        out = []
        for k, s in enumerate(stmts):
            after = live_in(stmts[k + 1:], live_out)
            if isinstance(s, ast.If):
                out.extend(self.convert_if(s, after))
            elif isinstance(s, ast.While):
                out.extend(self.convert_while(s, after))
            elif isinstance(s, ast.For):
                out.extend(self.convert_for(s, after))
            else:
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(s, field, None)
                    if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and \
                            not isinstance(s, _SCOPES):
                        setattr(s, field, self.statements(block, after | _reads(s)))
                for h in getattr(s, "handlers", []) or []:
                    h.body = self.statements(h.body, after | _reads(s))
                out.append(s)
        return out

    @staticmethod
    def loop_live(s, after):
        """The names live at the head of loop ``s`` (read after it, or by a later iteration before it assigns
        them): what the loop must carry."""
        head = _reads(s.test) if isinstance(s, ast.While) else set()
        exit_ = after | head
        body = live_in(s.body, exit_)
        return exit_ | live_in(s.body, exit_ | body)

    def state_names(self, blocks):
        names = assigned_names([s for b in blocks for s in b])
        return [n for n in names if n not in self.globals and n not in self.nonlocals and (
            not n.startswith("ag__") or n in ("ag__do_return", "ag__retval") or
            n.startswith(("ag__break", "ag__continue")))]

    def local_fn(self, name, body, names, params=()):
        # The local functions share the function's variables: its locals (``nonlocal``), and the names it
        # declared ``global`` or ``nonlocal`` itself.
        shared = list(names) + sorted(self.nonlocals)
        decl = [ast.Nonlocal(names=shared)] if shared else []
        if self.globals:
            decl.append(ast.Global(names=sorted(self.globals)))
        return ast.FunctionDef(name=name, args=_arguments(list(params)), body=decl + (body or [ast.Pass()]),
                               decorator_list=[], returns=None, type_params=[])

    def state_fns(self, names, tag):
        get = self.fresh(f"get_state_{tag}")
        put = self.fresh(f"set_state_{tag}")
        tup = ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load())
        getter = self.local_fn(get, [ast.Return(tup)], [])
        target = ast.Tuple(elts=[_name(n, store=True) for n in names], ctx=ast.Store())
        setter = self.local_fn(put, [ast.Assign(targets=[target], value=_name("ag__values"))] if names else [],
                               names, ["ag__values"])
        return [getter, setter], get, put

    def defined_first(self, names):
        """``name = ag__.ld(locals(), 'name')`` for each: a name the statement may leave unbound still exists
        (as an undefined marker) for ``nonlocal`` to refer to."""
        return [_set(n, _ag("ld", ast.Call(func=_name("locals"), args=[], keywords=[]), ast.Constant(n)))
                for n in names if n not in self.params and n not in ("ag__do_return", "ag__retval")]

    def convert_if(self, s, live):
        names = self.state_names([s.body, s.orelse])
        body = self.statements(s.body, live)
        orelse = self.statements(s.orelse, live)
        true_name, false_name = self.fresh("if_true"), self.fresh("if_false")
        fns = [self.local_fn(true_name, body, names), self.local_fn(false_name, orelse, names)]
        state, get, put = self.state_fns(names, "if")
        call = _ag("if_stmt", s.test, _name(true_name), _name(false_name), _name(get), _name(put),
                   ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load()),
                   ast.Tuple(elts=[ast.Constant(n) for n in names if n in live or n.startswith("ag__")],
                             ctx=ast.Load()))
        return self.placed(s, self.defined_first(names) + fns + state + [ast.Expr(call)])

    def convert_while(self, s, after):
        names = self.state_names([s.body])
        live = self.loop_live(s, after)
        body = self.statements(s.body, live)
        test_name, body_name = self.fresh("loop_test"), self.fresh("loop_body")
        fns = [self.local_fn(test_name, [ast.Return(s.test)], []), self.local_fn(body_name, body, names)]
        state, get, put = self.state_fns(names, "while")
        call = _ag("while_stmt", _name(test_name), _name(body_name), _name(get), _name(put),
                   ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load()),
                   ast.Tuple(elts=[ast.Constant(n) for n in names if n in live or n.startswith("ag__")],
                             ctx=ast.Load()))
        return self.placed(s, self.defined_first(names) + fns + state + [ast.Expr(call)])

    def convert_for(self, s, after):
        item = self.fresh("item")
        assign_target = ast.Assign(targets=[s.target], value=_name(item))
        names = self.state_names([[assign_target], s.body])
        live = self.loop_live(s, after)
        body = self.statements(s.body, live)
        body_name = self.fresh("loop_body")
        fns = [self.local_fn(body_name, [assign_target] + body, names, [item])]
        extra = getattr(s, "ag_extra_test", None)
        if extra is not None:
            test_name = self.fresh("extra_test")
            fns.append(self.local_fn(test_name, [ast.Return(extra)], []))
            extra_arg = _name(test_name)
        else:
            extra_arg = ast.Constant(None)
        state, get, put = self.state_fns(names, "for")
        targets = set(assigned_names([assign_target]))
        call = _ag("for_stmt", s.iter, extra_arg, _name(body_name), _name(get), _name(put),
                   ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load()),
                   ast.Tuple(elts=[ast.Constant(n) for n in names if n in live or n.startswith("ag__")],
                             ctx=ast.Load()),
                   ast.Tuple(elts=[ast.Constant(n) for n in names if n in targets], ctx=ast.Load()))
        return self.placed(s, self.defined_first(names) + fns + state + [ast.Expr(call)])

    @staticmethod
    def placed(s, stmts):
        """Put the statements made for ``s`` on its first line (a traceback through them names that line)."""
        for new in stmts:
            _at(new, s)
        return stmts


class _Expressions(ast.NodeTransformer):
    """``not``/``and``/``or`` become ``ag__`` calls, and calls go through ``ag__.converted_call``; ``super()``
    becomes ``super(__class__, self)`` (the statements it sits in may now be local functions, where the argument-less
    form finds no ``self``)."""

    def __init__(self, first_param):
        self.first = first_param

    def visit_UnaryOp(self, node):  # noqa: N802 - ast's visitor protocol
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_ag("not_", node.operand), node)
        return node

    def visit_BoolOp(self, node):  # noqa: N802
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        expr = node.values[-1]
        for value in reversed(node.values[:-1]):
            expr = _ag(name, _thunk(value), _thunk(expr))
        return ast.copy_location(expr, node)

    def visit_Lambda(self, node):  # noqa: N802 - a user's lambda is left as written (it is not converted)
        if getattr(node, "ag_generated", False):
            self.generic_visit(node)
        return node

    def visit_Call(self, node):  # noqa: N802
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super" and not node.args and self.first is not None:
            node.args = [ast.copy_location(_name("__class__"), node), ast.copy_location(_name(self.first), node)]
            return node
        if isinstance(func, ast.Name) and (func.id in _UNTOUCHED_CALLS or func.id.startswith("ag__")):
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ag__":
            return node
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        keys, values = [], []
        for kw in node.keywords:
            keys.append(None if kw.arg is None else ast.Constant(kw.arg))
            values.append(kw.value)
        call = _ag("converted_call", func, args, ast.Dict(keys=keys, values=values))
        return ast.copy_location(call, node)

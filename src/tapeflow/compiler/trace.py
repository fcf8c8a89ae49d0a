"""Tracing: run a Python function once and keep everything it did to tensors and variables as a :class:`Graph`.

The function runs eagerly, on the values of the call that traces it, while a :class:`Tracer` observes the hook
(``_core/observers.py``) as the only recording observer of the thread: it takes every op (its ``tracked`` holds
every id, so no op is left out, integer ones included), every variable read, and, as a listener, every
assignment, variable created and value leaving for Python. The outer tapes are set aside while it traces: what a
tape sees of a traced function is its call, not the ops the trace ran.

The tensors made while tracing are *symbolic* in TensorFlow's sense: their values belong to this one trace, so
``.numpy()``, ``bool()``, ``float()`` and ``int()`` on them raise TensorFlow's errors (a Python ``if`` on a tensor
would freeze the branch the trace took). Tensors made before the trace (closures, globals) stay eager: an op on
them alone is folded into a constant when the graph is built.

A graph is the trace's equations in program order (the stored form of ``_core/equation.py``) plus its effects:
:class:`Read` and :class:`Assign` nodes for variables. Program order is a topological order, so lowering it to
straight-line code (``lower.py``) keeps every effect where the function made it.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from .._core import errors, observers
from .._core.equation import READ, op_of
from .._core.registry import REGISTRY
from .._core.shape import TensorShape
from .._core.state import PACKAGE_DIR, STATE, next_id, user_frame
from .._core.tensor import EagerTensor
from .._core.variable import LIVE
from . import leaks

__all__ = ["Tracer", "Graph", "Read", "Assign", "tracing", "is_symbolic", "run", "placeholder", "init_scope"]

_new = object.__new__
_OWN = object()  # a tensor whose static shape is its value's


class _Everything:
    """The tracer's ``tracked``: every tensor and variable id is in it, so every op and read is reported to it."""

    __slots__ = ()

    def __contains__(self, tensor_id):
        return True

    def add(self, tensor_id):
        pass

    def __len__(self):
        return 0


_EVERYTHING = _Everything()


class Read:
    """``out = variable`` read at this point of the program."""

    __slots__ = ("variable", "out")

    def __init__(self, variable, out):
        self.variable, self.out = variable, out

    def __repr__(self):
        return f"Read({self.variable.name}, {self.out})"


class Assign:
    """``variable.<method>(value)``: ``value`` is an id in the graph (``traced`` its value in the trace), or
    ``None`` with a ``constant`` array."""

    __slots__ = ("variable", "method", "value", "constant", "traced")

    def __init__(self, variable, method, value, constant, traced=None):
        self.variable, self.method, self.value, self.constant = variable, method, value, constant
        self.traced = traced

    def __repr__(self):
        return f"Assign({self.variable.name}.{self.method}, {self.value if self.constant is None else 'const'})"


# The largest integer tensor whose probe value ``_infer`` carries on (sizes and shapes, not data).
_PROBED_SIZES = 16


class Tracer:
    """The recording observer and listener of one trace (see the module docstring)."""

    # Recording-observer protocol (``_core/observers.py``).
    tracked = _EVERYTHING
    roots = frozenset()
    watch_accessed = True
    sees_every_op = True  # ``stop_recording`` inside a traced function stops tapes, not the trace
    # Listener protocol: it hears the backward passes of tapes inside the function too.
    user_code_only = False

    def __init__(self):
        self.records = self  # ``append`` below takes each stored equation
        self.nodes = []
        self.variables = {}  # id -> variable read or assigned, in first-use order
        self.created = []  # variables created while tracing
        self.created_at = None  # the user's line that created the first of them
        self.static_shapes = {}  # placeholder id -> the shape the function sees (``None`` where it generalises)
        # id -> the value a small integer tensor takes in ``_infer``'s probe where it differs from the trace's own
        # (a ``tf.size`` of a generalised dimension): later probes take it, so sizes computed from it vary too.
        self.probe_values = {}
        self.saved = {}  # variable id -> (variable, its value before the trace first changed it)
        self.outside = ([], None)  # the recording observers and trace outside this one (``init_scope``)
        self.eager_spans = []  # the id ranges ``init_scope`` blocks made eagerly
        self.names = {}  # placeholder id -> TF's name of it (``"x:0"``)
        self.dynamic = set()  # ids whose values depend on the inputs or on variables (not foldable constants)
        self.autograph = True  # whether the function is AutoGraph's (TF wraps its errors, allows iteration)
        self.stacks = {}  # id() of an equation -> the user's frames that made it
        self.generalised = False  # whether some input shape has a ``None``
        self.parent = None  # the trace this one is a branch or loop body of (``control_flow.py``)
        # Kernel errors the trace met (``dispatch._failed``): output id -> the error the program raises if it needs
        # that value; ``failing`` holds the error of the op being recorded.
        self.poisoned = {}
        self.failing = None
        self.scopes = {}  # name scope -> how many times it was opened (TF makes repeated ones unique: ``_1``)
        # Whether shapes this trace cannot fix vary between runs of its code (a loop body whose loop variables
        # change shape): ``tf.shape``/``tf.size`` of such a tensor are then ops, not constants.
        self.shape_dynamic = False
        self.shape_frozen = False  # whether a size of a varying dimension went into the graph as a number
        self.start_id = next_id()  # every tensor made from here on belongs to this trace

    # --- recording observer -----------------------------------------------------------------------------
    def append(self, eq):
        if eq[0] is READ:
            variable = LIVE.get(eq[6])
            if variable is None:  # a read of a variable made before the registry knew it (not expected)
                raise errors.InternalError(None, None, "tf.function traced a read of an unknown variable")
            self.variables.setdefault(variable._id, variable)
            self.nodes.append(Read(variable, eq[4]))
            self.dynamic.add(eq[4])
        else:
            if self.shape_dynamic and eq[0] in _RESHAPES:
                eq = self._relative_reshape(eq)
            self.nodes.append(eq)
            dynamic = self.dynamic
            for i in eq[6::2]:
                if i in dynamic:
                    outs = eq[4]
                    dynamic.update(outs if type(outs) is tuple else (outs,))
                    break
            poisoned = self.poisoned
            if self.failing is not None or (poisoned and any(i in poisoned for i in eq[6::2])):
                self._poison(eq)
            # Where the user's code made it, outermost frame first: what a graph execution error shows. (By the
            # equation's identity: the graph keeps the equation alive, and an op may have no output.)
            self.stacks[id(eq)] = _user_stack()
            key = eq[0]
            op = REGISTRY.get(key) if key.__class__ is str else None
            if op is not None and op.value_sized is not None and any(i in dynamic for i in eq[6::2]):
                self._value_sized(eq, op.value_sized)
            elif self.generalised:
                self._infer(eq)

    def failed(self, err):
        """The op about to be recorded failed with ``err`` on the trace's values (``dispatch._failed``)."""
        self.failing = err

    def _poison(self, eq):
        err = self.failing or next(self.poisoned[i] for i in eq[6::2] if i in self.poisoned)
        self.failing = None
        outs = eq[4]
        for o in outs if type(outs) is tuple else (outs,):
            self.poisoned[o] = err

    def watch_variable(self, variable):
        self.variables.setdefault(variable._id, variable)

    # --- what the function sees -------------------------------------------------------------------------
    def static_shape(self, tensor):
        """The shape ``tensor`` shows while tracing: an input's from the signature (``None`` where it
        generalises), an op's output's as inferred when it was recorded (``_infer``), any other tensor's own."""
        shape = self.static_shapes.get(tensor._id, _OWN)
        return TensorShape(tensor._value.shape if shape is _OWN else shape)

    def static_dims(self, tensor_id, actual):
        """The static shape of the tensor ``tensor_id`` whose value has shape ``actual``, as a tuple (``None``
        where a dimension is not fixed), or ``None`` when its rank is not fixed."""
        return self.static_shapes.get(tensor_id, actual)

    def _relative_reshape(self, eq):
        """``eq``, a reshape to a fixed shape, with the target dimension that holds its input's one varying
        dimension made ``-1``, so that the program reshapes any length of it (rules and layers reshape to
        shapes worked out from the values: ``(4, 1)`` for a batch of 4 becomes ``(-1, 1)``). A reshape that cannot
        be made so marks the trace as tied to its sizes (``shape_frozen``)."""
        static = self.static_dims(eq[6], np.shape(eq[7]))
        if static is not None and None not in static:
            return eq
        target = eq[1]["shape"]
        if -1 in target and all(d in (1, -1) for d in target):
            # A flattening (``[-1]``, ``[1, -1]`` ...) holds no size: it reshapes every length as it is.
            return eq
        if static is not None and static.count(None) == 1 and -1 in target:
            # A ``-1`` already in the target takes the varying dimension whatever its size when the other target
            # dimensions divide the input's fixed ones (``Flatten``: (None, 2, 2, 3) -> (-1, 12)).
            fixed = int(np.prod([d for d in static if d is not None]))
            others = int(np.prod([d for d in target if d != -1]))
            if target.count(-1) == 1 and others > 0 and fixed % others == 0:
                return eq
        if static is None or static.count(None) != 1 or -1 in target:
            self._frozen()
            return eq
        actual = np.shape(eq[7])
        i = static.index(None)
        before = int(np.prod(actual[:i]))  # the elements' stride blocks before and up to the varying dimension
        upto = before * actual[i]
        c, spans = 1, []
        for j, t in enumerate(target):
            if before % c == 0 and (c * t) % upto == 0:  # dimension j spans the varying one, static around it
                spans.append(j)
            c *= t
        if len(spans) != 1:  # none, or several (a length of 1 next to other 1s): which one is not known
            self._frozen()
            return eq
        j = spans[0]
        attrs = dict(eq[1])
        attrs["shape"] = tuple(target[:j]) + (-1,) + tuple(target[j + 1:])
        return (eq[0], attrs) + eq[2:]

    def _frozen(self):
        tracer = self
        while tracer.parent is not None:
            tracer = tracer.parent
        tracer.shape_frozen = True

    def _value_sized(self, eq, sized):
        """The outputs of an op whose sizes follow its input values: those sizes unknown (TF's static shapes)."""
        outs, values = eq[4], eq[5]
        if type(outs) is not tuple:
            outs, values = (outs,), (values,)
        if callable(sized):  # (sizes that depend on an attribute: a boolean mask's axis)
            sized = sized(eq[1] or {})
        for k, dims in sized.items():
            shape = np.shape(values[k])
            self.static_shapes[outs[k]] = tuple(None if dims is None or d in dims or d - len(shape) in dims else n
                                                for d, n in enumerate(shape))  # (a negative dimension counts back)
        self.generalised = self.shape_dynamic = True

    def _infer(self, eq):
        """Record the static shapes of ``eq``'s outputs where they are not simply their values' shapes: the
        dimensions that follow a generalised (``None``) dimension of an input.

        A pure op runs its kernel once more on stand-ins: zeros (empty strings) whose generalised dimensions are
        two longer, and, for the small integer tensors whose probe differed from their value (sizes and shapes
        computed from those dimensions), that probe value. The output dimensions that change are ``None``. A kernel
        that refuses the stand-ins (a reshape to a fixed shape) leaves the outputs' own shapes, which is what a
        fixed shape means."""
        inputs = eq[6::2]
        known = [self.static_shapes.get(i, _OWN) for i in inputs]
        probes = self.probe_values
        if all((k is _OWN or (k is not None and None not in k)) and i not in probes for k, i in zip(known, inputs)):
            return
        outs, values = eq[4], eq[5]
        if type(outs) is not tuple:
            outs, values = (outs,), (values,)
        key = eq[0]
        op = REGISTRY.get(key) if key.__class__ is str else None
        if op is None or op.stateful:
            return
        stand_ins = []
        for i, v, k in zip(inputs, eq[7::2], known):
            if i in probes:
                stand_ins.append(probes[i])
            elif k is _OWN or (k is not None and None not in k):
                stand_ins.append(v)
            else:
                v = np.asarray(v)
                k = (None,) * v.ndim if k is None else k
                shape = [d + 2 if s is None else d for d, s in zip(v.shape, k)]
                if v.dtype.kind in "biufc":
                    stand_ins.append(np.zeros(shape, v.dtype))
                elif v.dtype.kind == "O":
                    stand_ins.append(np.full(shape, b"", dtype=object))
                else:
                    return
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                probed = op.forward(*stand_ins, **(eq[1] or {}))
        except Exception:  # noqa: BLE001 - the kernel refuses other shapes: the outputs' shapes are fixed
            return
        if type(probed) is not tuple:
            probed = (probed,)
        for o, v, p in zip(outs, values, probed):
            actual, other = np.shape(v), np.shape(p)
            if len(actual) != len(other):
                self.static_shapes[o] = None
            elif actual != other:
                self.static_shapes[o] = tuple(None if a != b else a for a, b in zip(actual, other))
            elif np.size(p) <= _PROBED_SIZES and np.asarray(p).dtype.kind in "iu" and not np.array_equal(v, p):
                probes[o] = np.asarray(p)

    def graph_names(self):
        """TF's names of the trace's tensors, by id: ``"x:0"`` for the input ``x``, ``"mul_1:0"`` for the second
        product (the node's type or operator name, numbered in program order)."""
        names = dict(self.names)
        counts = {}
        for node in self.nodes:
            if type(node) is Read:
                base, outs = "ReadVariableOp", (node.out,)
            elif type(node) is tuple:
                op = op_of(node[0])
                base = _NODE_NAMES.get(op.name, op.name)
                outs = node[4] if type(node[4]) is tuple else (node[4],)
            else:
                continue
            k = counts.get(base, 0)
            counts[base] = k + 1
            for j, o in enumerate(outs):
                names[o] = f"{base if k == 0 else f'{base}_{k}'}:{j}"
        return names

    def scope(self, name):
        """``name`` made unique among this graph's name scopes, as TF's graph does (``assert_less``,
        ``assert_less_1`` ...)."""
        k = self.scopes.get(name, 0)
        self.scopes[name] = k + 1
        return name if k == 0 else f"{name}_{k}"

    def construction_error(self, op, inputs, attrs):
        """TF's ``ValueError`` for ``op`` on inputs whose shapes cannot go together (it finds them while building the
        graph: ``Dimensions must be equal, but are 3 and 2 for '{{node add}} = AddV2[T=DT_FLOAT](x, y)' ...``),
        or ``None``."""
        if len(inputs) != 2 or op.name not in _BROADCASTING and op.name != "MatMul":
            return None
        a, b = (self._known_shape(t) for t in inputs)
        if a is None or b is None:
            return None
        if op.name == "MatMul":
            attrs = attrs or {}
            ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
            if len(a) != 2 or len(b) != 2 or a[0 if ta else 1] == b[1 if tb else 0] or \
                    None in (a[0 if ta else 1], b[1 if tb else 0]):
                return None
            pair = (a[0 if ta else 1], b[1 if tb else 0])
            flags = f", grad_a=false, grad_b=false, transpose_a={str(ta).lower()}, transpose_b={str(tb).lower()}"
        else:
            pair = next(((x, y) for x, y in zip(reversed(a), reversed(b))
                         if x != y and 1 not in (x, y) and None not in (x, y)), None)
            if pair is None:
                return None
            flags = ""
        from .._core.registry import _TF_TYPE_NAMES  # noqa: PLC0415

        dtype = _TF_TYPE_NAMES.get(inputs[0]._value.dtype.name, ("", "DT_INVALID"))[1]
        names = ", ".join(self.name_of(t).rsplit(":", 1)[0] for t in inputs)
        shapes = ", ".join("[" + ",".join("?" if d is None else str(d) for d in s) + "]" for s in (a, b))
        return ValueError(f"Dimensions must be equal, but are {pair[0]} and {pair[1]} for '{{{{node "
                          f"{self._next_node_name(op)}}}}} = {op.name}[T={dtype}{flags}]({names})' with input shapes: "
                          f"{shapes}.")

    def _known_shape(self, tensor):
        """The shape the graph knows for ``tensor``: its value's, with ``None`` where the trace left a dimension
        unknown (``None`` for an unknown rank). A value standing in for a failed op may not have the shape its op
        would give, but the unknown dimensions are never compared."""
        static = self.static_shapes.get(tensor._id, _OWN)
        if static is _OWN:
            return np.shape(tensor._value)
        if static is None:
            return None
        return tuple(static)

    def _next_node_name(self, op):
        base = _NODE_NAMES.get(op.name, op.name)
        k = sum(1 for n in self.nodes if type(n) is tuple and _NODE_NAMES.get(op_of(n[0]).name, op_of(n[0]).name) ==
                base)
        return base if k == 0 else f"{base}_{k}"

    def name_of(self, tensor):
        """TF's name of a symbolic tensor of this trace (``"Const:0"`` for a constant it made)."""
        name = self.names.get(tensor._id)
        return name if name is not None else self.graph_names().get(tensor._id, "Const:0")

    def describe(self, tensor):
        """How TF prints a symbolic tensor: ``Tensor("x:0", shape=(None,), dtype=float32)``."""
        return f'Tensor("{self.name_of(tensor)}", shape={self.static_shape(tensor)}, dtype={tensor.dtype.name})'

    # --- listener -------------------------------------------------------------------------------------------
    def variable_assigned(self, variable, method, value):
        if method not in _REPLAYABLE:
            raise errors.UnimplementedError(
                None, None, f"tapeflow cannot trace `{method}` on a variable inside tf.function yet; call it "
                "outside the function, or run the function eagerly (tf.config.run_functions_eagerly(True)).")
        self.save(variable)
        if isinstance(value, EagerTensor):
            self.nodes.append(Assign(variable, method, value._id, None, value._value))
        else:
            self.nodes.append(Assign(variable, method, None, variable._convert(value)))

    def save(self, variable):
        """Keep ``variable``'s value, about to change, to put back when the trace ends: tracing must not change
        the world. It goes back into the very array the variable held (an in-place update changes that array, so
        its contents are copied first)."""
        self.variables.setdefault(variable._id, variable)
        if variable._id not in self.saved:
            old = variable._value
            self.saved[variable._id] = (variable, old, old.copy() if type(old) is np.ndarray else None)

    def variable_created(self, variable):
        if not self.created:
            self.created_at = user_frame(2)
        self.created.append(variable)

    def value_left(self, value, how):
        if getattr(value, "_tapeflow_variable", False):
            return  # a variable's value: an eager value
        if self.poisoned and value._id in self.poisoned:  # a value an op could not compute: its error now
            raise self.poisoned[value._id]
        if value._id < self.start_id:  # made before this trace: an eager value, or one of the enclosing trace's
            if self.parent is not None:
                self.parent.value_left(value, how)
            return
        # ``.numpy()`` and ``bool()`` are refused for every tensor of the graph, as TF refuses them; a value
        # read by code (a shape given as a tensor) only where it depends on the inputs or variables.
        if how in (".numpy()", "bool()") or value._id in self.dynamic:
            raise _leave_error(value, how, self.name_of(value))

    def iterating(self, tensor):
        """``for v in tensor`` on a tensor of the graph: AutoGraph's functions unroll it, others refuse it."""
        if not self.autograph:
            raise errors.OperatorNotAllowedInGraphError(
                "Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions to "
                "the problem: If you are running in Graph mode, use Eager execution mode or decorate this function "
                "with @tf.function. If you are using AutoGraph, you can try decorating this function with "
                "@tf.function. If that does not work, then you may be using an unsupported feature or your source "
                "code may not be visible to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/"
                "tensorflow/python/autograph/g3doc/reference/limitations.md#access-to-source-code for more "
                "information.")



# The node names TF's Python operators give (``x * y`` makes ``mul``); other ops are named by their type.
_NODE_NAMES = {"Mul": "mul", "AddV2": "add", "Sub": "sub", "RealDiv": "truediv", "FloorDiv": "floordiv",
               "FloorMod": "mod", "Pow": "pow", "Neg": "Neg", "Maximum": "Maximum", "Minimum": "Minimum"}

# The elementwise ops that broadcast their two inputs: TF checks their shapes while building the graph.
_BROADCASTING = frozenset({"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "FloorDiv", "FloorMod",
                           "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                           "LogicalAnd", "LogicalOr", "Atan2", "DivNoNan", "TruncateDiv", "Xdivy", "Xlogy"})

# Ops that reshape their one input to a fixed ``shape`` attribute.
_RESHAPES = frozenset({"Reshape", "ExpandDims", "Squeeze"})

# What a traced assignment can be replayed as: the variable's own method with the assigned value.
_REPLAYABLE = frozenset({"assign", "assign_add", "assign_sub"})


def _leave_error(tensor, how, name):
    if how == ".numpy()":
        return AttributeError("'SymbolicTensor' object has no attribute 'numpy'")
    if how == "bool()":
        return errors.OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following "
            "resolutions to the problem: If you are running in Graph mode, use Eager execution mode or decorate "
            "this function with @tf.function. If you are using AutoGraph, you can try decorating this function "
            "with @tf.function. If that does not work, then you may be using an unsupported feature or your source "
            "code may not be visible to AutoGraph. See "
            "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
            "limitations.md#access-to-source-code for more information.")
    if how.startswith("a NumPy conversion"):
        return NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({name}) to a numpy array. This error may "
            "indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.")
    kind = how[:-2]  # "float()" -> "float"
    if kind == "int":
        return TypeError("int() argument must be a string, a bytes-like object or a real number, not "
                         "'SymbolicTensor'")
    return TypeError(f"{kind}() argument must be a string or a real number, not 'SymbolicTensor'")


def _user_stack():
    """``(code, line)`` of the user's frames (outside tapeflow) on the stack, outermost first."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        if not f.f_code.co_filename.startswith(PACKAGE_DIR):
            frames.append((f.f_code, f.f_lineno))
        f = f.f_back
    frames.reverse()
    return tuple(frames)


def tracing():
    """The :class:`Tracer` of this thread's trace in progress, or ``None``."""
    return STATE.tracer


def is_symbolic(tensor):
    """Whether ``tensor`` was made by the trace in progress on this thread."""
    tracer = STATE.tracer
    return tracer is not None and tensor._id >= tracer.start_id and isinstance(tensor, EagerTensor)


class Graph:
    """A traced function: ``nodes`` in program order over ``inputs`` (placeholder ids), giving ``outputs``.

    ``nodes`` holds stored equations (``_core/equation.py``) and :class:`Read` and :class:`Assign` nodes;
    ``constants`` maps each id used but made by no node and no input to its value (tensors the function closed
    over, constants it made); ``variables`` are the variables the nodes read or assign.
    """

    __slots__ = ("nodes", "inputs", "outputs", "constants", "variables", "created", "variable_inputs", "stacks",
                 "poisoned", "shapes_vary", "specs", "input_names")

    def __init__(self, nodes, inputs, outputs, variables, created):
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.variables = variables
        self.created = created
        self.constants = _constants_of(nodes, inputs)
        self.variable_inputs = []  # ids of the variables passed as arguments: inputs of the program, in order
        self.stacks = {}  # id() of an equation -> the user's frames that made it
        self.poisoned = frozenset()  # ids an op failed to compute while tracing (never folded into constants)
        # Whether its tensors' shapes may differ from the trace's when it runs (``Tracer.shape_dynamic``): an op
        # that kept its input's shape in the trace is then not known to keep it (``passes.simplify``).
        self.shapes_vary = False
        # What the values leave behind for readers of the graph (``tf.summary.graph``): id -> (NumPy dtype, shape)
        # of each node's outputs and each input, and input id -> TF's name of it (``"x"``).
        self.specs = {}
        self.input_names = {}

    def forget_values(self):
        """Drop the values the trace computed from the equations (the constants stay): the graph keeps no array
        alive, not a variable's (which would stop in-place updates) nor the trace's intermediates."""
        kept, stacks = [], {}
        for n in self.nodes:
            if type(n) is tuple:
                attrs = n[1]
                custom = attrs is not None and "call" in attrs
                head = n[:5] + ((n[5] if custom else None),)
                stripped = head + tuple(x for pair in zip(n[6::2], [None] * len(n[6::2])) for x in pair)
                stacks[id(stripped)] = self.stacks.get(id(n), ())
                n = stripped
            elif type(n) is Assign:
                n.traced = None
            kept.append(n)
        self.nodes = kept
        self.stacks = stacks

    def known_ids(self):
        """The ids the graph has a value for: its inputs, its constants, and what its nodes make."""
        known = set(self.inputs) | set(self.constants)
        for node in self.nodes:
            if type(node) is Read:
                known.add(node.out)
            elif type(node) is tuple:
                outs = node[4]
                known.update(outs if type(outs) is tuple else (outs,))
        return known

    def ops(self):
        """The ops of the graph's equations, in program order (reads and assignments left out)."""
        return [op_of(n[0]) for n in self.nodes if type(n) is tuple]

    def __repr__(self):
        return f"<Graph: {len(self.inputs)} inputs, {len(self.nodes)} nodes, {len(self.outputs)} outputs>"


def _constants_of(nodes, inputs):
    known = set(inputs)
    constants = {}
    for n in nodes:
        if type(n) is tuple:
            for i, v in zip(n[6::2], n[7::2]):
                if i not in known:
                    constants[i] = v
                    known.add(i)
            outs = n[4]
            known.update(outs if type(outs) is tuple else (outs,))
        elif type(n) is Read:
            known.add(n.out)
        elif type(n) is Assign and n.value is not None and n.value not in known:
            constants[n.value] = n.traced  # a constant made in the function and assigned as it is
            known.add(n.value)
    return constants


def run(tracer, fn, args, kwargs, finish=None):
    """``finish(fn(*args, **kwargs))`` run as the trace of ``tracer`` (made before the placeholders in ``args``).

    Outer tapes and forward accumulators are set aside while the function runs, and restored after; so are the
    variables it assigned: a trace records what the function does, and the program does it when it runs.
    """
    tapes = STATE.tapes
    saved = tapes[:]
    outer = STATE.tracer
    tracer.outside = (saved, outer)  # what ``init_scope`` goes back to
    tapes[:] = [tracer]
    STATE.tracer = tracer
    observers.listen(tracer)
    try:
        result = fn(*args, **kwargs)
        return result if finish is None else finish(result)
    finally:
        observers.unlisten(tracer)
        STATE.tracer = outer
        tapes[:] = saved
        for variable, array, contents in tracer.saved.values():
            with variable._lock:
                if contents is not None:
                    np.copyto(array, contents)
                variable._value = array
        tracer.saved.clear()  # the tracer lives on in a cycle (``records``): it must not hold the arrays
        if tracer.parent is None:  # (a branch's tensors are the enclosing trace's)
            leaks.finished(tracer, next_id())


class init_scope:  # noqa: N801 - TF's name, used as ``with tf.init_scope():``
    """Run the block outside the function being traced (``tf.init_scope``): its ops run once, now, as eager ops,
    and are not part of the traced program (a one-time initialisation inside a ``tf.function``). Outside a trace it
    changes nothing."""

    def __enter__(self):
        tracer = STATE.tracer
        self._tracer = tracer
        if tracer is not None:
            saved, outer = tracer.outside
            self._start = next_id()  # tensors made from here to the exit are eager ones
            self._inside = STATE.tapes[:]
            observers.unlisten(tracer)
            STATE.tapes[:] = saved
            STATE.tracer = outer
        return None

    def __exit__(self, *exc):
        tracer = self._tracer
        if tracer is not None:
            tracer.eager_spans.append((self._start, next_id()))
            STATE.tapes[:] = self._inside
            STATE.tracer = tracer
            observers.listen(tracer)
        return False


def placeholder(value):
    """A fresh tensor for a traced function's input, holding the tracing call's value."""
    t = _new(EagerTensor)
    t._value = value
    t._id = next_id()
    return t

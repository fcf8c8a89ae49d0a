"""ONNX export: trace, find every tensor's shape, lower each equation, check and write the model.

1. **Trace.** The function (a ``tf.function``, a Python function, a Keras model's ``__call__`` with
   ``training=False``) is traced for the input signature by tapeflow's own ``tf.function`` machinery
   (``compiler/``), with each ``None`` dimension given a size of its own (not 1, so that a trace never mistakes a
   dimension of 1 for the one that varies): the program's graph is what gets exported.
2. **Shapes.** The graph is run op by op on stand-in inputs at those sizes and again at other sizes: a dimension
   that changes between the runs is dynamic (a symbolic ONNX dimension). The second run also proves that the
   program serves other sizes: one that fixed a ``None`` dimension's size (a reshape to a fixed shape) fails
   there, and the export says which op and line did it; lowerings refuse what the runs cannot catch (a Python loop
   unrolled over a ``None`` axis).
3. **Lowering.** Each equation goes through its op's lowering (``_registry.py``: ``_math.py``, ``_array.py``,
   ``_nn.py``; control flow in ``_control.py``); variables read become initializers holding their values at export
   time, constants of the program become initializers too. An op with no lowering, or a use its lowering cannot
   express, is an :class:`ExportError` naming the op and the user's line that made it.
4. **Check and write.** ``onnx.checker.check_model(full_check=True)``, then the bytes go to a temporary file next
   to ``path`` that replaces it only once complete: a failed export leaves no partial file and keeps the old one.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from .._core import nest
from .._core.equation import op_of
from .._core.extras import require
from .._core.state import line_of
from .._core.tensor import EagerTensor, constant_of
from .._core.tensor_spec import TensorSpec
from ..compiler import lower, signature, trace
from ..compiler.program import replay_nodes
from ..compiler.specs import signature_key
from ..compiler.tf_function import ConcreteFunction, Function
from . import _array, _control, _math, _nn  # noqa: F401 - they fill the registry
from ._registry import OPSET, ExportError, Node, Unsupported, lowering_of

__all__ = ["OPSET", "export", "build_model", "lower_graph", "replay", "shape_maps", "write_atomically"]


def _ir_version(opset):
    """The IR version that came with ``opset`` (so every runtime that runs the opset reads the file)."""
    return 8 if opset <= 18 else 9 if opset <= 20 else 10 if opset <= 22 else 11


# Sizes the k-th ``None`` dimension takes in the trace (and first run) and in the second run.
_TRACE_SIZES = (3, 7, 11, 13, 17, 19, 23, 29, 31, 37)
_OTHER_SIZES = (5, 8, 10, 14, 16, 20, 22, 26, 28, 32)


def _onnx():
    return require("onnx", "tapeflow.onnx.export", extra="onnx")


# ------------------------------------------------------------------------------------------ what to trace


def _is_keras(obj):
    from ..keras.layers.base import Layer  # noqa: PLC0415 - Keras loads on first use

    return isinstance(obj, Layer)


def _keras_signature(model):
    inputs = getattr(model, "inputs", None)
    if not inputs:
        raise ValueError(f"tapeflow.onnx.export: the model {getattr(model, 'name', model)!r} has no known inputs "
                         "(it was never built on a tf.keras.Input): pass input_signature=[tf.TensorSpec(...)]")
    # A Keras model takes any batch size: its inputs' first dimension is left free whatever it was built with.
    return [TensorSpec([None] + list(t.shape)[1:], t.dtype, name=getattr(t, "name", None)) for t in inputs]


def _checked_signature(input_signature):
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError("input_signature must be either a tuple or a list, got "
                        f"{type(input_signature)}.")
    flat = nest.flatten(list(input_signature))
    for spec in flat:
        if not isinstance(spec, TensorSpec):
            raise TypeError("input_signature must be a possibly nested sequence of TensorSpec objects, got "
                            f"invalid args {spec!r} of type {type(spec)}.")
        if spec.shape.rank is None:
            raise ValueError(f"tapeflow.onnx.export: the input {spec!r} has no known rank; ONNX inputs need one.")
        if spec.dtype.as_numpy_dtype is object or np.dtype(spec.dtype.as_numpy_dtype).kind in "OUSc":
            raise TypeError(f"tapeflow.onnx.export: the input {spec!r} has dtype {spec.dtype.name}, which ONNX "
                            "Runtime does not take; export numeric or boolean inputs.")
    return list(input_signature)


def _function_of(fn_or_model, input_signature):
    """``(function, specs)``: the ``tf.function`` to trace and the signature to trace it for."""
    if isinstance(fn_or_model, ConcreteFunction):
        specs = [s for s in nest.flatten(fn_or_model.structured_input_signature[0])]
        function = fn_or_model._owner
        return function, _checked_signature(input_signature if input_signature is not None else specs)
    if isinstance(fn_or_model, Function):
        specs = input_signature if input_signature is not None else fn_or_model.input_signature
        if specs is None:
            raise ValueError("tapeflow.onnx.export: the tf.function has no input_signature: pass "
                             "input_signature=[tf.TensorSpec(...)]")
        return fn_or_model, _checked_signature(specs)
    if _is_keras(fn_or_model):
        model = fn_or_model
        specs = _checked_signature(input_signature if input_signature is not None else _keras_signature(model))
        single = len(specs) == 1

        def call(*inputs):
            return model(inputs[0] if single else list(inputs), training=False)

        call.__name__ = getattr(model, "name", "model") or "model"
        return Function(call, specs), specs
    if not callable(fn_or_model):
        raise TypeError(f"tapeflow.onnx.export: expected a tf.function, a Python function or a Keras model, got "
                        f"{type(fn_or_model).__name__}")
    if input_signature is None:
        raise ValueError("tapeflow.onnx.export: a Python function needs input_signature=[tf.TensorSpec(...)]")
    specs = _checked_signature(input_signature)
    return Function(fn_or_model, specs), specs


# ------------------------------------------------------------------------------------------ trace and shapes


def _dims_plan(specs):
    """Per flat input, per dimension: ``None`` (fixed) or the index of the symbol it stands for; and the names."""
    plan, names = [], []
    for spec in nest.flatten(specs):
        dims = []
        for axis, d in enumerate(spec.shape.as_list()):
            if d is not None:
                dims.append(None)
            elif axis == 0:
                if "batch" not in names:
                    names.append("batch")
                dims.append(names.index("batch"))
            else:
                names.append(f"unk__{len(names)}")
                dims.append(len(names) - 1)
        plan.append(dims)
    if len(names) > len(_TRACE_SIZES):
        raise ValueError(f"tapeflow.onnx.export: at most {len(_TRACE_SIZES)} None dimensions are supported")
    return plan, names


def _inputs_at(specs, plan, sizes):
    """Stand-in inputs with the given sizes of the ``None`` dimensions: ones for integers (valid indices, and a loop
    ``for i in tf.range(n)`` that runs), false for booleans, numbers in [0.5, 1.5) for floats (clear of the zeros
    that some ops refuse)."""
    rng = np.random.default_rng(0)
    out = []
    for spec, dims in zip(nest.flatten(specs), plan):
        shape = [sizes[s] if s is not None else d for s, d in zip(dims, spec.shape.as_list())]
        dtype = np.dtype(spec.dtype.as_numpy_dtype)
        value = rng.uniform(0.5, 1.5, shape).astype(dtype) if dtype.kind == "f" else \
            np.ones(shape, dtype) if dtype.kind in "iu" else np.zeros(shape, dtype)
        out.append(constant_of(value))
    return out


def _trace(function, specs, plan):
    """The program of ``function`` traced for ``specs`` on stand-in inputs with the trace sizes (as
    ``get_concrete_function`` traces, with TF's checks of the signature, but not on zeros of size 1)."""
    bound = function._bind(tuple(specs), {}, specs=True)
    key, _, variables = signature.key_of(*bound)
    tensors = _inputs_at(specs, plan, _TRACE_SIZES)
    if function._lookup(key) is None:  # the first trace for this signature: it may create the variables
        return function._trace(bound, key, tensors, variables, tuple(specs), {})._first
    general = signature_key(function.input_signature, key) if function.input_signature is not None else key
    return function._program(bound, tensors, variables, general, allow_variables=False)


def _where(graph, node):
    if node[2] is not None:
        return line_of((node[2], node[3]))
    stack = graph.stacks.get(id(node), ())
    return f"{stack[-1][0].co_filename}:{stack[-1][1]}" if stack else "an unknown line"


def replay(graph, tensors):
    """Every tensor's value on ``tensors`` (id -> array); an error names the op that refused them."""
    env = replay_nodes(graph, tensors)
    values = {i: t._value for i, t in env.items() if isinstance(t, EagerTensor)}
    for i in graph.outputs:  # a constant returned as it is
        if i not in values:
            values[i] = graph.constants[i]
    return values


def _failing_node(graph, tensors):
    """The first node of ``graph`` that fails on ``tensors`` and its error (replayed one node at a time)."""
    for k in range(1, len(graph.nodes) + 1):
        part = trace.Graph(graph.nodes[:k], graph.inputs, [], graph.variables, graph.created)
        part.constants = graph.constants
        try:
            replay_nodes(part, tensors)
        except Exception as exc:  # noqa: BLE001 - any kernel error is the answer
            return graph.nodes[k - 1], exc
    return None, None


def _run(graph, tensors, what):
    """:func:`replay`, or an :class:`ExportError` naming the op that fails on ``tensors`` and the line that made it."""
    try:
        return replay(graph, tensors)
    except Exception:  # noqa: BLE001 - found again below, node by node, to name the op
        node, exc = _failing_node(graph, tensors)
        if node is None or type(node) is not tuple:
            raise
        op = op_of(node[0])
        detail = str(exc).splitlines()[0] if str(exc) else ""
        raise ExportError(f"tapeflow.onnx.export: op {op.name!r} made at {_where(graph, node)} fails {what} "
                          f"({type(exc).__name__}: {detail})") from None


def _shapes(graph, specs, plan):
    """Every tensor's value (id -> array) in the two runs: at the trace's sizes and at other sizes."""
    first = _run(graph, _inputs_at(specs, plan, _TRACE_SIZES),
                 "on the stand-in inputs the export runs the program on (ones for integers, numbers in [0.5, 1.5) "
                 "for floats)")
    second = _run(graph, _inputs_at(specs, plan, _OTHER_SIZES),
                  "when the size of a None dimension of the inputs changes: the traced program fixes that size. Give "
                  "the dimension a fixed size in the input signature, or compute the shape with tf.shape")
    return first, second


def shape_maps(first, second):
    """``(shapes, dtypes)`` by id from the values of two runs: a dimension that differs between them is ``None``."""
    shapes, dtypes = {}, {}
    for i, value in first.items():
        a, b = np.shape(value), np.shape(second.get(i, value))
        shapes[i] = tuple(x if x == y else None for x, y in zip(a, b)) if len(a) == len(b) else a
        dtypes[i] = np.asarray(value).dtype
    return shapes, dtypes


# ------------------------------------------------------------------------------------------ emitting ONNX


class _Emitter:
    """Collects the ONNX nodes and initializers of one export; what a lowering calls (``cx``)."""

    def __init__(self, onnx):
        self.onnx = onnx
        self.nodes, self.initializers = [], []
        self._outer = []  # the node lists of the graphs around the subgraph being emitted (``push``)
        self.variables = {}  # variable id -> its initializer's name
        self._used = set()
        self._small = {}
        self.doc = ""

    def fresh(self, hint):
        k = len(self._used)
        name = f"{hint}_{k}"
        while name in self._used:
            k += 1
            name = f"{hint}_{k}"
        self._used.add(name)
        return name

    def claim(self, name):
        self._used.add(name)
        return name

    def push(self):
        """Emit into a new node list (a subgraph's) until :meth:`pop` gives it back."""
        self._outer.append(self.nodes)
        self.nodes = []

    def pop(self):
        nodes, self.nodes = self.nodes, self._outer.pop()
        return nodes

    def onnx_type(self, dtype):
        return self.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def add(self, op_type, inputs, out=None, n=1, **attrs):
        """Append one ONNX node; its output name(s): ``out`` (a name or a list), else fresh ones (``n`` of them,
        returned as a list when ``n > 1``)."""
        if out is None:
            outs = [self.fresh(op_type.lower()) for _ in range(n)]
        else:
            outs = list(out) if isinstance(out, list) else [out]
        node = self.onnx.helper.make_node(op_type, list(inputs), outs, name=self.fresh(f"{op_type}_node"),
                                          doc_string=self.doc or None, **attrs)
        self.nodes.append(node)
        return outs if (n > 1 or isinstance(out, list)) else outs[0]

    def initializer(self, value, name):
        arr = np.asarray(value)
        if not arr.flags.c_contiguous:  # (not ascontiguousarray: it makes a 0-d array 1-d)
            arr = arr.copy()
        if arr.dtype.kind in "OUSc":
            raise Unsupported(f"a constant of dtype {arr.dtype} (ONNX Runtime takes numbers and booleans)")
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, self.claim(name)))
        return name

    def const(self, value):
        """An initializer holding ``value`` (small ones are shared)."""
        arr = np.asarray(value)
        key = (arr.dtype.str, arr.shape, arr.tobytes()) if arr.size <= 64 else None
        if key is not None and key in self._small:
            return self._small[key]
        name = self.initializer(arr, self.fresh("const"))
        if key is not None:
            self._small[key] = name
        return name

    def i64(self, values):
        """A 1-D int64 initializer (ONNX's shapes, axes and bounds)."""
        return self.const(np.asarray(list(values), np.int64).reshape(-1))


def _variable_name(variable, used):
    base = variable.name[:-2] if variable.name.endswith(":0") else variable.name
    name, k = base, 1
    while name in used:
        name, k = f"{base}_{k}", k + 1
    return name


def lower_graph(cx, graph, first, second, input_names, prefix=""):
    """Emit every node of ``graph`` (``first``/``second``: id -> value in the two runs); returns ``name_of``, id ->
    ONNX name of a value. ``prefix`` keeps the names of a graph emitted twice (a loop's condition) apart."""
    shapes, dtypes = shape_maps(first, second)
    names = dict(zip(graph.inputs, input_names))

    def name_of(i):
        name = names.get(i)
        if name is None:
            name = names[i] = cx.initializer(graph.constants[i], cx.fresh(f"const_{i}"))
        return name

    for node in graph.nodes:
        kind = type(node)
        if kind is trace.Read:
            v = node.variable
            if v._id not in cx.variables:
                cx.variables[v._id] = cx.initializer(np.asarray(v.numpy()), _variable_name(v, cx._used))
            names[node.out] = cx.variables[v._id]
            continue
        if kind is trace.Assign:
            raise ExportError(f"tapeflow.onnx.export: the function assigns the variable {node.variable.name!r}; an "
                              "ONNX model has no state to update: export a function that only reads variables")
        key, attrs = node[0], node[1] or {}
        op = op_of(key)
        where = _where(graph, node)
        outs = node[4] if type(node[4]) is tuple else (node[4],)
        call = lower._custom_call(attrs)
        if call is not None:  # a custom gradient's call: its values are those of the ops inside it
            values = node[5] if type(node[4]) is tuple else (node[5],)
            for o, r, v in zip(outs, call.result_ids, values):
                names[o] = name_of(r) if r is not None else cx.const(v)
            continue
        ins = node[6::2]
        out_names = [cx.claim(f"{prefix}t{o}") for o in outs]
        cx.doc = f"{op.name} at {where}"
        if _control.is_control(node):
            _control.lower(cx, node, [name_of(i) for i in ins], out_names, first, second, where)
            names.update(zip(outs, out_names))
            continue
        lowering = lowering_of(key) if isinstance(key, str) else None
        if lowering is None:
            raise ExportError(f"tapeflow.onnx.export: op {op.name!r} (made at {where}) has no ONNX lowering; the ops "
                              "that export are listed in docs/onnx.md")
        constants = {k: graph.constants[i] for k, i in enumerate(ins) if i in graph.constants}
        n = Node(key, op.name, attrs, [name_of(i) for i in ins], out_names, [shapes[i] for i in ins],
                 [dtypes[i] for i in ins], [shapes[o] for o in outs], [dtypes[o] for o in outs], where, constants)
        try:
            lowering(cx, n)
        except Unsupported as exc:
            raise ExportError(f"tapeflow.onnx.export: op {op.name!r} (made at {where}): ONNX export does not "
                              f"support {exc}") from None
        names.update(zip(outs, out_names))
    cx.doc = ""
    return name_of


def _value_info(onnx, name, dtype, dims):
    shape = [d if isinstance(d, str) else int(d) for d in dims]
    return onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape)


def _input_names(function, specs):
    names = function._input_names((tuple(specs), {}))
    out, seen = [], set()
    for k, name in enumerate(names):
        name = name or f"input_{k}"
        while name in seen:
            name = f"{name}_{k}"
        seen.add(name)
        out.append(name)
    return out


def build_model(fn_or_model, input_signature=None, opset=None):
    """The ONNX ``ModelProto`` of ``fn_or_model`` (see :func:`tapeflow.onnx.export`), checked, not written."""
    onnx = _onnx()
    opset = OPSET if opset is None else int(opset)
    if opset < OPSET:
        raise ValueError(f"tapeflow.onnx.export writes opset {OPSET} or newer, got opset={opset}")
    function, specs = _function_of(fn_or_model, input_signature)
    plan, symbols = _dims_plan(specs)
    program = _trace(function, specs, plan)
    graph = program.graph
    first, second = _shapes(graph, specs, plan)
    cx = _Emitter(onnx)
    input_names = [cx.claim(n) for n in _input_names(function, specs)]
    name_of = lower_graph(cx, graph, first, second, input_names)
    inputs = []
    for name, spec, dims in zip(input_names, nest.flatten(specs), plan):
        shape = [symbols[s] if s is not None else d for s, d in zip(dims, spec.shape.as_list())]
        inputs.append(_value_info(onnx, name, spec.dtype.as_numpy_dtype, shape))
    outputs = _outputs(cx, graph, program, name_of, first, second, symbols)
    untyped = [onnx.helper.make_tensor_value_info(name, cx.onnx_type(dtype), None) for name, dtype, _ in outputs]
    model_graph = onnx.helper.make_graph(cx.nodes, function.name, inputs, untyped, initializer=cx.initializers)
    model = onnx.helper.make_model(model_graph, opset_imports=[onnx.helper.make_opsetid("", opset)],
                                   producer_name="tapeflow", producer_version=_version())
    model.ir_version = _ir_version(opset)
    declared = _declared(onnx, model, outputs)
    del model.graph.output[:]
    model.graph.output.extend(declared)
    onnx.checker.check_model(model, full_check=True)
    return model


def _outputs(cx, graph, program, name_of, first, second, symbols):
    """The graph outputs ``output_<k>`` (an Identity of each result): ``(name, dtype, dims)`` with the dims the two
    runs found (a size that varies as an input's ``None`` dimension does is named after it)."""
    specs = [s for s in nest.flatten(program.output_specs) if isinstance(s, TensorSpec)]
    sizes = {(_TRACE_SIZES[k], _OTHER_SIZES[k]): name for k, name in enumerate(symbols)}
    outputs = []
    for k, (i, spec) in enumerate(zip(graph.outputs, specs)):
        name = cx.claim(f"output_{k}")
        cx.add("Identity", [name_of(i)], out=name)
        a, b = np.shape(first[i]), np.shape(second[i])
        static = spec.shape.as_list() if spec.shape.rank is not None else [None] * len(a)
        dims = [x if x == y and s is not None else sizes.get((x, y), f"{name}_dim{axis}")
                for axis, (x, y, s) in enumerate(zip(a, b, static))]
        outputs.append((name, np.asarray(first[i]).dtype, dims))
    return outputs


def _declared(onnx, model, outputs):
    """The outputs' value infos. A size is declared only where ONNX's own shape inference finds the same one:
    two runs on stand-in inputs cannot see a size that follows the inputs' values (``tf.where``, a range)."""
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    found = {v.name: v for v in list(inferred.graph.output) + list(inferred.graph.value_info)}
    infos = []
    for name, dtype, dims in outputs:
        info = found.get(name)
        shape = info.type.tensor_type.shape if info is not None and info.type.tensor_type.HasField("shape") else None
        final = []
        for axis, d in enumerate(dims):
            seen = shape.dim[axis] if shape is not None and axis < len(shape.dim) else None
            if isinstance(d, str):
                final.append(d)
            elif seen is not None and seen.HasField("dim_value") and seen.dim_value == d:
                final.append(d)
            else:
                final.append(f"{name}_dim{axis}")
        infos.append(_value_info(onnx, name, dtype, final))
    return infos


def _version():
    from importlib import metadata  # noqa: PLC0415

    try:
        return metadata.version("tapeflow")
    except metadata.PackageNotFoundError:
        return "0"


def write_atomically(data, path):
    """Write ``data`` to ``path`` through a temporary file in the same directory, replaced in one step."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".onnx", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def export(fn_or_model, input_signature=None, path=None, opset=None):
    """See :func:`tapeflow.onnx.export`."""
    model = build_model(fn_or_model, input_signature, opset)
    if path is not None:
        write_atomically(model.SerializeToString(), path)
    return model

"""A traced function's graph (``compiler.trace.Graph``) as the ``GraphDef`` TensorFlow would make of the same
function, for TensorBoard's Graphs dashboard (TensorBoard's ``graph_pb2``).

The layout is TF's function graph: one ``Placeholder`` per input named after its parameter (``_Arg`` in a traced
run's graph, with ``index``); a node per op, named as TF names it (``MatMul``, ``add``, ``add_1``, ``transpose``,
``strided_slice`` ...) with its inputs by name, its dtype attribute (``T``), the attributes TF's op declares and
``_output_shapes``; the results through ``Identity`` nodes (and ``_Retval`` in a run's graph).

Where TF's op takes as an input what tapeflow's keeps as an attribute, the attribute becomes TF's ``Const`` input:
reduction axes (``Sum/reduction_indices``, ``Const`` when all axes are reduced), shapes, permutations, paddings,
gather axes, and the ``begin``/``end``/``strides`` of a slice with TF's masks (``strided_slice/stack``,
``stack_1``, ``stack_2``). Constants the function made are ``Const`` nodes named after their consumer and input
(``add/y``). A variable read is ``<consumer>/ReadVariableOp`` of a resource placeholder named after the first
read (``MatMul/ReadVariableOp/resource``); assignments are ``AssignVariableOp`` and kin. TF's control edges (the
``NoOp`` that orders a function's effects, the ``Identity`` after some reads) are not drawn.
"""

from __future__ import annotations

import numpy as np

from .._core.equation import op_of
from .._core.opdefs import OPDEFS
from ..compiler import trace as _trace
from . import _writer

__all__ = ["graph_def"]

_PRODUCER = 2474  # the GraphDef version TF 2.21 writes
_RESOURCE = 20  # DT_RESOURCE
_ASSIGNS = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp", "assign_sub": "AssignSubVariableOp"}
# TF's node names where they are not the op's.
_NAMES = dict(_trace._NODE_NAMES, Transpose="transpose", ConcatV2="concat", StridedSlice="strided_slice")
_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
# tapeflow attribute -> TF's input made of it (placed after the op's tensor inputs).
_ATTR_INPUTS = dict({r: ("axis", "reduction_indices") for r in _REDUCTIONS}, Reshape=("shape", "shape"),
                    Transpose=("perm", "perm"), ConcatV2=("axis", "axis"), Tile=("multiples", "multiples"),
                    Pad=("paddings", "paddings"), GatherV2=("axis", "axis"))


def _graph_pb2():
    _writer.proto_modules()
    from tensorboard.compat.proto import graph_pb2  # noqa: PLC0415

    return graph_pb2


_DEFAULTS = {"true": True, "false": False}


def _tf_def(op_name):
    """``(inputs, attributes)`` of TF's op, or ``None`` for an op TF does not have: ``inputs`` its ``(name, type)``
    pairs (``("values", "N*T")``), ``attributes`` its attribute names with their default (``None`` for a type or
    no default)."""
    tf_def = OPDEFS.get(op_name)
    if tf_def is None:
        return None
    text = tf_def[1][:-1]  # (without the closing ">")
    signature = text.split("signature=", 1)[1].split(" ->", 1)[0]
    inputs = tuple(tuple(x.strip() for x in p.split(":", 1)) for p in signature.split(",") if ":" in p)
    attrs = {}
    for part in text.split("; "):
        if part.startswith("attr="):
            name, _, rest = part[5:].partition(":")
            kind, default = rest.split(",", 1)[0], None
            if ",default=" in rest and kind in ("bool", "int", "float", "string"):
                raw = rest.split(",default=", 1)[1].split(",allowed=", 1)[0].split(",min=", 1)[0]
                default = _DEFAULTS.get(raw, raw.strip('"') if kind == "string" else
                                        float(raw) if kind == "float" else int(raw) if kind == "int" else raw)
            attrs[name] = default
    return inputs, attrs


def _dtype_number(dtype):
    dtype = np.dtype(dtype)
    return 7 if dtype.kind == "O" else _writer._DT.get(dtype.name, 0)


def _set_shape(proto, shape):
    if shape is None:
        proto.unknown_rank = True
        return
    for d in shape:
        proto.dim.add(size=-1 if d is None else int(d))


def _set_attr(attr, value):
    """``value`` as an ``AttrValue``; ``False`` for a value that is not plain (then left out)."""
    if isinstance(value, (bool, np.bool_)):
        attr.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        attr.i = int(value)
    elif isinstance(value, (float, np.floating)):
        attr.f = float(value)
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                  for v in value):
        attr.list.i.extend(int(v) for v in value)
    else:
        return False
    return True


def _slice_inputs(index, rank):
    """TF's ``begin``, ``end``, ``strides`` and masks for a NumPy-style ``index`` (as ``tensor[...]`` makes them)."""
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    for k, item in enumerate(index if isinstance(index, tuple) else (index,)):
        bit = 1 << k
        if isinstance(item, slice):
            begin.append(0 if item.start is None else int(item.start))
            end.append(0 if item.stop is None else int(item.stop))
            strides.append(1 if item.step is None else int(item.step))
            masks["begin_mask"] |= bit if item.start is None else 0
            masks["end_mask"] |= bit if item.stop is None else 0
        elif item is Ellipsis or item is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask" if item is Ellipsis else "new_axis_mask"] |= bit
        elif isinstance(item, (int, np.integer)):
            begin.append(int(item)), end.append(int(item) + 1), strides.append(1)
            masks["shrink_axis_mask"] |= bit
        else:
            return None  # (a tensor index or a mask: not a plain slice)
    return [np.asarray(v, np.int32) for v in (begin, end, strides)], masks


class _Builder:
    def __init__(self, graph, run):
        self.graph, self.run = graph, run
        self.out = _graph_pb2().GraphDef()
        self.out.versions.producer = _PRODUCER
        self.specs = graph.specs
        self.names = {}  # id -> the input string naming it ("MatMul", "split:1")
        self.counts = {}
        self.resources = {}
        self.dtypes = {}  # input string -> NumPy dtype (for TF's type attributes)

    def unique(self, base):
        k = self.counts.get(base, 0)
        self.counts[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def shapes(self, node, ids, always=False):
        if self.run and not always:
            return  # (a run's graph, before TF's optimizations, has shapes on its arguments only)
        found = [self.specs.get(i) for i in ids]
        if found and all(s is not None for s in found):
            for s in found:
                _set_shape(node.attr["_output_shapes"].list.shape.add(), s[1])

    def placeholder(self, name, dtype, shape, index=None):
        node = self.out.node.add(name=name, op="_Arg" if self.run else "Placeholder")
        if self.run:
            node.attr["T"].type = dtype
            if index is not None:
                node.attr["index"].i = index
        else:
            node.attr["dtype"].type = dtype
            _set_shape(node.attr["shape"].shape, shape)
        return node

    def const(self, base, value):
        value = np.asarray(value)
        name = self.unique(base)
        node = self.out.node.add(name=name, op="Const")
        node.attr["value"].tensor.CopyFrom(_writer.tensor_proto(value))
        node.attr["dtype"].type = _dtype_number(value.dtype)
        if not self.run:
            _set_shape(node.attr["_output_shapes"].list.shape.add(), value.shape)
        self.dtypes[name] = value.dtype
        return name

    def source(self, i, consumer, arg):
        """The name an input id goes by, making the ``Const`` node of a constant on first use."""
        if i not in self.names and i in self.graph.constants:
            self.names[i] = self.const(f"{consumer}/{arg}" if arg else "Const", self.graph.constants[i])
        return self.names.get(i)

    def first_consumers(self, nodes, named):
        """id -> the name of the op whose scope TF reads a variable in (the first op taking it; none for a
        slice, which TF reads the variable for before slicing)."""
        consumer = {}
        for n in nodes:
            if type(n) is tuple:
                scoped = op_of(n[0]).name != "StridedSlice"
                for i in n[6::2]:
                    consumer.setdefault(i, named[id(n)] if scoped else None)
            elif type(n) is _trace.Assign:
                consumer.setdefault(n.value, named[id(n)])
        return consumer

    def read(self, n, consumer):
        # TF reads a variable inside the scope of the op it is an input of, except where indexing reads it first.
        name = self.unique(f"{consumer}/ReadVariableOp" if consumer else "ReadVariableOp")
        node = self.out.node.add(name=name, op="ReadVariableOp", input=[self.resource(n.variable, name)])
        node.attr["dtype"].type = _dtype_number(n.variable.dtype.as_numpy_dtype)
        self.shapes(node, [n.out])
        self.names[n.out] = name
        self.dtypes[name] = np.dtype(n.variable.dtype.as_numpy_dtype)

    def resource(self, var, user):
        """The placeholder of the captured variable ``var``, named after its first user (``<user>/resource``)."""
        if var._id not in self.resources:
            name = self.unique(f"{user}/resource")
            node = self.placeholder(name, _RESOURCE, ())
            if not self.run:
                node.attr["shape"].shape.SetInParent()
                node.attr["_output_shapes"].list.shape.add()
                node.attr["_user_specified_name"].s = b"resource"
            self.resources[var._id] = name
        return self.resources[var._id]

    def type_attrs(self, node, inputs, tf_inputs):
        """TF's type attributes (``T``, ``Tidx``, ``N`` ...) from the dtypes of the node's inputs."""
        dtypes = [self.dtypes.get(i) for i in inputs]
        position = 0
        for k, (_, kind) in enumerate(tf_inputs):
            if position >= len(dtypes):
                break
            if "*" in kind:
                count_attr, kind = kind.split("*", 1)
                count = len(dtypes) - (len(tf_inputs) - 1 - k)
                node.attr[count_attr].i = count
            else:
                count = 1
            if kind[:1].isupper() and dtypes[position] is not None:
                node.attr[kind].type = _dtype_number(dtypes[position])
            position += count

    def op(self, n, name):
        op = op_of(n[0])
        tf_def = _tf_def(op.name)
        arg_names = [name for name, _ in tf_def[0]] if tf_def else []
        ins = list(n[6::2])
        attrs = dict(n[1] or {})
        node = self.out.node.add(name=name, op=op.name)
        for position, i in enumerate(ins):
            source = self.source(i, name, arg_names[position] if position < len(arg_names) else None)
            if source is not None:
                node.input.append(source)
        first = self.specs.get(ins[0]) if ins else None
        if op.name == "StridedSlice" and "index" in attrs and first is not None and first[1] is not None:
            made = _slice_inputs(attrs.pop("index"), len(first[1]))
            if made is not None:
                stacks, masks = made
                for k, values in enumerate(stacks):
                    node.input.append(self.const(f"{name}/stack" + (f"_{k}" if k else ""), values))
                attrs.update(masks)
        elif op.name == "ExpandDims" and "shape" in attrs and first is not None and first[1] is not None:
            shape, before = tuple(attrs.pop("shape")), tuple(first[1])
            axis = next((k for k, (a, b) in enumerate(zip(before, shape)) if a != b), len(before))
            node.input.append(self.const(f"{name}/dim", np.int32(axis)))
        elif op.name in _ATTR_INPUTS and _ATTR_INPUTS[op.name][0] in attrs:
            value = attrs.pop(_ATTR_INPUTS[op.name][0])
            if value is None and first is not None and first[1] is not None:
                node.input.append(self.const("Const", np.arange(len(first[1]), dtype=np.int32)))
            elif value is not None:
                value = np.asarray(value, np.int32)
                if op.name in _REDUCTIONS and value.shape == (1,):
                    value = value[0]  # (an axis given as one number, as it usually is)
                node.input.append(self.const(f"{name}/{_ATTR_INPUTS[op.name][1]}", value))
        if "keepdims" in attrs:
            attrs["keep_dims"] = attrs.pop("keepdims")
        if op.name == "Cast" and "dtype" in attrs:
            node.attr["DstT"].type = _dtype_number(attrs.pop("dtype"))
        if tf_def is not None:
            self.type_attrs(node, list(node.input), tf_def[0])
            for key, default in tf_def[1].items():
                attrs.setdefault(key, default)  # (TF's graph holds every attribute, defaults included)
        elif first is not None:
            node.attr["T"].type = _dtype_number(first[0])
        for key, value in sorted(attrs.items()):
            if key.startswith("_") or value is None or (tf_def is not None and key not in tf_def[1]):
                continue  # (attributes TF's op does not have)
            if not _set_attr(node.attr[key], value):
                del node.attr[key]
        outs = n[4] if type(n[4]) is tuple else (n[4],)
        self.shapes(node, outs)
        for j, o in enumerate(outs):
            self.names[o] = name if j == 0 else f"{name}:{j}"
            if o in self.specs:
                self.dtypes[self.names[o]] = self.specs[o][0]

    def build(self):
        graph, nodes = self.graph, self.graph.nodes
        for k, i in enumerate(graph.inputs):
            name = self.unique(graph.input_names.get(i, f"args_{k}"))
            dtype, shape = self.specs.get(i, (np.dtype("float32"), None))
            node = self.placeholder(name, _dtype_number(dtype), shape, k)
            node.attr["_user_specified_name"].s = name.encode()
            self.shapes(node, [i], always=True)
            self.names[i] = name
            self.dtypes[name] = dtype
        # Names first, in program order (TF names an op before the reads and constants made in its scope).
        named = {}
        for n in nodes:
            if type(n) is tuple:
                op = op_of(n[0])
                named[id(n)] = self.unique(_NAMES.get(op.name, op.name))
            elif type(n) is _trace.Assign:
                named[id(n)] = self.unique(_ASSIGNS.get(n.method, "AssignVariableOp"))
        consumer = self.first_consumers(nodes, named)
        for n in nodes:
            if type(n) is _trace.Read:
                self.read(n, consumer.get(n.out))
            elif type(n) is _trace.Assign:
                name = named[id(n)]
                node = self.out.node.add(name=name, op=_ASSIGNS.get(n.method, "AssignVariableOp"))
                node.input.append(self.resource(n.variable, name))
                source = self.source(n.value, name, "value")
                if source is not None:
                    node.input.append(source)
                node.attr["dtype"].type = _dtype_number(n.variable.dtype.as_numpy_dtype)
                if n.method == "assign":
                    node.attr["validate_shape"].b = True  # (as ``Variable.assign`` makes it)
            elif type(n) is tuple:
                self.op(n, named[id(n)])
        for k, o in enumerate(graph.outputs):
            name = self.unique("Identity")
            node = self.out.node.add(name=name, op="Identity")
            source = self.source(o, name, "input")
            if source is not None:
                node.input.append(source)
            if o in self.specs:
                node.attr["T"].type = _dtype_number(self.specs[o][0])
                self.shapes(node, [o])
            if self.run:
                ret = self.out.node.add(name=self.unique(f"{name.lower()}_RetVal"), op="_Retval", input=[name])
                ret.attr["index"].i = k
                if o in self.specs:
                    ret.attr["T"].type = _dtype_number(self.specs[o][0])
        self.out.library.SetInParent()
        return self.out


def graph_def(graph, run=False):
    """The ``GraphDef`` of a traced function's graph (see the module docstring); ``run``: laid out as a traced
    run's graph (``_Arg`` and ``_Retval`` nodes) rather than as the function's own graph."""
    return _Builder(graph, run).build()

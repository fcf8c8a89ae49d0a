"""``tf.vectorized_map``: run a function on every element of a batch at once, by batching its traced graph.

``fn`` is traced once for one element (``tf.function``'s tracer, AutoGraph included, so a ``GradientTape`` inside
``fn`` is traced with the rest: per-example gradients are one batched graph). The graph then runs once over the
whole batch: each op whose inputs carry the batch (a leading axis of size ``n``) runs through a *batching rule*
that makes the op do all ``n`` elements' work in one call (elementwise ops align ranks, reductions and axis ops
shift their axes, matmuls become batched matmuls, ops whose first axis is already a batch of rows take ``n``
times more rows ...). An op without a rule runs once per element and its results are stacked (TF's "while_loop"
fallback, with TF's warning); ops none of whose inputs carry the batch run once, as in the trace.

Every op runs through ``execute``, so a tape outside the call differentiates through it. The trace is kept and
reused while ``fn``, the elements' shapes and dtypes, and the objects ``fn``'s closure, defaults and global tensors
refer to stay the same; TF traces on every call, so a program sees the same values either way.
"""

from __future__ import annotations

from collections import OrderedDict
from types import ModuleType

import numpy as np

from .._core import nest
from .._core.dispatch import EMPTY, execute
from .._core.equation import op_of
from .._core.jacobian import ELEMENTWISE, _count_pfor_call
from .._core.logs import get_logger
from .._core.registry import REGISTRY
from .._core.shape import TensorShape
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from .._core.tensor_spec import TensorSpec
from . import lower, trace
from .program import pack

__all__ = ["vectorized_map"]

_R = REGISTRY.__getitem__

# Forward elementwise ops: the jacobian's table (ops whose rule broadcasts), less the ones that take a shape, plus
# the elementwise ops without a gradient.
_ELEMENTWISE = (ELEMENTWISE - {"BroadcastTo", "Fill", "BatchMatMulV2", "AddN"}) | {
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Sign", "Floor", "Ceil", "Round", "Rint", "FloorDiv", "TruncateDiv", "TruncateMod", "IsNan", "IsInf",
    "IsFinite", "ZerosLike", "OnesLike", "StopGradient", "PreventGradient", "ClipByValue", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift", "Softsign", "Gelu", "Elu", "Selu",
}
# Ops with one tensor input whose axis attributes (an int or a tuple) count the element's axes.
_AXIS_ATTRS = {"Softmax": "axis", "LogSoftmax": "axis", "Cumsum": "axis", "Cumprod": "axis", "ReverseV2": "axis",
               "ArgMax": "axis", "ArgMin": "axis", "Roll": "axis", "Split": "axis", "SplitV": "axis",
               "Unpack": "axis"}
_REDUCTIONS = {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"}
# Ops whose first axis is their own batch of independent rows, and which of their inputs have those rows.
_ROWS = {"SparseSoftmaxCrossEntropyWithLogits": (0, 1), "SoftmaxCrossEntropyWithLogits": (0, 1),
         "Conv2D": (0,), "DepthwiseConv2dNative": (0,), "MaxPool": (0,), "AvgPool": (0,), "Conv1D": (0,),
         "Conv3D": (0,), "MaxPool3D": (0,), "AvgPool3D": (0,)}

_CACHE = OrderedDict()  # trace key -> (program, the objects the key names, kept alive so their ids stay theirs)
_CACHE_SIZE = 16


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to every ``elems[i]`` (``elems`` a tensor or a nested structure of tensors sharing their
    first dimension), the results stacked: like ``tf.map_fn`` but run as one batched computation
    (``tf.vectorized_map``). Ops without a batching rule run once per element when ``fallback_to_while_loop``
    (warning through the ``tensorflow`` logger when ``warn``), else raise TF's ``ValueError``."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat or any(t._value.ndim == 0 for t in flat):
        raise IndexError("list index out of range")  # TF's error: a scalar has no first dimension to map over
    n = flat[0]._value.shape[0]
    for t in flat[1:]:
        if t._value.shape[0] != n:
            raise ValueError(f"vectorized_map: all of elems must have the same first dimension, got {n} and "
                             f"{t._value.shape[0]} (shapes {flat[0].shape} and {t.shape})")
    if trace.tracing() is None:
        _count_pfor_call()  # TF traces a new function for every eager call, and warns as it does
    program = _program(fn, elems, flat)
    graph = program.graph
    if any(type(node) is trace.Assign or (type(node) is tuple and lower._custom_call(node[1]) is not None)
           for node in graph.nodes):
        return _loop(fn, elems, flat, n)  # assignments and nested calls: run per element
    outs = _run(graph, flat, n, fallback_to_while_loop, warn)
    return pack(program, outs, tensors=True)


# ------------------------------------------------------------------------------------------ the trace


def _program(fn, elems, flat):
    """The traced program of ``fn`` for one element of ``elems`` (kept for the next call with the same key)."""
    from .tf_function import function  # noqa: PLC0415 - the compiler's API module imports this package first

    specs = tuple((t._value.shape[1:], t._value.dtype) for t in flat)
    key, keep = _key(fn, specs, elems)
    hit = _CACHE.get(key) if key is not None else None
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit[0]

    def one_element(*xs):
        return fn(nest.pack_sequence_as(elems, list(xs)))

    traced = function(one_element, autograph=True)
    # Traced on the first element's values (an empty batch: on its specs), so that ops whose kernel would fail on
    # stand-in values (a solve of a singular matrix) give the trace their true shapes.
    first = [execute(_R("StridedSlice"), (t,), {"index": (0,)}) for t in flat] if flat[0]._value.shape[0] else \
        [TensorSpec(TensorShape(list(s)), t.dtype) for (s, _), t in zip(specs, flat)]
    concrete = traced.get_concrete_function(*first)
    program = concrete._first
    if key is not None:
        _CACHE[key] = (program, keep)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return program


def _key(fn, specs, elems):
    """A cache key naming everything a trace of ``fn`` froze: its code, the objects its closure, defaults and
    global tensors held, the elements' structure and specs; plus those objects (kept so that no other object takes
    their ids). ``None`` (traced on every call, as TF does) for a callable whose code cannot be seen or that holds
    a mutable Python or NumPy value, whose contents a later call could see changed."""
    owner = getattr(fn, "__self__", None)
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return None, None
    held = [owner] if owner is not None else []
    held += [c.cell_contents for c in (func.__closure__ or ()) if _filled(c)]
    held += list(func.__defaults__ or ()) + list((func.__kwdefaults__ or {}).values())
    names = func.__globals__
    held += [names[k] for k in code.co_names if isinstance(names.get(k), Tensor)]
    if not all(_unchanging(h) for h in held):
        return None, None
    structure = repr(nest.pack_sequence_as(elems, [0] * len(nest.flatten(elems))))
    return (code, tuple(id(h) for h in held), structure, specs), held


def _unchanging(value):
    """Whether a trace may keep using ``value`` as it found it: tensors (immutable), variables and Keras or
    ``tf.Module`` objects (read by reference, as ``tf.function`` reads them), functions, Python modules, and
    immutable Python values."""
    if value is None or isinstance(value, (Tensor, int, float, complex, str, bytes, type, ModuleType)) or \
            callable(value):
        return True
    if getattr(value, "_tapeflow_variable", False) or hasattr(value, "trainable_variables"):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(_unchanging(v) for v in value)
    return False


def _filled(cell):
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------------------------------ the batched run


def _run(graph, inputs, n, fallback, warn):
    """The graph's outputs for the whole batch: ``inputs`` carry the batch, every output is made to."""
    env = {i: (t, True) for i, t in zip(graph.inputs, inputs)}

    def lookup(i):
        got = env.get(i)
        if got is None:
            got = env[i] = (constant_of(graph.constants[i]), False)
        return got

    for node in graph.nodes:
        if type(node) is trace.Read:
            env[node.out] = (node.variable._read(), False)
            continue
        op = op_of(node[0])
        attrs = node[1] or EMPTY
        ins = [lookup(i) for i in node[6::2]]
        if any(b for _, b in ins):
            result, batched = _batched(op, ins, attrs, n, fallback, warn)
        else:
            result, batched = execute(op, tuple(t for t, _ in ins), attrs), False
        outs = node[4]
        if type(outs) is tuple:
            env.update((o, (r, batched)) for o, r in zip(outs, result))
        else:
            env[outs] = (result, batched)
    return [_with_batch(*lookup(i), n) for i in graph.outputs]


def _batched(op, ins, attrs, n, fallback, warn):
    """``op`` on inputs of which some carry the batch: ``(result, whether it carries the batch)``."""
    name = op.key
    if name in _ELEMENTWISE:
        return execute(op, _aligned(ins), attrs), True
    rule = _RULES.get(name)
    if rule is not None:
        got = rule(op, ins, attrs, n)
        if got is not None:
            return got
    if not fallback:
        raise ValueError(f"No pfor vectorization defined for {op.name}")
    if warn:
        get_logger().warning(f"Using a while_loop for converting {op.name} cause there is no registered converter "
                             "for this op.")
    return _per_element(op, ins, attrs, n), True


def _per_element(op, ins, attrs, n):
    """``op`` run once per element, the results stacked."""
    rows = []
    for i in range(max(n, 1)):  # (an empty batch runs element 0 of a zero-filled batch, for the shapes)
        args = tuple(_element(t, i, n) if b else t for t, b in ins)
        rows.append(execute(op, args, attrs))
    if op.multi_output:
        outs = tuple(_stack([r[k] for r in rows]) for k in range(len(rows[0])))
        return tuple(o[:0] for o in outs) if n == 0 else outs
    out = _stack(rows)
    return out[:0] if n == 0 else out


def _element(t, i, n):
    if n == 0:
        return convert_to_tensor(np.zeros(t._value.shape[1:], t._value.dtype))
    return execute(_R("StridedSlice"), (t,), {"index": (i,)})


def _stack(rows):
    return execute(_R("Pack"), tuple(rows), {"axis": 0})


def _loop(fn, elems, flat, n):
    """``fn`` called per element, eagerly, and the results stacked (a function that assigns or calls others)."""
    results = [fn(nest.pack_sequence_as(elems, [t[i] for t in flat])) for i in range(n)]
    if not results:
        raise ValueError("vectorized_map of a function with side effects needs at least one element")
    leaves = [nest.flatten(r) for r in results]
    stacked = [None if leaves[0][k] is None else _stack([convert_to_tensor(row[k]) for row in leaves])
               for k in range(len(leaves[0]))]
    return nest.pack_sequence_as(results[0], stacked)


# ------------------------------------------------------------------------------------------ helpers for rules


def _rank(t, batched):
    """The rank of one element's tensor."""
    return t._value.ndim - (1 if batched else 0)


def _with_batch(t, batched, n):
    """``t`` with the batch axis: a tensor that does not carry it is repeated ``n`` times."""
    if batched:
        return t
    return execute(_R("BroadcastTo"), (t,), {"shape": (n,) + t._value.shape})


def _padded(t, rank):
    """A batched ``t`` reshaped to ``[n, 1, ..., *element shape]`` with ``rank`` element axes."""
    shape = t._value.shape
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return t
    return execute(_R("Reshape"), (t,), {"shape": shape[:1] + (1,) * missing + shape[1:]})


def _aligned(ins):
    """The operands of a broadcasting op, the batched ones padded so that their batch axis lines up in front."""
    rank = max(_rank(t, b) for t, b in ins)
    return tuple(_padded(t, rank) if b else t for t, b in ins)


def _shift(axis, rank):
    """An element's axis (or tuple of axes) as an axis of the batch."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) % max(rank, 1) + 1 for a in axis)
    return int(axis) % max(rank, 1) + 1


def _rows_merged(t, n):
    shape = t._value.shape
    return execute(_R("Reshape"), (t,), {"shape": (n * shape[1],) + shape[2:]})


def _rows_split(t, n):
    shape = t._value.shape
    return execute(_R("Reshape"), (t,), {"shape": (n, shape[0] // n if n else 0) + shape[1:]})


def _swap_last(t):
    rank = t._value.ndim
    perm = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    return execute(_R("Transpose"), (t,), {"perm": perm})


# ------------------------------------------------------------------------------------------ rules


def _axis_op(op, ins, attrs, n):
    (t, _), *rest = ins
    if any(b for _, b in rest):
        return None
    key = _AXIS_ATTRS[op.key]
    attrs = dict(attrs)
    if attrs.get(key) is None:
        return None
    attrs[key] = _shift(attrs[key], _rank(t, True))
    return execute(op, tuple(x for x, _ in ins), attrs), True


def _reduction(op, ins, attrs, n):
    (t, _), = ins
    attrs = dict(attrs)
    attrs["axis"] = _shift(attrs.get("axis"), _rank(t, True))
    return execute(op, (t,), attrs), True


def _reshape_like(op, ins, attrs, n):
    attrs = dict(attrs)
    attrs["shape"] = (n,) + tuple(attrs["shape"])
    return execute(op, (ins[0][0],), attrs), True


def _broadcast_to(op, ins, attrs, n):
    shape = tuple(attrs["shape"])
    return execute(op, (_padded(ins[0][0], len(shape)),), {**attrs, "shape": (n,) + shape}), True


def _tile(op, ins, attrs, n):
    return execute(op, (ins[0][0],), {**attrs, "multiples": (1,) + tuple(attrs["multiples"])}), True


def _transpose(op, ins, attrs, n):
    perm = attrs["perm"]
    rank = _rank(*ins[0])
    return execute(op, (ins[0][0],), {**attrs, "perm": (0,) + tuple(int(p) % rank + 1 for p in perm)}), True


def _strided_slice(op, ins, attrs, n):
    index = attrs["index"]
    index = (slice(None),) + (tuple(index) if isinstance(index, tuple) else (index,))
    new = dict(attrs, index=index)
    if "shape" in attrs:  # StridedSliceGrad: the element's input shape
        new["shape"] = (n,) + tuple(attrs["shape"])
    return execute(op, (ins[0][0],), new), True


def _mean_grad(op, ins, attrs, n):
    shape = tuple(attrs["shape"])
    return execute(op, (ins[0][0],), {**attrs, "shape": (n,) + shape,
                                      "axis": _shift(attrs["axis"], len(shape))}), True


def _join(op, ins, attrs, n):
    """ConcatV2 and Pack: every operand given the batch, the axis moved past it."""
    rank = _rank(*ins[0]) + (1 if op.key == "Pack" else 0)
    tensors = tuple(_with_batch(t, b, n) for t, b in ins)
    return execute(op, tensors, {**attrs, "axis": _shift(attrs["axis"], rank)}), True


def _matmul(op, ins, attrs, n):
    """MatMul of per-element matrices. Against a shared matrix, the elements' rows are stacked into one matrix
    product (one BLAS call, not ``n`` small ones); two batched operands with an inner dimension of 1 (the outer
    products of per-example gradients) are a broadcast multiply, exact as a product of one term is; other pairs
    are a batched matmul."""
    (a, ab), (b, bb) = ins
    ta, tb = bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    matmul = _R("MatMul")
    if ab and not bb:  # [n, m, k] @ [k, p]: the n * m rows at once
        a = _swap_last(a) if ta else a
        _, m, k = a._value.shape
        flat = execute(_R("Reshape"), (a,), {"shape": (n * m, k)})
        out = execute(matmul, (flat, b), {"transpose_a": False, "transpose_b": tb})
        return execute(_R("Reshape"), (out,), {"shape": (n, m, out._value.shape[-1])}), True
    if bb and not ab:  # a @ b_i = (b_i^T @ a^T)^T: the n * p rows of the b_i^T at once
        bt = b if tb else _swap_last(b)
        _, p, k = bt._value.shape
        flat = execute(_R("Reshape"), (bt,), {"shape": (n * p, k)})
        out = execute(matmul, (flat, a), {"transpose_a": False, "transpose_b": not ta})
        out = execute(_R("Reshape"), (out,), {"shape": (n, p, out._value.shape[-1])})
        return _swap_last(out), True
    a = _swap_last(a) if ta else a
    b = _swap_last(b) if tb else b
    if a._value.shape[-1] == 1:
        return execute(_R("Mul"), (a, b), EMPTY), True
    return execute(_R("BatchMatMulV2"), (a, b), {"adj_x": False, "adj_y": False}), True


def _batch_matmul(op, ins, attrs, n):
    return execute(op, _aligned(ins), attrs), True


def _add_n(op, ins, attrs, n):
    rank = max(_rank(t, b) for t, b in ins)
    shape = None
    for t, b in ins:
        if b and _rank(t, b) == rank:
            shape = t._value.shape
    return execute(op, tuple(execute(_R("BroadcastTo"), (_padded(t, rank) if b else t,), {"shape": shape})
                             for t, b in ins), attrs), True


def _rows(op, ins, attrs, n):
    """An op over a batch of rows: the batch and the rows merged into one axis, and split after."""
    with_rows = _ROWS[op.key]
    if any(b for k, (_, b) in enumerate(ins) if k not in with_rows):
        return None
    tensors = tuple(_rows_merged(_with_batch(t, b, n), n) if k in with_rows else t for k, (t, b) in enumerate(ins))
    out = execute(op, tensors, attrs)
    if op.multi_output:
        return tuple(_rows_split(o, n) for o in out), True
    return _rows_split(out, n), True


def _bias_add(op, ins, attrs, n):
    if ins[1][1] or attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC", None):
        return None
    return execute(_R("AddV2"), (ins[0][0], ins[1][0]), EMPTY), True


def _gather(op, ins, attrs, n):
    (params, pb), (indices, ib) = ins
    if pb or attrs.get("axis", 0) != 0 or attrs.get("batch_dims", 0) != 0:
        return None
    return execute(op, (params, indices), attrs), True


def _shape(op, ins, attrs, n):
    whole = execute(op, (ins[0][0],), attrs)
    return execute(_R("StridedSlice"), (whole,), {"index": (slice(1, None),)}), False


_RULES = {name: _axis_op for name in _AXIS_ATTRS}
_RULES.update({name: _reduction for name in _REDUCTIONS})
_RULES.update({name: _rows for name in _ROWS})
_RULES.update({
    "Reshape": _reshape_like, "Squeeze": _reshape_like, "ExpandDims": _reshape_like,
    "BroadcastTo": _broadcast_to, "Tile": _tile, "Transpose": _transpose, "StridedSlice": _strided_slice,
    "StridedSliceGrad": _strided_slice, "MeanGrad": _mean_grad, "ConcatV2": _join, "Pack": _join,
    "MatMul": _matmul, "BatchMatMulV2": _batch_matmul, "AddN": _add_n, "BiasAdd": _bias_add,
    "GatherV2": _gather, "Shape": _shape,
})

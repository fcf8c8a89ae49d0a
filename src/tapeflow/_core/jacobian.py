"""``GradientTape.jacobian`` and ``batch_jacobian``: one backward pass carrying a batch of cotangents.

A jacobian of a target with ``N`` elements is ``N`` vector-jacobian products. Rather than ``N`` backward passes,
the pass here walks the tape's records once with gradients that have an extra leading axis of size ``N`` (the
*batch*), seeded with the identity reshaped to ``[N, *target.shape]``: row ``i`` of every gradient is what the
``i``-th backward pass would hold. The walk is the backward pass's own scan (``backprop.walk``) with the batched
kind of gradient, :data:`BATCHED`. How each op's gradient is computed on such a batch is decided by explicit
tables, never by probing at runtime:

* ``ELEMENTWISE``: ops whose ordinary rule broadcasts ``g`` against its inputs and does nothing else with its
  shape, so the batch axis just rides along in front. Only the summing back to an input's shape must keep it
  (:func:`unbroadcast_batched`).
* ``AXIS_ATTRS``: ops whose ordinary rule is elementwise except for axis attributes (softmax, cumsum, reverse ...):
  the rule runs with its non-negative axes shifted past the batch axis.
* ``BATCHED_RULES`` (``ops/batching_rules.py``, the op set's "batching" rule set): rules written for a batch
  (matmul, reshape, transpose, reductions, concat/split/stack, slicing ...).
* Every other differentiable op falls back to a loop over the batch *for that op only*: its ordinary rule runs
  once per row and the rows are stacked. The pass stays correct for every registered op, new ones included.

Everything runs through tapeflow ops (``execute``), so an outer tape records the pass: jacobians of jacobians and
Hessians work. ``experimental_use_pfor=False`` is TensorFlow's other path: a loop of ``gradient`` calls on a
persistent tape.
"""

from __future__ import annotations

import numpy as np

from . import nest
from . import primitives as P
from .backprop import prune, walk
from .dispatch import execute
from .equation import as_tensors
from .errors import InvalidArgumentError
from .gradient_kinds import Kind, call_vjp, unbroadcast
from .logs import get_logger, log_first_n
from .state import loud, quiet
from .tensor import constant_of

__all__ = ["jacobian", "batch_jacobian", "batched_backward", "unbroadcast_batched", "ELEMENTWISE", "AXIS_ATTRS",
           "BATCHED"]

# Ops whose rule is a broadcasting expression in ``g`` (checked op by op: ``tests/test_jacobian.py`` compares every
# op's batched jacobian with a loop of gradients). ``BatchMatMulV2`` belongs here: its rule is a batched matmul
# whose leading axes broadcast, with the broadcast batch axes summed away afterwards like any other broadcast.
ELEMENTWISE = frozenset({
    "Cast", "Identity", "Conj", "AddV2", "Sub", "Mul", "RealDiv", "FloorMod", "Pow", "Maximum", "Minimum", "Neg",
    "Abs", "ComplexAbs", "Square", "Sqrt", "SqrtGrad", "Rsqrt", "Exp", "Log", "Reciprocal", "Sigmoid",
    "SigmoidGrad", "Tanh", "TanhGrad", "Relu", "ReluGrad", "Real", "Imag", "Complex", "Sin", "Cos", "Tan", "Asin",
    "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Expm1", "Log1p", "Xlogy", "Xdivy",
    "Xlog1py", "Erf", "Erfc", "Lgamma", "Digamma", "Polygamma", "Zeta", "DivNoNan", "MulNoNan",
    "SquaredDifference", "AddN", "Softplus", "Softsign", "SoftsignGrad", "Relu6", "LeakyRelu", "Elu", "EluGrad",
    "Selu", "SeluGrad", "Swish", "SelectV2", "BroadcastTo", "Fill",
    "BatchMatMulV2",
})

# Ops whose rule is elementwise apart from these attributes, each an axis or a tuple of axes.
AXIS_ATTRS = {
    "Softmax": ("axis",), "LogSoftmax": ("axis",), "Cumsum": ("axis",), "Cumprod": ("axis",),
    "ReverseV2": ("axis",), "Roll": ("axis",),
}

_VECTORIZE_FAILED = ("Encountered an exception while vectorizing the {} computation. Vectorization can be disabled "
                     "by setting experimental_use_pfor to False.")
_NO_PFOR_NON_PERSISTENT = {
    "jacobian": "GradientTape must be created with persistent=True to compute the jacobian with eager execution "
                "enabled and with  experimental_use_pfor set to False.",
    "batch_jacobian": "GradientTape must be created with persistent=True to compute the batch_jacobian with eager "
                      "execution enabled and  with experimental_use_pfor set to False.",
}

def _lib():
    """The op set's ``"batching"`` rule set (``ops/batching_rules.py``, loaded on first use): the batched rules,
    ``diagonal_matmul``, and the composite functions the loop fallback needs (``reshape``, ``stack``, ``unstack``,
    ``getitem``, ``transpose``) with TF's argument handling."""
    return P.load("batching")


# ------------------------------------------------------------------------------------------ batched pass


def unbroadcast_batched(g, shape):
    """Sum a batched gradient ``g`` (``[N, ...]``) down to ``[N, *shape]``, keeping the batch axis 0."""
    gshape = g._value.shape
    n = gshape[0]
    inner = gshape[1:]
    if inner == tuple(shape):
        return g
    lead = len(inner) - len(shape)
    axes = list(range(1, lead + 1))
    for i, d in enumerate(shape):
        if d == 1 and inner[i + lead] != 1:
            axes.append(i + lead + 1)
    if axes:
        g = execute(P.SUM, (g,), {"axis": tuple(axes), "keepdims": False})
    if g._value.shape != (n,) + tuple(shape):
        g = execute(P.RESHAPE, (g,), {"shape": (n,) + tuple(shape)})
    return g


def _shift_axes(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return type(value)(int(a) + 1 if int(a) >= 0 else int(a) for a in value)
    return int(value) + 1 if int(value) >= 0 else int(value)


# The op's ordinary rule, called as every pass calls it; one name here, the seam a test breaks to see TF's error.
_call_rule = call_vjp


def _dense(g):
    if getattr(g, "_tapeflow_indexed_slices", False):
        return g._tapeflow_to_tensor()  # densifying is installed by the op set
    return g


def _fallback(op, g, outputs, inputs, needs, attrs, n):
    """The op's ordinary rule once per batch row, stacked: correct for any op, at ``n`` rule calls."""
    lib = _lib()
    if type(g) is tuple:
        rows_in = [lib.unstack(x) if x is not None else [None] * n for x in g]
        per_row = [tuple(r[i] for r in rows_in) for i in range(n)]
    else:
        per_row = lib.unstack(g)
    results = [[] for _ in inputs]
    for gi in per_row:
        for k, (t, need, ig) in enumerate(zip(inputs, needs, _call_rule(op, gi, outputs, inputs, needs, attrs))):
            if need and ig is not None:
                ig = _dense(ig)
                shape = t._value.shape
                if ig._value.shape != shape:
                    ig = unbroadcast(ig, shape)
            else:
                ig = None
            results[k].append(ig)
    out = []
    for t, rows in zip(inputs, results):
        if all(r is None for r in rows):
            out.append(None)
            continue
        zeros = None
        filled = []
        for r in rows:
            if r is None:
                if zeros is None:
                    zeros = constant_of(np.zeros(np.shape(t._value), t._value.dtype))
                r = zeros
            filled.append(r)
        out.append(lib.stack(filled))
    return out


def _batched_grads(op, g, outputs, inputs, needs, attrs, n):
    """One gradient per input, each ``[n, ...]`` or ``None``, for a batch ``g`` of upstream gradients (the batched
    kind's ``fit`` sums them back to ``[n, *input.shape]``)."""
    name = op.name
    if name in ELEMENTWISE:
        grads = _call_rule(op, g, outputs, inputs, needs, attrs)
    elif name in AXIS_ATTRS:
        shifted = dict(attrs)
        for key in AXIS_ATTRS[name]:
            if key in shifted:
                shifted[key] = _shift_axes(shifted[key])
        grads = _call_rule(op, g, outputs, inputs, needs, shifted)
    else:
        rule = _lib().BATCHED_RULES.get(name)
        if rule is None:
            return _fallback(op, g, outputs, inputs, needs, attrs, n)
        grads = rule(g, outputs, *inputs, needs=needs, **attrs)
    return tuple([_dense(ig) if need and ig is not None else None for need, ig in zip(needs, grads)])


def batched_backward(recording, target, sources, seed):
    """Batched gradients of ``target`` for each source (``[N, *source.shape]`` tensors, ``None`` where unconnected).

    ``seed`` is the batch of output gradients for ``target``, ``[N, *target.shape]``, or :class:`Diagonal`
    (the identity, times a tensor of the target's shape).
    """
    source_ids = {s._id for s in sources}
    reach, path = prune(recording.stored(), sources)
    grads = {}
    if target._id in reach or target._id in source_ids:
        grads[target._id] = seed
    if grads:
        token = quiet()
        try:
            walk(path, grads, reach, source_ids, [target], BATCHED)
        finally:
            loud(token)
    out = []
    for s in sources:
        g = grads.get(s._id)
        out.append(g.dense() if type(g) is Diagonal else g)
    return out


class Diagonal:
    """A batch of gradients that is still the identity times ``d``: row ``b`` is ``e_b * d`` (``d`` flattened).

    The jacobian's seed is the identity, and elementwise ops, reshapes and matrix-vector products take such a
    batch to another one (or to a dense batch) in ``O(N)`` instead of ``O(N^2)``: the first matmul from the target
    becomes a scaling of the matrix rather than a product with the identity. Made dense on first need.
    """

    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d

    def dense(self):
        v = self.d._value
        n = int(np.size(v))
        eye = constant_of(np.eye(n, dtype=v.dtype).reshape((n,) + np.shape(v)))
        return execute(P.MUL, (eye, self.d))


# Ops through which a Diagonal batch stays diagonal when every needed input has the output's shape: the rule is
# linear in ``g`` and elementwise, so the rule applied to ``d`` is the new diagonal.
_DIAGONAL_SAFE = ELEMENTWISE - {"BatchMatMulV2", "BroadcastTo", "Fill", "AddN"}
_DIAGONAL_RESHAPES = frozenset({"Reshape", "Squeeze", "ExpandDims"})


def _diagonal_grads(op, g, outputs, inputs, needs, attrs):
    """Input gradients for a :class:`Diagonal` ``g`` (Diagonal or dense), or ``None`` where the op needs it dense."""
    name = op.name
    if name in _DIAGONAL_RESHAPES:
        return [Diagonal(_lib().reshape(g.d, inputs[0]._value.shape))]
    if name in _DIAGONAL_SAFE:
        shape = np.shape(outputs._value)
        if any(need and np.shape(t._value) != shape for t, need in zip(inputs, needs)):
            return None
        grads = _call_rule(op, g.d, outputs, inputs, needs, attrs)
        return [Diagonal(ig) if need and ig is not None else None for ig, need in zip(grads, needs)]
    if name == "MatMul":
        return _lib().diagonal_matmul(g.d, outputs, *inputs, needs, **attrs)
    return None


class _Batched(Kind):
    """The jacobian's kind: batches of gradients with a leading batch axis, or :class:`Diagonal` batches.

    Slices a rule gives are made dense, so this kind never hands over. A variable read passes the batch on.
    """

    def call(self, op, g, eq, needs):
        _op, inputs, outputs, attrs, _where = as_tensors(eq, _NO_VARIABLES)
        if type(g) is tuple:
            g = tuple([x.dense() if type(x) is Diagonal else x for x in g])
        in_grads = None
        if type(g) is Diagonal:
            in_grads = _diagonal_grads(op, g, outputs, inputs, needs, attrs)
            if in_grads is None:
                g = g.dense()
        if in_grads is None:
            first = next(x for x in g if x is not None) if type(g) is tuple else g
            in_grads = _batched_grads(op, g, outputs, inputs, needs, attrs, first._value.shape[0])
        return in_grads

    def fit(self, ig, value, tid):
        return ig if type(ig) is Diagonal else unbroadcast_batched(ig, value.shape)

    def add(self, a, b):
        if type(a) is Diagonal and type(b) is Diagonal:
            return Diagonal(execute(P.ADD, (a.d, b.d)))
        a = a.dense() if type(a) is Diagonal else a
        b = b.dense() if type(b) is Diagonal else b
        return execute(P.ADD, (a, b))


# Rules are called only for equations that are not variable reads (the scan passes those on itself).
_NO_VARIABLES = {}

BATCHED = _Batched()


# ------------------------------------------------------------------------------------------ tape methods


class _EnsureRecording:
    """TF's ``_ensure_recording``: the tape records inside the block (pushed for it when it was not)."""

    def __init__(self, tape):
        self.tape, self.pushed = tape, False

    def __enter__(self):
        if not self.tape._recording:
            self.tape._push_tape()
            self.pushed = True

    def __exit__(self, *exc):
        if self.pushed:
            self.tape._pop_tape()


def _check_unconnected(value):
    from .tape import UnconnectedGradients  # noqa: PLC0415

    if value is UnconnectedGradients.NONE or value is UnconnectedGradients.ZERO:
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _start_use(tape):
    """Common preamble of the vectorised paths: the one-use check, then TF's ``gradient`` entry effects."""
    from .tape import _ONE_USE, _PERSISTENT_INSIDE, _calling_line  # noqa: PLC0415

    if tape._tape is None:
        raise RuntimeError(_ONE_USE)
    if tape._recording:
        if not tape._persistent:
            tape._pop_tape()
        else:
            log_first_n("WARNING", _PERSISTENT_INSIDE, 1, key=("persistent_inside", _calling_line()))


def _finish_use(tape):
    if not tape._persistent and tape._tape is not None:
        tape._watched_variables = tape._tape.variables
        tape._tape = None


def _flat_sources(sources):
    from .tape import _flat_differentiable  # noqa: PLC0415

    return list(_flat_differentiable(sources, "_id"))


def _value_shape(t):
    return tuple(np.shape(t._value))


def _zeros(shape, dtype):
    return constant_of(np.zeros(shape, dtype))


def _identity_seed(n, dtype, shape):
    eye = np.eye(n, dtype=dtype) if n else np.zeros((0, 0), dtype)
    return constant_of(eye.reshape((n,) + tuple(shape)))


def pfor():
    def f():
        """Stands for TF's per-call ``tf.function`` in the retracing warning (its repr names it)."""

    return f


_PFOR_CALLS = []  # TF's frequent-tracing detector for pfor's function: one entry per vectorised call


def _count_pfor_call():
    """TF traces a new ``tf.function`` for every vectorised jacobian in eager mode; its detector warns on the 5th
    and 6th such call of the process (at most two warnings), as here."""
    _PFOR_CALLS.append(1)
    k = len(_PFOR_CALLS)
    if 5 <= k <= 6:
        get_logger().warning(
            f"{k} out of the last {k} calls to {pfor()!r} triggered tf.function retracing. Tracing is expensive and "
            "the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) "
            "passing tensors with different shapes, (3) passing Python objects instead of tensors. For (1), please "
            "define your @tf.function outside of the loop. For (2), @tf.function has reduce_retracing=True option "
            "that can avoid unnecessary retracing. For (3), please refer to "
            "https://www.tensorflow.org/guide/function#controlling_retracing and "
            "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")


def jacobian(tape, target, sources, unconnected_gradients, parallel_iterations, experimental_use_pfor):
    """``GradientTape.jacobian`` (see the method's docstring)."""
    from .tape import _ONE_USE, UnconnectedGradients  # noqa: PLC0415

    if tape._tape is None:
        raise RuntimeError(_ONE_USE)
    target_shape = tuple(target.shape)  # a list target fails here, as in TF
    flat = nest.flatten(sources)
    if not experimental_use_pfor:
        if not tape._persistent:
            raise RuntimeError(_NO_PFOR_NON_PERSISTENT["jacobian"])
        out = _jacobian_loop(tape, target, flat, unconnected_gradients, target_shape)
        return nest.pack_sequence_as(sources, out)
    _count_pfor_call()
    lib = _lib()
    try:
        # In TF these fail inside the vectorised trace, so they surface as its ValueError.
        unconnected = _check_unconnected(unconnected_gradients)
        _start_use(tape)
        flat = _flat_sources(sources) if flat else flat
        n = int(np.prod(target_shape, dtype=np.int64))
        value = target._value
        seed = Diagonal(constant_of(np.ones(target_shape, value.dtype)[()])) if n else _identity_seed(n, value.dtype,
                                                                                              target_shape)
        grads = batched_backward(tape._tape, target, flat, seed)
    except ValueError as err:
        raise ValueError(_VECTORIZE_FAILED.format("jacobian")) from err
    finally:
        _finish_use(tape)
    out = []
    for s, g in zip(flat, grads):
        full = target_shape + _value_shape(s)
        if g is None:
            out.append(_zeros(full, s._value.dtype) if unconnected is UnconnectedGradients.ZERO else None)
        else:
            out.append(lib.reshape(g, full))
    return nest.pack_sequence_as(sources, out)


def _check_row_dtype(g, target):
    """TF stacks the loop's rows in a TensorArray of the target's dtype."""
    if g._value.dtype != target._value.dtype:
        raise InvalidArgumentError(None, None, f"TensorArray dtype is {target.dtype.name} but Op is trying to write "
                                   f"dtype {g.dtype.name} ")


def _jacobian_loop(tape, target, flat, unconnected, target_shape):
    """TF's ``experimental_use_pfor=False`` path: one ``gradient`` call per element of the target."""
    lib = _lib()
    with _EnsureRecording(tape):
        flat_target = lib.reshape(target, [-1])
    n = int(np.prod(target_shape, dtype=np.int64))
    rows = [[] for _ in flat]
    is_none = [False] * len(flat)
    for i in range(n):
        with _EnsureRecording(tape):
            # TF gathers; a slice selects the same element and keeps the per-row gradient dense.
            y = lib.getitem(flat_target, i)
        grads = tape.gradient(y, flat, unconnected_gradients=unconnected)
        for k, g in enumerate(grads):
            is_none[k] = g is None
            if g is not None:
                g = _dense(g)
                _check_row_dtype(g, target)
                rows[k].append(g)
    out = []
    for k, s in enumerate(flat):
        full = target_shape + _value_shape(s)
        if not n:
            # TF stacks an empty TensorArray of unknown element shape, which its static shape check rejects.
            raise ValueError(f"Tensor's shape (0,) is not compatible with supplied shape {full}.")
        out.append(None if is_none[k] else lib.reshape(lib.stack(rows[k]), full))
    return out


def batch_jacobian(tape, target, source, unconnected_gradients, parallel_iterations, experimental_use_pfor):
    """``GradientTape.batch_jacobian`` (see the method's docstring)."""
    from .tape import UnconnectedGradients  # noqa: PLC0415

    if tape._tape is None:
        raise RuntimeError("A non-persistent GradientTape can only be used tocompute one set of gradients (or "
                           "jacobians)")
    target_shape = tuple(target.shape)
    source_shape = tuple(source.shape)
    for shape in (target_shape, source_shape):
        if len(shape) < 2:
            raise ValueError(f"Shape {tuple(shape)} must have rank at least 2")
    if target_shape[0] != source_shape[0]:
        raise ValueError(f"Need first dimension of target shape ({target_shape}) and "
                         f"source shape ({source_shape}) to match.")
    b = target_shape[0]
    row = int(np.prod(target_shape[1:], dtype=np.int64))
    full = target_shape + source_shape[1:]
    lib = _lib()
    if not experimental_use_pfor:
        if not tape._persistent:
            raise RuntimeError(_NO_PFOR_NON_PERSISTENT["batch_jacobian"])
        g = _batch_jacobian_loop(tape, target, source, unconnected_gradients, b, row)
    else:
        _count_pfor_call()
        try:
            unconnected = _check_unconnected(unconnected_gradients)
            _start_use(tape)
            value = target._value
            # Row j of the batch seeds element j of every example's target row: [row, b, *target_shape[1:]].
            eye = np.eye(row, dtype=value.dtype).reshape((row, 1) + target_shape[1:])
            seed = constant_of(np.ascontiguousarray(np.broadcast_to(eye, (row,) + target_shape)))
            g = batched_backward(tape._tape, target, _flat_sources(source), seed)[0]
            if g is None and unconnected is UnconnectedGradients.ZERO:
                # gradient() would give zeros of the source's dtype, and so does TF's vectorised loop
                g = _zeros((row,) + source_shape, source._value.dtype)
        except ValueError as err:
            raise ValueError(_VECTORIZE_FAILED.format("batch_jacobian")) from err
        finally:
            _finish_use(tape)
    if g is None:
        # TF's compatibility quirk: zeros even under the default unconnected_gradients=NONE.
        return _zeros(full, target._value.dtype)
    g = lib.reshape(g, (row, b, -1))
    g = lib.transpose(g, (1, 0, 2))
    return lib.reshape(g, full)


def _batch_jacobian_loop(tape, target, source, unconnected, b, row):
    """TF's loop for ``batch_jacobian``: a ``gradient`` of each column of the ``[b, row]`` target."""
    lib = _lib()
    with _EnsureRecording(tape):
        flat_target = lib.reshape(target, (b, row))
    rows, is_none = [], False
    for j in range(row):
        with _EnsureRecording(tape):
            y = lib.getitem(flat_target, (slice(None), j))
        g = tape.gradient(y, source, unconnected_gradients=unconnected)
        is_none = g is None
        if g is not None:
            g = _dense(g)
            _check_row_dtype(g, target)
            rows.append(g)
    if is_none or not rows:
        return None
    return lib.stack(rows)

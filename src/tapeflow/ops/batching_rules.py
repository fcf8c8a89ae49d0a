"""Gradient rules for a *batch* of upstream gradients, for the one-pass jacobian (``_core/jacobian.py``).

Each rule has the ordinary rule's signature, ``rule(g, ans, *inputs, needs, **attrs)``, but ``g`` carries a leading
batch axis (``[N, *ans.shape]``) and every gradient it returns must carry it too (``[N, ...]``, broadcast shapes
allowed: the caller sums them back to ``[N, *input.shape]``). Like the ordinary rules, each returns a tuple of one
gradient per input. Like the ordinary rules they are written with
tapeflow ops, so an outer tape records them. Ops with no rule here (and not elementwise or axis-shifted, which the
jacobian handles itself) fall back to a loop over the batch, so a rule belongs here only where it beats that loop.

This module is the op set's ``"batching"`` rule set: the core loads it on the first jacobian
(``primitives.load("batching")``) and also takes from it the composite functions its loop fallback calls
(``reshape``, ``stack``, ``unstack``, ``getitem``, ``transpose``, with TF's argument handling).
"""

from __future__ import annotations

import numpy as np

from .._core.dispatch import execute
from .._core.registry import REGISTRY
from .._core.tensor import constant_of
from . import array_ops, math_ops, reduction_ops
from .array_ops import STRIDED_SLICE, STRIDED_SLICE_GRAD, getitem, reshape, stack, transpose, unstack
from .linalg_ops import MATMUL
from .manip_ops import CONCAT, SPLIT_V
from .nn_ops import _channel_axis
from .pad_ops import MIRROR_PAD_GRAD, PAD, SLICE
from .reduction_ops import _count, _kept_shape

__all__ = ["BATCHED_RULES", "diagonal_matmul", "getitem", "reshape", "stack", "transpose", "unstack"]

BATCHED_RULES = {}

def _rule(*names):
    def register(fn):
        for name in names:
            BATCHED_RULES[name] = fn
        return fn

    return register


def _n(g):
    return g._value.shape[0]


def _shift(axis):
    return axis + 1 if axis >= 0 else axis


def _reshape(g, shape):
    return execute(array_ops.RESHAPE, (g,), {"shape": tuple(shape)})


def _swap_last(t):
    nd = t._value.ndim
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return execute(array_ops.TRANSPOSE, (t,), {"perm": perm})


def _zeros_batch(n, t):
    return constant_of(np.zeros((n,) + tuple(np.shape(t._value)), t._value.dtype))


# ------------------------------------------------------------------------------------------ linear algebra


def _mm(x, y, transpose_a=False, transpose_b=False):
    attrs = {"transpose_a": transpose_a, "transpose_b": transpose_b} if transpose_a or transpose_b else {}
    return execute(MATMUL, (x, y), attrs)


def _cj(t):
    return t if t._value.dtype.kind != "c" else execute(math_ops.CONJ, (t,))


@_rule("MatMul")
def _matmul(g, c, a, b, needs, transpose_a=False, transpose_b=False):
    """``C = A B`` (``A``, ``B`` the operands after their flags) for ``g = [N, m, n]``, as single 2-D GEMMs:
    the batch folds into the rows of ``gA = G B^H`` and into the columns of ``gB = A^H G``."""
    n = _n(g)
    m, cols = c._value.shape
    ga = gb = None
    if needs[0]:
        # [N*m, n] @ B^H -> [N*m, k]; B^H is b itself (conjugated) when b is stored transposed.
        rows = _reshape(g, (n * m, cols))
        ga = _mm(rows, _cj(b), False, not transpose_b)
        k = ga._value.shape[1]
        ga = _reshape(ga, (n, m, k))
        if transpose_a:
            ga = _swap_last(ga)
    if needs[1] and cols == 1:
        # A matrix-vector product (the common case): row b of the result is g_b^T conj(A), one GEMM, no copies.
        gb = _mm(_reshape(g, (n, m)), _cj(a), False, transpose_a)
        gb = _reshape(gb, (n, gb._value.shape[1], 1))
        if transpose_b:
            gb = _swap_last(gb)
    elif needs[1]:
        # A^H [k, m] @ G laid out as [m, N*n] -> [k, N*n] -> [N, k, n].
        g_cols = _reshape(execute(array_ops.TRANSPOSE, (g,), {"perm": (1, 0, 2)}), (m, n * cols))
        gb = _mm(_cj(a), g_cols, not transpose_a, False)
        k = gb._value.shape[0]
        gb = execute(array_ops.TRANSPOSE, (_reshape(gb, (k, n, cols)),), {"perm": (1, 0, 2)})
        if transpose_b:
            gb = _swap_last(gb)
    return ga, gb


def diagonal_matmul(d, c, a, b, needs, transpose_a=False, transpose_b=False):
    """MatMul's input gradients for the diagonal batch ``g_(i,j) = e_(i,j) d_ij`` (``d`` shaped like ``C``): for a
    matrix-vector product (one column) ``gB`` is ``d`` times the rows of ``conj(A)``, and for a vector-matrix
    product (one row) ``gA`` is ``d`` times the columns of ``conj(B)``. Other shapes: ``None`` (made dense)."""
    m, cols = c._value.shape
    if needs[0] and m != 1 or needs[1] and cols != 1:
        return None
    ga = gb = None
    if needs[0]:
        bh = _cj(b) if transpose_b else execute(array_ops.TRANSPOSE, (_cj(b),), {"perm": (1, 0)})  # [n, k]
        ga = execute(math_ops.MUL, (_reshape(d, (cols, 1)), bh))
        ga = _reshape(ga, (cols, 1, ga._value.shape[1]))
        if transpose_a:
            ga = _swap_last(ga)
    if needs[1]:
        ac = _cj(a) if not transpose_a else execute(array_ops.TRANSPOSE, (_cj(a),), {"perm": (1, 0)})  # [m, k]
        gb = execute(math_ops.MUL, (_reshape(d, (m, 1)), ac))
        gb = _reshape(gb, (m, gb._value.shape[1], 1))
        if transpose_b:
            gb = _swap_last(gb)
    return ga, gb


# ------------------------------------------------------------------------------------------ shape


@_rule("Reshape", "Squeeze", "ExpandDims")
def _reshape_back(g, y, x, needs, **attrs):
    return (_reshape(g, (_n(g),) + tuple(np.shape(x._value))),)


@_rule("Transpose")
def _transpose(g, y, x, needs, perm):
    inverse = np.argsort(perm)
    return (execute(array_ops.TRANSPOSE, (g,), {"perm": (0,) + tuple(int(p) + 1 for p in inverse)}),)


@_rule("Tile")
def _tile(g, y, x, needs, multiples):
    shape = np.shape(x._value)
    split = (_n(g),) + tuple(v for m, d in zip(multiples, shape) for v in (m, d))
    g = _reshape(g, split)
    return (execute(reduction_ops.SUM, (g,), {"axis": tuple(range(1, len(split), 2)), "keepdims": False}),)


@_rule("ConcatV2")
def _concat(g, y, *values, needs, axis):
    sizes = tuple(v._value.shape[axis] for v in values)
    if len(values) == 1:
        return (g,)
    return execute(SPLIT_V, (g,), {"sizes": sizes, "axis": _shift(axis)})


def _split_like(gs, ys, axis):
    n = next(x for x in gs if x is not None)._value.shape[0]
    parts = [x if x is not None else _zeros_batch(n, y) for x, y in zip(gs, ys)]
    if len(parts) == 1:
        return parts[0]
    return execute(CONCAT, tuple(parts), {"axis": _shift(axis)})


@_rule("Split", "SplitV")
def _split(gs, ys, x, needs, sizes, axis):
    return (_split_like(gs, ys, axis),)


@_rule("Pack")
def _pack(g, y, *values, needs, axis):
    parts = array_ops.unstack(g, axis=_shift(axis))
    return tuple(parts)


def _unpack(gs, ys, x, needs, num, axis):
    n = next(v for v in gs if v is not None)._value.shape[0]
    parts = [v if v is not None else _zeros_batch(n, yv) for v, yv in zip(gs, ys)]
    return (array_ops.stack(parts, axis=_shift(axis)),)


class _UnpackRules(dict):
    """``Unpack<n>`` ops are registered on demand, one per count: one rule for all of them."""

    def get(self, name, default=None):
        if name.startswith("Unpack") and name[6:].isdigit():
            return _unpack
        return super().get(name, default)


BATCHED_RULES = _UnpackRules(BATCHED_RULES)


def _batched_index(index):
    return (slice(None),) + (index if isinstance(index, tuple) else (index,))


@_rule("StridedSlice")
def _strided_slice(g, y, x, needs, index):
    shape = (_n(g),) + tuple(np.shape(x._value))
    return (execute(STRIDED_SLICE_GRAD, (g,), {"shape": shape, "index": _batched_index(index)}),)


@_rule("StridedSliceGrad")
def _strided_slice_grad(g, y, dy, needs, shape, index):
    return (execute(STRIDED_SLICE, (g,), {"index": _batched_index(index)}),)


@_rule("BooleanMask")
def _boolean_mask(g, y, x, mask, needs, axis):
    shape = (_n(g),) + tuple(np.shape(x._value))
    return execute(array_ops.BOOLEAN_MASK_GRAD, (g, mask), {"shape": shape, "axis": axis + 1}), None


@_rule("BooleanMaskGrad")
def _boolean_mask_grad(g, y, dy, mask, needs, shape, axis):
    return execute(array_ops.BOOLEAN_MASK, (g, mask), {"axis": axis + 1}), None


@_rule("Slice")
def _slice(g, y, x, needs, begin, size):
    shape = np.shape(x._value)
    paddings = ((0, 0),) + tuple((b, d - b - s) for b, s, d in zip(begin, size, shape))
    return (execute(PAD, (g,), {"paddings": paddings}),)


@_rule("Pad")
def _pad(g, y, x, needs, paddings):
    begin = (0,) + tuple(p[0] for p in paddings)
    return (execute(SLICE, (g,), {"begin": begin, "size": (_n(g),) + tuple(np.shape(x._value))}),)


@_rule("PadV2")
def _pad_v2(g, y, x, constant_values, needs, paddings):
    return _pad(g, y, x, needs, paddings)[0], None


@_rule("MirrorPad")
def _mirror_pad(g, y, x, needs, paddings, mode):
    return (execute(MIRROR_PAD_GRAD, (g,), {"paddings": ((0, 0),) + tuple(paddings), "mode": mode}),)


@_rule("Sign")
def _sign(g, y, x, needs):
    return (_zeros_batch(_n(g), x),)  # TF: zeros, not None


# ------------------------------------------------------------------------------------------ reductions


def _kept(g, x, axis, keepdims):
    """``g`` (``[N, *reduced]``) reshaped to ``[N, *kept]``, the reduced axes kept as 1s."""
    kept = (_n(g),) + _kept_shape(np.shape(x._value), axis)
    return g if g._value.shape == kept else _reshape(g, kept)


def _spread(g, x, axis, keepdims):
    g = _kept(g, x, axis, keepdims)
    full = (_n(g),) + tuple(np.shape(x._value))
    return g if g._value.shape == full else execute(array_ops.BROADCAST_TO, (g,), {"shape": full})


@_rule("Sum")
def _sum(g, y, x, needs, axis, keepdims):
    return (_spread(g, x, axis, keepdims),)


@_rule("Mean")
def _mean(g, y, x, needs, axis, keepdims):
    count = _count(np.shape(x._value), axis)
    dt = g._value.dtype
    scale = constant_of(np.asarray(1 / count if count else np.nan, dt)[()])
    return (execute(math_ops.MUL, (_spread(g, x, axis, keepdims), scale)),)


@_rule("Max", "Min")
def _extreme(g, y, x, needs, axis, keepdims):
    # The ordinary rule's share (ops on x and y, as reduction_ops builds it), applied to every row of the batch.
    kept = _kept_shape(np.shape(x._value), axis)
    if not keepdims:
        y = _reshape(y, kept)
    indicators = execute(array_ops.CAST, (execute(math_ops.EQUAL, (x, y)),), {"dtype": g._value.dtype.type})
    count = execute(reduction_ops.SUM, (indicators,), {"axis": axis, "keepdims": True})
    share = execute(math_ops.REALDIV, (indicators, count))
    return (execute(math_ops.MUL, (share, _kept(g, x, axis, keepdims))),)


@_rule("EuclideanNorm")
def _euclidean_norm(g, y, x, needs, axis, keepdims):
    kept_y = _reshape(y, _kept_shape(np.shape(x._value), axis))
    return (execute(math_ops.REALDIV, (x, execute(math_ops.REALDIV, (kept_y, _kept(g, x, axis, keepdims))))),)


@_rule("ReduceLogSumExp")
def _log_sum_exp(g, y, x, needs, axis, keepdims):
    e = execute(math_ops.EXP, (execute(math_ops.SUB, (x, reduction_ops.lse_shift(x, axis))),))
    s = execute(reduction_ops.SUM, (e,), {"axis": axis, "keepdims": True})
    return (execute(math_ops.MUL, (execute(math_ops.REALDIV, (_kept(g, x, axis, keepdims), s)), e)),)


@_rule("L2Loss")
def _l2_loss(g, y, x, needs):
    g = _reshape(g, (_n(g),) + (1,) * np.ndim(x._value))
    return (execute(math_ops.MUL, (x, g)),)


@_rule("BiasAdd")
def _bias_add(g, y, value, bias, needs, data_format):
    gb = None
    if needs[1]:
        nd = g._value.ndim - 1
        channel = _channel_axis(nd, data_format) + 1
        axes = tuple(i for i in range(1, nd + 1) if i != channel)
        gb = execute(reduction_ops.SUM, (g,), {"axis": axes, "keepdims": False})
    return g, gb


@_rule("Relu6Grad", "LeakyReluGrad")
def _grad_op_zero_second(g, dx, upstream, x, needs, **attrs):
    """Gradient ops whose rule is elementwise for the upstream gradient and zeros (not None) for the input."""
    op = REGISTRY["Relu6Grad" if not attrs else "LeakyReluGrad"]
    first = op.vjp(g, dx, upstream, x, (needs[0], False), **attrs)[0] if needs[0] else None
    return first, (_zeros_batch(_n(g), x) if needs[1] else None)

"""TF's ``Einsum`` kernel (one or two operands) and ``tf.einsum`` on top of it; ``tf.linalg.trace`` is one.

The kernel takes equations with ``...`` broadcasting, traces (a label repeated in an operand) and, for the
gradients, labels repeated in the output (a diagonal embedding). Its errors are TF's kernel's, word for word;
``tf.einsum`` parses and checks the equation as TF's Python wrapper does (implicit output: labels seen once,
sorted) and contracts longer equations pairwise. The gradient is TF's: einsums with the roles of the output and
an operand swapped, broadcasting for summed-away labels, and sums over broadcast ellipsis axes.
"""

from __future__ import annotations

import re

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from ._convert import matching, to_tensor
from .array_ops import BROADCAST_TO, RESHAPE, getitem
from .linalg_ops import Refusal, cj, dt_name, no_kernel, refused
from .reduction_ops import reduce_sum

__all__ = ["EINSUM", "einsum", "trace"]

# The CPU kernels TF 2.21 has for Einsum (other dtypes fail with NotFoundError listing them).
_KERNELS = ("XLA_CPU_JIT; T in [DT_FLOAT, DT_DOUBLE, DT_INT32, DT_COMPLEX64, DT_INT64, DT_BFLOAT16, "
           "DT_COMPLEX128, DT_HALF, DT_UINT64]", "CPU; T in [DT_INT64]", "CPU; T in [DT_INT32]",
           "CPU; T in [DT_HALF]", "CPU; T in [DT_FLOAT]", "CPU; T in [DT_DOUBLE]", "CPU; T in [DT_COMPLEX64]",
           "CPU; T in [DT_COMPLEX128]", "CPU; T in [DT_BFLOAT16]")

# Internally an ellipsis is the one character "0" (TF's public einsum refuses "0" in equations for that reason).
_ELL = "0"


def _einsum_error(n, message):
    return Refusal(errors.InvalidArgumentError(
        None, None, f"{{{{function_node __wrapped__Einsum_N_{n}_device_{errors.CPU_DEVICE}}}}} {message} "
        "[Op:Einsum] name: "))


def _einsum_parse(equation):
    ins, _, out = equation.replace("...", _ELL).partition("->")
    return ins.split(","), out


def _einsum_dims(operands, subs, out):
    """Each label's dimension and the broadcast ellipsis shape, with the checks (and words) of TF's kernel."""
    n = len(operands)
    dims = {}
    ellipses = []
    for i, (x, s) in enumerate(zip(operands, subs)):
        shape = np.shape(x)
        named = s.replace(_ELL, "")
        if _ELL in s:
            if len(shape) < len(named):
                raise _einsum_error(n, f"Expected input {i} to have rank at least {len(named)} but got: {len(shape)}")
            start, k = s.index(_ELL), len(shape) - len(named)
            ellipses.append(shape[start:start + k])
            axes = [*range(start), *range(start + k, len(shape))]
        else:
            if len(shape) != len(s):
                raise _einsum_error(n, f"Expected input {i} to have rank {len(s)} but got: {len(shape)}")
            ellipses.append(())
            axes = range(len(s))
        for label, axis in zip(named, axes):
            seen = dims.setdefault(label, shape[axis])
            if seen != shape[axis]:
                raise _einsum_error(n, f"Expected dimension {seen} at axis {axis} of the input shaped "
                                       f"{errors.shape_str(shape)} but got dimension {shape[axis]}")
    most = max(len(e) for e in ellipses)
    if most and _ELL not in out:
        raise _einsum_error(n, f"Output contains {most} broadcasting dimension(s) but no ellipsis (...) was found "
                               "in the output subscripts.")
    try:
        ellipsis = np.broadcast_shapes(*ellipses)
    except ValueError:
        shapes = [_einsum_rank3(subs[i], subs[1 - i], out, ellipses[i], dims) for i in range(2)]
        raise _einsum_error(n, f"Invalid broadcasting dimensions: {shapes[0]} vs. {shapes[1]}") from None
    return dims, ellipsis


def _einsum_rank3(s, other, out, ellipsis, dims):
    """The shape TF's kernel gives an operand before contracting it, which its broadcasting error prints.

    Batch axes stay, free and contracted labels are each flattened to one axis, in that order unless the operand
    already lists its labels as [ellipsis, batch, contracted, free] (then TF keeps that order).
    """
    kinds = {}
    for label in s:
        if label == _ELL:
            kinds[label] = 0
        elif label in other:
            kinds[label] = 1 if label in out else 3
        else:
            kinds[label] = 2 if label in out else 4
    order = {label: i for i, label in enumerate(dict.fromkeys(s + other + out))}
    swap_rank = {0: 0, 1: 1, 2: 3, 3: 2, 4: 4}
    keys = [(swap_rank[kinds[label]], order[label]) for label in s]
    swap = all(p <= q for p, q in zip(keys, keys[1:]))
    batch = [dims[label] for label in sorted(set(s), key=order.get) if kinds[label] == 1]
    free = int(np.prod([dims[label] for label in set(s) if kinds[label] == 2]))
    contract = int(np.prod([dims[label] for label in set(s) if kinds[label] == 3]))
    tail = [contract, free] if swap else [free, contract]
    return errors.shape_str([*ellipsis, *batch, *tail])


def _einsum_forward(*operands, equation):
    subs, out = _einsum_parse(equation)
    dims, ellipsis = _einsum_dims(operands, subs, out)
    big = len(operands) == 2 and operands[0].size * operands[1].size > 1 << 16
    if len(set(out)) == len(out):
        return np.einsum(equation, *operands, optimize=big)
    # A label repeated in the output (the gradient of a trace): values go on the diagonal of zeros.
    unique = "".join(dict.fromkeys(out))
    shape = [d for label in out for d in (ellipsis if label == _ELL else (dims[label],))]
    result = np.zeros(shape, np.result_type(*operands))
    diagonal = np.einsum(f"{out}->{unique}".replace(_ELL, "..."), result)  # a writeable view
    diagonal[...] = np.einsum(equation.partition("->")[0] + "->" + unique.replace(_ELL, "..."), *operands)
    return result


EINSUM = defop("Einsum", on_error=refused, quiet=True)(_einsum_forward)


def _label_axis(subs, label):
    """The axis of ``label``'s first occurrence: from the front before an ellipsis, from the back after it."""
    head, _, tail = subs.partition(_ELL)
    if label in head:
        return head.index(label)
    return tail.index(label) - len(tail)


def _einsum_op(equation, *operands):
    return execute(EINSUM, operands, {"equation": equation.replace(_ELL, "...")})


def _grad_of_reduction(g, out_subs, in_subs, in_shape, reduced):
    """The gradient of the unary ``in_subs -> out_subs`` whose ``reduced`` labels are summed away."""
    axes = [_label_axis(in_subs, label) for label in reduced]
    kept = "".join(label for label in in_subs if label not in reduced)
    if kept == out_subs and len(set(in_subs)) == len(in_subs) and _ELL not in in_subs:
        # A plain sum over some axes: broadcasting the gradient back is all there is.
        shape = list(in_shape)
        for axis in axes:
            shape[axis] = 1
        g = execute(RESHAPE, (g,), {"shape": tuple(shape)})
        return execute(BROADCAST_TO, (g,), {"shape": tuple(in_shape)})
    # Otherwise broadcast over the reduced labels put in front, then undo transposes and traces with an einsum.
    gshape = tuple(g._value.shape)
    g = execute(RESHAPE, (g,), {"shape": (1,) * len(reduced) + gshape})
    g = execute(BROADCAST_TO, (g,), {"shape": tuple(in_shape[a] for a in axes) + gshape})
    return _einsum_op(f"{''.join(reduced)}{out_subs}->{in_subs}", g)


def _grad_of_operand(g, other, in_shape, in_subs, other_subs, out_subs):
    """The gradient for one operand of a binary einsum, before its broadcast ellipsis axes are summed."""
    reduced = [label for label in dict.fromkeys(in_subs) if label not in out_subs + other_subs + _ELL]
    left = "".join(label for label in in_subs if label not in reduced)
    grad = _einsum_op(f"{out_subs},{other_subs}->{left}", g, other)
    if not reduced:
        return grad
    return _grad_of_reduction(grad, left, in_subs, in_shape, reduced)


def _unbroadcast_ellipsis(grad, subs, shape):
    """Sum ``grad`` over the ellipsis axes its operand (of ``shape``) was broadcast along."""
    gshape = grad._value.shape
    if gshape == tuple(shape):
        return grad
    start = subs.index(_ELL)
    k_in = len(shape) - (len(subs) - 1)
    k_out = len(gshape) - (len(subs) - 1)
    lead = k_out - k_in
    axes = [start + i for i in range(lead)]
    axes += [start + lead + i for i in range(k_in) if shape[start + i] == 1 and gshape[start + lead + i] != 1]
    grad = reduce_sum(grad, axes) if axes else grad
    return execute(RESHAPE, (grad,), {"shape": tuple(shape)})


@EINSUM.defvjp
def _einsum_grad(g, ans, *operands, equation):
    subs, out = _einsum_parse(equation)
    if len(operands) == 1:
        (x,) = operands
        reduced = [label for label in dict.fromkeys(subs[0]) if label not in out + _ELL]
        if not reduced:
            return (_einsum_op(f"{out}->{subs[0]}", g),)
        return (_grad_of_reduction(g, out, subs[0], x._value.shape, reduced),)
    xs, ys = subs
    if _ELL in out:
        # The gradient equations need the ellipsis on both sides even when one operand's is empty.
        xs = xs if _ELL in xs else xs + _ELL
        ys = ys if _ELL in ys else ys + _ELL
    x, y = operands
    cx, cy = cj(x), cj(y)
    gx = _grad_of_operand(g, cy, x._value.shape, xs, ys, out)
    gy = _grad_of_operand(g, cx, y._value.shape, ys, xs, out)
    if _ELL in out:
        gx = _unbroadcast_ellipsis(gx, xs, x._value.shape)
        gy = _unbroadcast_ellipsis(gy, ys, y._value.shape)
    return gx, gy


_EINSUM_FORMAT = {False: re.compile(r"^([a-zA-Z,]*)(->[a-zA-Z]*)?$"),
                  True: re.compile(r"^([a-zA-Z0,]*)(->[a-zA-Z0]*)?$")}
_EINSUM_KERNEL_TYPES = frozenset(np.dtype(t).num for t in ("int32", "int64", "float16", "float32", "float64",
                                                          "complex64", "complex128"))


def einsum(equation, *inputs, **kwargs):
    """Einstein summation, TF's way (``tf.einsum``): labels ``a-zA-Z``, ``...`` broadcasting, implicit output
    (labels seen once, sorted). More than two operands are contracted pairwise, left to right.
    """
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. Valid arguments: name, "
                        "optimize, greedy.")
    for operand in inputs:
        operand.shape  # noqa: B018 - TF reads every operand's shape first (a list fails here, as in TF)
    resolved = equation.replace(" ", "")
    if "..." in equation:
        if _ELL in resolved:
            raise ValueError(f'Invalid character "{_ELL}" in equation: {equation}.')
        resolved = resolved.replace("...", _ELL)
    match = _EINSUM_FORMAT["..." in equation].match(resolved)
    if not match:
        raise ValueError(f"Subscripts have incorrect format: {resolved}")
    subs = match.group(1).split(",")
    if len(inputs) != len(subs):
        raise ValueError(f'Got {len(inputs)} inputs for equation "{equation}", expecting {len(subs)}')
    if match.group(2) is None:
        counts = {}
        for label in match.group(1).replace(",", ""):
            counts[label] = counts.get(label, 0) + 1
        out = "".join(label for label in sorted(counts) if counts[label] == 1)
    else:
        out = match.group(2)[2:]
    if len(set(out)) != len(out):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for label in out:
        if label != _ELL and label not in match.group(1):
            raise ValueError(f"Output subscripts contain the label {label} not present in the input subscripts.")
    operands = matching(*inputs) if len(inputs) > 1 else (to_tensor(inputs[0]),)
    while len(operands) > 2:
        # Contract the first two, keeping the labels anything later (or the output) still needs.
        rest = "".join(subs[2:]) + out
        keep = "".join(label for label in dict.fromkeys(subs[0] + subs[1]) if label in rest)
        first = _einsum_kernel(f"{subs[0]},{subs[1]}->{keep}", operands[:2])
        operands, subs = (first, *operands[2:]), [keep, *subs[2:]]
    return _einsum_kernel(f"{','.join(subs)}->{out}", operands)


def _einsum_kernel(equation, operands):
    """The Einsum op, refused (NotFoundError) for the dtypes TF has no CPU kernel for."""
    dtype = operands[0]._value.dtype
    if dtype.num not in _EINSUM_KERNEL_TYPES:
        eq = equation.replace(_ELL, "...")
        raise no_kernel("Einsum", f'N={len(operands)}, T={dt_name(dtype)}, equation="{eq}"', _KERNELS)
    return _einsum_op(equation, *operands)


def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix, square or not (``tf.linalg.trace``)."""
    x = to_tensor(x)
    shape = x._value.shape
    if len(shape) < 2:
        raise errors.op_error("MatrixDiagPartV3", "input must be at least 2-dim, received shape: "
                              f"{errors.shape_str(shape)}", name="diag_part")
    if x._value.dtype.kind not in "iufc":
        return reduce_sum(x, axis=[-1])  # TF's trace fails in its Sum for these: that op's error, as TF's
    k = min(shape[-2:])
    if shape[-1] != shape[-2]:
        x = getitem(x, (Ellipsis, slice(None, k), slice(None, k)))
    return execute(EINSUM, (x,), {"equation": "...ii->..."})


export("linalg.einsum", "einsum")(einsum)
export("linalg.trace")(trace)

"""Reductions: forward (NumPy) and gradient (tapeflow ops) side by side.

Every reduction takes ``axis`` (None, an int, or a list; negative counts from the end) and ``keepdims``.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes, errors
from .._core.convert import cannot_convert
from .._core.dispatch import execute
from .._core.registry import NUMERIC, REAL, defop
from .._core.tensor import EagerTensor
from ._convert import to_tensor
from .array_ops import BROADCAST_TO, RESHAPE, cast
from .math_ops import equal

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "argmin"]


def _normalize_axis(op_name, axis, ndim):
    """``axis`` as a tuple of ints in ``[0, ndim)`` (``None`` stays ``None``: all axes), checked as TF does.

    TF's wording differs with how the axis was given: an int gets a `` name: `` suffix, a list does not.
    """
    if axis is None:
        return None
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    scalar = not isinstance(axis, (list, tuple))
    items = [axis] if scalar else list(axis)
    for a in items:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise cannot_convert(axis, dtypes.int32)
    suffix = "" if scalar else None
    out = []
    for a in items:
        if not -ndim <= a < max(ndim, 0) or (ndim == 0):
            raise errors.op_error(op_name, f"Invalid reduction dimension ({a} for input with {ndim} "
                                  "dimension(s)", name=suffix)
        a = int(a) % ndim
        if a in out:
            raise errors.op_error(op_name, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}",
                                  name=suffix)
        out.append(a)
    return tuple(out)


def _kept_shape(shape, axis):
    """The input shape with reduced axes set to 1: the shape a keepdims=False result is reshaped to."""
    nd = len(shape)
    axes = range(nd) if axis is None else [a % nd for a in axis] if nd else []
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _expand_grad(g, x, axis, keepdims):
    """``g`` reshaped to the kept-dims shape and broadcast back to ``x``'s shape."""
    shape = x._value.shape
    if not keepdims and g._value.ndim:
        g = execute(RESHAPE, (g,), {"shape": _kept_shape(shape, axis)})
    if g._value.shape != shape:
        g = execute(BROADCAST_TO, (g,), {"shape": shape})
    return g


# ------------------------------------------------------------------------------------------ sum, mean


@defop("Sum", dtypes=NUMERIC)
def SUM(x, axis, keepdims):
    return np.add.reduce(x, axis, x.dtype, None, keepdims)  # positional: keyword parsing costs here


@SUM.defvjp
def _sum_grad(g, y, x, axis, keepdims):
    return _expand_grad(g, x, axis, keepdims)


def _count(shape, axis):
    """How many elements a reduction over ``axis`` of ``shape`` combines into each result."""
    n = 1
    for i, d in enumerate(shape):
        if axis is None or i in axis:
            n *= d
    return n


@defop("Mean", dtypes=NUMERIC)
def MEAN(x, axis, keepdims):
    s = np.add.reduce(x, axis, x.dtype, None, keepdims)
    n = x.size if axis is None else _count(x.shape, axis)
    if x.dtype.kind in "iu":
        # Integer mean truncates toward zero, as C++ integer division does.
        q = np.abs(s) // max(n, 1)
        return (np.sign(s) * q).astype(x.dtype)[()]
    if n == 0:
        return s * x.dtype.type(np.nan)  # TF: the mean of nothing is NaN (0 / 0 without NumPy's warning)
    return s / x.dtype.type(n)  # a same-dtype division keeps the dtype


@MEAN.defvjp
def _mean_grad(g, y, x, axis, keepdims):
    return execute(MEAN_GRAD, (g,), {"shape": x._value.shape, "axis": axis, "keepdims": keepdims})


@defop("MeanGrad", dtypes=NUMERIC)
def MEAN_GRAD(g, shape, axis, keepdims):
    """``g / n`` spread over the reduced axes: TF's ``broadcast_to(g) / n`` as one step (equal values)."""
    if not keepdims and axis is not None and np.ndim(g):
        g = np.reshape(g, _kept_shape(shape, axis))
    n = _count(shape, axis)
    q = g / g.dtype.type(n) if n else g * g.dtype.type(np.nan)
    if not shape:
        return q
    out = np.empty(shape, g.dtype)
    out[...] = q
    return out


@MEAN_GRAD.defvjp
def _mean_grad_grad(gg, dx, g, shape, axis, keepdims):
    # Spreading then dividing is the adjoint of the mean over the same axes.
    return execute(MEAN, (gg,), {"axis": axis, "keepdims": keepdims})


# ------------------------------------------------------------------------------------------ max, min


def _extreme(ufunc, x, axis, keepdims):
    if np.size(x) == 0:
        lowest = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        highest = np.finfo(x.dtype).max if x.dtype.kind == "f" else np.iinfo(x.dtype).max
        initial = -np.inf if ufunc is np.maximum and x.dtype.kind == "f" else (
            lowest if ufunc is np.maximum else np.inf if x.dtype.kind == "f" else highest)
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, initial=initial)
    return ufunc.reduce(x, axis=axis, keepdims=keepdims)


@defop("Max", dtypes=REAL)
def MAX(x, axis, keepdims):
    return _extreme(np.maximum, x, axis, keepdims)


@defop("Min", dtypes=REAL)
def MIN(x, axis, keepdims):
    return _extreme(np.minimum, x, axis, keepdims)


def _min_or_max_grad(g, y, x, axis, keepdims):
    """Split the gradient equally between the elements that attain the extreme (TF's tie rule)."""
    y = _expand_grad(y, x, axis, keepdims) if not keepdims else y
    indicators = cast(equal(y, x), g.dtype)
    num_selected = reduce_sum(indicators, axis, keepdims=True)
    return indicators / num_selected * _expand_grad(g, x, axis, keepdims)


MAX.defvjp(_min_or_max_grad)
MIN.defvjp(_min_or_max_grad)


# ------------------------------------------------------------------------------------------ argmax (not differentiable)


def _arg_forward(fn):
    def forward(x, axis, output_type):
        return fn(x, axis=axis).astype(output_type)[()]

    return forward


ARGMAX = defop("ArgMax", dtypes=REAL, same_dtype=False)(_arg_forward(np.argmax))
ARGMIN = defop("ArgMin", dtypes=REAL, same_dtype=False)(_arg_forward(np.argmin))


# ------------------------------------------------------------------------------------------ public functions


ALL_AXES = {"axis": None, "keepdims": False}  # shared attrs of a full reduction (never mutated)


def _reduction_api(op, doc):
    """The public function of a reduction: one Python layer above ``execute`` (reductions are hot)."""

    def api(input_tensor, axis=None, keepdims=False, name=None):
        x = input_tensor if type(input_tensor) is EagerTensor else to_tensor(input_tensor)
        if axis is None and not keepdims:
            return execute(op, (x,), ALL_AXES)  # the common full reduction, with a shared attrs dict
        return execute(op, (x,), {"axis": _normalize_axis(op.name, axis, x._value.ndim),
                                  "keepdims": bool(keepdims)})

    api.__doc__ = doc
    return api


reduce_sum = _reduction_api(SUM, "Sum of elements across ``axis`` (all axes by default) (``tf.math.reduce_sum``).")
reduce_mean = _reduction_api(MEAN, "Mean of elements across ``axis``; integer means truncate "
                                   "(``tf.math.reduce_mean``).")
reduce_max = _reduction_api(MAX, "Maximum across ``axis``; tied elements share the gradient equally "
                                 "(``tf.math.reduce_max``).")
reduce_min = _reduction_api(MIN, "Minimum across ``axis``; tied elements share the gradient equally "
                                 "(``tf.math.reduce_min``).")


def _arg(op, input, axis, output_type):
    x = to_tensor(input)
    axis = 0 if axis is None else int(axis)
    return execute(op, (x,), {"axis": axis, "output_type": dtypes.as_dtype(output_type).as_numpy_dtype})


def argmax(input, axis=None, output_type="int64", name=None):
    """Index of the largest value along ``axis`` (0 by default); not differentiable (``tf.math.argmax``)."""
    return _arg(ARGMAX, input, axis, output_type)


def argmin(input, axis=None, output_type="int64", name=None):
    """Index of the smallest value along ``axis`` (0 by default); not differentiable (``tf.math.argmin``)."""
    return _arg(ARGMIN, input, axis, output_type)

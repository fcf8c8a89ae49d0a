"""Reductions and cumulative sums/products: forward (NumPy) and gradient (tapeflow ops) side by side.

Every reduction takes ``axis`` (None, an int, or a list; negative counts from the end) and ``keepdims``.
``cumsum``/``cumprod`` take one ``axis`` with ``exclusive`` and ``reverse``.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes, errors
from .._core.convert import c_name, cannot_convert
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import FLOAT, NUMERIC, REAL, Op, defop
from .._core.tensor import EagerTensor, Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import BROADCAST_TO, CAST, RESHAPE, SELECT, STOP_GRADIENT, TRANSPOSE, cast
from .elementwise_ops import IS_FINITE
from .math_ops import CONJ, EQUAL, EXP, MUL, NOT_EQUAL, REAL_PART, REALDIV, SQRT, SQUARE, SUB, _cj
from .shape_like_ops import BROADCAST_LIKE, EXPAND_DIMS_AT, shape_varies

__all__ = [
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "argmin", "reduce_prod", "reduce_any",
    "reduce_all", "reduce_logsumexp", "reduce_variance", "reduce_std", "reduce_euclidean_norm", "count_nonzero",
    "cumsum", "cumprod",
]


def _normalize_axis(op_name, axis, ndim):
    """``axis`` as a tuple of ints in ``[0, ndim)`` (``None`` stays ``None``: all axes), checked as TF does.

    TF's wording differs with how the axis was given: an int gets a `` name: `` suffix, a list does not.
    """
    if axis is None:
        return None
    suffix = errors.error_name(None, axis)
    given = axis
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    elif isinstance(axis, np.ndarray):
        axis = axis.tolist()
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in items:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise cannot_convert(given, dtypes.int32)
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
    if shape_varies(x):  # a loop body's tensor whose shape changes: the shape is read when the program runs
        if not keepdims and g._value.ndim:
            for a in sorted(a % len(shape) for a in axis):
                g = execute(EXPAND_DIMS_AT, (g,), {"axis": a})
        return execute(BROADCAST_LIKE, (g, x))
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
    return (_expand_grad(g, x, axis, keepdims),)


@SUM.defraw
def _sum_raw(g, y, x, axis, keepdims):
    shape = x.shape
    if not keepdims and g.ndim:
        g = RESHAPE.forward(g, _kept_shape(shape, axis))
    if g.shape != shape:
        g = BROADCAST_TO.forward(g, shape)
    return (g,)


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
    if shape_varies(x):
        return (execute(MEAN_GRAD_LIKE, (g, x), {"axis": axis, "keepdims": keepdims}),)
    return (execute(MEAN_GRAD, (g,), {"shape": x._value.shape, "axis": axis, "keepdims": keepdims}),)


@MEAN.defraw
def _mean_raw(g, y, x, axis, keepdims):
    return (MEAN_GRAD.forward(g, x.shape, axis, keepdims),)


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
    return (execute(MEAN, (gg,), {"axis": axis, "keepdims": keepdims}),)


@defop("MeanGradLike", dtypes=NUMERIC, same_dtype=False)
def MEAN_GRAD_LIKE(g, like, axis, keepdims):
    """``MeanGrad`` spreading over ``like``'s shape, read when the program runs (see ``shape_like_ops``)."""
    return MEAN_GRAD.forward(g, np.shape(like), axis, keepdims)


@MEAN_GRAD_LIKE.defvjp
def _mean_grad_like_grad(gg, dx, g, like, axis, keepdims):
    return (execute(MEAN, (gg,), {"axis": axis, "keepdims": keepdims}), None)


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
    """Split the gradient equally between the elements that attain the extreme (TF's tie rule).

    Which elements are selected, and how many share each result, come from ops on ``x`` and ``y`` (``Equal`` has
    no gradient, so an outer tape still sees one multiply by a constant share), so that a traced backward pass
    recomputes them for the values of each call.
    """
    kept = _kept_shape(x._value.shape, axis)
    if not keepdims:
        y = execute(RESHAPE, (y,), {"shape": kept})
        if g._value.ndim:
            g = execute(RESHAPE, (g,), {"shape": kept})
    indicators = execute(CAST, (execute(EQUAL, (x, y)),), {"dtype": g._value.dtype.type})
    count = execute(SUM, (indicators,), {"axis": axis, "keepdims": True})
    return (execute(MUL, (execute(REALDIV, (indicators, count)), g)),)


def _min_or_max_raw(g, y, x, axis, keepdims):
    # The tensor rule on arrays, kernel for kernel (the op database checks they agree bit for bit).
    kept = _kept_shape(x.shape, axis)
    if not keepdims:
        y = RESHAPE.forward(y, kept)
        if g.ndim:
            g = RESHAPE.forward(g, kept)
    indicators = CAST.forward(EQUAL.forward(x, y), g.dtype.type)
    count = SUM.forward(indicators, axis, True)
    return (MUL.forward(REALDIV.forward(indicators, count), g),)


MAX.defvjp(_min_or_max_grad)
MIN.defvjp(_min_or_max_grad)
MAX.defraw(_min_or_max_raw)
MIN.defraw(_min_or_max_raw)


# ------------------------------------------------------------------------------------------ prod


@defop("Prod", dtypes=NUMERIC, quiet=True)
def PROD(x, axis, keepdims):
    return np.multiply.reduce(x, axis, x.dtype, None, keepdims)


@PROD.defvjp
def _prod_grad(g, y, x, axis, keepdims):
    """The product of all *other* elements of each group, as TF builds it: exclusive cumulative products from
    both ends, so zeros in the input need no division (one zero: only it gets a gradient; two: none does)."""
    g = _expand_grad(g, x, axis, keepdims)
    shape = x._value.shape
    nd = len(shape)
    axes = tuple(range(nd)) if axis is None else axis
    if not axes:
        return (g,)
    if len(axes) == 1:
        others = _cumprod(x, axes[0], True, False) * _cumprod(x, axes[0], True, True)
    else:
        # The reduced axes first, flattened into one, so that one pair of scans covers every group.
        perm = axes + tuple(i for i in range(nd) if i not in axes)
        permuted = tuple(shape[i] for i in perm)
        flat_shape = (_count(shape, axes), _count(shape, perm[len(axes):]))
        flat = execute(RESHAPE, (execute(TRANSPOSE, (x,), {"perm": perm}),), {"shape": flat_shape})
        others = _cumprod(flat, 0, True, False) * _cumprod(flat, 0, True, True)
        others = execute(TRANSPOSE, (execute(RESHAPE, (others,), {"shape": permuted}),),
                         {"perm": tuple(int(i) for i in np.argsort(perm))})
    return (g * _cj(others),)


# ------------------------------------------------------------------------------------------ any, all (bool)


@defop("Any", dtypes=("bool",))
def ANY(x, axis, keepdims):
    return np.logical_or.reduce(x, axis, None, None, keepdims)


@defop("All", dtypes=("bool",))
def ALL(x, axis, keepdims):
    return np.logical_and.reduce(x, axis, None, None, keepdims)


# ------------------------------------------------------------------------------------------ euclidean norm


@defop("EuclideanNorm", dtypes=NUMERIC, quiet=True)
def EUCLIDEAN_NORM(x, axis, keepdims):
    if x.dtype.kind == "c":
        return np.sqrt(np.add.reduce(np.real(x * np.conj(x)), axis, None, None, keepdims)).astype(x.dtype)[()]
    s = np.add.reduce(x * x, axis, x.dtype, None, keepdims)
    if x.dtype.kind in "iu":
        return np.sqrt(s.astype(np.float64)).astype(x.dtype)[()]  # C++ integer sqrt truncates
    return np.sqrt(s)


@EUCLIDEAN_NORM.defvjp
def _euclidean_norm_grad(g, y, x, axis, keepdims):
    # TF's x / (norm / g): NaN where the norm is 0, as in TF.
    if not keepdims and g._value.ndim:
        kept = {"shape": _kept_shape(x._value.shape, axis)}
        y, g = execute(RESHAPE, (y,), kept), execute(RESHAPE, (g,), kept)
    return (execute(REALDIV, (x, execute(REALDIV, (y, g)))),)


# ------------------------------------------------------------------------------------------ logsumexp


def _lse_shift(xv, axis):
    """The stabilising shift of logsumexp: the maximum, or 0 where it is not finite (TF's stop-gradient max)."""
    m = _extreme(np.maximum, xv, axis, True)
    return np.where(np.isfinite(m), m, m.dtype.type(0))


def lse_shift(x, axis):
    """:func:`_lse_shift` of a tensor, computed by ops (so a traced gradient recomputes it for each call's values)
    and cut from the tape as TF's ``stop_gradient`` cuts it: the same values, kernel for kernel."""
    m = execute(MAX, (x,), {"axis": axis, "keepdims": True})
    finite = execute(IS_FINITE, (m,))
    return execute(STOP_GRADIENT, (execute(SELECT, (finite, m, constant_of(np.zeros((), m._value.dtype)))),))


@defop("ReduceLogSumExp", dtypes=FLOAT, quiet=True)
def LOG_SUM_EXP(x, axis, keepdims):
    """``log(sum(exp(x - m))) + m`` with ``m`` the finite maximum, as TF composes it."""
    m = _lse_shift(x, axis)
    s = np.log(np.add.reduce(np.exp(x - m), axis, x.dtype, None, keepdims))
    return s + (m if keepdims else np.reshape(m, np.shape(s)))


@LOG_SUM_EXP.defvjp
def _log_sum_exp_grad(g, y, x, axis, keepdims):
    # TF's composite differentiated: g / sum(e) * e with e = exp(x - m) and m constant. Recomputing e from x
    # (rather than exp(x - y)) keeps float32 accuracy for large inputs.
    e = execute(EXP, (execute(SUB, (x, lse_shift(x, axis))),))
    s = execute(SUM, (e,), {"axis": axis, "keepdims": True})
    if not keepdims and g._value.ndim:
        g = execute(RESHAPE, (g,), {"shape": _kept_shape(x._value.shape, axis)})
    return (execute(MUL, (execute(REALDIV, (g, s)), e)),)


# TF's logsumexp checks finiteness with IsFinite, whose dtype error integer inputs get (not registered here: the
# op only lends its name and allowed dtypes to that error).
_IS_FINITE = Op("IsFinite", np.isfinite, allowed=FLOAT, signature="x:T -> y:bool")


# ------------------------------------------------------------------------------------------ cumsum, cumprod


def _scan(ufunc, identity, x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
    if exclusive and x.shape[axis]:
        shifted = np.empty_like(out)
        head = (slice(None),) * axis
        shifted[head + (0,)] = identity
        shifted[head + (slice(1, None),)] = out[head + (slice(None, -1),)]
        out = shifted
    return np.flip(out, axis) if reverse else out


@defop("Cumsum", dtypes=NUMERIC)
def CUMSUM(x, axis, exclusive, reverse):
    return _scan(np.add, 0, x, axis, exclusive, reverse)


@CUMSUM.defvjp
def _cumsum_grad(g, y, x, axis, exclusive, reverse):
    return (execute(CUMSUM, (g,), {"axis": axis, "exclusive": exclusive, "reverse": not reverse}),)


@defop("Cumprod", dtypes=NUMERIC, quiet=True)
def CUMPROD(x, axis, exclusive, reverse):
    return _scan(np.multiply, 1, x, axis, exclusive, reverse)


def _cumprod(x, axis, exclusive, reverse):
    return execute(CUMPROD, (x,), {"axis": axis, "exclusive": exclusive, "reverse": reverse})


@CUMPROD.defvjp
def _cumprod_grad(g, y, x, axis, exclusive, reverse):
    """TF's rule: ``cumsum(y * g, reversed) / x`` with 0 where ``x`` is 0 (``div_no_nan``), so an input zero
    gets no gradient even where its true derivative is not 0. Complex inputs are not conjugated, as in TF."""
    out = execute(CUMSUM, (execute(MUL, (y, g)),), {"axis": axis, "exclusive": exclusive, "reverse": not reverse})
    return (_div_no_nan(out, x),)


def _div_no_nan(num, den):
    """``num / den``, 0 where ``den`` is 0 (TF's ``div_no_nan``, as the where-composition of its gradient).

    Where ``den`` is 0 is found by an op, every time: a traced gradient then holds for denominators with and
    without zeros (with none, both selects pass their operand through unchanged).
    """
    dt = den._value.dtype
    zero = execute(EQUAL, (den, constant_of(np.zeros((), dt))))
    safe = execute(SELECT, (zero, constant_of(np.ones((), dt)), den))
    return execute(SELECT, (zero, constant_of(np.zeros((), dt)), execute(REALDIV, (num, safe))))


# ------------------------------------------------------------------------------------------ argmax (not differentiable)


def _arg_forward(fn, largest):
    def forward(x, axis, output_type):
        if x.dtype.kind == "f":
            return _float_arg(fn, x, axis, largest).astype(output_type)[()]
        return fn(x, axis=axis).astype(output_type)[()]

    return forward


def _float_arg(fn, x, axis, largest):
    """TF's (Eigen's) arg-reduction of floats: the first index of the largest (smallest) value, NaN never chosen.

    The kernel starts from index 0 holding the lowest finite value (highest for argmin) and takes an element only
    when it compares greater (smaller); NaN compares neither way. So a line of NaN and -inf (+inf for argmin), or
    of values no better than the start, gives index 0, not the first NaN NumPy would give.
    """
    nan = np.isnan(x)
    if nan.any():
        x = np.where(nan, x.dtype.type(-np.inf if largest else np.inf), x)
    index = fn(x, axis=axis)
    edge = np.finfo(x.dtype).max
    best = np.take_along_axis(x, np.expand_dims(index, axis), axis).squeeze(axis)
    unmoved = best <= -edge if largest else best >= edge
    if unmoved.any():
        index = np.where(unmoved, 0, index)
    return np.asarray(index)


ARGMAX = defop("ArgMax", dtypes=REAL, same_dtype=False)(_arg_forward(np.argmax, True))
ARGMIN = defop("ArgMin", dtypes=REAL, same_dtype=False)(_arg_forward(np.argmin, False))


# ------------------------------------------------------------------------------------------ public functions


ALL_AXES = {"axis": None, "keepdims": False}  # shared attrs of a full reduction (never mutated)


def _reduce(op, value, axis, keepdims, dtype=None):
    """Convert, check ``axis`` and run a reduction; errors worded as TF words them for this kind of input."""
    if getattr(value, "_tapeflow_ragged", False):
        from .ragged_ops import reduce as ragged_reduce  # noqa: PLC0415 - ragged_ops builds on this module

        return ragged_reduce(op.name, value, axis, keepdims)
    try:
        x = to_tensor(value, dtype)
        if axis is None and not keepdims:
            return execute(op, (x,), ALL_AXES)
        return execute(op, (x,), {"axis": _normalize_axis(op.name, axis, x._value.ndim), "keepdims": bool(keepdims)})
    except errors.InvalidArgumentError as exc:
        if errors.fast_path(value, axis):
            raise
        raise errors.without_name(exc) from None


def _reduction_api(op, doc):
    """The public function of a reduction: one Python layer above ``execute`` for tensors (reductions are hot)."""

    def api(input_tensor, axis=None, keepdims=False, name=None):
        if type(input_tensor) is not EagerTensor or type(axis) is list or type(axis) is tuple:
            return _reduce(op, input_tensor, axis, keepdims)
        if axis is None and not keepdims:
            return execute(op, (input_tensor,), ALL_AXES)  # the common full reduction, with a shared attrs dict
        return execute(op, (input_tensor,), {"axis": _normalize_axis(op.name, axis, input_tensor._value.ndim),
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
reduce_prod = export("math.reduce_prod", "reduce_prod")(_reduction_api(
    PROD, "Product of elements across ``axis``; its gradient handles zeros without dividing, as TF's "
          "(``tf.math.reduce_prod``)."))
reduce_euclidean_norm = export("math.reduce_euclidean_norm")(_reduction_api(
    EUCLIDEAN_NORM, "``sqrt(sum(|x|^2))`` across ``axis``, in the input's dtype (integer results truncate; complex "
                    "stay complex); the gradient at a zero norm is NaN (``tf.math.reduce_euclidean_norm``)."))


def _bool_reduction(op, value, axis, keepdims):
    if isinstance(value, Tensor) or getattr(value, "_tapeflow_variable", False):
        x = to_tensor(value)
        if x._value.dtype != np.bool_:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op.name} as input #0(zero-based) was expected to be a bool tensor but "
                f"is a {c_name(x.dtype)} tensor [Op:{op.name}] name: ")
        return _reduce(op, x, axis, keepdims)
    return _reduce(op, value, axis, keepdims, dtypes.bool_)  # Python values are converted to bool, or refused


@export("math.reduce_any", "reduce_any")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or across ``axis`` of a bool tensor; ``False`` for no elements (``tf.math.reduce_any``)."""
    return _bool_reduction(ANY, input_tensor, axis, keepdims)


@export("math.reduce_all", "reduce_all")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and across ``axis`` of a bool tensor; ``True`` for no elements (``tf.math.reduce_all``)."""
    return _bool_reduction(ALL, input_tensor, axis, keepdims)


@export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``log(sum(exp(x)))`` across ``axis``, shifted by the maximum for stability (``tf.math.reduce_logsumexp``).

    As in TF, the result is ``-inf`` for no elements or all ``-inf``, and the gradient is NaN where the result
    is not finite; non-float inputs fail in TF's ``Max`` (complex, bool) or ``IsFinite`` (integers).
    """
    x = input_tensor
    if type(x) is not EagerTensor:
        if isinstance(x, (list, tuple)):
            _reduce(MAX, x, axis, True)  # TF's first op takes the list: its axis and dtype errors come first
        x = to_tensor(x)
    if x._value.dtype.num not in LOG_SUM_EXP.allowed_nums:
        execute(_IS_FINITE, (_reduce(MAX, x, axis, True),))  # Max refuses complex and bool, IsFinite integers
    if axis is None and not keepdims:
        return execute(LOG_SUM_EXP, (x,), ALL_AXES)
    return execute(LOG_SUM_EXP, (x,), {"axis": _normalize_axis("Max", axis, x._value.ndim),
                                       "keepdims": bool(keepdims)})


@export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Population variance across ``axis`` (real for complex input) (``tf.math.reduce_variance``).

    Raises:
        TypeError: for integer inputs, after the mean (whose own errors come first, as in TF).
    """
    x = to_tensor(input_tensor)
    means = reduce_mean(x, axis, keepdims=True)
    if x.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
    diff = execute(SUB, (x, means))
    if x._value.dtype.kind == "c":
        squared = execute(REAL_PART, (execute(MUL, (execute(CONJ, (diff,)), diff)),))
    else:
        squared = execute(SQUARE, (diff,))
    return reduce_mean(squared, axis, keepdims)


@export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Population standard deviation across ``axis``; its gradient is NaN where it is 0 (``tf.math.reduce_std``)."""
    return execute(SQRT, (reduce_variance(input_tensor, axis, keepdims),))


@export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):
    """How many elements across ``axis`` are not zero (not ``""`` for strings), as ``dtype``; not differentiable
    (``tf.math.count_nonzero``)."""
    x = to_tensor(input)
    v = x._value
    axes = _normalize_axis("Sum", axis, v.ndim)
    # The zero of the input's dtype: an empty string for strings, False for bools.
    zero = np.array(b"", object) if v.dtype.kind == "O" else np.zeros((), v.dtype)
    nonzero = execute(CAST, (execute(NOT_EQUAL, (x, constant_of(zero))),), {"dtype": np.int64})
    counts = execute(SUM, (nonzero,), {"axis": axes, "keepdims": bool(keepdims)})
    return cast(counts, dtype)  # TF casts the int64 counts: its Cast's errors (int64 to string) included


# The output types TF's ArgMax and ArgMin take.
_ARG_OUTPUT = {"ArgMax": ("int16", "uint16", "int32", "int64"), "ArgMin": ("int32", "int64")}


def _arg_axis(op, axis, sfx):
    """``axis`` of argmax/argmin as an int, refused as TF refuses it: ``tf.math.argmax`` checks it in Python
    (ints and integer tensors only), ``argmin`` converts it as an op argument (int32 by default)."""
    from .manip_ops import attr_error, int_values  # noqa: PLC0415 - manip_ops imports this module

    if axis is None:
        return 0
    is_tensor = isinstance(axis, Tensor) or getattr(axis, "_tapeflow_variable", False)
    if op is ARGMAX:
        if is_tensor:
            if axis.dtype.is_integer:
                a = axis._value if isinstance(axis, Tensor) else axis.read_value()._value
            else:
                raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
        elif isinstance(axis, (np.ndarray, np.generic)):
            raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
        elif isinstance(axis, int):
            return int(axis)
        else:
            raise TypeError("axis must be int or Tensor with integer datatype")
    elif is_tensor:
        if axis.dtype.name not in ("int32", "int64"):
            raise attr_error(op.name, "Tidx", axis.dtype, sfx)
        a = axis._value if isinstance(axis, Tensor) else axis.read_value()._value
    elif isinstance(axis, float):
        raise cannot_convert(axis, dtypes.int32)
    elif isinstance(axis, (int, np.integer)):
        return int(axis)
    elif isinstance(axis, (np.ndarray, np.generic)):
        a = np.asarray(axis).astype(np.int32)  # NumPy values are cast to the int32 argument
    else:  # a list or a string: TF's op wrapper converts it on its fallback path (no `` name: `` suffix)
        a = int_values(axis, op.name, "Tidx", None if isinstance(axis, (str, bytes)) else sfx)
    if np.ndim(a):
        raise errors.op_error(op.name, f"dim must be a scalar, but received tensor of shape: "
                              f"{errors.shape_str(np.shape(a))}", name=sfx)
    return int(a)


def _arg(op, input, axis, output_type):
    sfx = errors.error_name(None, input, axis)
    x = to_tensor(input)
    axis = _arg_axis(op, axis, sfx)
    output_type = dtypes.as_dtype(output_type)
    v = x._value
    if v.dtype.num in op.allowed_nums and output_type.name not in _ARG_OUTPUT[op.name]:
        from .manip_ops import attr_error  # noqa: PLC0415 - manip_ops imports this module

        raise attr_error(op.name, "output_type", output_type, sfx)
    nd = v.ndim
    if v.dtype.num in op.allowed_nums:
        if not -nd <= axis < nd:
            raise errors.op_error(op.name, f"Expected dimension in the range [{-nd}, {nd}), but got {axis}", name=sfx)
        if v.shape[axis] == 0:
            raise errors.op_error(op.name, f"Reduction axis {axis} is empty in shape {errors.shape_str(v.shape)}",
                                  name=sfx)
    return errors.call_on_path(sfx is not None, execute, op, (x,),
                               {"axis": axis, "output_type": output_type.as_numpy_dtype})


def argmax(input, axis=None, output_type="int64", name=None):
    """Index of the largest value along ``axis`` (0 by default); not differentiable (``tf.math.argmax``)."""
    return _arg(ARGMAX, input, axis, output_type)


def argmin(input, axis=None, output_type="int64", name=None):
    """Index of the smallest value along ``axis`` (0 by default); not differentiable (``tf.math.argmin``)."""
    return _arg(ARGMIN, input, axis, output_type)


# ------------------------------------------------------------------------------------------ cumsum, cumprod (public)


def _scan_axis(op, x, axis):
    """``axis`` as a non-negative int, checked as TF's ScanOp checks it."""
    if hasattr(axis, "_value") or isinstance(axis, (list, tuple, np.ndarray)):
        a = np.asarray(axis._value if hasattr(axis, "_value") else convert_to_tensor(axis)._value)
        if a.ndim:
            raise errors.op_error(op.name, f"ScanOp: axis must be a scalar, not {errors.shape_str(a.shape)}",
                                  name=None)
        axis = a.item()
    if not isinstance(axis, (int, np.integer)):
        raise cannot_convert(axis, dtypes.int32)
    nd = x._value.ndim
    if not -nd <= axis < nd:
        raise errors.op_error(op.name, f"ScanOp: Expected scan axis in the range [{-nd}, {nd}), but got "
                              f"{axis + nd if axis < 0 else axis}")
    return int(axis) % nd


def _scan_api(op, x, axis, exclusive, reverse):
    for flag, value in (("exclusive", exclusive), ("reverse", reverse)):
        if not isinstance(value, bool):
            raise TypeError(f"Expected bool for argument '{flag}' not {value!r}.")
    x = to_tensor(x)
    return execute(op, (x,), {"axis": _scan_axis(op, x, axis), "exclusive": exclusive, "reverse": reverse})


@export("math.cumsum", "cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis``; ``exclusive`` leaves each element out of its own sum, ``reverse`` sums from
    the end (``tf.math.cumsum``)."""
    return _scan_api(CUMSUM, x, axis, exclusive, reverse)


@export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along ``axis`` (``exclusive``, ``reverse`` as in :func:`cumsum`); its gradient gives 0
    at input zeros, as TF's (``tf.math.cumprod``)."""
    return _scan_api(CUMPROD, x, axis, exclusive, reverse)

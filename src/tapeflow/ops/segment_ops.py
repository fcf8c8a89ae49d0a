"""Segment reductions: ``tf.math.segment_*`` (sorted ids) and ``tf.math.unsorted_segment_*`` (any ids, a given
number of segments), forward (NumPy) and gradient (tapeflow ops) side by side.

TF's values for empty segments hold: 0 for sorted sum/mean/max/min and 1 for prod; for unsorted ops 0 (sum,
mean), 1 (prod), the dtype's lowest (max) or highest (min) value. Unsorted ops drop negative ids. Gradients are
TF's: max/min split ties equally, prod handles zeros without dividing by them (and, as TF, does not conjugate
for complex inputs).
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes, errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import NUMERIC, REAL, defop
from .._core.sizes import wrap_int
from .._core.state import STATE
from .._core.tensor import Tensor, constant_of, convert_to_tensor
from ._convert import to_tensor
from .array_ops import CAST, RESHAPE, SELECT
from .manip_ops import attr_error
from .math_ops import EQUAL, GREATER, GREATER_EQUAL, LOGICAL_AND, MAXIMUM, MUL, REALDIV, SQRT, truediv

__all__ = [
    "segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod", "unsorted_segment_sum",
    "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "unsorted_segment_sqrt_n",
]


# ------------------------------------------------------------------------------------------ id checks


def _sorted_runs(op_name, data, ids):
    """``(num_segments, run_starts, run_ids)`` of sorted ``ids``, refused as TF's sorted-segment kernels refuse them.

    The kernels walk the runs of equal ids in order; at each run they first check that the next run's id is
    larger, then that this run's id is in ``[0, last id + 1)``. The first failing run words the error.
    """
    if data.ndim < 1:
        raise errors.op_error(op_name, "input must be at least rank 1")
    if ids.ndim != 1:
        raise errors.op_error(op_name, "segment_ids should be a vector.")
    if ids.shape[0] != data.shape[0]:
        raise errors.op_error(op_name, "segment_ids should be the same size as dimension 0 of input.")
    if not ids.size:
        return 0, ids, ids
    rows = int(ids[-1]) + 1
    if rows <= 0:
        raise errors.op_error(op_name, "segment ids must be >= 0")
    starts = np.concatenate(([0], np.flatnonzero(ids[1:] != ids[:-1]) + 1))
    run_ids = ids[starts]
    unordered = np.append(run_ids[:-1] > run_ids[1:], False)
    outside = (run_ids < 0) | (run_ids >= rows)
    bad = np.flatnonzero(unordered | outside)
    if bad.size:
        r = bad[0]
        if unordered[r]:
            raise errors.op_error(op_name, "segment ids are not increasing")
        raise errors.op_error(op_name, f"Segment id {run_ids[r]} out of range [0, {rows}), possibly because "
                              "'segment_ids' input is not sorted.")
    return rows, starts, run_ids


def _check_unsorted(op_name, data, ids, num_segments):
    if data.shape[:ids.ndim] != ids.shape:
        raise errors.op_error(op_name, f"data.shape = {errors.shape_str(data.shape)} does not start with "
                              f"segment_ids.shape = {errors.shape_str(ids.shape)}")
    if num_segments < 0:
        raise errors.op_error(op_name, f"Input num_segments == {num_segments} must not be negative.")
    outside = np.argwhere(np.atleast_1d(ids >= num_segments))  # negative ids are dropped, not refused
    if outside.size:
        where = tuple(outside[0][:ids.ndim])
        raise errors.op_error(op_name, f"segment_ids[{','.join(map(str, where))}] = {ids[where]} is out of range "
                              f"[0, {num_segments})")


def _extreme_value(dtype, highest):
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.max if highest else info.min


# ------------------------------------------------------------------------------------------ forwards


def _sorted_forward(op_name, ufunc, empty):
    def forward(data, ids):
        rows, starts, run_ids = _sorted_runs(op_name, data, ids)
        out = np.full((rows,) + data.shape[1:], empty, data.dtype)
        if ids.size and ufunc in _EXTREMES:
            out[run_ids] = ufunc.reduceat(data, starts, axis=0, dtype=data.dtype)
            _nan_as_tf(out, ufunc, data, ids)
        elif ids.size:  # rows added (multiplied) one after another, as TF's kernel does: reduceat's order rounds
            ufunc.at(out, ids, data)  # differently (0.1 + 0.1 + 2.0 in float32: 2.2 here, 2.1999998 from reduceat)
        return out

    return forward


def _unsorted_forward(op_name, ufunc, empty):
    def forward(data, ids, num_segments):
        _check_unsorted(op_name, data, ids, num_segments)
        init = empty if empty is not None else _extreme_value(data.dtype, ufunc is np.minimum)
        out = np.full((num_segments,) + data.shape[ids.ndim:], init, data.dtype)
        flat_ids = ids.reshape(-1)
        keep = flat_ids >= 0
        rows = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])[keep]
        ufunc.at(out, flat_ids[keep], rows)
        if ufunc in _EXTREMES:
            _nan_as_tf(out, ufunc, rows, flat_ids[keep])
        return out

    return forward


_EXTREMES = (np.maximum, np.minimum)


def _nan_as_tf(out, ufunc, rows, seg):
    """Redo the segments that hold a NaN as TF's kernels compute them (``out`` is changed in place).

    TF folds a segment's rows in order, each row replacing the running value unless it is smaller (larger, for
    min). A NaN is never smaller, so it replaces, and the next row replaces the NaN: the result is the extreme of
    the rows after a segment's last NaN (per element), or NaN when the NaN is the segment's last row.
    """
    if rows.dtype.kind != "f" or not rows.size:
        return
    nan = np.isnan(rows)
    if not nan.any():
        return
    pos = np.arange(len(rows)).reshape((-1,) + (1,) * (rows.ndim - 1))
    last_nan = np.full(out.shape, -1)
    np.maximum.at(last_nan, seg, np.where(nan, pos, -1))
    after = pos > last_nan[seg]
    fill = np.inf if ufunc is np.minimum else -np.inf
    best = np.full(out.shape, fill, out.dtype)
    ufunc.at(best, seg, np.where(after, rows, rows.dtype.type(fill)))
    count = np.zeros(out.shape, np.int64)
    np.add.at(count, seg, after)
    redo = last_nan >= 0
    out[redo] = np.where(count > 0, best, np.nan)[redo]


SEGMENT_SUM = defop("SegmentSum", dtypes=NUMERIC, same_dtype=False)(_sorted_forward("SegmentSum", np.add, 0))
SEGMENT_MAX = defop("SegmentMax", dtypes=REAL, same_dtype=False, quiet=True)(
    _sorted_forward("SegmentMax", np.maximum, 0))
SEGMENT_MIN = defop("SegmentMin", dtypes=REAL, same_dtype=False, quiet=True)(
    _sorted_forward("SegmentMin", np.minimum, 0))
SEGMENT_PROD = defop("SegmentProd", dtypes=NUMERIC, same_dtype=False, quiet=True)(
    _sorted_forward("SegmentProd", np.multiply, 1))
UNSORTED_SEGMENT_SUM = defop("UnsortedSegmentSum", dtypes=NUMERIC, same_dtype=False)(
    _unsorted_forward("UnsortedSegmentSum", np.add, 0))
UNSORTED_SEGMENT_MAX = defop("UnsortedSegmentMax", dtypes=REAL, same_dtype=False, quiet=True)(
    _unsorted_forward("UnsortedSegmentMax", np.maximum, None))
UNSORTED_SEGMENT_MIN = defop("UnsortedSegmentMin", dtypes=REAL, same_dtype=False, quiet=True)(
    _unsorted_forward("UnsortedSegmentMin", np.minimum, None))
UNSORTED_SEGMENT_PROD = defop("UnsortedSegmentProd", dtypes=NUMERIC, same_dtype=False, quiet=True)(
    _unsorted_forward("UnsortedSegmentProd", np.multiply, 1))


def _run_lengths(starts, n):
    return np.diff(np.append(starts, n))


@defop("SegmentMean", dtypes=NUMERIC, same_dtype=False)
def SEGMENT_MEAN(data, ids):
    rows, starts, run_ids = _sorted_runs("SegmentMean", data, ids)
    out = np.zeros((rows,) + data.shape[1:], data.dtype)
    if ids.size:
        sums = np.add.reduceat(data, starts, axis=0, dtype=data.dtype)
        n = _run_lengths(starts, ids.size).reshape((-1,) + (1,) * (data.ndim - 1))
        if data.dtype.kind in "iu":
            out[run_ids] = np.sign(sums) * (np.abs(sums) // n)  # integer means truncate toward zero
        else:
            out[run_ids] = sums / n.astype(data.dtype)
    return out


# ------------------------------------------------------------------------------------------ gathering by id


@defop("GatherDropNegatives", dtypes=NUMERIC, same_dtype=False)
def GATHER_DROP_NEGATIVES(params, ids):
    """Row ``ids[i]`` of ``params`` for each id, zeros for negative ids: how segment gradients spread back."""
    if not params.shape[0]:  # no segments: every id is negative (dropped)
        return np.zeros(ids.shape + params.shape[1:], params.dtype)
    out = params[np.maximum(ids, 0)]
    negative = ids < 0
    if negative.any():
        out[negative] = 0
    return out


@GATHER_DROP_NEGATIVES.defvjp
def _gather_drop_negatives_grad(g, y, params, ids):
    return execute(UNSORTED_SEGMENT_SUM, (g, ids), {"num_segments": params._value.shape[0]}), None


def _gather(params, ids):
    return execute(GATHER_DROP_NEGATIVES, (params, ids))


# ------------------------------------------------------------------------------------------ gradients
# What a rule derives from the values (which elements attain a segment's extreme, how many share it, which are
# zero, how many rows a segment has) is computed by ops, none with a gradient where TF has none: a traced backward
# pass then recomputes it for each call's values instead of keeping the values it was traced with.


def _segment_count(values, ids, num_segments):
    """``values`` (shaped like the data, or like ``ids`` plus 1s) summed per segment: by ``SegmentSum`` for sorted
    ids (``num_segments`` None), else by ``UnsortedSegmentSum`` (negative ids dropped)."""
    if num_segments is None:
        return execute(SEGMENT_SUM, (values, ids))
    return execute(UNSORTED_SEGMENT_SUM, (values, ids), {"num_segments": num_segments})


def _zero(dtype):
    return constant_of(np.zeros((), dtype))


@SEGMENT_SUM.defvjp
def _segment_sum_grad(g, y, data, ids):
    return _gather(g, ids), None


@UNSORTED_SEGMENT_SUM.defvjp
def _unsorted_segment_sum_grad(g, y, data, ids, num_segments):
    return _gather(g, ids), None


@SEGMENT_MEAN.defvjp
def _segment_mean_grad(g, y, data, ids):
    # Each segment's row count, shaped to divide its rows of g: a segment sum of ones shaped like ids plus 1s.
    gv = g._value
    ones = constant_of(np.ones(ids._value.shape + (1,) * (gv.ndim - 1), gv.dtype))
    return _gather(execute(REALDIV, (g, _segment_count(ones, ids, None))), ids), None


def _min_or_max_grad(g, y, data, ids, num_segments=None):
    """The gradient of each segment split equally between the elements that attain its extreme."""
    dt = g._value.dtype
    selected = execute(EQUAL, (data, _gather(y, ids)))
    if num_segments is not None:
        # A negative id's row gathers zeros, which may equal its data: such rows are no segment's.
        shape = ids._value.shape + (1,) * (data._value.ndim - ids._value.ndim)
        positive = execute(GREATER_EQUAL, (ids, _zero(ids._value.dtype)))
        positive = execute(RESHAPE, (positive,), {"shape": shape})
        selected = execute(LOGICAL_AND, (selected, positive))
    num = _segment_count(execute(CAST, (selected,), {"dtype": dt.type}), ids, num_segments)
    shared = _gather(execute(REALDIV, (g, num)), ids)
    return execute(SELECT, (selected, shared, _zero(dt))), None


SEGMENT_MAX.defvjp(_min_or_max_grad)
SEGMENT_MIN.defvjp(_min_or_max_grad)
UNSORTED_SEGMENT_MAX.defvjp(_min_or_max_grad)
UNSORTED_SEGMENT_MIN.defvjp(_min_or_max_grad)


def _prod_grad(g, y, data, ids, num_segments=None):
    """TF's three cases per segment: no zero (the product divided by each element), one zero (only the zero
    gets the product of the others), several zeros (no gradient)."""
    dt = data._value.dtype
    is_zero = execute(EQUAL, (data, _zero(dt)))
    zeros_per_segment = _segment_count(execute(CAST, (is_zero,), {"dtype": np.int32}), ids, num_segments)
    several = execute(GREATER, (zeros_per_segment, constant_of(np.ones((), np.int32))))
    g = execute(SELECT, (several, _zero(dt), g))
    non_zero = execute(SELECT, (is_zero, constant_of(np.ones((), dt)), data))
    if num_segments is None:
        non_zero_prod = execute(SEGMENT_PROD, (non_zero, ids))
        divided = execute(REALDIV, (_gather(y, ids), non_zero))
    else:
        non_zero_prod = execute(UNSORTED_SEGMENT_PROD, (non_zero, ids), {"num_segments": num_segments})
        divided = execute(REALDIV, (_gather(y, ids), data))  # NaN at zeros, selected away below (as TF)
    partial = execute(SELECT, (is_zero, _gather(non_zero_prod, ids), divided))
    return execute(MUL, (_gather(g, ids), partial)), None


SEGMENT_PROD.defvjp(_prod_grad)
UNSORTED_SEGMENT_PROD.defvjp(_prod_grad)


# ------------------------------------------------------------------------------------------ public functions


def _num_segments(op, num_segments, native):
    if isinstance(num_segments, Tensor) or getattr(num_segments, "_tapeflow_variable", False):
        n = to_tensor(num_segments)
    else:
        n = convert_to_tensor(num_segments, dtypes.int32 if native else None)
    if n.dtype.name not in ("int32", "int64"):
        raise attr_error(op.name, "Tnumsegments", n.dtype, "")
    if n._value.ndim:
        raise errors.op_error(op.name, f"num_segments should be a scalar, not shape {errors.shape_str(n.shape)}")
    if isinstance(num_segments, Tensor) and STATE.tracer is not None:
        # A count computed while tracing becomes a number of the program: tie the trace to its input sizes.
        STATE.tracer._frozen()
    # TF's kernel keeps num_segments in 32 bits, whatever its dtype: 2**32 + 1 segments are 1 segment there.
    return wrap_int(int(n._value), 32)


def _checked(op, data, segment_ids, native, allowed_ids=("int32", "int64")):
    """``data`` and ``segment_ids`` as tensors, dtypes checked in TF's order: the data's first for tensors, the
    ids' first for Python lists (TF's slow path infers them the other way round)."""
    x, ids = to_tensor(data), to_tensor(segment_ids)
    if native and x._value.dtype.num not in op.allowed_nums:
        execute(op, (x, ids))  # the data's dtype error
    if ids.dtype.name not in allowed_ids:
        raise attr_error(op.name, "Tindices", ids.dtype, "")
    return x, ids


def _segment(op, data, segment_ids):
    native = errors.fast_path(data, segment_ids)
    try:
        return execute(op, _checked(op, data, segment_ids, native))
    except (errors.InvalidArgumentError, errors.ResourceExhaustedError) as exc:
        raise exc if native else errors.without_name(exc) from None


_UNSORTED_IDS = {"UnsortedSegmentSum": ("int16", "int32", "int64")}


def _unsorted(op, data, segment_ids, num_segments):
    native = errors.fast_path(data, segment_ids)
    try:
        x, ids = _checked(op, data, segment_ids, native, _UNSORTED_IDS.get(op.name, ("int32", "int64")))
        return execute(op, (x, ids), {"num_segments": _num_segments(op, num_segments, native)})
    except (errors.InvalidArgumentError, errors.ResourceExhaustedError) as exc:
        raise exc if native else errors.without_name(exc) from None


@export("math.segment_sum")
def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of ``data`` with equal sorted ``segment_ids``; empty segments are 0
    (``tf.math.segment_sum``)."""
    return _segment(SEGMENT_SUM, data, segment_ids)


@export("math.segment_mean")
def segment_mean(data, segment_ids, name=None):
    """Means of the rows with equal sorted ``segment_ids`` (integer means truncate); empty segments are 0
    (``tf.math.segment_mean``)."""
    return _segment(SEGMENT_MEAN, data, segment_ids)


@export("math.segment_max")
def segment_max(data, segment_ids, name=None):
    """Maxima of the rows with equal sorted ``segment_ids``; empty segments are 0, ties share the gradient
    (``tf.math.segment_max``)."""
    return _segment(SEGMENT_MAX, data, segment_ids)


@export("math.segment_min")
def segment_min(data, segment_ids, name=None):
    """Minima of the rows with equal sorted ``segment_ids``; empty segments are 0, ties share the gradient
    (``tf.math.segment_min``)."""
    return _segment(SEGMENT_MIN, data, segment_ids)


@export("math.segment_prod")
def segment_prod(data, segment_ids, name=None):
    """Products of the rows with equal sorted ``segment_ids``; empty segments are 1 (``tf.math.segment_prod``)."""
    return _segment(SEGMENT_PROD, data, segment_ids)


@export("math.unsorted_segment_sum")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums per id in ``[0, num_segments)``; ``segment_ids``' shape is a prefix of ``data``'s, negative ids are
    dropped, empty segments are 0 (``tf.math.unsorted_segment_sum``)."""
    return _unsorted(UNSORTED_SEGMENT_SUM, data, segment_ids, num_segments)


@export("math.unsorted_segment_max")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Maxima per id; empty segments hold the dtype's lowest value (``tf.math.unsorted_segment_max``)."""
    return _unsorted(UNSORTED_SEGMENT_MAX, data, segment_ids, num_segments)


@export("math.unsorted_segment_min")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Minima per id; empty segments hold the dtype's highest value (``tf.math.unsorted_segment_min``)."""
    return _unsorted(UNSORTED_SEGMENT_MIN, data, segment_ids, num_segments)


@export("math.unsorted_segment_prod")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products per id; empty segments are 1 (``tf.math.unsorted_segment_prod``)."""
    return _unsorted(UNSORTED_SEGMENT_PROD, data, segment_ids, num_segments)


def _sum_and_count(data, segment_ids, num_segments):
    """TF's composite: the segment sums and the element counts (at least 1) shaped to divide them."""
    x, ids = to_tensor(data), to_tensor(segment_ids)
    if not isinstance(num_segments, Tensor):
        num_segments = convert_to_tensor(num_segments)  # TF converts it first: a float is then refused by dtype
    counts = unsorted_segment_sum(constant_of(np.ones(ids._value.shape, x._value.dtype)), ids, num_segments)
    summed = unsorted_segment_sum(x, ids, num_segments)
    counts = execute(RESHAPE, (counts,), {"shape": counts._value.shape + (1,) * (x._value.ndim - ids._value.ndim)})
    return summed, execute(MAXIMUM, (counts, constant_of(np.ones((), x._value.dtype))))


@export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Means per id (integers divide into floats, as ``/``); empty segments are 0
    (``tf.math.unsorted_segment_mean``)."""
    summed, counts = _sum_and_count(data, segment_ids, num_segments)
    return truediv(summed, counts)


@export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Sums per id divided by the square root of the element count; float and complex data only
    (``tf.math.unsorted_segment_sqrt_n``)."""
    summed, counts = _sum_and_count(data, segment_ids, num_segments)
    return truediv(summed, execute(SQRT, (counts,)))

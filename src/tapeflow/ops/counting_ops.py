"""Counting and searching: ``tf.unique``, ``tf.unique_with_counts``, ``tf.math.bincount``, ``tf.searchsorted`` and
``tf.histogram_fixed_width``. Each is an op (so a traced function computes it from each call's values) without a
gradient, as in TensorFlow."""

from __future__ import annotations

import collections

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor
from ._convert import to_tensor

__all__ = ["unique", "unique_with_counts", "bincount", "searchsorted", "histogram_fixed_width"]

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _first_occurrences(x, out_idx):
    if np.ndim(x) != 1:
        raise errors.op_error("Unique", "unique expects a 1D vector.")
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # TF keeps the order of first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse].astype(out_idx), counts[order].astype(out_idx)


@defop("Unique", num_outputs=2, same_dtype=False)
def UNIQUE(x, out_idx):
    y, idx, _ = _first_occurrences(x, out_idx)
    return y, idx


UNIQUE.value_sized = {0: (0,)}  # (a trace leaves the sizes that follow the values unknown)


@defop("UniqueWithCounts", num_outputs=3, same_dtype=False)
def UNIQUE_WITH_COUNTS(x, out_idx):
    return _first_occurrences(x, out_idx)


UNIQUE_WITH_COUNTS.value_sized = {0: (0,), 2: (0,)}


@export("unique")
def unique(x, out_idx=_dtypes.int32, name=None):
    """The distinct values of the vector ``x`` in order of first occurrence, and for each element of ``x`` the
    index of its value among them (``tf.unique``)."""
    y, idx = execute(UNIQUE, (to_tensor(x),), {"out_idx": _dtypes.as_dtype(out_idx).as_numpy_dtype})
    return Unique(y, idx)


@export("unique_with_counts")
def unique_with_counts(x, out_idx=_dtypes.int32, name=None):
    """``tf.unique`` and how many times each distinct value occurs (``tf.unique_with_counts``)."""
    y, idx, count = execute(UNIQUE_WITH_COUNTS, (to_tensor(x),),
                            {"out_idx": _dtypes.as_dtype(out_idx).as_numpy_dtype})
    return UniqueWithCounts(y, idx, count)


@defop("DenseBincount", same_dtype=False)
def BINCOUNT(arr, weights, minlength, maxlength, binary_output, per_row, dtype):
    """Counts (or summed ``weights``) of the non-negative integers of ``arr``: of all of it, or of each row."""
    if np.size(arr) and np.min(arr) < 0:
        raise errors.op_error("DenseBincount", "Input arr must be non-negative!")
    if np.size(weights) and np.shape(weights) != np.shape(arr):
        raise errors.op_error("DenseBincount", "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in "
                              "which case it acts as all weights equal to 1. Received "
                              f"{errors.shape_str(np.shape(weights))}")
    size = int(np.max(arr)) + 1 if np.size(arr) else 0
    if minlength is not None:
        size = max(size, minlength)
    if maxlength is not None:
        size = min(size, maxlength)
    rows = np.reshape(arr, (np.shape(arr)[0], -1)) if per_row else np.reshape(arr, (1, -1))
    w = None if np.size(weights) == 0 else np.reshape(weights, rows.shape)
    out = np.zeros((rows.shape[0], size), dtype=dtype if w is None else w.dtype)
    for r in range(rows.shape[0]):
        keep = rows[r] < size
        np.add.at(out[r], rows[r][keep], 1 if w is None else w[r][keep])
    if binary_output:
        out = (out > 0).astype(out.dtype)
    return out if per_row else out[0]


BINCOUNT.value_sized = lambda attrs: {0: (1,) if attrs.get("per_row") else (0,)}


@export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dtypes.int32, name=None, axis=None,
             binary_output=False):
    """How many times each value ``0 .. max(arr)`` occurs in ``arr`` (of non-negative integers), or the sum of
    ``weights`` at its positions; at least ``minlength``, at most ``maxlength`` bins; per row of a matrix with
    ``axis=-1`` (``tf.math.bincount``)."""
    a = to_tensor(arr)
    per_row = axis is not None and axis in (-1, a.shape.rank - 1) and a.shape.rank == 2
    w = to_tensor(weights) if weights is not None else to_tensor(np.zeros([0], _dtypes.as_dtype(dtype).as_numpy_dtype))
    if axis is None:  # counts over every value: both flattened first, as TF does
        from .array_ops import reshape  # noqa: PLC0415 - array_ops imports this module's package

        a = reshape(a, [-1])
        w = reshape(w, [-1]) if w._value.size else w
    if STATE.tracer is not None and any(isinstance(b, Tensor) for b in (minlength, maxlength)):
        # A bound computed while tracing becomes a number of the program: tie the trace to its input sizes.
        STATE.tracer._frozen()
    return execute(BINCOUNT, (a, w), {"minlength": None if minlength is None else int(minlength),
                                      "maxlength": None if maxlength is None else int(maxlength),
                                      "binary_output": bool(binary_output), "per_row": per_row,
                                      "dtype": _dtypes.as_dtype(dtype).as_numpy_dtype})


def _bounds(side):
    def forward(sorted_sequence, values, out_type):
        shape = np.shape(sorted_sequence)
        nrows = int(np.prod(shape[:-1]))  # (counted, not inferred: a sequence may be empty)
        if nrows == 0:
            return np.zeros(np.shape(values), out_type)
        rows = np.reshape(sorted_sequence, (nrows, shape[-1]))
        flat = np.reshape(values, (nrows, -1)) if np.ndim(values) else np.reshape(values, (1, 1))
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, flat)]).astype(out_type)
        return out.reshape(np.shape(values))

    return forward


LOWER_BOUND = defop("LowerBound", same_dtype=False)(_bounds("left"))
UPPER_BOUND = defop("UpperBound", same_dtype=False)(_bounds("right"))


@export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=_dtypes.int32, name=None):
    """Where each of ``values`` would go in the sorted last axis of ``sorted_sequence`` to keep it sorted: before
    equal values with ``side="left"``, after them with ``"right"`` (``tf.searchsorted``)."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side}.")
    op = LOWER_BOUND if side == "left" else UPPER_BOUND
    return execute(op, (to_tensor(sorted_sequence), to_tensor(values)),
                   {"out_type": _dtypes.as_dtype(out_type).as_numpy_dtype})


@defop("HistogramFixedWidth", same_dtype=False)
def HISTOGRAM(values, value_range, nbins, dtype):
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (values outside go to the end bins)."""
    lo, hi = (np.float64(v) for v in np.ravel(value_range))
    scaled = (np.ravel(values).astype(np.float64) - lo) / (hi - lo) * nbins
    index = np.clip(np.floor(scaled), 0, nbins - 1).astype(np.int64)
    return np.bincount(index, minlength=nbins).astype(dtype)


@export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """How many ``values`` fall into each of ``nbins`` equal-width bins over ``value_range`` ``[lo, hi]``, values
    below and above counting in the first and last bins (``tf.histogram_fixed_width``)."""
    v = to_tensor(values)
    return execute(HISTOGRAM, (v, to_tensor(value_range, v.dtype)),
                   {"nbins": int(nbins), "dtype": _dtypes.as_dtype(dtype).as_numpy_dtype})

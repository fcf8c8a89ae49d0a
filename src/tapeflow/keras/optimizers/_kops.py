"""Keras 3's element-wise ops as the TensorFlow backend runs them, ``tf.IndexedSlices`` included.

Keras optimizers write their update rules with ``keras.ops``; on TensorFlow those ops keep a gradient sparse only
in some cases, and which ones decides both which rows of a variable change and how repeated indices combine
(``square`` of slices squares each row before they are added up). The rules here:

* unary zero-preserving ops (``square``, ``sqrt``, ``abs``, ``negative``): slices stay slices, row by row;
* ``multiply``: slices times a scalar or a dense tensor stay slices (the dense operand gathered at the indices);
* ``add``/``subtract``/``maximum``: slices with a dense operand are densified first (repeated rows added up);
* ``divide``: slices over a scalar stay slices; over a dense tensor they stay slices unless a divisor row holds a
  zero or a NaN, in which case those rows join the result (so ``0/0`` reaches them); a divisor in slices is
  densified.

Python numbers take the dtype of the tensor they meet (Keras's weak typing), as tapeflow's ops already do.
"""

from __future__ import annotations

import numpy as np

import tapeflow as _tf

from ..._core.indexed_slices import IndexedSlices
from ..._core.state import STATE
from ..._core.tensor import convert_to_tensor

__all__ = ["add", "subtract", "multiply", "divide", "maximum", "square", "sqrt", "abs", "negative", "cast"]


def _is_slices(x):
    return isinstance(x, IndexedSlices)


def _dense(x):
    return convert_to_tensor(x) if _is_slices(x) else x


def _is_scalar(x):
    shape = getattr(x, "shape", None)
    return shape is None or len(shape) == 0


def _rows(x, indices):
    """``x`` (scalar or dense) at the slices' rows."""
    return x if _is_scalar(x) else _tf.gather(x, indices)


def _unary(name):
    def op(x):
        fn = getattr(_tf.math, name)  # looked up late: tapeflow may still be importing
        if _is_slices(x):
            return IndexedSlices(fn(x.values), x.indices, x.dense_shape)
        return fn(x)
    op.__name__ = name
    op.__doc__ = f"``{name}``, row by row on ``IndexedSlices``."
    return op


square = _unary("square")
sqrt = _unary("sqrt")
abs = _unary("abs")  # noqa: A001 - Keras's name
negative = _unary("negative")


def cast(x, dtype):
    """``tf.cast``, which casts the values of ``IndexedSlices``."""
    if _is_slices(x):
        return IndexedSlices(_tf.cast(x.values, dtype), x.indices, x.dense_shape)
    return _tf.cast(x, dtype)


def _union(name):
    def op(x1, x2):
        fn = getattr(_tf.math, name)
        if _is_slices(x1) and _is_slices(x2) and x1.indices is x2.indices:
            return IndexedSlices(fn(x1.values, x2.values), x1.indices, x1.dense_shape)
        # No optimizer combines slices over different indices; densifying both gives the same values.
        return fn(_dense(x1), _dense(x2))
    op.__name__ = name
    op.__doc__ = f"``{name}``; ``IndexedSlices`` are densified unless both share their indices."
    return op


add = _union("add")
subtract = _union("subtract")
maximum = _union("maximum")


def multiply(x1, x2):
    """``multiply``: ``IndexedSlices`` times a scalar or a dense tensor stay ``IndexedSlices``."""
    if _is_slices(x1):
        if _is_slices(x2):
            if x1.indices is x2.indices:
                return IndexedSlices(_tf.math.multiply(x1.values, x2.values), x1.indices, x1.dense_shape)
            return _tf.math.multiply(_dense(x1), _dense(x2))
        return IndexedSlices(_tf.math.multiply(x1.values, _rows(x2, x1.indices)), x1.indices, x1.dense_shape)
    if _is_slices(x2):
        return IndexedSlices(_tf.math.multiply(_rows(x1, x2.indices), x2.values), x2.indices, x2.dense_shape)
    return _tf.math.multiply(x1, x2)


def divide(x1, x2):
    """``divide``: ``IndexedSlices`` over a dense divisor stay sparse, widened to the divisor's zero/NaN rows."""
    if _is_slices(x2):
        return _tf.math.divide(_dense(x1), _dense(x2))
    if not _is_slices(x1):
        return _tf.math.divide(x1, x2)
    if _is_scalar(x2):
        return IndexedSlices(_tf.math.divide(x1.values, x2), x1.indices, x1.dense_shape)
    x2 = convert_to_tensor(x2)
    if STATE.tracer is not None:
        return _divide_traced(x1, x2)
    bad = x2.numpy()
    bad = (bad == 0) | np.isnan(bad)
    bad_rows = bad.reshape(bad.shape[0], -1).any(axis=1) if bad.ndim > 1 else bad
    if not bad_rows.any():
        return IndexedSlices(_tf.math.divide(x1.values, _tf.gather(x2, x1.indices)), x1.indices, x1.dense_shape)
    indices = np.asarray(convert_to_tensor(x1.indices).numpy())
    dim_0 = bad_rows.shape[0]
    present = np.zeros(dim_0, bool)
    present[indices] = True
    union = np.flatnonzero(present | bad_rows)
    values = x1.values
    if union.size != indices.size:
        # Each union row takes the slice value at its index (rows only in the divisor get zeros).
        position = np.zeros(dim_0, np.int64)
        np.add.at(position, indices, np.arange(1, indices.size + 1))
        padded = _tf.concat([_tf.zeros_like(values[0:1]), values], axis=0)
        values = _tf.gather(padded, position[union])
    union = _tf.constant(union.astype(indices.dtype))
    return IndexedSlices(_tf.math.divide(values, _tf.gather(x2, union)), union, x1.dense_shape)


def _divide_traced(x1, x2):
    """:func:`divide` of slices by a dense divisor inside a traced function: Keras's ``tf.cond`` between the
    slices' own rows and (where the divisor has a zero or NaN row) the union of rows, written with ops."""
    bad = _tf.math.equal(x2, 0)
    if not x2.dtype.is_integer:
        bad = _tf.math.logical_or(bad, _tf.math.is_nan(x2))
    if x2.shape.rank > 1:
        bad = _tf.reduce_any(bad, axis=tuple(range(1, x2.shape.rank)))
    indices = x1.indices

    def own_rows():
        return _tf.math.divide(x1.values, _tf.gather(x2, indices)), indices

    def union_rows():
        dim_0 = [x2.shape[0]] if x2.shape[0] is not None else _tf.shape(x2, out_type=indices.dtype)[0:1]
        count = _tf.size(indices, out_type=indices.dtype)
        present = _tf.scatter_nd(indices[:, None], _tf.ones_like(indices), dim_0) > 0
        union = _tf.cast(_tf.reshape(_tf.where(_tf.math.logical_or(present, bad)), [-1]), indices.dtype)
        position = _tf.scatter_nd(indices[:, None], _tf.range(1, count + 1, dtype=indices.dtype), dim_0)
        padded = _tf.concat([_tf.zeros_like(x1.values[0:1]), x1.values], axis=0)
        values = _tf.gather(padded, _tf.gather(position, union))
        return _tf.math.divide(values, _tf.gather(x2, union)), union

    values, rows = _tf.cond(_tf.reduce_any(bad), union_rows, own_rows)
    return IndexedSlices(values, rows, x1.dense_shape)

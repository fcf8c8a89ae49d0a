"""Op database entries for the ops that read a shape from a tensor when the program runs (``BroadcastLike``,
``SumLike``, ``ReshapeLike``, ``ExpandDimsAt``, ``SqueezeAt``, ``MeanGradLike``, ``StridedSliceGradLike``,
``BooleanMaskGradLike``, ``FillToTensor``) and the traced scatters into a variable (``ResourceScatter*``).

Gradient rules emit them in a traced loop body whose tensors change shape; here they run directly, the tensor whose
shape they read made of zeros (it is never differentiated). The linear ones also have ``squared`` samples, as in
``manip.py``, so that their second-order test differentiates their rules' ops.
"""

from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow.ops.array_ops import BOOLEAN_MASK_GRAD_LIKE, BROADCAST_TO_TENSOR, FILL_TO, RANGE, STRIDED_SLICE_GRAD_LIKE
from tapeflow.ops.reduction_ops import MEAN_GRAD_LIKE
from tapeflow.ops.scatter_ops import SCATTER_ROWS
from tapeflow.ops.shape_like_ops import BROADCAST_LIKE, EXPAND_DIMS_AT, RESHAPE_LIKE, SQUEEZE_AT, SUM_LIKE
from tapeflow.ops.tensor_array import TA_ZEROS_LIKE

from .common import *  # noqa: F403
from .foundation import _mean_grad_ref, _reduced_shape, _sliced_shape
from .manip import sq


def _like(shape):
    return tf.zeros(shape, tf.int32)  # only its shape is read: any dtype


def _samples(name, cases):
    return [make_sample(name, n, (uniform(),), (shape,), kwargs=kw) for n, shape, kw in cases]


op("BroadcastLike", sq(lambda x, shape: execute(BROADCAST_LIKE, (x, _like(shape)))),
   sq(lambda x, shape: np.broadcast_to(x, shape).copy()), _samples("BroadcastLike", [
       ("rows", (1, 3), {"shape": (2, 3)}), ("leading", (3,), {"shape": (2, 3)}),
       ("squared", (2, 1), {"shape": (2, 3), "sq": True})]), True,
   note="a gradient broadcast back to a shape a traced loop body reads when it runs")
op("SumLike", sq(lambda x, shape: execute(SUM_LIKE, (x, _like(shape)))),
   sq(lambda x, shape: np.sum(x, axis=tuple(i for i in range(x.ndim - len(shape)))).sum(
       axis=tuple(i for i, d in enumerate(shape) if d == 1), keepdims=True).reshape(shape)),
   _samples("SumLike", [("leading", (2, 3), {"shape": (3,)}), ("ones", (2, 3), {"shape": (2, 1)}),
                        ("squared", (4, 2, 3), {"shape": (1, 3), "sq": True})]), True,
   note="a gradient summed down to an input's shape that a traced loop body reads when it runs")
op("ReshapeLike", sq(lambda x, shape: execute(RESHAPE_LIKE, (x, _like(shape)))),
   sq(lambda x, shape: x.reshape(shape)), _samples("ReshapeLike", [
       ("flat", (2, 3), {"shape": (6,)}), ("squared", (6,), {"shape": (3, 2), "sq": True})]), True)
op("ExpandDimsAt", sq(lambda x, axis: execute(EXPAND_DIMS_AT, (x,), {"axis": axis})),
   sq(lambda x, axis: np.expand_dims(x, axis)), _samples("ExpandDimsAt", [
       ("first", (2, 3), {"axis": 0}), ("last", (2, 3), {"axis": 2}),
       ("squared", (2, 3), {"axis": 1, "sq": True})]), True,
   note="tf.expand_dims in a traced loop body whose tensors change shape")
op("SqueezeAt", sq(lambda x, axis: execute(SQUEEZE_AT, (x,), {"axis": axis})),
   sq(lambda x, axis: np.squeeze(x, axis)), _samples("SqueezeAt", [
       ("one", (2, 1, 3), {"axis": (1,)}), ("squared", (1, 3, 1), {"axis": (0, 2), "sq": True})]), True,
   note="tf.squeeze in a traced loop body whose tensors change shape")

_MEAN_CASES = (("all", (2, 3), None, False), ("axis0", (2, 3), (0,), False), ("keepdims", (2, 3), (1,), True))
op("MeanGradLike",
   lambda u, shape, axis, keepdims: execute(MEAN_GRAD_LIKE, (u, _like(shape)), {"axis": axis, "keepdims": keepdims}),
   _mean_grad_ref,
   [make_sample("MeanGradLike", n, (uniform(),), (_reduced_shape(shape, axis, keepdims),),
                kwargs={"shape": shape, "axis": axis, "keepdims": keepdims})
    for n, shape, axis, keepdims in _MEAN_CASES],
   True, note="a mean's gradient spread over a shape a traced loop body reads when it runs")

_KEYS = (("rows_reversed", (2, 3), (slice(1, None), slice(None, None, -1))), ("int_index", (2, 3), (0,)))
op("StridedSliceGradLike",
   lambda u, shape, key: execute(STRIDED_SLICE_GRAD_LIKE, (u, _like(shape)), {"index": key}),
   lambda u, shape, key: np_scatter(u, shape, key),
   [make_sample("StridedSliceGradLike", n, (uniform(),), (_sliced_shape(shape, key),),
                kwargs={"shape": shape, "key": key}) for n, shape, key in _KEYS], True)
_MASKS = (("row_mask", (3, 2), (3,)),)
op("BooleanMaskGradLike",
   lambda u, shape, mask_shape: execute(BOOLEAN_MASK_GRAD_LIKE, (u, tf.constant(mask(mask_shape)), _like(shape)),
                                        {"axis": 0}),
   lambda u, shape, mask_shape: np_scatter(u, shape, mask(mask_shape)),
   [make_sample("BooleanMaskGradLike", n, (uniform(),), (_sliced_shape(shape, mask(m)),),
                kwargs={"shape": shape, "mask_shape": m}) for n, shape, m in _MASKS], True)
op("FillToTensor", sq(lambda x, dims: execute(FILL_TO, (tf.constant(np.array(dims, np.int32)), x))),
   sq(lambda x, dims: np.full(dims, x, dtype=x.dtype)), [
       make_sample("FillToTensor", "matrix", (uniform(),), ((),), kwargs={"dims": (2, 3)}),
       make_sample("FillToTensor", "squared", (uniform(),), ((),), kwargs={"dims": (3,), "sq": True})], True,
   note="tf.fill/zeros/ones to a shape a traced program computes")


_UFUNCS = {"add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum, "mul": np.multiply,
           "div": np.divide, "update": None}


def _scatter_ref(params, updates, indices, kind):
    out = params.copy()
    if _UFUNCS[kind] is None:
        out[np.array(indices)] = updates
    else:
        _UFUNCS[kind].at(out, np.array(indices), updates)
    return out


for _kind, _op in SCATTER_ROWS.items():
    op(_op.name, lambda params, updates, indices, kind: execute(
        SCATTER_ROWS[kind], (params, tf.constant(np.array(indices, np.int32)), updates)), _scatter_ref,
       [make_sample(_op.name, "repeated" if _kind not in ("update",) else "rows", (uniform(), uniform(0.5, 2)),
                    ((3, 2), (3 if _kind != "update" else 2, 2)),
                    kwargs={"indices": [0, 2, 0] if _kind != "update" else [2, 0], "kind": _kind})],
       False, note="a variable's scatter inside a traced function (the new value, then assigned)")
op("BroadcastToTensor",
   sq(lambda x, shape: execute(BROADCAST_TO_TENSOR, (x, tf.constant(np.array(shape, np.int32))))),
   sq(lambda x, shape: np.broadcast_to(x, shape).copy()), _samples("BroadcastToTensor", [
       ("rows", (1, 3), {"shape": (2, 3)})]), True)
op("Range", lambda x, start, delta: execute(RANGE, (tf.constant(start, x.dtype), x, tf.constant(delta, x.dtype)),
                                            {"dtype": x.dtype.as_numpy_dtype}),
   lambda x, start, delta: np.arange(start, x[()], delta, dtype=x.dtype), [
       make_sample("Range", "up", (uniform(3, 4),), ((),), kwargs={"start": 0.5, "delta": 0.75}),
       make_sample("Range", "down", (uniform(-4, -3),), ((),), kwargs={"start": 1.0, "delta": -1.5})], False,
   note="tf.range with bounds a traced program computes (a constant everywhere else)")
op("TensorArrayZerosLike", lambda x, size: execute(TA_ZEROS_LIKE, (tf.constant(size), x)),
   lambda x, size: np.zeros((size,) + x.shape, x.dtype), [
       make_sample("TensorArrayZerosLike", "rows", (uniform(),), ((2, 3),), kwargs={"size": 3})], False,
   note="a traced TensorArray's first buffer when its elements' shape varies between runs")


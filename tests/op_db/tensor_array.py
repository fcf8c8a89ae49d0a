"""The buffer ops of a traced ``tf.TensorArray``: a write (growing or not), its two adjoint row maps, and the zero
buffer of a size known at run time."""
from __future__ import annotations

import numpy as np

import tapeflow as tf
from tapeflow._core.dispatch import execute
from tapeflow.ops.tensor_array import TA_REWRITE, TA_UNWRITE, TA_WRITE, TA_ZEROS

from .common import *  # noqa: F403


def _write(buffer, value, index, grow=False):
    return execute(TA_WRITE, (buffer, tf.constant(index), value), {"grow": grow})


def _write_ref(buffer, value, index, grow=False):
    out = np.zeros((max(buffer.shape[0], index + 1),) + buffer.shape[1:], buffer.dtype)
    out[:buffer.shape[0]] = buffer
    out[index] = value
    return out


op("TensorArrayWrite", _write, _write_ref, [
    make_sample("TensorArrayWrite", "middle_row", (uniform(), uniform()), ((3, 2), (2,)), kwargs={"index": 1}),
    make_sample("TensorArrayWrite", "grown", (uniform(), uniform()), ((2, 2), (2,)),
                kwargs={"index": 3, "grow": True}),
    make_sample("TensorArrayWrite", "scalars", (uniform(), uniform()), ((4,), ()), kwargs={"index": 0}),
], True)


def _unwrite(x, rows, index):
    return execute(TA_UNWRITE, (x, tf.zeros([rows, *x.shape[1:]], x.dtype), tf.constant(index)))


def _unwrite_ref(x, rows, index):
    out = x[:rows].copy()
    if index < rows:
        out[index] = 0
    return out


op("TensorArrayUnwrite", _unwrite, _unwrite_ref, [
    make_sample("TensorArrayUnwrite", "truncated", (uniform(),), ((4, 2),), kwargs={"rows": 3, "index": 1}),
    make_sample("TensorArrayUnwrite", "same_rows", (uniform(),), ((3,),), kwargs={"rows": 3, "index": 2}),
    make_sample("TensorArrayUnwrite", "grown_row", (uniform(),), ((4, 2),), kwargs={"rows": 2, "index": 3}),
], True)


def _rewrite(x, rows, index):
    return execute(TA_REWRITE, (x, tf.zeros([rows, *x.shape[1:]], x.dtype), tf.constant(index)))


def _rewrite_ref(x, rows, index):
    out = np.zeros((rows,) + x.shape[1:], x.dtype)
    out[:x.shape[0]] = x
    if index < rows:
        out[index] = 0
    return out


op("TensorArrayRewrite", _rewrite, _rewrite_ref, [
    make_sample("TensorArrayRewrite", "padded", (uniform(),), ((2, 2),), kwargs={"rows": 4, "index": 1}),
    make_sample("TensorArrayRewrite", "same_rows", (uniform(),), ((3,),), kwargs={"rows": 3, "index": 0}),
], True)


def _zeros(x, size):
    return execute(TA_ZEROS, (tf.constant(size),), {"element_shape": tuple(x.shape), "dtype": x.dtype.as_numpy_dtype})


op("TensorArrayZeros", _zeros, lambda x, size: np.zeros((size,) + x.shape, x.dtype), [
    make_sample("TensorArrayZeros", "rows", (uniform(),), ((2,),), kwargs={"size": 3}),
    make_sample("TensorArrayZeros", "empty", (uniform(),), ((2, 2),), kwargs={"size": 0}),
], False, note="the input only gives the element shape and dtype: no gradient flows to it")

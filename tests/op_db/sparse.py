"""Op database entries for the sparse ops: ``SparseToDense`` (gradients to the values and the default value),
``SparsePermute`` (values put in a new order, with a dense gradient), the index work of the rest of ``tf.sparse``,
``SparseReorderPermutation`` and ``SparseIndexUnion`` (index work, no gradient), and ``ParseExampleVarLen`` (a
``tf.io.VarLenFeature``, no gradient)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
import tapeflow.io  # noqa: F401 - registers the tf.io ops (tf.io loads on first use)
from tapeflow._core.dispatch import execute
from tapeflow.ops.sparse_ops import SPARSE_INDEX_UNION, SPARSE_PERMUTE, SPARSE_REORDER_PERMUTATION

from .common import *  # noqa: F403

_INDICES = [[0, 1], [1, 0], [2, 1]]


def _to_dense(values, default):
    return tf.sparse.to_dense(tf.SparseTensor(_INDICES, values, [3, 2]), default_value=default)


def _to_dense_ref(values, default):
    out = np.full((3, 2), default, values.dtype)
    for (i, j), v in zip(_INDICES, values):
        out[i, j] = v
    return out


op("SparseToDense", lambda v, d: _to_dense(v, d) ** 2, lambda v, d: _to_dense_ref(v, d) ** 2,
   [make_sample("SparseToDense", "matrix", (uniform(), uniform()), ((3,), ()))], True,
   note="tf.sparse.to_dense (squared, so that the second-order test differentiates its rule's ops)")
def _rows(x):
    return tf.cast(tf.reshape(tf.round(x * 10.0), [-1, 1]), tf.int64)


def _np_rows(x):
    return np.round(x * 10.0).astype(np.int64).reshape(-1, 1)


op("SparseReorderPermutation", lambda x: execute(SPARSE_REORDER_PERMUTATION, (_rows(x),)),
   lambda x: np.lexsort(_np_rows(x).T[::-1]).astype(np.int64),
   [make_sample("SparseReorderPermutation", "vector", (uniform(),), ((5,),))], False,
   note="tf.sparse.reorder's order of the entries (rows made from the sample)")
op("SparseIndexUnion", lambda x: execute(SPARSE_INDEX_UNION, (_rows(x), tf.constant([[3], [7]], tf.int64))),
   lambda x: np.unique(np.concatenate([_np_rows(x), [[3], [7]]]), axis=0).astype(np.int64),
   [make_sample("SparseIndexUnion", "vector", (uniform(),), ((4,),))], False,
   note="the entries of both operands of tf.sparse.add (rows made from the sample)")


def _var_len(x):
    T = tf.train
    record = T.Example(features=T.Features(feature={"v": T.Feature(float_list=T.FloatList(
        value=np.asarray(x, np.float32).tolist()))})).SerializeToString()
    return tf.cast(tf.io.parse_single_example(record, {"v": tf.io.VarLenFeature(tf.float32)})["v"].values, x.dtype)


op("ParseExampleVarLen", _var_len, lambda x: x.astype(np.float32).astype(x.dtype),
   [make_sample("ParseExampleVarLen", "vector", (uniform(),), ((4,),))], False,
   note="a tf.io.VarLenFeature of serialized tf.train.Example records (its values)")


_PERM = [2, 0, 4, 1, 3]
op("SparsePermute", lambda x: execute(SPARSE_PERMUTE, (x, tf.constant(_PERM, tf.int64))) ** 2,
   lambda x: x[_PERM] ** 2, [make_sample("SparsePermute", "vector", (uniform(),), ((5,),))], True,
   note="a sparse tensor's values put in a new order (squared, so that the second-order test differentiates the "
        "rule's ops); its gradient is dense")
op("InvertPermutation", lambda x: tf.math.invert_permutation(tf.argsort(x)),
   lambda x: np.argsort(np.argsort(x, kind="stable")).astype(np.int32),
   [make_sample("InvertPermutation", "vector", (uniform(),), ((5,),))], False,
   note="tf.math.invert_permutation (of the sample's argsort)")
op("SparseReshape", lambda x: tf.sparse.reshape(tf.SparseTensor(_rows(x)[:, :1] * 0 + [[0, 1], [1, 0], [2, 1]],
                                                                 x, [3, 2]), [2, 3]).indices,
   lambda x: np.array([[0, 1], [0, 2], [1, 2]], np.int64),
   [make_sample("SparseReshape", "vector", (uniform(),), ((3,),))], False,
   note="tf.sparse.reshape's new indices")
op("SparseSliceMask", lambda x: tf.sparse.slice(tf.SparseTensor(_INDICES, x, [3, 2]), [1, 0], [2, 2]).indices,
   lambda x: np.array([[0, 0], [1, 1]], np.int64),
   [make_sample("SparseSliceMask", "vector", (uniform(),), ((3,),))], False,
   note="tf.sparse.slice's indices (its values are taken by a boolean mask, differentiable on its own)")
op("SparseFillEmptyRows",
   lambda x: tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], x, [4, 2]), -1.0)[0].indices,
   lambda x: np.array([[0, 1], [1, 0], [2, 0], [3, 0]], np.int64),
   [make_sample("SparseFillEmptyRows", "vector", (uniform(),), ((2,),))], False,
   note="tf.sparse.fill_empty_rows's indices (the values move by SparsePermute)")
op("SparseToIndicator",
   lambda x: tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.cast(_rows(x)[:, 0] % 4, tf.int64),
                                                    [2, 2]), 4),
   lambda x: _indicator(_np_rows(x)[:, 0] % 4),
   [make_sample("SparseToIndicator", "vector", (uniform(),), ((3,),))], False,
   note="tf.sparse.to_indicator of values made from the sample")


def _indicator(values):
    out = np.zeros((2, 4), bool)
    for (row, _), v in zip([[0, 0], [0, 1], [1, 0]], values):
        out[row, v] = True
    return out


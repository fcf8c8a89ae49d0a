"""Op database entries for the sparse ops: ``SparseToDense`` (gradients to the values and the default value),
``SparseReorderPermutation`` and ``SparseIndexUnion`` (index work, no gradient), and ``ParseExampleVarLen`` (a
``tf.io.VarLenFeature``, no gradient)."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
import tapeflow.io  # noqa: F401 - registers the tf.io ops (tf.io loads on first use)
from tapeflow._core.dispatch import execute
from tapeflow.ops.sparse_ops import SPARSE_INDEX_UNION, SPARSE_REORDER_PERMUTATION

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

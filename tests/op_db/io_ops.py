"""Op database entries for the ``tf.io`` ops: ``ParseExampleV2`` (one feature of serialized ``tf.train.Example``
records: a sample is written into an Example as a FloatList and parsed back) and ``SerializeTensor`` and
``ParseTensor`` (a sample to TensorProto bytes and back). No gradient flows through a serialized string."""

from __future__ import annotations

import numpy as np

import tapeflow as tf
import tapeflow.io  # noqa: F401 - registers the tf.io ops (tf.io loads on first use)

from .common import *  # noqa: F403


def _parse_through_example(x):
    """``x`` written into a serialized ``tf.train.Example`` as a FloatList, then parsed back (float32)."""
    T = tf.train
    record = T.Example(features=T.Features(feature={"v": T.Feature(float_list=T.FloatList(
        value=np.asarray(x, np.float32).ravel().tolist()))})).SerializeToString()
    parsed = tf.io.parse_single_example(record, {"v": tf.io.FixedLenFeature(list(x.shape), tf.float32)})["v"]
    return tf.cast(parsed, x.dtype)


op("ParseExampleV2", _parse_through_example, lambda x: x.astype(np.float32).astype(x.dtype),
   [make_sample("ParseExampleV2", "matrix", (uniform(),), ((2, 3),))], False,
   note="one feature of serialized tf.train.Example records (tf.io.parse_single_example, parse_example)")
op("SerializeTensor", lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), x.dtype), lambda x: x.copy(),
   [make_sample("SerializeTensor", "matrix", (uniform(),), ((2, 3),))], False,
   note="a tensor as TensorProto bytes (checked by parsing them back)")
op("ParseTensor", lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), x.dtype), lambda x: x.copy(),
   [make_sample("ParseTensor", "vector", (uniform(),), ((4,),))], False,
   note="a tensor from TensorProto bytes (made by serialize_tensor)")


def _ragged_records(x):
    T = tf.train
    values = np.asarray(x, np.float32).tolist()
    half = len(values) // 2
    return [T.Example(features=T.Features(feature={
        "v": T.Feature(float_list=T.FloatList(value=part)),
        "l": T.Feature(int64_list=T.Int64List(value=[len(part) - 1, 1] if part else []))})).SerializeToString()
        for part in (values[:half], values[half:])]


def _ragged_parsed(x):
    spec = {"r": tf.io.RaggedFeature(tf.float32, value_key="v", partitions=[tf.io.RaggedFeature.RowLengths("l")])}
    r = tf.io.parse_example(_ragged_records(x), spec)["r"]
    return [tf.cast(r.flat_values, x.dtype)] + [tf.cast(s, tf.int64) for s in r.nested_row_splits]


def _ragged_ref(x):
    values = x.astype(np.float32).astype(x.dtype)
    half = len(values) // 2
    parts = [values[:half], values[half:]]
    tops = np.array([0, 2, 4], np.int64)
    lengths = [n for p in parts for n in ([len(p) - 1, 1] if len(p) else [])]
    return [values, tops, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)]


op("ParseExampleRaggedValues", lambda x: _ragged_parsed(x)[0], lambda x: _ragged_ref(x)[0],
   [make_sample("ParseExampleRaggedValues", "vector", (uniform(),), ((6,),))], False,
   note="a tf.io.RaggedFeature of serialized tf.train.Example records (its flat values)")
op("ParseExampleRaggedLengths", lambda x: _ragged_parsed(x)[1:], lambda x: _ragged_ref(x)[1:],
   [make_sample("ParseExampleRaggedLengths", "vector", (uniform(),), ((6,),))], False,
   note="a tf.io.RaggedFeature of serialized tf.train.Example records (its row splits)")

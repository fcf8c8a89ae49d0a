"""``tf.io.serialize_tensor`` and ``tf.io.parse_tensor``: a tensor as TensorFlow's ``TensorProto`` bytes, made by
the ``protobuf`` package (the ``tfrecord`` extra) from the message's schema, declared here with TF's names and
field numbers. Numbers travel as raw little-endian bytes (``tensor_content``), strings one by one
(``string_val``), as TF writes them; TF's other value fields are read too. Both are ops, so that a traced function
serializes and parses each call's tensors."""

from __future__ import annotations

import base64

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.extras import require
from .._core.registry import defop
from .._core.tensor import convert_to_tensor

__all__ = ["serialize_tensor", "parse_tensor"]

# TF's DataType numbers (types.proto).
_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "complex64": 8,
         "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17, "complex128": 18, "float16": 19, "uint32": 22,
         "uint64": 23}
_NAMES = {v: k for k, v in _ENUM.items()}
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
_CLASS = []

_OPTIONAL, _REPEATED = 1, 3
_INT32, _INT64, _BOOL, _BYTES, _FLOAT, _DOUBLE, _STRING, _MESSAGE = 5, 3, 8, 12, 2, 1, 9, 11
_SCHEMA = [
    ("TensorShapeProto", [("dim", 2, _REPEATED, _MESSAGE, ".tensorflow.TensorShapeProto.Dim"),
                          ("unknown_rank", 3, _OPTIONAL, _BOOL, None)]),
    ("TensorProto", [("dtype", 1, _OPTIONAL, _INT32, None),
                     ("tensor_shape", 2, _OPTIONAL, _MESSAGE, ".tensorflow.TensorShapeProto"),
                     ("version_number", 3, _OPTIONAL, _INT32, None), ("tensor_content", 4, _OPTIONAL, _BYTES, None),
                     ("float_val", 5, _REPEATED, _FLOAT, None), ("double_val", 6, _REPEATED, _DOUBLE, None),
                     ("int_val", 7, _REPEATED, _INT32, None), ("string_val", 8, _REPEATED, _BYTES, None),
                     ("int64_val", 10, _REPEATED, _INT64, None), ("bool_val", 11, _REPEATED, _BOOL, None)]),
]


def _tensor_proto():
    if not _CLASS:
        require("google.protobuf", "tf.io.serialize_tensor and parse_tensor")
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415

        fd = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/framework/tensor.proto", package="tensorflow",
                                                syntax="proto3")
        for message, fields in _SCHEMA:
            mt = fd.message_type.add(name=message)
            for field, number, label, kind, type_name in fields:
                f = mt.field.add(name=field, number=number, label=label, type=kind, json_name=field)
                if type_name:
                    f.type_name = type_name
            if message == "TensorShapeProto":
                dim = mt.nested_type.add(name="Dim")
                dim.field.add(name="size", number=1, label=_OPTIONAL, type=_INT64, json_name="size")
                dim.field.add(name="name", number=2, label=_OPTIONAL, type=_STRING, json_name="name")
        pool = descriptor_pool.DescriptorPool()
        pool.Add(fd)
        _CLASS.append(message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.TensorProto")))
    return _CLASS[0]


def _serialize_forward(x):
    x = np.asarray(x)
    name = "string" if x.dtype == object else np.dtype(x.dtype).name
    if name not in _ENUM:
        raise errors.op_error("SerializeTensor", f"Unsupported dtype {name}")
    proto = _tensor_proto()(dtype=_ENUM[name])
    proto.tensor_shape.SetInParent()  # (TF writes the shape even for a scalar: an empty message)
    for d in x.shape:
        proto.tensor_shape.dim.add(size=d)
    if name == "string":
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in x.ravel())
    else:
        proto.tensor_content = np.ascontiguousarray(x).astype(x.dtype.newbyteorder("<")).tobytes()
    out = np.empty((), dtype=object)  # a string scalar: a 0-d object array holding the bytes
    out[()] = proto.SerializeToString()
    return out


SERIALIZE_TENSOR = defop("SerializeTensor", same_dtype=False)(_serialize_forward)


def _parse_forward(serialized, out_type):
    data = np.asarray(serialized, object)[()]
    proto = _tensor_proto()()
    try:
        proto.ParseFromString(data)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.op_error("ParseTensor", "Could not parse `serialized` as TensorProto, base64: "
                              f"{base64.b64encode(data).decode()}", name=None) from None
    name = _NAMES.get(proto.dtype, f"type {proto.dtype}")
    if name != out_type:
        raise errors.op_error("ParseTensor", f"Type mismatch between parsed tensor ({_TF_NAMES.get(name, name)}) "
                              f"and dtype ({_TF_NAMES.get(out_type, out_type)})")
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    if name == "string":
        values = np.empty(len(proto.string_val), dtype=object)
        values[:] = list(proto.string_val)
    elif proto.tensor_content:
        values = np.frombuffer(proto.tensor_content, dtype=np.dtype(name).newbyteorder("<")).astype(name)
    else:
        field = {"float32": "float_val", "float64": "double_val", "int64": "int64_val", "bool": "bool_val"}.get(
            name, "int_val")
        values = np.asarray(list(getattr(proto, field)), dtype=name)
    n = int(np.prod(shape))
    if values.size == 1 and n != 1:
        values = np.broadcast_to(values, (n,))  # (TF's one-value form: every element that value)
    out = values.reshape(shape)
    if name == "string":
        return out
    return out[()] if out.ndim == 0 else out.copy()


PARSE_TENSOR = defop("ParseTensor", same_dtype=False)(_parse_forward)


def serialize_tensor(tensor, name=None):
    """``tensor`` as the bytes of a ``TensorProto`` (a string scalar) (``tf.io.serialize_tensor``)."""
    return execute(SERIALIZE_TENSOR, (convert_to_tensor(tensor),))


def parse_tensor(serialized, out_type, name=None):
    """The tensor of ``out_type`` that ``serialized`` (``TensorProto`` bytes) holds (``tf.io.parse_tensor``)."""
    out_type = _dtypes.as_dtype(out_type)
    return execute(PARSE_TENSOR, (convert_to_tensor(serialized, dtype=_dtypes.string),), {"out_type": out_type.name})

"""``tf.train.Example`` and its parts: TensorFlow's protocol buffer messages (``tensorflow.Example``,
``tensorflow.Features``, ``tensorflow.Feature``, ``tensorflow.BytesList`` ...), made by the ``protobuf`` package
(the ``tfrecord`` extra) from their schema, declared here with TF's names and field numbers, so that they
serialize, parse and print as TF's do (text format included).
"""

from __future__ import annotations

from .._core.extras import require

__all__ = ["message_classes", "NAMES"]

NAMES = ("BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList", "FeatureLists", "Example",
         "SequenceExample")

_CLASSES = {}

# (message, [(field, number, label, type, type name)], oneof of the fields that have one, map entries)
_REPEATED, _OPTIONAL = 3, 1
_BYTES, _FLOAT, _INT64, _STRING, _MESSAGE = 12, 2, 3, 9, 11
_FEATURE_PROTO = [
    ("BytesList", [("value", 1, _REPEATED, _BYTES, None)]),
    ("FloatList", [("value", 1, _REPEATED, _FLOAT, None)]),
    ("Int64List", [("value", 1, _REPEATED, _INT64, None)]),
    ("Feature", [("bytes_list", 1, _OPTIONAL, _MESSAGE, ".tensorflow.BytesList"),
                 ("float_list", 2, _OPTIONAL, _MESSAGE, ".tensorflow.FloatList"),
                 ("int64_list", 3, _OPTIONAL, _MESSAGE, ".tensorflow.Int64List")]),
    ("Features", [("feature", 1, _REPEATED, _MESSAGE, ".tensorflow.Features.FeatureEntry")]),
    ("FeatureList", [("feature", 1, _REPEATED, _MESSAGE, ".tensorflow.Feature")]),
    ("FeatureLists", [("feature_list", 1, _REPEATED, _MESSAGE, ".tensorflow.FeatureLists.FeatureListEntry")]),
]
_EXAMPLE_PROTO = [
    ("Example", [("features", 1, _OPTIONAL, _MESSAGE, ".tensorflow.Features")]),
    ("SequenceExample", [("context", 1, _OPTIONAL, _MESSAGE, ".tensorflow.Features"),
                         ("feature_lists", 2, _OPTIONAL, _MESSAGE, ".tensorflow.FeatureLists")]),
]
_MAPS = {"Features": ("FeatureEntry", ".tensorflow.Feature"),
         "FeatureLists": ("FeatureListEntry", ".tensorflow.FeatureList")}


def _file(descriptor_pb2, name, messages, dependencies=()):
    fd = descriptor_pb2.FileDescriptorProto(name=name, package="tensorflow", syntax="proto3")
    fd.dependency.extend(dependencies)
    for message, fields in messages:
        mt = fd.message_type.add(name=message)
        if message == "Feature":
            mt.oneof_decl.add(name="kind")
        for field, number, label, kind, type_name in fields:
            f = mt.field.add(name=field, number=number, label=label, type=kind, json_name=field)
            if type_name:
                f.type_name = type_name
            if message == "Feature":
                f.oneof_index = 0
            if kind in (_FLOAT, _INT64):
                f.options.packed = True
        if message in _MAPS:
            entry, value_type = _MAPS[message]
            nested = mt.nested_type.add(name=entry)
            nested.options.map_entry = True
            nested.field.add(name="key", number=1, label=_OPTIONAL, type=_STRING, json_name="key")
            nested.field.add(name="value", number=2, label=_OPTIONAL, type=_MESSAGE, type_name=value_type,
                             json_name="value")
    return fd


def message_classes():
    """The message classes by name (``"Example"`` ...), made on first use."""
    if not _CLASSES:
        require("google.protobuf", "tf.train.Example")
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415

        pool = descriptor_pool.DescriptorPool()  # its own pool: TensorFlow's, if loaded too, is left alone
        pool.Add(_file(descriptor_pb2, "tensorflow/core/example/feature.proto", _FEATURE_PROTO))
        pool.Add(_file(descriptor_pb2, "tensorflow/core/example/example.proto", _EXAMPLE_PROTO,
                       ["tensorflow/core/example/feature.proto"]))
        for name in NAMES:
            _CLASSES[name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))
    return _CLASSES

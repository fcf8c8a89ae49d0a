"""``tf.io``: TFRecord files (``TFRecordWriter``, ``TFRecordOptions``) and ``tf.train.Example`` parsing
(``parse_single_example``, ``parse_example``, ``FixedLenFeature``), and tensors as ``TensorProto`` bytes
(``serialize_tensor``, ``parse_tensor``), and web-safe base64 (``encode_base64``, ``decode_base64``).

Loaded on first use (``tf.io``). The TFRecord format and the ``Example`` messages need the optional ``tfrecord``
extra (``protobuf`` and ``google-crc32c``); using them without it raises an ``ImportError`` that names it.
"""

from ..ops.string_ops import decode_base64, encode_base64
from .parsing import FixedLenFeature, RaggedFeature, VarLenFeature, parse_example, parse_single_example
from .tensor_proto import parse_tensor, serialize_tensor
from .tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordWriter", "TFRecordOptions", "FixedLenFeature", "VarLenFeature", "RaggedFeature",
           "parse_single_example", "parse_example",
           "serialize_tensor", "parse_tensor", "encode_base64", "decode_base64"]

from .._core.exports import install as _install  # noqa: E402

_install(globals(), "io")

"""TFRecord files: records framed as TensorFlow frames them, checksummed with CRC32C (the ``google-crc32c``
package, from the ``tfrecord`` extra), optionally GZIP- or ZLIB-compressed as a whole.

A record is its length (8 bytes, little-endian), the masked CRC32C of those 8 bytes (4 bytes), the data, and the
masked CRC32C of the data (4 bytes). The mask rotates the checksum right by 15 bits and adds ``0xa282ead8``.
"""

from __future__ import annotations

import gzip
import struct
import zlib

from .._core import errors
from .._core.extras import require

__all__ = ["TFRecordOptions", "TFRecordWriter", "read_records"]

_MASK_DELTA = 0xA282EAD8


def _crc(data):
    crc = require("google_crc32c", "TFRecord files").value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


class TFRecordOptions:
    """How a TFRecord file is compressed (``tf.io.TFRecordOptions``): ``compression_type`` ``""``, ``"GZIP"`` or
    ``"ZLIB"``, with ``compression_level`` (0-9, zlib's default when ``None``)."""

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP", None: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        compression_type = self.compression_type_map.get(compression_type, compression_type)
        if compression_type not in ("", "GZIP", "ZLIB"):
            raise ValueError(f"Not a valid compression_type: {compression_type!r}")
        self.compression_type = compression_type
        self.compression_level = compression_level

    @classmethod
    def get_compression_type_string(cls, options):
        """The compression of ``options`` (a ``TFRecordOptions``, a string or ``None``) as a string."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type


def _frame(data):
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _crc(length)) + data + struct.pack("<I", _crc(data))


class TFRecordWriter:
    """Write records to a TFRecord file (``tf.io.TFRecordWriter``); use as a context manager or ``close()``."""

    def __init__(self, path, options=None):
        if isinstance(options, TFRecordOptions):
            kind, level = options.compression_type, options.compression_level
        else:
            kind, level = TFRecordOptions.get_compression_type_string(options), None
        level = -1 if level is None else level
        require("google_crc32c", "TFRecord files")
        try:
            raw = open(path, "wb")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise errors.NotFoundError(None, None, f"{path}; {exc.strerror}") from None
        self._raw = raw
        self._gzip = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9 if level < 0 else level,
                                   mtime=0) if kind == "GZIP" else None
        self._zlib = zlib.compressobj(level) if kind == "ZLIB" else None

    def write(self, record):
        """Append one record (``bytes``, or ``str`` written as UTF-8)."""
        if self._raw is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        data = _frame(record.encode() if isinstance(record, str) else bytes(record))
        if self._gzip is not None:
            self._gzip.write(data)
        elif self._zlib is not None:
            self._raw.write(self._zlib.compress(data))
        else:
            self._raw.write(data)

    def flush(self):
        """Write out what is buffered."""
        if self._raw is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if self._gzip is not None:
            self._gzip.flush()
        elif self._zlib is not None:
            self._raw.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self):
        """Finish the file (nothing more can be written)."""
        if self._raw is None:
            return
        if self._gzip is not None:
            self._gzip.close()
        elif self._zlib is not None:
            self._raw.write(self._zlib.flush())
        self._raw.close()
        self._raw = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_records(chunks):
    """The records of a TFRecord file given as its (decompressed) bytes, a chunk at a time, checked as TF's reader
    checks them: a checksum that does not match raises ``DataLossError`` naming the offset of the header or of
    the data it covers, a record whose data is cut short one naming the record's offset, after the records before
    it; a header cut short ends the file, as in TF."""
    buffer, offset, pos = b"", 0, 0
    for chunk in chunks:
        buffer = buffer[pos:] + chunk
        pos = 0
        while len(buffer) - pos >= 12:
            header = buffer[pos:pos + 8]
            if struct.unpack("<I", buffer[pos + 8:pos + 12])[0] != _crc(header):
                raise errors.DataLossError(None, None, f"corrupted record at {offset}")
            end = pos + 12 + struct.unpack("<Q", header)[0] + 4
            if len(buffer) < end:
                break
            data = buffer[pos + 12:end - 4]
            if struct.unpack("<I", buffer[end - 4:end])[0] != _crc(data):
                raise errors.DataLossError(None, None, f"corrupted record at {offset + 12}")
            yield data
            offset += end - pos
            pos = end
    if len(buffer) - pos >= 12:
        raise errors.DataLossError(None, None, f"truncated record at {offset}' failed with Read less bytes than "
                                               "requested")

"""Datasets read from files: ``tf.data.TextLineDataset``, ``tf.data.FixedLengthRecordDataset``,
``tf.data.TFRecordDataset`` and ``Dataset.list_files``."""

from __future__ import annotations

import glob
import gzip
import os
import zlib

import numpy as np

from .._core import errors
from .._core.dtypes import string
from .._core.tensor import convert_to_tensor
from . import spec as _spec
from .dataset import UNKNOWN, Dataset, KernelError, _scalar, _TensorSliceDataset

_CHUNK = 1 << 16


def _filenames(filenames):
    """The file names as a dataset of string scalars (a dataset given stays as it is)."""
    if isinstance(filenames, Dataset):
        return filenames
    if isinstance(filenames, (list, tuple)) and not filenames:
        filenames = np.zeros([0], dtype=object)  # no files: an empty dataset, as TF reads []
    names = convert_to_tensor(filenames, dtype=string if isinstance(filenames, np.ndarray) and
                              filenames.dtype == object else None)
    if names.dtype != string:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `{names.dtype!r}` "
                        f"elements.")
    if names.shape.rank == 0:
        names = convert_to_tensor(np.asarray([names.numpy()], dtype=object), dtype=string)
    return _TensorSliceDataset(names)


def _chunks(path, compression):
    """The decompressed bytes of a file, a chunk at a time."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed below, also when the reader is abandoned
    except FileNotFoundError:
        raise KernelError(errors.NotFoundError, f"{path}; No such file or directory") from None
    with raw:
        if compression == "GZIP":
            with gzip.GzipFile(fileobj=raw) as f:
                yield from iter(lambda: f.read(_CHUNK), b"")
        elif compression == "ZLIB":
            d = zlib.decompressobj()
            for chunk in iter(lambda: raw.read(_CHUNK), b""):
                yield d.decompress(chunk)
            yield d.flush()
        else:
            yield from iter(lambda: raw.read(_CHUNK), b"")


def _lines(path, compression):
    """The lines of a file without their ``\\n`` or ``\\r\\n``, as TF splits them (no empty last line)."""
    rest = b""
    for chunk in _chunks(path, compression):
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        for line in parts:
            yield line[:-1] if line.endswith(b"\r") else line
    if rest:
        yield rest[:-1] if rest.endswith(b"\r") else rest


class _FileDataset(Dataset):
    """Records of one or more files read one file after another, or ``num_parallel_reads`` files interleaved
    record by record (TF's parallel interleave order); subclasses say how one file is read (``_open``)."""

    def __init__(self, filenames, compression_type, num_parallel_reads):
        self._files = _filenames(filenames)
        self._compression = (compression_type.numpy().decode() if hasattr(compression_type, "numpy")
                             else compression_type or "")
        self._parallel = num_parallel_reads
        super().__init__(_spec.TensorSpec([], string))

    def _cardinality(self):
        return UNKNOWN

    def _open(self, name):
        raise NotImplementedError

    def _checked_open(self, name):
        if self._compression not in ("", "GZIP", "ZLIB"):
            raise KernelError(errors.InvalidArgumentError, "Unsupported compression_type.")
        return self._open(name.numpy().decode())

    def _elements(self):
        if self._parallel:
            return self._files.interleave(self._checked_open, cycle_length=self._parallel,
                                          num_parallel_calls=self._parallel)._elements()
        return self._files.flat_map(self._checked_open)._elements()


class TextLineDataset(_FileDataset):
    """The lines of one or more text files (``compression_type`` ``""``, ``"GZIP"`` or ``"ZLIB"``), file after
    file, or ``num_parallel_reads`` files interleaved line by line."""

    _TF_NAME = "TextLineDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _open(self, path):
        return _Records(path, lambda: _lines(path, self._compression))


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes from binary files, after ``header_bytes`` and before ``footer_bytes``."""

    _TF_NAME = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        self._record, self._header, self._footer = (int(_scalar(v or 0)) for v in (record_bytes, header_bytes,
                                                                                    footer_bytes))
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _open(self, path):
        if self._record <= 0:
            raise KernelError(errors.InvalidArgumentError, "`record_bytes` must be > 0")
        return _Records(path, lambda: self._records(path))

    def _records(self, path):
        if not self._compression and os.path.exists(path):
            body = os.path.getsize(path) - self._header - self._footer
            if body % self._record:  # checked before reading, as TF does for uncompressed files
                raise KernelError(errors.InvalidArgumentError,
                                  f"Excluding the header ({self._header} bytes) and footer ({self._footer} bytes), "
                                  f"input file \"{path}\" has body length {body} bytes, which is not an exact "
                                  f"multiple of the record length ({self._record} bytes).")
        data = b"".join(_chunks(path, self._compression))
        body = data[self._header:len(data) - self._footer]
        for start in range(0, len(body) - self._record + 1, self._record):
            yield body[start:start + self._record]


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files (``compression_type`` ``""``, ``"GZIP"`` or ``"ZLIB"``), file
    after file, or ``num_parallel_reads`` files interleaved record by record. A record cut short or whose checksum
    does not match raises TF's ``DataLossError`` (with its offset) after the records before it. Needs the
    ``tfrecord`` extra."""

    _TF_NAME = "TFRecordDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        from .._core.extras import require  # noqa: PLC0415 - tf.io loads on first use

        require("google_crc32c", "tf.data.TFRecordDataset")
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _open(self, path):
        return _Records(path, lambda: self._records(path))

    def _records(self, path):
        from ..io.tfrecord import read_records  # noqa: PLC0415

        chunks = _inflated(path, 31) if self._compression == "GZIP" else _chunks(path, self._compression)
        try:
            yield from read_records(chunks)
        except errors.DataLossError as exc:
            raise KernelError(errors.DataLossError, exc.message) from None
        except zlib.error as exc:  # "Error -3 while decompressing data: incorrect header check"
            code, _, text = str(exc).partition(" while decompressing data: ")
            raise KernelError(errors.DataLossError,
                              f"inflate() failed with error {code.removeprefix('Error ')}: {text}") from None


def _inflated(path, wbits):
    """The decompressed bytes of a file, as zlib's ``inflate`` gives them (``wbits`` 31: GZIP), so that a damaged
    file fails with zlib's own error, as TF's reader does."""
    d = zlib.decompressobj(wbits)
    for chunk in _chunks(path, ""):
        yield d.decompress(chunk)
    yield d.flush()


class _Records(Dataset):
    """The records of one file from ``read()`` (a fresh generator): bytes, as string scalars, or the elements
    themselves when ``element_spec`` is given (a CSV file's tuples)."""

    def __init__(self, path, read, element_spec=None):
        self._read = read
        self._made = element_spec is not None
        super().__init__(element_spec if self._made else _spec.TensorSpec([], string))

    def _elements(self):
        if self._made:
            yield from self._read()
            return
        for record in self._read():
            yield convert_to_tensor(record, dtype=string)


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching ``file_pattern`` (a pattern or a list), in random order unless ``shuffle=False``."""
    patterns = file_pattern.numpy() if hasattr(file_pattern, "numpy") else file_pattern
    patterns = [patterns] if isinstance(patterns, (str, bytes)) else list(np.ravel(patterns))
    patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in patterns]
    matches = sorted({m for p in patterns for m in glob.glob(p)})
    if not matches:
        raise errors.InvalidArgumentError(
            None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                        f"b'No files matched pattern: {', '.join(patterns)}'")
    ds = _TensorSliceDataset(convert_to_tensor(np.asarray([m.encode() for m in matches], dtype=object),
                                               dtype=string))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(matches), seed=seed)
    return ds

"""Datasets read from files: ``tf.data.TextLineDataset`` and ``Dataset.list_files``."""

from __future__ import annotations

import glob
import gzip
import zlib

import numpy as np

from .._core import errors
from .._core.dtypes import string
from .._core.tensor import convert_to_tensor
from . import spec as _spec
from .dataset import UNKNOWN, Dataset, KernelError, _TensorSliceDataset

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


class _TextLines(Dataset):
    """The lines of one file."""

    def __init__(self, path, compression):
        self._path, self._compression = path, compression
        super().__init__(_spec.TensorSpec([], string))

    def _elements(self):
        for line in _lines(self._path, self._compression):
            yield convert_to_tensor(line, dtype=string)


class TextLineDataset(Dataset):
    """The lines of one or more text files (``compression_type`` ``""``, ``"GZIP"`` or ``"ZLIB"``), file after
    file, or ``num_parallel_reads`` files interleaved line by line."""

    _TF_NAME = "TextLineDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        self._files = _filenames(filenames)
        self._compression = (compression_type.numpy().decode() if hasattr(compression_type, "numpy")
                             else compression_type or "")
        self._parallel = num_parallel_reads
        super().__init__(_spec.TensorSpec([], string))

    def _cardinality(self):
        return UNKNOWN

    def _open(self, name):
        if self._compression not in ("", "GZIP", "ZLIB"):
            raise KernelError(errors.InvalidArgumentError, "Unsupported compression_type.")
        return _TextLines(name.numpy().decode(), self._compression)

    def _elements(self):
        if self._parallel:
            return self._files.interleave(self._open, cycle_length=self._parallel,
                                          num_parallel_calls=self._parallel)._elements()
        return self._files.flat_map(self._open)._elements()


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

"""CSV files: ``tf.data.experimental.CsvDataset`` (one tuple of scalars per record) and
``tf.data.experimental.make_csv_dataset`` (batches of dicts of columns, types inferred, a label column apart).

Records are lines, split on ``field_delim`` with double quotes around a field that holds it (``""`` for a quote)
unless ``use_quote_delim=False``. An empty field, or one equal to ``na_value``, is missing: it takes the column's
default, and a column given only as a dtype has none (TF's "Field <i> is required but missing in record!").
"""

from __future__ import annotations

import collections
import csv
import glob

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.tensor import convert_to_tensor
from . import spec as _spec
from .dataset import KernelError, _scalar
from .files import _FileDataset, _lines, _Records

__all__ = ["CsvDataset", "make_csv_dataset"]

_KINDS = ("int32", "int64", "float32", "float64", "string")


def _column(default):
    """``(dtype, default value or None)`` of one entry of ``record_defaults``."""
    if isinstance(default, _dtypes.DType) or isinstance(default, type) and issubclass(default, np.generic):
        dtype = _dtypes.as_dtype(default)
        value = None
    else:
        t = convert_to_tensor(default)
        if t.shape.rank not in (0, 1) or t.shape.rank == 1 and t.shape[0] > 1:
            raise ValueError(f"Each record default should be at most rank 1, got {t.shape}")
        dtype = t.dtype
        value = None if t.shape.rank == 1 and t.shape[0] == 0 else np.ravel(t.numpy())[0]
    if dtype.name not in _KINDS:
        raise TypeError(f"Unsupported type for record_defaults: {dtype.name}")
    return dtype, value


def _convert(text, dtype, i):
    try:
        if dtype.name == "string":
            return np.asarray(text.encode(), dtype=object)[()]
        if dtype.name in ("int32", "int64"):
            return dtype.as_numpy_dtype(int(text))
        return dtype.as_numpy_dtype(float(text))
    except (ValueError, OverflowError):
        kind = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
        raise KernelError(errors.InvalidArgumentError, f"Field {i} in record is not a valid {kind}: {text}") \
            from None


def _split(line, delim, quoted):
    if not quoted:
        return line.split(delim)
    return next(csv.reader([line], delimiter=delim, quotechar='"', doublequote=True, strict=False))


class CsvDataset(_FileDataset):
    """The records of CSV files as tuples of scalars (``tf.data.experimental.CsvDataset``): ``record_defaults``
    gives each selected column's dtype (a dtype: required) or default value; ``header`` skips each file's first
    line; ``select_cols`` (or ``exclude_cols``) picks columns by index."""

    _TF_NAME = "CsvDatasetV2"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None):
        self._columns = [_column(d) for d in record_defaults]
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("Either select_cols or exclude_cols should be set, not both.")
        if select_cols is not None:
            select_cols = [int(c) for c in np.ravel(select_cols)]
            if select_cols != sorted(set(select_cols)) or any(c < 0 for c in select_cols):
                raise ValueError("select_cols is not strictly increasing.")
            if len(select_cols) != len(self._columns):
                raise ValueError("Length of select_cols and record_defaults do not match.")
        self._select = select_cols
        self._exclude = None if exclude_cols is None else {int(c) for c in np.ravel(exclude_cols)}
        self._header, self._delim = bool(_scalar(header)), str(_scalar(field_delim))
        self._quoted, self._na = bool(_scalar(use_quote_delim)), str(_scalar(na_value))
        super().__init__(filenames, compression_type, None)
        self._element_spec = tuple(_spec.TensorSpec([], dtype) for dtype, _ in self._columns)

    def _open(self, path):
        return _Records(path, lambda: self._records(path), self._element_spec)

    def _records(self, path):
        lines = _lines(path, self._compression)
        if self._header:
            next(lines, None)
        for line in lines:
            fields = _split(line.decode(), self._delim, self._quoted)
            if self._select is not None:
                if len(fields) <= self._select[-1]:
                    raise KernelError(errors.InvalidArgumentError,
                                      f"Expect {self._select[-1] + 1} fields but have {len(fields)} in record")
                fields = [fields[c] for c in self._select]
            elif self._exclude is not None:
                fields = [f for c, f in enumerate(fields) if c not in self._exclude]
            out = []
            for i, (text, (dtype, default)) in enumerate(zip(fields, self._columns)):  # (fields first, as TF)
                if text == "" or text == self._na:
                    if default is None:
                        raise KernelError(errors.InvalidArgumentError,
                                          f"Field {i} is required but missing in record!")
                    value = np.asarray(default, dtype=object if dtype.name == "string" else dtype.as_numpy_dtype)
                    out.append(convert_to_tensor(value[()], dtype=dtype))
                else:
                    out.append(convert_to_tensor(_convert(text, dtype, i), dtype=dtype))
            if len(fields) != len(self._columns):
                raise KernelError(errors.InvalidArgumentError,
                                  f"Expect {len(self._columns)} fields but have {len(fields)} in record")
            yield tuple(out)


def _infer(values):
    """The dtype ``make_csv_dataset`` gives a column from its first values: int32, else float32, else string."""
    kind = "int32"
    for text in values:
        if text == "":
            continue
        if kind == "int32":
            try:
                int(text)
                continue
            except ValueError:
                kind = "float32"
        if kind == "float32":
            try:
                float(text)
            except ValueError:
                return _dtypes.string
    return _dtypes.as_dtype(kind)


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ``(features, label)`` from CSV files: ``features`` an ordered dict of columns (named by the
    header, or ``column_names``), each a vector of ``batch_size`` values whose type is inferred from the first
    ``num_rows_for_inference`` rows (int32, float32 or string) unless ``column_defaults`` gives it; ``label_name``
    names the column returned apart. Repeats ``num_epochs`` times (forever by default) and shuffles unless told
    not to, as TF's does. Files are read one after another (``num_parallel_reads`` and ``sloppy`` are accepted)."""
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    files = sorted({f for p in patterns for f in glob.glob(p.decode() if isinstance(p, bytes) else p)})
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    quoted = bool(use_quote_delim)
    with open(files[0], encoding=encoding) as f:
        rows = [_split(line.rstrip("\r\n"), field_delim, quoted) for _, line in zip(
            range(num_rows_for_inference + 1), f)]
    names = list(column_names) if column_names is not None else rows[0]
    if not header and column_names is None:
        raise ValueError("Cannot infer column names without a header line.")
    data = rows[1:] if header else rows
    if select_columns is not None:
        chosen = [names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
    else:
        chosen = list(range(len(names)))
    if label_name is not None and label_name not in [names[c] for c in chosen]:
        raise ValueError(f"`label_name` provided must be one of the columns: {[names[c] for c in chosen]}. "
                         f"Received: {label_name}.")
    if column_defaults is not None:
        defaults = list(column_defaults)
    else:
        defaults = []
        for c in chosen:
            dtype = _infer([r[c] for r in data if c < len(r)])
            defaults.append(np.asarray(b"" if dtype == _dtypes.string else 0, dtype=object if dtype ==
                                       _dtypes.string else dtype.as_numpy_dtype))
    keys = [names[c] for c in chosen]
    ds = CsvDataset(files, defaults, compression_type=compression_type, header=header, field_delim=field_delim,
                    use_quote_delim=use_quote_delim, na_value=na_value, select_cols=chosen)

    def to_dict(*values):
        features = collections.OrderedDict(zip(keys, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    if ignore_errors:
        ds = ds.ignore_errors()
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size).map(to_dict)
    return ds.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)

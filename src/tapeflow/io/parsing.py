"""``tf.io.parse_single_example`` and ``tf.io.parse_example`` with ``tf.io.FixedLenFeature``: serialized
``tf.train.Example`` records (string tensors) to dicts of dense tensors, checked as TF's ``ParseExampleV2`` kernel
checks them."""

from __future__ import annotations

import collections

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.dispatch import execute
from .._core.registry import defop
from .._core.tensor import convert_to_tensor
from .example import message_classes

__all__ = ["FixedLenFeature", "VarLenFeature", "RaggedFeature", "parse_single_example", "parse_example"]

_KINDS = {"int64": "int64_list", "float32": "float_list", "string": "bytes_list"}
_TYPE_NAMES = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of a fixed ``shape`` and ``dtype`` (``tf.int64``, ``tf.float32`` or ``tf.string``), with a
    ``default_value`` for examples that lack it (``tf.io.FixedLenFeature``)."""

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values of ``dtype``, parsed into a ``tf.SparseTensor`` (``tf.io.VarLenFeature``)."""

    __slots__ = ()


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                                                             "validate"])):
    """A feature parsed into a ``tf.RaggedTensor``: the values of ``value_key`` (the feature's own key by default),
    cut into rows by ``partitions`` (outermost first), each read from another feature of the example
    (``tf.io.RaggedFeature``)."""

    __slots__ = ()

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int32, validate=False):
        return super().__new__(cls, _dtypes.as_dtype(dtype), value_key, tuple(partitions),
                               _dtypes.as_dtype(row_splits_dtype), validate)

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])


def _error(message, counts):
    """TF's error, its kernel named by how many dense and sparse features were asked for (``counts``: either
    the dense count alone, or ``(dense, sparse)``)."""
    n_dense, n_sparse = counts if isinstance(counts, tuple) else (counts, 0)
    kernel = (f"ParseExampleV2_Tdense_{n_dense}_num_sparse_{n_sparse}_ragged_split_types_0_ragged_value_types_0_"
              f"sparse_types_{n_sparse}")
    return errors.InvalidArgumentError(None, None, f"{{{{function_node __wrapped__{kernel}_device_"
                                                   f"{errors.CPU_DEVICE}}}}} {message} [Op:ParseExampleV2]")


def _checked_features(features):
    if not features:
        raise ValueError("Missing: features was {}.")
    out = {}
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, VarLenFeature):
            dtype = _dtypes.as_dtype(spec.dtype)
            if dtype.name not in _KINDS:
                raise ValueError(f"Unsupported dtype {dtype.name}.")
            out[key] = (None, dtype, None)
            continue
        if isinstance(spec, RaggedFeature):
            if spec.dtype.name not in _KINDS:
                raise ValueError(f"Unsupported dtype {spec.dtype.name}.")
            parts = tuple((type(p).__name__, p[0]) for p in spec.partitions)
            out[key] = ("ragged", spec.dtype, (spec.value_key or key, parts, spec.row_splits_dtype))
            continue
        if not isinstance(spec, FixedLenFeature):
            raise ValueError(f"Unsupported {type(spec).__name__} {spec}.")
        dtype = _dtypes.as_dtype(spec.dtype)
        if dtype.name not in _KINDS:
            raise ValueError(f"Unsupported dtype {dtype.name}.")
        shape = tuple(int(d) for d in (spec.shape if isinstance(spec.shape, (list, tuple)) else [spec.shape]))
        out[key] = (shape, dtype, spec.default_value)
    return out


def _example(serialized, n_dense):
    example = message_classes()["Example"]()
    try:
        example.ParseFromString(serialized)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise _error(f"Could not parse example input, value: '{serialized.decode('latin-1')}'", n_dense) from None
    return example.features.feature


def _feature_values(present, key, shape, dtype, default, n_dense):
    """One example's ``key`` as an array of ``shape``, checked as TF's kernel checks it."""
    np_dtype = object if dtype == "string" else np.dtype(dtype)
    if key not in present:
        if default is None:
            raise _error(f"Feature: {key} (data type: {dtype}) is required but could not be found.", n_dense)
        d = np.asarray(default, np_dtype)  # (flattened: the attribute is a tuple)
        return (np.broadcast_to(d[0], shape) if d.size == 1 else d.reshape(shape)).copy()
    feature = present[key]
    kind = feature.WhichOneof("kind")
    want = _KINDS[dtype]
    if kind is not None and kind != want:
        raise _error(f"Key: {key}.  Data types don't match. Data type: {_TYPE_NAMES[kind]} but expected type: "
                     f"{_TYPE_NAMES[want]}", n_dense)
    values = list(getattr(feature, want).value) if kind is not None else []
    if len(values) != (int(np.prod(shape)) if shape else 1):
        raise _error(f"Key: {key}.  Can't parse serialized Example: Some {want} slice was not parsed.", n_dense)
    return np.asarray(values, np_dtype).reshape(shape)


def _parse_forward(serialized, key, shape, dtype, default, n_dense):
    """``key`` of each serialized example in ``serialized`` (a scalar, or a vector stacked along a first axis)."""
    records = [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(serialized, object).ravel()]
    parsed = [_feature_values(_example(r, n_dense), key, shape, dtype, default, n_dense) for r in records]
    if np.ndim(serialized) == 0:
        return parsed[0]
    np_dtype = object if dtype == "string" else np.dtype(dtype)
    return np.stack(parsed) if parsed else np.zeros((0,) + shape, np_dtype)


# One feature of serialized ``tf.train.Example`` records: an op (TF's ``ParseExampleV2`` gives every feature at once;
# one op per feature here), so that a traced function parses each call's records, not the trace's.
PARSE_EXAMPLE = defop("ParseExampleV2", same_dtype=False)(_parse_forward)


def _varlen_forward(serialized, key, dtype, n_dense):
    """``key``'s values of each serialized example as a sparse tensor's indices, values and dense shape."""
    records = [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(serialized, object).ravel()]
    np_dtype = object if dtype == "string" else np.dtype(dtype)
    rows = []
    for r in records:
        present = _example(r, n_dense)
        if key not in present:
            rows.append([])
            continue
        feature = present[key]
        kind, want = feature.WhichOneof("kind"), _KINDS[dtype]
        if kind is not None and kind != want:
            raise _error(f"Key: {key}.  Data types don't match. Expected type: {_TYPE_NAMES[want]}, Actual type: "
                         f"{_TYPE_NAMES[kind]}", n_dense)
        rows.append(list(getattr(feature, want).value) if kind is not None else [])
    width = max((len(r) for r in rows), default=0)
    if np.ndim(serialized) == 0:
        indices = np.arange(len(rows[0]), dtype=np.int64).reshape(-1, 1)
        shape = np.array([len(rows[0])], np.int64)
    else:
        indices = np.array([[b, i] for b, r in enumerate(rows) for i in range(len(r))], np.int64).reshape(-1, 2)
        shape = np.array([len(rows), width], np.int64)
    values = np.asarray([v for r in rows for v in r], dtype=np_dtype)
    return indices, values, shape


# A VarLenFeature of serialized ``tf.train.Example`` records: the three parts of a ``tf.SparseTensor``.
PARSE_VAR_LEN = defop("ParseExampleVarLen", num_outputs=3, same_dtype=False)(_varlen_forward)
PARSE_VAR_LEN.value_sized = {0: (0,), 1: (0,)}  # (a trace leaves the sizes that follow the records unknown)


def _int_list(present, key, n_dense):
    if key not in present:
        return []
    feature = present[key]
    kind = feature.WhichOneof("kind")
    if kind is not None and kind != "int64_list":
        raise _error(f"Key: {key}.  Data types don't match. Expected type: int64, Actual type: "
                     f"{_TYPE_NAMES[kind]}", n_dense)
    return list(feature.int64_list.value) if kind is not None else []


def _ragged_parts(serialized, value_key, dtype, partitions, n_dense):
    """A RaggedFeature of each record: the values of all records joined, and for each ragged partition (outermost
    first) the row lengths of all records joined, with before them the number of top rows of each record. As TF's
    kernel, without checking that a record's partitions add up (``validate=False``)."""
    records = [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(serialized, object).ravel()]
    np_dtype = object if dtype == "string" else np.dtype(dtype)
    values, tops, levels = [], [], [[] for p in partitions if p[0] != "UniformRowLength"]
    for r in records:
        present = _example(r, n_dense)
        vals = []
        if value_key in present:
            feature = present[value_key]
            kind, want = feature.WhichOneof("kind"), _KINDS[dtype]
            if kind is not None and kind != want:
                raise _error(f"Key: {value_key}.  Data types don't match. Expected type: {_TYPE_NAMES[want]}, "
                             f"Actual type: {_TYPE_NAMES[kind]}", n_dense)
            vals = list(getattr(feature, want).value) if kind is not None else []
        values.extend(vals)
        rows, k = len(vals), len(levels)
        for kind, arg in reversed(partitions):  # innermost first: each partition cuts the rows below it
            if kind == "UniformRowLength":
                rows = rows // int(arg) if int(arg) else 0
                continue
            k -= 1
            data = np.asarray(_int_list(present, arg, n_dense), np.int64)
            lengths = _lengths(kind, data, rows)
            levels[k].extend(np.asarray(lengths, np.int64).tolist())
            rows = len(lengths)
        tops.append(rows)
    return np.asarray(values, np_dtype), [np.asarray(tops, np.int64)] + [np.asarray(v, np.int64) for v in levels]


def _lengths(kind, data, rows):
    """Row lengths from one record's partition ``data`` of ``kind``, over ``rows`` rows below it."""
    if kind == "RowSplits":
        return np.diff(data)
    if kind == "RowStarts":
        return np.diff(np.append(data, rows))
    if kind == "RowLimits":
        return np.diff(np.insert(data, 0, 0))
    if kind == "ValueRowIds":
        return np.bincount(data) if len(data) else data
    return data  # RowLengths


@defop("ParseExampleRaggedValues", same_dtype=False)
def PARSE_RAGGED_VALUES(serialized, value_key, dtype, partitions, n_dense):
    """A RaggedFeature's values, of every record in turn."""
    return _ragged_parts(serialized, value_key, dtype, partitions, n_dense)[0]


PARSE_RAGGED_VALUES.value_sized = {0: (0,)}


@defop("ParseExampleRaggedLengths", same_dtype=False)
def PARSE_RAGGED_LENGTHS(serialized, value_key, dtype, partitions, n_dense, level, out_type):
    """A RaggedFeature's row lengths at ``level`` (0: the number of top rows of each record)."""
    return _ragged_parts(serialized, value_key, dtype, partitions, n_dense)[1][level].astype(out_type)


PARSE_RAGGED_LENGTHS.value_sized = {0: (0,)}


def _ragged(t, dtype, args, n):
    """A RaggedFeature of the records ``t``: a ragged tensor (a dense tensor for one record and no ragged
    partition)."""
    from ..ops.array_ops import reshape  # noqa: PLC0415
    from ..ops.ragged_tensor import RaggedTensor  # noqa: PLC0415

    value_key, parts, splits_dtype = args
    attrs = {"value_key": value_key, "dtype": dtype.name, "partitions": parts, "n_dense": n}
    result = execute(PARSE_RAGGED_VALUES, (t,), attrs)
    ragged = [p for p in parts if p[0] != "UniformRowLength"]
    level = len(ragged)
    for kind, arg in reversed(parts):
        if kind == "UniformRowLength":
            result = reshape(result, [-1, int(arg)] + result.shape.as_list()[1:]) if not isinstance(
                result, RaggedTensor) else RaggedTensor.from_uniform_row_length(result, int(arg), validate=False)
            continue
        lengths = execute(PARSE_RAGGED_LENGTHS, (t,), dict(attrs, level=level,
                                                           out_type=splits_dtype.as_numpy_dtype))
        result = RaggedTensor.from_row_lengths(result, lengths, validate=False)
        level -= 1
    if t.shape.rank == 0:
        return result
    tops = execute(PARSE_RAGGED_LENGTHS, (t,), dict(attrs, level=0, out_type=splits_dtype.as_numpy_dtype))
    return RaggedTensor.from_row_lengths(result, tops, validate=False)


def _parse(serialized, features, rank):
    checked = _checked_features(features)
    t = convert_to_tensor(serialized, dtype=_dtypes.string)
    if t.shape.rank != rank:
        raise ValueError(f"Input serialized must be a {'scalar' if rank == 0 else 'vector'}, got shape {t.shape}")
    n_sparse = sum(1 for shape, _, _ in checked.values() if shape is None)
    n_ragged = sum(1 for shape, _, _ in checked.values() if shape == "ragged")
    n = (len(checked) - n_sparse - n_ragged, n_sparse) if n_sparse else len(checked) - n_ragged
    out = {}
    for key, (shape, dtype, default) in checked.items():  # (sorted: the first missing feature is TF's)
        if shape == "ragged":
            out[key] = _ragged(t, dtype, default, n)
            continue
        if shape is None:  # a VarLenFeature
            from ..ops.sparse_ops import SparseTensor  # noqa: PLC0415

            indices, values, dense_shape = execute(PARSE_VAR_LEN, (t,), {"key": key, "dtype": dtype.name,
                                                                         "n_dense": n})
            out[key] = SparseTensor(indices, values, dense_shape)
            continue
        default = None if default is None else tuple(np.ravel(np.asarray(default, object if dtype.name == "string"
                                                                         else dtype.as_numpy_dtype)).tolist())
        out[key] = execute(PARSE_EXAMPLE, (t,), {"key": key, "shape": shape, "dtype": dtype.name,
                                                 "default": default, "n_dense": n})
    return {key: out[key] for key in _tf_order(features, checked)}


def _tf_order(features, checked):
    """The keys in the order TF's result dict has them: its kernel's outputs (the sparse features, the dense ones,
    then the keys the ragged ones read, values and partitions, as first read), the ragged features put in place of
    those (a key already there keeps its place), the keys that are no feature dropped."""
    keys = sorted(features)
    order = [k for k in keys if checked[k][0] is None] + [k for k in keys if checked[k][0] not in (None, "ragged")]
    for k in keys:
        if checked[k][0] == "ragged":
            value_key, parts, _ = checked[k][2]
            for read in [value_key] + [arg for kind, arg in parts if kind != "UniformRowLength"]:
                if read not in order:
                    order.append(read)
    order += [k for k in keys if checked[k][0] == "ragged" and k not in order]
    return [k for k in order if k in features]


def parse_single_example(serialized, features, example_names=None, name=None):
    """The features of one serialized ``tf.train.Example`` (a string scalar), as a dict of tensors."""
    return _parse(serialized, features, 0)


def parse_example(serialized, features, example_names=None, name=None):
    """The features of a vector of serialized ``tf.train.Example`` records, stacked along a first axis."""
    return _parse(serialized, features, 1)

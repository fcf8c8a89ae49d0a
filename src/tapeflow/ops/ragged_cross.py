"""Feature crosses of ragged, sparse and dense features: ``tf.ragged.cross`` and ``tf.ragged.cross_hashed``, and
``tf.ragged.stack_dynamic_partitions``.

Row ``i`` of a cross holds every combination of one value from row ``i`` of each input, the first input's value
changing slowest (none if an input's row is empty). ``cross`` joins the combination's values as strings with
``"_X_"``; ``cross_hashed`` chains their fingerprints (FarmHash's Fingerprint64 of a string, an integer as it is)
with ``FingerprintCat64`` from ``hash_key``, then takes them modulo ``num_buckets``. Both are the op ``RaggedCross``
over each input's values and row splits, so a traced function crosses each call's features.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._core import dtypes as _dtypes
from .._core.dispatch import execute
from .._core.exports import export
from .._core.registry import ALL, defop
from .._core.tensor import Tensor
from ._convert import to_tensor
from .array_ops import cast, reshape
from .array_ops import range as _range
from .gather_ops import gather
from .manip_ops import concat
from .ragged_tensor import RaggedTensor
from .string_hash import fingerprint64

__all__ = ["cross", "cross_hashed", "stack_dynamic_partitions", "RAGGED_CROSS"]

_M64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _shift_mix(v):
    return v ^ (v >> 47)


def _fingerprint_cat(fp1, fp2):
    """TF's ``FingerprintCat64``: two 64-bit fingerprints made one."""
    result = fp1 ^ _MUL
    result ^= (_shift_mix((fp2 * _MUL) & _M64) * _MUL) & _M64
    result = (result * _MUL) & _M64
    result = (_shift_mix(result) * _MUL) & _M64
    return _shift_mix(result)


def _feature_hash(value):
    return fingerprint64(value) if isinstance(value, bytes) else int(value) & _M64


def _text(value):
    return value if isinstance(value, bytes) else str(int(value)).encode()


@defop("RaggedCross", num_outputs=2, dtypes=ALL, same_dtype=False)
def RAGGED_CROSS(*parts, hashed, num_buckets, hash_key):
    """The crosses of features given as (values, row splits) pairs: their values and row splits."""
    features = [(np.asarray(parts[k]).ravel(), np.asarray(parts[k + 1]).astype(np.int64))
                for k in range(0, len(parts), 2)]
    nrows = len(features[0][1]) - 1
    out, lengths = [], []
    for i in range(nrows):
        rows = [list(values[splits[i]:splits[i + 1]]) for values, splits in features]
        combos = list(itertools.product(*rows))
        for combo in combos:
            if hashed:
                h = hash_key
                for value in combo:
                    h = _fingerprint_cat(h, _feature_hash(value))
                out.append(h % num_buckets if num_buckets > 0 else h % ((1 << 63) - 1))
            else:
                out.append(b"_X_".join(_text(v) for v in combo))
        lengths.append(len(combos))
    values = np.asarray(out, np.int64) if hashed else np.array(out + [b""], dtype=object)[:len(out)]
    return values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _as_rows(feature):
    """A 2-D feature (ragged, sparse or dense) as its values and row splits."""
    if getattr(feature, "_tapeflow_ragged", False):
        return feature.flat_values, cast(feature.row_splits, _dtypes.int64)
    if getattr(feature, "_tapeflow_sparse", False):
        from .counting_ops import bincount  # noqa: PLC0415

        n = cast(feature.dense_shape[0], _dtypes.int32)
        counts = bincount(cast(feature.indices[:, 0], _dtypes.int32), minlength=n, maxlength=n, dtype=_dtypes.int64)
        from .reduction_ops import cumsum  # noqa: PLC0415

        return feature.values, concat([to_tensor([0], _dtypes.int64), cumsum(counts)], 0)
    t = feature if isinstance(feature, Tensor) else to_tensor(feature)
    if t.shape.rank != 2:
        raise ValueError(f"tf.ragged.cross takes 2-D features; got shape {t.shape}")
    n, m = t.shape.as_list()
    return reshape(t, [-1]), _range(n + 1, dtype=_dtypes.int64) * m


def _cross(inputs, hashed, num_buckets, hash_key):
    parts = []
    for feature in inputs:
        values, splits = _as_rows(feature)
        if values.dtype not in (_dtypes.string, _dtypes.int64):
            values = cast(values, _dtypes.int64)
        parts += [values, splits]
    values, splits = execute(RAGGED_CROSS, tuple(parts), {"hashed": hashed, "num_buckets": int(num_buckets),
                                                          "hash_key": int(hash_key)})
    return RaggedTensor.from_row_splits(values, splits, validate=False)


@export("ragged.cross")
def cross(inputs, name=None):
    """Row ``i``: every combination of one value of row ``i`` of each input, joined as ``"a_X_b"``
    (``tf.ragged.cross``)."""
    return _cross(inputs, False, 0, 0)


@export("ragged.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The crosses of ``tf.ragged.cross`` as fingerprints, modulo ``num_buckets`` when it is positive
    (``tf.ragged.cross_hashed``)."""
    return _cross(inputs, True, num_buckets, _DEFAULT_HASH_KEY if hash_key is None else hash_key)


@export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Row ``p`` holds the elements of ``data`` whose partition is ``p``, in order
    (``tf.ragged.stack_dynamic_partitions``)."""
    from .counting_ops import bincount  # noqa: PLC0415
    from .sort_ops import argsort  # noqa: PLC0415

    given = to_tensor(partitions)
    parts = cast(given, _dtypes.int32)
    order = argsort(parts, stable=True)
    n = cast(to_tensor(num_partitions), _dtypes.int32)
    counts = bincount(parts, minlength=n, maxlength=n, dtype=given.dtype)  # (row splits of the partitions' dtype)
    return RaggedTensor.from_row_lengths(gather(to_tensor(data), order), counts, validate=False)

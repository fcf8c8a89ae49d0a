"""``save_weights`` / ``load_weights``: the model's weights in one NumPy ``.npz`` archive.

Keras 3 requires the file name to end in ``.weights.h5``; tapeflow keeps that name but stores an ordinary
(uncompressed) ``.npz`` archive in it (keys ``w0``, ``w1``, ... in ``model.weights`` order, plus ``paths``), since
HDF5 is not a dependency: ``numpy.load(path)`` reads it. The write is atomic (see
:func:`tapeflow._core.checkpoint_io.atomic_write`). A load is all-or-nothing: it reads the file with the bounds and
checks of a checkpoint (every member stored, sizes consistent, CRC-32 verified, no object arrays) and checks every
value's shape and dtype before it assigns any.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..._core import checkpoint_io as cio
from ..._core import errors

__all__ = ["save_weights", "load_weights"]

_SUFFIX = ".weights.h5"
_WEIGHT = re.compile(r"w(\d+)")
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


class UnreadableWeightsFile(errors.DataLossError, OSError):
    """A damaged weights file: TF's ``DataLossError``, and an ``OSError`` as Keras (h5py) raises for a file it
    cannot read, so either ``except`` catches it."""


def save_weights(model, filepath, overwrite=True):
    """Write ``model.weights`` to ``filepath`` (which must end in ``.weights.h5``).

    Raises:
        ValueError: for another suffix (Keras's message).
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File already exists and overwrite=False: {filepath}")
    weights = model.weights
    arrays = {f"w{i}": np.asarray(v.numpy()) for i, v in enumerate(weights)}
    arrays["paths"] = np.array([v.path for v in weights], dtype=str)
    cio.write_npz(filepath, arrays)


def _numpy_dtype(variable):
    dtype = variable.dtype
    return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))


def _read(filepath):
    """The file's weights ``[w0, w1, ...]``, or ``UnreadableWeightsFile`` (nothing partial)."""
    with open(filepath, "rb") as f:
        if f.read(len(_HDF5_SIGNATURE)) == _HDF5_SIGNATURE:
            raise UnreadableWeightsFile(
                None, None, f"Unable to read file ({filepath}): it is an HDF5 file, as Keras writes; tapeflow reads "
                "the `.weights.h5` files its own `save_weights()` writes (NumPy archives).")
    with cio.reading(filepath, error=UnreadableWeightsFile):
        arrays = cio.read_npy_members(filepath, wanted=_WEIGHT.fullmatch)
        if sorted(int(_WEIGHT.fullmatch(k).group(1)) for k in arrays) != list(range(len(arrays))):
            raise cio.Corrupt(f"its weights are not numbered w0 to w{len(arrays) - 1}")
    return [arrays[f"w{i}"] for i in range(len(arrays))]


def load_weights(model, filepath):
    """Assign the weights stored by ``save_weights`` to ``model`` (matched by position), all or none.

    Values are cast to each variable's dtype when NumPy's ``same_kind`` rule allows it (``int32`` into ``float32``
    as Keras does), never from strings or complex numbers into real ones.

    Raises:
        ValueError: for another suffix, a different number of weights, or a value of another shape or kind.
        FileNotFoundError: if ``filepath`` does not exist.
        UnreadableWeightsFile: (a ``tf.errors.DataLossError`` and an ``OSError``) if the file is damaged or was
            not written by ``save_weights``.

    The model's weights are unchanged whenever an error is raised.
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError("File format not supported: filepath={}. tapeflow's `load_weights()` reads files saved "
                         "by `save_weights()`, whose names end in `.weights.h5`.".format(filepath))
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"File not found: filepath={filepath}. Please ensure the file is an accessible "
                                "`.weights.h5` file.")
    values = _read(filepath)
    weights = model.weights
    if len(values) != len(weights):
        raise ValueError(f"Weight count mismatch when loading {filepath} into model '{model.name}': the file holds "
                         f"{len(values)} weights, the model has {len(weights)}.")
    cast = []
    for variable, value in zip(weights, values):  # every check before the first assignment
        expected = tuple(variable.shape.as_list())
        if tuple(value.shape) != expected:
            raise ValueError(f"Shape mismatch when loading {filepath} into model '{model.name}': variable "
                             f"'{variable.path}' has shape {expected}, the file has shape {tuple(value.shape)}.")
        dtype = _numpy_dtype(variable)
        if not np.can_cast(value.dtype, dtype, casting="same_kind"):
            raise ValueError(f"Dtype mismatch when loading {filepath} into model '{model.name}': variable "
                             f"'{variable.path}' has dtype {dtype.name}, the file has values of dtype "
                             f"{value.dtype.name}.")
        cast.append(value.astype(dtype, copy=False))
    for variable, value in zip(weights, cast):
        variable.assign(value)

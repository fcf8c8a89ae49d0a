"""``save_weights`` / ``load_weights``: the model's weights in one NumPy ``.npz`` archive.

Keras 3 requires the file name to end in ``.weights.h5``; tapeflow keeps that name but stores an ordinary
(uncompressed) ``.npz`` archive in it (keys ``w0``, ``w1``, ... in ``model.weights`` order, plus ``paths``), since
HDF5 is not a dependency: ``numpy.load(path)`` reads it. The write is atomic (a temporary file in the same
directory, flushed and fsynced, then ``os.replace``) and a load checks every shape before assigning anything.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

__all__ = ["save_weights", "load_weights"]

_SUFFIX = ".weights.h5"


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
    arrays = {f"w{i}": v.numpy() for i, v in enumerate(weights)}
    arrays["paths"] = np.array([v.path for v in weights], dtype=str)
    directory = os.path.dirname(os.path.abspath(filepath))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, filepath)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def load_weights(model, filepath):
    """Assign the weights stored by ``save_weights`` to ``model`` (matched by position).

    Raises:
        ValueError: for another suffix, a different number of weights or any shape mismatch; the model's
            weights are unchanged then.
        FileNotFoundError: if ``filepath`` does not exist.
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError("File format not supported: filepath={}. tapeflow's `load_weights()` reads files saved "
                         "by `save_weights()`, whose names end in `.weights.h5`.".format(filepath))
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"File not found: filepath={filepath}. Please ensure the file is an accessible "
                                "`.weights.h5` file.")
    with np.load(filepath, allow_pickle=False) as data:
        count = sum(1 for k in data.files if k.startswith("w"))
        values = [data[f"w{i}"] for i in range(count)]
    weights = model.weights
    if len(values) != len(weights):
        raise ValueError(f"Weight count mismatch when loading {filepath} into model '{model.name}': the file holds "
                         f"{len(values)} weights, the model has {len(weights)}.")
    for variable, value in zip(weights, values):
        expected = tuple(variable.shape.as_list())
        if tuple(value.shape) != expected:
            raise ValueError(f"Shape mismatch when loading {filepath} into model '{model.name}': variable "
                             f"'{variable.path}' has shape {expected}, the file has shape {tuple(value.shape)}.")
    for variable, value in zip(weights, values):
        variable.assign(value.astype(variable.dtype, copy=False))

"""Reading a checkpoint's values by key: ``tf.train.load_checkpoint``, ``list_variables``, ``load_variable``.

They take a checkpoint prefix (``.../ckpt-3``) or a directory (its newest checkpoint, from the ``checkpoint`` state
file), and see what TensorFlow's reader sees: every saved value under its key
(``model/layer/w/.ATTRIBUTES/VARIABLE_VALUE``) plus the entry ``_CHECKPOINTABLE_OBJECT_GRAPH``, a scalar string
holding the object graph. That string is tapeflow's own: the JSON index of the file (see
:mod:`.checkpoint_io`), where TF stores a serialized protocol buffer.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from . import checkpoint_io as cio
from . import errors
from .dtypes import as_dtype

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables", "load_variable"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class CheckpointReader:
    """The values of one checkpoint, read once (what ``tf.train.load_checkpoint`` returns).

    Args:
        prefix: the checkpoint's prefix (``<directory>/ckpt-1``; tapeflow stores it as ``<prefix>.npz``).

    Raises:
        NotFoundError: if there is no checkpoint at ``prefix``.
        DataLossError: if its file is damaged.
    """

    def __init__(self, prefix):
        prefix = os.fspath(prefix)
        if not cio.checkpoint_exists(prefix):
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                                   f"matching files for {prefix}")
        entries, values = cio.read_checkpoint(prefix)
        self._prefix = prefix
        self._values = dict(values)
        with cio.reading(cio.data_path(prefix)):
            with zipfile.ZipFile(cio.data_path(prefix)) as zf:
                graph = zf.read("index.json")
        self._values[OBJECT_GRAPH_KEY] = np.array(graph, dtype=object)

    @staticmethod
    def _key(name):
        if isinstance(name, bytes):
            return name.decode("utf-8")
        if not isinstance(name, str):
            raise TypeError(f"Expected binary or unicode string, got {name!r}")
        return name

    def has_tensor(self, name):
        """Whether the checkpoint holds a value under the key ``name``."""
        return self._key(name) in self._values

    def get_tensor(self, name):
        """The value saved under ``name`` as a NumPy array (a NumPy scalar for a scalar, bytes for the object
        graph).

        Raises:
            NotFoundError: ``Key <name> not found in checkpoint``.
        """
        key = self._key(name)
        if key not in self._values:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        value = self._values[key]
        return value[()] if value.ndim == 0 else value.copy()

    def get_variable_to_shape_map(self):
        """``{key: shape as a list of ints}`` for every saved value."""
        return {key: list(v.shape) for key, v in self._values.items()}

    def get_variable_to_dtype_map(self):
        """``{key: tf.DType}`` for every saved value (``tf.string`` for the object graph)."""
        return {key: as_dtype("string" if v.dtype == object else v.dtype.name) for key, v in self._values.items()}

    def debug_string(self):
        """One line ``<key> (DT_<TYPE>) [<shape>]`` per value, sorted by key, as bytes (as TF's reader)."""
        lines = []
        for key in sorted(self._values):
            v = self._values[key]
            dtype = as_dtype("string" if v.dtype == object else v.dtype.name)
            lines.append(f"{key} ({_dt_name(dtype)}) {list(v.shape)}\n")
        return "".join(lines).encode("utf-8")

    def __repr__(self):
        return f"<CheckpointReader of {self._prefix}>"


_DT = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF", "bfloat16": "BFLOAT16", "string": "STRING",
       "complex64": "COMPLEX64", "complex128": "COMPLEX128"}


def _dt_name(dtype):
    return "DT_" + _DT.get(dtype.name, dtype.name.upper())


def _resolve(ckpt_dir_or_file):
    """The checkpoint prefix a directory or prefix names (TF's ``_get_checkpoint_filename``)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        from .checkpoint_manager import latest_checkpoint

        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A :class:`CheckpointReader` for a checkpoint prefix, or for the newest checkpoint of a directory.

    Raises:
        ValueError: for a directory without checkpoints.
        NotFoundError: for a prefix with no checkpoint.
    """
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """``[(key, shape), ...]`` of every value in the checkpoint, sorted by key (shapes as lists of ints)."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return [(key, shape) for key, shape in sorted(reader.get_variable_to_shape_map().items())]


def load_variable(ckpt_dir_or_file, name):
    """The value saved under the key ``name`` (a trailing ``:0`` is ignored), as a NumPy array.

    Raises:
        NotFoundError: ``Key <name> not found in checkpoint``.
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)

"""``Dataset.cache``: in memory, or in files that outlive the process.

The file cache keeps TF's protocol: while the first iteration writes, ``<filename>_0.lockfile`` exists and a second
writer fails with TF's ``AlreadyExistsError``; an iteration abandoned midway leaves nothing behind; a complete one
commits ``<filename>.data-00000-of-00001`` and then ``<filename>.index``, which later datasets with the same
``filename`` read instead of running their input. The files are tapeflow's own format (TF's are its tensor-bundle
format), read and written with NumPy only: the data file is a ``.npz`` without pickled objects holding, per
component, the elements' values end to end, their shapes and ranks; the index is JSON naming the dtypes.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from .._core import errors
from .._core.dtypes import as_dtype, string
from .._core.tensor import convert_to_tensor
from . import spec as _spec
from .dataset import KernelError, _Unary

_MAGIC = "tapeflow dataset cache 1"
_DATA = ".data-00000-of-00001"


class CacheDataset(_Unary):
    """``cache()``: the first complete iteration keeps every element; later iterations read them back."""

    def __init__(self, input_dataset, filename):
        self._filename = filename.numpy().decode() if hasattr(filename, "numpy") else str(filename or "")
        self._memory = None
        super().__init__(input_dataset)

    def _elements(self):
        if not self._filename:
            return self._in_memory()
        if os.path.exists(self._filename + ".index"):
            return self._read()
        return self._write()

    def _in_memory(self):
        if self._memory is not None:
            yield from self._memory
            return
        kept = []
        for element in self._input._elements():
            kept.append(element)
            yield element
        self._memory = kept

    # ------------------------------------------------------------------------------------------------ files

    def _write(self):
        lock = f"{self._filename}_0.lockfile"
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            with open(lock) as f:
                contents = f.read()
            raise KernelError(errors.AlreadyExistsError,
                              f"There appears to be a concurrent caching iterator running - cache lockfile already "
                              f"exists ('{lock}'). If you are sure no other running TF computations are using this "
                              f"cache prefix, delete the lockfile and re-initialize the iterator. Lockfile "
                              f"contents: {contents}") from None
        except FileNotFoundError:
            raise KernelError(errors.NotFoundError, f"{lock}; No such file or directory") from None
        with os.fdopen(fd, "w") as f:
            f.write(f"Created at: {int(time.time())}")
        done = False
        try:
            kept = []
            for element in self._input._elements():
                kept.append([t.numpy() for t in _spec.flatten(element)])
                yield element
            self._commit(kept)
            done = True
        finally:  # also when the iteration is abandoned (the generator is closed): nothing is left behind
            os.remove(lock)
            if not done:
                _remove(self._filename + _DATA + ".tmp")

    def _commit(self, kept):
        specs = _spec.flatten(self.element_spec)
        arrays = {}
        for c, s in enumerate(specs):
            values = [np.asarray(e[c]) for e in kept]
            # shapes end to end with each element's rank: a component of unknown rank may vary
            arrays[f"ranks{c}"] = np.array([v.ndim for v in values], dtype=np.int64)
            arrays[f"shapes{c}"] = np.array([d for v in values for d in v.shape], dtype=np.int64)
            if s.dtype == string:
                flat = [b for v in values for b in v.ravel()]
                arrays[f"lengths{c}"] = np.array([len(b) for b in flat], dtype=np.int64)
                arrays[f"values{c}"] = np.frombuffer(b"".join(flat), dtype=np.uint8)
            else:
                arrays[f"values{c}"] = (np.concatenate([v.ravel() for v in values]) if values
                                        else np.zeros([0], s.dtype.as_numpy_dtype))
        tmp = self._filename + _DATA + ".tmp"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, self._filename + _DATA)
        index = {"magic": _MAGIC, "elements": len(kept), "dtypes": [s.dtype.name for s in specs]}
        with open(self._filename + ".index.tmp", "w") as f:
            json.dump(index, f)
        os.replace(self._filename + ".index.tmp", self._filename + ".index")  # the commit: written last

    def _read(self):
        try:
            with open(self._filename + ".index") as f:
                index = json.load(f)
            if index.get("magic") != _MAGIC:
                raise ValueError
            data = np.load(self._filename + _DATA, allow_pickle=False)
        except (OSError, ValueError):
            raise KernelError(errors.DataLossError, f"{self._filename}.index is not a cache written by tapeflow, "
                                                    f"or it is damaged") from None
        specs = _spec.flatten(self.element_spec)
        for c, (s, name) in enumerate(zip(specs, index["dtypes"])):
            if s.dtype.name != name:
                raise KernelError(errors.InvalidArgumentError, f"Data type mismatch at component {c}: expected "
                                                               f"{s.dtype.name} but got {name}.")
        components = [_split(data, c, s) for c, s in enumerate(specs)]
        for i in range(index["elements"]):
            yield _spec.pack(self.element_spec, [comp[i] for comp in components])


def _split(data, c, s):
    """The elements of component ``c`` (spec ``s``) as tensors."""
    ends = np.cumsum(data[f"ranks{c}"])
    dims = data[f"shapes{c}"]
    shapes = [tuple(int(d) for d in dims[e - r:e]) for e, r in zip(ends, data[f"ranks{c}"])]
    sizes = [int(np.prod(shape)) for shape in shapes]
    out = []
    if s.dtype == string:
        lengths, raw = data[f"lengths{c}"], data[f"values{c}"].tobytes()
        stops = np.cumsum(lengths)
        strings = [raw[e - n:e] for e, n in zip(stops, lengths)]
        pos = 0
        for shape, size in zip(shapes, sizes):
            arr = np.empty(size, dtype=object)
            arr[:] = strings[pos:pos + size]
            pos += size
            out.append(convert_to_tensor(arr.reshape(shape), dtype=string))
        return out
    values = data[f"values{c}"].astype(as_dtype(s.dtype).as_numpy_dtype, copy=False)
    pos = 0
    for shape, size in zip(shapes, sizes):
        out.append(convert_to_tensor(values[pos:pos + size].reshape(shape)))
        pos += size
    return out


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass

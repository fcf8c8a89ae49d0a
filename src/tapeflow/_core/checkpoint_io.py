"""Crash-safe reading and writing of tapeflow checkpoint files and of the ``checkpoint`` state file.

A checkpoint ``<prefix>`` is the single file ``<prefix>.npz``: a ZIP archive (stored, uncompressed) that NumPy reads
with ``np.load``. It holds

* ``index.json``: ``{"format": "tapeflow-checkpoint", "version": 1, "entries": {key: {...}}}``, one entry per saved
  value with its ``dtype`` (NumPy name), ``shape``, ``full_name`` (the variable's name without ``:0``) and, for an
  optimizer slot, ``"slot": {"variable": <path of the variable it belongs to>, "optimizer": <optimizer path>,
  "name": <slot name such as "momentum">}``;
* ``<key>.npy`` for every key, in NumPy's ``.npy`` format, so ``np.load(f"{prefix}.npz")[key]`` is the value.

Keys follow TensorFlow's naming: ``net/w/.ATTRIBUTES/VARIABLE_VALUE`` for a variable reached as ``ckpt.net.w``;
``net/w/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/VARIABLE_VALUE`` for an optimizer's slot of that variable.

The state file ``<directory>/checkpoint`` uses TensorFlow's text format (``model_checkpoint_path: "ckpt-3"``,
``all_model_checkpoint_paths: ...``, ``all_model_checkpoint_timestamps: ...``, ``last_preserved_timestamp: ...``),
paths relative to the directory when they lie inside it.

Every file is written to a temporary file in the destination directory, flushed, ``fsync``-ed, moved into place
with ``os.replace`` and the directory is ``fsync``-ed: a crash at any point leaves either the old file or the new
one, never a partial file under the final name.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import zipfile

import numpy as np

from . import errors

__all__ = ["write_checkpoint", "read_checkpoint", "checkpoint_exists", "data_path", "write_state", "read_state"]

FORMAT = "tapeflow-checkpoint"
VERSION = 1
SUFFIX = ".npz"
STATE_FILE = "checkpoint"

# Called as ``_WRITE_HOOK(key)`` after each value is written into the temporary file (tests use it to stop a
# writer midway).
_WRITE_HOOK = None


def data_path(prefix) -> str:
    """The file holding the checkpoint ``prefix``."""
    return os.fspath(prefix) + SUFFIX


def checkpoint_exists(prefix) -> bool:
    return os.path.isfile(data_path(prefix))


def _fsync_dir(directory):
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:  # some platforms cannot open directories; the rename itself is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _atomic_write(path, write):
    """Run ``write(fileobj)`` on a temporary file next to ``path``, then move it into place durably."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def write_checkpoint(prefix, values, meta):
    """Write ``values`` (key -> NumPy array) with per-key metadata ``meta`` as the checkpoint ``prefix``."""
    index = {"format": FORMAT, "version": VERSION, "entries": {}}
    for key, value in values.items():
        entry = dict(meta.get(key, {}))
        entry.update(dtype=value.dtype.name, shape=list(value.shape))
        index["entries"][key] = entry

    def write(f):
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            zf.writestr("index.json", json.dumps(index, indent=1, sort_keys=True))
            for key, value in values.items():
                with zf.open(key + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asarray(value, order="C"), allow_pickle=False)
                if _WRITE_HOOK is not None:
                    _WRITE_HOOK(key)

    _atomic_write(data_path(prefix), write)


def _not_found(prefix):
    return errors.NotFoundError(
        None, None,
        f"Error when restoring from checkpoint or SavedModel at {prefix}: Unsuccessful TensorSliceReader "
        f"constructor: Failed to find any matching files for {prefix}\nPlease double-check that the path is "
        "correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")


def read_checkpoint(prefix):
    """``(index entries, values)`` of the checkpoint ``prefix``; ``NotFoundError`` if there is none."""
    path = data_path(prefix)
    if not os.path.isfile(path):
        raise _not_found(prefix)
    with zipfile.ZipFile(path) as zf:
        index = json.loads(zf.read("index.json"))
        if index.get("format") != FORMAT:
            raise errors.DataLossError(None, None, f"{path} is not a tapeflow checkpoint.")
        values = {}
        for key in index["entries"]:
            values[key] = np.lib.format.read_array(io.BytesIO(zf.read(key + ".npy")), allow_pickle=False)
    return index["entries"], values


def remove_checkpoint(prefix):
    try:
        os.unlink(data_path(prefix))
    except FileNotFoundError:
        pass


# --- the "checkpoint" state file ---------------------------------------------------------------------------
def _relative(directory, path):
    path = os.fspath(path)
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def write_state(directory, latest, all_paths, timestamps=None, last_preserved=None):
    """Write the state file of ``directory`` atomically."""
    lines = [f'model_checkpoint_path: "{_relative(directory, latest)}"']
    lines += [f'all_model_checkpoint_paths: "{_relative(directory, p)}"' for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or ()]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    text = "\n".join(lines) + "\n"
    _atomic_write(os.path.join(directory, STATE_FILE), lambda f: f.write(text.encode()))


_LINE = re.compile(r'^\s*(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))\s*$')


def read_state(directory):
    """The state of ``directory`` as a dict (paths made absolute), or ``None`` without a readable state file."""
    path = os.path.join(os.fspath(directory), STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    state = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [], "all_model_checkpoint_timestamps": [],
             "last_preserved_timestamp": None}
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        key, text_value, number = match.groups()
        if key in ("model_checkpoint_path", "all_model_checkpoint_paths"):
            value = text_value if text_value is not None else number
            if not os.path.isabs(value):
                value = os.path.join(os.fspath(directory), value)
            if key == "model_checkpoint_path":
                state[key] = value
            else:
                state[key].append(value)
        elif key == "all_model_checkpoint_timestamps":
            state[key].append(float(number))
        elif key == "last_preserved_timestamp":
            state[key] = float(number)
    if state["model_checkpoint_path"] is None:
        return None
    return state

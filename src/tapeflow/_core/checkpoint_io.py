"""Crash-safe writing and bounded, checked reading of tapeflow checkpoint files and of the ``checkpoint`` state file.

A checkpoint ``<prefix>`` is the single file ``<prefix>.npz``: a ZIP archive (stored, uncompressed) that NumPy reads
with ``np.load``. It holds

* ``index.json``: ``{"format": "tapeflow-checkpoint", "version": 1, "entries": {key: {...}}}``, one entry per saved
  value with its ``dtype`` (NumPy name), ``shape``, ``full_name`` (the variable's name without ``:0``) and, for an
  optimizer slot, ``"slot": {"variable": <path of the variable it belongs to>, "optimizer": <optimizer path>,
  "name": <slot name such as "momentum">}``. A checkpoint written by a ``CheckpointManager`` also has
  ``"manager_save_time"``: the time its save began (what lets a later manager recognise it as an orphan);
* ``<key>.npy`` for every key, in NumPy's ``.npy`` format, so ``np.load(f"{prefix}.npz")[key]`` is the value.

Keys follow TensorFlow's naming: ``net/w/.ATTRIBUTES/VARIABLE_VALUE`` for a variable reached as ``ckpt.net.w``;
``net/w/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/VARIABLE_VALUE`` for an optimizer's slot of that variable.

Writing: every file is written to a temporary file ``.<name>~<host>~<pid>~<random>.tmp`` in the destination
directory, flushed, ``fsync``-ed, moved into place with ``os.replace``, and the directory is ``fsync``-ed: a crash
at any point leaves either the old file or the new one under the final name, never a partial file. The host and pid
in the temporary name say which process wrote it, so a later process can tell debris of a dead writer from the file
of a live one (:func:`remove_stale_temporaries`).

Reading trusts nothing in the file: every member must be stored (tapeflow never compresses), so no member can
inflate beyond the bytes on disk; each ``.npy`` member's size, dtype and shape must be those the index records
before its bytes are read; ZIP's CRC-32 of every member is checked, so a flipped bit is an error, not a wrong value.
Any failure becomes TensorFlow's ``DataLossError`` naming the file (``NotFoundError`` if it is missing), at one
place, :func:`reading`.

The state file ``<directory>/checkpoint`` is TensorFlow's text format, read and written by :mod:`.checkpoint_state`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import secrets
import time
import zipfile

import numpy as np

from . import errors

__all__ = ["write_checkpoint", "read_checkpoint", "read_index", "checkpoint_exists", "data_path", "atomic_write",
           "write_npz", "remove_stale_temporaries", "reading", "read_npy_members"]

FORMAT = "tapeflow-checkpoint"
VERSION = 1
SUFFIX = ".npz"
# A .npy header is a short dict literal; NumPy itself refuses headers above 10,000 bytes unless told otherwise.
_MAX_NPY_HEADER = 10_000
_MAX_RANK = 64

# Called as ``_WRITE_HOOK(key)`` after each value is written into the temporary file (tests use it to stop a
# writer midway).
_WRITE_HOOK = None


def data_path(prefix) -> str:
    """The file holding the checkpoint ``prefix``."""
    return os.fspath(prefix) + SUFFIX


def checkpoint_exists(prefix) -> bool:
    return os.path.isfile(data_path(prefix))


# --- atomic writes and their temporary files -------------------------------------------------------------------
_live = set()  # absolute paths of the temporary files this process is writing right now
_host_name = None


def _host():
    """This machine's name, reduced to characters that cannot be confused with the ``~`` separators."""
    global _host_name
    if _host_name is None:
        import platform

        _host_name = re.sub(r"[^A-Za-z0-9._-]", "_", platform.node())[:64] or "host"
    return _host_name


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


def _create_temporary(directory, target):
    while True:
        tmp = os.path.join(directory, f".{target}~{_host()}~{os.getpid()}~{secrets.token_hex(4)}.tmp")
        # Registered before it exists, so a cleanup running in another thread never takes it for debris.
        _live.add(tmp)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), tmp
        except FileExistsError:
            _live.discard(tmp)


def atomic_write(path, write):
    """Run ``write(fileobj)`` on a temporary file next to ``path``, then move it into place durably."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = _create_temporary(directory, os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        _live.discard(tmp)
    _fsync_dir(directory)


_TEMPORARY = re.compile(r"\.(?P<target>.+)~(?P<host>[A-Za-z0-9._-]*)~(?P<pid>\d+)~[0-9a-f]+\.tmp")
# A temporary file untouched for this long is debris whoever wrote it: a live writer keeps writing into its file
# and renames it right after its fsync, which takes seconds, not a day.
STALE_AFTER_SECONDS = 24 * 3600


def _alive(pid):
    if os.name != "posix":  # no harmless probe (os.kill would terminate the process): assume it runs
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, under another user
        return True
    return True


def remove_stale_temporaries(directory, owns):
    """Delete the temporary files in ``directory`` left by writers that died, for targets ``owns(name)`` accepts.

    A temporary file is debris when its writer is gone: written on this host by a process that no longer runs (a
    file with this process's own pid that this process is not writing is from an earlier process that had the same
    pid, as after a container restart), or, from any host, untouched for ``STALE_AFTER_SECONDS``. A file of a live
    writer is never removed, so a cleanup cannot break a save running in another process. A pid reused by an
    unrelated process only delays the cleanup until the age limit. Returns the removed paths.
    """
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        match = _TEMPORARY.fullmatch(name)
        if not match or not owns(match["target"]):
            continue
        path = os.path.join(os.path.abspath(directory), name)
        if path in _live:
            continue
        pid = int(match["pid"])
        dead = match["host"] == _host() and (pid == os.getpid() or not _alive(pid))
        try:
            if not dead and now - os.stat(path).st_mtime < STALE_AFTER_SECONDS:
                continue
            os.unlink(path)
            removed.append(path)
        except OSError:  # gone already, or not ours to delete
            continue
    return removed


# --- writing checkpoints ---------------------------------------------------------------------------------------
def _refuse_strings(name, value):
    if value.dtype.hasobject:  # tapeflow's string tensors are arrays of Python bytes objects
        raise errors.UnimplementedError(
            None, None, f"Cannot save '{name}': tapeflow's files hold numeric and boolean values, and this value "
            "is a string tensor.")


def _write_archive(f, arrays, index=None):
    """Write a stored (uncompressed) ZIP of ``<name>.npy`` members to ``f``, after ``index.json`` if given."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        if index is not None:
            zf.writestr("index.json", json.dumps(index, indent=1, sort_keys=True))
        for name, value in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(value, order="C"), allow_pickle=False)
            if _WRITE_HOOK is not None:
                _WRITE_HOOK(name)


def write_npz(path, arrays):
    """Write ``arrays`` (name -> NumPy array) atomically as an ``.npz`` archive that ``np.load`` reads."""
    for name, value in arrays.items():
        if value.dtype.kind != "U":
            _refuse_strings(name, value)
    atomic_write(path, lambda f: _write_archive(f, arrays))


def write_checkpoint(prefix, values, meta, extra=None):
    """Write ``values`` (key -> NumPy array) with per-key metadata ``meta`` as the checkpoint ``prefix``.

    ``extra`` adds top-level fields to the index (the manager's ``manager_save_time``).
    """
    index = {"format": FORMAT, "version": VERSION, **(extra or {}), "entries": {}}
    for key, value in values.items():
        _refuse_strings(key, value)
        entry = dict(meta.get(key, {}))
        entry.update(dtype=value.dtype.name, shape=list(value.shape))
        index["entries"][key] = entry
    atomic_write(data_path(prefix), lambda f: _write_archive(f, values, index))


def remove_checkpoint(prefix):
    with contextlib.suppress(FileNotFoundError):
        os.unlink(data_path(prefix))


# --- reading: one conversion point for every failure ------------------------------------------------------------
class Corrupt(Exception):
    """Raised inside :func:`reading` for content that breaks the format; becomes a ``DataLossError``."""


def _not_found(prefix):
    return errors.NotFoundError(
        None, None,
        f"Error when restoring from checkpoint or SavedModel at {prefix}: Unsuccessful TensorSliceReader "
        f"constructor: Failed to find any matching files for {prefix}\nPlease double-check that the path is "
        "correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').")


@contextlib.contextmanager
def reading(path, error=errors.DataLossError):
    """Turn whatever reading ``path`` raises into TensorFlow's error classes, naming the file.

    A missing file is ``NotFoundError``, an unreadable one ``PermissionDeniedError``, and anything else (ZIP, JSON,
    ``.npy`` header or CRC failures, I/O errors, sizes that do not add up) ``error``, TF's ``DataLossError``
    unless the caller passes a subclass. Errors already of TF's classes pass through.
    """
    try:
        yield
    except errors.OpError:
        raise
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    except MemoryError:
        raise errors.ResourceExhaustedError(None, None, f"Out of memory while reading {path}") from None
    except Exception as exc:  # noqa: BLE001 - the file's content is untrusted: every failure is a damaged file
        detail = str(exc) if isinstance(exc, Corrupt) else f"{type(exc).__name__}: {exc}"
        raise error(None, None, f"Unable to read file ({path}). Perhaps the file is corrupt or was produced by a "
                                f"newer version of tapeflow with format changes ({detail})") from None


def _member_bytes(zf, name, limit):
    """The bytes of member ``name``, refused before reading if it is compressed or declares more than ``limit``."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise Corrupt(f"the archive has no member {name!r}") from None
    if info.compress_type != zipfile.ZIP_STORED:
        raise Corrupt(f"member {name!r} is compressed; tapeflow stores every member uncompressed")
    if info.file_size != info.compress_size or info.file_size > limit:
        raise Corrupt(f"member {name!r} declares {info.file_size} bytes where at most {limit} can be right")
    return zf.read(info)  # checks the CRC-32


def _npy(zf, name, archive_size, dtype=None, shape=None):
    """The array of the ``.npy`` member ``name``; with ``dtype``/``shape``, it must have exactly those."""
    limit = archive_size
    if dtype is not None:
        nbytes = dtype.itemsize * _count(shape)
        limit = min(limit, nbytes + _MAX_NPY_HEADER + 12)  # magic, version, header length and the header itself
    data = _member_bytes(zf, name, limit)
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise Corrupt(f"member {name!r} is in .npy format version {version}, which tapeflow never writes")
    have_shape, fortran, have_dtype = read_header(stream, max_header_size=_MAX_NPY_HEADER)
    if have_dtype.hasobject or have_dtype.kind not in "biufcSU" or have_dtype.itemsize == 0:
        raise Corrupt(f"member {name!r} holds values of dtype {have_dtype}, which tapeflow never writes")
    if dtype is not None and (have_dtype.name != dtype.name or tuple(have_shape) != tuple(shape)):
        raise Corrupt(f"member {name!r} holds {have_dtype.name} values of shape {tuple(have_shape)}; the index "
                      f"records {dtype.name} of shape {tuple(shape)}")
    count = _count(have_shape)
    body = memoryview(data)[stream.tell():]
    if len(body) != count * have_dtype.itemsize:
        raise Corrupt(f"member {name!r} has {len(body)} bytes of values; its header calls for "
                      f"{count * have_dtype.itemsize}")
    order = "F" if fortran else "C"
    array = np.frombuffer(body, dtype=have_dtype, count=count).reshape(have_shape, order=order)
    return np.array(array, dtype=have_dtype.newbyteorder("="), order="C")  # a native, writable copy


def _count(shape):
    count = 1
    for d in shape:
        count *= d
    return count


def _archive(path):
    """``(ZipFile, size in bytes)`` for ``path`` (inside :func:`reading`)."""
    size = os.path.getsize(path)
    return zipfile.ZipFile(path), size


def read_npy_members(path, wanted=None):
    """``{member name without .npy: array}`` of the ``.npy`` members of the archive ``path`` (all, or those for
    which ``wanted(name)`` is true), read with the same bounds and checks as a checkpoint. Call inside
    :func:`reading`."""
    zf, size = _archive(path)
    with zf:
        names = [n for n in zf.namelist() if n.endswith(".npy") and (wanted is None or wanted(n[:-4]))]
        return {n[:-4]: _npy(zf, n, size) for n in names}


def _index(zf, size):
    if "index.json" not in zf.NameToInfo:
        raise Corrupt("it has no index.json: not a tapeflow checkpoint")
    index = json.loads(_member_bytes(zf, "index.json", size))
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise Corrupt("its index is not that of a tapeflow checkpoint")
    if index.get("version") != VERSION:
        raise Corrupt(f"format version {index.get('version')!r}; this tapeflow reads version {VERSION}")
    entries = index.get("entries")
    if not isinstance(entries, dict):
        raise Corrupt("its index has no entries")
    checked = {}
    for key, entry in entries.items():
        checked[key] = entry, _entry_dtype(key, entry)
    return index, checked


def _entry_dtype(key, entry):
    """The NumPy dtype an index entry records, after checking the entry's fields have the types tapeflow writes."""
    if not isinstance(entry, dict):
        raise Corrupt(f"index entry {key!r} is not a record")
    shape, name = entry.get("shape"), entry.get("dtype")
    if (not isinstance(shape, list) or len(shape) > _MAX_RANK
            or not all(type(d) is int and d >= 0 for d in shape)):
        raise Corrupt(f"index entry {key!r} has an invalid shape {shape!r}")
    if not isinstance(name, str) or not isinstance(entry.get("full_name", ""), str):
        raise Corrupt(f"index entry {key!r} has an invalid dtype or name")
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise Corrupt(f"index entry {key!r} has an unknown dtype {name!r}") from None
    if dtype.name != name or dtype.kind not in "biufc":
        raise Corrupt(f"index entry {key!r} has a dtype tapeflow never writes: {name!r}")
    slot = entry.get("slot")
    if slot is not None and not (isinstance(slot, dict) and all(
            isinstance(slot.get(k), str) for k in ("variable", "optimizer", "name"))):
        raise Corrupt(f"index entry {key!r} has an invalid optimizer slot record")
    return dtype


def read_checkpoint(prefix):
    """``(index entries, values)`` of the checkpoint ``prefix``.

    Raises:
        NotFoundError: if there is no such checkpoint.
        DataLossError: if its file is damaged in any way (nothing of it is returned then).
    """
    path = data_path(prefix)
    if not os.path.isfile(path):
        raise _not_found(prefix)
    with reading(path):
        zf, size = _archive(path)
        with zf:
            _, checked = _index(zf, size)
            values = {key: _npy(zf, key + ".npy", size, dtype, entry["shape"])
                      for key, (entry, dtype) in checked.items()}
    return {key: entry for key, (entry, _) in checked.items()}, values


def read_index(prefix):
    """The index of the checkpoint ``prefix`` (its values unread), or ``None`` if it is missing or damaged."""
    try:
        with reading(data_path(prefix)):
            zf, size = _archive(data_path(prefix))
            with zf:
                return _index(zf, size)[0]
    except errors.OpError:
        return None

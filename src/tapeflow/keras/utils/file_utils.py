"""``tf.keras.utils.get_file``: a file downloaded once into Keras's cache (``~/.keras/datasets``), checked against a
hash, optionally extracted, as Keras 3 does it, with the standard library's ``urllib``, ``hashlib``, ``tarfile`` and
``zipfile`` (the guides load their example data with it)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import warnings

from .progbar import Progbar

# ``urllib.request``, ``tarfile`` and ``zipfile`` are imported on first use: they cost more to import than the rest
# of ``tf.keras.utils`` (``urllib.request`` loads ``http.client`` and ``email``).

__all__ = ["get_file", "hash_file", "validate_file", "extract_archive"]


def _keras_home():
    return os.path.expanduser(os.environ.get("KERAS_HOME", os.path.join("~", ".keras")))


def _hasher(algorithm, file_hash=None):
    """sha256 when asked, or for ``"auto"`` with a 64-character hash; md5 otherwise (Keras's legacy default)."""
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None and len(file_hash) == 64):
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath, algorithm="sha256", chunk_size=65535):
    """The hex digest of the file at ``fpath`` (``"sha256"``, ``"md5"``, ``"auto"``: sha256, or a hashlib object)."""
    hasher = _hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Whether the file at ``fpath`` has the hash ``file_hash``."""
    return str(hash_file(fpath, _hasher(algorithm, file_hash), chunk_size)) == str(file_hash)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract a tar (plain, gzip or bzip2) or zip archive into ``path``; ``False`` when it is none of
    ``archive_format`` (``"auto"``: tar then zip). A failed extraction leaves nothing at ``path``."""
    import tarfile  # noqa: PLC0415 - (see the imports above)
    import zipfile  # noqa: PLC0415

    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else [archive_format] if isinstance(
        archive_format, str) else list(archive_format)
    file_path, path = os.fspath(file_path), os.fspath(path)
    for kind in formats:
        is_kind, opener = (tarfile.is_tarfile, tarfile.open) if kind == "tar" else (zipfile.is_zipfile,
                                                                                      zipfile.ZipFile)
        if not is_kind(file_path):
            continue
        with opener(file_path) as archive:
            try:
                if kind == "tar":
                    archive.extractall(path, filter="data")  # (refuses members that would land outside ``path``)
                else:
                    _extract_zip(archive, path)
            except (tarfile.TarError, zipfile.BadZipFile, RuntimeError, KeyboardInterrupt, OSError, ValueError):
                if os.path.isdir(path):
                    shutil.rmtree(path)
                elif os.path.exists(path):
                    os.remove(path)
                raise
        return True
    return False


def _extract_zip(archive, path):
    root = os.path.realpath(path)
    for member in archive.namelist():
        target = os.path.realpath(os.path.join(root, member))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"Refusing to extract {member!r}: it would be written outside {path!r}")
    archive.extractall(path)


class _DownloadProgress:
    """``urlretrieve``'s report hook as a Keras progress bar."""

    def __init__(self):
        self.progbar = None
        self.finished = False

    def __call__(self, block_num, block_size, total_size):
        total = None if total_size == -1 else total_size
        if self.progbar is None:
            self.progbar = Progbar(total)
        current = block_num * block_size
        if total is None or current < total:
            self.progbar.update(current)
        elif not self.finished:
            self.progbar.update(self.progbar.target)
            self.finished = True


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """The local path of ``origin``'s file, downloaded into ``<cache_dir>/<cache_subdir>`` unless it is there
    already with the right ``file_hash`` (``tf.keras.utils.get_file``). With ``extract``, the archive is unpacked
    and the directory returned. A failed download leaves no partial file and raises Keras's
    ``Exception("URL fetch failure on <origin>: <code> -- <reason>")``."""
    import urllib.error  # noqa: PLC0415 - (see the imports above)
    import urllib.parse  # noqa: PLC0415
    import urllib.request  # noqa: PLC0415

    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir if cache_dir is not None else _keras_home())
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    given = fname
    fname = os.fspath(fname) if fname is not None else None
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname or fname in (os.curdir, os.pardir):
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'. Please specify the "
                             "`fname` argument.")
    elif os.sep in fname or (os.altsep and os.altsep in fname):
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the file's parent "
                         f"directory, use the `cache_dir` argument. Received: fname={fname}")
    if extract or untar:
        if given and "." in fname:
            target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, f"{fname[:fname.find('.')]}_extracted")
        else:
            extraction_dir = os.path.join(datadir, fname)
            target = os.path.join(datadir, f"{fname}_archive")
    else:
        target = os.path.join(datadir, fname)

    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
        print(f"A local file was found, but it seems to be incomplete or outdated because the {hash_algorithm} file "
              f"hash does not match the original value of {file_hash} so we will re-download the data.")
        download = True
    if download:
        print(f"Downloading data from {origin}")
        try:
            try:
                urllib.request.urlretrieve(origin, target, _DownloadProgress())
            except urllib.error.HTTPError as e:
                raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from None
            except urllib.error.URLError as e:
                raise Exception(f"URL fetch failure on {origin}: {e.errno} -- {e.reason}") from None
        except (Exception, KeyboardInterrupt):
            if os.path.exists(target):
                os.remove(target)
            raise
        if os.path.exists(target) and file_hash is not None and not validate_file(target, file_hash,
                                                                                   hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file hash does not match "
                             f"the provided value of {file_hash}.")
    if extract or untar:
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
        return extraction_dir
    return target

"""``tf.keras.utils.get_file`` against a local HTTP server: the cache paths, messages and errors Keras 3 in TF 2.21
gives for the same calls (recorded by running them under TF: ``datasets/<name>``, ``<name>_archive`` and
``<stem>_extracted`` for archives, "URL fetch failure on <origin>: <code> -- <reason>")."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile

import pytest

import tapeflow as tf

get_file = tf.keras.utils.get_file


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    (root / "a.txt").write_bytes(b"hello world\n")
    with tarfile.open(root / "arch.tar.gz", "w:gz") as tar:
        tar.add(root / "a.txt", arcname="a.txt")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("inner/b.txt", "zip content")
    (root / "arch.zip").write_bytes(buffer.getvalue())
    handler = functools.partial(_Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_downloads_once_into_the_cache(server, tmp_path, capsys):
    path = get_file(origin=f"{server}/a.txt", cache_dir=tmp_path)
    assert os.path.relpath(path, tmp_path) == os.path.join("datasets", "a.txt")
    assert open(path, "rb").read() == b"hello world\n"
    assert f"Downloading data from {server}/a.txt" in capsys.readouterr().out
    digest = hashlib.sha256(b"hello world\n").hexdigest()
    assert get_file("a.txt", origin=f"{server}/a.txt", cache_dir=tmp_path, file_hash=digest) == path
    assert "Downloading" not in capsys.readouterr().out  # cached, and its hash checked


def test_archives_are_extracted_where_keras_puts_them(server, tmp_path):
    for sub in "abc":
        (tmp_path / sub).mkdir()  # (a cache directory that cannot be written falls back to /tmp/.keras, as Keras)
    path = get_file(origin=f"{server}/arch.tar.gz", cache_dir=tmp_path / "a", extract=True)
    assert os.path.relpath(path, tmp_path / "a") == os.path.join("datasets", "arch.tar.gz")
    assert os.listdir(path) == ["a.txt"]
    assert os.path.exists(tmp_path / "a" / "datasets" / "arch.tar.gz_archive")
    path = get_file("arch.tar.gz", origin=f"{server}/arch.tar.gz", cache_dir=tmp_path / "b", extract=True)
    assert os.path.relpath(path, tmp_path / "b") == os.path.join("datasets", "arch_extracted")
    path = get_file("arch.zip", origin=f"{server}/arch.zip", cache_dir=tmp_path / "c", extract=True)
    assert open(os.path.join(path, "inner", "b.txt")).read() == "zip content"


def test_failures_raise_keras_errors_and_leave_no_partial_file(server, tmp_path):
    with pytest.raises(Exception, match=f"URL fetch failure on {server}/missing.txt: 404 -- File not found"):
        get_file(origin=f"{server}/missing.txt", cache_dir=tmp_path)
    with pytest.raises(Exception, match=r"URL fetch failure on http://127.0.0.1:1/x.txt: None -- \[Errno 111\]"):
        get_file(origin="http://127.0.0.1:1/x.txt", cache_dir=tmp_path)
    assert os.listdir(tmp_path / "datasets") == []
    with pytest.raises(ValueError, match="Paths are no longer accepted as the `fname` argument"):
        get_file("a/b", origin="http://x/y", cache_dir=tmp_path)
    with pytest.raises(ValueError, match='Please specify the "origin" argument'):
        get_file(cache_dir=tmp_path)
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected. The auto file hash does not match"):
        get_file("c.txt", origin=f"{server}/a.txt", cache_dir=tmp_path, file_hash="0" * 64)


def test_a_stale_cached_file_is_downloaded_again(server, tmp_path, capsys):
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "a.txt").write_bytes(b"old")
    digest = hashlib.md5(b"hello world\n").hexdigest()
    path = get_file("a.txt", origin=f"{server}/a.txt", cache_dir=tmp_path, md5_hash=digest)
    out = capsys.readouterr().out
    assert "the md5 file hash does not match the original value" in out and "Downloading data from" in out
    assert open(path, "rb").read() == b"hello world\n"

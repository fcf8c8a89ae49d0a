"""Dataset.cache to files: what golden cases cannot show (another process reads the cache, nested elements of
varying shapes and strings come back exactly, an abandoned writer leaves nothing, a damaged cache is refused)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf


def _elements(ds):
    return [tf.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in ds]


def _ragged():
    return tf.data.Dataset.range(1, 5).map(
        lambda x: {"ids": tf.range(x), "text": tf.fill([x, 2], "é\x00"), "w": tf.cast(x, tf.float16)})


def test_roundtrip_of_nested_ragged_and_string_elements(tmp_path):
    path = str(tmp_path / "c")
    first = _elements(_ragged().cache(path))
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
    again = _elements(_ragged().cache(path))
    assert again == first
    assert again[1]["text"] == [["é\x00".encode(), "é\x00".encode()]] * 2  # bytes with a NUL survive


def test_cache_outlives_the_process(tmp_path):
    path = str(tmp_path / "c")
    code = ("import tapeflow as tf; ds = tf.data.Dataset.range(4).map(lambda x: x * 3).cache(%r); "
            "print([int(x) for x in ds])" % path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[0, 3, 6, 9]"
    # another process, another input: the cache is read instead
    assert [int(x) for x in tf.data.Dataset.range(100, 101).map(lambda x: x * 3).cache(path)] == [0, 3, 6, 9]


def test_empty_dataset_cache(tmp_path):
    path = str(tmp_path / "c")
    assert _elements(tf.data.Dataset.range(0).cache(path)) == []
    assert _elements(tf.data.Dataset.range(3).cache(path)) == []


def test_abandoned_writer_leaves_nothing_and_the_next_one_writes(tmp_path):
    path = str(tmp_path / "c")
    ds = tf.data.Dataset.range(5).cache(path)
    it = iter(ds)
    next(it)
    assert "c_0.lockfile" in os.listdir(tmp_path)
    del it
    assert os.listdir(tmp_path) == []
    assert [int(x) for x in ds] == [0, 1, 2, 3, 4]


def test_damaged_cache_is_refused(tmp_path):
    path = str(tmp_path / "c")
    list(tf.data.Dataset.range(3).cache(path))
    with open(path + ".index", "w") as f:
        f.write("not json")
    with pytest.raises(tf.errors.DataLossError, match="not a cache written by tapeflow"):
        list(tf.data.Dataset.range(3).cache(path))


def test_memory_cache_unchanged_by_files(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(3.0)).cache()
    assert _elements(ds) == _elements(ds) == [0.0, 1.0, 2.0]
    assert os.listdir(tmp_path) == []

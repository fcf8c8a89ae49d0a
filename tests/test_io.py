"""``tapeflow.io`` beyond what the TFRecord golden cases compare with TensorFlow: the optional extra (named when it
is missing, never imported by the core), records larger than the reader's chunks, and many of them."""

import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.io import example


def test_the_core_does_not_import_the_extra():
    code = ("import sys, tapeflow as tf; tf.constant(1.0); tf.data.Dataset.range(2)\n"
            "print(sorted(m for m in ('google.protobuf', 'google_crc32c') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("missing", ["google_crc32c", "google.protobuf"])
def test_a_missing_extra_is_named(tmp_path, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    monkeypatch.setattr(example, "_CLASSES", {})
    path = str(tmp_path / "r.tfrecord")
    if missing == "google_crc32c":
        for make in (lambda: tf.io.TFRecordWriter(path), lambda: tf.data.TFRecordDataset(path)):
            with pytest.raises(ImportError, match=r"pip install 'tapeflow\[tfrecord\]'"):
                make()
    else:
        with pytest.raises(ImportError, match=r"tf.train.Example needs the optional dependency `google`"):
            tf.train.Example()


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_large_and_many_records_round_trip(tmp_path, compression):
    rng = np.random.default_rng(0)
    records = [rng.bytes(n) for n in (0, 1, 65535, 65536, 200_001)] + [bytes([k % 256]) * k for k in range(300)]
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path, compression) as w:
        for k, r in enumerate(records):
            w.write(r)
            if k == 3:
                w.flush()
    got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression)]
    assert got == records


def test_a_closed_writer_refuses_to_write(tmp_path):
    w = tf.io.TFRecordWriter(str(tmp_path / "r.tfrecord"))
    w.close()
    w.close()  # (twice is fine)
    with pytest.raises(tf.errors.FailedPreconditionError):
        w.write(b"x")


def test_parsing_inside_a_traced_function_reads_each_call_s_records():
    T = tf.train
    records = [T.Example(features=T.Features(feature={"x": T.Feature(int64_list=T.Int64List(value=[k, -k]))}))
               .SerializeToString() for k in range(4)]
    spec = {"x": tf.io.FixedLenFeature([2], tf.int64), "d": tf.io.FixedLenFeature([], tf.float32, default_value=1.5)}

    @tf.function
    def one(record):
        return tf.io.parse_single_example(record, spec)

    @tf.function
    def total(ds):
        s = tf.zeros([2], tf.int64)
        for r in ds:
            s += tf.io.parse_single_example(r, spec)["x"]
        return s

    assert [one(r)["x"].numpy().tolist() for r in records] == [[k, -k] for k in range(4)]
    assert one(records[2])["d"].numpy() == np.float32(1.5)
    assert total(tf.data.Dataset.from_tensor_slices(records)).numpy().tolist() == [6, -6]
    batch = tf.function(lambda rs: tf.io.parse_example(rs, spec))(tf.constant(records[1:3]))
    assert batch["x"].numpy().tolist() == [[1, -1], [2, -2]]

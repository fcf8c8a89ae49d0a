"""TFRecord files and tf.train.Example (TF 2.21): files written by TensorFlow and by tapeflow (fixtures made by
``tools/write_tfrecord_fixtures.py``) read and parsed by either, writer/reader round trips with GZIP and ZLIB, the
Example messages (fields, serialized bytes, text), parsing with FixedLenFeature and its errors, and damaged files
(a flipped byte, a cut file): the records before the damage, then TF's DataLossError. Files a case writes go to a
fresh temporary directory, replaced by <tmp> in what is returned."""

import os
import shutil
import tempfile

import numpy as np

from tests.golden.harness import case, catch

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")

_SPEC = {"id": ((2,), "int64"), "score": ((2,), "float32"), "name": ((2,), "string")}


def _features(tf, spec=_SPEC):
    return {k: tf.io.FixedLenFeature(shape, getattr(tf, dtype)) for k, (shape, dtype) in spec.items()}


def _parsed(tf, path, compression=None):
    ds = tf.data.TFRecordDataset(path, compression_type=compression)
    return [tf.io.parse_single_example(r, _features(tf)) for r in ds]


class _Dir:
    def __enter__(self):
        self.dir = tempfile.mkdtemp()
        return self

    def __call__(self, name):
        return os.path.join(self.dir, name)

    def clean(self, value):
        if hasattr(value, "message"):
            return [value.type, value.message.replace(self.dir, "<tmp>")]
        return value

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)


def _records(ds):
    out = []
    try:
        for r in ds:
            out.append(r.numpy())
    except Exception as exc:  # noqa: BLE001 - what a damaged file gives: the records before, then the error
        out.append(catch(_reraise, exc))
    return out


def _reraise(exc):
    raise exc


@case
def reading_files_written_by_tensorflow_and_by_tapeflow(tf):
    out = {}
    for writer in ("tensorflow", "tapeflow"):
        path = os.path.join(FIXTURES, f"{writer}_written.tfrecord")
        out[writer] = [_parsed(tf, path), _parsed(tf, path + ".gz", "GZIP"),
                       int(tf.data.TFRecordDataset(path).cardinality())]
    return out


@case
def example_messages(tf):
    T = tf.train
    feature = {"a": T.Feature(int64_list=T.Int64List(value=[1, -2]))}
    ex = T.Example(features=T.Features(feature=feature))
    s = ex.SerializeToString()
    back = T.Example.FromString(s)
    f = T.Feature(float_list=T.FloatList(value=[0.5, 2.0]))
    b = T.Feature(bytes_list=T.BytesList(value=[b"x", "é".encode()]))
    return [s, str(ex), back == ex, list(back.features.feature["a"].int64_list.value), f.WhichOneof("kind"),
            str(f), str(b), T.Feature().WhichOneof("kind"), type(ex).__name__,
            T.SequenceExample(context=T.Features(feature=feature)).SerializeToString()]


@case
def writer_round_trips(tf):
    with _Dir() as d:
        out = []
        for options in (None, "", "GZIP", "ZLIB", tf.io.TFRecordOptions(compression_type="GZIP",
                                                                         compression_level=1)):
            path = d("r.tfrecord")
            with tf.io.TFRecordWriter(path, options) as w:
                w.write(b"first")
                w.write(b"")
                w.write("text")
                w.write(bytes(range(256)))
            kind = options if not hasattr(options, "compression_type") else options.compression_type
            out.append(_records(tf.data.TFRecordDataset(path, compression_type=kind)))
        w = tf.io.TFRecordWriter(d("two.tfrecord"))
        w.write(b"a")
        w.flush()
        w.write(b"b")
        w.close()
        out.append(_records(tf.data.TFRecordDataset([d("two.tfrecord"), d("r.tfrecord")],
                                                     compression_type="GZIP" if False else None))[:2])
        out.append(_records(tf.data.TFRecordDataset([d("two.tfrecord"), d("two.tfrecord")], num_parallel_reads=2)))
        return out


@case
def parsing_examples(tf):
    T = tf.train
    ex = T.Example(features=T.Features(feature={
        "i": T.Feature(int64_list=T.Int64List(value=[1, 2, 3, 4])),
        "f": T.Feature(float_list=T.FloatList(value=[0.25])),
        "s": T.Feature(bytes_list=T.BytesList(value=[b"hello"])),
    })).SerializeToString()
    one = tf.io.parse_single_example(ex, {
        "i": tf.io.FixedLenFeature([2, 2], tf.int64), "f": tf.io.FixedLenFeature([], tf.float32),
        "s": tf.io.FixedLenFeature([1], tf.string), "d": tf.io.FixedLenFeature([2], tf.float32, default_value=[7, 8]),
        "e": tf.io.FixedLenFeature([], tf.string, default_value="none")})
    many = tf.io.parse_example(tf.constant([ex, ex]), {"f": tf.io.FixedLenFeature([1], tf.float32)})
    return [one, many, tf.io.FixedLenFeature([2], tf.int64), tf.io.FixedLenFeature((), tf.string, "x")]


@case
def parsing_errors(tf):
    T = tf.train
    ex = T.Example(features=T.Features(feature={"i": T.Feature(int64_list=T.Int64List(value=[1, 2]))}))
    s = ex.SerializeToString()
    parse = tf.io.parse_single_example
    return [catch(parse, s, {"j": tf.io.FixedLenFeature([], tf.int64)}),
            catch(parse, s, {"i": tf.io.FixedLenFeature([], tf.float32)}),
            catch(parse, s, {"i": tf.io.FixedLenFeature([3], tf.int64)}),
            catch(parse, s, {"i": tf.io.FixedLenFeature([1], tf.int64), "k": tf.io.FixedLenFeature([], tf.int64,
                                                                                                  default_value=0)})]


@case
def damaged_files(tf):
    with _Dir() as d:
        good = d("good.tfrecord")
        with tf.io.TFRecordWriter(good) as w:
            for k in range(3):
                w.write(f"record {k}".encode())
        with open(good, "rb") as f:
            data = f.read()
        out = []
        for name, damaged in (("flip_data", data[:40] + bytes([data[40] ^ 1]) + data[41:]),
                              ("flip_length", data[:25] + bytes([data[25] ^ 1]) + data[26:]),
                              ("cut_in_data", data[:-6]), ("cut_in_header", data[:-(len(data) - 30)]),
                              ("bad_gzip", b"not gzip at all")):
            path = d(name)
            with open(path, "wb") as f:
                f.write(damaged)
            kind = "GZIP" if name == "bad_gzip" else None
            out.append([name, d.clean(_records(tf.data.TFRecordDataset(path, compression_type=kind))[-1]),
                        len(_records(tf.data.TFRecordDataset(path, compression_type=kind)))])
        out.append(d.clean(_records(tf.data.TFRecordDataset(d("missing.tfrecord")))[-1]))
        return out


@case
def parse_in_a_pipeline(tf):
    path = os.path.join(FIXTURES, "tensorflow_written.tfrecord")
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, _features(tf))).batch(3)
    batches = list(ds)
    return [ds.element_spec, batches, np.float32(sum(float(tf.reduce_sum(b["score"])) for b in batches))]


@case
def serialized_tensors(tf):
    values = [tf.constant([[1.5, 2.0]]), tf.constant(3), tf.constant([b"ab", b"c"]), tf.constant([True, False]),
              tf.constant(np.arange(3, dtype=np.uint8)), tf.constant(b"x"), tf.constant(np.zeros((2, 0), np.float64)),
              tf.constant([1, -2], tf.int64)]
    out = []
    for v in values:
        s = tf.io.serialize_tensor(v)
        out.append([s, tf.io.parse_tensor(s, v.dtype)])
    s = tf.io.serialize_tensor(tf.constant(1.0))
    return [out, catch(tf.io.parse_tensor, s, tf.int32), catch(tf.io.parse_tensor, b"garbage\xff", tf.int32)]

"""Write the TFRecord fixture files the golden cases read, with the library given (``tensorflow`` or
``tapeflow``): ``tests/golden/fixtures/<library>_written.tfrecord`` (uncompressed) and ``..._written.tfrecord.gz``
(GZIP). Each holds the same four ``tf.train.Example`` records (ints, floats, bytes, an empty feature list).

usage: python tools/write_tfrecord_fixtures.py tensorflow   # in an environment with TensorFlow 2.21
       python tools/write_tfrecord_fixtures.py tapeflow

The golden cases read both files with whichever library they run on, so TF's recording proves that TF reads
tapeflow's files, and tapeflow's run that it reads TF's.
"""

import importlib
import os
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "fixtures")


def examples(tf):
    T = tf.train
    out = []
    for i in range(4):
        feature = {
            "id": T.Feature(int64_list=T.Int64List(value=[i, -i * 1000000007])),
            "score": T.Feature(float_list=T.FloatList(value=[i / 3, -0.5])),
            "name": T.Feature(bytes_list=T.BytesList(value=[f"row {i}".encode(), b"\x00\xff"])),
            "empty": T.Feature(float_list=T.FloatList(value=[])),
        }
        out.append(T.Example(features=T.Features(feature=feature)).SerializeToString())
    return out


def main():
    name = sys.argv[1]
    tf = importlib.import_module(name)
    os.makedirs(FIXTURES, exist_ok=True)
    records = examples(tf)
    for suffix, options in (("", None), (".gz", "GZIP")):
        with tf.io.TFRecordWriter(os.path.join(FIXTURES, f"{name}_written.tfrecord{suffix}"), options) as w:
            for r in records:
                w.write(r)


if __name__ == "__main__":
    main()

"""tf.data from files (TF 2.21): TextLineDataset (line endings, empty lines, several files, GZIP and ZLIB,
num_parallel_reads, a dataset of names, a missing file) and Dataset.list_files (sorted, shuffled contents, no
match). Files are written to a fresh temporary directory, whose path is replaced by <tmp> in what is returned."""

import gzip
import os
import shutil
import tempfile
import zlib

from tests.golden.harness import case, catch


class _Files:
    def __enter__(self):
        self.dir = tempfile.mkdtemp()
        for name, data in (("a.txt", b"one\ntwo\r\nthree"), ("b.txt", b"x\n\ny\n"), ("e.txt", b""),
                           ("c.txt.gz", gzip.compress(b"g1\ng2\n")), ("z.txt", zlib.compress(b"z1\nz2"))):
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(data)
        return self

    def __call__(self, name):
        return os.path.join(self.dir, name)

    def clean(self, value):
        if hasattr(value, "message"):
            return [value.type, value.message.replace(self.dir, "<tmp>")]
        return value

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)


def _lines(ds):
    return [x.numpy() for x in ds]


@case
def text_lines(tf):
    with _Files() as f:
        T = tf.data.TextLineDataset
        return [repr(T(f("a.txt"))), int(T(f("a.txt")).cardinality()), _lines(T(f("a.txt"))),
                _lines(T([f("a.txt"), f("b.txt"), f("e.txt")])), _lines(T(f("c.txt.gz"), compression_type="GZIP")),
                _lines(T(f("z.txt"), compression_type="ZLIB")), _lines(T([], )),
                _lines(T([f("a.txt"), f("b.txt")], num_parallel_reads=2)),
                repr(T([f("a.txt"), f("b.txt")], num_parallel_reads=2))]


@case
def text_lines_errors(tf):
    with _Files() as f:
        T = tf.data.TextLineDataset
        return [f.clean(catch(_lines, T(f("missing.txt")))), catch(T, 5)]


@case
def list_files_forms(tf):
    with _Files() as f:
        ds = tf.data.Dataset.list_files(f("*.txt"), shuffle=False)
        shuffled = tf.data.Dataset.list_files([f("a*"), f("b*")], seed=1)
        names = [x.numpy().decode().replace(f.dir, "<tmp>") for x in ds]
        return [repr(ds), int(ds.cardinality()), names, repr(shuffled.element_spec), int(shuffled.cardinality()),
                sorted(x.numpy().decode().replace(f.dir, "<tmp>") for x in shuffled),
                f.clean(catch(tf.data.Dataset.list_files, f("*.nothing")))]


@case
def list_files_then_lines(tf):
    with _Files() as f:
        names = tf.data.Dataset.list_files(f("[ab].txt"), shuffle=False)
        return [_lines(names.interleave(tf.data.TextLineDataset, cycle_length=2)),
                _lines(tf.data.TextLineDataset(names)), repr(tf.data.TextLineDataset(names))]


@case
def cache_to_file(tf):
    with _Files() as f:
        ds = tf.data.Dataset.range(5).cache(f("c"))
        it = iter(ds)
        first = next(it)
        concurrent = f.clean(catch(next, iter(ds)))
        concurrent[1] = concurrent[1].split("Lockfile contents:")[0]  # holds the time it was created
        del it
        import gc

        gc.collect()
        after_abandon = sorted(os.listdir(f.dir))
        values = [int(x) for x in ds]
        other_input = [int(x) for x in tf.data.Dataset.range(10, 12).cache(f("c"))]
        wrong_type = f.clean(catch(list, tf.data.Dataset.from_tensor_slices(["a", "b"]).cache(f("c"))))
        no_dir = f.clean(catch(list, tf.data.Dataset.range(3).cache(f("nodir/x"))))
        return [repr(ds), first, concurrent, after_abandon, values, other_input, wrong_type, no_dir,
                int(tf.data.Dataset.range(3).cache(f("c")).cardinality())]


@case
def fixed_length_records(tf):
    with _Files() as f:
        for name, data in (("a.bin", b"HHabcdefghFF"), ("b.bin", b"HH0123FF"), ("bad.bin", b"HHabcdeFF"),
                           ("g.bin.gz", gzip.compress(b"HHxyzwFF"))):
            with open(f(name), "wb") as out:
                out.write(data)
        F = tf.data.FixedLengthRecordDataset
        return [repr(F(f("a.bin"), 2)), int(F(f("a.bin"), 2).cardinality()),
                _lines(F([f("a.bin"), f("b.bin")], 2, header_bytes=2, footer_bytes=2)),
                _lines(F(f("a.bin"), 4, header_bytes=2, footer_bytes=2)), _lines(F(f("a.bin"), 3)),
                _lines(F(f("g.bin.gz"), 2, header_bytes=2, footer_bytes=2, compression_type="GZIP")),
                _lines(F([f("a.bin"), f("b.bin")], 2, header_bytes=2, footer_bytes=2, num_parallel_reads=2)),
                f.clean(catch(_lines, F(f("bad.bin"), 2, header_bytes=2, footer_bytes=2))),
                f.clean(catch(_lines, F(f("a.bin"), 5))), f.clean(catch(_lines, F(f("missing"), 2)))]

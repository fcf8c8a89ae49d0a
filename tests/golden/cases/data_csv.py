"""CSV files in tf.data (TF 2.21): tf.data.experimental.CsvDataset (dtypes and defaults, missing fields, quotes,
select_cols, na_value, wrong field counts and values, the repr) and make_csv_dataset (inferred column types,
labels, selected columns, defaults, element specs). Files go to a fresh temporary directory."""

import os
import shutil
import tempfile

from tests.golden.harness import case, catch

_FILES = {
    "t.csv": "a,b,c,d\n1,2.5,x,7\n3,,\"y,z\",\n5,1e3,\"q\"\"r\",9\n",
    "bad.csv": "1,2\n3\n",
    "badnum.csv": "1,abc,3,4\n",
    "plain.csv": "4,0.5\n6,1.5\n8,\n",
}


class _Dir:
    def __enter__(self):
        self.dir = tempfile.mkdtemp()
        for name, text in _FILES.items():
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        return self

    def __call__(self, name):
        return os.path.join(self.dir, name)

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)


def _rows(ds):
    return catch(lambda: [[v.numpy() for v in r] for r in ds])


@case
def csv_dataset_records(tf):
    C = tf.data.experimental.CsvDataset
    with _Dir() as d:
        return [_rows(C(d("t.csv"), [0, 0.5, "d", 0], header=True)),
                _rows(C(d("t.csv"), [tf.int64, tf.float64, tf.string, -1], header=True)),
                _rows(C(d("t.csv"), [0, -1], header=True, select_cols=[0, 3])),
                _rows(C(d("t.csv"), [tf.string] * 4, header=False, use_quote_delim=False, na_value="zz")),
                _rows(C(d("plain.csv"), [tf.int32, 2.5])),
                _rows(C([d("plain.csv"), d("plain.csv")], [0, 0.0])),
                repr(C(d("t.csv"), [0, 0.5, "d", 0], header=True)),
                C(d("plain.csv"), [tf.int64, tf.float32]).element_spec]


@case
def csv_dataset_errors(tf):
    C = tf.data.experimental.CsvDataset
    with _Dir() as d:
        return [_rows(C(d("t.csv"), [tf.int32, tf.float32, tf.string, tf.int64], header=True)),
                _rows(C(d("bad.csv"), [0, 0])),
                _rows(C(d("badnum.csv"), [0, 0, 0, 0])),
                _rows(C(d("badnum.csv"), [0, 0.0, 0, 0])),
                _rows(C(d("t.csv"), [tf.string] * 4, header=False, use_quote_delim=False)),
                _rows(C(d("t.csv"), [tf.string] * 4, header=True, na_value="x")),
                _rows(C(d("plain.csv"), [0, 0.0, 0]))]


def _batches(ds):
    return [({k: v.numpy() for k, v in f.items()}, label.numpy()) if isinstance(f, dict) else f
            for f, label in ds]


@case
def make_csv_dataset_batches(tf):
    make = tf.data.experimental.make_csv_dataset
    with _Dir() as d:
        ds = make(d("t.csv"), batch_size=2, label_name="d", shuffle=False, num_epochs=1)
        selected = make(d("t.csv"), batch_size=3, label_name="d", select_columns=["a", "d"], shuffle=False,
                        num_epochs=1)
        typed = make(d("t.csv"), batch_size=2, label_name="a", shuffle=False, num_epochs=1,
                     column_defaults=[0.0, 0.0, "?", 0])
        named = make(d("plain.csv"), batch_size=2, column_names=["n", "v"], header=False, shuffle=False,
                     num_epochs=1, label_name="n")
        twice = make(d("plain.csv"), batch_size=4, column_names=["n", "v"], header=False, shuffle=False,
                     num_epochs=2)
        return [ds.element_spec, _batches(ds), selected.element_spec, _batches(selected), _batches(typed),
                _batches(named), [{k: v.numpy() for k, v in b.items()} for b in twice],
                catch(make, d("t.csv"), batch_size=2, label_name="zz")]

"""tf.data transformations that combine datasets or keep state (TF 2.21): interleave, choose_from_datasets,
sample_from_datasets (what does not depend on the random order), scan, group_by_window, bucket_by_sequence_length,
rebatch, ignore_errors, get_next_as_optional, Dataset.counter; reprs, cardinalities, elements and errors.
"""


import numpy as np

from tests.golden.harness import case, cases_paths_relative, catch


def _show(tf, ds, n=30):
    """What a dataset shows: its repr, its cardinality and its first ``n`` elements."""
    return [repr(ds), int(ds.cardinality()), catch(list, ds.take(n))]


@case
def interleave_forms(tf):
    ds = tf.data.Dataset.range(1, 4)

    def rep(x):
        return tf.data.Dataset.from_tensors(x).repeat(x)

    return [_show(tf, ds.interleave(rep, cycle_length=2)),
            _show(tf, ds.interleave(rep, cycle_length=2, block_length=2)),
            _show(tf, ds.interleave(rep, cycle_length=1)),
            _show(tf, ds.interleave(rep, cycle_length=3, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True))]


@case
def choose_from_datasets_values(tf):
    a = tf.data.Dataset.from_tensors("a").repeat()
    b = tf.data.Dataset.from_tensors("b").repeat()
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1], tf.int64))
    short = tf.data.Dataset.from_tensor_slices(["x"])
    return [_show(tf, tf.data.Dataset.choose_from_datasets([a, b], choice)),
            _show(tf, tf.data.Dataset.choose_from_datasets([short, b], choice)),
            _show(tf, tf.data.Dataset.choose_from_datasets([short, b], choice, stop_on_empty_dataset=False))]


@case
def choose_from_datasets_errors(tf):
    a = tf.data.Dataset.range(3)
    return [catch(tf.data.Dataset.choose_from_datasets, [], tf.data.Dataset.range(1)),
            catch(tf.data.Dataset.choose_from_datasets, [a], tf.data.Dataset.from_tensors(0)),
            catch(tf.data.Dataset.choose_from_datasets, [a, tf.data.Dataset.from_tensors("s")],
                  tf.data.Dataset.range(1))]


@case
def sample_from_datasets_spec(tf):
    a = tf.data.Dataset.range(5)
    b = tf.data.Dataset.range(10, 15)
    ds = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=3)
    only_a = tf.data.Dataset.sample_from_datasets([a, b], weights=[1.0, 0.0], seed=3)
    return [repr(ds), int(ds.cardinality()), sorted(int(x) for x in ds), [int(x) for x in only_a],
            int(tf.data.Dataset.sample_from_datasets([a.repeat(), b.repeat()]).cardinality()),
            int(tf.data.Dataset.sample_from_datasets([a, b], stop_on_empty_dataset=True).cardinality())]


@case
def scan_values(tf):
    ds = tf.data.Dataset.range(5)
    running = ds.scan(np.int64(0), lambda s, x: (s + x, s + x))
    pairs = ds.scan((np.int64(0), np.int64(1)), lambda s, x: ((s[1], s[0] + s[1]), s[0]))
    return [_show(tf, running), _show(tf, pairs)]


@case
def group_by_window_values(tf):
    ds = tf.data.Dataset.range(10)
    grouped = ds.group_by_window(key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(3), window_size=3)
    return _show(tf, grouped)


@case
def bucket_by_sequence_length_values(tf):
    lengths = [1, 2, 3, 5, 1, 4, 2]

    def gen():
        for n in lengths:
            yield np.arange(n, dtype=np.int32)

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([None], tf.int32))
    b = ds.bucket_by_sequence_length(lambda x: tf.shape(x)[0], bucket_boundaries=[3],
                                     bucket_batch_sizes=[2, 2])
    return _show(tf, b)


@case
def rebatch_values(tf):
    ds = tf.data.Dataset.range(7).batch(4)
    return [_show(tf, ds.rebatch(3)), _show(tf, ds.rebatch(2, drop_remainder=True)),
            _show(tf, tf.data.Dataset.range(6).batch(3, drop_remainder=True).rebatch(2))]


@case
def ignore_errors_values(tf):
    ds = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0])
    checked = ds.map(lambda x: tf.debugging.check_numerics(1.0 / x, "inf"))
    return _show(tf, checked.ignore_errors())


@case
def optional_values(tf):
    it = iter(tf.data.Dataset.range(1))
    first = it.get_next_as_optional()
    second = it.get_next_as_optional()
    return [first.has_value(), first.get_value(), second.has_value(), catch(second.get_value).type,
            repr(first.element_spec)]


@case
def counter_values(tf):
    return [_show(tf, tf.data.Dataset.counter(), 3), _show(tf, tf.data.Dataset.counter(5, 2, tf.int32), 3)]


def _block(tf, x):
    return tf.data.Dataset.range(x * 10, x * 10 + x)


@case
def interleave_orders(tf):
    ds = tf.data.Dataset.range(1, 6)
    out = []
    for cycle, block in ((2, 1), (2, 2), (3, 3)):
        out.append([int(v) for v in ds.interleave(lambda x: _block(tf, x), cycle_length=cycle, block_length=block)])
        parallel = ds.interleave(lambda x: _block(tf, x), cycle_length=cycle, block_length=block,
                                 num_parallel_calls=cycle, deterministic=True)
        out.append([int(v) for v in parallel])
    out.append([int(v) for v in tf.data.Dataset.range(0, 4).interleave(lambda x: _block(tf, x), cycle_length=2)])
    return out


@case
def group_by_window_flush_by_key(tf):
    ds = tf.data.Dataset.range(9).group_by_window(lambda x: (x * 7) % 4, lambda k, w: w.batch(5), window_size=5)
    sized = tf.data.Dataset.range(12).group_by_window(lambda x: x % 3, lambda k, w: w.batch(4),
                                                      window_size_func=lambda k: k + 1)
    return [_show(tf, ds), _show(tf, sized)]


@case
def assert_cardinality_values(tf):
    ds = tf.data.Dataset.range(5).filter(lambda x: x < 3)
    checked = ds.apply(tf.data.experimental.assert_cardinality(3))
    return [_show(tf, checked)] + [catch(list, ds.apply(tf.data.experimental.assert_cardinality(n)))
                                   for n in (4, 2, tf.data.INFINITE_CARDINALITY)]


@case
def experimental_aliases(tf):
    # each alias logs TF's deprecation warning once per process, naming the caller's line
    with cases_paths_relative(__file__):
        return _experimental_aliases(tf)


def _experimental_aliases(tf):
    E = tf.data.experimental
    ds = tf.data.Dataset.range(6)
    out = [_show(tf, E.sample_from_datasets([ds, ds], weights=[1.0, 0.0], seed=1)),
           _show(tf, E.choose_from_datasets([ds, tf.data.Dataset.range(1)], tf.data.Dataset.range(2))),
           repr(ds.apply(E.shuffle_and_repeat(3, 2, seed=1))), int(ds.apply(E.shuffle_and_repeat(3, 2)).cardinality()),
           _show(tf, ds.apply(E.map_and_batch(lambda x: x * 2, 4))), _show(tf, ds.apply(E.ignore_errors())),
           _show(tf, ds.batch(4).apply(E.unbatch())),
           _show(tf, ds.apply(E.scan(np.int64(0), lambda s, x: (s + x, s)))),
           _show(tf, ds.apply(E.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), 2))),
           _show(tf, ds.apply(E.parallel_interleave(lambda x: tf.data.Dataset.range(x), 2))),
           _show(tf, ds.apply(E.take_while(lambda x: x < 3))), _show(tf, ds.apply(E.unique())),
           _show(tf, ds.apply(E.enumerate_dataset(start=2))), _show(tf, E.Counter(3), 3),
           E.get_next_as_optional(iter(ds)).get_value(), E.get_single_element(tf.data.Dataset.range(4, 5)),
           E.cardinality(ds), E.get_single_element(tf.data.Dataset.range(1))]
    return out


@case
def sample_from_datasets_shortcuts(tf):
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)
    S = tf.data.Dataset.sample_from_datasets
    return [repr(S([a, b], [2.0, 0.0])), repr(S([a, b], [0.0, 1.0])), repr(S([a])), _show(tf, S([a, b], [0.0, 0.0])),
            repr(S([a, b], tf.constant([1.0, 0.0])))]

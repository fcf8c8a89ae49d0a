"""tf.data transformations (TF 2.21): map (tuple unpacking, dicts, parallel), filter, batch and padded_batch
(drop_remainder, static shapes in element_spec), unbatch, repeat, take, skip, concatenate, enumerate, prefetch,
cache, apply, shard, flat_map, window, take_while, unique, reduce, with_options; reprs, cardinalities, the
elements, and TF's errors. Shuffle's order is not TF's bits, so only what does not depend on it is here.
"""

import numpy as np

from tests.golden.harness import case, catch


def _show(tf, ds):
    """What a dataset shows: its repr, its cardinality and its elements (a list of nested tensors)."""
    return [repr(ds), int(ds.cardinality()), catch(list, ds)]


def _ints(tf, n=5):
    return tf.data.Dataset.from_tensor_slices(list(range(n)))


@case
def map_scalar(tf):
    return _show(tf, _ints(tf).map(lambda x: x * 2))


@case
def map_tuple_unpacked(tf):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [10.0, 20.0]))
    return [_show(tf, ds.map(lambda x, y: (y, x))),
            _show(tf, ds.map(lambda x, y: {"s": tf.cast(x, tf.float32) + y}))]


@case
def map_dict_not_unpacked(tf):
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    return _show(tf, ds.map(lambda d: d["a"] + d["b"]))


@case
def map_changes_shape_and_dtype(tf):
    ds = tf.data.Dataset.range(3).map(lambda x: tf.fill([2, 3], tf.cast(x, tf.float64)))
    return _show(tf, ds)


@case
def map_python_constant(tf):
    constant = _ints(tf, 2).map(lambda x: 1.5)
    pair = _ints(tf, 2).map(lambda y: (y, "s"))
    return [_show(tf, constant), _show(tf, pair)]


@case
def map_parallel(tf):
    ds = _ints(tf).map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    return _show(tf, ds)


@case
def map_on_batches_keeps_unknown_dim(tf):
    ds = _ints(tf).batch(2).map(lambda x: x * 2)
    return _show(tf, ds)


@case
def filter_values(tf):
    return [_show(tf, _ints(tf, 6).filter(lambda x: x % 2 == 0)),
            _show(tf, _ints(tf, 6).filter(lambda x: x > 10))]


@case
def filter_bad_predicate(tf):
    return [catch(_ints(tf).filter, lambda x: x),
            catch(_ints(tf).filter, lambda x: tf.constant([True, False]))]


@case
def batch_forms(tf):
    ds = _ints(tf)
    return [_show(tf, ds.batch(2)), _show(tf, ds.batch(2, drop_remainder=True)), _show(tf, ds.batch(5)),
            _show(tf, ds.batch(10, drop_remainder=True)), _show(tf, ds.batch(3).batch(2))]


@case
def batch_nested(tf):
    ds = tf.data.Dataset.from_tensor_slices(({"a": [[1.0], [2.0], [3.0]]}, ["x", "y", "z"]))
    return _show(tf, ds.batch(2))


@case
def batch_empty(tf):
    return _show(tf, tf.data.Dataset.range(0).batch(4))


@case
def batch_ragged_elements(tf):
    # TF's fused map-and-batch kernel copies elements in parallel: which two shapes its error names varies
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.range(x))
    err = catch(list, ds.batch(2))
    return [repr(ds), err.type, err.message.split(" Shapes are")[0]]


@case
def padded_batch_forms(tf):
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))
    return [_show(tf, ds.padded_batch(2)), _show(tf, ds.padded_batch(3, padded_shapes=[5])),
            _show(tf, ds.padded_batch(2, padding_values=tf.constant(-1, tf.int64), drop_remainder=True))]


@case
def unbatch_values(tf):
    ds = tf.data.Dataset.from_tensors(([[1, 2], [3, 4], [5, 6]], ["a", "b", "c"]))
    return [_show(tf, ds.unbatch()), _show(tf, _ints(tf).batch(2).unbatch())]


@case
def unbatch_scalar(tf):
    return catch(_ints(tf).unbatch)


@case
def repeat_take_skip(tf):
    ds = _ints(tf, 3)
    return [_show(tf, ds.repeat(2)), _show(tf, ds.repeat().take(7)), _show(tf, ds.take(2)),
            _show(tf, ds.take(-1)), _show(tf, ds.take(10)), _show(tf, ds.skip(1)), _show(tf, ds.skip(5)),
            _show(tf, ds.skip(-1)), _show(tf, ds.repeat(0)), repr(ds.repeat()), int(ds.repeat().cardinality()),
            int(ds.repeat().skip(2).cardinality()), int(ds.filter(lambda x: True).take(2).cardinality())]


@case
def repeat_empty(tf):
    return _show(tf, tf.data.Dataset.range(0).repeat())


@case
def concatenate_values(tf):
    a = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])
    b = tf.data.Dataset.from_tensor_slices([[5, 6, 7]])
    return [_show(tf, _ints(tf, 2).concatenate(_ints(tf, 3))), _show(tf, a.concatenate(b))]


@case
def concatenate_incompatible(tf):
    return [catch(_ints(tf).concatenate, tf.data.Dataset.range(3)),
            catch(_ints(tf).concatenate, tf.data.Dataset.from_tensor_slices(([1], [2])))]


@case
def enumerate_values(tf):
    ds = tf.data.Dataset.from_tensor_slices(["a", "b"])
    return [_show(tf, ds.enumerate()), _show(tf, ds.enumerate(start=5))]


@case
def prefetch_cache_options(tf):
    ds = _ints(tf, 3)
    opts = tf.data.Options()
    opts.deterministic = True
    return [_show(tf, ds.prefetch(2)), _show(tf, ds.prefetch(tf.data.AUTOTUNE)), _show(tf, ds.cache()),
            _show(tf, ds.with_options(opts)), ds.with_options(opts).options().deterministic]


@case
def cache_twice(tf):
    ds = _ints(tf, 3).map(lambda x: x + 1).cache()
    return [list(ds), list(ds)]


@case
def apply_values(tf):
    def double_batches(d):
        return d.map(lambda x: x * 2).batch(2)

    return [_show(tf, _ints(tf).apply(double_batches))]


@case
def shard_values(tf):
    ds = tf.data.Dataset.range(10)
    return [_show(tf, ds.shard(3, 0)), _show(tf, ds.shard(3, 2)), _show(tf, ds.shard(1, 0))]


@case
def shard_bad(tf):
    return [catch(tf.data.Dataset.range(10).shard, 2, 2), catch(tf.data.Dataset.range(10).shard, 0, 0)]


@case
def flat_map_values(tf):
    ds = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])
    return _show(tf, ds.flat_map(tf.data.Dataset.from_tensor_slices))


@case
def window_values(tf):
    ds = tf.data.Dataset.range(7)
    w = ds.window(3)
    out = [repr(w), int(w.cardinality())]
    for shift, stride, drop in ((None, 1, False), (1, 1, True), (2, 2, False), (2, 1, True)):
        win = ds.window(3, shift=shift, stride=stride, drop_remainder=drop)
        out.append([int(win.cardinality()), [list(x) for x in win]])
    out.append(_show(tf, ds.window(3, drop_remainder=True).flat_map(lambda x: x.batch(3))))
    return out


@case
def window_nested(tf):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], ["a", "b", "c"])).window(2)
    return [repr(ds), [(list(a), list(b)) for a, b in ds]]


@case
def take_while_values(tf):
    below = _ints(tf).take_while(lambda x: x < 3)
    return [_show(tf, below), catch(_ints(tf).take_while, lambda y: y)]


@case
def unique_values(tf):
    ds = tf.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3, 2])
    s = tf.data.Dataset.from_tensor_slices(["b", "a", "b"])
    return [_show(tf, ds.unique()), _show(tf, s.unique()),
            catch(tf.data.Dataset.from_tensor_slices([1.0]).unique)]


@case
def reduce_values(tf):
    ds = tf.data.Dataset.range(5)
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
    return [ds.reduce(np.int64(0), lambda s, x: s + x),
            ds.reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1))),
            pairs.reduce(0.0, lambda s, e: s + e[1]),
            tf.data.Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x)]


@case
def shuffle_buffer_one_and_spec(tf):
    ds = _ints(tf).shuffle(1)
    return [_show(tf, ds), repr(_ints(tf).shuffle(3, seed=1)), int(_ints(tf).shuffle(3).repeat(2).cardinality()),
            sorted(int(x) for x in _ints(tf, 10).shuffle(4, seed=3))]


@case
def pipeline_of_the_guides(tf):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6) % 2
    ds = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1).map(lambda a, b: (a / 10.0, b))
          .batch(4).prefetch(tf.data.AUTOTUNE))
    return _show(tf, ds)


@case
def construction_errors(tf):
    ds = tf.data.Dataset.range(3)
    return [catch(ds.batch, 0), catch(ds.shuffle, 0), catch(ds.apply, lambda d: 5),
            catch(tf.data.Dataset.from_tensors(([1, 2], [1, 2, 3])).unbatch)]


@case
def padded_batch_too_small(tf):
    ds = tf.data.Dataset.range(3).map(lambda x: tf.fill([x + 1], x))
    return catch(list, ds.padded_batch(2, padded_shapes=[1]))


@case
def map_returns_list(tf):
    return _show(tf, tf.data.Dataset.range(2).map(lambda x: [x, x + 1]))


@case
def map_wrong_arity(tf):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
    return [repr(ds.map(lambda a, b: a).element_spec), catch(ds.map, lambda a: a).type]


@case
def reduce_changes_structure(tf):
    return catch(tf.data.Dataset.range(3).reduce, np.int64(0), lambda s, x: (s, s))


@case
def shuffle_whole_input(tf):
    ds = tf.data.Dataset.range(6).shuffle(tf.data.UNKNOWN_CARDINALITY, seed=2)
    return [repr(ds), int(ds.cardinality()), sorted(int(x) for x in ds)]


@case
def map_then_batch_fused(tf):
    # TF fuses map and batch into one kernel, which copies elements by size: same size, other shape, no error
    ds = tf.data.Dataset.range(2).map(lambda x: tf.reshape(tf.range(6), tf.where(x > 0, [3, 2], [2, 3])))
    return [catch(list, ds.batch(2)), catch(list, ds.prefetch(1).batch(2))]


@case
def argument_errors(tf):
    ds = tf.data.Dataset.range(5)
    ragged = ds.map(lambda x: tf.fill([x], x))
    return [catch(ds.window, 0), catch(ds.window, 2, shift=0), catch(ds.window, 2, stride=0),
            catch(ragged.padded_batch, 2, padded_shapes=[2, 2]), catch(ds.prefetch, -5), catch(ds.map, None),
            _show(tf, ds.batch(tf.constant(2, tf.int64))), _show(tf, ds.take(tf.constant(2, tf.int64))),
            _show(tf, ds.enumerate(tf.constant(3, tf.int64)))]


@case
def options_fields(tf):
    o = tf.data.Options()
    o.deterministic = False
    o.threading.private_threadpool_size = 4
    o.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    ds = tf.data.Dataset.range(3).with_options(o).map(lambda x: x).batch(2)
    later = tf.data.Options()
    later.experimental_optimization.map_parallelization = True
    both = ds.with_options(later).options()
    fresh = tf.data.Options()
    return [catch(setattr, fresh, "foo", 1), catch(setattr, fresh.threading, "bar", 1),
            catch(setattr, fresh, "deterministic", "x"), catch(setattr, ds.options(), "deterministic", True),
            catch(setattr, ds.options().threading, "private_threadpool_size", 2),
            o.experimental_optimization.map_fusion, o.autotune.enabled, tf.data.Options() == tf.data.Options(),
            tf.data.Dataset.range(2).options() == tf.data.Options(), ds.options().deterministic,
            ds.options().threading.private_threadpool_size, int(ds.options().experimental_distribute.auto_shard_policy),
            both.deterministic, both.experimental_optimization.map_parallelization, o == tf.data.Options(),
            catch(tf.data.Dataset.range(2).with_options, 5).type]

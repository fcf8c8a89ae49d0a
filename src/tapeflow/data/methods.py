"""The transformation methods of ``tf.data.Dataset``, installed on the class by :func:`install`.

Each method builds the dataset class of its transformation (``transformations.py``, ``batching.py``).
"""

from __future__ import annotations

from .._core.dtypes import int64
from . import combinators as _c
from .batching import _BatchDataset, _PaddedBatchDataset, _RaggedBatchDataset, _UnbatchDataset, _WindowDataset
from .cache import CacheDataset
from .dataset import Dataset
from .transformations import (
    _ConcatenateDataset,
    _Counter,
    _FilterDataset,
    _FlatMapDataset,
    _MapDataset,
    _OptionsDataset,
    _ParallelMapDataset,
    _PrefetchDataset,
    _RepeatDataset,
    _ShardDataset,
    _ShuffleDataset,
    _SkipDataset,
    _TakeDataset,
    _TakeWhileDataset,
    _UniqueDataset,
)


def install(cls):
    """Give the ``Dataset`` class its transformation methods."""

    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None, use_unbounded_threadpool=False, name=None):  # noqa: E501
        """Apply ``map_func`` to each element (a tuple element is unpacked into arguments).

        With ``num_parallel_calls`` (a number, or ``tf.data.AUTOTUNE`` for one per CPU), that many calls run at once
        on other threads; results keep the elements' order unless ``deterministic=False`` (or the dataset's
        ``options().deterministic`` is false).
        """
        if num_parallel_calls is None:
            return _MapDataset(self, map_func)
        return _ParallelMapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` returns a true ``tf.bool`` scalar."""
        return _FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Consecutive elements stacked into batches (the last one smaller unless ``drop_remainder``)."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches whose elements are padded to a common shape (the largest in the batch by default)."""
        return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=int64, name=None):
        """Consecutive elements batched into ragged tensors: the rows of each component may differ in length."""
        return _RaggedBatchDataset(self, batch_size, drop_remainder, row_splits_dtype)

    def unbatch(self, name=None):
        """Each element split along its first dimension into elements."""
        return _UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements in random order, drawn from a buffer of the next ``buffer_size`` elements."""
        return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements ``count`` times over (forever when ``count`` is None or -1)."""
        return _RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them for -1)."""
        return _TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none for -1)."""
        return _SkipDataset(self, count)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s."""
        return _ConcatenateDataset(self, dataset)

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        return cls.zip((_Counter(start), self))

    def prefetch(self, buffer_size, name=None):
        """Compute up to ``buffer_size`` elements ahead in a background thread (``tf.data.AUTOTUNE``: a few), so
        that the pipeline's work overlaps the consumer's; ``0`` computes them as they are asked for."""
        return _PrefetchDataset(self, buffer_size)

    def cache(self, filename="", name=None):
        """Keep the elements after the first complete iteration: in memory, or in files named by ``filename``
        that later datasets and processes read instead of their input."""
        return CacheDataset(self, filename)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(out)}.")
        return out

    def with_options(self, options, name=None):
        """This dataset with ``options`` (a ``tf.data.Options``) merged into its own."""
        return _OptionsDataset(self, options)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        return _ShardDataset(self, num_shards, index)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element, one after another."""
        return _FlatMapDataset(self, map_func)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (each component a dataset), starting every ``shift`` elements."""
        return _WindowDataset(self, size, shift, stride, drop_remainder)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` is false."""
        return _TakeWhileDataset(self, predicate)

    def unique(self, name=None):
        """Each distinct element once, in order of first appearance (int32, int64 or string scalars)."""
        return _UniqueDataset(self)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """The elements of the datasets ``map_func`` makes, ``cycle_length`` datasets read in turn."""
        if num_parallel_calls is None:
            return _c._InterleaveDataset(self, map_func, cycle_length, block_length)
        return _c._ParallelInterleaveDataset(self, map_func, cycle_length, block_length)

    def scan(self, initial_state, scan_func, name=None):
        """Outputs of ``scan_func(state, element) -> (new_state, output)`` carried through the elements."""
        return _c._ScanDataset(self, initial_state, scan_func)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Windows of elements with the same key, each reduced to a dataset by ``reduce_func(key, window)``."""
        return _c.group_by_window(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Padded batches of elements grouped by length into buckets."""
        return _c.bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                            padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                            drop_remainder)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The batches split and batched again to ``batch_size``."""
        return _c._RebatchDataset(self, batch_size, drop_remainder)

    def ignore_errors(self, log_warning=False, name=None):
        """The elements, without those whose computation raised a TF error."""
        return _c._IgnoreErrorsDataset(self)

    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Elements taken from ``datasets[i]`` for each ``i`` of ``choice_dataset`` (scalar int64)."""
        return _c.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn at random from ``datasets`` with probabilities ``weights``."""
        return _c.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    def counter(start=0, step=1, dtype=int64, name=None):
        """``start``, ``start + step`` ... without end."""
        return _c._Counting(start, step, dtype)

    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern``, shuffled unless ``shuffle=False``."""
        from .files import list_files

        return list_files(file_pattern, shuffle, seed)

    for f in (choose_from_datasets, sample_from_datasets, counter, list_files):
        setattr(cls, f.__name__, staticmethod(f))

    for f in (interleave, scan, group_by_window, bucket_by_sequence_length, rebatch, ignore_errors, map, filter,
              batch, padded_batch, ragged_batch, unbatch, shuffle, repeat, take, skip, concatenate, enumerate,
              prefetch, cache, apply, with_options, shard, flat_map, window, take_while, unique):
        setattr(cls, f.__name__, f)

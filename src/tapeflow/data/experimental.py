"""``tf.data.experimental``: the constants and functions programs still use, including the deprecated aliases of
``Dataset`` methods, which log TF's deprecation warning once per process (``From <file>:<line>: <name> (from
<module>) is deprecated ...``, naming the caller's line) and then do what the method does.
"""

from __future__ import annotations

import sys as _sys

from .._core.dtypes import int64 as _int64
from .._core.logs import log_first_n as _log_first_n
from .csv import CsvDataset, make_csv_dataset
from .dataset import INFINITE as INFINITE_CARDINALITY
from .dataset import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import Dataset as _Dataset
from .dataset import NumpyIterator, Optional
from .options import AutoShardPolicy, AutotuneOptions, DistributeOptions, OptimizationOptions, ThreadingOptions
from .transformations import AUTOTUNE

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy", "AutotuneOptions",
           "DistributeOptions", "OptimizationOptions", "ThreadingOptions", "NumpyIterator", "Optional",
           "assert_cardinality", "bucket_by_sequence_length", "cardinality", "choose_from_datasets", "Counter",
           "dense_to_ragged_batch",
           "enable_debug_mode", "enumerate_dataset", "get_next_as_optional", "get_single_element",
           "group_by_window", "ignore_errors", "map_and_batch", "parallel_interleave", "sample_from_datasets",
           "scan", "shuffle_and_repeat", "take_while", "unbatch", "unique", "CsvDataset", "make_csv_dataset"]


def _deprecated(name, module, instructions):
    """Log TF's deprecation warning for ``name`` the first time it is called in the process."""
    caller = _sys._getframe(2)
    _log_first_n("WARNING", f"From {caller.f_code.co_filename}:{caller.f_lineno}: {name} (from {module}) is "
                            f"deprecated and will be removed in a future version.\nInstructions for updating:\n"
                            f"{instructions}", 1, ("tf.data.experimental", name))


def cardinality(dataset):
    """``dataset.cardinality()``."""
    return dataset.cardinality()


def assert_cardinality(expected_cardinality):
    """For ``dataset.apply``: declares the dataset's count and checks it while iterating."""
    from .combinators import assert_cardinality

    return assert_cardinality(expected_cardinality)


_DEBUG_MODE = [False]


def enable_debug_mode():
    """Run the ``map`` functions of datasets built from now on eagerly, element by element, instead of traced
    (TF's debug mode: a breakpoint or ``print`` in them works on each element). It cannot be turned off."""
    _DEBUG_MODE[0] = True


def get_single_element(dataset):
    """Deprecated: ``dataset.get_single_element()``."""
    _deprecated("get_single_element", "tensorflow.python.data.experimental.ops.get_single_element",
                "Use `tf.data.Dataset.get_single_element()`.")
    return dataset.get_single_element()


def get_next_as_optional(iterator):
    """Deprecated: ``iterator.get_next_as_optional()``."""
    _deprecated("get_next_as_optional", "tensorflow.python.data.ops.iterator_ops",
                "Use `tf.data.Iterator.get_next_as_optional()` instead.")
    return iterator.get_next_as_optional()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """Deprecated: ``Dataset.sample_from_datasets``."""
    _deprecated("sample_from_datasets_v2", "tensorflow.python.data.experimental.ops.interleave_ops",
                "Use `tf.data.Dataset.sample_from_datasets(...)`.")
    return _Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """Deprecated: ``Dataset.choose_from_datasets``, whose ``stop_on_empty_dataset`` defaults to True instead."""
    _deprecated("choose_from_datasets_v2", "tensorflow.python.data.experimental.ops.interleave_ops",
                "Use `tf.data.Dataset.choose_from_datasets(...)` instead. Note that, unlike the experimental "
                "endpoint, the non-experimental endpoint sets `stop_on_empty_dataset=True` by default. You should "
                "set this argument explicitly in case you would like to match the behavior of the experimental "
                "endpoint.")
    return _Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def Counter(start=0, step=1, dtype=_int64):  # noqa: N802 - TF's name
    """Deprecated: ``Dataset.counter``."""
    _deprecated("CounterV2", "tensorflow.python.data.experimental.ops.counter",
                "Use `tf.data.Dataset.counter(...)` instead.")
    return _Dataset.counter(start, step, dtype)


def _named(dataset, name):
    """``dataset`` printed under TF's class name for the deprecated transformation that made it."""
    dataset._tf_name = name
    return dataset


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """Deprecated: ``shuffle(buffer_size, seed)`` then ``repeat(count)``, for ``dataset.apply``."""
    _deprecated("shuffle_and_repeat", "tensorflow.python.data.experimental.ops.shuffle_ops",
                "Use `tf.data.Dataset.shuffle(buffer_size, seed)` followed by `tf.data.Dataset.repeat(count)`. "
                "Static tf.data optimizations will take care of using the fused implementation.")
    return lambda ds: _named(ds.shuffle(buffer_size, seed).repeat(count), "_ShuffleAndRepeatDataset")


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """Deprecated: ``map(map_func)`` then ``batch(batch_size, drop_remainder)``, for ``dataset.apply``."""
    _deprecated("map_and_batch", "tensorflow.python.data.experimental.ops.batching",
                "Use `tf.data.Dataset.map(map_func, num_parallel_calls)` followed by `tf.data.Dataset.batch("
                "batch_size, drop_remainder)`. Static tf.data optimizations will take care of using the fused "
                "implementation.")
    return lambda ds: _named(ds.map(map_func).batch(batch_size, drop_remainder), "_MapAndBatchDataset")


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """Deprecated: ``interleave(map_func, cycle_length, block_length)``, for ``dataset.apply``."""
    _deprecated("parallel_interleave", "tensorflow.python.data.experimental.ops.interleave_ops",
                "Use `tf.data.Dataset.interleave(map_func, cycle_length, block_length, num_parallel_calls="
                "tf.data.AUTOTUNE)` instead. If sloppy execution is desired, use `tf.data.Options.deterministic`.")
    return lambda ds: _named(ds.interleave(map_func, cycle_length, block_length), "ParallelInterleaveDataset")


def _alias(name, module, instructions, method):
    def transformation(*args, **kwargs):
        _deprecated(name, module, instructions)
        return lambda ds: getattr(ds, method)(*args, **kwargs)

    transformation.__name__ = transformation.__qualname__ = name
    transformation.__doc__ = f"Deprecated: ``dataset.{method}(...)``, for ``dataset.apply``."
    return transformation


_OPS = "tensorflow.python.data.experimental.ops."
ignore_errors = _alias("ignore_errors", _OPS + "error_ops", "Use `tf.data.Dataset.ignore_errors` instead.",
                       "ignore_errors")
unbatch = _alias("unbatch", _OPS + "batching", "Use `tf.data.Dataset.unbatch()`.", "unbatch")
scan = _alias("scan", _OPS + "scan_ops", "Use `tf.data.Dataset.scan(...) instead", "scan")
group_by_window = _alias("group_by_window", _OPS + "grouping", "Use `tf.data.Dataset.group_by_window(...)`.",
                         "group_by_window")
bucket_by_sequence_length = _alias("bucket_by_sequence_length", _OPS + "grouping",
                                   "Use `tf.data.Dataset.bucket_by_sequence_length(...)`.",
                                   "bucket_by_sequence_length")
take_while = _alias("take_while", _OPS + "take_while_ops", "Use `tf.data.Dataset.take_while(...)", "take_while")
unique = _alias("unique", _OPS + "unique", "Use `tf.data.Dataset.unique(...)", "unique")
dense_to_ragged_batch = _alias("dense_to_ragged_batch", _OPS + "batching",
                               "Use `tf.data.Dataset.ragged_batch` instead.", "ragged_batch")
enumerate_dataset = _alias("enumerate_dataset", _OPS + "enumerate_ops", "Use `tf.data.Dataset.enumerate()`.",
                           "enumerate")

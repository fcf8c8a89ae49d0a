"""Transformations that combine datasets or keep state: ``interleave``, ``choose_from_datasets``,
``sample_from_datasets``, ``scan`` (and ``Dataset.counter``), ``group_by_window``, ``bucket_by_sequence_length``,
``rebatch``, ``ignore_errors`` and ``tf.data.experimental.assert_cardinality``.
"""

from __future__ import annotations

import os

import numpy as np

from .._core import errors
from .._core.dtypes import as_dtype, int64
from ..ops import random_ops as _random_ops
from . import spec as _spec
from .batching import _BatchDataset, _UnbatchDataset
from .dataset import INFINITE, UNKNOWN, Dataset, Failed, KernelError, _scalar, _Unary, _VariantDataset
from .transformations import AUTOTUNE, _call, _dataset_result, _FlatMapDataset, _trace


class _InterleaveDataset(_FlatMapDataset):
    """``interleave``: ``cycle_length`` datasets made by ``map_func`` are read in turn, ``block_length`` elements
    at a time; a slot whose dataset ends takes the next input element's dataset when its turn comes (TF's order).
    Its element spec and cardinality are ``flat_map``'s."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        cycle = AUTOTUNE if cycle_length is None else int(_scalar(cycle_length))
        self._cycle = os.cpu_count() or 1 if cycle == AUTOTUNE else cycle
        self._block = 1 if block_length is None else int(_scalar(block_length))
        super().__init__(input_dataset, map_func)

    def _elements(self):
        inputs = self._input._elements()
        slots = [None] * self._cycle
        open_count, index, taken, input_done = 0, 0, 0, False
        while not input_done or open_count:
            current = slots[index]
            if current is not None:
                try:
                    element = next(current)
                except StopIteration:
                    slots[index] = None
                    open_count -= 1
                else:
                    taken += 1
                    if taken == self._block:
                        index, taken = (index + 1) % self._cycle, 0
                    yield element
                    continue
                index, taken = (index + 1) % self._cycle, 0
            elif not input_done:
                try:
                    element = next(inputs)
                except StopIteration:
                    input_done = True
                    continue
                slots[index] = _dataset_result(_call(self._fn, element))._elements()
                open_count += 1
            else:
                index, taken = (index + 1) % self._cycle, 0


class _ParallelInterleaveDataset(_InterleaveDataset):
    """``interleave(num_parallel_calls=...)``: TF's parallel interleave opens the first ``cycle_length`` datasets at
    once, and a dataset that ends is replaced at once by the next input element's (or dropped), the turn passing to
    the next slot; its deterministic order is that one. The reads run on the calling thread in this increment."""

    def _elements(self):
        inputs = self._input._elements()

        def opened(element):
            return _dataset_result(_call(self._fn, element))._elements()

        slots = []
        for element in inputs:
            slots.append(opened(element))
            if len(slots) == self._cycle:
                break
        index = 0
        while any(it is not None for it in slots):
            it = slots[index]
            for _ in range(self._block if it is not None else 0):
                try:
                    element = next(it)
                except StopIteration:
                    refill = next(inputs, None)
                    slots[index] = None if refill is None else opened(refill)
                    break
                yield element
            index = (index + 1) % len(slots)


class _DirectedInterleaveDataset(Dataset):
    """``choose_from_datasets`` and ``sample_from_datasets``: each element comes from the dataset a selector
    names; an exhausted dataset ends everything (``stop_on_empty_dataset``) or is skipped."""

    def __init__(self, datasets, selector, stop_on_empty):
        self._datasets = list(datasets)
        self._selector = selector  # a function of no argument returning a fresh iterator of indices
        self._stop = stop_on_empty
        specs = [d.element_spec for d in self._datasets]
        spec = specs[0]
        for other in specs[1:]:
            spec = _spec.relax_spec(spec, other)
        super().__init__(spec)

    def _cardinality(self):
        # TF's count: infinite when a dataset is, whatever the selector and stop_on_empty_dataset say
        return INFINITE if any(d._cardinality() == INFINITE for d in self._datasets) else UNKNOWN

    def _elements(self):
        its = [d._elements() for d in self._datasets]
        live = [True] * len(its)
        for i in self._selector(live):
            if not live[i]:
                continue
            try:
                yield next(its[i])
            except StopIteration:
                if self._stop:
                    return
                live[i] = False
                if not any(live):
                    return


def _check_datasets(datasets):
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    specs = [d.element_spec for d in datasets]
    for i, s in enumerate(specs[1:], 1):
        if not _spec.same_structure(specs[0], s) or any(
                a.dtype != b.dtype for a, b in zip(_spec.flatten(specs[0]), _spec.flatten(s))):
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 "
                            f"element_spec={specs[0]}.\nDataset {i} element_spec={s}.")


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """See ``Dataset.choose_from_datasets``."""
    datasets = list(datasets)
    _check_datasets(datasets)
    s = choice_dataset.element_spec
    if not (isinstance(s, _spec.TensorSpec) and s.dtype == int64 and s.shape.rank == 0):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors "
                        f"but are {s}.")

    def selector(live):
        for choice in choice_dataset._elements():
            yield int(choice.numpy())

    return _DirectedInterleaveDataset(datasets, selector, stop_on_empty_dataset)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """See ``Dataset.sample_from_datasets``: draws follow ``tf.random``'s seed rules, not TF's bits."""
    datasets = list(datasets)
    _check_datasets(datasets)
    n = len(datasets)
    if n == 1:
        return datasets[0]
    if weights is not None and not hasattr(weights, "numpy"):
        # Weights known in Python: TF returns the one dataset that can be drawn, or nothing at all
        nonzero = np.flatnonzero(np.asarray(weights, dtype=np.float64))
        if len(nonzero) == 1:
            return datasets[int(nonzero[0])]
        if len(nonzero) == 0:
            return datasets[0].take(0)
    w = np.full(n, 1.0 / n) if weights is None else np.asarray(
        weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
    seeds, _ = _random_ops._get_seeds(None if seed is None else int(_scalar(seed)))
    seed_gen = (np.random.Generator(np.random.Philox()) if seeds is None else
                np.random.Generator(np.random.Philox(key=_random_ops.stream_key(seeds))))
    fixed = int(seed_gen.integers(2**63))

    def selector(live):
        rng = np.random.Generator(np.random.Philox(
            key=int(seed_gen.integers(2**63)) if rerandomize_each_iteration else fixed))
        while True:
            p = w * np.asarray(live, dtype=np.float64)  # exhausted datasets are not drawn again
            total = p.sum()
            if total <= 0:
                return
            yield int(rng.choice(n, p=p / total))

    return _DirectedInterleaveDataset(datasets, selector, stop_on_empty_dataset)


class _ScanDataset(_Unary):
    """``scan``: ``scan_func(state, element)`` returns ``(new_state, output)``; the outputs are the elements."""

    def __init__(self, input_dataset, initial_state, scan_func):
        self._state = _spec.normalize(initial_state)
        self._fn = scan_func
        state_spec = _spec.spec_of(self._state)
        out = _trace(lambda s, e: scan_func(s, e)[1], (state_spec, input_dataset.element_spec))
        super().__init__(input_dataset, out if out is not None else False)

    @property
    def element_spec(self):
        if self._element_spec is False:
            for element in self._elements():
                self._element_spec = _spec.spec_of(element)
                break
        return self._element_spec

    def _elements(self):
        state = self._state
        for element in self._input._elements():
            state, out = self._fn(state, element)
            state = _spec.normalize(state)
            yield _spec.normalize(out)


class _Counting(Dataset):
    """``Dataset.counter(start, step, dtype)``: TF builds it with ``scan`` over an endless input."""

    _TF_NAME = "_ScanDataset"

    def __init__(self, start, step, dtype):
        self._start, self._step = int(_scalar(start)), int(_scalar(step))
        self._dtype = as_dtype(dtype)
        super().__init__(_spec.TensorSpec([], self._dtype))

    def _cardinality(self):
        return INFINITE

    def _elements(self):
        from .._core.tensor import convert_to_tensor

        np_dtype = self._dtype.as_numpy_dtype
        value = self._start
        while True:
            yield convert_to_tensor(np_dtype(value))
            value += self._step


class _GroupByWindowDataset(_Unary):
    """``group_by_window``: elements are gathered per ``key_func`` key; a key's window that reaches its size is
    given to ``reduce_func(key, window_dataset)``, whose dataset's elements are output; the windows left at the
    end follow, by key."""

    def __init__(self, input_dataset, key_func, reduce_func, window_size_func):
        self._key, self._reduce, self._size = key_func, reduce_func, window_size_func
        spec = input_dataset.element_spec
        out = _trace(reduce_func, (_spec.TensorSpec([], int64), _spec.DatasetSpec(spec)), result=_dataset_result)
        super().__init__(input_dataset, out.element_spec if out is not None else None)

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        spec = self._input.element_spec
        windows = {}
        for element in self._input._elements():
            key = int(_spec.normalize(_call(self._key, element)).numpy())
            window = windows.setdefault(key, [])
            window.append(element)
            if len(window) == int(_scalar(self._size(_key_tensor(key)))):
                del windows[key]
                yield from self._reduced(key, window, spec)
        for key in sorted(windows):  # TF flushes the windows left at the end in the order of their keys
            yield from self._reduced(key, windows[key], spec)

    def _reduced(self, key, window, spec):
        return _dataset_result(self._reduce(_key_tensor(key), _VariantDataset(window, spec)))._elements()


def _key_tensor(key):
    from .._core.tensor import convert_to_tensor

    return convert_to_tensor(np.int64(key))


def group_by_window(dataset, key_func, reduce_func, window_size=None, window_size_func=None):
    """See ``Dataset.group_by_window``."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
    size_func = window_size_func if window_size_func is not None else (lambda key: window_size)
    return _GroupByWindowDataset(dataset, key_func, reduce_func, size_func)


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                              no_padding=False, drop_remainder=False):
    """See ``Dataset.bucket_by_sequence_length``."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(sizes)}` and `len(bucket_boundaries)={len(boundaries)}`.")

    def key_func(*element):
        length = int(_spec.normalize(element_length_func(*element)).numpy())
        return np.int64(sum(1 for b in boundaries if length >= b))

    def reduce_func(key, window):
        k = int(key.numpy())
        if no_padding:
            return window.batch(sizes[k], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary and shapes is None:
            bound = boundaries[k] - 1 if k < len(boundaries) else None
            shapes = _spec.map_structure(
                lambda s: [bound] + [None] * (s.shape.rank - 1), window.element_spec)
        return window.padded_batch(sizes[k], shapes, padding_values, drop_remainder=drop_remainder)

    return _GroupByWindowDataset(dataset, key_func, reduce_func, lambda key: sizes[int(key.numpy())])


class _RebatchDataset(_Unary):
    """``rebatch``: the batches split and batched again to ``batch_size`` (across the input's batches)."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._inner = _BatchDataset(_UnbatchDataset(input_dataset), batch_size, drop_remainder)
        super().__init__(input_dataset, self._inner.element_spec)

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        return self._inner._elements()


class _IgnoreErrorsDataset(_Unary):
    """``ignore_errors``: elements whose computation raised a TF error are dropped (see ``Dataset._attempts``)."""

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        for element in self._input._attempts():
            if not isinstance(element, Failed):
                yield element


class _AssertCardinalityDataset(_Unary):
    """``tf.data.experimental.assert_cardinality(n)``: the input, whose count is declared ``n`` and checked while
    iterating (TF's ``FailedPreconditionError`` when it has fewer or more)."""

    def __init__(self, input_dataset, expected):
        self._expected = int(_scalar(expected))
        super().__init__(input_dataset)

    def _cardinality(self):
        return self._expected

    def _elements(self):
        expected = "an infinite number of" if self._expected == INFINITE else str(self._expected)
        count = 0
        for element in self._input._elements():
            count += 1
            if 0 <= self._expected < count:
                raise KernelError(errors.FailedPreconditionError, f"Input dataset was expected to contain "
                                                                  f"{expected} elements but contained at least "
                                                                  f"{count} elements.")
            yield element
        if count != self._expected:
            raise KernelError(errors.FailedPreconditionError, f"Input dataset was expected to contain {expected} "
                                                              f"elements but contained only {count} elements.")


def assert_cardinality(expected_cardinality):
    """``tf.data.experimental.assert_cardinality``: a function for ``Dataset.apply``."""
    return lambda dataset: _AssertCardinalityDataset(dataset, expected_cardinality)

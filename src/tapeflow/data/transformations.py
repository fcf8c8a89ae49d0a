"""The transformations of ``tf.data.Dataset`` (``map``, ``shuffle``, ``batch`` ...), each a dataset class named as
TF names it, and :func:`install`, which gives ``Dataset`` the methods that build them.

Functions given to a transformation run eagerly, once per element. To know a function's output types when the
dataset is built (``element_spec``, and TF's construction-time errors), it is also called on zero-filled
stand-ins for an element, as TF's tracing calls it once on symbolic ones: twice, first with zeros and every
dimension the input spec leaves unknown set to 1, then with ones and those dimensions set to 2, so that output
dimensions that follow an unknown dimension or a value (``tf.range(x)``) come out unknown (``None``).
"""

from __future__ import annotations

import collections

import numpy as np

from .._core import errors
from .._core.dtypes import bool_, int32, int64, string
from .._core.shape import TensorShape
from .._core.tensor import convert_to_tensor
from ..ops import random_ops as _random_ops
from . import spec as _spec
from .dataset import INFINITE, UNKNOWN, Dataset, KernelError, _op_error, _RangeDataset, _scalar

AUTOTUNE = -1


def _call(fn, element):
    """``fn`` applied to an element as TF applies it: a tuple is unpacked into positional arguments."""
    return fn(*element) if type(element) is tuple else fn(element)


def _has_unknown(spec):
    return any(isinstance(s, _spec.TensorSpec) and (s.shape.rank is None or None in s.shape.dims)
               for s in _spec.flatten(spec))


def _dummy(spec, unknown):
    def one(s):
        if isinstance(s, _spec.DatasetSpec):
            return _VariantDataset([], s.element_spec)
        return _spec.dummy(s, unknown, fill=unknown - 1)

    return _spec.map_structure(one, spec)


def _trace(fn, spec, result=_spec.normalize):
    """The spec of ``result(fn(element))`` for elements of ``spec``, from calls on stand-ins (see the module's
    docstring); ``None`` when a stand-in makes the function fail (the spec is then taken from the first real
    element). A call with the wrong number of arguments fails at once, as in TF."""
    specs = []
    for unknown in (1, 2):
        try:
            out = result(_call(fn, _dummy(spec, unknown)))
        except TypeError as exc:
            if "positional argument" in str(exc):
                raise
            return None
        except Exception:  # noqa: BLE001 - the function may refuse zeros; the real elements will tell
            return None
        specs.append(_out_spec(out))
    if len(specs) == 2:
        if not _spec.same_structure(specs[0], specs[1]):
            return None
        return _spec.map_structure(_relax_one, specs[0], specs[1])
    return specs[0]


def _out_spec(out):
    return _spec.spec_of(out)


def _relax_one(a, b):
    if isinstance(a, _spec.TensorSpec):
        return _spec.relax_spec(a, b)
    return a


class _Unary(Dataset):
    """A dataset computed from one input dataset."""

    def __init__(self, input_dataset, element_spec=None):
        self._input = input_dataset
        super().__init__(input_dataset.element_spec if element_spec is None else element_spec)

    def _cardinality(self):
        return self._input._cardinality()


def _map_result(value):
    """A map function's result as an element: a list returned at the top is a tuple, as in TF."""
    return _spec.normalize(tuple(value) if isinstance(value, list) else value)


class _MapDataset(_Unary):
    def __init__(self, input_dataset, map_func):
        self._fn = map_func
        super().__init__(input_dataset, _trace(map_func, input_dataset.element_spec, _map_result) or False)

    @property
    def element_spec(self):
        if self._element_spec is False:  # the stand-ins failed: learn the spec from the first element
            for element in self._elements():
                self._element_spec = _spec.spec_of(element)
                break
            else:
                self._element_spec = _spec.TensorSpec(None, int32)
        return self._element_spec

    def _elements(self):
        fn = self._fn
        for element in self._input._elements():
            yield _map_result(_call(fn, element))


class _ParallelMapDataset(_MapDataset):
    """``map(..., num_parallel_calls=n)``: in this increment the calls run one after another, in order."""


class _FilterDataset(_Unary):
    def __init__(self, input_dataset, predicate):
        self._pred = predicate
        super().__init__(input_dataset)
        out = _trace(predicate, input_dataset.element_spec)
        if out is not None:
            _check_predicate(out, ", but its return type is ")

    def _cardinality(self):
        return UNKNOWN  # even on an infinite input: the predicate may reject everything from some point on

    def _elements(self):
        for element in self._input._elements():
            keep = _spec.normalize(_call(self._pred, element))
            _check_predicate(_spec.spec_of(keep), ", but its return type is ")
            if bool(keep.numpy()):
                yield element


def _check_predicate(out, joint):
    """TF's check of a predicate's output (``filter`` and ``take_while`` word it a little differently)."""
    if not (isinstance(out, _spec.TensorSpec) and out.dtype == bool_ and out.shape.rank == 0):
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor{joint}{out}.")


def _stack(tensors, component, dtype, fused):
    """The batch of ``tensors`` (one component of each element) as one tensor.

    ``fused``: the batch follows a ``map``, which TF's default optimizations fuse into one kernel
    (``MapAndBatch``) that copies elements by their number of values: its error differs, and elements of one
    size but different shapes are taken in the first element's shape."""
    first = tensors[0].shape
    arrays = [t.numpy() for t in tensors]
    for i, t in enumerate(tensors[1:], 1):
        if t.shape.dims == first.dims:
            continue
        if not fused:
            raise KernelError(errors.InvalidArgumentError,
                              f"Cannot batch tensors with different shapes in component {component}. First "
                              f"element had shape {_dims_text(first)} and element {i} had shape "
                              f"{_dims_text(t.shape)}.")
        if t.shape.num_elements() != first.num_elements():
            raise KernelError(errors.InvalidArgumentError,
                              f"Cannot add tensor to the batch: number of elements does not match. Shapes are: "
                              f"[tensor]: {_dims_text(first)}, [batch]: {_dims_text(t.shape)}")
        arrays[i] = np.reshape(arrays[i], first.dims)
    arr = np.stack(arrays)
    return convert_to_tensor(arr, dtype=string) if dtype == string else convert_to_tensor(arr)


def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape.dims) + "]"


def _batch_card(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


class _BatchDataset(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._size = int(_scalar(batch_size))
        if self._size <= 0:
            raise _op_error(errors.InvalidArgumentError, "BatchDatasetV2", "Batch size must be greater than zero.")
        self._drop = bool(_scalar(drop_remainder))
        lead = self._size if self._drop else None
        super().__init__(input_dataset, _spec.map_structure(
            lambda s: _spec.TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype),
            input_dataset.element_spec))

    def _cardinality(self):
        return _batch_card(self._input._cardinality(), self._size, self._drop)

    def _elements(self):
        spec = self._input.element_spec
        dtypes = [s.dtype for s in _spec.flatten(spec)]
        fused = isinstance(self._input, _MapDataset)
        batch = []
        for element in self._input._elements():
            batch.append(_spec.flatten(element))
            if len(batch) == self._size:
                yield self._make(spec, batch, dtypes, fused)
                batch = []
        if batch and not self._drop:
            yield self._make(spec, batch, dtypes, fused)

    @staticmethod
    def _make(spec, batch, dtypes, fused):
        return _spec.pack(spec, [_stack([b[c] for b in batch], c, d, fused) for c, d in enumerate(dtypes)])


class _PaddedBatchDataset(_BatchDataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        self._shapes = (_spec.map_structure(lambda s: s.shape, spec) if padded_shapes is None
                        else _spec.pack(spec, [TensorShape(s) for s in _flat_like(spec, padded_shapes)]))
        self._pads = (_spec.map_structure(lambda s: None, spec) if padding_values is None
                      else _spec.pack(spec, _flat_like(spec, padding_values)))
        super().__init__(input_dataset, batch_size, drop_remainder)
        lead = self._size if self._drop else None
        self._element_spec = _spec.map_structure(
            lambda s, shape: _spec.TensorSpec(TensorShape([lead]).concatenate(shape), s.dtype), spec, self._shapes)

    def _elements(self):
        spec = self._input.element_spec
        flat_specs = _spec.flatten(spec)
        shapes = _spec.flatten(self._shapes) if isinstance(spec, (tuple, dict)) else [self._shapes]
        pads = _spec.flatten(self._pads) if isinstance(spec, (tuple, dict)) else [self._pads]
        batch = []
        for element in self._input._elements():
            batch.append(_spec.flatten(element))
            if len(batch) == self._size:
                yield _spec.pack(spec, [self._pad([b[c] for b in batch], s, shapes[c], pads[c])
                                        for c, s in enumerate(flat_specs)])
                batch = []
        if batch and not self._drop:
            yield _spec.pack(spec, [self._pad([b[c] for b in batch], s, shapes[c], pads[c])
                                    for c, s in enumerate(flat_specs)])

    @staticmethod
    def _pad(tensors, s, shape, pad):
        arrays = [np.asarray(t.numpy()) for t in tensors]
        rank = arrays[0].ndim
        target = [max(a.shape[k] for a in arrays) if shape.rank is None or shape.dims[k] is None
                  else shape.dims[k] for k in range(rank)]
        if pad is None:
            fill = b"" if s.dtype == string else 0
        else:
            fill = _scalar(pad)
        np_dtype = object if s.dtype == string else s.dtype.as_numpy_dtype
        out = np.full([len(arrays)] + target, fill, dtype=np_dtype)
        for i, a in enumerate(arrays):
            if any(d > t for d, t in zip(a.shape, target)):
                raise KernelError(errors.DataLossError,
                                  "Attempted to pad to a smaller size than the input element.")
            out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
        return convert_to_tensor(out, dtype=string) if s.dtype == string else convert_to_tensor(out)


def _flat_like(spec, value):
    if isinstance(spec, (tuple, dict)):
        return _spec.flatten(value) if not isinstance(value, list) else value
    return [value]


class _UnbatchDataset(_Unary):
    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        for s in _spec.flatten(spec):
            if s.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        known = [s.shape.dims[0] for s in _spec.flatten(spec) if s.shape.rank and s.shape.dims[0] is not None]
        if len(set(known)) > 1:
            raise ValueError(f"`unbatch()` is only supported for datasets of elements whose components have a "
                             f"matching leading dimension. Encountered both {known[0]} and "
                             f"{next(d for d in known if d != known[0])}.")
        super().__init__(input_dataset, _spec.map_structure(
            lambda s: _spec.TensorSpec(s.shape[1:] if s.shape.rank is not None else None, s.dtype), spec))

    def _cardinality(self):
        n = self._input._cardinality()
        firsts = {None if s.shape.rank is None else s.shape.dims[0]
                  for s in _spec.flatten(self._input.element_spec)}
        if n >= 0 and len(firsts) == 1 and None not in firsts:  # every element splits into the same number
            return n * firsts.pop()
        return INFINITE if n == INFINITE else UNKNOWN

    def _elements(self):
        spec = self.element_spec
        for element in self._input._elements():
            leaves = _spec.flatten(element)
            arrays = [np.asarray(t.numpy()) for t in leaves]
            n = arrays[0].shape[0]
            for a in arrays[1:]:
                if a.shape[0] != n:
                    raise KernelError(errors.InvalidArgumentError,
                                      f"Input element must have the same batch size in each component. Component 0 "
                                      f"had size {n} but component {arrays.index(a)} had size {a.shape[0]}.")
            for i in range(n):
                yield _spec.pack(spec, [convert_to_tensor(a[i], dtype=t.dtype) for a, t in zip(arrays, leaves)])


class _ShuffleDataset(_Unary):
    """Buffer semantics as TF's: the buffer holds the next ``buffer_size`` elements, each output is a uniformly
    chosen one of them, and its place is taken by the next input element. Seeds follow ``tf.random``'s rules
    (global and op seed); the order differs from TF's bits."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = int(_scalar(buffer_size))
        if self._buffer <= 0 and self._buffer != UNKNOWN:
            raise _op_error(errors.InvalidArgumentError, "ShuffleDatasetV3",
                            "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
        seeds, _ = _random_ops._get_seeds(None if seed is None else int(_scalar(seed)))
        self._seed_gen = (np.random.Generator(np.random.Philox()) if seeds is None else
                          np.random.Generator(np.random.Philox(key=_random_ops.stream_key(seeds))))
        self._reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        self._fixed = int(self._seed_gen.integers(2**63))  # the one order of every epoch without reshuffling
        super().__init__(input_dataset)

    def _elements(self):
        key = int(self._seed_gen.integers(2**63)) if self._reshuffle else self._fixed
        rng = np.random.Generator(np.random.Philox(key=key))
        it = self._input._elements()
        buf = []
        for element in it:
            buf.append(element)
            if len(buf) == self._buffer:  # UNKNOWN_CARDINALITY (-2) never matches: the whole input
                break
        for element in it:
            i = int(rng.integers(len(buf)))
            yield buf[i]
            buf[i] = element
        while buf:
            i = int(rng.integers(len(buf)))
            buf[i], buf[-1] = buf[-1], buf[i]
            yield buf.pop()


class _RepeatDataset(_Unary):
    def __init__(self, input_dataset, count):
        self._count = -1 if count is None else int(_scalar(count))
        super().__init__(input_dataset)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0:
            return INFINITE if n >= 0 or n == INFINITE else UNKNOWN
        return n * self._count if n >= 0 else n

    def _elements(self):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for element in self._input._elements():
                produced = True
                yield element
            if not produced:  # an empty input repeats to nothing, not to a loop without end
                return
            epoch += 1


class _TakeDataset(_Unary):
    def __init__(self, input_dataset, count):
        self._count = int(_scalar(count))
        super().__init__(input_dataset)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return min(n, self._count) if n >= 0 else UNKNOWN

    def _elements(self):
        if self._count == 0:
            return
        for i, element in enumerate(self._input._elements(), 1):
            yield element
            if i == self._count:
                return


class _SkipDataset(_Unary):
    def __init__(self, input_dataset, count):
        self._count = int(_scalar(count))
        super().__init__(input_dataset)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(n - self._count, 0)

    def _elements(self):
        if self._count < 0:
            for _ in self._input._elements():
                pass
            return
        for i, element in enumerate(self._input._elements()):
            if i >= self._count:
                yield element


class _ConcatenateDataset(Dataset):
    def __init__(self, a, b):
        sa, sb = a.element_spec, b.element_spec
        if not _spec.same_structure(sa, sb) or any(
                x.dtype != y.dtype for x, y in zip(_spec.flatten(sa), _spec.flatten(sb))):
            raise TypeError(f"Incompatible dataset elements:\n  {sa} vs.   {sb}")
        self._a, self._b = a, b
        super().__init__(_spec.relax_spec(sa, sb))

    def _cardinality(self):
        x, y = self._a._cardinality(), self._b._cardinality()
        if x == INFINITE or y == INFINITE:
            return INFINITE
        if x == UNKNOWN or y == UNKNOWN:
            return UNKNOWN
        return x + y

    def _elements(self):
        yield from self._a._elements()
        yield from self._b._elements()


class _PrefetchDataset(_Unary):
    """``prefetch``: in this increment, elements pass through as they are computed."""

    def _elements(self):
        return self._input._elements()


class CacheDataset(_Unary):
    """``cache()``: the first complete iteration keeps every element in memory; later ones read them back."""

    def __init__(self, input_dataset, filename):
        if filename:
            raise NotImplementedError("tapeflow: cache(filename) is not supported yet; use cache() in memory")
        self._cache = None
        super().__init__(input_dataset)

    def _elements(self):
        if self._cache is not None:
            yield from self._cache
            return
        kept = []
        for element in self._input._elements():
            kept.append(element)
            yield element
        self._cache = kept


class _OptionsDataset(_Unary):
    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        base = input_dataset.options()
        self._options = base.merge(options)

    def _elements(self):
        return self._input._elements()


class _ShardDataset(_Unary):
    def __init__(self, input_dataset, num_shards, index):
        self._n, self._i = int(_scalar(num_shards)), int(_scalar(index))
        if self._n <= 0:
            raise _op_error(errors.InvalidArgumentError, "ShardDataset",
                            f"Number of shards must be greater than zero (currently num_shards = {self._n}).")
        if not 0 <= self._i < self._n:
            raise _op_error(errors.InvalidArgumentError, "ShardDataset",
                            f"Index must be between 0 and {self._n - 1} (currently index = {self._i}).")
        super().__init__(input_dataset)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if n % self._n > self._i else 0)

    def _elements(self):
        for k, element in enumerate(self._input._elements()):
            if k % self._n == self._i:
                yield element


class _FlatMapDataset(Dataset):
    def __init__(self, input_dataset, map_func):
        self._input = input_dataset
        self._fn = map_func
        spec = _trace(map_func, input_dataset.element_spec, result=_dataset_result)
        super().__init__(spec.element_spec if spec is not None else None)

    @property
    def element_spec(self):
        if self._element_spec is None:
            for element in self._input._elements():
                self._element_spec = _dataset_result(_call(self._fn, element)).element_spec
                break
        return self._element_spec

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        for element in self._input._elements():
            yield from _dataset_result(_call(self._fn, element))._elements()


def _dataset_result(value):
    if not isinstance(value, Dataset):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(value)!r}.")
    return value


class _Counter(_RangeDataset):
    """``enumerate``'s indices: a range to the largest int64 that TF counts as infinite."""

    _TF_NAME = "_RangeDataset"

    def __init__(self, start):
        super().__init__(start, np.iinfo(np.int64).max)

    def _cardinality(self):
        return INFINITE


class _VariantDataset(Dataset):
    """A dataset over a list of elements already computed (a window's component)."""

    def __init__(self, elements, element_spec):
        self._list = elements
        super().__init__(element_spec)

    def _cardinality(self):
        return len(self._list)

    def _elements(self):
        return iter(self._list)


class _WindowDataset(_Unary):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size = int(_scalar(size))
        self._shift = self._size if shift is None else int(_scalar(shift))
        self._stride = int(_scalar(stride))
        self._drop = bool(_scalar(drop_remainder))
        super().__init__(input_dataset, _spec.map_structure(lambda s: _spec.DatasetSpec(s),
                                                            input_dataset.element_spec))

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _elements(self):
        spec = self._input.element_spec
        leaves_spec = _spec.flatten(spec)
        span = (self._size - 1) * self._stride + 1
        buf = collections.deque()
        it = self._input._elements()
        done = False
        while True:
            while not done and len(buf) < span:
                try:
                    buf.append(next(it))
                except StopIteration:
                    done = True
            if not buf:
                return
            window = list(buf)[::self._stride][:self._size]
            if len(window) < self._size and self._drop:
                return
            flat = [_spec.flatten(e) for e in window]
            yield _spec.pack(spec, [_VariantDataset([f[c] for f in flat], s) for c, s in enumerate(leaves_spec)])
            for _ in range(self._shift):
                if buf:
                    buf.popleft()
                elif not done:
                    try:
                        next(it)
                    except StopIteration:
                        done = True


class _TakeWhileDataset(_Unary):
    def __init__(self, input_dataset, predicate):
        self._pred = predicate
        super().__init__(input_dataset)
        out = _trace(predicate, input_dataset.element_spec)
        if out is not None:
            _check_predicate(out, " but its return type is")

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        for element in self._input._elements():
            if not bool(_spec.normalize(_call(self._pred, element)).numpy()):
                return
            yield element


class _UniqueDataset(_Unary):
    def __init__(self, input_dataset):
        s = input_dataset.element_spec
        if not isinstance(s, _spec.TensorSpec):
            raise TypeError("Unique transformation only supports single-component datasets.")
        if s.dtype not in (int32, int64, string):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {s.dtype} -- only `tf.int32`, "
                            f"`tf.int64`, and `tf.string` are supported.")
        super().__init__(input_dataset)

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        seen = set()
        for element in self._input._elements():
            key = element.numpy()
            key = key.tobytes() if isinstance(key, np.ndarray) and key.dtype != object else (
                tuple(key.ravel()) if isinstance(key, np.ndarray) else key)
            if key not in seen:
                seen.add(key)
                yield element


# ------------------------------------------------------------------------------------------------ methods


def install(cls):
    """Give the ``Dataset`` class its transformation methods."""

    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None, use_unbounded_threadpool=False, name=None):  # noqa: E501
        """Apply ``map_func`` to each element (a tuple element is unpacked into arguments).

        ``num_parallel_calls`` and ``deterministic`` are accepted; the calls run in order on the calling thread.
        """
        if num_parallel_calls is None:
            return _MapDataset(self, map_func)
        return _ParallelMapDataset(self, map_func)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` returns a true ``tf.bool`` scalar."""
        return _FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Consecutive elements stacked into batches (the last one smaller unless ``drop_remainder``)."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches whose elements are padded to a common shape (the largest in the batch by default)."""
        return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

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
        """Accepted; the elements pass through (no background thread in this increment)."""
        return _PrefetchDataset(self)

    def cache(self, filename="", name=None):
        """Keep the elements in memory after the first complete iteration."""
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

    for f in (map, filter, batch, padded_batch, unbatch, shuffle, repeat, take, skip, concatenate, enumerate,
              prefetch, cache, apply, with_options, shard, flat_map, window, take_while, unique):
        setattr(cls, f.__name__, f)

"""The transformations of ``tf.data.Dataset`` other than batching (``map``, ``filter``, ``shuffle``, ``repeat``
...), each a dataset class named as TF names it (``repr`` shows it); ``methods.py`` gives ``Dataset`` the methods
that build them.

A ``map`` function (and a ``filter`` predicate) is traced once, when the dataset is built, as TF traces it (a
``tf.function`` with the element spec as input signature, ``_traced``); each element runs the traced program.
Other functions (and a map function the tracer cannot take) run eagerly, once per element. To know such a
function's output types when the dataset is built (``element_spec``, and TF's construction-time errors), it is
also called on stand-ins for an element, as TF's tracing calls it once on symbolic ones: twice, first with zeros
and every dimension the input spec leaves unknown set to 1, then with ones and those dimensions set to 2, so that
output dimensions that follow an unknown dimension or a value (``tf.range(x)``) come out unknown (``None``).
"""

from __future__ import annotations

import os

import numpy as np

from .._core import errors
from .._core.dtypes import bool_, int32, int64, string
from ..ops import random_ops as _random_ops
from . import composite_elements as _composite
from . import spec as _spec
from . import threads as _threads
from .dataset import (
    INFINITE,
    UNKNOWN,
    Dataset,
    Failed,
    KernelError,
    _op_error,
    _RangeDataset,
    _scalar,
    _Unary,
    _VariantDataset,
)
from .options import Options

AUTOTUNE = -1


def _call(fn, element):
    """``fn`` applied to an element as TF applies it: a tuple is unpacked into positional arguments."""
    return fn(*element) if type(element) is tuple else fn(element)


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
    if not callable(fn):
        raise ValueError(f"Argument `func` must be a callable. Received func={fn} (of type {type(fn)})")
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
        specs.append(_spec.spec_of(out))
    if not _spec.same_structure(specs[0], specs[1]):  # a structure that follows values: learn it from elements
        return None
    return _spec.map_structure(_relax_one, specs[0], specs[1])


def _relax_one(a, b):
    if isinstance(a, _spec.TensorSpec):
        return _spec.relax_spec(a, b)
    if getattr(a, "value_type", None) is not None and getattr(a, "ragged_rank", None) is not None and \
            type(a) is type(b) and a.ragged_rank == b.ragged_rank:  # a tf.RaggedTensorSpec: its sizes relax too
        return type(a)(_spec.relaxed_shape(a.shape, b.shape), a.dtype, a.ragged_rank, a.row_splits_dtype)
    if isinstance(a, _spec.DatasetSpec) and _spec.same_structure(a.element_spec, b.element_spec):
        return _spec.DatasetSpec(_spec.map_structure(_relax_one, a.element_spec, b.element_spec))
    return a


def _traced(fn, spec):
    """``fn`` traced for elements of ``spec`` (a concrete ``tf.function`` taking an element as ``_call`` passes
    it), or ``None`` where it is not: in ``tf.data.experimental.enable_debug_mode()``, for elements that hold
    datasets, or a function the tracer cannot take; those run eagerly per element (see the module docstring)."""
    from ..compiler import tf_function  # noqa: PLC0415 - the compiler loads on first use

    if not callable(fn):
        raise ValueError(f"Argument `func` must be a callable. Received func={fn} (of type {type(fn)})")
    from .experimental import _DEBUG_MODE  # noqa: PLC0415 - experimental builds on this module

    leaves = _spec.flatten(spec)
    if _DEBUG_MODE[0] or not leaves or not all(type(s) is _spec.TensorSpec or _composite.is_composite_spec(s)
                                               for s in leaves):
        return None
    # (a ragged spec of ragged rank 0 stands for a dense tensor, the row of a ragged tensor)
    spec = _spec.map_structure(lambda s: _spec.TensorSpec(s.shape, s.dtype) if getattr(s, "ragged_rank", None) == 0
                               else s, spec)
    signature = list(spec) if type(spec) is tuple else [spec]
    try:
        concrete = tf_function.function(fn, input_signature=signature).get_concrete_function()
        if concrete._first.graph.poisoned:
            # An op failed on the stand-in element (parsing an empty record): the trace could not see what its
            # outputs are, so the function runs eagerly and its spec comes from the elements.
            return None
        return concrete
    except TypeError as exc:
        if "positional argument" in str(exc):
            raise
        return None
    except Exception:  # noqa: BLE001 - what the tracer cannot take runs eagerly, element by element
        return None


def _output_spec(outputs):
    """The element spec of a traced function's ``structured_outputs``: its tensor specs, the spec of the tensor a
    Python value becomes, and a list at the top a tuple (as ``_map_result`` makes each result)."""
    def one(leaf):
        if getattr(leaf, "value_type", None) is not None:  # a tf.SparseTensorSpec
            return leaf
        if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
            return _spec.TensorSpec(leaf.shape, leaf.dtype)
        return _spec.spec_of(_spec.normalize(leaf))

    outputs = tuple(outputs) if isinstance(outputs, list) else outputs
    return _spec.map_structure(one, outputs)


def _map_result(value):
    """A map function's result as an element: a list returned at the top is a tuple, as in TF."""
    return _spec.normalize(tuple(value) if isinstance(value, list) else value)


class _MapDataset(_Unary):
    _FUSES_WITH_BATCH = True  # see batching._stack

    def __init__(self, input_dataset, map_func):
        traced = _traced(map_func, input_dataset.element_spec)
        if traced is not None:  # TF's way: traced once, here; every element runs the traced program
            self._fn = traced._call_checked  # (an element always matches the spec the function was traced for)
            super().__init__(input_dataset, _output_spec(traced.structured_outputs))
            return
        self._fn = map_func
        super().__init__(input_dataset, _trace(map_func, input_dataset.element_spec, _map_result) or False)

    @property
    def element_spec(self):
        if self._element_spec is False:  # the stand-ins failed: learn the spec from the first element
            for element in self._elements():
                # (a sparse result's dense shape is computed, which a trace leaves unknown: TF's spec)
                self._element_spec = _spec.map_structure(_composite.unknown_sizes, _spec.spec_of(element))
                break
            else:
                self._element_spec = _spec.TensorSpec(None, int32)
        return self._element_spec

    def _elements(self):
        fn = self._fn
        for element in self._input._elements():
            yield _map_result(_call(fn, element))

    def _attempts(self):
        fn = self._fn
        for element in self._input._attempts():
            if isinstance(element, Failed):
                yield element
                continue
            try:
                yield _map_result(_call(fn, element))
            except (errors.OpError, KernelError) as exc:
                yield Failed(exc)


class _ParallelMapDataset(_MapDataset):
    """``map(..., num_parallel_calls=n)``: ``n`` calls at a time on other threads (``threads.parallel_map``)."""

    def __init__(self, input_dataset, map_func, num_parallel_calls, deterministic):
        n = int(_scalar(num_parallel_calls))
        if n < AUTOTUNE or n == 0:
            raise _op_error(errors.InvalidArgumentError, "ParallelMapDatasetV2_Targuments_0",
                            "num_parallel_calls must be greater than zero.")
        self._workers = (os.cpu_count() or 1) if n == AUTOTUNE else n
        self._deterministic = deterministic
        super().__init__(input_dataset, map_func)

    def _ordered(self):
        if self._deterministic is not None:
            return self._deterministic
        chosen = self.options().deterministic
        return True if chosen is None else chosen

    def _elements(self):
        if self._workers == 1:
            yield from super()._elements()
            return
        fn = self._fn
        yield from _threads.parallel_map(lambda element: _map_result(_call(fn, element)), self._input._elements(),
                                         self._workers, self._ordered())


class _FilterDataset(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        traced = _traced(predicate, input_dataset.element_spec)
        if traced is not None:  # traced once, as ``map``'s function (its output checked once, here)
            _check_predicate(_output_spec(traced.structured_outputs), ", but its return type is ")
            self._pred, self._checked = traced._call_checked, True
            return
        self._pred, self._checked = predicate, False
        out = _trace(predicate, input_dataset.element_spec)
        if out is not None:
            _check_predicate(out, ", but its return type is ")

    def _cardinality(self):
        return UNKNOWN  # even on an infinite input: the predicate may reject everything from some point on

    def _elements(self):
        for element in self._input._elements():
            keep = _spec.normalize(_call(self._pred, element))
            if not self._checked:
                _check_predicate(_spec.spec_of(keep), ", but its return type is ")
            if bool(keep._value):
                yield element

    def _attempts(self):
        for element in self._input._attempts():
            if isinstance(element, Failed):
                yield element
                continue
            try:
                keep = _spec.normalize(_call(self._pred, element))
            except (errors.OpError, KernelError) as exc:
                yield Failed(exc)
                continue
            if not self._checked:
                _check_predicate(_spec.spec_of(keep), ", but its return type is ")
            if bool(keep._value):
                yield element


def _check_predicate(out, joint):
    """TF's check of a predicate's output (``filter`` and ``take_while`` word it a little differently)."""
    if not (isinstance(out, _spec.TensorSpec) and out.dtype == bool_ and out.shape.rank == 0):
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor{joint}{out}.")

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
    """``prefetch``: the input's elements computed ahead in a background thread (``threads.ahead``)."""

    def __init__(self, input_dataset, buffer_size):
        size = int(_scalar(buffer_size))
        if size < AUTOTUNE:
            raise _op_error(errors.InvalidArgumentError, "PrefetchDataset",
                            "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning")
        self._size = _threads.DEFAULT_BUFFER if size == AUTOTUNE else size
        super().__init__(input_dataset)

    def _elements(self):
        if not self._size:
            return self._input._elements()
        return _threads.ahead(self._input._elements, self._size)

    def _attempts(self):
        if not self._size:
            return self._input._attempts()
        return _threads.ahead(self._input._attempts, self._size)


class _OptionsDataset(_Unary):
    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        if not isinstance(options, Options):  # TF fails reading it as options
            raise AttributeError(f"'{type(options).__name__}' object has no attribute '_to_proto'")
        self._options = input_dataset.options().merge(options)._frozen()

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

"""``tf.data.Dataset``: the base class, its iterator and the source datasets.

A dataset is a description; iterating it runs the pipeline eagerly in Python, one element at a time. Each dataset
class implements ``_elements()``, a fresh Python generator over its elements (nests of tapeflow tensors), and
``_cardinality()``; the transformations live in ``transformations.py``, ``batching.py`` and ``combinators.py``,
and ``methods.py`` gives this class the methods that build them.
Class names are TF's own, since ``repr(dataset)`` shows them (``<_MapDataset element_spec=...>``).
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dtypes import as_dtype, int64, string
from .._core.tensor import Tensor, convert_to_tensor, wrap
from . import spec as _spec

INFINITE = -1
UNKNOWN = -2


def _op_error(cls, op, message, element_spec=None):
    """An error worded as TF's dataset kernels word it (``{{function_node __wrapped__<op>...}} msg [Op:<op>]``);
    ``op`` may carry attribute suffixes (``ReduceDataset_Targuments_0_Tstate_1``), which ``[Op:...]`` leaves
    out, and ``element_spec`` adds ``_output_types_<n>``."""
    kernel = op if element_spec is None else f"{op}_output_types_{len(_spec.flatten(element_spec))}"
    return cls(None, None, f"{{{{function_node __wrapped__{kernel}_device_{errors.CPU_DEVICE}}}}} {message} "
                           f"[Op:{op.split('_')[0]}] name: ")


class Dataset:
    """A sequence of elements (nests of tensors), iterated eagerly: ``for x in dataset``.

    Build one from a source (``from_tensor_slices``, ``range``, ``from_generator`` ...) and chain
    transformations (``map``, ``shuffle``, ``batch`` ...). Functions given to ``map``, ``filter`` and the others
    run eagerly on tapeflow tensors, once per element. TensorFlow traces them instead, so there a Python side
    effect (a ``print``, appending to a list) runs once, when the function is traced; here it runs for every
    element, and twice more when the dataset is built, to learn the function's output types (docs/data.md).
    """

    def __init__(self, element_spec):
        self._element_spec = element_spec
        self._options = None

    # ----------------------------------------------------------------------------- what subclasses provide

    def _elements(self):
        raise NotImplementedError

    def _cardinality(self):
        return UNKNOWN

    def _attempts(self):
        """The elements, with a :class:`Failed` in place of an element whose computation raised a TF error.

        ``ignore_errors`` reads this. A Python generator ends when it raises, so the datasets that compute
        elements one by one from their input (``map``, ``filter``) override it to go on after a failed element;
        elsewhere the first error ends the sequence, as the default here does."""
        it = self._elements()
        while True:
            try:
                element = next(it)
            except StopIteration:
                return
            except (errors.OpError, KernelError) as exc:
                yield Failed(exc)
                return
            yield element

    # ---------------------------------------------------------------------------------------- inspection

    @property
    def element_spec(self):
        """The type of each element: a nest of ``tf.TensorSpec`` matching the elements' structure."""
        return self._element_spec

    def cardinality(self):
        """The number of elements as an int64 scalar; ``tf.data.INFINITE_CARDINALITY`` (-1) or
        ``tf.data.UNKNOWN_CARDINALITY`` (-2) when infinite or not known without running the pipeline."""
        return convert_to_tensor(np.int64(self._cardinality()))

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # as TF: a dataset is truthy even when empty (no __len__ call)

    def __repr__(self):
        name = getattr(self, "_tf_name", None) or getattr(type(self), "_TF_NAME", type(self).__name__)
        return f"<{name} element_spec={self.element_spec!r}>"

    def __iter__(self):
        return OwnedIterator(self)

    def as_numpy_iterator(self):
        """An iterator over the elements as NumPy values (strings as ``bytes``), nests kept."""
        return NumpyIterator(self)

    def options(self):
        """The ``tf.data.Options`` set with ``with_options`` (a default one if none)."""
        from .options import Options

        dataset = self
        while dataset is not None:  # options set upstream hold for the whole pipeline, as in TF
            if dataset._options is not None:
                return dataset._options
            dataset = getattr(dataset, "_input", None)
        return Options()._frozen()

    # --------------------------------------------------------------------------------------------- sources

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per slice along the first dimension of every component of ``tensors``."""
        return _TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, ``tensors``."""
        return _TensorDataset(tensors)

    @staticmethod
    def range(*args, **kwargs):
        """``range(stop)``, ``range(start, stop[, step])``: int64 elements (``output_type=`` to change)."""
        return _RangeDataset(*args, output_type=kwargs.get("output_type", int64))

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements that are tuples (or the given nest) of one element from each dataset, until one ends."""
        if args and datasets is not None:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if len(args) == 1:
            datasets = args[0]
        elif args:
            datasets = args
        return _ZipDataset(datasets)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements yielded by ``generator(*args)``, called anew for every iteration, converted to the
        ``output_signature`` (or ``output_types``/``output_shapes``)."""
        from .generator import from_generator

        return from_generator(generator, output_types, output_shapes, args, output_signature)

    # ------------------------------------------------------------------------------------------- reductions

    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element)`` folded over the elements from ``initial_state``."""
        state = _spec.normalize(initial_state)
        n = len(_spec.flatten(state))
        try:
            return self._reduce(state, n, reduce_func)
        except KernelError as exc:
            raise _op_error(exc.cls, f"ReduceDataset_Targuments_0_Tstate_{n}", exc.message, state) from None

    def _reduce(self, state, n, reduce_func):
        for element in self._elements():
            state = _spec.normalize(reduce_func(state, element))
            if len(_spec.flatten(state)) != n:
                raise KernelError(errors.InvalidArgumentError,
                                  f"The number of components of the initial state and the reduce function output "
                                  f"does not match. (initial_state={n}, output={len(_spec.flatten(state))}).")
        return state

    def get_single_element(self, name=None):
        """The only element; ``InvalidArgumentError`` if there are none or more than one."""
        it = self._elements()
        try:
            element = _next(it, self.element_spec, "DatasetToSingleElement")
        except StopIteration:
            raise _op_error(errors.InvalidArgumentError, "DatasetToSingleElement", "Dataset was empty.",
                            self.element_spec) from None
        for _ in it:
            raise _op_error(errors.InvalidArgumentError, "DatasetToSingleElement",
                            "Dataset had more than one element.", self.element_spec)
        return element


_END = object()


class OwnedIterator:
    """An iterator over a dataset (``iter(dataset)``): ``next()`` ends with ``StopIteration``, ``get_next()``
    with ``tf.errors.OutOfRangeError`` as TF's."""

    _tapeflow_iterator = True  # (``tf.train.Checkpoint`` saves its position)

    def __init__(self, dataset):
        self._dataset = dataset
        self._it = dataset._elements()
        self._position = 0  # elements given so far: what a checkpoint saves

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        element = _next(self._it, self.element_spec)
        self._position += 1
        return element

    def get_next(self):
        """The next element, or ``tf.errors.OutOfRangeError`` at the end."""
        try:
            element = _next(self._it, self.element_spec)
        except StopIteration:
            raise _op_error(errors.OutOfRangeError, "IteratorGetNext", "End of sequence",
                            self.element_spec) from None
        self._position += 1
        return element

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional``, empty at the end."""
        try:
            element = _next(self._it, self.element_spec)
        except StopIteration:
            return Optional(None, self.element_spec, has_value=False)
        self._position += 1
        return Optional(element, self.element_spec)

    def _restore_position(self, position):
        """Continue after the first ``position`` elements (a checkpoint's restore): the dataset is iterated again
        from its start and that many elements are skipped, which gives TF's elements for pipelines whose order
        does not depend on fresh randomness (a ``shuffle`` without a seed draws another order)."""
        self._it = self._dataset._elements()
        for _ in range(position):
            if next(self._it, _END) is _END:
                break
        self._position = position


class Optional:
    """A value that may be missing (``iterator.get_next_as_optional()``)."""

    def __init__(self, value, element_spec, has_value=True):
        self._value = value
        self._element_spec = element_spec
        self._has_value = has_value

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        """A bool scalar: whether there is a value."""
        return convert_to_tensor(self._has_value)

    def get_value(self, name=None):
        """The value; ``InvalidArgumentError`` when there is none."""
        if not self._has_value:
            raise _op_error(errors.InvalidArgumentError, "OptionalGetValue", "The optional does not have a value.",
                            self._element_spec)
        return self._value


class KernelError(Exception):
    """An error of a dataset's own kernel (batching, unbatching ...): the iterator that meets it raises it as
    ``cls`` with TF's ``{{function_node __wrapped__IteratorGetNext...}}`` wording for its element spec."""

    def __init__(self, cls, message):
        super().__init__(message)
        self.cls = cls
        self.message = message


class Failed:
    """An element whose computation raised ``error`` (see ``Dataset._attempts``)."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _next(it, element_spec, op="IteratorGetNext"):
    try:
        return next(it)
    except KernelError as exc:
        raise _op_error(exc.cls, op, exc.message, element_spec) from None


def _to_numpy(x):
    if isinstance(x, Dataset):
        return x
    if getattr(x, "_tapeflow_composite", False):
        from .composite_elements import numpy_value  # noqa: PLC0415

        return numpy_value(x)
    value = x.numpy()
    if x.dtype == string and isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


class NumpyIterator:
    """``as_numpy_iterator()``: each element as NumPy values."""

    def __init__(self, dataset):
        self._it = dataset._elements()
        self._element_spec = dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        return _spec.map_structure(_to_numpy, _next(self._it, self._element_spec))

    def __repr__(self):
        return f"NumpyIterator(iterator={self._it!r})"


# -------------------------------------------------------------------------------------------------- sources


def _first_dim(t):
    if t.shape.rank == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    return t.shape[0]


class _TensorSliceDataset(Dataset):
    def __init__(self, tensors):
        from . import composite_elements as composite  # noqa: PLC0415 - it builds on the op set, loaded by then

        self._value = _spec.normalize(tensors)
        leaves = _spec.flatten(self._value)
        self._composite = [composite.is_composite(t) for t in leaves]
        n = None
        for t, is_composite in zip(leaves, self._composite):
            d = composite.first_dim(t) if is_composite else _first_dim(t)
            if n is not None and d != n:
                raise ValueError(f"Dimensions {n} and {d} are not compatible")
            n = d
        self._n = n
        # Slices are taken from NumPy copies: indexing a tensor per element would dispatch an op each time.
        self._arrays = [None if c else np.asarray(t.numpy()) for t, c in zip(leaves, self._composite)]
        self._leaves = leaves
        self._dtypes = [t.dtype for t in leaves]
        super().__init__(_spec.map_structure(
            lambda t: composite.sliced_spec(t._spec()) if composite.is_composite(t) else
            _spec.TensorSpec(t.shape[1:], t.dtype), self._value))

    def _cardinality(self):
        return self._n

    def _elements(self):
        # A NumPy slice is a tensor of its own dtype as it is (the arrays are this dataset's own, never written);
        # strings (object arrays) go through the conversion that checks them.
        strings = [d == string for d in self._dtypes]
        if any(self._composite):
            yield from self._with_composites(strings)
            return
        for i in range(self._n):
            yield _spec.pack(self._value, [convert_to_tensor(a[i], dtype=string) if s else wrap(a[i])
                                           for a, s in zip(self._arrays, strings)])

    def _with_composites(self, strings):
        from .composite_elements import rows  # noqa: PLC0415

        composite_rows = [rows(t) if c else None for t, c in zip(self._leaves, self._composite)]
        for i in range(self._n):
            yield _spec.pack(self._value, [next(r) if r is not None else convert_to_tensor(a[i], dtype=string)
                                           if s else wrap(a[i])
                                           for a, s, r in zip(self._arrays, strings, composite_rows)])


class _TensorDataset(Dataset):
    def __init__(self, tensors):
        self._value = _spec.normalize(tensors)
        super().__init__(_spec.spec_of(self._value))

    def _cardinality(self):
        return 1

    def _elements(self):
        yield self._value


class _RangeDataset(Dataset):
    def __init__(self, *args, output_type=int64):
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        start, stop, step = (_int64(v) for v in (start, stop, step))
        if step == 0:
            raise _op_error(errors.InvalidArgumentError, "RangeDataset", "step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._dtype = as_dtype(output_type)
        super().__init__(_spec.TensorSpec([], self._dtype))

    def _cardinality(self):
        return len(self._range)

    def _elements(self):
        np_dtype = self._dtype.as_numpy_dtype
        for i in self._range:
            yield convert_to_tensor(np_dtype(i))


def _int64(v):
    """A range bound as TF converts it to int64: a float is refused."""
    v = _scalar(v)
    if isinstance(v, (float, np.floating)):
        raise TypeError(f"Cannot convert {v} to EagerTensor of dtype int64")
    return int(v)


def _scalar(v):
    return v.numpy() if isinstance(v, Tensor) else v


class _ZipDataset(Dataset):
    def __init__(self, datasets):
        if datasets is None:
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects.")
        self._check(datasets)
        self._datasets = datasets
        super().__init__(_spec.map_structure(lambda d: d.element_spec, datasets))

    @staticmethod
    def _check(datasets):
        def walk(x):
            if isinstance(x, list):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                "`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                                "`tuple` instead.")
            if isinstance(x, (tuple, dict)):
                for v in (x.values() if isinstance(x, dict) else x):
                    walk(v)
            elif not isinstance(x, Dataset):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                "`tf.data.Dataset` objects.")

        walk(datasets)

    def _cardinality(self):
        cards = [d._cardinality() for d in _spec.flatten(self._datasets)]
        known = [c for c in cards if c >= 0]
        if known:
            return min(known) if UNKNOWN not in cards or min(known) == 0 else UNKNOWN
        return UNKNOWN if UNKNOWN in cards else INFINITE

    def _elements(self):
        its = [d._elements() for d in _spec.flatten(self._datasets)]
        while True:
            parts = []
            for it in its:
                try:
                    parts.append(next(it))
                except StopIteration:
                    return
            yield _spec.pack(self._datasets, parts)


class _Unary(Dataset):
    """A dataset computed from one input dataset."""

    def __init__(self, input_dataset, element_spec=None):
        self._input = input_dataset
        super().__init__(input_dataset.element_spec if element_spec is None else element_spec)

    def _cardinality(self):
        return self._input._cardinality()


class _VariantDataset(Dataset):
    """A dataset over a list of elements already computed (a window's component)."""

    def __init__(self, elements, element_spec):
        self._list = elements
        super().__init__(element_spec)

    def _cardinality(self):
        return len(self._list)

    def _elements(self):
        return iter(self._list)


from . import methods as _methods  # noqa: E402 - the methods' classes subclass Dataset

_methods.install(Dataset)

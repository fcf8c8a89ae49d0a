"""The structures of dataset elements and their specs (``tf.TensorSpec`` is in ``_core/tensor_spec.py``).

An element is a nest of tuples, dicts and namedtuples whose leaves are tensors, sparse tensors (one leaf each,
their spec a ``tf.SparseTensorSpec``), ragged tensors (``tf.RaggedTensorSpec``; see ``composite_elements.py``)
or, for ``window``, datasets.
Lists are not structure in ``tf.data``: a Python list given as an element is converted to one tensor, as TF does.
"""

from __future__ import annotations

import collections

import numpy as np

from .._core.dtypes import string
from .._core.shape import TensorShape
from .._core.tensor import Tensor, convert_to_tensor
from .._core.tensor_spec import TensorSpec, relaxed_shape

__all__ = ["TensorSpec", "DatasetSpec", "normalize", "spec_of", "flatten", "pack", "map_structure",
           "same_structure"]


class DatasetSpec:
    """The type of a dataset used as an element (``window`` yields them): its element spec and shape."""

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    def __eq__(self, other):
        return (type(other) is type(self) and self._element_spec == other._element_spec
                and self._dataset_shape.dims == other._dataset_shape.dims)

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def relax_spec(a, b):
    """The spec of a structure that is sometimes ``a`` and sometimes ``b`` (same structure and dtypes)."""
    return map_structure(lambda x, y: type(x)(relaxed_shape(x.shape, y.shape), x.dtype), a, b)


# ------------------------------------------------------------------------------------------ structures


def _dict_like(d):
    """The dict type an element's dict keeps: an ``OrderedDict`` stays one (``make_csv_dataset``'s features), any
    other mapping becomes a plain dict."""
    return collections.OrderedDict if isinstance(d, collections.OrderedDict) else dict


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def normalize(value):
    """``value`` as an element: tuples and dicts kept as structure, every other leaf converted to a tensor."""
    if isinstance(value, Tensor):  # the common case first: map functions return tensors
        return value
    if getattr(value, "_tapeflow_composite", False):  # a SparseTensor is one leaf
        return value
    if isinstance(value, dict):
        return _dict_like(value)((k, normalize(value[k])) for k in value)
    if _is_namedtuple(value):
        return type(value)(*(normalize(v) for v in value))
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    if _is_dataset(value):  # datasets are leaves too (window's elements)
        return value
    return convert_to_tensor(value)


def _is_dataset(value):
    from .dataset import Dataset  # spec.py loads before dataset.py, which builds on it

    return isinstance(value, Dataset)


def flatten(structure):
    """The leaves of an element or spec in order (dict keys sorted, as TF does)."""
    if isinstance(structure, dict):
        out = []
        for k in _keys(structure):
            out.extend(flatten(structure[k]))
        return out
    if isinstance(structure, tuple):
        out = []
        for v in structure:
            out.extend(flatten(v))
        return out
    return [structure]


def _keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def pack(structure, leaves):
    """Rebuild ``structure`` with ``leaves`` (as many as ``flatten(structure)`` gives)."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in _keys(s)}
            return _dict_like(s)((k, built[k]) for k in s)
        if _is_namedtuple(s):
            return type(s)(*(build(v) for v in s))
        if isinstance(s, tuple):
            return tuple(build(v) for v in s)
        return next(it)

    return build(structure)


def same_structure(a, b):
    """Whether ``a`` and ``b`` nest the same way (types of containers and dict keys)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True


def map_structure(fn, *structures):
    """``fn`` applied leaf by leaf to structures that nest alike."""
    return pack(structures[0], [fn(*xs) for xs in zip(*(flatten(s) for s in structures))])


def spec_of(element):
    """The spec of an element: a TensorSpec per tensor, a DatasetSpec per dataset."""
    def one(x):
        if _is_dataset(x):
            return DatasetSpec(x.element_spec)
        if getattr(x, "_tapeflow_composite", False):
            return x._spec()
        return TensorSpec(x.shape, x.dtype)

    return map_structure(one, element)


def dummy(spec, unknown=1, fill=0):
    """An element fitting ``spec`` filled with ``fill`` (unknown dimensions set to ``unknown``; an unknown rank is
    a scalar)."""
    def one(s):
        from . import composite_elements  # noqa: PLC0415 - it builds on the op set, loaded by then

        if composite_elements.is_composite_spec(s):
            return composite_elements.dummy(s, unknown)
        dims = () if s.shape.rank is None else tuple(unknown if d is None else d for d in s.shape.dims)
        if s.dtype == string:
            return convert_to_tensor(np.full(dims, b"" if not fill else b"a", dtype=object), dtype=string)
        return convert_to_tensor(np.full(dims, fill, dtype=s.dtype.as_numpy_dtype))

    return map_structure(one, spec)

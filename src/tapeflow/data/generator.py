"""``Dataset.from_generator``: elements from a Python generator, checked against a signature as TF checks them."""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dtypes import DType, as_dtype, string
from .._core.shape import TensorShape
from .._core.tensor import convert_to_tensor
from . import spec as _spec
from .dataset import UNKNOWN, Dataset, _op_error


def _signature_from(output_types, output_shapes):
    if output_shapes is None:
        return _spec.map_structure(lambda t: _spec.TensorSpec(None, t), _types_nest(output_types))
    types = _types_nest(output_types)
    if not isinstance(types, tuple) and not isinstance(types, dict):
        return _spec.TensorSpec(output_shapes, types)
    return _spec.map_structure(lambda t, s: _spec.TensorSpec(s, t), types, _shapes_like(types, output_shapes))


def _types_nest(output_types):
    if isinstance(output_types, list):
        output_types = tuple(output_types)
    if isinstance(output_types, dict):
        return {k: _types_nest(v) for k, v in output_types.items()}
    if isinstance(output_types, tuple):
        return tuple(_types_nest(v) for v in output_types)
    return as_dtype(output_types)


def _shapes_like(types, shapes):
    if isinstance(types, dict):
        return {k: _shapes_like(types[k], shapes[k]) for k in types}
    if isinstance(types, tuple):
        return tuple(_shapes_like(t, s) for t, s in zip(types, shapes))
    return TensorShape(shapes)


def from_generator(generator, output_types, output_shapes, args, output_signature):
    """See :meth:`Dataset.from_generator`."""
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        if output_types is not None:
            raise TypeError("The `output_types` argument can not be used together with the `output_signature` "
                            "argument.")
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument can not be used together with the `output_signature` "
                            "argument.")
        for leaf in _spec.flatten(output_signature):
            if not isinstance(leaf, _spec.TensorSpec):
                raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but "
                                f"found {type(leaf)} which is not.")
        signature = output_signature
    else:
        if output_types is None:
            raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                            "argument or the `output_types` argument.")
        signature = _signature_from(output_types, output_shapes)
    return _GeneratorDataset(generator, tuple(args) if args is not None else (), signature)


class _GeneratorDataset(Dataset):
    _TF_NAME = "_FlatMapDataset"  # TF builds from_generator as a flat_map over one seed element
    def __init__(self, generator, args, signature):
        self._generator = generator
        self._args = args
        super().__init__(signature)

    def _cardinality(self):
        return UNKNOWN

    def _elements(self):
        spec = self.element_spec
        args = tuple(a.numpy() if hasattr(a, "numpy") else a for a in self._args)
        try:
            it = iter(self._generator(*args))
        except Exception as exc:  # noqa: BLE001 - TF reports every error of the user's generator the same way
            raise self._failed(exc) from exc
        while True:
            try:
                value = next(it)
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001
                raise self._failed(exc) from exc
            yield self._convert(value, spec)

    def _failed(self, exc):
        return _op_error(errors.UnknownError, "IteratorGetNext",
                         f"{type(exc).__name__}: {exc}\n\n\n\t [[{{{{node PyFunc}}}}]]", self.element_spec)

    def _convert(self, value, spec):
        if not _spec.same_structure(spec, value) or (isinstance(spec, tuple) and not isinstance(value, tuple)):
            types = _spec.map_structure(lambda s: s.dtype, spec)
            raise self._invalid(f"TypeError: `generator` yielded an element that did not match the expected "
                                f"structure. The expected structure was {types}, but the yielded element was "
                                f"{value}.")
        leaves = _spec.flatten(value) if isinstance(spec, (tuple, dict)) else [value]
        out = []
        for v, s in zip(leaves, _spec.flatten(spec)):
            out.append(self._leaf(v, s))
        return _spec.pack(spec, out)

    def _leaf(self, v, s: _spec.TensorSpec):
        """One yielded value as a tensor of ``s``. TF converts through NumPy (``astype``, wrapping out-of-range
        integers) when the spec's shape is fully defined, and by its tensor conversion otherwise, which refuses
        a float with a fraction for an integer type and any number for a string."""
        dtype: DType = s.dtype
        exact = s.shape.is_fully_defined()
        try:
            arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
        except (TypeError, ValueError):
            arr = None
        is_text = arr is not None and arr.dtype.kind in "SUO"
        if dtype == string:
            if arr is None or not is_text:
                if exact:
                    kind = type(v).__name__
                    raise _op_error(errors.InternalError, "IteratorGetNext",
                                    f"Unsupported object type {kind}\n\t [[{{{{node PyFunc}}}}]]", self.element_spec)
                raise self._mismatch(v, s)
            return convert_to_tensor(arr.astype(object) if arr.dtype.kind == "U" else arr, dtype=string)
        if arr is None or is_text:
            raise self._invalid(f"TypeError: `generator` yielded an element that could not be converted to the "
                                f"expected type. The expected type was {dtype.name}, but the yielded element was "
                                f"{v}.")
        if (not exact and dtype.is_integer and arr.dtype.kind in "fc"
                and not np.all(np.equal(np.mod(arr, 1), 0))):
            raise self._mismatch(v, s)
        with np.errstate(all="ignore"):
            t = convert_to_tensor(arr.astype(dtype.as_numpy_dtype))
        if not s.shape.is_compatible_with(t.shape):
            raise self._invalid(f"TypeError: `generator` yielded an element of shape {t.shape} where an element of "
                                f"shape {s.shape} was expected.")
        return t

    def _mismatch(self, v, s):
        return self._invalid(f"TypeError: `generator` yielded an element that did not match the expected structure. "
                             f"The expected structure was {s!r}, but the yielded element was {v}.")

    def _invalid(self, text):
        return _op_error(errors.InvalidArgumentError, "IteratorGetNext", f"{text}\n\n\n\t [[{{{{node PyFunc}}}}]]",
                         self.element_spec)

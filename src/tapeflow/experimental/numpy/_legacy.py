"""The "legacy" conversion mode: tensor operators promote their operands with NumPy's rules, as TF's do.

``tf.constant(1) + 2.5`` is float64, ``float32 tensor + float64 tensor`` float64, ``int8 + uint8`` int16, and ``@``
is ``tnp.matmul``. Python numbers count as weak values and NumPy scalars as strong ones (NEP 50); lists count by
their elements. TF's functions (``tf.add`` ...) keep their rules. An operand NumPy cannot read a dtype from (a
variable, a weak tensor) fails there, and the other operand's reflected operator gets its chance, as in TF.

The operators here replace the tensor class's own while the mode is on; the default operators pay nothing for them.
"""

from __future__ import annotations

import numbers

import numpy as np

import tapeflow as _tf

from ..._core import dtypes as _d
from ..._core import nest
from ..._core.tensor import Tensor
from ...ops.operators import _reflect
from ._dtypes import numpy_result_type

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor")
COMPARISONS = ("lt", "le", "gt", "ge")


def _operand_type(x):
    if isinstance(x, numbers.Real):
        return x
    if isinstance(x, Tensor):
        return x.dtype.as_numpy_dtype
    if isinstance(x, _d.DType):
        return x.as_numpy_dtype
    if type(x).__name__ == "TensorShape":
        return np.int32
    return x


def promote(*values):
    """The operands as tensors of NumPy's result type (tensors are cast, other values converted)."""
    dtype = numpy_result_type(*[_operand_type(v) for v in nest.flatten(list(values))])
    return [_tf.cast(v, dtype) if isinstance(v, Tensor) else _tf.convert_to_tensor(v, dtype) for v in values]


def _arithmetic(name, original):
    forward = original[f"__{name}__"]

    def promoted(self, other):
        try:
            x, y = promote(self, other)
        except (TypeError, ValueError) as exc:
            return _reflect(name, self, other, exc)
        return forward(x, y)

    def reflected(self, other):
        y, x = promote(self, other)
        return forward(x, y)

    return promoted, reflected


def _matmul():
    from ._products import matmul

    def promoted(self, other):
        try:
            x, y = promote(self, other)
        except (TypeError, ValueError) as exc:
            return _reflect("matmul", self, other, exc)
        return matmul(x, y)

    def reflected(self, other):
        y, x = promote(self, other)
        return matmul(x, y)

    return promoted, reflected


def _comparison(original_fn):
    def compare(self, other):
        x, y = promote(self, other)
        return original_fn(x, y)

    return compare


def _equality(original_fn, none_result):
    def compare(self, other):
        if other is None:
            return none_result
        x, y = promote(self, other)
        return original_fn(x, y)

    return compare


def operators(original):
    """The legacy operators by dunder name, built on ``original`` (the tensor class's own, by name)."""
    table = {}
    for name in ARITHMETIC:
        table[f"__{name}__"], table[f"__r{name}__"] = _arithmetic(name, original)
    table["__matmul__"], table["__rmatmul__"] = _matmul()
    for name in COMPARISONS:
        table[f"__{name}__"] = _comparison(original[f"__{name}__"])
    table["__eq__"] = _equality(original["__eq__"], False)
    table["__ne__"] = _equality(original["__ne__"], True)
    return table

"""Dtypes of ``tf.experimental.numpy``: NumPy's type objects, and the result types its functions compute.

TF's NumPy API decides result dtypes with NumPy's own promotion (``np.result_type``, NEP 50 rules: Python scalars
are weak, NumPy scalars and arrays are not), looking at tensors through their dtypes. Python floats are weak
float64 values unless ``prefer_float32`` is on, when they count as float32 values (and complex numbers as
complex64). In the "safe" and "all" conversion modes the functions that ask for a result type get TF's flexible
table instead (``_flexible.py``); the binary functions keep NumPy's rules in every mode, as TF's do.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._core import dtypes as _tf_dtypes
from ..._core import nest
from ..._core.tensor import Tensor
from ._config import STATE, auto_conversion

# TF's NumPy module exports NumPy's own scalar types, so that ``x.dtype.type is tnp.float32`` reads as in NumPy.
bool_ = np.bool_
complex128 = np.complex128
complex64 = np.complex64
float16 = np.float16
float32 = np.float32
float64 = np.float64
inexact = np.inexact
int_ = np.int_
int16 = np.int16
int32 = np.int32
int64 = np.int64
int8 = np.int8
object_ = np.object_
string_ = np.bytes_
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
uint8 = np.uint8
unicode_ = np.str_
complex_ = np.complex128
float_ = np.float64
iinfo = np.iinfo
issubdtype = np.issubdtype


def default_float_type():
    """The dtype Python floats become: float64 as in NumPy, float32 with ``prefer_float32``."""
    return np.float32 if STATE.prefer_float32 else np.float64


def is_tensor_like(x) -> bool:
    """Tensors, variables, weak tensors and ``IndexedSlices``: what carries a TF dtype."""
    return (isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False) or getattr(x, "_tapeflow_weak", False)
            or getattr(x, "_tapeflow_indexed_slices", False))


def to_numpy_type(dtype):
    """A TF dtype's NumPy type; anything else through ``np.dtype`` (Python types, names, NumPy types)."""
    if isinstance(dtype, _tf_dtypes.DType):
        return dtype.as_numpy_dtype
    return np.dtype(dtype)


def operand_type(x):
    """What NumPy's promotion is given for ``x``: Python and NumPy real numbers as values (weak or not as NumPy
    decides), tensors and TF dtypes as NumPy types, anything else as it is (NumPy arrays: their dtype decides)."""
    if isinstance(x, numbers.Real):
        return x
    if is_tensor_like(x):
        return x.dtype.as_numpy_dtype
    if isinstance(x, _tf_dtypes.DType):
        return x.as_numpy_dtype
    if isinstance(x, (list, tuple)):
        raise ValueError("Cannot find dtype for type inference from argument `x` of a sequence type "
                         f"{type(x)}. For sequences, please call this function on each element individually.")
    return x


def numpy_result_type(*operands):
    """NumPy's result type of ``operands`` (values and types) as a TF dtype, with ``prefer_float32`` applied."""
    if STATE.prefer_float32:
        operands = [np.float32(x) if isinstance(x, float) else np.complex64(x) if isinstance(x, complex) else x
                    for x in operands]
    return _tf_dtypes.as_dtype(np.result_type(*operands))


def result_type(*arrays_and_dtypes):
    """The result dtype of values, tensors and dtypes (``tnp.result_type``), as a TF dtype.

    Nested sequences count by their elements. In the "safe" and "all" modes TF's flexible table decides instead.
    """
    if auto_conversion():
        from ._flexible import result_type as flexible

        return flexible(*arrays_and_dtypes)[0]
    operands = [operand_type(x) for x in nest.flatten(list(arrays_and_dtypes))]
    if not operands:
        operands = [np.asarray([])]  # no operand at all: NumPy's answer for an empty array, float64
    return numpy_result_type(*operands)


def result_type_unary(a, dtype):
    """The dtype an array made from ``a`` gets: ``dtype`` if given, else that of ``a`` (strings stay strings)."""
    if dtype:
        return result_type(dtype)
    if isinstance(a, str):
        return np.str_
    if isinstance(a, bytes):
        return np.bytes_
    return result_type(a)


def result_type_binary(a, b):
    """The result dtype of a binary function's operands: NumPy's rules in every mode (TF's binary functions do
    not consult the flexible table); sequences fall back to :func:`result_type`."""
    try:
        return numpy_result_type(operand_type(a), operand_type(b))
    except ValueError:
        return result_type(a, b)


def promote_types(type1, type2):
    """NumPy's promotion of two types (``tnp.promote_types``): a NumPy dtype."""
    return np.promote_types(to_numpy_type(type1), to_numpy_type(type2))


def finfo(dtype):
    """NumPy's ``finfo`` of a NumPy, Python or TF dtype."""
    return np.finfo(to_numpy_type(dtype))


def is_inexact(dtype) -> bool:
    return np.issubdtype(to_numpy_type(dtype), np.inexact)


def is_integer(dtype) -> bool:
    return np.issubdtype(to_numpy_type(dtype), np.integer)

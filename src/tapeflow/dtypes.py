"""``tf.dtypes``: dtype objects and conversion."""

from ._core.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from ._core.dtypes import bool_ as bool  # noqa: A001 - TF's name
from .ops.array_ops import cast

half, double = float16, float64

__all__ = [
    "DType", "as_dtype", "bfloat16", "bool", "cast", "complex64", "complex128", "double", "float16", "float32",
    "float64", "half", "int8", "int16", "int32", "int64", "resource", "string", "uint8", "uint16", "uint32",
    "uint64", "variant",
]

from ._core.exports import install as _install  # noqa: E402

_install(globals(), "dtypes")

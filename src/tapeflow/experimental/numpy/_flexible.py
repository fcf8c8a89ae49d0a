"""TF's flexible dtype promotion: the table of the "safe" and "all" conversion modes, with weak Python types.

A value is a dtype plus a weakness: Python ``int``, ``float`` and ``complex`` values (and tensors made from them,
``WeakTensor``) are weak int32, float32 and complex128, and give way to a strong operand (weak float + float16 is
float16). Every pair of (dtype, weakness) promotes to one result, which "safe" allows only when it loses nothing;
"all" allows every entry. Pairs missing from the table (strings with numbers) have no promotion at all.
"""

from __future__ import annotations

import numpy as np

from ..._core import dtypes as _d
from ..._core import nest
from ._config import STATE, mode_name

_NAMES = {"b8": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "i8": "int8",
          "i16": "int16", "i32": "int32", "i64": "int64", "bf16": "bfloat16", "f16": "float16", "f32": "float32",
          "f64": "float64", "c64": "complex64", "c128": "complex128"}

# One row per left operand, half of the symmetric table: ``column=result``, ``!`` marking the results that only
# "all" allows. A trailing ``w`` is a weak type.
_HALF = {
    "b8": "b8=b8 u8=u8 u16=u16 u32=u32 u64=u64 i8=i8 i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32 f64=f64 "
          "c64=c64 c128=c128 i32w=i32w i64w=i64w f32w=f32w f64w=f64w c128w=c128w",
    "u8": "u8=u8 u16=u16 u32=u32 u64=u64 i8=i16! i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32 f64=f64 c64=c64 "
          "c128=c128 i32w=u8 i64w=u8 f32w=f64w! f64w=f64w c128w=c128w",
    "u16": "u16=u16 u32=u32 u64=u64 i8=i32! i16=i32! i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32 f64=f64 c64=c64 "
           "c128=c128 i32w=u16 i64w=u16 f32w=f64w! f64w=f64w c128w=c128w",
    "u32": "u32=u32 u64=u64 i8=i64! i16=i64! i32=i64! i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64 c64=c64! "
           "c128=c128 i32w=u32 i64w=u32 f32w=f64w! f64w=f64w c128w=c128w",
    "u64": "u64=u64 i8=f64w! i16=f64w! i32=f64w! i64=f64w! bf16=bf16! f16=f16! f32=f32! f64=f64! c64=c64! "
           "c128=c128! i32w=u64 i64w=u64 f32w=f64w! f64w=f64w! c128w=c128w!",
    "i8": "i8=i8 i16=i16 i32=i32 i64=i64 bf16=bf16 f16=f16 f32=f32 f64=f64 c64=c64 c128=c128 i32w=i8 i64w=i8 "
          "f32w=f64w! f64w=f64w c128w=c128w",
    "i16": "i16=i16 i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32 f64=f64 c64=c64 c128=c128 i32w=i16 i64w=i16 "
           "f32w=f64w! f64w=f64w c128w=c128w",
    "i32": "i32=i32 i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64 c64=c64! c128=c128 i32w=i32 i64w=i32 f32w=f64w! "
           "f64w=f64w c128w=c128w",
    "i64": "i64=i64 bf16=bf16! f16=f16! f32=f32! f64=f64! c64=c64! c128=c128! i32w=i64 i64w=i64 f32w=f64w! "
           "f64w=f64w! c128w=c128w!",
    "bf16": "bf16=bf16 f16=f32! f32=f32 f64=f64 c64=c64 c128=c128 i32w=bf16 i64w=bf16 f32w=bf16 f64w=bf16 "
            "c128w=c64!",
    "f16": "f16=f16 f32=f32 f64=f64 c64=c64 c128=c128 i32w=f16 i64w=f16 f32w=f16 f64w=f16 c128w=c64!",
    "f32": "f32=f32 f64=f64 c64=c64 c128=c128 i32w=f32 i64w=f32 f32w=f32 f64w=f32 c128w=c64!",
    "f64": "f64=f64 c64=c128! c128=c128 i32w=f64 i64w=f64 f32w=f64 f64w=f64 c128w=c128",
    "c64": "c64=c64 c128=c128 i32w=c64 i64w=c64 f32w=c64 f64w=c64 c128w=c64",
    "c128": "c128=c128 i32w=c128 i64w=c128 f32w=c128 f64w=c128 c128w=c128",
    "i32w": "i32w=i32w i64w=i64w f32w=f32w f64w=f64w c128w=c128w",
    "i64w": "i64w=i64w f32w=f32w f64w=f64w c128w=c128w",
    "f32w": "f32w=f32w f64w=f64w c128w=c128w",
    "f64w": "f64w=f64w c128w=c128w",
    "c128w": "c128w=c128w",
}


def _key(short):
    weak = short.endswith("w")
    return (_d.as_dtype(_NAMES[short[:-1] if weak else short]), weak)


def _build():
    table = {}
    for row, text in _HALF.items():
        for item in text.split():
            col, result = item.split("=")
            entry = (_key(result.rstrip("!")), "all" if result.endswith("!") else "safe")
            table[(_key(row), _key(col))] = entry
            table[(_key(col), _key(row))] = entry
    string = (_d.string, False)
    table[(string, string)] = (string, "safe")
    return table


_TABLE = _build()
_LEVEL = {"safe": 2, "all": 3}

_INT32 = np.iinfo(np.int32)


# NumPy's scalar types by TF dtype name: what TF's table of NumPy types finds by a dict lookup (a NumPy dtype
# object is found only when it hashes as its type does; the others fall through to the comparisons below).
_NP_TYPES = {np.float16: "float16", np.float32: "float32", np.float64: "float64", np.int32: "int32",
             np.int64: "int64", np.uint8: "uint8", np.uint16: "uint16", np.uint32: "uint32", np.uint64: "uint64",
             np.int16: "int16", np.int8: "int8", np.complex64: "complex64", np.complex128: "complex128",
             np.object_: "string", np.bytes_: "string", np.str_: "string", np.bool_: "bool", np.longlong: "int64",
             np.ulonglong: "uint64"}
_STRING_DTYPES = (np.dtype("object_"), np.dtype("bytes_"), np.dtype("str_"))


def dtype_and_weakness(x):
    """``(TF dtype, weak)`` of one operand, as TF's flexible promotion sees it.

    The tests run in TF's order, comparisons included: a NumPy dtype object that equals Python's ``int``,
    ``float`` or ``complex`` (int64, float64, complex128) counts as that weak Python type.

    Raises:
        OverflowError: for a Python int outside int32 (TF takes Python ints as weak int32).
        NotImplementedError: for a value the flexible rules do not cover.
    """
    if getattr(x, "_tapeflow_weak", False):
        return (x.dtype, True)
    if isinstance(x, _d.DType):
        return (x, False)
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, _d.DType):
        return (dtype, False)
    if isinstance(x, (np.ndarray, np.generic)) or isinstance(dtype, np.dtype):
        return (_d.as_dtype(dtype), False)
    if isinstance(x, (bytes, str)) or (dtype is not None and dtype in _STRING_DTYPES):
        return (_d.string, False)
    try:
        name = _NP_TYPES.get(x)
    except TypeError:  # unhashable
        name = None
    if name is not None:
        return (_d.as_dtype(name), False)
    # Equality, not identity, as TF tests: NumPy's bool, int64, float64 and complex128 dtypes equal these types.
    if isinstance(x, bool) or x == bool:  # noqa: E721
        return (_d.bool_, False)
    if isinstance(x, int):
        if x < _INT32.min or x > _INT32.max:
            raise OverflowError(f"Python int {x} too large to convert to np.int32")
        return (_d.int32, True)
    if x == int:  # noqa: E721
        return (_d.int32, True)
    if isinstance(x, float) or x == float:  # noqa: E721
        return (_d.float32, True)
    if isinstance(x, complex) or x == complex:  # noqa: E721
        return (_d.complex128, True)
    if type(x).__name__ == "TensorShape":
        return (_d.int32, False)
    if isinstance(x, np.dtype):
        try:
            return (_d.as_dtype(x), False)
        except TypeError as exc:
            raise NotImplementedError(f"Auto dtype conversion semantics does not support {x}. Try using a NumPy "
                                      "built-in dtype objects or cast them explicitly.") from exc
    raise NotImplementedError(f"Auto dtype conversion semantics does not support {type(x)} type.")


def _composite(x):
    return type(x).__name__ in ("SparseTensor", "RaggedTensor")


def result_type(*arrays_and_dtypes):
    """The promoted ``(TF dtype, weak)`` of the operands under the current mode.

    Raises:
        TypeError: when the mode ("safe") does not allow a promotion the operands need.
        NotImplementedError: for operands outside the flexible rules (strings with numbers, sparse tensors).
    """
    kept = []
    for x in arrays_and_dtypes:
        if x is None:
            continue
        if _composite(x):
            raise NotImplementedError(f"Auto dtype conversion semantics does not support {type(x)} type.")
        kept.append(x)
    found = [dtype_and_weakness(x) for x in nest.flatten(kept)] or [(_d.float32, True)]
    result = found[0]
    level = _LEVEL.get(STATE.mode, 3)
    for other in found[1:]:
        entry = _TABLE.get((result, other))
        if entry is None:
            raise NotImplementedError(f"Implicit Conversion between {result[0]} and {other[0]} is not allowed. "
                                      "Please convert the input manually if you need to.")
        if _LEVEL[entry[1]] > level:
            raise TypeError(f"In promotion mode {mode_name()}, implicit dtype promotion between ({result[0]}, "
                            f"weak={result[1]}) and ({other[0]}, weak={other[1]}) is disallowed. You need to "
                            "explicitly specify the dtype in your op, or relax your dtype promotion rules (such as "
                            "from SAFE mode to ALL mode).")
        result = entry[0]
    return result

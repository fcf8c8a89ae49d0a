"""TensorFlow's dtype objects (``tf.float32`` ...) mapped onto NumPy dtypes.

A :class:`DType` is an immutable singleton per type; tensors do not store one, they look theirs up from the
NumPy dtype of their array (``dtype_of``), which keeps tensor creation cheap.
"""

from __future__ import annotations

import builtins

import numpy as np

__all__ = ["DType", "as_dtype", "dtype_of"]


class DType:
    """The type of the elements of a tensor, as in ``tf.dtypes.DType``."""

    __slots__ = ("_name", "_np", "_enum")

    def __init__(self, name, np_type, enum):
        self._name = name
        self._np = np_type
        self._enum = enum

    # --- identity -------------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``np.float32`` ...); ``object`` for strings.

        Raises:
            TypeError: for ``bfloat16`` (and ``resource``/``variant``), which NumPy has no type for. Every path that
                makes an array of a requested dtype comes through here, so none can fall back to NumPy's default
                (``np.dtype(None)`` is float64) and hand out a float64 tensor in place of a bfloat16 one.
        """
        np_type = self._np
        if np_type is None:
            raise not_computable(self)
        return np_type

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    # --- predicates -----------------------------------------------------------------------------------------
    @property
    def is_floating(self) -> bool:
        return self._name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_complex(self) -> bool:
        return self._name in ("complex64", "complex128")

    @property
    def is_integer(self) -> bool:
        return self._name.startswith(("int", "uint"))

    @property
    def is_unsigned(self) -> bool:
        return self._name.startswith("uint")

    @property
    def is_bool(self) -> bool:
        return self._name == "bool"

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_numpy_compatible(self) -> bool:
        return self._np is not None

    # --- limits ---------------------------------------------------------------------------------------------
    @property
    def min(self):
        if self.is_bool or self.is_complex or self._name == "string":
            raise TypeError(f"Cannot find minimum value of {self} with type {self}.")
        info = np.finfo(self.as_numpy_dtype) if self.is_floating else np.iinfo(self.as_numpy_dtype)
        return info.min

    @property
    def max(self):
        if self.is_bool or self.is_complex or self._name == "string":
            raise TypeError(f"Cannot find maximum value of {self} with type {self}.")
        info = np.finfo(self.as_numpy_dtype) if self.is_floating else np.iinfo(self.as_numpy_dtype)
        return info.max

    @property
    def limits(self):
        return (self.min, self.max)

    @property
    def size(self) -> int:
        if self._name == "bfloat16":
            return 2
        if self._np is None or self._np is object:
            return 0
        return np.dtype(self._np).itemsize

    def is_compatible_with(self, other) -> bool:
        return self == as_dtype(other)

    # --- protocol -------------------------------------------------------------------------------------------
    def __eq__(self, other):
        if other is None:
            return False
        if type(other) is not DType:
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._enum == other._enum

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: {self._name!r}>"

    def __reduce__(self):
        return as_dtype, (self._name,)


float16 = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
bfloat16 = DType("bfloat16", None, 14)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool_ = DType("bool", np.bool_, 10)
string = DType("string", object, 7)
resource = DType("resource", None, 20)
variant = DType("variant", None, 21)

_ALL = [float16, float32, float64, bfloat16, complex64, complex128, int8, int16, int32, int64, uint8, uint16,
        uint32, uint64, bool_, string, resource, variant]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, float=float32, double=float64, bool=bool_, cfloat=complex64, cdouble=complex128)
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}

# Keyed by ``np.dtype.num`` (an int): far cheaper to hash than the dtype object on the per-op path.
_BY_NUM = {np.dtype(d._np).num: d for d in _ALL if d._np not in (None, object)}
_BY_NUM[np.dtype(object).num] = string
_BY_NUM[np.dtype("S").num] = string
_BY_NUM[np.dtype("U").num] = string
# ``np.intc``/``np.int_``/``np.longlong`` alias the fixed-width types but can carry their own numbers.
for _t in (np.intc, np.uintc, np.int_, np.uint, np.longlong, np.ulonglong):
    _BY_NUM.setdefault(np.dtype(_t).num, _BY_NAME[np.dtype(_t).name])

_PYTHON_TYPES = {builtins.float: float32, builtins.bool: bool_, builtins.object: string}

# The dtypes gradients flow through (TF's ``IsTrainable``): integers, bools and strings stop them.
TRAINABLE = frozenset(n for n in (16, 1, 2, 14, 8, 18, 19))
TRAINABLE_NUMS = frozenset(np.dtype(t).num for t in (np.float16, np.float32, np.float64, np.complex64,
                                                   np.complex128))


def not_computable(dtype) -> TypeError:
    """The one error for a dtype tapeflow cannot hold values of (``bfloat16``: NumPy has no such type)."""
    hint = "; use float16 or float32" if dtype.name == "bfloat16" else ""
    return TypeError(f"tapeflow cannot compute with {dtype!r} values (NumPy has no {dtype.name} type){hint}")


def dtype_of(np_dtype) -> DType:
    """The :class:`DType` of a NumPy dtype (``arr.dtype``)."""
    return _BY_NUM[np_dtype.num]


def as_dtype(type_value) -> DType:
    """Convert ``type_value`` (a DType, name, NumPy dtype or type, or Python type) to a :class:`DType`.

    Raises:
        TypeError: if ``type_value`` names no TensorFlow dtype.
    """
    if type(type_value) is DType:
        return type_value
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value)
        if found is not None:
            return found
        if type_value.endswith("_ref") and type_value[:-4] in _BY_NAME:
            return _ref_dtype(_BY_NAME[type_value[:-4]])
    elif isinstance(type_value, int) and not isinstance(type_value, bool) and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    elif isinstance(type_value, type) and type_value in _PYTHON_TYPES:
        return _PYTHON_TYPES[type_value]
    elif isinstance(type_value, np.dtype) or (isinstance(type_value, type) and issubclass(type_value, np.generic)):
        found = _BY_NUM.get(np.dtype(type_value).num)
        if found is not None:
            return found
    elif hasattr(type_value, "dtype") and isinstance(type_value.dtype, DType):
        return type_value.dtype
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")


_REFS = {}


def _ref_dtype(base):
    """TF1's reference dtypes (``float32_ref``): still nameable through ``as_dtype``."""
    ref = _REFS.get(base.name)
    if ref is None:
        ref = _REFS[base.name] = DType(base.name + "_ref", base._np, base.as_datatype_enum + 100)
    return ref


def is_trainable(dtype: DType) -> bool:
    """Whether gradients flow through values of ``dtype`` (floating and complex types)."""
    return dtype.as_datatype_enum in TRAINABLE

"""``tf.Tensor``: an immutable NumPy value with a dtype and a shape, plus conversion of Python values.

The class holds no gradient logic and no operators: ``tapeflow/ops/operators.py`` attaches ``+``, ``*``,
indexing and friends once the ops exist. A tensor's ``_value`` is a NumPy array, or a NumPy scalar for rank 0
(NumPy returns scalars from ops on 0-d arrays, and they are faster to compute with).

Values leaving for NumPy or Python and constants made from Python or NumPy values are reported through the hook
(``observers.py``). This module sits below it (the equation type it imports is built on tensors), so each site
inlines its report: ``STATE.tapes.hear.value_left`` (``observers.report_leave``) or ``STATE.tapes.hear.constant_made``
(``observers.report_constant``), called when a listener takes it.
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes, nest
from . import sizes as _sizes
from .convert import infer, to_dtype
from .shape import TensorShape
from .state import STATE, next_id

__all__ = ["Tensor", "EagerTensor", "wrap", "constant_of", "constant", "convert_to_tensor", "is_tensor", "Reference"]

_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class Tensor:
    """A multi-dimensional array of elements of one dtype, as ``tf.Tensor`` in eager mode.

    Create tensors with :func:`tapeflow.constant` or :func:`tapeflow.convert_to_tensor`, or as op results.
    """

    __slots__ = ("_value", "_id", "__weakref__")
    _tapeflow_variable = False  # the marker variables set to True (checked without importing them)
    # NumPy defers to our reflected operators (``np.float64(1.) + t`` gives a tensor of ``t``'s dtype).
    __array_priority__ = 100

    # --- basic properties ----------------------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.dtype_of(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        tracer = STATE.tracer
        if tracer is not None:  # an input of a function being traced: the shape its signature gives it
            return tracer.static_shape(self)
        return TensorShape(self._value.shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape):
        """Check that ``shape`` fits; inside a traced function, also fix the sizes it gives that the trace left
        unknown (``None``), as TF's graph tensors do."""
        current = self.shape
        if not current.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {current} is not compatible with supplied shape {TensorShape(shape)}.")
        tracer = STATE.tracer
        if tracer is not None:
            merged = current.merge_with(shape)
            if merged.rank is not None and merged != current:
                tracer.static_shapes[self._id] = tuple(merged.as_list())

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def device(self) -> str:
        return _DEVICE

    @property
    def backing_device(self) -> str:
        return _DEVICE

    def numpy(self):
        """The value as NumPy: a copy for arrays, a NumPy scalar for rank 0 (changing it never changes the tensor)."""
        if (note := STATE.tapes.hear.value_left) is not None:  # the value leaves the tape here (``report_leave``)
            note(self, ".numpy()")
        v = self._value
        if type(v) is np.ndarray:
            return v.copy() if v.ndim else v[()]  # rank 0: a NumPy scalar (or bytes for strings)
        return v

    def _numpy(self):
        return self._value

    def cpu(self):
        return self

    def ref(self):
        """A hashable reference to this tensor (tensors themselves are unhashable)."""
        return Reference(self)

    experimental_ref = ref

    # --- Python protocols ----------------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        # Leaves the tape, as in TensorFlow. Like TF, NumPy gets a read-only view: tensors are immutable, and
        # writing through np.asarray(t) must not change t or what a tape saved.
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "a NumPy conversion (np.asarray, np.array...)")
        v = np.asarray(self._value)
        if dtype is not None and v.dtype != dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        view = v.view()
        view.flags.writeable = False
        return view

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __bool__(self):
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "bool()")
        v = self._value
        return False if v.size == 0 else bool(v)

    def __float__(self):
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "float()")
        return float(self._value)

    def __int__(self):
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "int()")
        return int(self._value)

    def __complex__(self):
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "complex()")
        return complex(self._value)

    def __index__(self):
        if (note := STATE.tapes.hear.value_left) is not None:
            note(self, "int()")
        return self._value.__index__()

    def __format__(self, format_spec):
        return self._value.__format__(format_spec)

    def __len__(self):
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        shape = self._value.shape
        if not shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        tracer = STATE.tracer
        if tracer is not None and self._id >= tracer.start_id:
            tracer.iterating(self)  # a tensor of a function being traced (``tf.function``)
        return (self[i] for i in range(shape[0]))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return constant, (self.numpy(),)

    def __repr__(self):
        tracer = STATE.tracer
        if tracer is not None and self._id >= tracer.start_id:
            return tracer.describe(self)  # a symbolic tensor of the trace in progress
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={numpy_text(self._value, True)}>"

    def __str__(self):
        tracer = STATE.tracer
        if tracer is not None and self._id >= tracer.start_id:
            return tracer.describe(self)
        return f"tf.Tensor({numpy_text(self._value, False)}, shape={self.shape}, dtype={self.dtype.name})"


def numpy_text(value, is_repr):
    """How TF prints a tensor's value: ``repr``/``str`` of the NumPy value; rank-0 reprs use ``.item()``."""
    if is_repr:
        text = repr(value.item()) if value.ndim == 0 else repr(value)
    else:
        text = str(value)
    if "\n" in text:
        text = "\n" + text
    return text


class Reference:
    """A hashable wrapper around a tensor or variable, compared by identity (``t.ref()``)."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


class EagerTensor(Tensor):
    """The concrete class of every tensor tapeflow creates (``type(t).__name__`` is TF's ``EagerTensor``)."""

    __slots__ = ()

    def __setitem__(self, key, value):
        raise TypeError(f"'{_TF_NAME}' object does not support item assignment")

    # No ``__getattr__`` here: defining one would stop CPython from specialising every ``t._value`` read.
    # Attributes TF users reach for on tensors get TF's wording through properties that raise instead.
    name = property(lambda self: _undefined("name"))
    op = property(lambda self: _undefined("op"))
    graph = property(lambda self: _undefined("graph"))
    assign = property(lambda self: _missing("assign"))
    assign_add = property(lambda self: _missing("assign_add"))
    assign_sub = property(lambda self: _missing("assign_sub"))
    _unique_id = property(lambda self: _missing("_unique_id"))
    # NumPy's methods arrive with ``tf.experimental.numpy.experimental_enable_numpy_behavior()``, which puts them
    # here in place of these; until then the names TF knows point to it, the others fail as plain missing names.
    T = property(lambda self: _numpy_method(self, "T"))
    astype = property(lambda self: _numpy_method(self, "astype"))
    ravel = property(lambda self: _numpy_method(self, "ravel"))
    transpose = property(lambda self: _numpy_method(self, "transpose"))
    reshape = property(lambda self: _numpy_method(self, "reshape"))
    clip = property(lambda self: _numpy_method(self, "clip"))
    size = property(lambda self: _numpy_method(self, "size"))
    tolist = property(lambda self: _numpy_method(self, "tolist"))
    data = property(lambda self: _numpy_method(self, "data"))
    flatten = property(lambda self: _missing("flatten"))
    max = property(lambda self: _missing("max"))
    min = property(lambda self: _missing("min"))
    mean = property(lambda self: _missing("mean"))


def _undefined(name):
    raise AttributeError(f"Tensor.{name} is undefined when eager execution is enabled.")


def _numpy_method(tensor, name):
    raise AttributeError(f"{type(tensor).__name__} object has no attribute '{name}'. \n        If you are looking "
                         "for numpy-related methods, please run the following:\n        "
                         "tf.experimental.numpy.experimental_enable_numpy_behavior()\n      ")


def _missing(name):
    raise AttributeError(f"'{_TF_NAME}' object has no attribute '{name}'")


_TF_NAME = "tensorflow.python.framework.ops.EagerTensor"


_new = object.__new__


def wrap(value) -> Tensor:
    """A new tensor around a NumPy value that nothing else will mutate (the fast constructor)."""
    t = _new(EagerTensor)
    t._value = value
    t._id = next_id()
    return t


def constant_of(value) -> Tensor:
    """A new constant tensor around a NumPy value that library code made: a rule's or an op's constant (``tf.zeros``,
    a Python operand, the ones a gradient starts from). ``wrap`` plus the constant report, so the hook's listeners
    (the coming tracer) see every constant, also those made inside gradient rules."""
    return _made(wrap(value))


def zeros_like_value(source):
    """Zeros of a tensor's or variable's shape and dtype, not recorded (``unconnected_gradients="zero"``, the unused
    outputs of a custom gradient, forward mode's unconnected tangents)."""
    v = source._value
    arr = np.zeros(np.shape(v), v.dtype)
    return constant_of(arr[()] if arr.ndim == 0 else arr)


def is_tensor(x) -> bool:
    """Whether ``x`` is a tensor, variable, ``IndexedSlices``, other composite tensor (a ``SparseTensor``, a
    ``RaggedTensor``) or weak tensor (``tf.is_tensor``)."""
    return isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False) or getattr(
        x, "_tapeflow_composite", False) or getattr(x, "_tapeflow_weak", False)


# --------------------------------------------------------------------------------------------- conversion


def to_numpy_value(value, dtype=None):
    """``value`` (no tensors) as a NumPy array or scalar, with TF's inference, or converted to ``dtype``."""
    if dtype is None:
        return infer(value)
    return to_dtype(value, dtype)


def pack_nested(values, dtype=None):
    """A nested list that holds tensors as one tensor: TF's auto-packing, a ``Pack`` op with TF's conversion rules.

    The op set installs it (``ops/array_ops.py`` replaces this function); without the op set there is nothing to
    pack with.
    """
    raise ImportError("packing a list of tensors needs the op set: import tapeflow")


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Convert a tensor, variable, NumPy value or Python value to a tensor (``tf.convert_to_tensor``).

    Args:
        value: the value to convert.
        dtype: the required dtype; tensors of another dtype are refused with a ``ValueError``.
        dtype_hint: a preferred dtype for Python values, ignored when it does not fit.
        name: ignored (eager tensors have no names).

    Raises:
        ValueError: for unsupported values or a tensor of the wrong dtype.
        TypeError: when a Python value cannot be represented in ``dtype``.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value._value.dtype.num != np.dtype(dtype.as_numpy_dtype).num:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    conv = getattr(value, "_tapeflow_to_tensor", None)
    if conv is not None:
        return conv(dtype)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return convert_to_tensor(pack_nested(value, dtype), dtype)
    if dtype is None and dtype_hint is not None:
        hint = dtypes.as_dtype(dtype_hint)
        hint.as_numpy_dtype  # noqa: B018 - a bfloat16 hint raises here rather than falling back to inference
        try:
            return _made(wrap(to_dtype(value, hint)))
        except (TypeError, ValueError):
            pass
    return _made(wrap(to_numpy_value(value, dtype)))


def _filled(shape, arr):
    """A one-element ``arr`` repeated to ``shape`` as TF's ``constant`` does it: a Fill whose dimensions are taken
    as int32 (so ``[2**32 + 2]`` is ``[2]``), refused and allocated as the Fill op's are."""
    dims = [_sizes.wrap_int(d, 32) for d in shape]
    _sizes.check_dims("Fill", dims, None)
    out = _sizes.allocating("Fill", None, _sizes.empty, dims, arr.dtype)
    out[...] = arr.reshape(())
    return out


def _made(t):
    """``t`` was made from a Python or NumPy value: the constant report (``observers.report_constant``, inlined)."""
    note = STATE.tapes.hear.constant_made
    if note is not None:
        note(t)
    return t


def _contains_tensor(value, depth=1):
    if depth > 64:  # deep, or a list that contains itself: bounded as TF's flatten bounds it
        nest._depth_bound(depth, 64, "flatten")
    for v in value:
        if isinstance(v, Tensor) or getattr(v, "_tapeflow_variable", False):
            return True
        if isinstance(v, (list, tuple)) and _contains_tensor(v, depth + 1):
            return True
    return False


def constant(value, dtype=None, shape=None, name="Const") -> Tensor:
    """Create a constant tensor from a Python or NumPy value (``tf.constant``).

    Args:
        value: a scalar, nested list or NumPy array (or a tensor).
        dtype: the element type; Python and NumPy values are converted to it.
        shape: optional shape; a scalar value is broadcast to it, other values are reshaped.
        name: ignored in eager mode.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) or getattr(value, "_tapeflow_variable", False):
        if (note := STATE.tapes.hear.value_left) is not None:  # a new constant: the value leaves any tape here
            note(value, "tf.constant()")
        t = value if isinstance(value, Tensor) else value.read_value()
        if dtype is not None and t.dtype != dtype:
            shown = t._value.item() if t._value.ndim == 0 else t._value
            raise TypeError(f"Expected tensor {shown!r} with dtype {dtype!r}, but got dtype {t.dtype!r}.")
        arr = t._value
    else:
        if isinstance(value, TensorShape) and value.rank is not None:
            # tf.constant reads a shape as its list of sizes (an empty one is float32, an unknown size None),
            # where tf.convert_to_tensor uses the shape's own conversion (int32, refusing unknown sizes)
            value = value.as_list()
        arr = convert_to_tensor(value, dtype)._value
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        for d in shape:
            if d is not None and d < 0:
                raise ValueError(f"Dimension {d} must be >= 0")  # TF's TensorShape refuses it
        size = math.prod(shape)
        if arr.size == 1 and size != 1:
            arr = _filled(shape, arr)
        elif arr.size == size:
            arr = np.reshape(arr, shape)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {arr!s} (converted "
                            f"from {value!r}) has {arr.size} elements, but got `shape` {tuple(shape)} with "
                            f"{size} elements).")
        if arr.ndim == 0:
            arr = arr[()]
    return _made(wrap(arr))

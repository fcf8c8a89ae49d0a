"""Keras 3 variables (``tf.keras.Variable``): where optimizers keep ``iterations``, the learning rate and slots.

As on TF's Keras backend, a Keras variable is not a ``tf.Variable`` but holds one (``.value``). It differs from
one where Keras does: ``dtype`` is a string (``"float32"``), ``path`` records the Keras name scopes it was made
in (``"sgd/iteration"``), ``assign`` casts what it is given and returns the assigned tensor, it cannot be used as
a boolean or hashed, and its ``repr`` is ``<Variable path=..., shape=..., dtype=..., value=...>``.

tapeflow's ops, tapes and ``convert_to_tensor`` take it wherever they take a ``tf.Variable``: it answers the
core's variable hooks (``_read``, ``_id``, ...) with those of the variable it holds, so reading it is recorded by
tapes and gradients with respect to it are those of that variable. Operators (``v * 2``) follow TensorFlow's
dtype rules, not Keras's promotion (``keras.ops``), which tapeflow does not implement.

Autocasting (mixed precision): while a layer whose compute dtype differs from its variable dtype runs ``call``, an
:class:`AutocastScope` is open, and a floating variable made with ``autocast=True`` is read in the scope's dtype:
ops, operators, ``value``, ``numpy()`` and ``dtype`` all see a float16 variable under ``"mixed_float16"``. The read
is a ``Cast`` of the variable's read, so gradients reach the float32 variable as float32.
"""

from __future__ import annotations

import threading

import numpy as np

from .._core.tensor import convert_to_tensor, is_tensor
from .._core.variable import Variable as _TFVariable
from .._core.variable import VariableAggregation, VariableSynchronization
from ..ops.array_ops import cast, ones, zeros
from ._state import auto_name, check_name, current_path

__all__ = ["Variable", "standardize_dtype", "standardize_shape", "AutocastScope", "autocast_dtype"]

_ALLOWED_DTYPES = frozenset({
    "float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "bool", "string", "float8_e4m3fn", "float8_e5m2", "complex64", "complex128",
})
_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float32", str: "string", "int": "int64", complex: "complex128"}
_AGGREGATIONS = {"none": VariableAggregation.NONE, "mean": VariableAggregation.MEAN,
                 "sum": VariableAggregation.SUM, "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}
_SYNCHRONIZATIONS = {"none": VariableSynchronization.NONE, "on_read": VariableSynchronization.ON_READ,
                     "on_write": VariableSynchronization.ON_WRITE, "auto": VariableSynchronization.AUTO}
_INITIALIZERS = {"zeros": zeros, "ones": ones}


def standardize_dtype(dtype):
    """A dtype (``DType``, NumPy type, Python type or name) as Keras's dtype name; ``None`` is ``"float32"``.

    Raises:
        ValueError: ``Invalid dtype: ...`` for names Keras does not know.
    """
    if dtype is None:
        return "float32"
    dtype = _PYTHON_DTYPES.get(dtype, dtype)
    if hasattr(dtype, "name"):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if dtype not in _ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


def standardize_shape(shape):
    """A shape (tuple, list, ``TensorShape``) as Keras's tuple of non-negative ints and ``None`` s.

    Raises:
        ValueError: for ``None``, a non-iterable, a dimension that is a string or float or not an integer, or a
            negative dimension (Keras's "Cannot convert ... to a shape" messages).
    """
    if not isinstance(shape, tuple):
        if shape is None:
            raise ValueError("Undefined shapes are not supported.")
        if not hasattr(shape, "__iter__"):
            raise ValueError(f"Cannot convert '{shape}' to a shape.")
        if hasattr(shape, "as_list"):
            shape = shape.as_list()
    dims = []
    for d in shape:
        if d is None:
            dims.append(d)
            continue
        if isinstance(d, (str, float)):  # refused even where int() would take them
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension '{d}' of type "
                             f"'{type(d)}'. ")
        try:
            d = int(d)
        except Exception as exc:  # noqa: BLE001 - any failure to make an int is this error
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid dimension '{d}' of type "
                             f"'{type(d)}'. ") from exc
        if d < 0:
            raise ValueError(f"Cannot convert '{shape}' to a shape. Negative dimensions are not allowed.")
        dims.append(d)
    return tuple(dims)


class _Autocast(threading.local):
    """The open autocast scope of this thread (Keras keeps it per thread too)."""

    active = False  # whether a scope is open (one may be open with dtype None: autocasting switched off)
    dtype = None  # the dtype floating variables are read in, or None: as they are


_AUTOCAST = _Autocast()


def autocast_dtype():
    """The dtype floating variables are read in here (inside a mixed-precision layer's ``call``), or ``None``."""
    return _AUTOCAST.dtype


class AutocastScope:
    """Read floating variables (made with ``autocast=True``) in ``dtype`` while open; ``None`` switches
    autocasting off inside an enclosing scope. Layers open one around ``call`` (``Layer.__call__``).

    Raises:
        ValueError: for a ``dtype`` that is not floating (Keras's message).
    """

    def __init__(self, dtype):
        if dtype is not None:
            dtype = standardize_dtype(dtype)
            if "float" not in dtype:
                raise ValueError("`AutocastScope` can only be used with a floating-point target dtype, such as "
                                 f"'float16'. Received: dtype={dtype}")
        self.dtype = dtype
        self._saved = None

    def __enter__(self):
        state = _AUTOCAST
        self._saved = (state.active, state.dtype)
        state.active, state.dtype = True, self.dtype
        return self

    def __exit__(self, *exc):
        _AUTOCAST.active, _AUTOCAST.dtype = self._saved


def _to_tensor(value, dtype=None):
    """Keras's ``convert_to_tensor`` on TF: tensors of another dtype are cast, Python values converted.

    Integer and bool targets convert first and cast after, since TF refuses ``1.5`` as an int32 while Keras
    truncates it.
    """
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if getattr(value, "_tapeflow_ragged", False) or getattr(value, "_tapeflow_sparse", False):
        # ragged and sparse tensors stay what they are (TF's Keras takes them), cast where the dtype differs
        return value if dtype is None or value.dtype.name == dtype else cast(value, dtype)
    if not is_tensor(value):
        if dtype is not None and (dtype == "bool" or dtype.startswith(("int", "uint"))):
            return cast(convert_to_tensor(value), dtype)
        return convert_to_tensor(value, dtype)
    value = convert_to_tensor(value)
    if dtype is not None and value.dtype.name != dtype:
        return cast(value, dtype)
    return value


class Variable:
    """A Keras variable (``tf.keras.Variable``): a ``tf.Variable`` with a path, a string dtype and Keras's rules.

    Args:
        initializer: the initial value (anything ``convert_to_tensor`` takes), a callable ``(shape, dtype)``
            returning it, or the name ``"zeros"`` or ``"ones"``.
        shape: required with a callable or named initializer; fully defined.
        dtype: the dtype; by default the initial value's, or ``"float32"`` for initializer callables.
        trainable: whether tapes watch it automatically.
        autocast: whether a floating variable is read in the compute dtype inside a mixed-precision layer's
            ``call`` (see :class:`AutocastScope`).
        aggregation: ``"none"``, ``"mean"``, ``"sum"`` or ``"only_first_replica"`` (an annotation here).
        synchronization: ``"none"``, ``"on_read"``, ``"on_write"`` or ``"auto"`` (an annotation here).
        name: the name, ``"variable"``, ``"variable_1"``, ... by default; no ``/``.
        layout: accepted for compatibility (tapeflow does not shard).
        **kwargs: backend-specific keywords, which Keras accepts and ignores.

    Raises:
        ValueError: for a name with ``/``, an unknown aggregation, synchronization, dtype or initializer name,
            or a callable initializer without a fully defined shape.
    """

    # Core ops treat objects with this marker as variables and use the hooks below (``_read``, ``_id``, ...).
    _tapeflow_variable = True

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
                 synchronization="auto", name=None, layout=None, **kwargs):
        name = name or auto_name(type(self).__name__)
        check_name(name)
        if aggregation not in (None, *_AGGREGATIONS):
            raise ValueError("Invalid value for argument `aggregation`. Expected one of `None`, `'none'`, "
                             f"`'mean'`, `'sum'`, `'only_first_replica'`. Received: aggregation={aggregation}")
        if synchronization not in (None, *_SYNCHRONIZATIONS):
            raise ValueError("Invalid value for argument `synchronization`. Expected one of `None`, `'none'`, "
                             f"`'on_read'`, `'on_write'`, `'auto'`. Received: synchronization={synchronization}")
        self._name = name
        parent = current_path()
        self._path = f"{parent}/{name}" if parent else name
        self._keras_trainable = bool(trainable)
        self._autocast = bool(autocast)
        self._aggregation = aggregation or "none"
        self._synchronization = synchronization or "none"
        self._constraint = None
        self._regularizer = None
        self._overwrite_with_gradient = False
        if isinstance(initializer, str):
            if initializer not in _INITIALIZERS:
                raise ValueError(f"Could not interpret initializer identifier: {initializer}")
            fill = _INITIALIZERS[initializer]
            initializer = lambda shape, dtype: fill(shape, dtype)  # noqa: E731
        if callable(initializer):
            if shape is None:
                raise ValueError("When creating a Variable from an initializer, the `shape` argument should be "
                                 f"specified. Received: initializer={initializer} and shape={shape}")
            dtype = standardize_dtype(dtype)
            value = initializer(self._check_shape(shape), dtype=dtype)
        else:
            value = _to_tensor(initializer, dtype)
            dtype = standardize_dtype(value.dtype if dtype is None else dtype)
        self._dtype = dtype
        self._floating = "float" in dtype
        self._var = _TFVariable(value, dtype=dtype, trainable=self._keras_trainable, name=name,
                                aggregation=_AGGREGATIONS[self._aggregation],
                                synchronization=_SYNCHRONIZATIONS[self._synchronization])

    def _check_shape(self, shape):
        dims = standardize_shape(shape)
        if None in dims:
            raise ValueError("Shapes used to initialize variables must be fully-defined (no `None` dimensions). "
                             f"Received: shape={dims} for variable path='{self.path}'")
        return dims

    # --- what Keras shows ----------------------------------------------------------------------------------
    @property
    def name(self):
        """The name given at creation (no scope, no ``:0``)."""
        return self._name

    @property
    def path(self):
        """The Keras name scopes open at creation and the name, ``/``-joined (``"sgd/iteration"``)."""
        return self._path

    @property
    def dtype(self):
        """The dtype's name, a string (``"int64"``); inside an autocast scope, a floating variable's is the
        scope's."""
        if _AUTOCAST.active and self._autocast and self._floating:
            # Keras answers the scope's dtype even when the scope switches autocasting off (dtype None): then it
            # names its default float type, float32, whatever the variable holds.
            return _AUTOCAST.dtype or "float32"
        return self._dtype

    @property
    def shape(self):
        """The shape, a ``TensorShape``."""
        return self._var.shape

    @property
    def ndim(self):
        """The rank."""
        return self._var.shape.rank

    @property
    def trainable(self):
        """Keras's trainable flag; changing it does not change whether tapes watch the variable, as on TF."""
        return self._keras_trainable

    @trainable.setter
    def trainable(self, value):
        self._keras_trainable = bool(value)

    @property
    def value(self):
        """The ``tf.Variable`` that holds the value; inside an autocast scope, a floating variable's value read in
        the scope's dtype (a tensor)."""
        if _AUTOCAST.dtype is not None and self._autocast and self._floating:
            return self._autocast_read()
        return self._var

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def constraint(self):
        """A callable that optimizers apply to the variable after each update (or ``None``)."""
        return self._constraint

    @constraint.setter
    def constraint(self, value):
        if value is not None and not callable(value):
            raise ValueError("Invalid value for attribute `constraint`. Expected a callable (such as a "
                             f"`keras.constraints.Constraint` instance) or `None`. Received: constraint={value}")
        self._constraint = value

    @property
    def regularizer(self):
        return self._regularizer

    @regularizer.setter
    def regularizer(self, value):
        if value is not None and not callable(value):
            raise ValueError("Invalid value for attribute `regularizer`. Expected a callable (such as a "
                             f"`keras.regularizers.Regularizer` instance) or `None`. Received: regularizer={value}")
        self._regularizer = value

    @property
    def overwrite_with_gradient(self):
        """Whether optimizers replace the value with the gradient instead of taking a step."""
        return self._overwrite_with_gradient

    @overwrite_with_gradient.setter
    def overwrite_with_gradient(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"`overwrite_with_gradient` must be a boolean. Received: {value}")
        self._overwrite_with_gradient = value

    def numpy(self):
        """The value as NumPy (a NumPy scalar for rank 0), in the autocast dtype inside an autocast scope."""
        if _AUTOCAST.dtype is not None:
            return self._autocast_read().numpy()
        return self._var.numpy()

    # --- updates -------------------------------------------------------------------------------------------
    def assign(self, value):
        """Set the value, cast to this variable's dtype; returns the assigned tensor.

        Raises:
            ValueError: when the value's shape is not the variable's.
        """
        value = _to_tensor(value, self._dtype)
        if value.shape.as_list() != self.shape.as_list():
            raise ValueError("The shape of the target variable and the shape of the target value in "
                             f"`variable.assign(value)` must match. variable.shape={self.shape}, Received: "
                             f"value.shape={value.shape}. Target variable: {self}")
        self._var.assign(value)
        return value

    def assign_add(self, value):
        """Add ``value`` (cast to this dtype); returns the new value as a tensor."""
        return self.assign(self._var + _to_tensor(value, self._dtype))

    def assign_sub(self, value):
        """Subtract ``value`` (cast to this dtype); returns the new value as a tensor."""
        return self.assign(self._var - _to_tensor(value, self._dtype))

    # --- the core's variable hooks: reads, conversion and tape identity are those of the held variable -------
    @property
    def _id(self):
        return self._var._id

    @property
    def _value(self):
        return self._var._value

    @property
    def _trainable(self):
        return self._var._trainable

    def _read(self):
        if _AUTOCAST.dtype is None:  # one test on the common path (no mixed-precision layer is running)
            return self._var._read()
        return self._autocast_read()

    def _autocast_read(self):
        """The read, cast to the open autocast scope's dtype when this variable takes part in autocasting."""
        value = self._var._read()
        dtype = _AUTOCAST.dtype
        if dtype is None or not self._autocast or not self._floating or dtype == self._dtype:
            return value
        return cast(value, dtype)

    def read_value(self):
        """The value as a tensor (the hook tapeflow's ``constant`` and ``assign`` use to read variables)."""
        return self._read()

    def _tapeflow_to_tensor(self, dtype=None):
        if _AUTOCAST.dtype is None:
            return self._var._tapeflow_to_tensor(dtype)
        value = self._autocast_read()
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value

    # --- Python protocols ----------------------------------------------------------------------------------
    def __repr__(self):
        return (f"<Variable path={self.path}, shape={self.shape}, dtype={self.dtype}, "
                f"value={np.asarray(self.numpy())}>")

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.numpy(), dtype=dtype)

    def __bool__(self):
        raise TypeError("A Keras Variable cannot be used as a boolean.")

    def __float__(self):
        self._check_scalar()
        return float(self.numpy())

    def __int__(self):
        self._check_scalar()
        return int(self.numpy())

    def _check_scalar(self):
        if self.ndim > 0:
            raise TypeError(f"Only scalar arrays can be converted to Python scalars. Got: shape={self.shape}")

    def __pos__(self):
        return self._var if _AUTOCAST.dtype is None else self._autocast_read()

    def __getitem__(self, idx):
        return (self._var if _AUTOCAST.dtype is None else self._autocast_read())[idx]

    # ``==`` is elementwise (a tensor), so, as on Keras, the variable is unhashable.
    __hash__ = None


def _install_operators():
    """Arithmetic, comparisons and logic on a Keras variable are those ops on the ``tf.Variable`` it holds (on its
    read in the autocast dtype inside an autocast scope)."""

    def delegate(name):
        def op(self, *args):
            return getattr(self._var if _AUTOCAST.dtype is None else self._autocast_read(), name)(*args)

        op.__name__ = op.__qualname__ = name
        return op

    for name in ("__neg__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                 "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                 "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
                 "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__"):
        setattr(Variable, name, delegate(name))


_install_operators()

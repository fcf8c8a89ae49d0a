"""``tf.Variable``: mutable state that tapes watch automatically when it is read.

A variable holds a NumPy value that assignments replace, so every tensor read from it stays a snapshot; only an
array that nothing but the variable holds (no tensor, view or buffer of it) is updated in place, as a training
loop's ``p -= lr * g`` would be. Each read inside an active tape is recorded as an identity from the variable to
the tensor read (``ReadVariableOp``), so gradients reach the variable through every read, and assignments, which
record nothing, are not differentiable, as in TensorFlow. Reads, assignments and values leaving for NumPy are
reported through the hook (``observers.py``): the provenance log hears the assignments and the reads outside tapes.

Updates are atomic per variable, as TF's resource variables are (threads sharing a variable lose no update and
see no half-applied one). Every read-modify-write holds the variable's lock. Readers take no lock: a reference
to the current array is always a whole value, because updates either replace the array or, in place, change one
that nothing else holds. The only window is an in-place update that NumPy runs with the GIL released: the writer
raises ``_busy`` before it tests that it is the sole holder, and a reader that sees ``_busy`` waits for the lock
and reads again. A reader that took its reference before the flag went up counts as a holder, so the writer
then replaces the array instead.
"""

from __future__ import annotations

import sys
import threading
import weakref

import numpy as np

from . import dtypes, errors
from .equation import READ
from .observers import report_assign, report_leave, report_variable
from .shape import TensorShape
from .state import STATE, next_id
from .tensor import EagerTensor, Reference, Tensor, numpy_text, to_numpy_value

_getrefcount = sys.getrefcount


def _sole_holder_count():
    """What ``_update``'s refcount test reads when only the variable holds its array.

    Measured with the same steps (attribute read into a local, then ``getrefcount``) rather than assumed, since
    interpreters differ in which references they count (3.14 borrows local references).
    """

    class Holder:
        pass

    holder = Holder()
    holder._value = np.empty(1)
    value = holder._value
    return _getrefcount(value)


_SOLE_HOLDER = _sole_holder_count()
_Lock = threading.RLock  # re-entrant: converting an update may read the same variable (``v.assign(v * 2)``)

_new = object.__new__

__all__ = ["Variable", "name_scope", "VariableSynchronization", "VariableAggregation"]


class VariableSynchronization:
    """Where a distributed variable is synchronized (``tf.distribute`` mirrors variables made in a strategy's scope
    whatever this says)."""

    AUTO, NONE, ON_WRITE, ON_READ = 0, 1, 2, 3


class VariableAggregation:
    """How distributed updates are combined (accepted for compatibility)."""

    NONE, SUM, MEAN, ONLY_FIRST_REPLICA = 0, 1, 2, 3


class _Scopes(threading.local):
    def __init__(self):
        self.stack = []


_SCOPES = _Scopes()


class name_scope:  # noqa: N801 - TF's name
    """A context manager that prefixes the names of variables created inside it (``tf.name_scope``)."""

    def __init__(self, name):
        self._name = name

    @property
    def name(self):
        return self._name

    def __enter__(self):
        stack = _SCOPES.stack
        self._saved = list(stack)
        name = self._name
        if name and name.endswith("/"):
            stack[:] = [name[:-1]]  # a trailing slash names an absolute scope
        elif name:
            stack.append(name)
        return "/".join(stack) + "/" if stack else ""

    def __exit__(self, *exc):
        _SCOPES.stack[:] = self._saved


#: Every live variable by id (weakly): a traced function's reads name their variable by id (``equation.READ``).
LIVE = weakref.WeakValueDictionary()

#: Called with each new variable once it is made (``tf.distribute`` installs one that mirrors variables made in a
#: strategy's scope across processes); empty until then.
ON_CREATE = []


def _scoped(name):
    prefix = "/".join(_SCOPES.stack)
    return f"{prefix}/{name}" if prefix else name


class Variable:
    """A mutable tensor-like value, watched automatically by tapes when read (``tf.Variable``).

    Args:
        initial_value: a value, tensor, variable or zero-argument callable returning one.
        trainable: whether tapes watch it automatically (default ``True``).
        name: the name, ``"Variable"`` by default; the variable's ``name`` is ``"<scope>/<name>:0"``.
        dtype: convert Python/NumPy initial values to this dtype (tensors must already have it).
        shape: a shape, possibly with ``None`` dimensions, allowing later assignments of other shapes.
        constraint: an optional projection applied by optimizers after updates.

    Reads (``v * 2``, ``v.value()``) return tensors; ``assign``/``assign_add``/``assign_sub`` update in place.
    """

    _tapeflow_variable = True
    __array_priority__ = 100

    def __new__(cls, *args, **kwargs):
        # ``tf.Variable(...)`` makes a ``ResourceVariable``, as in TF (``type(v).__name__`` says so).
        return object.__new__(ResourceVariable if cls is Variable else cls)

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE, shape=None,
                 experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are not "
                             "providing a `variable_def`. You provided neither.")
        if callable(initial_value) and not isinstance(initial_value, Tensor) and not getattr(
                initial_value, "_tapeflow_variable", False):
            initial_value = initial_value()
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        if getattr(initial_value, "_tapeflow_variable", False):
            initial_value = initial_value.read_value()
        if isinstance(initial_value, Tensor):
            if dtype is not None and initial_value.dtype != dtype:
                raise ValueError(f"initial_value: Tensor conversion requested dtype {dtype.name} for Tensor with "
                                 f"dtype {initial_value.dtype.name}: {initial_value!r}")
            value = initial_value._value
        else:
            value = to_numpy_value(initial_value, dtype)
        if shape is not None:
            declared = TensorShape(shape)
            if not declared.is_compatible_with(np.shape(value)):
                raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                 f"({TensorShape(np.shape(value))}) is not compatible with the explicitly "
                                 f"supplied `shape` argument ({shape}).")
            self._shape = declared
        else:
            # ``validate_shape=False`` changes nothing in eager mode: the shape is the initial value's.
            self._shape = TensorShape(np.shape(value))
        self._value = value
        self._lock = _Lock()
        self._busy = False  # an in-place update is running (see the module docstring)
        self._id = next_id()
        self._name = _scoped(name if name is not None else "Variable") + ":0"
        self._trainable = True if trainable is None else bool(trainable)
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        LIVE[self._id] = self
        report_variable(self)
        if ON_CREATE:
            ON_CREATE[0](self)

    # --- reading -------------------------------------------------------------------------------------------
    def _read(self) -> Tensor:
        t = _new(EagerTensor)
        value = self._value  # taken before the flag is tested (see the module docstring)
        if self._busy:
            value = self._snapshot()
        t._value = value
        t._id = next_id()
        # ``observers.report_read``, inlined (every variable use is a read). Auto-watch the variable where a tape
        # asks for it, and record the read as an identity from the variable's id (``ReadVariableOp``). Reads keep
        # no provenance (``where`` is None): the op that uses the value records the user's line.
        tapes = STATE.tapes
        if tapes:
            vid = self._id
            for rec in tapes:
                tracked = rec.tracked
                if vid not in tracked:
                    # Not watched yet (the first read in a tape): auto-watch where the tape asks for it.
                    if not rec.watch_accessed or not self._trainable or vid in rec.variables:
                        continue
                    rec.watch_variable(self)
                    if vid not in tracked:  # an integer variable: watched, but carries no gradient
                        continue
                # The read's stored equation (``equation.py``): an identity from the variable's id.
                eq = (READ, None, None, None, t._id, value, vid, value)  # built before ``records`` is loaded
                rec.records.append(eq)
                tracked.add(t._id)
        else:  # tell the listeners of a read no tape saw (reads inside a tape are in its skeleton)
            note = tapes.hear.variable_read
            if note is not None:
                note(self, t)
        return t

    def _snapshot(self):
        """The current array, whole: waits for an in-place update another thread is running."""
        value = self._value
        if self._busy:
            with self._lock:
                value = self._value
        return value

    def value(self) -> Tensor:
        """The current value as a tensor (a read, recorded by active tapes)."""
        return self._read()

    def read_value(self) -> Tensor:
        """The current value as a tensor (a read, recorded by active tapes)."""
        return self._read()

    def _read_for_python(self):
        """A conversion to NumPy or Python reads the variable, as in TF: an active tape watches it (and records
        the read)."""
        if STATE.tapes:
            self._read()

    def numpy(self):
        """The current value as NumPy (a copy; a NumPy scalar for rank 0)."""
        self._read_for_python()
        report_leave(self, ".numpy()")
        v = self._snapshot()
        return v.copy() if type(v) is np.ndarray else v

    def _tapeflow_to_tensor(self, dtype=None):
        t = self._read()
        if dtype is not None and t.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{t.dtype.name}: {t!r}")
        return t

    # --- properties ----------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.dtype_of(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def initial_value(self):
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def device(self) -> str:
        return errors.CPU_DEVICE

    @property
    def handle(self):
        return self

    @property
    def _unique_id(self):
        return str(self._id)

    def ref(self):
        """A hashable reference to this variable."""
        return Reference(self)

    experimental_ref = ref

    # --- assignment ----------------------------------------------------------------------------------------
    def _convert(self, value):
        """``value`` as a NumPy value of this variable's dtype, with TF's conversion errors."""
        if not isinstance(value, Tensor):
            if getattr(value, "_tapeflow_variable", False):
                value = value.read_value()
            elif getattr(value, "_tapeflow_indexed_slices", False):
                # A gather's gradient (hand-written SGD on embeddings): densified as ``tf.convert_to_tensor`` does.
                value = value._tapeflow_to_tensor(self.dtype)
        if isinstance(value, Tensor):
            if value._value.dtype != self._value.dtype:
                raise ValueError(f"Tensor conversion requested dtype {self.dtype.name} for Tensor with dtype "
                                 f"{value.dtype.name}: {value!r}")
            return value._value
        return to_numpy_value(value, self.dtype)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Set the value; returns the variable (chainable) or ``None`` with ``read_value=False``.

        Raises:
            ValueError: on a shape the variable cannot take or a tensor of another dtype (nothing changes).
        """
        new = self._convert(value)
        if not self._shape.is_compatible_with(np.shape(new)):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {TensorShape(np.shape(new))} are "
                             "incompatible.")
        report_assign(self, "assign", value)  # before the change, as every assignment reports (a trace undoes it)
        with self._lock:  # waits for a read-modify-write in progress, whose result this assignment replaces
            self._value = new
        return self._unread() if read_value else None

    _unread_view = None

    def _unread(self):
        """The ``_UnreadVariable`` that assignments return; it holds no state of its own, so one is reused."""
        unread = self._unread_view
        if unread is None:
            unread = self._unread_view = _UnreadVariable(self)
        return unread

    def _update(self, delta, op_name, sign):
        if type(delta) is EagerTensor and delta._value.dtype is self._value.dtype:
            d = delta._value  # the optimizer's case (``v.assign_sub(lr * g)``): nothing to convert or check
        else:
            d = self._convert(delta)  # before taking the lock: converting may read this very variable
        with self._lock:
            value = self._value
            if d.shape != value.shape:  # tested under the lock: a variable with ``None`` dimensions may change shape
                raise errors.op_error(op_name, f"Cannot update variable with shape "
                                      f"{errors.shape_str(np.shape(value))} using a Tensor with shape "
                                      f"{errors.shape_str(np.shape(d))}, shapes must be equal.")
            note = STATE.tapes.hear.variable_assigned  # ``observers.report_assign``, inlined (an optimizer's update)
            if note is not None:
                note(self, "assign_add" if sign > 0 else "assign_sub", delta)
            self._busy = True  # raised before the holder test: see the module docstring
            try:
                if type(value) is np.ndarray and value.base is None and _getrefcount(value) == _SOLE_HOLDER:
                    # Nothing but this variable holds the array, so no tensor read earlier can see the change:
                    # update in place, as a training loop's ``p -= lr * g`` would, instead of allocating a new
                    # array every step. Views and buffers of the array hold references too, so they also keep
                    # this path off.
                    (np.add if sign > 0 else np.subtract)(value, d, out=value)
                else:
                    self._value = value + d if sign > 0 else value - d
            finally:
                self._busy = False

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` (same shape) to the value; returns the variable, or ``None`` with ``read_value=False``."""
        self._update(delta, "AssignAddVariableOp", 1)
        return self._unread() if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` (same shape); returns the variable, or ``None`` with ``read_value=False``."""
        if type(delta) is EagerTensor:
            d = delta._value
            with self._lock:
                value = self._value
                if d.dtype is value.dtype and d.shape == value.shape:
                    # A training loop's ``v.assign_sub(lr * g)``, spelled out (see ``_update``): nothing to convert
                    # or check, and an array only this variable holds is updated in place.
                    note = STATE.tapes.hear.variable_assigned  # ``observers.report_assign``, inlined
                    if note is not None:
                        note(self, "assign_sub", delta)
                    self._busy = True
                    try:
                        if type(value) is np.ndarray and value.base is None and _getrefcount(value) == _SOLE_HOLDER:
                            value -= d
                        else:
                            self._value = value - d
                    finally:
                        self._busy = False
                    if read_value:
                        unread = self._unread_view
                        return unread if unread is not None else self._unread()
                    return None
        self._update(delta, "AssignSubVariableOp", -1)
        return self._unread() if read_value else None

    # --- updates the op set defines (``ops/variable_methods.py``: sparse reads, scatters, slices) --------------
    def _locked(self, update, *args):
        """``update(self, *args)``, a read-modify-write of a copy of the value, under the variable's lock: the
        scatters and slice assignments the op set installs on this class run through here, so concurrent updates
        are not lost. ``update`` must not convert anything that reads this variable (do that before)."""
        with self._lock:
            return update(self, *args)

    # --- Python protocols ----------------------------------------------------------------------------------
    def __repr__(self):
        self._read_for_python()
        return (f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value, True)}>")

    __str__ = __repr__

    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def __array__(self, dtype=None, copy=None):
        # A writable copy, as TF gives: writing to it must not reach the variable or the tensors read from it.
        self._read_for_python()
        report_leave(self, "a NumPy conversion (np.asarray, np.array...)")
        return np.array(self._snapshot(), dtype=dtype, copy=True)

    def __len__(self):
        raise TypeError("object of type 'ResourceVariable' has no len()")

    def __iter__(self):
        return iter(self._read())

    def __bool__(self):
        self._read_for_python()
        report_leave(self, "bool()")
        return bool(self._snapshot())

    def __float__(self):
        self._read_for_python()
        report_leave(self, "float()")
        return float(self._snapshot())

    def __int__(self):
        self._read_for_python()
        report_leave(self, "int()")
        return int(self._snapshot())

    def __iadd__(self, other):
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_add(value)` to modify the variable, or `out = variable + value` if "
                           "you need to get a new output Tensor.")

    def __isub__(self, other):
        raise RuntimeError("`variable -= value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_sub(value)` to modify the variable, or `out = variable * value` if "
                           "you need to get a new output Tensor.")

    def __imul__(self, other):
        raise RuntimeError("`var *= value` with `tf.Variable`s is not supported. Use `var.assign(var * value)` to "
                           "modify the variable, or `out = var * value` if you need to get a new output Tensor.")

    def __itruediv__(self, other):
        raise RuntimeError("`var /= value` with `tf.Variable`s is not supported. Use `var.assign(var / value)` to "
                           "modify the variable, or `out = var / value` if you need to get a new output Tensor.")

    __idiv__ = __itruediv__

    def __ipow__(self, other):
        raise RuntimeError("`var **= value` with `tf.Variable`s is not supported. Use `var.assign(var ** value)` "
                           "to modify the variable, or `out = var ** value` if you need to get a new output "
                           "Tensor.")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        v = Variable(self.numpy(), trainable=self._trainable, name=self._name[:-2], shape=self._shape,
                     constraint=self._constraint)
        v._name = self._name
        memo[id(self)] = v
        return v


class _UnreadVariable(Variable):
    """What ``assign*`` returns in eager mode: the same variable (same value and identity), not yet read."""

    def __init__(self, parent):  # noqa: D107 - everything else is read from the parent
        self._parent = parent

    _value = property(lambda self: self._parent._value,
                      lambda self, v: setattr(self._parent, "_value", v))
    _id = property(lambda self: self._parent._id)
    _lock = property(lambda self: self._parent._lock)
    _busy = property(lambda self: self._parent._busy, lambda self, v: setattr(self._parent, "_busy", v))
    _shape = property(lambda self: self._parent._shape)
    _trainable = property(lambda self: self._parent._trainable)
    _constraint = property(lambda self: self._parent._constraint)
    _name = "UnreadVariable"

    def _read(self):
        return self._parent._read()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._parent.assign(value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._parent.assign_add(delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._parent.assign_sub(delta, use_locking, name, read_value)


class _VariableSlice(EagerTensor):
    """``v[index]``: a tensor read from ``v`` that can also ``assign`` into that slice of ``v``.

    TF returns a plain ``EagerTensor`` with an ``assign`` attribute; the class name matches it.
    """

    __slots__ = ("_var", "_index")

    @classmethod
    def of(cls, var, read, index):
        """The slice of ``var`` at ``index`` (a NumPy index), whose value is the tensor ``read`` (``var[key]``)."""
        out = object.__new__(cls)
        out._value, out._id = read._value, read._id
        out._var, out._index = var, index
        return out

    def assign(self, value, name=None, read_value=True):
        """Write ``value`` into this slice of the variable (not differentiable)."""
        var = self._var
        part = var._convert(value)  # before taking the lock: converting may read this very variable
        with var._lock:
            new = np.array(var._value, copy=True)
            target = new[self._index]
            if np.shape(part) != np.shape(target):
                raise errors.op_error("ResourceStridedSliceAssign", f"Cannot broadcast input shape "
                                      f"{errors.shape_str(np.shape(part))} into final shape "
                                      f"{errors.shape_str(np.shape(target))}", name="strided_slice/_assign")
            new[self._index] = part
            report_assign(var, "slice_assign", value)  # before the change, as every assignment reports
            var._value = new[()] if new.ndim == 0 else new
        return _UnreadVariable(var) if read_value else None


_VariableSlice.__name__ = _VariableSlice.__qualname__ = "EagerTensor"


class ResourceVariable(Variable):
    """The class of the variables ``tf.Variable(...)`` creates (TF's resource variables)."""


# Tensor attributes that are not operators: ``ops/operators.py`` gives variables every other dunder of Tensor.
NOT_OPERATORS = {"__init__", "__new__", "__repr__", "__str__", "__hash__", "__array__", "__len__", "__iter__",
                 "__bool__", "__float__", "__int__", "__index__", "__format__", "__getitem__", "__copy__",
                 "__deepcopy__", "__reduce__", "__slots__", "__module__", "__doc__", "__weakref__",
                 "__array_priority__", "__complex__", "__qualname__", "__dict__", "__annotations__",
                 "__firstlineno__", "__static_attributes__", "__round__"}

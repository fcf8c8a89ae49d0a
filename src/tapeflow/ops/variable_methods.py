"""TF's conveniences on ``tf.Variable`` that are ops: sparse reads, scatters, slices and the Python operators.

The core's :class:`~tapeflow._core.variable.Variable` knows reading and assigning only; the op set gives it the rest
here, as ``operators.py`` gives tensors their operators. Scatters and slice assignments run under the variable's
lock (``Variable._locked``), so that concurrent updates are not lost, and are reported through the hook as
assignments (``observers.report_assign``).
"""

from __future__ import annotations

import numpy as np

from .._core.observers import report_assign
from .._core.state import STATE
from .._core.tensor import Tensor
from .._core.variable import NOT_OPERATORS, Variable, _VariableSlice
from .array_ops import getitem, strided_slice_index
from .gather_ops import gather
from .operators import BINARY, binary_on_read, variable_eq, variable_ne
from .scatter_ops import gather_nd, scatter_nd_variable, scatter_variable

__all__ = []


def sparse_read(self, indices, name=None):
    """``tf.gather(variable, indices)``: rows of the value (its gradient is an ``IndexedSlices``)."""
    return gather(self, indices)


def _gather_nd(self, indices, name=None):
    """``tf.gather_nd(variable, indices)``."""
    return gather_nd(self, indices)


def _scatter(kind, doc):
    def method(self, sparse_delta, use_locking=False, name=None):
        if STATE.tracer is not None:  # traced: an op and an assignment, which the trace records (and locks)
            return scatter_variable(self, kind, sparse_delta)
        report_assign(self, f"scatter_{kind}", getattr(sparse_delta, "values", None))
        return self._locked(scatter_variable, kind, sparse_delta)

    method.__name__ = method.__qualname__ = f"scatter_{kind}"
    method.__doc__ = doc
    return method


def _scatter_nd(kind, doc):
    def method(self, indices, updates, name=None):
        if STATE.tracer is not None:
            return scatter_nd_variable(self, kind, indices, updates)
        report_assign(self, f"scatter_nd_{kind}", updates)
        return self._locked(scatter_nd_variable, kind, indices, updates)

    method.__name__ = method.__qualname__ = f"scatter_nd_{kind}"
    method.__doc__ = doc
    return method


_SCATTERS = {
    "add": "Add the rows of an ``IndexedSlices`` at its indices (repeated indices add up); returns the variable.",
    "sub": "Subtract the rows of an ``IndexedSlices`` at its indices (repeated indices add up).",
    "update": "Replace the rows at an ``IndexedSlices``' indices by its values.",
    "max": "Rows at the indices become the element-wise maximum of themselves and the ``IndexedSlices``' values.",
    "min": "Rows at the indices become the element-wise minimum of themselves and the ``IndexedSlices``' values.",
    "mul": "Multiply the rows at the indices by the ``IndexedSlices``' values.",
    "div": "Divide the rows at the indices by the ``IndexedSlices``' values.",
}
_SCATTERS_ND = {
    "add": "``tf.tensor_scatter_nd_add`` applied to the variable in place; returns the variable.",
    "sub": "``tf.tensor_scatter_nd_sub`` applied to the variable in place.",
    "update": "``tf.tensor_scatter_nd_update`` applied to the variable in place.",
    "max": "``tf.tensor_scatter_nd_max`` applied to the variable in place.",
    "min": "``tf.tensor_scatter_nd_min`` applied to the variable in place.",
}


def _getitem(self, key):
    """``v[key]``: a read of the slice that can also ``assign`` into it."""
    if isinstance(key, list) and not any(isinstance(k, (list, tuple, np.ndarray, Tensor)) for k in key):
        key = tuple(key)  # TF reads a flat list as a tuple of indices, one per dimension (as for tensors)
    return _VariableSlice.of(self, getitem(self._read(), key), strided_slice_index(key))


def _no_unary_plus(self):
    raise TypeError("bad operand type for unary +: 'ResourceVariable'")


def _install_operators(cls):
    """Variables use the tensor operators on a fresh read of their value (each read is recorded)."""
    for n in [n for n in vars(Tensor) if n.startswith("__") and n.endswith("__") and n not in NOT_OPERATORS]:
        fn = getattr(Tensor, n)
        if n in BINARY:
            op = binary_on_read(BINARY[n])  # the common binary operators, straight to dispatch
        elif fn.__code__.co_argcount == 2:
            def op(self, other, _fn=fn):  # binary: without *args packing
                return _fn(self._read(), other)
        else:
            def op(self, *args, _fn=fn):
                return _fn(self._read(), *args)

        op.__name__ = n
        setattr(cls, n, op)
    cls.__eq__ = lambda self, other: variable_eq(self._read(), other)
    cls.__ne__ = lambda self, other: variable_ne(self._read(), other)
    cls.__pos__ = _no_unary_plus


def install(cls):
    """Give ``cls`` (``Variable``) its op-backed methods and operators."""
    cls.sparse_read = sparse_read
    cls.gather_nd = _gather_nd
    cls.gather_nd.__name__ = cls.gather_nd.__qualname__ = "gather_nd"
    for kind, doc in _SCATTERS.items():
        setattr(cls, f"scatter_{kind}", _scatter(kind, doc))
    for kind, doc in _SCATTERS_ND.items():
        setattr(cls, f"scatter_nd_{kind}", _scatter_nd(kind, doc))
    cls.__getitem__ = _getitem
    _install_operators(cls)


install(Variable)

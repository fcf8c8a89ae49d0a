"""The equation: one recorded op application, the unit every reader of a recording works with.

An :class:`Equation` names seven fields::

    Equation(op, inputs, values, outputs, results, attrs, where)

``op`` is the :class:`~tapeflow._core.registry.Op`; ``inputs`` the ids of its input tensors (a variable read's
input is the variable's id) and ``values`` their NumPy values; ``outputs`` the id of its output, or a tuple of ids
for a multi-output op, and ``results`` the matching value(s); ``attrs`` the dict of attributes its forward and rule
take as keywords; ``where`` the user's ``(code, lasti)`` or ``None``. Ids and values are all a reader needs: the
backward pass looks gradients up by id and computes on values, the skeleton and ``explain`` show ids, shapes and
dtypes, and a tracer sees the dataflow by id and each value's shape and dtype.

**The stored form.** A tape keeps each equation as a plain tuple in the same field order, with two fields in a
cheaper form: ``op`` is the op's registry key (a string, ``Op.key``) when it is registered, and ``attrs`` is
``None`` when empty. Such a tuple holds no tensor object and no op object, only strings, ints, tuples and arrays, so
Python's cyclic garbage collector stops tracking it once a collection has seen it: a tape of 300,000 such equations
costs a full collection nothing, where records holding live tensors made every full collection visit all of them.
(An equation with attributes keeps their dict, which keeps its tuple tracked: one object per such equation.) It is
also cheap to build: ``execute`` makes it on the per-op path (:func:`store`), and the backward pass on arrays reads
it as it is. :meth:`Recording.equations <tapeflow._core.recording.Recording.equations>` gives the named form,
:func:`as_tensors` the form with tensors that gradient rules on tensors take.

Attributes become hashable with :func:`freeze_attrs` (sorted ``(name, value)`` pairs, slices and arrays spelled
out): the op database checks that every recorded equation's attributes freeze to a hashable value, which is what a
compiler keys a traced step on.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .registry import REGISTRY
from .tensor import EagerTensor

__all__ = ["Equation", "READ", "store", "named", "as_tensors", "freeze_attrs", "op_of"]

Equation = namedtuple("Equation", "op inputs values outputs results attrs where")
Equation.__doc__ = ("One recorded op application: ``(op, inputs, values, outputs, results, attrs, where)`` (see "
                    "``tapeflow/_core/equation.py``).")

#: The registry name of a variable read (``dispatch.READ_VARIABLE``), the one op whose input is a variable.
READ = "ReadVariableOp"

_EMPTY = {}
_new = object.__new__


def store(op, inputs, result, attrs, where):
    """The stored form of ``op`` applied to ``inputs`` giving ``result`` (a tensor or a tuple of tensors)."""
    if len(inputs) == 1:
        x = inputs[0]
        ids, values = (x._id,), (x._value,)
    else:
        ids, values = tuple([t._id for t in inputs]), tuple([t._value for t in inputs])
    if op.multi_output:
        outputs, results = tuple([o._id for o in result]), tuple([o._value for o in result])
    else:
        outputs, results = result._id, result._value
    return (op.key or op, ids, values, outputs, results, attrs or None, where)


def op_of(key):
    """The op a stored equation names (its registry key, or the op itself when it is not registered)."""
    return REGISTRY[key] if key.__class__ is str else key


def named(stored):
    """The :class:`Equation` of a stored one."""
    key, inputs, values, outputs, results, attrs, where = stored
    return Equation(op_of(key), inputs, values, outputs, results, _EMPTY if attrs is None else attrs, where)


def _tensor(tid, value):
    t = _new(EagerTensor)
    t._value = value
    t._id = tid
    return t


def as_tensors(stored, variables):
    """``(op, inputs, outputs, attrs, where)`` with tensors rebuilt under their recorded ids, as rules on tensors
    take them (a variable read's input is its variable, looked up in ``variables``)."""
    key, ids, values, outputs, results, attrs, where = stored
    if key == READ:
        return (REGISTRY[READ], (variables[ids[0]],), _tensor(outputs, results), _EMPTY, where)
    op = REGISTRY[key] if key.__class__ is str else key
    if len(ids) == 1:
        inputs = (_tensor(ids[0], values[0]),)
    else:
        inputs = tuple([_tensor(i, v) for i, v in zip(ids, values)])
    if op.multi_output:
        out = tuple([_tensor(i, v) for i, v in zip(outputs, results)])
    else:
        out = _tensor(outputs, results)
    return (op, inputs, out, _EMPTY if attrs is None else attrs, where)


def _frozen(value):
    kind = type(value)
    if kind is tuple or kind is list:
        return tuple([_frozen(v) for v in value])
    if kind is slice:  # unhashable before Python 3.12
        return (slice, value.start, value.stop, value.step)
    if kind is np.ndarray:  # a constant operand given as an attribute (a boolean mask's index)
        return (np.ndarray, value.dtype.str, value.shape, value.tobytes())
    return value


def freeze_attrs(attrs):
    """``attrs`` as one hashable value: ``None`` when empty, else the ``(name, value)`` pairs sorted by name, with
    lists as tuples and slices and arrays spelled out (``(slice, start, stop, step)``, ``(ndarray, dtype, shape,
    bytes)``)."""
    if not attrs:
        return None
    return tuple(sorted([(k, _frozen(v)) for k, v in attrs.items()]))

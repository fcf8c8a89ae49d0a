"""The equation: one recorded op application, the unit every reader of a recording works with.

An :class:`Equation` names seven fields::

    Equation(op, inputs, values, outputs, results, attrs, where)

``op`` is the :class:`~tapeflow._core.registry.Op`; ``inputs`` the ids of its input tensors (a variable read's
input is the variable's id) and ``values`` their NumPy values; ``outputs`` the id of its output, or a tuple of ids
for a multi-output op, and ``results`` the matching value(s); ``attrs`` the dict of attributes its forward and rule
take as keywords; ``where`` the user's ``(code, lasti)`` or ``None``. Ids and values are all a reader needs: the
backward pass looks gradients up by id and computes on values, the skeleton and ``explain`` show ids, shapes and
dtypes, and a tracer sees the dataflow by id and each value's shape and dtype.

**The stored form.** A tape keeps each equation as one flat tuple of ids, arrays and strings::

    (key, attrs, code, lasti, outputs, results, id_0, value_0, id_1, value_1, ...)

``key`` is the op's registry key (``Op.key``) when it is registered, else the op itself; ``attrs`` is ``None``
when empty (a dict, even an empty one, keeps its tuple tracked by the collector); ``code, lasti`` is ``where``
spread out (``None, None`` without one); then each input's id and value.
Such a tuple holds no tensor, no op object and no other tuple (bar a multi-output op's ``outputs`` and
``results``), so Python's cyclic garbage collector untracks it at the first collection that sees it. Flat matters:
a collection reorders the objects it scans, so a tuple met before a tuple it holds stays tracked, and nested
records left one in seven of them tracked and promoted, bringing on full collections. (An equation with attributes
keeps their dict, which keeps its tuple tracked: one object per such equation.) A tape of 300,000 equations costs
a full collection nothing where records holding live tensors made every full collection visit all of them. It is
also cheap to build: ``execute`` makes it on the per-op path (:func:`store` for the general case), and the backward
pass on arrays reads it as it is. :meth:`Recording.equations <tapeflow._core.recording.Recording.equations>`
gives the named form, :func:`as_tensors` the form with tensors that gradient rules on tensors take.

Attributes become hashable with :func:`freeze_attrs` (sorted ``(name, value)`` pairs, slices and arrays spelled
out): the op database checks that every recorded equation's attributes freeze to a hashable value, which is what a
compiler keys a traced step on.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .registry import REGISTRY
from .tensor import EagerTensor

__all__ = ["Equation", "READ", "store", "named", "as_tensors", "ids_of", "values_of", "freeze_attrs", "op_of",
           "tensor_of"]

Equation = namedtuple("Equation", "op inputs values outputs results attrs where")
Equation.__doc__ = ("One recorded op application: ``(op, inputs, values, outputs, results, attrs, where)`` (see "
                    "``tapeflow/_core/equation.py``).")

#: The registry name of a variable read (``dispatch.READ_VARIABLE``), the one op whose input is a variable.
READ = "ReadVariableOp"

_EMPTY = {}
_NOWHERE = (None, None)
_new = object.__new__


def store(op, inputs, result, attrs, where):
    """The stored form of ``op`` applied to ``inputs`` giving ``result`` (a tensor or a tuple of tensors).

    ``execute`` builds single-output equations of one or two inputs itself; this builds the others (a training
    step's fused cross-entropy has two outputs), spelled out for the common sizes.
    """
    if not op.multi_output:
        outputs, results = result._id, result._value
    elif len(result) == 2:
        a, b = result
        outputs, results = (a._id, b._id), (a._value, b._value)
    else:
        outputs, results = tuple([o._id for o in result]), tuple([o._value for o in result])
    code, lasti = where if where is not None else _NOWHERE
    n = len(inputs)
    if n == 2:
        x, y = inputs
        return (op.key, attrs or None, code, lasti, outputs, results, x._id, x._value, y._id, y._value)
    if n == 1:
        x = inputs[0]
        return (op.key, attrs or None, code, lasti, outputs, results, x._id, x._value)
    flat = [op.key, attrs or None, code, lasti, outputs, results]
    for t in inputs:
        flat.append(t._id)
        flat.append(t._value)
    return tuple(flat)


def ids_of(stored):
    """The input ids of a stored equation."""
    return stored[6::2]


def values_of(stored):
    """The input values of a stored equation."""
    return stored[7::2]


def op_of(key):
    """The op a stored equation names (its registry key, or the op itself when it is not registered)."""
    return REGISTRY[key] if key.__class__ is str else key


def named(stored):
    """The :class:`Equation` of a stored one."""
    key, attrs, code, lasti, outputs, results = stored[:6]
    return Equation(op_of(key), stored[6::2], stored[7::2], outputs, results, attrs or _EMPTY,
                    None if code is None else (code, lasti))


def tensor_of(tid, value):
    """A tensor of ``value`` under the recorded id ``tid`` (no new id: it stands for the recorded one)."""
    t = _new(EagerTensor)
    t._value = value
    t._id = tid
    return t


def as_tensors(stored, variables):
    """``(op, inputs, outputs, attrs, where)`` with tensors rebuilt under their recorded ids, as rules on tensors
    take them (a variable read's input is its variable, looked up in ``variables``)."""
    key, attrs, code, lasti, outputs, results = stored[:6]
    where = None if code is None else (code, lasti)
    if key is READ:
        return (REGISTRY[READ], (variables[stored[6]],), tensor_of(outputs, results), _EMPTY, where)
    op = REGISTRY[key] if key.__class__ is str else key
    if len(stored) == 8:
        inputs = (tensor_of(stored[6], stored[7]),)
    else:
        inputs = tuple([tensor_of(i, v) for i, v in zip(stored[6::2], stored[7::2])])
    if op.multi_output:
        out = tuple([tensor_of(i, v) for i, v in zip(outputs, results)])
    else:
        out = tensor_of(outputs, results)
    return (op, inputs, out, attrs or _EMPTY, where)


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

"""Python operators on tensors and variables (``+``, ``*``, ``@``, ``[]``, comparisons ...).

They are attached here rather than written in the ``Tensor`` class so that the class stays free of op logic and
every operator is the same function as its ``tf.*`` counterpart, going through the one dispatch point.
Conversion follows TF: the other operand takes the tensor's dtype (``t * 2.0``), tensors are never promoted.
"""

from __future__ import annotations

import numpy as np

from .._core.dispatch import execute
from .._core.errors import InvalidArgumentError, without_name
from .._core.state import next_id
from .._core.tensor import _TF_NAME, EagerTensor, Tensor, constant_of, convert_to_tensor
from .._core.variable import ResourceVariable
from . import array_ops, linalg_ops, math_ops
from ._convert import operand_like, scalar_of

_new = object.__new__


def _binary(op, name):
    if op is math_ops.ADD:
        return _add()

    def forward(self, other):
        kind = type(other)
        original = other
        try:
            if kind is not EagerTensor:
                # A variable (``h + b`` in a dense layer) is read directly, without the conversion's type tests.
                other = other._read() if kind is ResourceVariable else operand_like(other, self)
            return execute(op, (self, other))
        except (TypeError, ValueError) as exc:  # no cost unless raised (see ``_reflect``)
            if op is math_ops.MUL and self._value.dtype.kind == "b":
                return _bool_mul(self, original, exc)
            return _reflect(name, self, other, exc)
        except InvalidArgumentError as exc:
            if op is math_ops.MUL and self._value.dtype.kind == "b":
                return _bool_mul(self, original, exc)
            if kind is str or kind is bytes:  # TF's op wrapper takes a Python string on its fallback path
                raise without_name(exc) from None
            raise

    def reflected(self, other):  # ``2.5 + t`` is refused before any op runs, also in TF
        # A training loop's ``lr * g``: a NumPy scalar of the tensor's own type is wrapped as it is, a Python float
        # converted (``operand_like``'s first cases, inline).
        dtype = self._value.dtype
        if type(other) is dtype.type:
            x = _new(EagerTensor)
            x._value = other
            x._id = next_id()
        elif type(other) is float and dtype.kind == "f":
            x = _new(EagerTensor)
            x._value = scalar_of(other, dtype)
            x._id = next_id()
        else:
            x = operand_like(other, self)
        return execute(op, (x, self))

    return forward, reflected


def _bool_mul(x, y, exc):
    """``bool_tensor * y``: TF's ``*`` on a bool tensor is ``logical_and``, ``y`` taken by its truth (``t * 2`` is
    ``t``). (``2 * t`` and ``tf.multiply`` refuse, as in TF.)"""
    if isinstance(y, Tensor) or getattr(y, "_tapeflow_variable", False):
        other = y._read() if getattr(y, "_tapeflow_variable", False) else y
    else:
        try:
            other = constant_of(np.asarray(y).astype(bool))
        except (TypeError, ValueError):
            raise exc from None
    return execute(math_ops.LOGICAL_AND, (x, other))


def _reflect(name, x, y, exc):
    """What TF's operator does when ``x <op> y`` fails with a TypeError or ValueError: it gives ``y``'s reflected
    operator a chance (``int_tensor * "ab"`` is ``"ab"``, Python's sequence repetition) and otherwise raises the
    original error."""
    if type(y) is EagerTensor or not hasattr(type(y), f"__r{name}__"):
        raise exc
    try:
        out = getattr(y, f"__r{name}__")(x)
    except (TypeError, ValueError):
        raise exc from None
    if out is NotImplemented:
        raise exc
    return out


def _add():
    """``+``: TF's ``AddV2``, or its ``Add`` when the left operand is a string tensor (which concatenates).

    The other operand is converted leniently: ``t + 2.5`` on an int tensor fails in the op itself, as in TF (see
    ``operand_like``). The string dispatch sits in the ``except`` branch: numeric ``+`` pays nothing for it.
    """
    add = math_ops.ADD

    def forward(self, other):
        kind = type(other)
        try:
            if kind is not EagerTensor:
                other = other._read() if kind is ResourceVariable else operand_like(other, self, lenient=True)
            return execute(add, (self, other))
        except InvalidArgumentError:
            if self._value.dtype.kind != "O":
                raise
        except (TypeError, ValueError) as exc:
            return _reflect("add", self, other, exc)
        return execute(math_ops.ADD_STRING, (self, other))

    def reflected(self, other):
        dtype = self._value.dtype
        if type(other) is float and dtype.kind == "f":
            x = _new(EagerTensor)
            x._value = scalar_of(other, dtype)
            x._id = next_id()
        else:
            x = operand_like(other, self)
        try:
            return execute(add, (x, self))
        except InvalidArgumentError:
            if x._value.dtype.kind != "O":
                raise
        return execute(math_ops.ADD_STRING, (x, self))

    return forward, reflected


def binary_on_read(op):
    """A variable's version of a binary operator: read the variable, convert the other side, dispatch."""
    lenient = op is math_ops.ADD

    def forward(self, other):
        x = self._read()
        if type(other) is not EagerTensor:
            other = operand_like(other, x, lenient=lenient)
        try:
            return execute(op, (x, other))
        except InvalidArgumentError:
            if not lenient or x._value.dtype.kind != "O":  # only ``+`` concatenates strings (TF's ``Add``)
                raise
        return execute(math_ops.ADD_STRING, (x, other))

    return forward


def _via(fn, name):
    def forward(self, other):
        try:
            if type(other) is not EagerTensor:
                other = operand_like(other, self)
            return fn(self, other)
        except (TypeError, ValueError) as exc:
            return _reflect(name, self, other, exc)

    def reflected(self, other):
        return fn(operand_like(other, self), self)

    return forward, reflected


def _eq(self, other):
    # TF: ``t == None`` is False; otherwise elementwise, and unbroadcastable shapes give a scalar False.
    if other is None:
        return False
    other = other if type(other) is EagerTensor else operand_like(other, self, strict=True)
    return execute(math_ops.EQUAL, (self, other), math_ops.NO_SHAPE_ERROR)


def _ne(self, other):
    if other is None:
        return True
    other = other if type(other) is EagerTensor else operand_like(other, self, strict=True)
    return execute(math_ops.NOT_EQUAL, (self, other), math_ops.NO_SHAPE_ERROR)


def variable_eq(self, other):
    """``variable == other``: like a tensor's, except that ``None`` is converted (and refused), as in TF."""
    other = operand_like(other, self, strict=True) if other is not None else convert_to_tensor(other)
    return execute(math_ops.EQUAL, (self, other), math_ops.NO_SHAPE_ERROR)


def variable_ne(self, other):
    other = operand_like(other, self, strict=True) if other is not None else convert_to_tensor(other)
    return execute(math_ops.NOT_EQUAL, (self, other), math_ops.NO_SHAPE_ERROR)


def _pos(self):
    raise TypeError(f"bad operand type for unary +: '{_TF_NAME}'")


def _logical_or_bitwise(logical, bitwise, name):
    def pick(x, y):
        return execute(logical if x._value.dtype.kind == "b" else bitwise, (x, y))

    return _via(pick, name)


def _invert(self):
    return execute(math_ops.LOGICAL_NOT if self._value.dtype.kind == "b" else math_ops.INVERT, (self,))


def _matmul(self, other):
    return linalg_ops.matmul(self, other)


def _rmatmul(self, other):
    # TF converts the left operand towards the tensor's dtype here (tf.matmul itself converts ``b`` towards ``a``).
    return linalg_ops.matmul(operand_like(other, self), self)


# The plain binary operators, by dunder name, with their op (the reflected versions are derived).
BINARY = {"__add__": math_ops.ADD, "__sub__": math_ops.SUB, "__mul__": math_ops.MUL, "__pow__": math_ops.POW}


def _truediv(self, other):
    # ``t / y`` converts ``y`` with only a hint of ``t``'s dtype (a clash is then truediv's TypeError).
    try:
        return math_ops.truediv(self, other)
    except (TypeError, ValueError) as exc:
        return _reflect("truediv", self, other, exc)


OPERATORS = {
    **{name: _binary(op, name[2:-2]) for name, op in BINARY.items()},
    "__truediv__": (_truediv, _via(math_ops.truediv, "truediv")[1]),
    "__floordiv__": _via(math_ops.floordiv, "floordiv"),
    "__mod__": _via(math_ops.floormod, "mod"),
    "__and__": _logical_or_bitwise(math_ops.LOGICAL_AND, math_ops.BITWISE_AND, "and"),
    "__or__": _logical_or_bitwise(math_ops.LOGICAL_OR, math_ops.BITWISE_OR, "or"),
    "__xor__": _via(lambda x, y: math_ops.logical_xor(x, y) if x._value.dtype.kind == "b"
                    else execute(math_ops.BITWISE_XOR, (x, y)), "xor"),
}
COMPARISONS = {"__lt__": math_ops.LESS, "__le__": math_ops.LESS_EQUAL, "__gt__": math_ops.GREATER,
               "__ge__": math_ops.GREATER_EQUAL}


def _compare(op):
    def compare(self, other):
        if type(other) is not EagerTensor:
            other = operand_like(other, self)
        return execute(op, (self, other))

    return compare


def _round(self, ndigits=None):
    # TF gives every tensor NumPy's ``around`` as ``round()`` (its NumPy module is part of the package): without
    # NumPy behavior it fails as TF's does, on ``astype``. The module is loaded on the first call.
    from ..experimental.numpy._unary import around

    return around(self) if ndigits is None else around(self, ndigits)


def install(cls):
    """Give ``cls`` (Tensor) TF's operators."""
    for name, (fwd, rev) in OPERATORS.items():
        setattr(cls, name, fwd)
        setattr(cls, "__r" + name[2:], rev)
    for name, op in COMPARISONS.items():
        setattr(cls, name, _compare(op))
    cls.__eq__ = _eq
    cls.__ne__ = _ne
    cls.__matmul__ = _matmul
    cls.__rmatmul__ = _rmatmul
    cls.__neg__ = lambda self: execute(math_ops.NEG, (self,))
    cls.__abs__ = lambda self: math_ops.abs(self)
    cls.__invert__ = _invert
    cls.__pos__ = _pos
    cls.__getitem__ = array_ops.getitem
    cls.__round__ = _round


install(Tensor)

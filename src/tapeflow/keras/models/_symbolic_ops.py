"""Operators on ``KerasTensor`` s: ``a + b``, ``x * 2``, ``-x``, ``x[:, 1:]``, ``x @ w``, comparisons...

Each operator makes an operation node of the functional graph, as Keras 3 does: an ``Operation`` named like
Keras's (``add``, ``multiply``, ``get_item``, sharing the name counters of layers), listed in ``model.operations``
and in ``summary()`` (no weights), but not in ``model.layers``. Operands follow Keras's type promotion rather than
TF's (``int32 + 0.5`` is float32, ``int / int`` is float32, an int and a float tensor give the float dtype) and are
cast before the tapeflow op runs, so the replayed model is differentiable. Output shapes come from running the op
on two zero batches of different sizes: axes whose size changes with the unknown sizes are unknown (``None``).

tf ops (``tf.nn.relu(x)``, ``tf.concat``...) refuse ``KerasTensor`` s with Keras's ``ValueError``, as in
TensorFlow 2.21: the conversion to a tensor raises (see ``KerasTensor._tapeflow_to_tensor``).
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import convert_to_tensor, is_tensor
from .._dtypes import result_type
from ..layers.base import Layer, _flatten, _map

__all__ = ["Operation", "OPERATIONS", "install_operators"]

_FLOAT_ORDER = ("bfloat16", "float16", "float32", "float64")


def _kind(name):
    return "f" if name in _FLOAT_ORDER else ("b" if name == "bool" else "i")


def result_dtype(*operands):
    """Keras's promoted dtype of the operands (``keras.backend.result_type``; Python ints and floats are weak)."""
    typed = [x if isinstance(x, (bool, int, float)) else (x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype)
             for x in operands]
    return result_type(*typed)


def _tf():
    import tapeflow

    return tapeflow


class Operation(Layer):
    """An operator applied to ``KerasTensor`` s: a weightless node of a functional model (Keras's ``Operation``).

    Subclasses set ``_fn(tf, *operands)`` and how operands are cast (``_cast``: ``"promote"`` to the common dtype,
    ``"float"`` to at least float32, ``None`` to leave them).
    """

    _cast = "promote"

    def __init__(self, key=None, name=None):
        super().__init__(name=name, autocast=False)
        self.key = key
        self.built = True

    def _operands(self, operands):
        if self._cast is None:
            return operands
        dtype = result_dtype(*operands)
        if self._cast == "float" and _kind(dtype) != "f":
            dtype = "float32"
        tf = _tf()
        out = []
        for x in operands:
            if is_tensor(x) or getattr(x, "_tapeflow_variable", False):
                out.append(x if x.dtype.name == dtype else tf.cast(x, dtype))
            else:
                out.append(convert_to_tensor(np.asarray(x, dtype=dtype)))
        return out

    def call(self, *operands):
        return self._fn(_tf(), *self._operands(list(operands)))

    def __call__(self, *operands):
        if any(getattr(x, "_keras_symbolic", False) for x in _flatten(list(operands))):
            return _symbolic(self, operands)
        return self.call(*operands)

    def compute_output_shape(self, *args):
        raise NotImplementedError  # shapes come from probing (see ``_symbolic``)

    def get_config(self):
        return {"name": self.name}

    def __repr__(self):
        return f"<Operation name={self.name}>"


def _symbolic(op, operands):
    from .functional import KerasTensor, Node

    def probe(fill):
        def concrete(x):
            if not isinstance(x, KerasTensor):
                return x
            return convert_to_tensor(np.zeros(tuple(fill if d is None else d for d in x.shape), dtype=x.dtype))

        return op.call(*_map(concrete, list(operands)))

    one, two = probe(1), probe(2)

    def symbolic(a, b):
        shape = tuple(None if da != db else da for da, db in zip(a.shape.as_list(), b.shape.as_list()))
        return KerasTensor(shape, dtype=a.dtype.name)

    outputs = symbolic(one, two)
    Node(op, tuple(operands), {}, outputs)
    return outputs


def _binary(name, fn, cast="promote"):
    return type(name, (Operation,), {"_fn": staticmethod(fn), "_cast": cast,
                                     "__doc__": f"The ``{name}`` operation of a functional graph."})


def _floor_mod(tf, a, b):
    return tf.math.floormod(a, b)


OPERATIONS = {
    "Add": _binary("Add", lambda tf, a, b: tf.add(a, b)),
    "Subtract": _binary("Subtract", lambda tf, a, b: tf.subtract(a, b)),
    "Multiply": _binary("Multiply", lambda tf, a, b: tf.multiply(a, b)),
    "TrueDivide": _binary("TrueDivide", lambda tf, a, b: tf.divide(a, b), cast="float"),
    "FloorDivide": _binary("FloorDivide", lambda tf, a, b: tf.math.floordiv(a, b)),
    "Mod": _binary("Mod", _floor_mod),
    "Power": _binary("Power", lambda tf, a, b: tf.pow(a, b)),
    "Matmul": _binary("Matmul", lambda tf, a, b: tf.linalg.matmul(a, b)),
    "Less": _binary("Less", lambda tf, a, b: tf.less(a, b)),
    "LessEqual": _binary("LessEqual", lambda tf, a, b: tf.less_equal(a, b)),
    "Greater": _binary("Greater", lambda tf, a, b: tf.greater(a, b)),
    "GreaterEqual": _binary("GreaterEqual", lambda tf, a, b: tf.greater_equal(a, b)),
    "NotEqual": _binary("NotEqual", lambda tf, a, b: tf.not_equal(a, b)),
    "LogicalAnd": _binary("LogicalAnd", lambda tf, a, b: tf.logical_and(tf.cast(a, "bool"), tf.cast(b, "bool")),
                          cast=None),
    "LogicalOr": _binary("LogicalOr", lambda tf, a, b: tf.logical_or(tf.cast(a, "bool"), tf.cast(b, "bool")),
                         cast=None),
    "LogicalXor": _binary("LogicalXor", lambda tf, a, b: tf.math.logical_xor(tf.cast(a, "bool"),
                                                                             tf.cast(b, "bool")), cast=None),
    "Negative": _binary("Negative", lambda tf, a: tf.negative(a), cast=None),
    "Absolute": _binary("Absolute", lambda tf, a: tf.abs(a), cast=None),
    "LogicalNot": _binary("LogicalNot", lambda tf, a: tf.logical_not(tf.cast(a, "bool")), cast=None),
}


class GetItem(Operation):
    """Indexing and slicing (``x[:, 1:]``, ``x[..., 0]``, ``x[:, None]``) of a functional graph's tensor."""

    _cast = None

    def call(self, x, key):
        return x[key]


class Round(Operation):
    """``round(x)``: half to even, as Keras's ``ops.round``."""

    _cast = None

    def call(self, x):
        return _tf().round(x)


OPERATIONS["GetItem"] = GetItem
OPERATIONS["Round"] = Round


def _method(op_name, reflected=False):
    def method(self, other=None):
        op = OPERATIONS[op_name]()
        return op(other, self) if reflected else op(self, other)

    method.__name__ = op_name
    return method


def _unary(op_name):
    def method(self):
        return OPERATIONS[op_name]()(self)

    method.__name__ = op_name
    return method


def install_operators(cls):
    """Give ``cls`` (``KerasTensor``) Python's operators, each making an operation node."""
    binary = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "truediv": "TrueDivide", "floordiv": "FloorDivide",
              "mod": "Mod", "pow": "Power", "matmul": "Matmul", "and": "LogicalAnd", "or": "LogicalOr",
              "xor": "LogicalXor"}
    for dunder, op_name in binary.items():
        setattr(cls, f"__{dunder}__", _method(op_name))
        setattr(cls, f"__r{dunder}__", _method(op_name, reflected=True))
    for dunder, op_name in {"lt": "Less", "le": "LessEqual", "gt": "Greater", "ge": "GreaterEqual",
                            "ne": "NotEqual"}.items():
        setattr(cls, f"__{dunder}__", _method(op_name))
    for dunder, op_name in {"neg": "Negative", "abs": "Absolute", "invert": "LogicalNot"}.items():
        setattr(cls, f"__{dunder}__", _unary(op_name))
    cls.__getitem__ = lambda self, key: GetItem()(self, key)
    cls.__round__ = lambda self, ndigits=None: Round()(self)
    cls.__hash__ = object.__hash__

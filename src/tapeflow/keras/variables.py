"""Keras 3 variables: the optimizer's ``iterations`` and ``learning_rate`` are these, not ``tf.Variable``s."""

from __future__ import annotations

import numpy as np

from .._core import dtypes
from .._core.variable import Variable as _TFVariable

__all__ = ["Variable"]


class Variable(_TFVariable):
    """A Keras variable: a ``tf.Variable`` with a ``path`` (``"sgd/iteration"``) and Keras's ``repr``."""

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, name=None, path=None):
        super().__init__(initializer, trainable=trainable, name=name, dtype=dtype)
        self._keras_name = name
        self._path = path if path is not None else name

    @property
    def path(self) -> str:
        return self._path

    @property
    def name(self) -> str:
        return self._keras_name

    @property
    def value(self):
        return self._read()

    def __repr__(self):
        value = np.asarray(self._value)
        return (f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, "
                f"dtype={dtypes.dtype_of(value.dtype).name}, value={value}>")

    __str__ = __repr__

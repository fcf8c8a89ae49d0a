"""``WeakTensor``: a tensor whose dtype came from a Python value, in the "safe" and "all" conversion modes.

In those modes ``tf.constant(1.0)`` is a weak float32: it gives way to the other operand's dtype (weak float32 +
float16 tensor is float16) where a strong float32 would not. A weak tensor wraps an ordinary tensor and is not a
``tf.Tensor`` itself (``isinstance`` says no, ``tf.is_tensor`` yes), as in TF; ops convert it to its tensor, tapes
watch and differentiate its tensor (gradients for a weak source come back weak), and its ``repr`` says
``weak=True``. Its operators follow the current mode: flexible promotion in "safe" and "all", the tensor's own
operators otherwise (where, as in TF, "legacy" promotion cannot read a weak operand's dtype).
"""

from __future__ import annotations

import numpy as np

from ..._core import dtypes as _d
from ..._core.tensor import Tensor, convert_to_tensor
from ._config import STATE, auto_conversion

_ALLOWED = (_d.int32, _d.int64, _d.float32, _d.float64, _d.complex128)


class WeakTensor:
    """A weakly typed tensor (``tf.experimental.numpy`` "safe"/"all" modes): ``tensor`` plus weakness."""

    __slots__ = ("tensor",)
    _tapeflow_weak = True
    __array_priority__ = 100

    def __init__(self, tensor):
        if getattr(tensor, "_tapeflow_weak", False):
            tensor = tensor.tensor
        if tensor.dtype not in _ALLOWED:
            allowed = ", ".join(repr(d) for d in _ALLOWED)
            raise TypeError(f"{tensor.dtype} not allowed as a weak type. The allowed types are ({allowed}).")
        self.tensor = tensor

    def _tapeflow_to_tensor(self, dtype=None):
        return convert_to_tensor(self.tensor, dtype)

    # --- what it shows -------------------------------------------------------------------------------------
    @staticmethod
    def _text(text):
        return text[:-1] + ", weak=True" + text[-1]  # inside the closing ">" or ")"

    def __repr__(self):
        return self._text(repr(self.tensor))

    def __str__(self):
        return self._text(str(self.tensor))

    def __format__(self, format_spec):
        return f"{self.tensor.__format__(format_spec)} weakly typed"

    # --- the tensor's properties ---------------------------------------------------------------------------
    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def shape(self):
        return self.tensor.shape

    def __getattr__(self, name):
        return getattr(self.tensor, name)

    def to_tensor(self):
        """The (strong) tensor inside."""
        return self.tensor

    def numpy(self):
        return self.tensor.numpy()

    # --- Python protocols ----------------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return np.array(self.tensor.__array__(dtype))

    def __int__(self):
        return int(self.tensor)

    def __float__(self):
        return float(self.tensor)

    def __complex__(self):
        return complex(self.tensor)

    def __index__(self):
        return self.tensor.__index__()

    def __bool__(self):
        return bool(self.tensor)

    def __len__(self):
        return len(self.tensor)

    def __iter__(self):
        return (WeakTensor(self.tensor[i]) for i in range(len(self.tensor)))

    def __hash__(self):
        return hash(self.tensor)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getitem__(self, key):
        return Tensor.__getitem__(self.tensor, key)


EagerWeakTensor = type("EagerWeakTensor", (WeakTensor,), {"__slots__": (), "__module__": __name__,
                                                           "__doc__": WeakTensor.__doc__})


def weak(tensor):
    """``tensor`` as a weak tensor (TF's ``WeakTensor.from_tensor``)."""
    return EagerWeakTensor(tensor)


def strong(x):
    """``x`` without weakness: the tensor inside a weak tensor, anything else as it is."""
    return x.tensor if getattr(x, "_tapeflow_weak", False) else x


def weak_or_strong(t, to_weak):
    return EagerWeakTensor(t) if to_weak else strong(t)


def _operator(name):
    def apply(self, *args):
        if auto_conversion():
            from ._flexible_api import WEAK_OPERATORS

            return WEAK_OPERATORS[name](self, *args)
        if STATE.mode == "legacy":  # TF's legacy operators meet a weak operand they cannot read the dtype of
            return getattr(Tensor, name)(self, *args)
        return getattr(Tensor, name)(self.tensor, *[strong(a) for a in args])

    apply.__name__ = apply.__qualname__ = name
    return apply


OPERATOR_NAMES = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                  "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
                  "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
                  "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__abs__", "__invert__")

for _name in OPERATOR_NAMES:
    setattr(WeakTensor, _name, _operator(_name))


# The methods TF gives weak tensors are its wrapped NumPy functions: weak in, weak out, in the flexible modes.
_WEAK_PRESERVING = ("transpose", "flatten", "reshape", "ravel", "__round__", "max", "mean", "min")


def _preserving(method):
    def apply(self, *args, **kwargs):
        return weak_or_strong(method(self.tensor, *args, **kwargs), auto_conversion())

    return apply


def _on_tensor(method):
    def apply(self, *args, **kwargs):
        return method(self.tensor, *args, **kwargs)

    return apply


def _install_numpy_methods():
    """TF gives weak tensors NumPy's methods whatever the mode (they exist only in "safe" and "all" anyway)."""
    from ._behavior import numpy_methods

    for name, method in numpy_methods().items():
        if isinstance(method, property):
            continue  # ``T``, ``size``, ``ndim``, ``data`` below
        setattr(WeakTensor, name, (_preserving if name in _WEAK_PRESERVING else _on_tensor)(method))
    WeakTensor.T = property(lambda self: self.transpose())
    WeakTensor.size = property(lambda self: self.tensor.size if STATE.methods else np.prod(self.shape.as_list()))
    WeakTensor.ndim = property(lambda self: len(self.shape))
    WeakTensor.data = property(lambda self: self)
    WeakTensor.__pos__ = lambda self: self
    WeakTensor.tolist = lambda self: self.tensor._numpy().tolist()


_install_numpy_methods()

"""``experimental_enable_numpy_behavior``: NumPy's methods and indexing on tensors, and the dtype conversion mode.

The switch is process-wide, as in TF, and what it changes is installed rather than tested for: the methods and
NumPy-style ``__getitem__`` are put on the tensor class, the mode's operators replace the tensor's and variable's
own, and in "safe" and "all" the wrapped functions replace TF's in the ``tf`` namespaces (and ``tnp``'s). With NumPy
behavior off, tensors and functions are exactly what they were: the default path pays nothing for the switch.

TF cannot switch NumPy behavior off again (a later call may set the mode to "off"; the methods stay).
:func:`reset_numpy_behavior` undoes everything here; it is internal, for tests only.
"""

from __future__ import annotations

import sys

import numpy as np

import tapeflow as _tf

from ..._core.logs import get_logger
from ..._core.tensor import EagerTensor, Tensor
from ..._core.variable import Variable
from ._config import MODES, STATE

# The operators a mode replaces, and the tensor's and variable's own (taken once, before any replacement).
_OPERATOR_NAMES = [f"__{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or",
                                        "xor", "matmul")]
_OPERATOR_NAMES += [f"__r{n[2:]}" for n in _OPERATOR_NAMES] + ["__lt__", "__le__", "__gt__", "__ge__", "__eq__",
                                                               "__ne__"]
_ORIGINAL = {name: getattr(Tensor, name) for name in [*_OPERATOR_NAMES, "__neg__", "__abs__", "__invert__"]}
_ORIGINAL_VARIABLE = {name: Variable.__dict__.get(name) for name in _OPERATOR_NAMES}
_ORIGINAL_GETITEM = Tensor.__getitem__
_VARIABLE_UPDATES = ("assign", "assign_add", "assign_sub")
_ORIGINAL_UPDATES = {name: getattr(Variable, name) for name in _VARIABLE_UPDATES}
_SAVED_METHODS = {}
_SAVED_FUNCTIONS = []  # (module, name, original) of every namespace entry a flexible mode replaced

_WARNING = ("UserWarning: enabling the new type promotion must happen at the beginning of the program. Please "
            "ensure no TF APIs have been used yet.")


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give tensors NumPy's behavior (``tf.experimental.numpy.experimental_enable_numpy_behavior``).

    Tensors get NumPy's methods (``T``, ``reshape``, ``ravel``, ``astype``, ``clip``, ``max`` ... as TF 2.21 adds
    them) and NumPy's indexing (integer and boolean arrays as indices). ``dtype_conversion_mode`` decides how
    dtypes combine: "legacy" (NumPy's promotion in tensor operators), "safe" and "all" (TF's flexible table with
    weak Python types, in operators and TF's functions; "safe" refuses promotions that lose precision), or "off".
    ``prefer_float32`` makes Python floats float32 rather than float64 in NumPy's rules.

    Raises:
        ValueError: for an unknown mode (nothing is changed then).
    """
    if dtype_conversion_mode in ("safe", "all"):
        get_logger().warning(_WARNING)
    if dtype_conversion_mode not in MODES:
        raise ValueError(f"The provided promotion mode {dtype_conversion_mode} does not exist. Make sure the provided "
                         "dtype conversion mode is one of the followings: 'off', 'legacy', 'safe' or 'all'.")
    STATE.mode = dtype_conversion_mode
    _install_methods()
    STATE.prefer_float32 = bool(prefer_float32)
    _apply_mode()


def reset_numpy_behavior():
    """Undo ``experimental_enable_numpy_behavior`` entirely: mode "off", no ``prefer_float32``, tensors without
    NumPy's methods and indexing. Internal (TF has no such thing): tests use it to leave the process as they found
    it."""
    STATE.mode = "off"
    STATE.prefer_float32 = False
    _apply_mode()
    for name, saved in _SAVED_METHODS.items():
        if saved is None:
            delattr(EagerTensor, name)
        else:
            setattr(EagerTensor, name, saved)
    _SAVED_METHODS.clear()
    Tensor.__getitem__ = _ORIGINAL_GETITEM
    STATE.methods = False


# --------------------------------------------------------------------------------------------- methods


def _size(self):
    return np.prod(self.shape.as_list())


def numpy_methods():
    """The methods TF 2.21 gives tensors with NumPy behavior, by name."""
    from . import _math, _reductions, _shapes, _unary

    return {"T": property(lambda self: self.transpose()), "size": property(_size), "data": property(lambda self: self),
            "ndim": property(lambda self: len(self.shape)), "__pos__": lambda self: self,
            "tolist": lambda self: self._numpy().tolist(), "transpose": _shapes.transpose,
            "flatten": _shapes.flatten, "reshape": _shapes.reshape_method, "ravel": _shapes.ravel,
            "clip": _math.clip, "astype": _tf.cast, "__round__": _unary.around, "max": _reductions.amax,
            "mean": _reductions.mean, "min": _reductions.amin}


def _install_methods():
    if STATE.methods:
        return
    from ._indexing import numpy_getitem

    for name, method in numpy_methods().items():
        _SAVED_METHODS[name] = EagerTensor.__dict__.get(name)
        setattr(EagerTensor, name, method)
    Tensor.__getitem__ = numpy_getitem
    STATE.methods = True


# --------------------------------------------------------------------------------------------- modes


def _apply_mode():
    """Put the current mode's operators and functions in place (the default ones for "off")."""
    from . import _flexible_api, _legacy

    _restore_functions()
    _flexible_api.WEAK_OPERATORS.clear()
    if STATE.mode == "legacy":
        _set_operators(_legacy.operators(_ORIGINAL))
    elif STATE.mode in ("safe", "all"):
        tensor_ops, weak_ops = _flexible_api.operators(_ORIGINAL)
        _flexible_api.WEAK_OPERATORS.update(weak_ops)
        _set_operators(tensor_ops)
        _wrap_functions()
    else:
        _set_operators({})


def _set_operators(table):
    for name in _OPERATOR_NAMES:
        setattr(Tensor, name, table.get(name, _ORIGINAL[name]))
        if name in table:
            setattr(Variable, name, _on_read(name))
        elif _ORIGINAL_VARIABLE[name] is not None:
            setattr(Variable, name, _ORIGINAL_VARIABLE[name])


def _on_read(name):
    def apply(self, other):
        return getattr(Tensor, name)(self._read(), other)

    apply.__name__ = apply.__qualname__ = name
    return apply


def _replace(module, name, wrapper):
    _SAVED_FUNCTIONS.append((module, name, getattr(module, name)))
    setattr(module, name, wrapper)


def _restore_functions():
    program = sys.modules.get("tapeflow.compiler.program")  # (loaded with tf.function: nothing set before)
    if program is not None:
        program.OUTPUT_CONVERSION = None
    while _SAVED_FUNCTIONS:
        module, name, original = _SAVED_FUNCTIONS.pop()
        setattr(module, name, original)
    for name, method in _ORIGINAL_UPDATES.items():
        setattr(Variable, name, method)


def _wrap_functions():
    import tapeflow.experimental.numpy as tnp

    from . import _flexible_api as api
    from ._wrapped import BINARY, COMPARISONS, NUMPY_BINARY, NUMPY_UNARY, UNARY

    made = {}
    for path, qual in [*((p, q) for p, q in UNARY.items()), *((p, q) for p, q in BINARY.items()),
                       *((p, q) for p, q in COMPARISONS.items())]:
        module, _, name = path.rpartition(".")
        module = _tf if not module else getattr(_tf, module)
        fn = getattr(module, name, None)
        if fn is None:
            continue
        wrapper = made.get(id(fn))
        if wrapper is None:
            if path in UNARY:
                wrapper = api.unary_wrapper(fn, qual)
            else:
                wrapper = api.binary_wrapper(fn, qual, comparison=path in COMPARISONS)
            made[id(fn)] = wrapper
        _replace(module, name, wrapper)
    _replace(_tf, "constant", api.constant_wrapper(_tf.constant))
    for name, qual in NUMPY_UNARY.items():
        _replace(tnp, name, api.unary_wrapper(getattr(tnp, name), qual))
    for name, qual in NUMPY_BINARY.items():
        _replace(tnp, name, api.binary_wrapper(getattr(tnp, name), qual))
    for name, method in _ORIGINAL_UPDATES.items():
        setattr(Variable, name, api.variable_method(method, name))
    # A traced function's Python results become tensors through TF's wrapped conversion: weak for Python numbers.
    from ...compiler import program

    program.OUTPUT_CONVERSION = api.unary_wrapper(
        _tf.convert_to_tensor, "tensorflow.python.framework.ops.convert_to_tensor_or_composite")

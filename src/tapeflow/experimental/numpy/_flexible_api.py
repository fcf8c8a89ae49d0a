"""The "safe" and "all" conversion modes on TF's API: the functions TF wraps promote by the flexible table and give
weak results for weak inputs; ``tf.constant`` makes weak tensors from Python values; variables refuse a value that
would change their dtype.

A binary function promotes both operands to their flexible result type (a ``TypeError`` when "safe" forbids it) and
returns a weak tensor when that type is weak; comparisons (``maximum``, ``minimum``, ``equal``) never return weak
tensors. A unary function leaves a tensor argument alone and makes others (Python values, weak tensors) into their
flexible dtype, weak in, weak out. Operands outside the table (strings with numbers) fall back to the old rules
with TF's warning. These wrappers replace the namespace entries only while such a mode is on.
"""

from __future__ import annotations

import functools
import inspect

import tapeflow as _tf

from ..._core import dtypes as _dtypes
from ..._core.errors import OpError, without_name
from ..._core.logs import get_logger
from ..._core.tensor import Tensor
from ._flexible import result_type
from ._weak import strong, weak_or_strong

_TF = "tensorflow.python"


def _type_name(value):
    """The class TF's warning names: TF's own for tensors and dtypes."""
    if isinstance(value, Tensor):
        return "<class 'tensorflow.python.framework.ops.EagerTensor'>"
    if isinstance(value, _dtypes.DType):
        return "<class 'tensorflow.python.framework.dtypes.DType'>"
    return str(type(value))


def _fallback_warning(qualname, *args):
    kinds = ", ".join(_type_name(a) for a in args)
    get_logger().warning(f"The new dtype semantics do not support {qualname}({kinds}). Falling back to old "
                         "semantics.")


def _is_string(x):
    dtype = getattr(x, "dtype", None)
    return isinstance(x, (str, bytes)) or (dtype is not None and dtype == _tf.string)


def convert_or_cast(x, dtype):
    """``x`` as a strong tensor of ``dtype``: tensors and variables cast, other values converted."""
    x = strong(x)
    if isinstance(x, Tensor) or getattr(x, "_tapeflow_variable", False):
        return _tf.cast(x, dtype)
    return _tf.convert_to_tensor(x, dtype)


def binary_call(fn, x, y, qualname, comparison=False, **kwargs):
    """``fn(x, y)`` with both promoted by the flexible table; weak when the result type is (and not a comparison)."""
    try:
        dtype, weak = result_type(x, y)
    except NotImplementedError:
        _fallback_warning(qualname, x, y)
        if _is_string(x) and not _is_string(y) and not hasattr(y, "dtype"):
            # The old rules convert the number towards the string dtype first: TF's constant wrapper warns too.
            _fallback_warning(f"{_TF}.framework.constant_op.constant", y, _tf.string)
        return fn(strong(x), strong(y), **kwargs)
    out = fn(convert_or_cast(x, dtype), convert_or_cast(y, dtype), **kwargs)
    return weak_or_strong(out, weak and not comparison)


def unary_call(fn, signature, args, kwargs, qualname):
    """``fn(*args, **kwargs)``, its first argument made a tensor of its flexible dtype unless it is a tensor already
    or a ``dtype`` is asked for; weak in, weak out."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    arguments = bound.arguments
    first = next(iter(arguments))
    x = arguments[first]
    if isinstance(x, Tensor) or arguments.get("dtype") is not None:
        return fn(*bound.args, **bound.kwargs)
    try:
        dtype, weak = result_type(x)
    except NotImplementedError:
        _fallback_warning(qualname, x)
        return fn(*bound.args, **bound.kwargs)
    arguments[first] = convert_or_cast(x, dtype)
    return weak_or_strong(fn(*bound.args, **bound.kwargs), weak)


def unary_wrapper(fn, qualname):
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return unary_call(fn, signature, args, kwargs, qualname)

    return wrapper


def binary_wrapper(fn, qualname, comparison=False):
    signature = inspect.signature(fn)
    names = list(signature.parameters)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        arguments = dict(bound.arguments)
        x, y = arguments.pop(names[0]), arguments.pop(names[1])
        return binary_call(lambda a, b, **rest: fn(a, b, **rest), x, y, qualname, comparison, **arguments)

    return wrapper


def constant_wrapper(fn):
    """``tf.constant`` in the flexible modes: weak from Python values, strong with a ``dtype`` (which the value
    must reach in a promotion the mode allows)."""
    @functools.wraps(fn)
    def constant(value, dtype=None, shape=None, name="Const"):
        try:
            target, weak = result_type(value, dtype)
        except NotImplementedError:
            _fallback_warning(f"{_TF}.framework.constant_op.constant", value, dtype)
            return fn(strong(value), dtype, shape, name)
        value = strong(value)
        if dtype is not None:
            if target != _tf.as_dtype(dtype):
                return fn(value, dtype, shape, name)
            if isinstance(value, Tensor):
                value = convert_or_cast(value, target)
            return fn(value, dtype, shape, name)
        return weak_or_strong(fn(value, target, shape, name), weak)

    return constant


def variable_method(method, op_name):
    """``assign``, ``assign_add``, ``assign_sub`` in the flexible modes: the value must promote to the variable's
    own dtype."""
    @functools.wraps(method)
    def update(self, value, *args, **kwargs):
        try:
            target, _ = result_type(self, value)
        except NotImplementedError:
            _fallback_warning(f"{_TF}.ops.resource_variable_ops.{op_name}", self, value)
            return method(self, value, *args, **kwargs)
        if target != self.dtype:
            raise TypeError(f"Variable dtype is immutable. Calling {op_name} of Variable (with dtype {self.dtype}) on "
                            f"{value} requires converting {value} to {self.dtype}. This is disabled in the current "
                            f"promotion semantics. Please convert {value} manually before calling {op_name}.")
        return method(self, convert_or_cast(value, target), *args, **kwargs)

    return update


# --------------------------------------------------------------------------------------------- operators

# What each arithmetic operator runs in TF under these modes (named in the fallback warning).
_OPERATOR_FUNCTIONS = {"add": "ops.math_ops.add", "sub": "ops.gen_math_ops.sub", "mul": "ops.math_ops.multiply",
                       "truediv": "ops.math_ops._truediv_python3", "floordiv": "ops.gen_math_ops.floor_div",
                       "mod": "ops.gen_math_ops.floor_mod", "pow": "ops.gen_math_ops._pow",
                       "matmul": "ops.math_ops.matmul"}


def _constant_check(value, dtype):
    """TF converts a Python operand of a weak tensor's comparison through its wrapped ``tf.constant``: a
    promotion the mode forbids is its TypeError."""
    if isinstance(value, Tensor) or getattr(value, "_tapeflow_weak", False) or hasattr(value, "dtype"):
        return
    try:
        result_type(value, dtype)
    except NotImplementedError:
        _fallback_warning(f"{_TF}.framework.constant_op.constant", value, dtype)


def operators(original):
    """``(tensor operators, weak tensor operators)`` for the flexible modes, by dunder name."""
    from ...ops.operators import _reflect

    tensor_ops, weak_ops = {}, {}
    for name, qual in _OPERATOR_FUNCTIONS.items():
        forward = original[f"__{name}__"]
        qualname = f"{_TF}.{qual}"

        def promoted(self, other, _f=forward, _n=name, _q=qualname):
            try:
                return binary_call(_f, self, other, _q)
            except (TypeError, ValueError) as exc:
                return _reflect(_n, self, other, exc)

        def reflected(self, other, _f=forward, _q=qualname):
            return binary_call(_f, other, self, _q)

        tensor_ops[f"__{name}__"] = weak_ops[f"__{name}__"] = promoted
        tensor_ops[f"__r{name}__"] = weak_ops[f"__r{name}__"] = reflected

    def equal(self, other):
        if other is None:
            return False
        return binary_call(original["__eq__"], self, other, f"{_TF}.ops.gen_math_ops.equal", comparison=True)

    tensor_ops["__eq__"] = weak_ops["__eq__"] = equal
    for name in ("and", "or", "xor"):
        for dunder in (f"__{name}__", f"__r{name}__"):
            weak_ops[dunder] = functools.partial(_on_tensor, original[dunder])
    weak_ops["__ne__"] = functools.partial(_on_tensor, original["__ne__"])
    for name in ("lt", "le", "gt", "ge"):
        weak_ops[f"__{name}__"] = functools.partial(_compare_weak, original[f"__{name}__"])
    for name in ("neg", "abs", "invert"):
        weak_ops[f"__{name}__"] = functools.partial(_unary_weak, original[f"__{name}__"])
    return tensor_ops, weak_ops


def _on_tensor(fn, self, other):
    # A weak operand sends TF's op down its slow path, whose errors have no `` name: `` suffix.
    try:
        return fn(strong(self), strong(other))
    except OpError as exc:
        raise without_name(exc) from None


def _compare_weak(fn, self, other):
    _constant_check(other, self.dtype)
    return _on_tensor(fn, self, other)


def _unary_weak(fn, self):
    return weak_or_strong(fn(strong(self)), True)


WEAK_OPERATORS = {}  # filled while a flexible mode is on (``_behavior``)

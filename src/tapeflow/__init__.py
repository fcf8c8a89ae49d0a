"""tapeflow: TensorFlow's GradientTape automatic differentiation, rebuilt in pure Python on NumPy.

Swap ``import tensorflow as tf`` for ``import tapeflow as tf``: tensors, variables, tapes and gradients behave
as in TensorFlow 2.21, with the same values, dtypes, ``None`` gradients and errors.
"""

import importlib as _importlib

from . import _core, autodiff, debugging, dtypes, linalg, math, nest, nn, random
from ._core import custom_gradient as _custom_gradient  # noqa: F401 - its @export lines publish tf.custom_gradient
from ._core import errors
from ._core import exports as _exports
from ._core import provenance as _provenance  # noqa: F401 - the provenance log listens from import on
from ._core.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from ._core.dtypes import bool_ as bool  # noqa: A001 - TF's name
from ._core.logs import get_logger
from ._core.module import Module
from ._core.shape import TensorShape
from ._core.state import STATE as _STATE
from ._core.tape import GradientTape, UnconnectedGradients
from ._core.tensor import Tensor, constant, convert_to_tensor, is_tensor
from ._core.tensor_spec import TensorSpec
from ._core.variable import Variable, VariableAggregation, VariableSynchronization, name_scope
from .ops import operators as _operators
from .ops.array_ops import (
    broadcast_to,
    cast,
    fill,
    identity,
    ones,
    ones_like,
    range,
    rank,
    reshape,
    shape,
    size,
    stack,
    stop_gradient,
    transpose,
    unstack,
    where,
    zeros,
    zeros_like,
)
from .ops.linalg_ops import matmul, norm
from .ops.math_ops import (
    abs,
    add,
    divide,
    equal,
    exp,
    floor,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    realdiv,
    round,
    sigmoid,
    sign,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)
from .ops.reduction_ops import argmax, argmin, reduce_max, reduce_mean, reduce_min, reduce_sum

__version__ = "0.1.0"
newaxis = None
half, double = float16, float64


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """Graph-mode symbolic gradients: not available in eager execution, as in TensorFlow 2."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                       "instead.")


def executing_eagerly():
    """Whether ops run eagerly here: ``False`` while ``tf.function`` traces a function, else ``True``."""
    return _STATE.tracer is None


def device(device_name):
    """A scope for ops TF would place on ``device_name``; every op runs on the CPU here (``tf.device``)."""
    from ._core.devices import device as scope

    return scope(device_name)


def init_scope():
    """A context whose ops run once, eagerly, outside the function being traced (``tf.init_scope``); outside a
    trace it changes nothing."""
    from .compiler.trace import init_scope as scope

    return scope()


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Trace ``func`` per input signature and run the traced program after that (``tf.function``).

    Used as ``@tf.function``, ``@tf.function(...)`` or ``tf.function(f, ...)``; see
    :func:`tapeflow.compiler.tf_function.function` (loaded on first use).
    """
    from .compiler.tf_function import function as traced

    return traced(func, input_signature, autograph, jit_compile, reduce_retracing, experimental_implements,
                  experimental_autograph_options, experimental_attributes, experimental_relax_shapes,
                  experimental_compile, experimental_follow_type_hints)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` on every element of ``elems`` at once, by batching its traced graph (``tf.vectorized_map``); see
    :func:`tapeflow.compiler.vectorize.vectorized_map` (loaded on first use)."""
    from .compiler.vectorize import vectorized_map as batched

    return batched(fn, elems, fallback_to_while_loop, warn)


_exports.install(globals(), "")  # last: every name above is listed in __all__ with the exported ones

# ``tf.keras``, ``tf.train``, ``tf.test`` and tapeflow's own ``tapeflow.debug`` are imported on first use, as
# TensorFlow loads Keras lazily: a program that only differentiates never pays for them at ``import tapeflow``.
_LAZY_NAMESPACES = ("keras", "train", "test", "debug", "data", "config", "autograph", "io", "sparse", "strings",
                    "ragged", "experimental", "summary", "onnx", "saved_model", "distribute")


def __getattr__(name):
    if name in _LAZY_NAMESPACES:
        module = _importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMESPACES))

"""``tf.keras.regularizers``: Keras 3's weight penalties (L1, L2, L1L2, OrthogonalRegularizer), ``get``,
``serialize`` and ``deserialize``.

A regularizer is called on a tensor and returns a scalar penalty of the tensor's dtype, built from tapeflow ops so
that GradientTape differentiates it. Factors are stored as Python floats (``L1`` and ``OrthogonalRegularizer`` keep
a float32 tensor, as Keras does, so their configs show the float32 value) and are cast to the input's dtype the way
``tf.cast`` casts a Python float: through float32.
"""

from __future__ import annotations

import inspect
import math

from .._core.tensor import convert_to_tensor
from ..ops.array_ops import cast, transpose
from ..ops.construct_ops import eye
from ..ops.linalg_ops import matmul
from ._state import to_snake_case
from .initializers import deserialize_object, serialize_object

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "orthogonal_regularizer", "get", "serialize", "deserialize"]


def _tf():
    import tapeflow  # the package is complete by the time a regularizer runs

    return tapeflow


def validate_float_arg(value, name):
    """``float(value)`` for a finite non-negative int or float.

    Raises:
        ValueError: Keras's message otherwise.
    """
    if not isinstance(value, (float, int)) or math.isinf(value) or math.isnan(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


def _sum_abs(x):
    tf = _tf()
    return tf.reduce_sum(tf.abs(x))


def _sum_square(x):
    tf = _tf()
    return tf.reduce_sum(tf.square(x))


class Regularizer:
    """Base class of Keras regularizers: ``__call__(x)`` returns the penalty (``0.0`` here)."""

    def __call__(self, x):
        """The penalty for ``x``."""
        return 0.0

    @classmethod
    def from_config(cls, config):
        """A new regularizer from ``get_config()``'s output."""
        return cls(**config)

    def get_config(self):
        """The constructor arguments (subclasses must define it).

        Raises:
            NotImplementedError: on the base class, as in Keras.
        """
        raise NotImplementedError(f"{self} does not implement get_config()")


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``; a zero factor's term is left out (``None`` counts as zero)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = validate_float_arg(0.0 if l1 is None else l1, name="l1")
        self.l2 = validate_float_arg(0.0 if l2 is None else l2, name="l2")

    def __call__(self, x):
        penalty = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1 != 0.0:
            penalty += cast(self.l1, x.dtype) * _sum_abs(x)
        if self.l2 != 0.0:
            penalty += cast(self.l2, x.dtype) * _sum_square(x)
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """``l1 * sum(|x|)``; ``l1`` is kept as a float32 tensor (its config shows the float32 value)."""

    def __init__(self, l1=0.01):
        self.l1 = convert_to_tensor(validate_float_arg(0.01 if l1 is None else l1, name="l1"))

    def __call__(self, x):
        return cast(self.l1, x.dtype) * _sum_abs(x)

    def get_config(self):
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """``l2 * sum(x**2)``."""

    def __init__(self, l2=0.01):
        self.l2 = validate_float_arg(0.01 if l2 is None else l2, name="l2")

    def __call__(self, x):
        return cast(self.l2, x.dtype) * _sum_square(x)

    def get_config(self):
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """``factor`` times the mean absolute cosine between distinct rows (``mode="rows"``) or columns of a matrix.

    ``factor`` is a float32 tensor, as in Keras: inputs of another float dtype fail in the final product.
    """

    def __init__(self, factor=0.01, mode="rows"):
        validate_float_arg(factor, name="factor")
        self.factor = convert_to_tensor(factor)
        if mode not in {"rows", "columns"}:
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                             f"Received: mode={mode}")
        self.mode = mode

    def __call__(self, inputs):
        tf = _tf()
        if len(inputs.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={inputs.shape}")
        axis = 1 if self.mode == "rows" else 0
        inputs = convert_to_tensor(inputs)
        # Keras's L2 normalization: x * min(rsqrt(sum(x**2)), 1 / epsilon), epsilon = 1e-7
        inv_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(inputs), axis=axis, keepdims=True))
        inputs = inputs * tf.minimum(inv_norm, cast(1.0 / 1e-7, inputs.dtype))
        if self.mode == "rows":
            product = matmul(inputs, transpose(inputs))
            size = inputs.shape[0]
        else:
            product = matmul(transpose(inputs), inputs)
            size = inputs.shape[1]
        off_diagonal = product * (1.0 - eye(size, dtype=inputs.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * tf.reduce_sum(tf.abs(off_diagonal)) / num_pairs

    def get_config(self):
        return {"factor": float(self.factor), "mode": self.mode}


# Keras's snake_case names for the same classes.
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

_CLASSES = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})  # "l1l2", not "l1_l2"


def serialize(regularizer):
    """The regularizer as Keras's config dict: ``{"module", "class_name", "config", "registered_name"}``."""
    return serialize_object(regularizer, "keras.regularizers")


def deserialize(config, custom_objects=None):
    """A regularizer from :func:`serialize`'s dict or a name (an unknown name comes back unchanged)."""
    return deserialize_object(config, ALL_OBJECTS_DICT, custom_objects)


def get(identifier):
    """A regularizer from a class name or its snake_case (``"l1"``, ``"l1l2"``: default factors), a config dict,
    a class (instantiated) or a callable (returned as is).

    Raises:
        ValueError: ``Could not interpret regularizer identifier: ...`` for anything else.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")

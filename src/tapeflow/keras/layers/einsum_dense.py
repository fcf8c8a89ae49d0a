"""Keras 3's ``EinsumDense``: ``activation(einsum(equation, inputs, kernel) + bias)``, the kernel and bias
shapes worked out from the equation, the input shape and the partial ``output_shape``.

Equations take one of Keras's three forms: ``ab,bc->ac``, ``...ab,bc->...ac`` or ``ab...,bc->ac...``. LoRA and
quantization (``lora_rank``, ``quantization_config``) are not implemented, so those arguments are not accepted.
"""

from __future__ import annotations

import re

from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import InputSpec, Layer
from .core import _kernel_bias_from_config, _ser_constraint, _ser_init, _ser_reg

__all__ = ["EinsumDense"]


def _analyze_equation(equation, bias_axes, input_shape, output_shape):
    """``(kernel_shape, bias_shape or None, full_output_shape)`` for ``equation`` (Keras's rules and errors)."""
    dotted = equation.replace("...", "0")
    for pattern, left_elided in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
                                 ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
                                 ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False)):
        match = re.match(pattern, dotted)
        if match:
            return _analyze_split(*match.groups(), bias_axes, input_shape, output_shape, left_elided)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], "
                     "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze_split(input_spec, weight_spec, output_spec, bias_axes, input_shape, output_shape, left_elided):
    input_shape = list(input_shape)
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        # The elided axes after the batch axis come right after it in the output.
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_map = {dim: i + elided - len(input_shape) for i, dim in enumerate(input_spec)}
        output_map = {dim: i + elided for i, dim in enumerate(output_spec)}
    else:
        input_map = {dim: i for i, dim in enumerate(input_spec)}
        output_map = {dim: i for i, dim in enumerate(output_spec)}
    for dim in input_spec:
        in_dim = input_shape[input_map[dim]]
        if dim in output_map and output_shape[output_map[dim]] is not None \
                and output_shape[output_map[dim]] != in_dim:
            raise ValueError(f"Input shape and output shape do not match at shared dimension '{dim}'. Input shape "
                             f"is {in_dim}, and output shape is {output_shape[output_map[dim]]}.")
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            # Keras names the output spec twice in this message.
            raise ValueError(f"Dimension '{dim}' was specified in the output '{output_spec}' but has no "
                             f"corresponding dim in the input spec '{input_spec}' or weight spec '{output_spec}'")
    kernel_shape = []
    for dim in weight_spec:
        if dim in output_map:
            kernel_shape.append(output_shape[output_map[dim]])
        elif dim in input_map:
            kernel_shape.append(input_shape[input_map[dim]])
        else:
            raise ValueError(f"Weight dimension '{dim}' did not have a match in either the input spec "
                             f"'{input_spec}' or the output spec '{output_spec}'. For this layer, the weight must "
                             "be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {char: output_shape[i + offset] for i, char in enumerate(output_spec)}
        for char in bias_axes:
            if char not in output_spec:
                raise ValueError(f"Bias dimension '{char}' was requested, but is not part of the output spec "
                                 f"'{output_spec}'")
        first = min(output_spec.find(char) for char in bias_axes)
        bias_shape = [sizes[char] if char in bias_axes else 1 for char in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, output_shape


class EinsumDense(Layer):
    """A dense layer written as an einsum: ``kernel`` has the weight spec's axes, ``bias`` (when ``bias_axes``
    names output axes) broadcasts against the output from the first biased axis on.

    Args:
        equation: ``"ab,bc->ac"``-style equation (input, kernel, output), optionally with ``...`` for extra axes.
        output_shape: the output shape without the batch axis and elided axes (an int for one axis; ``None``
            entries are taken from the input).
        activation, bias_axes, kernel_/bias_ initializer, regularizer, constraint: as in Keras.

    Raises:
        ValueError: at build time, for an equation or shapes Keras rejects (Keras's messages).
    """

    _promotes_integer_inputs = True  # Keras's ops promote integer inputs against the float weights

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = _activations.get(activation)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.kernel = None
        self.bias = None

    def build(self, input_shape):
        kernel_shape, bias_shape, _ = _analyze_equation(self.equation, self.bias_axes, input_shape,
                                                        self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        self.kernel = self.add_weight(name="kernel", shape=tuple(kernel_shape), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        if bias_shape is not None:
            self.bias = self.add_weight(name="bias", shape=tuple(bias_shape), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def call(self, inputs, training=None):
        import tapeflow as tf

        x = tf.einsum(self.equation, inputs, self.kernel.value)
        if self.bias is not None:
            x = tf.add(x, self.bias.value)
        if self.activation is not None:
            x = self.activation(x)
        return x

    def compute_output_shape(self, input_shape):
        """The full output shape for ``input_shape``."""
        return tuple(_analyze_equation(self.equation, self.bias_axes, input_shape, self.partial_output_shape)[2])

    def get_config(self):
        return {**super().get_config(), "output_shape": self.partial_output_shape, "equation": self.equation,
                "activation": _activations.serialize(self.activation), "bias_axes": self.bias_axes,
                "kernel_initializer": _ser_init(self.kernel_initializer),
                "bias_initializer": _ser_init(self.bias_initializer),
                "kernel_regularizer": _ser_reg(self.kernel_regularizer),
                "bias_regularizer": _ser_reg(self.bias_regularizer),
                "activity_regularizer": _ser_reg(self.activity_regularizer),
                "kernel_constraint": _ser_constraint(self.kernel_constraint),
                "bias_constraint": _ser_constraint(self.bias_constraint), "quantization_config": None}

    @classmethod
    def from_config(cls, config):
        config = _kernel_bias_from_config(config)
        config.pop("quantization_config", None)
        return cls(**config)

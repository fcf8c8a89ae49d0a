"""``tf.keras.Sequential``: a stack of layers.

An ``Input(shape)`` (the functional API's symbolic tensor, see ``functional.py``) as first item fixes the input
shape, so the model is built up front. Sequential models are built from it, from a first
layer's ``input_shape``, or from the first batch they are called on; building runs a one-sample zero batch through
the layers (in inference mode) so every layer makes its weights and knows its output shape.
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import convert_to_tensor
from ..layers.base import Layer
from .functional import InputLayer, KerasTensor
from .model import Model

__all__ = ["Sequential"]


class Sequential(Model):
    """A stack of layers, each called on the previous one's output.

    Args:
        layers: the initial layers (an ``Input``, an ``InputLayer`` and layers).
        trainable: whether the layers train.
        name: the model's name (``sequential``, ``sequential_1``, ... by default).
    """

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        object.__setattr__(self, "_input_layer", None)
        self._layers = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build()

    @property
    def layers(self):
        """The layers (the input layer is not listed)."""
        return list(self._layers)

    def add(self, layer, rebuild=True):
        """Append ``layer`` (an ``Input`` tensor or ``InputLayer`` may only come first).

        Raises:
            ValueError: for a non-layer or a second input, with Keras's messages.
        """
        if isinstance(layer, KerasTensor) and isinstance((layer._keras_history or (None,))[0], InputLayer):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise ValueError("Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        if isinstance(layer, InputLayer):
            if self._input_layer is not None or self._layers:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                                 f"{self._input_shape()}. You cannot add a different Input layer to it.")
            object.__setattr__(self, "_input_layer", layer)
        else:
            if any(layer.name == other.name for other in self._layers):
                raise ValueError("All layers added to a Sequential model should have unique names. Name "
                                 f"'{layer.name}' is already the name of a layer in this model. Update the `name` "
                                 "argument to pass a unique name.")
            self._layers.append(layer)
        if rebuild:
            self._maybe_build()

    def pop(self, rebuild=True):
        """Remove and return the last layer.

        Raises:
            TypeError: when the model has no layers (Keras's message).
        """
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        layer = self._layers.pop()
        self.built = False
        if rebuild:
            self._maybe_build()
        return layer

    def _input_shape(self):
        if self._input_layer is not None:
            return self._input_layer.batch_shape
        if self._layers and getattr(self._layers[0], "_input_shape_arg", None) is not None:
            return (None, *tuple(self._layers[0]._input_shape_arg))
        return None

    def _maybe_build(self):
        shape = self._input_shape()
        if shape is not None and self._layers:
            self.build(shape)

    def build(self, input_shape=None):
        """Build every layer by running a one-sample zero batch of ``input_shape`` through the stack."""
        input_shape = tuple(input_shape)
        dtype = self._input_layer.dtype if self._input_layer is not None else "float32"
        x = convert_to_tensor(np.zeros((1, *(1 if d is None else d for d in input_shape[1:])), dtype=dtype))
        for layer in self._layers:
            x = layer(x, training=False)
            layer._output_shape_for_summary = (input_shape[0], *x.shape.as_list()[1:])
        self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, training=None, mask=None):
        if not self._layers:
            raise ValueError(f"Sequential model {self.name} has no layers: add layers before calling it.")
        x = inputs
        for layer in self._layers:
            x = layer(x, training=training) if layer._call_has_training_arg else layer(x)
        return x

    def __call__(self, *args, **kwargs):
        if not self.built and args and hasattr(args[0], "shape"):
            shape = tuple(args[0].shape.as_list()) if hasattr(args[0].shape, "as_list") else tuple(np.shape(args[0])) \
                if not isinstance(args[0], KerasTensor) else args[0].shape
            self.build((None, *shape[1:]))
        return super().__call__(*args, **kwargs)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable,
                "layers": [{"class_name": type(layer).__name__, "config": layer.get_config()}
                           for layer in ([self._input_layer] if self._input_layer else []) + self._layers]}

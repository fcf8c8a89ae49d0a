"""``tf.keras.Sequential``: a stack of layers, run as a functional graph once its input shape is known.

As in Keras 3, a Sequential model is built from an ``Input`` (or ``InputLayer``) given first, from a first layer's
``input_shape``, by ``build(input_shape)``, or by its first call (from the shape of that batch, batch size
included). Building calls the layers on a symbolic input (``functional.py``), so every layer makes its weights and
its output shape is known with unknown sizes kept unknown (``None``), and keeps the resulting functional model:
``inputs``, ``outputs``, ``input_shape``, ``output_shape`` and ``summary()`` come from it, and calling the model
converts the input to its ``Input``'s dtype first (integer and ``uint8`` data become float32), as Keras does.
"""

from __future__ import annotations

from ..._core.dtypes import as_dtype
from ..layers.base import Layer, build_shape
from ..variables import standardize_shape
from .functional import Functional, InputLayer, KerasTensor
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
        object.__setattr__(self, "_functional", None)
        self._layers = []
        if layers:
            for layer in layers:
                self.add(layer, rebuild=False)
            self._maybe_rebuild()

    @property
    def layers(self):
        """The layers (the input layer is not listed)."""
        return list(self._layers)

    def add(self, layer, rebuild=True):
        """Append ``layer`` (an ``Input`` tensor or ``InputLayer`` may only come first); a first layer given an
        ``input_shape`` adds the ``InputLayer`` for it.

        Raises:
            ValueError: for a non-layer, a duplicate name or a second input, with Keras's messages.
        """
        if self._input_layer is None and not self._layers and getattr(layer, "_input_shape_arg", None) is not None:
            self.add(InputLayer(shape=layer._input_shape_arg), rebuild=False)
        if isinstance(layer, KerasTensor) and isinstance((layer._keras_history or (None,))[0], InputLayer):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise ValueError("Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        if any(layer.name == other.name and layer is not other for other in self._all_layers()):
            raise ValueError("All layers added to a Sequential model should have unique names. Name "
                             f"'{layer.name}' is already the name of a layer in this model. Update the `name` "
                             "argument to pass a unique name.")
        if isinstance(layer, InputLayer):
            if self._input_layer is not None:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                                 f"{self._input_layer.batch_shape}. You cannot add a different Input layer to it.")
            object.__setattr__(self, "_input_layer", layer)
        else:
            self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self._unbuild()

    def pop(self, rebuild=True):
        """Remove and return the last layer.

        Raises:
            TypeError: when the model has no layers (Keras's message).
        """
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        layer = self._layers.pop()
        self._unbuild()
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _all_layers(self):
        return ([self._input_layer] if self._input_layer is not None else []) + self._layers

    def _unbuild(self):
        self.built = False
        object.__setattr__(self, "_functional", None)

    def _maybe_rebuild(self):
        self._unbuild()
        if not self._layers:
            return
        if self._input_layer is not None:
            self.build(self._input_layer.batch_shape)
        elif len(self._layers) > 1 and _input_shape_or_none(self._layers[0]) is not None:
            # A first layer that is itself a built model knows the input shape.
            self.build(_input_shape_or_none(self._layers[0]))

    def build(self, input_shape=None):
        """Build every layer by calling it on a symbolic input of ``input_shape`` (with its batch size).

        Raises:
            ValueError: for a model without layers, or an ``input_shape`` other than the one its ``Input`` fixed
                (Keras's messages).
        """
        try:
            input_shape = standardize_shape(input_shape)
        except Exception:  # noqa: BLE001 - Keras does not build a model whose input is not a single tensor
            return
        if not self._layers:
            raise ValueError(f"Sequential model {self.name} cannot be built because it has no layers. Call "
                             "`model.add(layer)`.")
        if self._input_layer is not None:
            if self._input_layer.batch_shape != input_shape:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                                 f"{self._input_layer.batch_shape}. You cannot build it with input_shape "
                                 f"{input_shape}")
        else:
            object.__setattr__(self, "_input_layer", InputLayer(batch_shape=input_shape,
                                                                 dtype=self._layers[0].compute_dtype))
        inputs = x = self._input_layer.output
        for layer in self._layers:
            try:
                x = layer(x)
            except NotImplementedError:  # a layer that cannot say its output shape: stay a plain stack
                return
        object.__setattr__(self, "_functional", Functional(inputs=inputs, outputs=x))
        # Calls convert their inputs to the Input's dtype (Keras's ``input_dtype``), not to the compute dtype.
        self._input_dtype = as_dtype(self._input_layer.dtype)

    def call(self, inputs, training=None, mask=None, **kwargs):
        functional = self._functional
        if functional is not None:
            # The functional graph of a stack is the stack: convert the input as the graph would, then run the
            # layers in order (cheaper than replaying graph nodes).
            (inputs,) = functional._standardize_inputs(functional._flatten_call_inputs(inputs))
        elif not self._layers:
            raise ValueError(f"Sequential model {self.name} has no layers: add layers before calling it.")
        x = inputs
        for layer in self._layers:
            x = layer(x, training=training) if layer._call_has_training_arg else layer(x)
        return x

    def __call__(self, *args, **kwargs):
        first = args[0] if args else None
        if not self.built and first is not None and hasattr(first, "shape") and self._layers:
            # Keras builds an unbuilt stack from the first batch's shape (its batch size too).
            shape = first.shape if isinstance(first, KerasTensor) else _shape_list(first)
            self.build(build_shape(shape))
        return super().__call__(*args, **kwargs)

    # --- what the functional graph knows ---------------------------------------------------------------------
    def _graph(self, what):
        if self._functional is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._functional

    @property
    def inputs(self):
        """The input ``KerasTensor`` s (``AttributeError`` before the model is built, as in Keras)."""
        return self._graph("inputs").inputs

    @property
    def outputs(self):
        """The output ``KerasTensor`` s (``AttributeError`` before the model is built, as in Keras)."""
        return self._graph("outputs").outputs

    @property
    def input_shape(self):
        """The input's shape, batch axis included."""
        return self._graph("input shape").input_shape

    @property
    def output_shape(self):
        """The output's shape, batch axis included (``None`` where a size is unknown)."""
        return self._graph("output shape").output_shape

    def _symbolic_dtype(self, first):
        return self._functional.outputs[0].dtype if self._functional is not None else self.compute_dtype

    def compute_output_shape(self, input_shape):
        for layer in self._layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self):
        """Keras's config: the layers (the ``InputLayer`` first, each as Keras's object config) and
        ``build_input_shape``."""
        from .model_config import sequential_config

        return sequential_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new ``Sequential`` model from :meth:`get_config`'s output (built when the config has an input
        shape)."""
        from .model_config import sequential_from_config

        return sequential_from_config(cls, config, custom_objects)


def _input_shape_or_none(layer):
    try:
        return layer.input_shape
    except AttributeError:
        return None


def _shape_list(x):
    shape = x.shape
    return tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(shape)

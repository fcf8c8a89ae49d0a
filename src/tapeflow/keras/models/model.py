"""``tf.keras.Model``: a ``Layer`` that owns layers and trains (Keras 3).

Subclassed models assign layers to attributes in ``__init__`` and compute in ``call``; the layers are tracked
(``layers``, ``weights``, ``trainable_variables``).
"""

from __future__ import annotations

from ..layers.base import Layer
from . import saving
from .summary import print_summary
from .training import TrainingMixin

__all__ = ["Model"]


class Model(TrainingMixin, Layer):
    """A layer with training and saving: ``compile``, ``fit``, ``evaluate``, ``predict``, ``summary``,
    ``save_weights``/``load_weights``.

    ``Model(inputs, outputs, name=None)`` (symbolic ``KerasTensor`` s from ``Input`` and layer calls) makes a
    functional model (a ``Functional`` instance, see ``functional.py``).
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and (len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs):
            from .functional import Functional

            return object.__new__(Functional)
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        if args:  # (Keras hands a subclass's arguments on to ``Layer.__init__``, which takes none by position)
            raise TypeError(f"Layer.__init__() takes 1 positional argument but {len(args) + 1} were given")
        Layer.__init__(self, **kwargs)  # (which refuses any keyword it does not know, with Keras's message)
        self._init_training()

    @property
    def layers(self):
        """The layers the model tracks (in the order they were assigned)."""
        return list(self._layers)

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or by ``index`` in ``layers``.

        Raises:
            ValueError: for an unknown name, an index out of range, or neither/both given (Keras's messages).
        """
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            names = [layer.name for layer in self.layers]
            raise ValueError(f"No such layer: {name}. Existing layers are: {names}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Print Keras's table of layers, output shapes and parameter counts (to ``print_fn`` if given)."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    def save_weights(self, filepath, overwrite=True):
        """Save every weight to ``filepath`` (ending in ``.weights.h5``; the content is a NumPy ``.npz``)."""
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Load weights saved by ``save_weights``; a count or shape mismatch raises and changes nothing."""
        saving.load_weights(self, filepath)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    __str__ = __repr__

"""``tf.keras.Model``: a ``Layer`` that owns layers and trains (Keras 3).

Subclassed models assign layers to attributes in ``__init__`` and compute in ``call``; the layers are tracked
(``layers``, ``weights``, ``trainable_variables``).
"""

from __future__ import annotations

from ..layers.base import Layer, _capture_auto_config
from ..saving import saving_lib
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
        instance = object.__new__(cls)
        _capture_auto_config(instance, cls, args, kwargs)
        return instance

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

    def save_weights(self, filepath, overwrite=True, max_shard_size=None):
        """Save the state of every layer and of the optimizer to ``filepath`` (ending in ``.weights.h5``), in
        Keras 3's HDF5 layout (needs the 'h5' extra)."""
        if max_shard_size is not None:
            raise ValueError("tapeflow does not write sharded weights files: pass `max_shard_size=None`.")
        saving_lib.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Load weights from a ``.weights.h5``, ``.keras`` or Keras 2 ``.h5`` file; on any mismatch nothing is
        changed (or, with ``skip_mismatch``, the mismatched layers are skipped with a warning)."""
        saving_lib.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Save the model (config, weights, optimizer state) as a Keras 3 ``.keras`` file (needs the 'h5'
        extra). The file is written whole to a temporary name and then renamed, so a crash leaves the previous
        file intact."""
        if zipped is False:
            raise ValueError("tapeflow writes zipped `.keras` files only: pass `zipped=None` or `zipped=True`.")
        saving_lib.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def to_json(self, **kwargs):
        """The model's config (Keras's object config, with build and compile configs) as a JSON string;
        ``keras.models.model_from_json`` rebuilds the model (without its weights)."""
        import json

        from ..saving.serialization_lib import serialize_keras_object

        return json.dumps(serialize_keras_object(self), **kwargs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A model from its config: a functional model's graph config rebuilds the graph (for ``Model``,
        ``Functional`` and subclasses taking the same arguments); anything else is passed to the constructor.

        Raises:
            TypeError: when the constructor does not take the config (Keras's message).
        """
        import inspect

        from .functional import Functional
        from .model_config import functional_from_config

        functional_keys = ("name", "layers", "input_layers", "output_layers")
        spec = inspect.getfullargspec(cls.__init__)
        revivable = (cls in (Functional, Model)
                     or spec.args[1:] == inspect.getfullargspec(Functional.__init__).args[1:]
                     or (spec.varargs == "args" and spec.varkw == "kwargs"))
        if all(k in config for k in functional_keys) and revivable:
            return functional_from_config(Functional if cls is Model else cls, config, custom_objects)
        try:
            return cls(**config)
        except TypeError as exc:
            raise TypeError("Unable to revive model from config. When overriding the `get_config()` method, make "
                            "sure that the returned config contains all items used as arguments in the  "
                            f"constructor to {cls}, which is the default behavior. You can override this default "
                            "behavior by defining a `from_config(cls, config)` class method to specify how to "
                            f"create an instance of {cls.__name__} from its config.\n\nReceived config={config}"
                            f"\n\nError encountered during deserialization: {exc}") from None

    def build_from_config(self, config):
        """Build the model from its build config: with ``build`` for a model that has one, else by running it
        once on zeros of the stored input shape (what Keras does for subclassed models)."""
        if not config or self.built and type(self).build is Layer.build:
            return
        shape = config.get("input_shape")
        if shape is None:
            return super().build_from_config(config)
        if type(self).build is not Layer.build:
            self.build(tuple(shape) if isinstance(shape, list) else shape)
            return
        import numpy as np

        def zeros(s):
            if isinstance(s, list) and all(d is None or isinstance(d, int) for d in s):
                return np.zeros([1 if d is None else d for d in s], dtype=self.input_dtype)
            return [zeros(x) for x in s]

        self(zeros(shape), training=False)
        object.__setattr__(self, "_build_shapes_dict", {"input_shape": shape})

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    __str__ = __repr__

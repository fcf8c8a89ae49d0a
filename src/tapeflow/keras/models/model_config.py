"""The configs of ``Sequential`` and functional models, in Keras 3's layout, and models rebuilt from them.

A functional model's config lists its layers (each with Keras's object config, its ``name`` and its
``inbound_nodes``: the arguments of each call, with ``KerasTensor`` s as ``{"class_name": "__keras_tensor__",
"config": {"shape", "dtype", "keras_history": [layer name, node index, tensor index]}}``), and its
``input_layers`` / ``output_layers`` as ``[layer name, node index, tensor index]`` leaves in the structure of its
inputs and outputs. Rebuilding makes the layers, then replays the calls in the order their inputs become
available. A ``Sequential`` config lists its layers (the ``InputLayer`` first) and ``build_input_shape``.
"""

from __future__ import annotations

import copy

from ..layers.base import Layer
from ..saving import serialization_lib as sl
from ._symbolic_ops import Operation
from .functional import Functional, KerasTensor, _inbound_nodes

__all__ = ["functional_config", "functional_from_config", "sequential_config", "sequential_from_config",
           "functional_like_constructor"]


def functional_like_constructor(cls):
    """Whether ``cls`` takes the arguments of ``Functional`` (so its config is the graph's)."""
    import inspect

    spec = inspect.getfullargspec(cls.__init__)
    reference = inspect.getfullargspec(Functional.__init__).args[1:]
    return spec.args[1:] == reference or (spec.varargs is not None and spec.varkw is not None)


def _map(fn, struct):
    if isinstance(struct, (list, tuple)):
        return [_map(fn, x) for x in struct]
    if isinstance(struct, dict):
        return {k: _map(fn, v) for k, v in struct.items()}
    return fn(struct)


def functional_config(model):
    """The graph config of a functional model (Keras's ``Functional.get_config``).

    Raises:
        ValueError: for a graph holding operator nodes (``x + y`` on ``KerasTensor`` s), which tapeflow does not
            serialize.
    """
    own = set(model._node_depth)
    reindex = {}
    for layer in model.operations:
        if isinstance(layer, Operation):
            raise ValueError(f"Cannot serialize the operation '{layer.name}' of model '{model.name}': tapeflow saves "
                             "functional models made of layers only. Wrap the computation in a layer (such as "
                             "`keras.layers.Add` or a `Layer` subclass).")
        kept = 0  # (Keras 3.15 numbers a nested functional model's calls from 0 as well)
        for index, node in enumerate(_inbound_nodes(layer)):
            if node in own:
                reindex[(id(layer), index)] = kept
                kept += 1

    def history(x):
        layer, node_index, tensor_index = x._keras_history
        return [layer.name, reindex[(id(layer), node_index)], tensor_index]

    def tensor(x):
        if not isinstance(x, KerasTensor):
            return sl.serialize_keras_object(x)
        return {"class_name": "__keras_tensor__",
                "config": {"shape": list(x.shape), "dtype": x.dtype, "keras_history": history(x)}}

    layers = []
    for layer in model.operations:
        nodes = []
        for node in _inbound_nodes(layer):
            if node in own and node.input_tensors:
                nodes.append({"args": _map(tensor, list(node.args)),
                              "kwargs": {k: _map(tensor, v) for k, v in node.kwargs.items()}})
        entry = sl.serialize_keras_object(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = nodes
        layers.append(entry)
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": _map(history, model._inputs_struct),
            "output_layers": _map(history, model._outputs_struct)}


def _is_leaf(x):
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and isinstance(x[1], int)


def functional_from_config(cls, config, custom_objects=None):
    """A functional model (of class ``cls``) rebuilt from :func:`functional_config`'s output.

    Raises:
        ValueError: for layers that are not layers, or a graph whose calls cannot all be replayed (Keras's
            message).
    """
    config = dict(config)
    created, pending = {}, {}
    for data in config["layers"]:
        if "module" not in data:  # Keras 2's config of a layer
            from ..saving.legacy_h5 import layer_from_legacy_config

            layer = layer_from_legacy_config(data, custom_objects)
        else:
            layer = sl.deserialize_keras_object(data, custom_objects=custom_objects)
        if not isinstance(layer, Layer):
            raise ValueError("Unexpected object from deserialization, expected a layer or operation, got a "
                             f"{type(layer)}")
        created[data["name"]] = layer
        pending[data["name"]] = list(data.get("inbound_nodes") or [])

    def tensor_at(name, node_index, tensor_index):
        if name not in created:
            raise ValueError(f"Invalid Functional model configuration: unknown layer '{name}'.")
        return _inbound_nodes(created[name])[node_index].output_tensors[tensor_index]

    def revive(value):
        if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
            return tensor_at(*value["config"]["keras_history"])
        if isinstance(value, list):
            return [revive(v) for v in value]
        if isinstance(value, dict) and not ("class_name" in value and "config" in value):
            return {k: revive(v) for k, v in value.items()}
        return sl.deserialize_keras_object(value, custom_objects=custom_objects)

    while any(pending.values()):
        progressed = False
        for data in config["layers"]:
            nodes = pending[data["name"]]
            while nodes:
                try:
                    args, kwargs = _node_arguments(nodes[0], revive, tensor_at)
                except IndexError:
                    break
                created[data["name"]](*args, **kwargs)
                nodes.pop(0)
                progressed = True
        if not progressed:
            raise ValueError("Invalid Functional model configuration. The graph of the Functional model either has "
                             "loops or disconnected nodes. The following nodes failed to be resolved: "
                             f"{ {k: v for k, v in pending.items() if v} }")

    def tensors(struct):
        if _is_leaf(struct):
            return tensor_at(*struct)
        if isinstance(struct, dict):
            return {k: tensors(v) for k, v in struct.items()}
        return [tensors(v) for v in struct]

    inputs = tensors(config.pop("input_layers"))
    outputs = tensors(config.pop("output_layers"))
    config.pop("layers")
    name = config.pop("name", None)
    trainable = config.pop("trainable", True)
    return cls(inputs=inputs, outputs=outputs, name=name, trainable=trainable if trainable is not None else True,
               **config)


def _node_arguments(node, revive, tensor_at):
    """``(args, kwargs)`` of a stored call: Keras 3's ``{"args", "kwargs"}``, or Keras 2's list of
    ``[layer name, node index, tensor index, kwargs]`` (one input tensor, or a list of them)."""
    if isinstance(node, dict):
        return revive(node.get("args", [])), revive(node.get("kwargs", {}))
    tensors = [tensor_at(entry[0], entry[1], entry[2]) for entry in node]
    kwargs = revive(node[0][3]) if node and len(node[0]) > 3 and node[0][3] else {}
    return ([tensors[0]] if len(tensors) == 1 else [tensors]), kwargs


def sequential_config(model):
    """Keras's ``Sequential.get_config``: the layers (the ``InputLayer`` first) and ``build_input_shape``."""
    layers = [sl.serialize_keras_object(layer) for layer in model._all_layers()]
    config = {"name": model.name, "trainable": model.trainable, "dtype": sl.serialize_keras_object(model.dtype_policy),
              "layers": copy.deepcopy(layers)}
    if model._functional is not None and model._input_layer is not None:
        config["build_input_shape"] = list(model._input_layer.batch_shape)
    return config


def sequential_from_config(cls, config, custom_objects=None):
    """A ``Sequential`` model rebuilt from :func:`sequential_config`'s output.

    Raises:
        ValueError: for a config without ``name`` and ``layers`` (Keras's message).
    """
    if "name" not in config or "layers" not in config:
        raise ValueError("A Sequential model configuration must be a dictionary containing the 'name' and 'layers' "
                         f"keys. Received: config={config}")
    model = cls(name=config["name"])
    for data in config["layers"]:
        if "module" not in data:  # Keras 2's config of a layer
            from ..saving.legacy_h5 import layer_from_legacy_config

            layer = layer_from_legacy_config(data, custom_objects)
        else:
            layer = sl.deserialize_keras_object(data, custom_objects=custom_objects)
        model.add(layer, rebuild=False)
    model._maybe_rebuild()
    shape = config.get("build_input_shape")
    if not model.built and shape is not None:
        model.build(tuple(shape))
    if config.get("trainable") is False:
        model.trainable = False
    return model


"""Keras 2's full-model ``.h5`` files (also written by Keras 3's ``model.save("m.h5")``), read only.

The file's attributes hold ``model_config`` (JSON: ``{"class_name", "config"}`` without Keras 3's ``module``
keys) and ``training_config``; the group ``model_weights`` lists ``layer_names`` in order, each layer group its
``weight_names`` (trainable weights first). Weights are matched to the model's layers that have weights, by
position, as Keras does. Keras 2's layer arguments that Keras 3 dropped (``batch_input_shape`` outside an
``InputLayer``, ``input_length``, ``time_major``, ``implementation``) are translated or dropped.
"""

from __future__ import annotations

import json

import numpy as np

from . import serialization_lib as sl
from . import weights_store as ws

__all__ = ["load_model", "load_weights", "layer_from_legacy_config"]

_DROPPED = ("input_length", "time_major", "implementation")


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _strings(group, name):
    values = group.attrs.get(name)
    if values is None:
        return []
    return [_text(v) for v in np.asarray(values).reshape(-1)]


def _legacy_layer_config(config):
    config = dict(config)
    inner = dict(config.get("config") or {})
    shape = inner.pop("batch_input_shape", None)
    if shape is not None:
        inner["batch_shape" if config.get("class_name") == "InputLayer" else "input_shape"] = \
            shape if config.get("class_name") == "InputLayer" else shape[1:]
    if isinstance(inner.get("axis"), list) and len(inner["axis"]) == 1:
        inner["axis"] = int(inner["axis"][0])
    for key in _DROPPED:
        inner.pop(key, None)
    dtype = inner.get("dtype")
    if isinstance(dtype, dict) and dtype.get("class_name") == "Policy":
        inner["dtype"] = dtype["config"]["name"]
    config["config"] = inner
    return config


def layer_from_legacy_config(config, custom_objects=None):
    """A layer (or model) from Keras 2's ``{"class_name", "config"}``.

    Raises:
        TypeError: for a class tapeflow does not have (Keras's "Could not locate class" message).
    """
    config = _legacy_layer_config(config)
    name = config["class_name"]
    cls = sl.find_class(name, None, name, custom_objects, config)
    inner = config["config"]
    from ..models import Functional, Sequential

    if cls in (Functional, Sequential) or name == "Model":
        return (Sequential if cls is Sequential else Functional).from_config(inner, custom_objects=custom_objects)
    return cls.from_config(inner)


def load_model(h5file, filepath, custom_objects=None, compile=True):
    """The model a Keras 2 ``.h5`` file holds, with its weights (and compiled, when the file says how).

    Raises:
        ValueError: for a file without a model config (a weights-only file), naming it.
    """
    raw = h5file.attrs.get("model_config")
    if raw is None:
        raise ValueError(f"No model config found in the file at {filepath}.")
    config = json.loads(_text(raw))
    try:
        model = layer_from_legacy_config(config, custom_objects)
    except (TypeError, ValueError, KeyError) as exc:
        message = exc.args[0] if exc.args else repr(exc)
        raise type(exc)(f"{message}\n(while loading the model config of {filepath})") from None
    load_weights(model, h5file, filepath)
    training = h5file.attrs.get("training_config")
    if compile and training is not None:
        training = json.loads(_text(training))
        optimizer = training.pop("optimizer_config", None)
        args = {k: sl.deserialize_keras_object(training.get(k), custom_objects)
                for k in ("loss", "metrics", "weighted_metrics", "loss_weights")}
        if optimizer is not None:
            from .. import optimizers

            args["optimizer"] = optimizers.get(optimizer)
        model.compile(**args)
    return model


def load_weights(model, h5file, filepath, skip_mismatch=False):
    """Assign the weights of a Keras 2 ``.h5`` file to the layers of ``model`` that have weights, by position,
    all or none.

    Raises:
        ValueError: for a different number of layers or weights, or a shape that does not fit (naming the file).
    """
    group = h5file["model_weights"] if "model_weights" in h5file else h5file
    names = [n for n in _strings(group, "layer_names") if _strings(group[n], "weight_names")]
    layers = [layer for layer in model.layers if layer.weights]
    if len(names) != len(layers):
        raise ValueError(f"Layer count mismatch when loading weights from file {filepath}. Model expected "
                         f"{len(layers)} layers, found {len(names)} saved layers.")
    pairs = []
    for k, (name, layer) in enumerate(zip(names, layers)):
        weight_names = _strings(group[name], "weight_names")
        values = [np.asarray(group[name][w][()]) for w in weight_names]
        variables = layer.trainable_weights + layer.non_trainable_weights
        if len(values) != len(variables):
            if skip_mismatch:
                continue
            raise ValueError(f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, {name} "
                             f"in the save file {filepath}). Layer expects {len(variables)} weight(s). Received "
                             f"{len(values)} saved weight(s)")
        try:
            pairs.extend([(v, ws._checked(v, value, layer, f"'{name}' of {filepath}"))
                          for v, value in zip(variables, values)])
        except ValueError:
            if not skip_mismatch:
                raise
    ws.assign(pairs)

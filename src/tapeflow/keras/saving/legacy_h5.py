"""Keras 2's full-model ``.h5`` files (also written by Keras 3's ``model.save("m.h5")``).

The file's attributes hold ``model_config`` (JSON: ``{"class_name", "config"}`` without Keras 3's ``module``
keys) and ``training_config``; the group ``model_weights`` lists ``layer_names`` in order, each layer group its
``weight_names`` (trainable weights first). Weights are matched to the model's layers that have weights, by
position, as Keras does. Keras 2's layer arguments that Keras 3 dropped (``batch_input_shape`` outside an
``InputLayer``, ``input_length``, ``time_major``, ``implementation``) are translated or dropped. ``save_model``
writes the layout Keras 3 writes for ``model.save("m.h5")``: the layers' configs without Keras 3's ``module``
keys, each layer's weights under their paths, and the optimizer's under ``optimizer_weights``.
"""

from __future__ import annotations

import json

import numpy as np

from . import serialization_lib as sl
from . import weights_store as ws

__all__ = ["load_model", "load_weights", "layer_from_legacy_config", "save_model"]

_DROPPED = ("input_length", "time_major", "implementation")


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _strings(group, name):
    """A list-of-strings attribute (Keras splits long ones into ``name0``, ``name1``, ...)."""
    if name in group.attrs:
        chunks = [group.attrs[name]]
    else:
        chunks, i = [], 0
        while f"{name}{i}" in group.attrs:
            chunks.append(group.attrs[f"{name}{i}"])
            i += 1
    return [_text(v) for chunk in chunks for v in np.asarray(chunk).reshape(-1)]


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
            args["optimizer"] = sl.deserialize_keras_object({**optimizer, "module": "keras.optimizers"},
                                                            custom_objects)
        model.compile(**args)
        if optimizer is not None and "optimizer_weights" in h5file:
            _load_optimizer_state(model, h5file["optimizer_weights"], filepath)
    return model


def _load_optimizer_state(model, group, filepath):
    """The optimizer's variables from ``optimizer_weights`` (by position, as Keras's ``set_weights``); a state
    that does not fit is skipped with a warning, as Keras does."""
    import warnings

    model.optimizer.build(model.trainable_variables)
    values = [np.asarray(group[name][()]) for name in _strings(group, "weight_names")]
    variables = model.optimizer.variables
    try:
        if len(values) != len(variables):
            raise ValueError(f"{len(values)} saved values for {len(variables)} variables")
        pairs = [(v, ws._checked(v, value, model.optimizer, f"'optimizer_weights' of {filepath}"))
                 for v, value in zip(variables, values)]
    except ValueError as exc:
        warnings.warn(f"Error in loading the saved optimizer state of {filepath} ({exc}). As a result, your model "
                      "is starting with a freshly initialized optimizer.", stacklevel=3)
        return
    ws.assign(pairs)


def _legacy_model_config(model):
    """Keras 3's legacy ``model_config``: the model's config with its layers as ``{"class_name", "config"}`` (a
    registered custom class by its registered name, as Keras's legacy serialization names it)."""
    config = model.get_config()
    layers = config.get("layers")

    def legacy(entry):
        out = {k: v for k, v in entry.items() if k not in ("module", "registered_name", "build_config")}
        if entry.get("registered_name"):
            out["class_name"] = entry["registered_name"]
        return out

    if isinstance(layers, list):
        config = {**config, "layers": [legacy(layer) for layer in layers]}
    return {"class_name": type(model).__name__, "config": config}


def _write_weights(group, weights):
    group.attrs["weight_names"] = np.array([v.path.encode("utf-8") for v in weights], dtype=object) \
        if weights else np.array([], dtype=np.float64)
    for v in weights:
        group.create_dataset(v.path, data=np.asarray(v.numpy()))


def save_model(model, h5file, include_optimizer=True):
    """Write ``model`` into the open file in the layout of Keras 2's (and Keras 3's legacy) ``.h5`` files."""
    from .saving_lib import KERAS_VERSION

    h5file.attrs["backend"] = "tensorflow"
    h5file.attrs["keras_version"] = KERAS_VERSION
    h5file.attrs["model_config"] = json.dumps(_legacy_model_config(model))
    optimizer = getattr(model, "optimizer", None)
    if include_optimizer and optimizer is not None and model.compiled:
        training = {k: v for k, v in model.get_compile_config().items() if k != "optimizer"}
        training["optimizer_config"] = {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}
        h5file.attrs["training_config"] = json.dumps(training)
    group = h5file.create_group("model_weights")
    group.attrs["layer_names"] = np.array([layer.name.encode("utf-8") for layer in model.layers], dtype=object)
    group.attrs["backend"] = "tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION
    in_layers = {id(v) for layer in model.layers for v in layer.weights}
    for layer in sorted(model.layers, key=lambda x: x.name):
        _write_weights(group.create_group(layer.name), layer.trainable_weights + layer.non_trainable_weights)
    _write_weights(group.create_group("top_level_model_weights"),
                   [v for v in model.weights if id(v) not in in_layers])
    if include_optimizer and optimizer is not None and model.compiled and optimizer.built:
        _write_weights(h5file.create_group("optimizer_weights"), list(optimizer.variables))


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
    ws.assign(pairs, model)

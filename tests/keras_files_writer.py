"""Write Keras files with tapeflow for TensorFlow to load (``tools/record_keras_files.py check DIR``).

    PYTHONPATH=src python tests/keras_files_writer.py DIR

Builds the models of ``tools/record_keras_files.py`` with ``tapeflow.keras``, trains each one epoch, and writes
into DIR: ``<name>.keras``, ``<name>.weights.h5`` with ``<name>.json`` (``model.to_json()``), ``data.npz`` (inputs,
tapeflow's predictions, targets and the losses of two more epochs after reloading the ``.keras`` file) and
``manifest.json``; ``seq_dense`` also as a legacy ``legacy_dense.h5``. Also used by tests/test_keras_saving.py
(``write_models``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def recorder():
    """The recording tool as a module (its model builders take any ``keras`` namespace)."""
    spec = importlib.util.spec_from_file_location("record_keras_files",
                                                  os.path.join(HERE, "..", "tools", "record_keras_files.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def models(keras):
    """``{name: (model, x, y)}`` built with ``keras`` exactly as the recording tool builds them."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    return recorder()._models(keras)


def write_models(keras, directory):
    """Write every model's files into ``directory``; returns the manifest."""
    os.makedirs(directory, exist_ok=True)
    manifest, data = [], {}
    for name, (model, x, y) in models(keras).items():
        model.fit(x, y, epochs=1, batch_size=len(y), shuffle=False, verbose=0)
        model.save(os.path.join(directory, f"{name}.keras"))
        model.save_weights(os.path.join(directory, f"{name}.weights.h5"))
        if name == "seq_dense":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Keras's warning that `.h5` is a legacy format
                model.save(os.path.join(directory, "legacy_dense.h5"))
        with open(os.path.join(directory, f"{name}.json"), "w") as f:
            f.write(model.to_json())
        xs = x if isinstance(x, list) else [x]
        for i, v in enumerate(xs):
            data[f"{name}/x{i}"] = v
        data[f"{name}/y"] = model.predict(x, verbose=0)
        data[f"{name}/target"] = y
        reloaded = keras.models.load_model(os.path.join(directory, f"{name}.keras"))
        history = reloaded.fit(x, y, epochs=2, batch_size=len(y), shuffle=False, verbose=0).history
        data[f"{name}/losses"] = np.array(history["loss"], dtype="float64")
        x_keys = [f"{name}/x{i}" for i in range(len(xs))]
        manifest.append({"file": f"{name}.keras", "x": x_keys, "y": f"{name}/y", "target": f"{name}/target",
                         "losses": f"{name}/losses"})
        manifest.append({"file": f"{name}.weights.h5", "json": f"{name}.json", "x": x_keys, "y": f"{name}/y"})
        if name == "seq_dense":
            manifest.append({"file": "legacy_dense.h5", "x": x_keys, "y": f"{name}/y"})
    model, x = recorder().lookup_model(keras)
    model.save(os.path.join(directory, "lookups.keras"))
    for i, v in enumerate(x):
        data[f"lookups/x{i}"] = v
    for i, y in enumerate(model.predict(x, verbose=0)):
        data[f"lookups/y{i}"] = y
    manifest.append({"file": "lookups.keras", "x": ["lookups/x0", "lookups/x1"], "y": ["lookups/y0", "lookups/y1"]})
    np.savez(os.path.join(directory, "data.npz"), **data)
    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


if __name__ == "__main__":
    import tapeflow as tf

    write_models(tf.keras, sys.argv[1])

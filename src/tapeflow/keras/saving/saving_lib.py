"""Keras 3's files: the ``.keras`` archive and the ``.weights.h5`` file, written and read as TensorFlow does.

A ``.keras`` file is a zip archive (members stored uncompressed) of ``metadata.json`` (``keras_version``,
``date_saved``), ``config.json`` (the model's object config, with its build and compile configs),
``model.weights.h5`` (the state, in the HDF5 layout of ``weights_store.py``) and, for layers that keep files
(an adapted lookup layer's ``vocabulary.txt``), ``assets/<path>/...``. A ``.weights.h5`` file is that HDF5
file alone. Both are written whole into a temporary file next to the target and then renamed over it, so a crash
part-way leaves the previous file as it was. Keras 2's ``.h5`` files are read by ``legacy_h5.py``.

Loading checks everything before it changes anything: a damaged archive or HDF5 file, a missing member, a config
naming an unknown class, a file from a newer Keras major version or weights that do not fit raise an error naming
the file, and the model keeps its values.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import zipfile
import zlib

from ..._core import checkpoint_io as cio
from ..._core import errors
from . import weights_store as ws

__all__ = ["save_model", "load_model", "save_weights", "load_weights", "KERAS_VERSION", "UnreadableWeightsFile"]

# The Keras version whose format tapeflow writes (``metadata.json``); files of a later major version are refused.
KERAS_VERSION = "3.15.1"
_CONFIG = "config.json"
_METADATA = "metadata.json"
_WEIGHTS = "model.weights.h5"
_ASSETS = "assets"
_BOMB_FLOOR = 1 << 20
_BOMB_RATIO = 100


class UnreadableWeightsFile(errors.DataLossError, OSError):
    """A damaged weights file: TF's ``DataLossError``, and an ``OSError`` as h5py raises for a file it cannot
    read, so either ``except`` catches it."""

    def __init__(self, message):
        super().__init__(None, None, message)


def _write_atomically(filepath, data):
    cio.atomic_write(filepath, lambda f: f.write(data))


def _h5_bytes(model):
    h5py = ws.h5py()
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        ws.write(f, model)
    return buffer.getvalue()


def _check_overwrite(filepath, overwrite):
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"File already exists and overwrite=False: {filepath}")


def save_model(model, filepath, overwrite=True, **kwargs):
    """Write ``model`` to ``filepath`` (ending in ``.keras``, or ``.h5`` for the legacy format).

    Raises:
        ValueError: for another suffix (Keras's message). A ``.h5`` suffix writes Keras's legacy HDF5 file (with
            Keras's warning).
        ImportError: without h5py (the 'h5' extra).
    """
    if kwargs.pop("save_format", None) not in (None, "keras"):
        raise ValueError("The `save_format` argument is deprecated in Keras 3. Please remove this argument and pass "
                         "a file path with either `.keras` or `.h5` extension.")
    include_optimizer = kwargs.pop("include_optimizer", True)
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    filepath = os.fspath(filepath)
    if filepath.endswith((".h5", ".hdf5")):
        import warnings

        from . import legacy_h5

        warnings.warn("You are saving your model as an HDF5 file via `model.save()` or "
                      "`keras.saving.save_model(model)`. This file format is considered legacy. We recommend using "
                      "instead the native Keras format, e.g. `model.save('my_model.keras')` or "
                      "`keras.saving.save_model(model, 'my_model.keras')`. ", stacklevel=3)
        _check_overwrite(filepath, overwrite)
        h5py = ws.h5py()
        buffer = io.BytesIO()
        with h5py.File(buffer, "w") as f:
            legacy_h5.save_model(model, f, include_optimizer=include_optimizer)
        _write_atomically(filepath, buffer.getvalue())
        return
    if not filepath.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         "native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if "
                         f"you want to export a SavedModel for use with TFLite/TFServing/etc. Received: "
                         f"filepath={filepath}.")
    _check_overwrite(filepath, overwrite)
    from .serialization_lib import serialize_keras_object

    metadata = {"keras_version": KERAS_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    config = json.dumps(serialize_keras_object(model))
    weights = _h5_bytes(model)
    assets = _saved_assets(model)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(_METADATA, json.dumps(metadata))
        zf.writestr(_CONFIG, config)
        zf.writestr(_WEIGHTS, weights)
        for name, data in assets:
            zf.writestr(name, data)
    _write_atomically(filepath, buffer.getvalue())


def _saved_assets(model):
    """``[(archive member, bytes)]``: what each layer with ``save_assets`` (a lookup layer's vocabulary) writes
    into its directory, under ``assets/<path>/`` as Keras lays them out."""
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as root:
        for path, obj in ws.walk(model):
            if hasattr(obj, "save_assets"):
                directory = os.path.join(root, *path.split("/")) if path else root
                os.makedirs(directory, exist_ok=True)
                obj.save_assets(directory)
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                full = os.path.join(folder, name)
                with open(full, "rb") as f:
                    out.append((_ASSETS + "/" + os.path.relpath(full, root).replace(os.sep, "/"), f.read()))
    return out


def _load_assets(model, contents, filepath):
    """Give each layer with ``load_assets`` its directory of the archive's ``assets/`` members."""
    import tempfile

    assets = {name: data for name, data in contents.items() if name.startswith(_ASSETS + "/")}
    if not assets:
        return
    with tempfile.TemporaryDirectory() as root:
        for name, data in assets.items():
            parts = name.split("/")[1:]
            if any(p in ("", ".", "..") for p in parts):
                raise ValueError(f"The file {filepath} holds an asset with an unsafe path: {name!r}.")
            target = os.path.join(root, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
        for path, obj in ws.walk(model):
            if hasattr(obj, "load_assets"):
                obj.load_assets(os.path.join(root, *path.split("/")) if path else root)


def save_weights(model, filepath, overwrite=True):
    """Write the state of ``model`` (layers and optimizer) to ``filepath`` (ending in ``.weights.h5``).

    Raises:
        ValueError: for another suffix (Keras's message).
        ImportError: without h5py (the 'h5' extra).
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    _check_overwrite(filepath, overwrite)
    _write_atomically(filepath, _h5_bytes(model))


def _open_h5(source, filepath):
    """An open ``h5py.File`` on ``source`` (a path or bytes), or :class:`UnreadableWeightsFile` naming the file."""
    h5py = ws.h5py()
    try:
        return h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r")
    except OSError as exc:
        raise UnreadableWeightsFile(f"Unable to read the weights of {filepath}: it is not a readable HDF5 file "
                                    f"({exc}).") from None


def _load_state(model, h5file, filepath, skip_mismatch=False):
    try:
        pairs = ws.read_assignments(h5file, model, filepath, skip_mismatch=skip_mismatch)
    except (OSError, KeyError, RuntimeError) as exc:  # h5py's errors for damaged files
        raise UnreadableWeightsFile(f"Unable to read the weights of {filepath}: {exc}") from None
    ws.assign(pairs, model)


def load_weights(model, filepath, skip_mismatch=False):
    """Assign the state stored in ``filepath`` (``.weights.h5``, ``.keras``, or Keras 2's ``.h5``) to ``model``,
    all or none.

    Raises:
        ValueError: for another suffix, or weights that do not fit the model (naming the file and the layer).
        FileNotFoundError: if ``filepath`` does not exist.
        UnreadableWeightsFile: (a ``tf.errors.DataLossError`` and an ``OSError``) for a damaged file.
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith((".weights.h5", ".keras", ".h5", ".hdf5")):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` and "
                         "`.weights.h5` files, or legacy V1/V2 `.h5` files.")
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"File not found: filepath={filepath}. Please ensure the file is an accessible "
                                "`.weights.h5` file.")
    if filepath.endswith(".keras"):
        contents = _read_archive(filepath)
        source = contents[_WEIGHTS]
    elif filepath.endswith(".weights.h5"):
        source = filepath
    else:
        from . import legacy_h5

        with _open_h5(filepath, filepath) as f:
            legacy_h5.load_weights(model, f, filepath, skip_mismatch=skip_mismatch)
        return
    with _open_h5(source, filepath) as f:
        _load_state(model, f, filepath, skip_mismatch=skip_mismatch)


def _read_archive(filepath):
    """``{member: bytes}`` of a ``.keras`` archive, checked (members present, version not newer)."""
    try:
        with zipfile.ZipFile(filepath, "r") as zf:
            names = set(zf.namelist())
            missing = [n for n in (_CONFIG, _WEIGHTS) if n not in names]
            if missing:
                raise ValueError(f"The file {filepath} is not a complete `.keras` archive: it has no {missing[0]}.")
            archive_size = os.path.getsize(filepath)
            for info in zf.infolist():
                # A member that claims far more than the archive holds is a decompression bomb: refused before any
                # of it is inflated (Keras stores its members uncompressed).
                if info.file_size > max(_BOMB_FLOOR, _BOMB_RATIO * archive_size):
                    raise ValueError(f"The member {info.filename} of {filepath} declares {info.file_size} bytes in "
                                     f"an archive of {archive_size} bytes: refusing a potential decompression bomb.")
            contents = {name: zf.read(name) for name in names
                        if name in (_CONFIG, _METADATA, _WEIGHTS) or name.startswith(_ASSETS + "/")}
    except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise zipfile.BadZipFile(f"The file {filepath} is not a readable `.keras` archive (a zip file): {exc}") \
            from None
    metadata = _json(contents.get(_METADATA, b"{}"), _METADATA, filepath)
    version = str(metadata.get("keras_version", KERAS_VERSION))
    major = version.split(".")[0]
    if major.isdigit() and int(major) > int(KERAS_VERSION.split(".")[0]):
        raise ValueError(f"The file {filepath} was saved by Keras {version}, a newer format version than the Keras "
                         f"{KERAS_VERSION.split('.')[0]}.x format tapeflow reads.")
    return contents


def _json(data, member, filepath):
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"The member {member} of {filepath} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"The member {member} of {filepath} is not a JSON object.")
    return value


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved in ``filepath``: a ``.keras`` file (tapeflow's or TensorFlow's), or a Keras 2 ``.h5`` file
    whose layers tapeflow has.

    Raises:
        ValueError: for another suffix or a missing file (Keras's messages), a config or weights that do not fit,
            or a file of a newer Keras major version (naming the file).
        TypeError: for a class that is not known (Keras's "Could not locate class" message, naming the file).
        zipfile.BadZipFile / UnreadableWeightsFile: for a damaged file.
    """
    filepath = os.fspath(filepath)
    if filepath.endswith((".h5", ".hdf5")):
        if not os.path.exists(filepath):
            raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.h5` "
                             "file.")
        from . import legacy_h5

        with _open_h5(filepath, filepath) as f:
            return legacy_h5.load_model(f, filepath, custom_objects=custom_objects, compile=compile)
    if not filepath.endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files "
                         "and legacy H5 format files (`.h5` extension). Note that the legacy SavedModel format is "
                         "not supported by `load_model()` in Keras 3. In order to reload a TensorFlow SavedModel as "
                         "an inference-only layer in Keras 3, use `keras.layers.TFSMLayer(filepath, "
                         "call_endpoint='serving_default')` (note that your `call_endpoint` might have a different "
                         "name).")
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` zip "
                         "file.")
    contents = _read_archive(filepath)
    config = _json(contents[_CONFIG], _CONFIG, filepath)
    if not compile:
        config["compile_config"] = None
    from .serialization_lib import deserialize_keras_object

    try:
        model = deserialize_keras_object(config, custom_objects=custom_objects, safe_mode=safe_mode)
    except (TypeError, ValueError, KeyError) as exc:
        message = exc.args[0] if exc.args else repr(exc)
        raise type(exc)(f"{message}\n(while loading the model config of {filepath})") from None
    with _open_h5(contents[_WEIGHTS], filepath) as f:
        _load_state(model, f, filepath)
    _load_assets(model, contents, filepath)
    return model

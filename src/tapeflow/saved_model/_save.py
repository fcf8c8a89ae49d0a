"""``tf.saved_model.save``: an object's variables, traced functions and signatures, written as a directory.

The directory's format is described in ``docs/saved_model.md``. The object graph is walked from the root: a
``tf.Module``'s attributes (variables, modules, lists, tuples and dicts of them, ``tf.function`` methods), a
``tf.train.Checkpoint``'s tracked objects; a Keras model or layer keeps its variables (saved under the keys its
checkpoints use) and is served through its ``serving_default`` signature, as TensorFlow saves one.

The whole directory is written under a temporary name next to ``export_dir`` and moved into place when complete,
so a failed save leaves whatever was at ``export_dir`` before as it was. A directory holding other files too is
written into file by file instead (its other files are never touched); ``saved_model.json``, written last, records
the digests of the other files, so a mix of two saves is refused on load rather than run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil

import numpy as np

from .._core import checkpoint as ckpt_mod
from .._core import checkpoint_io as cio
from .._core import errors, nest
from .._core.module import Module
from .._core.tensor_spec import TensorSpec
from ..compiler.tf_function import ConcreteFunction, Function
from . import _programs
from ._encoding import Encoder, Unsavable

__all__ = ["save", "FORMAT", "VERSION", "GRAPH_FILE", "CONSTANTS_FILE"]

FORMAT = "tapeflow-saved-model"
VERSION = 1
GRAPH_FILE = "saved_model.json"
CONSTANTS_FILE = "constants.npz"
SERVING = "serving_default"


def _is_keras(obj):
    return ckpt_mod._is_layer(obj)


def _function_attributes(obj):
    """``(name, Function)`` for the ``tf.function`` methods and attributes of ``obj``, bound to it."""
    names = set()
    for cls in type(obj).__mro__:
        names.update(k for k, v in vars(cls).items() if isinstance(v, Function))
    names.update(k for k, v in getattr(obj, "__dict__", {}).items() if isinstance(v, Function))
    out = []
    for name in sorted(names):
        try:
            value = getattr(obj, name)
        except AttributeError:
            continue
        if isinstance(value, Function):
            out.append((name, value))
    return out


class _Writer:
    def __init__(self, root):
        self.root = root
        self.encode = Encoder("c")
        self.objects = []
        self.index = {}  # id(object) -> object index
        self.functions = []  # function records
        self.concrete_index = {}  # id(ConcreteFunction) -> index into functions
        graph = ckpt_mod._Graph(root)
        self.variable_keys = {id(ckpt_mod._base(v)): key for key, v in graph.values.items()}
        self.values = graph.values

    # --- objects ------------------------------------------------------------------------------------------
    def add(self, obj):
        ident = id(ckpt_mod._base(obj))
        if ident in self.index:
            return self.index[ident]
        k = len(self.objects)
        self.index[ident] = k
        record = {}
        self.objects.append(record)
        if ckpt_mod._is_variable(obj):
            base = ckpt_mod._base(obj)
            key = self.variable_keys.get(ident)
            if key is None:
                raise _untracked(base)
            record.update(kind="variable", key=key, name=base.name, trainable=bool(base.trainable),
                          dtype=base.dtype.name, shape=base.shape.as_list())
        elif isinstance(obj, Function):
            record.update(kind="function", name=obj.name, concrete_functions=self._concretes(obj),
                          input_signature=self._input_signature(obj))
        elif isinstance(obj, (list, tuple)):
            record.update(kind="list" if isinstance(obj, list) else "tuple",
                          items=[self.add(v) if self._savable(v) else None for v in obj])
        elif isinstance(obj, dict):
            record.update(kind="dict", items={k: self.add(v) for k, v in obj.items()
                                              if isinstance(k, str) and self._savable(v)})
        else:
            record.update(kind="user_object", children={})
            children = record["children"]
            if _is_keras(obj):
                # Its variables are objects of the graph (functions read them), not attributes: TF's loaded Keras
                # model shows its signatures only.
                for v in obj.weights:
                    self.add(v)
            else:
                for name, child in self._attributes(obj):
                    if self._savable(child):
                        children[name] = self.add(child)
            for name, fn in _function_attributes(obj):
                children[name] = self.add(fn)
        return k

    def _attributes(self, obj):
        if isinstance(obj, ckpt_mod.Checkpoint):
            return sorted(obj._tracked.items())
        if isinstance(obj, Module):
            return sorted((k, v) for k, v in vars(obj).items() if k not in ckpt_mod._MODULE_INTERNALS)
        return []

    def _savable(self, value):
        if isinstance(value, Function) or ckpt_mod._is_variable(value):
            return True
        if isinstance(value, (list, tuple)):
            return any(self._savable(v) for v in value)
        if isinstance(value, dict):
            return any(self._savable(v) for v in value.values())
        return isinstance(value, (Module, ckpt_mod.Checkpoint)) or _is_keras(value)

    # --- functions ----------------------------------------------------------------------------------------
    def _input_signature(self, fn):
        return None if fn.input_signature is None else self.encode(tuple(fn.input_signature))

    def _concretes(self, fn):
        if not fn._cache and fn.input_signature is not None:
            fn.get_concrete_function()  # TF traces a function with an input signature when saving it
        return [self.concrete(c) for c in fn._cache.values()]

    def concrete(self, concrete):
        k = self.concrete_index.get(id(concrete))
        if k is None:
            record = _programs.encode_function(concrete, self.encode, self._variable)
            k = self.concrete_index[id(concrete)] = len(self.functions)
            self.functions.append(record)
        return k

    def _variable(self, variable):
        return self.add(variable)

    # --- signatures ---------------------------------------------------------------------------------------
    def signature(self, concrete):
        k = self.concrete(concrete)
        args, kwargs = concrete.structured_input_signature
        everything = _flat((args, kwargs))
        flat = [s for s in everything if isinstance(s, TensorSpec)]
        if len(flat) != len(everything):
            other = next(s for s in everything if not isinstance(s, TensorSpec))
            raise ValueError(f"Got a non-Tensor value {other!r} in the signature of {concrete.name!r}. Only Tensors "
                             "are supported in signatures.")
        names = []
        params = [p[0] for p in (self.functions[k]["parameters"] or [])]
        for i, spec in enumerate(flat):
            name = spec.name or (params[i] if i < len(params) else f"args_{i}")
            names.append(name if name not in names else f"{name}_{i}")
        return {"function": k, "inputs": names}


def _flat(value):
    from .._core import nest

    return nest.flatten(value)


def _untracked(variable):
    return AssertionError(
        "Tried to export a function which references an 'untracked' resource. TensorFlow objects (e.g. "
        "tf.Variable) captured by functions must be 'tracked' by assigning them to an attribute of a tracked "
        f"object or assigned to an attribute of the main object directly. Trackable referencing this tensor = "
        f"{variable!r}")


def _default_signature(root):
    """What TF serves by default: a Keras model's call, else the root's one ``tf.function`` with an input
    signature (none when there are several)."""
    if _is_keras(root):
        return _keras_serving(root)
    candidates = [fn.get_concrete_function() for _, fn in _function_attributes(root) if fn.input_signature is not None]
    # (as TF's: only functions whose outputs are all tensors can serve; ``mutate`` returning None cannot)
    candidates = [c for c in candidates if _tensor_outputs(c)]
    if len(candidates) == 1:
        return candidates[0]
    return None


def _tensor_outputs(concrete):
    flat = nest.flatten(concrete.structured_outputs)
    return all(isinstance(s, TensorSpec) for s in flat)


def _keras_serving(model):
    specs = _keras_input_specs(model)
    if specs is None:
        return None

    def serve(inputs):
        return model(inputs, training=False)

    return Function(serve, input_signature=[specs]).get_concrete_function()


def _keras_input_specs(model):
    inputs = None
    with contextlib.suppress(AttributeError, ValueError):
        inputs = model.inputs
    if inputs:
        specs = [TensorSpec(t.shape, t.dtype, "inputs") for t in inputs]
        return specs[0] if len(specs) == 1 else specs
    shapes = getattr(model, "__dict__", {}).get("_build_shapes_dict")
    shape = (shapes or {}).get("input_shape")
    if shape is None or not all(isinstance(d, (int, type(None))) for d in shape):
        return None
    return TensorSpec((None,) + tuple(shape)[1:], "float32", "inputs")


def _signatures(root, signatures):
    if signatures is None:
        found = _default_signature(root)
        return {} if found is None else {SERVING: found}
    if not isinstance(signatures, dict):
        signatures = {SERVING: signatures}
    out = {}
    for name, fn in signatures.items():
        if isinstance(fn, Function):
            if fn.input_signature is None:
                raise ValueError(f"Exporting an unsaved tf.function {fn.name!r} as a signature requires an "
                                 "input_signature; pass a concrete function (fn.get_concrete_function(...)) or "
                                 "give it an input_signature.")
            fn = fn.get_concrete_function()
        if not isinstance(fn, ConcreteFunction):
            raise ValueError(f"Expected a TensorFlow function for which to generate a signature (but got {fn}). "
                             "Only `tf.functions` with an input signature or concrete functions can be used "
                             "as a signature.")
        out[name] = fn
    return out


def _trackable(obj):
    return isinstance(obj, (Module, ckpt_mod.Checkpoint)) or _is_keras(obj)


def save(obj, export_dir, signatures=None, options=None):
    """Write ``obj`` (a ``tf.Module``, Keras model or ``tf.train.Checkpoint``) as a SavedModel at ``export_dir``.

    Its variables go to ``variables/variables`` (a tapeflow checkpoint), the concrete functions of its
    ``tf.function`` attributes (traced now for those with an input signature and no trace yet) and of its
    signatures to ``saved_model.json`` and ``constants.npz``.

    Args:
        obj: the object to save.
        export_dir: the directory to write (replaced if it exists).
        signatures: a ``tf.function`` with an input signature, a concrete function, or a dict of them by
            signature name; by default a Keras model's call, or the object's one ``tf.function`` with an input
            signature.
        options: accepted for TF's signature; tapeflow has no save options.

    Raises:
        ValueError: for an object that is not trackable, or a function that cannot be written (its message says
            why: control flow or custom gradients in it, a Python object as an attribute).
        AssertionError: for a function reading a variable that is not reachable from ``obj`` (TF's error).
    """
    if not _trackable(obj):
        raise ValueError("Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj!r} with type {type(obj)}.")
    export_dir = os.fspath(export_dir)
    if os.path.exists(export_dir) and not os.path.isdir(export_dir):
        raise errors.FailedPreconditionError(None, None, f"{export_dir} is not a directory")
    writer = _Writer(obj)
    try:
        writer.add(obj)
        sigs = {name: writer.signature(fn) for name, fn in _signatures(obj, signatures).items()}
    except Unsavable as exc:
        raise ValueError(f"Cannot save {type(obj).__name__} object as a SavedModel: {exc}.") from None
    values = {key: ckpt_mod._base(v)._snapshot() for key, v in writer.values.items()}
    meta = {key: {"full_name": ckpt_mod._base(v).name.rsplit(":", 1)[0]} for key, v in writer.values.items()}
    document = {"format": FORMAT, "version": VERSION, "objects": writer.objects, "functions": writer.functions,
                "signatures": sigs}
    _write_directory(export_dir, document, writer.encode.arrays, values, meta)


_OURS = {GRAPH_FILE, CONSTANTS_FILE, "variables", "assets"}


def _only_ours(export_dir):
    """Whether ``export_dir`` holds nothing but a SavedModel's own files (so replacing it loses nothing else)."""
    try:
        names = set(os.listdir(export_dir))
        inner = set(os.listdir(os.path.join(export_dir, "variables"))) if "variables" in names else set()
        assets = os.listdir(os.path.join(export_dir, "assets")) if "assets" in names else []
    except OSError:
        return False
    return names <= _OURS and inner <= {"variables.npz"} and not assets


def _digest(path):
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _write_files(directory, document, constants, values, meta):
    """Write the SavedModel's files into ``directory``, each atomically, ``saved_model.json`` last: it records
    the digests of the others, so a directory whose files come from different saves is refused when loaded."""
    os.makedirs(os.path.join(directory, "variables"), exist_ok=True)
    os.makedirs(os.path.join(directory, "assets"), exist_ok=True)
    variables = os.path.join(directory, "variables", "variables")
    cio.write_checkpoint(variables, {k: np.asarray(v) for k, v in values.items()}, meta)
    cio.write_npz(os.path.join(directory, CONSTANTS_FILE), constants)
    document = dict(document, files={CONSTANTS_FILE: _digest(os.path.join(directory, CONSTANTS_FILE)),
                                     "variables/variables.npz": _digest(cio.data_path(variables))})
    text = json.dumps(document, indent=1, sort_keys=True).encode("utf-8")
    cio.atomic_write(os.path.join(directory, GRAPH_FILE), lambda f: f.write(text))


def _write_directory(export_dir, document, constants, values, meta):
    """Write the SavedModel at ``export_dir``: as a whole directory moved into place when ``export_dir`` is new or
    holds only a SavedModel; file by file into a directory that holds other files too (they are left alone)."""
    if os.path.isdir(export_dir) and not _only_ours(export_dir):
        _write_files(export_dir, document, constants, values, meta)
        return
    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    base = os.path.basename(os.path.abspath(export_dir))
    tmp = os.path.join(parent, f".{base}~saving~{os.getpid()}~{secrets.token_hex(4)}")
    old = None
    try:
        os.makedirs(tmp)
        _write_files(tmp, document, constants, values, meta)
        if os.path.isdir(export_dir):
            old = os.path.join(parent, f".{base}~replaced~{os.getpid()}~{secrets.token_hex(4)}")
            os.replace(export_dir, old)
        os.replace(tmp, export_dir)
    except BaseException:
        if old is not None and not os.path.exists(export_dir):
            os.replace(old, export_dir)  # put the previous SavedModel back
            old = None
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    cio._fsync_dir(parent)

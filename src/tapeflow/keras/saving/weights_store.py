"""A model's state in Keras 3's HDF5 layout (the ``.weights.h5`` file, and ``model.weights.h5`` in a ``.keras``).

Keras walks a model as a tree of "saveables" (layers and the optimizer) and stores each one's own variables in an
HDF5 group ``<path>/vars`` (attribute ``name``: the object's name) as datasets ``"0"``, ``"1"``, ... The path of
a child is the attribute holding it (``d1``, ``optimizer``, ``cell``), or for a list (the ``layers`` of a
``Sequential`` or functional model) ``<attribute>/<snake_case class name>`` made unique with ``_1``, ``_2``
(``layers/dense``, ``layers/dense_1``). Attributes are visited in sorted order, private ones (``_x``) last, those
of the base ``Layer`` class skipped, and an object reached twice is stored at its first path only. A layer's own
variables are the ones it created trainable, then the others (``BatchNormalization``: gamma, beta, moving mean,
moving variance); an optimizer's are ``optimizer.variables`` (the step count, the learning rate, then its slots).
This module walks tapeflow objects the same way, so TensorFlow reads tapeflow's files and tapeflow reads
TensorFlow's.

Loading is all-or-nothing: every value is read and checked (count, shape, dtype kind) before any is assigned. An
optimizer whose variable count differs from the file's is skipped with a warning, as Keras does (for instance one
not built yet).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._state import to_snake_case

__all__ = ["h5py", "walk", "own_variables", "write", "read_assignments", "assign"]


def h5py():
    """The ``h5py`` module, or an ``ImportError`` naming tapeflow's extra."""
    from ..._core.extras import require

    return require("h5py", "Reading and writing Keras `.keras`, `.weights.h5` and `.h5` files", "h5")


_SKIP = {}


def _skipset(obj):
    """The attributes Keras does not walk for ``obj``: those of a bare ``Layer`` (plus the graph internals of
    ``Sequential`` and functional models)."""
    from ..layers.base import Layer
    from ..models import Functional, Sequential

    kind = "sequential" if isinstance(obj, Sequential) else "functional" if isinstance(obj, Functional) else "layer"
    skip = _SKIP.get(kind)
    if skip is None:
        if "layer" not in _SKIP:
            _SKIP["layer"] = frozenset(dir(Layer(name="_saving_reference"))) | {"_inbound_nodes"}
        base = _SKIP["layer"]
        _SKIP["sequential"] = base | {"_functional", "_input_layer"}
        _SKIP["functional"] = base | {"operations", "_operations", "_graph_nodes"}
        skip = _SKIP[kind]
    return skip


def _is_saveable(obj):
    from ..layers.base import Layer
    from ..optimizers.base import Optimizer

    return isinstance(obj, (Layer, Optimizer))


def _children(obj):
    """``(attribute, child)`` pairs in Keras's walking order."""
    from ..layers.base import Layer
    from ..models import Functional, Sequential

    if not isinstance(obj, Layer):
        # An optimizer's only saveable attribute: a loss-scale optimizer's inner optimizer.
        inner = getattr(obj, "inner_optimizer", None)
        return [("inner_optimizer", inner)] if inner is not None else []
    out = []
    if isinstance(obj, (Sequential, Functional)):
        out.append(("layers", obj.layers))
    skip = _skipset(obj)
    names = sorted((n for n in dir(obj) if not n.startswith("__") and n not in skip),
                   key=lambda n: "~" + n if n.startswith("_") else n)
    for name in names:
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - Keras ignores attributes that raise when read
            continue
        if _is_saveable(value) or isinstance(value, (list, tuple, dict)):
            out.append((name, value))
    return out


def walk(root):
    """``[(path, saveable)]`` of ``root`` and every layer and optimizer under it, in Keras's order and paths
    (``""`` for the root)."""
    visited, out = set(), []

    def visit(obj, path):
        if id(obj) in visited:
            return
        visited.add(id(obj))
        out.append((path, obj))
        for name, child in _children(obj):
            child_path = f"{path}/{name}" if path else name
            if _is_saveable(child):
                visit(child, child_path)
            else:
                container(child, child_path, set())

    def container(items, path, seen):
        if id(items) in seen:
            return
        seen.add(id(items))
        used = {}
        for item in (list(items.values()) if isinstance(items, dict) else items):
            if _is_saveable(item):
                visit(item, f"{path}/{_unique(to_snake_case(type(item).__name__), used)}")
            elif isinstance(item, (list, tuple, dict)):
                container(item, f"{path}/{_unique('container', used)}", seen)

    visit(root, "")
    return out


def _unique(name, used):
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def own_variables(obj):
    """The variables Keras stores in ``obj``'s group, in its order."""
    from ..optimizers.base import Optimizer

    if isinstance(obj, Optimizer):
        return list(obj.variables)
    own = list(obj._tracked_variables)
    trainable = [v for v in own if getattr(v, "_keras_trainable", v.trainable)]
    return trainable + [v for v in own if not getattr(v, "_keras_trainable", v.trainable)]


def _numpy(variable):
    return np.asarray(variable.numpy())


def write(h5file, root):
    """Write ``root``'s state into the open ``h5py.File``."""
    for path, obj in walk(root):
        group = h5file.create_group(f"{path}/vars" if path else "vars")
        name = getattr(obj, "name", None)
        if isinstance(name, str):
            group.attrs["name"] = name
        for i, variable in enumerate(own_variables(obj)):
            group.create_dataset(str(i), data=_numpy(variable))


def _group(h5file, path):
    h5 = h5py()
    target = f"{path}/vars" if path else "vars"
    node = h5file
    for part in target.split("/"):
        if part not in node:
            return {}
        link = node.get(part, getclass=True, getlink=True)
        if link in (h5.ExternalLink, h5.SoftLink):
            raise ValueError(f"Not allowed: H5 file with {link.__name__}")
        node = node[part]
        if not isinstance(node, h5.Group):
            raise ValueError(f"Invalid H5 file, expected Group but received {type(node)}")
    return node


def _dataset(group, key):
    h5 = h5py()
    node = group[key]
    if not isinstance(node, h5.Dataset):
        raise ValueError(f"Invalid H5 file, expected Dataset, received {type(node)}")
    if node.external or node.is_virtual:
        raise ValueError("Not allowed: H5 file with an external or virtual Dataset")
    return np.asarray(node[()])


def read_assignments(h5file, root, filepath, skip_mismatch=False):
    """``[(variable, value)]`` for every variable of ``root`` from the open file, all checked.

    Raises:
        ValueError: naming ``filepath`` and the layer, for a variable count, shape or dtype kind that does not
            match (a layer missing from the file has no variables there). With ``skip_mismatch`` such layers are
            skipped with a warning instead.
    """
    from ..optimizers.base import Optimizer

    pairs = []
    for path, obj in walk(root):
        variables = own_variables(obj)
        group = _group(h5file, path)
        keys = list(group.keys())
        where = f"'{path or '/'}' of {filepath}"
        if isinstance(obj, Optimizer):
            if len(keys) != len(variables):
                msg = (f"Skipping variable loading for optimizer '{obj.name}', because it has {len(variables)} "
                       f"variables whereas the saved optimizer has {len(keys)} variables. ")
                if not keys or len(variables) <= 2:
                    msg += "This is likely because the optimizer has not been called/built yet."
                warnings.warn(msg, stacklevel=3)
                continue
        try:
            if len(keys) != len(variables):
                raise ValueError(f"Layer '{obj.name}' expected {len(variables)} variables, but received {len(keys)} "
                                 f"variables during loading (group {where}). Expected: "
                                 f"{[v.name for v in variables]}")
            found = []
            for i, variable in enumerate(variables):
                if str(i) not in group:
                    raise ValueError(f"Variable {i} of '{obj.name}' is missing from group {where}.")
                found.append((variable, _checked(variable, _dataset(group, str(i)), obj, where)))
        except ValueError:
            if not skip_mismatch:
                raise
            warnings.warn(f"Skipping loading weights for layer '{obj.name}': its variables do not match {where}.",
                          stacklevel=3)
            continue
        pairs.extend(found)
    return pairs


def _checked(variable, value, obj, where):
    expected = tuple(variable.shape.as_list())
    if tuple(value.shape) != expected:
        raise ValueError(f"The shape of the target variable and the shape of the target value in `variable.assign"
                         f"(value)` must match. variable.shape={expected}, Received: value.shape={value.shape}. "
                         f"Target variable: '{variable.path}' of '{obj.name}', in group {where}.")
    dtype = np.dtype(getattr(variable.dtype, "as_numpy_dtype", variable.dtype))
    if value.dtype.kind not in "biuf" or not np.can_cast(value.dtype, dtype, casting="same_kind"):
        if not (value.dtype.kind in "iu" and dtype.kind in "iu"):
            raise ValueError(f"Cannot load a value of dtype {value.dtype.name} into variable '{variable.path}' of "
                             f"dtype {dtype.name} ('{obj.name}', group {where}).")
    return value.astype(dtype, copy=False)


def assign(pairs, root=None):
    """Assign every checked value (after all checks passed); then the layers of ``root`` that derive state from
    their variables (``_on_variables_loaded``: an adapted ``Normalization``) update it."""
    for variable, value in pairs:
        variable.assign(value)
    if root is not None:
        for _, obj in walk(root):
            hook = getattr(obj, "_on_variables_loaded", None)
            if hook is not None:
                hook()

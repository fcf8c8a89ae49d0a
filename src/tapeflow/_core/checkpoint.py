"""``tf.train.Checkpoint``: save and restore the variables reachable from a set of objects, crash-safely.

What is tracked (the object graph, walked breadth-first from the checkpoint, so each variable is saved once, under
the shortest path that reaches it): keyword arguments and later public attributes of the checkpoint; ``tf.Variable``
and Keras variables (the values saved); ``tf.Module`` attributes (public and private), recursively; lists, tuples
and dicts holding any of these; Keras optimizers: ``_iterations``, ``_learning_rate`` and their slots, which are
saved under the variable they belong to, so a restored optimizer finds them by variable rather than by position.
Optimizer variables not identified as slots of a tracked variable are saved by position (``_variables/<i>``). A
``LossScaleOptimizer``'s inner optimizer is tracked as ``inner_optimizer``.

Restoring reads and checks the whole file, then validates every value (dtype, then shape) before assigning any, so
a damaged file or a mismatch raises and changes nothing.
Slots of an optimizer that has not been built yet are restored when it creates them (deferred restoration), and so
is what is attached after ``restore`` (TF's delayed restoration): a variable, module, list or dict assigned to an
attribute of the checkpoint or of a module, or added to a tracked list or dict, gets the values saved at its path
(see :mod:`.tracking`). Dict keys must be strings, as in TF.

The file format is described in :mod:`tapeflow._core.checkpoint_io`.
"""

from __future__ import annotations

import os
import re
import weakref

import numpy as np

from . import checkpoint_io as cio
from . import checkpoint_state, errors, tracking
from . import dtypes as _dtypes
from .module import Module
from .variable import Variable, name_scope

__all__ = ["Checkpoint", "CheckpointLoadStatus", "InitializationOnlyStatus"]

_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
_ITERATOR = "/.ATTRIBUTES/ITERATOR_STATE"
_INDEX_KEY = re.compile(r"(.*)/_variables/(\d+)" + re.escape(_VALUE))
# TensorFlow's DataType names, used in its restore errors.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


# --- the object graph ---------------------------------------------------------------------------------------
def _is_keras_variable(obj):
    return getattr(obj, "_tapeflow_variable", False) and "_var" in getattr(obj, "__dict__", {})


def _is_variable(obj):
    return isinstance(obj, Variable) or _is_keras_variable(obj)


def _base(obj):
    """The ``tf.Variable`` behind a Keras variable (identity for anything else)."""
    return obj._var if _is_keras_variable(obj) else obj


def _is_optimizer(obj):
    return all(hasattr(obj, a) for a in ("_iterations", "_variables", "_trainable_variables",
                                         "add_variable_from_reference"))


def _is_layer(obj):
    """A Keras layer or model (checked by its attributes: this module does not import Keras)."""
    return hasattr(obj, "weights") and hasattr(obj, "built") and hasattr(obj, "add_weight")


def _is_trackable(obj):
    return (isinstance(obj, (Checkpoint, Module)) or _is_variable(obj) or _is_optimizer(obj)
            or _is_layer(obj) or _is_iterator(obj))


def _is_iterator(obj):
    """A ``tf.data`` iterator: saved as its position (``ITERATOR_STATE``)."""
    return getattr(type(obj), "_tapeflow_iterator", False)


class _IteratorState:
    """A dataset iterator seen as the one value a checkpoint saves of it: the number of elements it has given (an
    int64 vector of one), restored by skipping that many elements of a fresh iteration."""

    dtype = _dtypes.int64

    def __init__(self, iterator):
        self.iterator = iterator
        self.name = "iterator"

    @property
    def shape(self):
        from .shape import TensorShape  # noqa: PLC0415

        return TensorShape([1])

    def _snapshot(self):
        return np.array([self.iterator._position], np.int64)

    def assign(self, value):
        self.iterator._restore_position(int(np.asarray(value).reshape(-1)[0]))


def _holds_trackable(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_trackable(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_trackable(v) for v in value.values())
    return _is_trackable(value)


_MODULE_INTERNALS = frozenset({"_name", "_scope", "_name_scope"})


def _children(obj):
    """``(name, child)`` pairs of an object of the graph, in a fixed order."""
    if isinstance(obj, Checkpoint):
        items = sorted(obj._tracked.items())
        if obj._save_counter is not None:
            items.append(("save_counter", obj._save_counter))
        return items
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _holds_trackable(v)]
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str) and _holds_trackable(v):
                raise ValueError(
                    f"Unable to save the object {obj!r} (a dictionary wrapper constructed automatically on attribute "
                    "assignment). The wrapped dictionary contains a non-string key which maps to a trackable object "
                    "or mutable data structure.\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                    "non-trackable object; it will be subsequently ignored.")
        return [(k, obj[k]) for k in sorted(k for k in obj if isinstance(k, str) and _holds_trackable(obj[k]))]
    if _is_optimizer(obj):
        items = [("_iterations", obj._iterations)]
        if _is_variable(getattr(obj, "_learning_rate", None)):
            items.append(("_learning_rate", obj._learning_rate))
        inner = getattr(obj, "inner_optimizer", None)  # a LossScaleOptimizer's: its steps, rate and slots
        if _is_optimizer(inner):
            items.append(("inner_optimizer", inner))
        return items
    if isinstance(obj, Module):
        return [(k, v) for k, v in sorted(vars(obj).items())
                if k not in _MODULE_INTERNALS and _holds_trackable(v)]
    if _is_layer(obj):
        # Its weights in order: the same keys for every model of the same architecture (variable paths carry
        # per-process name counters, ``dense_3/kernel``, so they cannot be keys).
        return [("weights", list(obj.weights))]
    return []


def _slot_name(primary, slot, attr):
    if hasattr(primary, "path"):
        prefix = primary.path.replace("/", "_")
    else:
        prefix = str(primary.name).replace("/", "_").replace(":", "_")
    name = str(slot.name)
    return name[len(prefix) + 1:] if name.startswith(prefix + "_") else attr.lstrip("_")


def _slots(opt):
    """``(primary variable, slot name, slot)`` for each slot of a built optimizer.

    A slot list is an attribute holding, for each variable the optimizer was built with, one of its variables (or
    ``None``): that is how Keras optimizers keep ``_momentums``, ``_velocities``, ...
    """
    primaries = list(getattr(opt, "_trainable_variables", None) or [])
    if not primaries:
        return []
    owned = {id(v) for v in opt._variables}
    out = []
    for attr, value in sorted(vars(opt).items()):
        if attr in ("_variables", "_trainable_variables") or not isinstance(value, list) or len(value) != len(
                primaries):
            continue
        if all(v is None for v in value) or not all(v is None or id(v) in owned for v in value):
            continue
        out.extend((p, _slot_name(p, s, attr), s) for p, s in zip(primaries, value) if s is not None)
    return out


def _slot_key(var_path, opt_path, name):
    return f"{var_path}/.OPTIMIZER_SLOT/{opt_path}/{name}{_VALUE}"


class _Graph:
    """The variables reachable from a root: ``values`` maps checkpoint keys to variables."""

    def __init__(self, root, prefix=""):
        self.values = {}
        self.meta = {}
        self.path_of = {}
        self.var_at = {}
        self.optimizers = {}
        seen = {id(root)}
        queue = [(prefix, root)]
        if _is_optimizer(root):
            self.optimizers[prefix] = root
        object_path, shared = {id(root): prefix}, {}  # a second path to an object -> the path it is saved under
        while queue:
            path, obj = queue.pop(0)
            for name, child in _children(obj):
                ident = id(_base(child))
                child_path = f"{path}/{name}" if path else name
                if ident in seen:
                    if ident in object_path:
                        shared[child_path] = object_path[ident]
                    continue
                seen.add(ident)
                object_path[ident] = child_path
                if _is_iterator(child):
                    self._add(child_path + _ITERATOR, _IteratorState(child))
                elif _is_variable(child):
                    self._add(child_path + _VALUE, child)
                    self.path_of[ident] = child_path
                    self.var_at[child_path] = child
                else:
                    if _is_optimizer(child):
                        self.optimizers[child_path] = child
                    queue.append((child_path, child))
        for opt_path, opt in self.optimizers.items():
            for primary, name, slot in _slots(opt):
                var_path = self.path_of.get(id(_base(primary)))
                if var_path is None or id(_base(slot)) in seen:
                    continue
                seen.add(id(_base(slot)))
                self._add(_slot_key(var_path, opt_path, name), slot,
                          slot={"variable": var_path, "optimizer": opt_path, "name": name})
            for i, variable in enumerate(opt._variables):
                if id(_base(variable)) not in seen:
                    seen.add(id(_base(variable)))
                    self._add(f"{opt_path}/_variables/{i}{_VALUE}", variable)
        # Each saved value also under the other paths that reach its variable (``mapped/two`` for ``listed/1``), so
        # that an object graph restored through any of them finds it, as TF's object graph does.
        under = None  # saved keys by the path of each object above them (built only for a shared container)
        for alias, primary in shared.items():
            if not primary:
                continue
            for suffix in (_VALUE, _ITERATOR):  # a shared variable (or iterator): its own key
                if primary + suffix in self.meta:
                    self.meta[primary + suffix].setdefault("aliases", []).append(alias + suffix)
                    break
            else:  # a shared container: every key under it
                if under is None:
                    under = {}
                    for key in self.values:
                        parts = key.split("/")
                        for i in range(1, len(parts)):
                            under.setdefault("/".join(parts[:i]), []).append(key)
                for key in under.get(primary, ()):
                    self.meta[key].setdefault("aliases", []).append(alias + key[len(primary):])

    def _add(self, key, variable, **extra):
        self.values[key] = variable
        self.meta[key] = {"full_name": str(_base(variable).name).rsplit(":", 1)[0], **extra}


# --- validation and assignment -------------------------------------------------------------------------------
def _check(variable, value, key):
    """Raise TF's error if the saved ``value`` cannot be restored into ``variable``."""
    base = _base(variable)
    want = base.dtype.name
    if value.dtype.name != want:
        have = value.dtype.name
        raise errors.InvalidArgumentError(
            None, None, f"{{{{function_node __wrapped__RestoreV2_dtypes_1_device_{errors.CPU_DEVICE}}}}} "
            f"tensor_name = {key}; expected dtype {_TF_TYPE_NAMES.get(want, want)} does not equal original dtype "
            f"{_TF_TYPE_NAMES.get(have, have)} [Op:RestoreV2]")
    if not base.shape.is_compatible_with(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to restore "
                         f"variable with shape {base.shape} and name {base.name}.")


def _assign(variable, value):
    _base(variable).assign(np.array(value, copy=True))


def _install_deferred(opt):
    """Make ``opt`` fill slots (and positional variables) from pending checkpoint values as it creates them."""
    pending = opt.__dict__.get("_tapeflow_pending_restore")
    if pending is not None:
        return pending
    pending = opt.__dict__["_tapeflow_pending_restore"] = {"slots": {}, "index": {}}
    make_slot = opt.add_variable_from_reference
    make_variable = opt.add_variable

    def deliver(variable, item):
        value, key, restoration = item[:3]
        _check(variable, value, key)
        _assign(variable, value)
        restoration.resolve(key)

    def add_variable(*args, **kwargs):
        variable = make_variable(*args, **kwargs)
        item = pending["index"].pop(len(opt._variables) - 1, None)
        if item is not None:
            deliver(variable, item)
        return variable

    def add_variable_from_reference(reference_variable, name=None, initializer="zeros"):
        slot = make_slot(reference_variable, name=name, initializer=initializer)
        item = pending["slots"].pop((id(_base(reference_variable)), name or "var"), None)
        if item is not None:
            deliver(slot, item)
        return slot

    # Instance attributes: the optimizer's own calls (``self.add_variable...``) go through them.
    opt.add_variable = add_variable
    opt.add_variable_from_reference = add_variable_from_reference
    return pending


def _unresolved_text(key, entry):
    path = key[:-len(_VALUE)] if key.endswith(_VALUE) else key
    return (f"Unresolved object in checkpoint (root).{path.replace('/', '.')}: attributes {{\n"
            f"  name: \"VARIABLE_VALUE\"\n  full_name: \"{entry.get('full_name', '')}\"\n"
            f"  checkpoint_key: \"{key}\"\n}}\nhas_checkpoint_values {{\n  value: true\n}}\n")


def _armable(obj):
    return isinstance(obj, (Checkpoint, Module, tracking.TrackedList, tracking.TrackedDict))


def _members(obj):
    """``(name, child, store)`` for every attribute or item of an armable container, trackable or not yet
    (``store(v)`` puts ``v`` in the child's place without going through delayed restoration)."""
    if isinstance(obj, Checkpoint):
        return [(k, v, lambda v, k=k: obj._store(k, v)) for k, v in list(obj._tracked.items())]
    if isinstance(obj, Module):
        return [(k, v, lambda v, k=k: object.__setattr__(obj, k, v)) for k, v in list(vars(obj).items())
                if k not in _MODULE_INTERNALS]
    if isinstance(obj, list):
        return [(i, v, lambda v, i=i: list.__setitem__(obj, i, v)) for i, v in enumerate(obj)]
    return [(k, v, lambda v, k=k: dict.__setitem__(obj, k, v)) for k, v in list(obj.items())]


class _Restoration:
    """The values of one ``restore`` call not restored yet, and how objects attached later receive them."""

    def __init__(self, entries, values, root):
        self.entries = entries
        self.values = values
        self.pending = set(entries)
        # other path -> the key its value is saved under (objects reachable through several paths)
        self.alias = {a: key for key, entry in entries.items() for a in entry.get("aliases", ())}
        # Weak: the restoration lives as long as what it watches, which must not keep the root alive.
        self._root = weakref.ref(root)

    def wants(self, path):
        if not path:
            return bool(self.pending)
        prefix = path + "/"
        for key in self.pending:
            # A slot is wanted under its variable's path and under its optimizer's.
            slot = self.entries[key].get("slot")
            if key.startswith(prefix) or (slot and (slot["optimizer"] + "/").startswith(prefix)):
                return True
            if any(a.startswith(prefix) for a in self.entries[key].get("aliases", ())):
                return True
        return False

    def key_of(self, key):
        """The key a value is saved under, for the key (path) of a variable found now."""
        return key if key in self.entries else self.alias.get(key, key)

    def resolve(self, key):
        self.pending.discard(key)
        self.values.pop(key, None)  # its value is in the variable now: do not keep a second copy alive

    def attach(self, value, path):
        """Restore ``value``, attached at ``path`` after ``restore`` ran, and arm its containers."""
        if _is_variable(value):
            key = self.key_of(path + _VALUE)
            if key in self.pending:
                _check(value, self.values[key], key)
                _assign(value, self.values[key])
                self.resolve(key)
        elif _is_layer(value) and not self._complete(value, path):
            if self.wants(path):
                tracking.arm(value, self, path)  # restored when it is built
        elif self.wants(path) and (_holds_trackable(value) or _armable(value)):
            self.apply(value, path)

    def _complete(self, layer, path):
        """Whether a Keras layer has made all the weights the checkpoint holds for it (its keys are positions in
        ``weights``, so a partly built layer would take values meant for others)."""
        prefix = f"{path}/weights/" if path else "weights/"
        saved = sum(1 for key in self.entries if key.startswith(prefix) and key.endswith(_VALUE)
                    and "/" not in key[len(prefix):-len(_VALUE)])
        return bool(getattr(layer, "built", False)) and len(layer.weights) == saved

    def apply(self, root, prefix=""):
        """Restore every pending value whose variable is reachable from ``root`` (found at ``prefix``): all
        checked before any is assigned; optimizer slots not created yet, and containers' later additions, wait."""
        graph = _Graph(root, prefix)
        found = {self.key_of(k): v for k, v in graph.values.items()}  # (saved key -> variable, aliases resolved)
        now, later, whole = [], [], None
        for key in sorted(self.pending):
            entry = self.entries[key]
            if key in found:
                now.append((found[key], self.values[key], key))
                continue
            slot = entry.get("slot")
            if slot:
                opt = graph.optimizers.get(slot["optimizer"])
                primary = graph.var_at.get(slot["variable"])
                if opt is not None and primary is None and prefix:
                    # An optimizer attached after ``restore``: its variables are elsewhere in the graph.
                    if whole is None:
                        root = self._root()
                        whole = _Graph(root).var_at if root is not None else {}
                    primary = whole.get(slot["variable"])
                if opt is not None and primary is not None:
                    later.append((opt, "slots", (id(_base(primary)), slot["name"]), (self.values[key], key, self)))
                continue
            index = _INDEX_KEY.fullmatch(key)
            if index and index.group(1) in graph.optimizers:
                opt = graph.optimizers[index.group(1)]
                if int(index.group(2)) >= len(opt._variables):
                    later.append((opt, "index", int(index.group(2)), (self.values[key], key, self)))
        for variable, value, key in now:  # everything is checked before anything changes
            _check(variable, value, key)
        for variable, value, key in now:
            _assign(variable, value)
            self.resolve(key)
        for opt, kind, ident, item in later:
            _install_deferred(opt)[kind][ident] = item
        if _armable(root) or _is_layer(root):
            self._arm(root, prefix, set())

    def _arm(self, obj, path, seen):
        if id(obj) in seen or not self.wants(path):
            return
        seen.add(id(obj))
        tracking.arm(obj, self, path)
        if _is_layer(obj):
            return  # (restored when it is built: ``tracking.layer_built``)
        for name, child, store in _members(obj):
            if type(child) in (list, dict):  # a plain one cannot report additions: swap in a tracked copy
                child = tracking.wrap(child)
                store(child)
            if _armable(child) or _is_layer(child):
                self._arm(child, tracking.child_path(path, name), seen)


def _restore(root, save_path):
    entries, values = cio.read_checkpoint(save_path)
    restoration = _Restoration(entries, values, root)
    restoration.apply(root)
    return CheckpointLoadStatus(restoration, root)


# --- statuses ---------------------------------------------------------------------------------------------------
class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: checks on how the checkpoint and the objects matched.

    The checks look at the objects as they are when called, so values restored later (delayed restoration of
    objects attached after ``restore``) count."""

    def __init__(self, restoration, root):
        self._restoration = restoration
        self._entries = restoration.entries
        self._root = root

    def _resolved(self, key):
        self._restoration.resolve(key)

    def assert_consumed(self):
        """Raise ``AssertionError`` unless every saved value was restored and every variable got a value."""
        for key in self._entries:
            if key in self._restoration.pending:
                raise AssertionError(_unresolved_text(key, self._entries[key]))
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Raise ``AssertionError`` if a variable that exists now has no value in the checkpoint."""
        unmatched = [v for key, v in _Graph(self._root).values.items()
                     if self._restoration.key_of(key) not in self._entries]
        if unmatched:
            n = len(unmatched)
            shown = unmatched[:10]
            raise AssertionError(f"Found {n} Python objects that were not bound to checkpointed values, likely due "
                                 f"to changes in the Python program. Showing {len(shown)} of {n} unmatched objects: "
                                 f"{shown!r}")
        return self

    def assert_nontrivial_match(self):
        """Raise ``AssertionError`` if nothing but the save counter was restored."""
        pending = self._restoration.pending
        if not [k for k in self._entries if k not in pending and not k.startswith("save_counter/")]:
            raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this "
                                 "means that the checkpoint does not match the Python program.")
        return self

    def expect_partial(self):
        """Accept a partial match silently (tapeflow never warns about one); returns the status."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run in eager mode: values are restored already."""

    def initialize_or_restore(self, session=None):
        """Nothing to run in eager mode: values are restored already."""


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing was restored."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_existing_objects_matched(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_nontrivial_match(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run."""

    def initialize_or_restore(self, session=None):
        """Nothing to run."""


# --- tf.train.Checkpoint ---------------------------------------------------------------------------------------
class Checkpoint:
    """Save and restore the variables of the objects given as keyword arguments (``tf.train.Checkpoint``).

    Args:
        root: an optional object whose tracked children are saved at the top level.
        **kwargs: objects to track by name: variables, modules, optimizers, checkpoints, lists and dicts of them.

    Raises:
        ValueError: for a keyword argument that is not a trackable object.
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_tracked", {})
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            if not _is_trackable(root):
                raise ValueError(f"`Checkpoint` was expecting root to be a trackable object (an object derived from "
                                 f"`Trackable`), got {root}. If you believe this object should be trackable (i.e. "
                                 "it is part of the TensorFlow Python API and manages state), please open an issue.")
            for name, child in _children(root):
                self._tracked[name] = child
        for name, value in sorted(kwargs.items()):
            if not _is_trackable(value) and not (isinstance(value, (list, tuple, dict))):
                raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived "
                                 f"from `Trackable`), got {value}. If you believe this object should be trackable "
                                 "(i.e. it is part of the TensorFlow Python API and manages state), please open an "
                                 "issue.")
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name.startswith("_") or not (_holds_trackable(value) or isinstance(value, (list, tuple, dict))):
            object.__setattr__(self, name, value)
            return
        # Lists and dicts are tracked even while empty: what is added to them later is saved too. An attribute
        # assigned after ``restore`` gets its saved value (delayed restoration).
        tracking.assign(self, name, value, lambda v: self._store(name, v))

    def _store(self, name, value):
        object.__setattr__(self, name, value)
        self._tracked[name] = value

    @property
    def save_counter(self):
        """How many times ``save`` ran: an ``int64`` variable, created on first use."""
        if self._save_counter is None:
            with name_scope("/"):
                counter = Variable(0, dtype="int64", trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", counter)
        return self._save_counter

    def write(self, file_prefix, options=None):
        """Save to exactly ``file_prefix`` (no counter, no state file); returns the path."""
        return self._write(file_prefix)

    def _write(self, file_prefix, extra=None):
        path = os.fspath(file_prefix)
        graph = _Graph(self)  # (the save counter is in it once ``save`` or ``restore`` made it, as in TF)
        # ``_snapshot``: a whole value even while another thread updates the variable in place.
        values = {key: np.array(_base(v)._snapshot()) for key, v in graph.values.items()}
        cio.write_checkpoint(path, values, graph.meta, extra)
        return path

    def save(self, file_prefix, options=None):
        """Save to ``<file_prefix>-<save_counter>`` after incrementing the counter, and record it as the latest."""
        counter = self.save_counter
        counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path)
        directory = os.path.dirname(path) or "."
        checkpoint_state.write_state(directory, path, [path])
        return path

    def read(self, save_path, options=None):
        """Restore from ``save_path`` (see :meth:`restore`), without making the save counter (as TF's ``read``)."""
        if save_path is None:
            return InitializationOnlyStatus()
        return _restore(self, os.fspath(save_path))

    def restore(self, save_path, options=None):
        """Restore the values saved at ``save_path``; ``None`` restores nothing.

        Returns:
            a status with ``assert_consumed``, ``assert_existing_objects_matched`` and ``expect_partial``.

        Restoring is all-or-nothing: the whole file is read and checked, and every value checked against its
        variable, before any variable changes.

        Raises:
            NotFoundError: if there is no checkpoint at ``save_path``.
            DataLossError: if the checkpoint's file is damaged (truncated, altered, not a tapeflow checkpoint).
            ValueError: for a saved value of another shape; InvalidArgumentError for another dtype.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        self.save_counter  # noqa: B018 - restored too
        return _restore(self, os.fspath(save_path))

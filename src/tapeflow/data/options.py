"""``tf.data.Options`` and its groups, with TF's fields, defaults, type checks and errors.

They are kept and merged along the pipeline (``dataset.options()``); this increment runs pipelines the same
whatever they say.
"""

from __future__ import annotations

import enum


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded (``tf.data.experimental.AutoShardPolicy``)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionsBase:
    """A record of declared properties: ``_FIELDS`` maps each name to ``(type, default)``; setting another name,
    or a value of another type, fails as TF's options do."""

    _FIELDS: dict = {}

    def __init__(self):
        for name, (kind, default) in self._FIELDS.items():
            object.__setattr__(self, name, kind() if isinstance(kind, type) and issubclass(kind, _OptionsBase)
                               else default)

    _mutable = True

    def __setattr__(self, name, value):
        if not self._mutable:
            raise ValueError("Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no effect. "
                             "Use `tf.data.Dataset.with_options(options)` to set or update dataset options.")
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._FIELDS[name][0]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f'Property "{name}" must be of type {kind}, got: {value} (type: {type(value)})')
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self._FIELDS)

    __hash__ = None

    def _frozen(self):
        """These options, made read-only with their groups (what ``dataset.options()`` returns)."""
        for name in self._FIELDS:
            value = getattr(self, name)
            if isinstance(value, _OptionsBase):
                value._frozen()
        object.__setattr__(self, "_mutable", False)
        return self

    def _merged(self, other):
        """These options with the ones set in ``other`` (not None, not default groups) taking over."""
        out = type(self)()
        for name in self._FIELDS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, _OptionsBase):
                object.__setattr__(out, name, mine._merged(theirs))
            else:
                object.__setattr__(out, name, theirs if theirs is not None else mine)
        return out


class ThreadingOptions(_OptionsBase):
    """Threading options (``options.threading``)."""

    _FIELDS = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class OptimizationOptions(_OptionsBase):
    """Graph optimizations (``options.experimental_optimization``)."""

    _FIELDS = {name: (bool, None) for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
        "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization", "noop_elimination",
        "parallel_batch", "seq_interleave_prefetch", "shuffle_and_repeat_fusion")}


class DistributeOptions(_OptionsBase):
    """Distribution options (``options.experimental_distribute``)."""

    _FIELDS = {"auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO), "num_devices": (int, None)}


class AutotuneOptions(_OptionsBase):
    """Autotuning options (``options.autotune``)."""

    _FIELDS = {"autotune_algorithm": (object, None), "cpu_budget": (int, None), "enabled": (bool, None),
               "initial_parallelism": (int, None), "min_parallelism": (int, None), "ram_budget": (int, None)}


class Options(_OptionsBase):
    """Options of a dataset (``dataset.with_options(options)``): determinism, threading, optimizations."""

    _FIELDS = {"autotune": (AutotuneOptions, None), "dataset_name": (str, None), "deterministic": (bool, None),
               "experimental_deterministic": (bool, None), "experimental_distribute": (DistributeOptions, None),
               "experimental_external_state_policy": (object, None),
               "experimental_optimization": (OptimizationOptions, None), "experimental_slack": (bool, None),
               "experimental_symbolic_checkpoint": (bool, None), "experimental_warm_start": (bool, None),
               "framework_type": (object, None), "threading": (ThreadingOptions, None)}

    @property
    def experimental_threading(self):
        """The old name of ``threading``."""
        return self.threading

    def merge(self, options):
        """These options, with the ones set in ``options`` taking over."""
        return self._merged(options)

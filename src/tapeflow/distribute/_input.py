"""Distributed input: ``experimental_distribute_dataset``, ``distribute_datasets_from_function`` and
``tf.distribute.InputContext``.

``experimental_distribute_dataset(ds)`` takes a dataset of *global* batches and gives each replica its part of
every one, as TF's rebatching does: with a global batch of ``B`` (the dataset's static batch size, else the first
batch's) and ``N`` replicas each replica's part holds ``ceil(B / N)`` rows, replica ``r`` taking rows
``[r * ceil(B/N), (r + 1) * ceil(B/N))`` (fewer, possibly none, for the last replicas and for a last partial
batch). Every process runs the whole input pipeline and keeps its part, so every rank steps the same number of
times. ``distribute_datasets_from_function(fn)`` calls ``fn`` once per process with an ``InputContext`` naming this
process's pipeline; ``fn`` shards and batches (per replica) itself.
"""

from __future__ import annotations

import enum

from .._core import nest

__all__ = ["InputContext", "InputOptions", "InputReplicationMode", "DistributedDataset",
           "DistributedDatasetsFromFunction", "DistributedIterator"]


class InputReplicationMode(enum.Enum):
    """How input pipelines map to workers (``tf.distribute.InputReplicationMode``)."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputOptions:
    """Options for distributed input (``tf.distribute.InputOptions``); accepted and kept."""

    def __init__(self, experimental_fetch_to_device=None, experimental_replication_mode=None,
                 experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode or InputReplicationMode.PER_WORKER
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


class InputContext:
    """Where one input pipeline stands in the job (``tf.distribute.InputContext``)."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """``global_batch_size // num_replicas_in_sync``.

        Raises:
            ValueError: when the replicas cannot share it evenly.
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: "
                f"{self._num_input_pipelines})")


def _static_batch(dataset):
    try:
        specs = nest.flatten(dataset.element_spec)
    except (AttributeError, TypeError):
        return None
    dims = [s.shape[0] for s in specs if getattr(s, "shape", None) is not None and s.shape.rank]
    return dims[0] if dims and dims[0] is not None else None


class DistributedIterator:
    """An iterator over a distributed dataset: this process's part of each element (``get_next``)."""

    def __init__(self, source, split):
        self._source = source
        self._split = split

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._source)
        return self._split(element) if self._split is not None else element

    def get_next(self):
        """The next element (``tf.errors.OutOfRangeError`` past the end, as TF's iterator)."""
        from .._core import errors

        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        from ..data.experimental import Optional

        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(None)


class DistributedDataset:
    """A dataset of global batches split across replicas (see the module docstring)."""

    _tapeflow_distributed_dataset = True  # Keras ``fit`` iterates it without splitting again

    def __init__(self, dataset, strategy, options=None):
        self._dataset = dataset
        self._strategy = strategy
        self._options = options
        self._rows = _static_batch(dataset)

    @property
    def element_spec(self):
        spec = self._dataset.element_spec
        if self._strategy.num_replicas_in_sync == 1:
            return spec
        from .._core.tensor_spec import TensorSpec

        def unbatched(s):
            if isinstance(s, TensorSpec) and s.shape.rank:
                return TensorSpec([None] + list(s.shape)[1:], s.dtype, s.name)
            return s

        return nest.map_structure(unbatched, spec)

    def _split(self, element):
        comm = self._strategy._comm
        leaves = nest.flatten(element)
        if not leaves or any(getattr(t, "shape", None) is None or not t.shape.rank for t in leaves):
            raise ValueError("experimental_distribute_dataset splits each element across the replicas along its "
                             "first dimension: batch the dataset first (its elements here are not batched).")
        if self._rows is None:
            self._rows = int(leaves[0].shape[0])
        per = -(-self._rows // comm.size)
        start = comm.rank * per
        return nest.map_structure(lambda t: t[start:start + per], element)

    def cardinality(self):
        """The number of (global) batches: the dataset's."""
        return self._dataset.cardinality()

    def __iter__(self):
        split = self._split if self._strategy.num_replicas_in_sync > 1 else None
        return DistributedIterator(iter(self._dataset), split)

    def __repr__(self):
        return f"<DistributedDataset of {self._dataset!r}>"


class DistributedDatasetsFromFunction:
    """The datasets ``dataset_fn(InputContext)`` makes, one per process (see the module docstring)."""

    _tapeflow_distributed_dataset = True

    def __init__(self, dataset_fn, strategy, options=None):
        comm = strategy._comm
        self._context = InputContext(comm.size, comm.rank, strategy.num_replicas_in_sync)
        self._dataset = dataset_fn(self._context)
        self._strategy = strategy
        self._options = options

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def cardinality(self):
        """The number of batches of this process's dataset."""
        return self._dataset.cardinality()

    def __iter__(self):
        return DistributedIterator(iter(self._dataset), None)

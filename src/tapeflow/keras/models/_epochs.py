"""What ``fit``, ``evaluate`` and ``predict`` iterate, epoch by epoch: batches of in-memory arrays, or the elements
of a ``tf.data.Dataset``, with Keras 3's rules (its ``EpochIterator`` and data adapters).

Arrays are batched here (shuffled per epoch for ``fit`` unless ``shuffle=False``), ``steps`` batches at most. A
dataset's elements are the batches as they are, and:

* ``y`` and ``sample_weight`` must be inside it (Keras's ``ValueError`` otherwise); ``shuffle=True`` is ignored with
  Keras's warning; ``class_weight`` adds per-sample weights from each batch's labels;
* its number of batches is its cardinality where that is known, else found out by running it to the end (the
  progress bar shows ``Unknown``; Keras counts one step more than there were batches, so each later epoch ends
  with the warning below too);
* with ``steps_per_epoch``, one iterator carries on from epoch to epoch, made anew once the dataset is used up; a
  dataset that runs out before the steps do stops the epoch with Keras's "Your input ran out of data" warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._core.tensor import convert_to_tensor
from . import _data

__all__ = ["Batches", "is_dataset"]

_RAN_OUT = ("Your input ran out of data; interrupting training. Make sure that your dataset or generator can generate "
            "at least `steps_per_epoch * epochs` batches. You may need to use the `.repeat()` function when building "
            "your dataset.")


def is_dataset(x):
    """Whether ``x`` is a ``tf.data.Dataset`` (told by its class, so that ``tapeflow.data`` is not imported) or a
    ``tf.distribute`` distributed dataset (whose elements are this replica's parts already)."""
    return getattr(x, "_tapeflow_distributed_dataset", False) or any(
        c.__name__ == "Dataset" and c.__module__.startswith("tapeflow.data") for c in type(x).__mro__)


def _unsupported(name, what):
    return ValueError(f"When providing `x` as a tf.data.Dataset, `{name}` should not be passed. Instead, {what} "
                      "should be included as part of the tf.data.Dataset.")


class Batches:
    """The batches of one ``fit``/``evaluate``/``predict`` call (see the module docstring).

    ``epoch()`` yields ``(step, data)`` for one epoch, ``data`` the tuple ``train_step`` and its siblings take;
    ``num_batches`` is the number of steps an epoch has, ``None`` while not known; ``static_batch`` the batch size
    every batch has (``None`` when a batch may be shorter), which a model not built yet is traced for.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None, shuffle=False,
                 class_weight=None, inputs_only=False):
        self.order_fn = np.random.permutation  # a shuffle's order (processes training together share rank 0's)
        self._steps = steps
        self._inputs_only = inputs_only
        if not is_dataset(x) and any(getattr(a, "_tapeflow_composite", False) and not hasattr(a, "__array__")
                                     for a in _data._flatten((x, y, sample_weight))):
            # Sparse or ragged arrays: batched as Keras's array adapter cuts them, by a dataset of their rows.
            from ... import data as _tf_data  # noqa: PLC0415

            packed = _data.pack_x_y_sample_weight(x, y, sample_weight)
            x = _tf_data.Dataset.from_tensor_slices(packed)
            if shuffle:
                x = x.shuffle(int(x.cardinality()), reshuffle_each_iteration=True)
            x = x.batch(32 if batch_size is None else batch_size)
            y = sample_weight = None
            shuffle = False
        if is_dataset(x):
            if y is not None:
                raise _unsupported("y", "the targets")
            if sample_weight is not None:
                raise _unsupported("sample_weights", "the sample weights")
            if shuffle:
                warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` was provided as a "
                              "tf.data.Dataset. The Dataset is expected to already be shuffled (via "
                              "`.shuffle(buffer_size)`).", stacklevel=3)
            self._dataset, self._class_weight = x, class_weight
            cardinality = int(x.cardinality())
            self._known = cardinality if cardinality >= 0 else None
            first = _data._flatten(x.element_spec)[0]
            self.static_batch = first.shape[0] if getattr(first, "shape", None) is not None and first.shape.rank \
                else None
            self._iterator, self._seen = None, 0
            return
        self._dataset = None
        x, y, sample_weight, n = _data.adapt(x, y, sample_weight, class_weight)
        self._arrays, self._n, self._batch_size, self._shuffle = (x, y, sample_weight), n, batch_size, shuffle
        self._known = -(-n // batch_size)
        self.static_batch = batch_size if n % batch_size == 0 else None

    @property
    def num_batches(self):
        if self._dataset is None:
            return self._known if self._steps is None else min(self._steps, self._known)
        return self._steps or self._known

    def epoch(self):
        """The ``(step, data)`` pairs of one epoch."""
        if self._dataset is None:
            yield from self._array_epoch()
        else:
            yield from self._dataset_epoch()

    # --- in-memory arrays --------------------------------------------------------------------------------
    def _array_epoch(self):
        n, size = self._n, self._batch_size
        order = self.order_fn(n) if self._shuffle else None
        x, y, sw = self._arrays
        for step, start in enumerate(range(0, n, size)):
            if step >= self.num_batches:
                return
            index = slice(start, start + size) if order is None else order[start:start + size]
            bx = _data.batch(x, index)
            if self._inputs_only or y is None:
                yield step, (bx,)
            elif sw is None:
                yield step, (bx, _data.batch(y, index))
            else:
                yield step, (bx, _data.batch(y, index), _data.batch(sw, index))

    # --- tf.data ---------------------------------------------------------------------------------------
    def _dataset_epoch(self):
        steps = self._steps or self._known
        if not steps:  # not known: to the end, which tells how many there are
            self._iterator, self._seen = iter(self._dataset), 0
            while True:
                data = next(self._iterator, None)
                if data is None:
                    # Keras counts the step that found the end, so later epochs look for one batch more and end
                    # with the same warning.
                    self._known = self._seen + 1
                    self._iterator = None
                    warnings.warn(_RAN_OUT, stacklevel=3)
                    return
                self._seen += 1
                yield self._seen - 1, self._prepared(data)
        if self._iterator is None or self._steps is None:
            self._iterator, self._seen = iter(self._dataset), 0
        for step in range(steps):
            if self._known and self._seen >= self._known:
                if self._steps:
                    warnings.warn(_RAN_OUT, stacklevel=3)
                break
            self._seen += 1
            data = next(self._iterator, None)
            if data is None:  # (a dataset shorter than it said: its cardinality was not known)
                if self._known is None:
                    self._known = self._seen - 1
                warnings.warn(_RAN_OUT, stacklevel=3)
                self._iterator = None
                return
            yield step, self._prepared(data)
        if self._known and self._seen >= self._known:
            self._iterator, self._seen = iter(self._dataset), 0

    def _prepared(self, data):
        """A dataset element as the step takes it: ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
        x, y, sw = _data.unpack_x_y_sample_weight(data)
        if self._inputs_only:
            return (x,)
        if self._class_weight is not None and y is not None and sw is None:
            sw = convert_to_tensor(_data.class_weights(_data.to_numpy(y), self._class_weight))
        if y is None:
            return (x,)
        return (x, y) if sw is None else (x, y, sw)

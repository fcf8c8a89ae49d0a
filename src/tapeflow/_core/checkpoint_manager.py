"""``tf.train.CheckpointManager`` and ``tf.train.latest_checkpoint``: numbered checkpoints in one directory.

What a manager keeps follows TensorFlow. Its state file lists the managed checkpoints with their timestamps and a
``last_preserved_timestamp``; a new manager manages the listed checkpoints newer than that timestamp (so a state
written by ``Checkpoint.save``, which has no timestamps, hands it none). A ``save`` deletes the oldest managed
checkpoints beyond ``max_to_keep``, except one per ``keep_checkpoint_every_n_hours``, which is preserved: dropped
from the list and never deleted by any manager. Checkpoints it did not write or no longer lists are not its own.

Crash safety (a process killed at any instant of ``save``):

* the new checkpoint and the state file are each written atomically (see :mod:`.checkpoint_io`);
* old checkpoints are deleted only after a state file that still lists them is durable, then the state is written
  again without them (TF's order): killed while deleting, they are still listed, and the next ``save`` of any
  manager deletes them;
* killed after the new checkpoint was written but before the state names it, the checkpoint is an orphan. The
  first ``save`` of the next manager deletes it, before it writes anything: a ``<name>-<n>.npz`` file that the
  state does not list, written by a manager (its index says when its save began) after every time the state
  records and before this manager started. Preserved checkpoints began before a time the state records, files of
  ``Checkpoint.save``/``write`` carry no such mark, and nothing is deleted when the state file is damaged or was
  written by ``Checkpoint.save``. If there is no state file at all and no manager ever wrote one here (the first
  save in the directory was killed), the orphan is taken over as the oldest managed checkpoint instead, so
  ``max_to_keep`` covers it;
* the same first ``save`` deletes temporary files of writers that died (see
  :func:`.checkpoint_io.remove_stale_temporaries`).
"""

from __future__ import annotations

import os
import re
import time

from . import checkpoint_io as cio
from . import checkpoint_state as cst
from .logs import get_logger

__all__ = ["CheckpointManager", "latest_checkpoint"]


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint recorded in ``checkpoint_dir``'s state file, or ``None``.

    ``None`` when there is no state file, when it is damaged (logged and ignored, as TF does) or when the
    checkpoint it names is gone (logged at ERROR, as TF does).

    Raises:
        ValueError: for a state file that names no checkpoint (TF's error).
    """
    state = cst.read_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    path = state["model_checkpoint_path"]
    if cio.checkpoint_exists(path):
        return path
    get_logger().error(f"Couldn't match files for checkpoint {path}")
    return None


class CheckpointManager:
    """Save numbered checkpoints ``<directory>/<checkpoint_name>-<n>``, keeping the newest ``max_to_keep``.

    Args:
        checkpoint: the ``tf.train.Checkpoint`` to save and restore.
        directory: where checkpoints and the ``checkpoint`` state file go (created when needed).
        max_to_keep: how many checkpoints to keep (``None`` keeps all); older ones are deleted by ``save``.
        keep_checkpoint_every_n_hours: additionally keep one checkpoint per this many hours.
        checkpoint_name: the prefix of checkpoint names.
        step_counter, checkpoint_interval: with both, ``save`` only saves every ``checkpoint_interval`` steps.
        init_fn: called by ``restore_or_initialize`` when there is no checkpoint.

    A damaged state file in ``directory`` is logged and ignored, as TF does. After a crash, the first ``save``
    removes what the killed process left (see the module's documentation).

    Raises:
        ValueError: for a ``max_to_keep`` that is not a positive integer or ``None``, or a state file that names no
            checkpoint.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        self._maybe = {}
        self._created = now = time.time()
        self._listed = set()  # every path the state file names: never an orphan
        self._orphans_before = None  # orphans began their save after this time (None: look for none)
        self._recovered = False
        self._state_absent = not os.path.lexists(os.path.join(self._directory, cst.STATE_FILE))
        state = cst.read_state(self._directory)
        if state is None:
            self._latest = None
            # A second in the past, as TF: a checkpoint saved at once is newer than it even on a coarse clock.
            self._last_preserved = now - 1.0
            return
        self._latest = state["model_checkpoint_path"]
        last = state["last_preserved_timestamp"]
        if now < last:
            get_logger().warning("time.time() returned a value %f seconds behind the last preserved checkpoint "
                                 "timestamp." % (last - now))
            last = now
        paths, stamps = state["all_model_checkpoint_paths"], state["all_model_checkpoint_timestamps"]
        for path, stamp in zip(paths, stamps or [last] * len(paths)):
            stamp = min(stamp, now)  # a future (or NaN) timestamp never makes a checkpoint look newer than now
            if stamp > last:
                self._maybe[path] = stamp
        self._last_preserved = last
        self._listed = {os.path.abspath(p) for p in [self._latest, *paths]}
        if stamps:  # written by a manager: its times bound what a killed save of its could have left
            self._orphans_before = max([last, *[t for t in stamps if t == t]])

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path, or ``None``."""
        return self._latest

    @property
    def checkpoints(self):
        """The managed checkpoints, oldest first."""
        return list(self._maybe)

    def _sweep(self):
        """Delete the oldest managed checkpoints beyond ``max_to_keep``, preserving one per
        ``keep_checkpoint_every_n_hours`` (no longer listed, never deleted)."""
        if not self._max_to_keep:
            return
        while len(self._maybe) > self._max_to_keep:
            path = next(iter(self._maybe))
            stamp = self._maybe.pop(path)
            if self._keep_every and stamp - self._keep_every * 3600 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            cio.remove_checkpoint(path)

    def _record_state(self):
        cst.write_state(self._directory, self._latest, list(self._maybe), list(self._maybe.values()),
                        self._last_preserved)

    def _recover(self):
        """Clean up after a killed ``save``: dead writers' temporary files, and checkpoints no state file lists."""
        directory = os.path.dirname(self._prefix) or "."
        numbered = re.compile(re.escape(os.path.basename(self._prefix)) + r"-\d+" + re.escape(cio.SUFFIX))
        cio.remove_stale_temporaries(directory, lambda name: name == cst.STATE_FILE or numbered.fullmatch(name))
        if self._orphans_before is None and not self._state_absent:
            return  # a damaged state, or one Checkpoint.save wrote: it says nothing about what a manager wrote
        adopted, stateful = [], False
        for prefix, began, index in self._unlisted(directory, numbered):
            if self._orphans_before is not None:
                if began > self._orphans_before:
                    cio.remove_checkpoint(prefix)
            elif index.get("manager_state_absent") is True:
                adopted.append((began, prefix))
            else:
                stateful = True
        if stateful:  # a manager recorded a state here and it is gone (deleted by the user): touch nothing
            return
        # The first save in the directory was killed before any state existed. Its checkpoint is complete, and
        # without a state nothing proves it unwanted, so rather than deleting it the manager takes it over as its
        # oldest checkpoint, and max_to_keep applies to it.
        for began, prefix in sorted(adopted):
            self._last_preserved = min(self._last_preserved, began - 1.0)  # so a later manager manages it too
            self._maybe[prefix] = began

    def _unlisted(self, directory, numbered):
        """``(prefix, began, index)`` of each ``<name>-<n>.npz`` here that the state does not list and a manager
        began to save before this one started."""
        try:
            names = os.listdir(directory)
        except OSError:
            return
        for name in names:
            prefix = os.path.join(directory, name[:-len(cio.SUFFIX)])
            if not numbered.fullmatch(name) or os.path.abspath(prefix) in self._listed:
                continue
            index = cio.read_index(prefix)
            began = index.get("manager_save_time") if index else None
            if type(began) is float and began < self._created:
                yield prefix, began, index

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a new checkpoint, delete those beyond ``max_to_keep``, update the state file; returns its path.

        The number is ``checkpoint_number`` if given, else the checkpoint's ``save_counter`` (incremented either
        way). With a ``checkpoint_interval``, returns ``None`` without saving until enough steps passed. The first
        save of a manager also removes what a killed earlier process left behind.
        """
        if self._checkpoint_interval is not None and check_interval:
            step = int(self._step_counter.numpy())
            if self._last_step is not None and step < self._last_step + self._checkpoint_interval:
                return None
            self._last_step = step
        if not self._recovered:
            # Before this save changes the state: once the state records a newer time, an orphan of the killed
            # save looks like any older checkpoint; if this process is killed too, the next manager starts over.
            self._recover()
            self._recovered = True
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        mark = {"manager_save_time": time.time()}
        if not os.path.lexists(os.path.join(self._directory, cst.STATE_FILE)):
            mark["manager_state_absent"] = True
        path = self._checkpoint._write(f"{self._prefix}-{number}", extra=mark)
        self._maybe.pop(path, None)
        self._maybe[path] = time.time()
        self._latest = path
        if self._max_to_keep and len(self._maybe) > self._max_to_keep:
            self._record_state()  # still listing what the sweep deletes: a crash while deleting leaves it listed
        self._sweep()
        self._record_state()
        return path

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path, or call ``init_fn`` and return ``None``."""
        if self._latest is not None and cio.checkpoint_exists(self._latest):
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

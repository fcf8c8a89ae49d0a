"""``tf.train.CheckpointManager`` and ``tf.train.latest_checkpoint``: numbered checkpoints in one directory."""

from __future__ import annotations

import os
import time

from . import checkpoint_io as cio

__all__ = ["CheckpointManager", "latest_checkpoint"]


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint recorded in ``checkpoint_dir``'s state file, or ``None`` (none, or its file is gone)."""
    state = cio.read_state(checkpoint_dir)
    if state is None:
        return None
    path = state["model_checkpoint_path"]
    return path if cio.checkpoint_exists(path) else None


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

    Raises:
        ValueError: for a ``max_to_keep`` that is not a positive integer or ``None``.
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
        state = cio.read_state(self._directory)
        if state is None:
            self._latest = None
            self._last_preserved = time.time()
        else:
            self._latest = state["model_checkpoint_path"]
            # Only checkpoints with timestamps (written by a manager) are managed; ``Checkpoint.save`` writes none.
            for path, stamp in zip(state["all_model_checkpoint_paths"], state["all_model_checkpoint_timestamps"]):
                self._maybe[path] = stamp
            last = state["last_preserved_timestamp"]
            self._last_preserved = time.time() if last is None else last

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
        """Forget checkpoints beyond ``max_to_keep``; return those to delete (not the ones kept by age)."""
        doomed = []
        if self._max_to_keep is None:
            return doomed
        while len(self._maybe) > self._max_to_keep:
            path = next(iter(self._maybe))
            stamp = self._maybe.pop(path)
            if self._keep_every and stamp - self._keep_every * 3600 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            doomed.append(path)
        return doomed

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a new checkpoint, delete those beyond ``max_to_keep``, update the state file; returns its path.

        The number is ``checkpoint_number`` if given, else the checkpoint's ``save_counter`` (incremented either
        way). With a ``checkpoint_interval``, returns ``None`` without saving until enough steps passed.
        """
        if self._checkpoint_interval is not None and check_interval:
            step = int(self._step_counter.numpy())
            if self._last_step is not None and step < self._last_step + self._checkpoint_interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._maybe.pop(path, None)
        self._maybe[path] = time.time()
        self._latest = path
        # The new checkpoint is durable before the state names it; old ones go after the state stops naming them.
        doomed = self._sweep()
        cio.write_state(self._directory, path, list(self._maybe), list(self._maybe.values()),
                        self._last_preserved)
        for old in doomed:
            cio.remove_checkpoint(old)
        return path

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path, or call ``init_fn`` and return ``None``."""
        if self._latest is not None and cio.checkpoint_exists(self._latest):
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

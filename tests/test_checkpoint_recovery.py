"""CheckpointManager's recovery rules: what the first save after a crash deletes, takes over and keeps.

The crash tests (test_checkpoint_crash.py) kill real processes; these tests stage each situation directly (a save
that fails at a chosen point leaves what a killed one would) and check each rule on its own, including what must
never be deleted: preserved checkpoints, checkpoints the manager did not write, files of live writers.
"""

import json
import logging
import math
import os
import subprocess
import sys
import time

import pytest

import tapeflow as tf
from tapeflow._core import checkpoint_io as cio
from tapeflow._core import checkpoint_state


def _files(directory):
    return sorted(os.listdir(directory))


def _make():
    v = tf.Variable([1.0, 2.0])
    return tf.train.Checkpoint(v=v), v


def _fail(monkeypatch, name):
    """Make ``checkpoint_io.<name>`` or ``checkpoint_state.<name>`` raise once, as if the process died there."""
    module = checkpoint_state if hasattr(checkpoint_state, name) else cio
    real = getattr(module, name)
    calls = []

    def dying(*args, **kwargs):
        if not calls:
            calls.append(args)
            raise KeyboardInterrupt(f"killed in {name}")
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, dying)


def test_a_checkpoint_the_state_never_named_is_deleted_by_the_next_save(tmp_path, monkeypatch):
    ckpt, _ = _make()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    manager.save()
    manager.save()
    _fail(monkeypatch, "write_state")
    with pytest.raises(KeyboardInterrupt):
        manager.save(checkpoint_number=50)
    assert "ckpt-50.npz" in _files(tmp_path) and tf.train.latest_checkpoint(str(tmp_path)).endswith("ckpt-2")
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-1", "ckpt-2"]
    again.save(checkpoint_number=3)
    assert _files(tmp_path) == ["checkpoint", "ckpt-2.npz", "ckpt-3.npz"]


def test_checkpoints_whose_deletion_was_interrupted_stay_listed_and_go_next_time(tmp_path, monkeypatch):
    ckpt, _ = _make()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    manager.save()
    manager.save()
    _fail(monkeypatch, "remove_checkpoint")
    with pytest.raises(KeyboardInterrupt):
        manager.save()
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-1", "ckpt-2", "ckpt-3"]
    again.save()
    assert _files(tmp_path) == ["checkpoint", "ckpt-3.npz", "ckpt-4.npz"]


def test_recovery_never_deletes_preserved_foreign_or_newer_checkpoints(tmp_path, monkeypatch):
    ckpt, _ = _make()
    keeper = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    for _ in range(3):
        keeper.save()  # ckpt-1 and ckpt-2 are preserved: no longer listed, never to be deleted
    ckpt.write(str(tmp_path / "ckpt-77"))  # written without a manager
    _fail(monkeypatch, "write_state")
    with pytest.raises(KeyboardInterrupt):
        keeper.save(checkpoint_number=50)  # the orphan
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    time.sleep(0.01)
    ckpt._write(str(tmp_path / "ckpt-90"), extra={"manager_save_time": time.time()})  # begun after `again` started
    again.save(checkpoint_number=4)
    assert _files(tmp_path) == ["checkpoint", "ckpt-1.npz", "ckpt-2.npz", "ckpt-4.npz", "ckpt-77.npz", "ckpt-90.npz"]


@pytest.mark.parametrize("state", ["damaged", "from Checkpoint.save"])
def test_without_a_manager_state_nothing_is_deleted(tmp_path, monkeypatch, caplog, state):
    ckpt, _ = _make()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    manager.save()
    _fail(monkeypatch, "write_state")
    with pytest.raises(KeyboardInterrupt):
        manager.save(checkpoint_number=50)
    if state == "damaged":
        (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_timestamps: x\n')
    else:
        ckpt.save(str(tmp_path / "other"))
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    assert again.checkpoints == []
    assert ("Checkpoint ignored" in caplog.text) == (state == "damaged")
    again.save(checkpoint_number=60)
    assert {"ckpt-1.npz", "ckpt-50.npz", "ckpt-60.npz"} <= set(_files(tmp_path))


def test_the_checkpoint_of_a_killed_first_save_is_taken_over(tmp_path, monkeypatch):
    ckpt, _ = _make()
    first = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    _fail(monkeypatch, "write_state")
    with pytest.raises(KeyboardInterrupt):
        first.save()
    assert _files(tmp_path) == ["ckpt-1.npz"]  # no state file: the next run starts from scratch
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    again.save(checkpoint_number=5)
    assert [os.path.basename(p) for p in again.checkpoints] == ["ckpt-1", "ckpt-5"]
    restarted = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert restarted.checkpoints == again.checkpoints  # listed like any managed checkpoint
    restarted.save(checkpoint_number=6)
    assert _files(tmp_path) == ["checkpoint", "ckpt-5.npz", "ckpt-6.npz"]


def test_without_a_state_file_that_a_manager_wrote_nothing_is_taken_over(tmp_path):
    ckpt, _ = _make()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None)
    for _ in range(3):
        manager.save()
    os.remove(tmp_path / "checkpoint")  # the user starts over in the same directory
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    again.save(checkpoint_number=10)
    again.save(checkpoint_number=11)
    # ckpt-2 and ckpt-3 were saved while a state existed: these are not a killed first save's, and neither is ckpt-1.
    assert _files(tmp_path) == ["checkpoint", "ckpt-1.npz", "ckpt-11.npz", "ckpt-2.npz", "ckpt-3.npz"]


# --- temporary files ---------------------------------------------------------------------------------------------
def _temporary(directory, target, pid, host=None, age=0.0):
    path = directory / f".{target}~{host or cio._host()}~{pid}~0badcafe.tmp"
    path.write_bytes(b"partial")
    if age:
        os.utime(path, (time.time() - age, time.time() - age))
    return path.name


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temporaries_of_dead_writers_go_and_those_of_live_ones_stay(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live_here = str(tmp_path / _temporary(tmp_path, "ckpt-3.npz", os.getpid()))
        kept = [_temporary(tmp_path, "ckpt-1.npz", sleeper.pid),
                _temporary(tmp_path, "checkpoint", os.getpid() + 10**7, host="elsewhere"),  # another machine's
                _temporary(tmp_path, "other-1.npz", _dead_pid()),  # not this manager's file
                _temporary(tmp_path, "m.weights.h5", _dead_pid()),
                os.path.basename(live_here)]
        removed = [_temporary(tmp_path, "ckpt-2.npz", _dead_pid()),
                   _temporary(tmp_path, "checkpoint", _dead_pid()),
                   _temporary(tmp_path, "ckpt-4.npz", os.getpid()),  # an earlier process with this pid
                   _temporary(tmp_path, "ckpt-5.npz", sleeper.pid, host="elsewhere", age=2 * 86400)]
        cio._live.add(live_here)  # as while this process writes it
        try:
            tf.train.CheckpointManager(_make()[0], str(tmp_path), max_to_keep=2).save()
        finally:
            cio._live.discard(live_here)
        names = _files(tmp_path)
        assert all(name in names for name in kept) and not any(name in names for name in removed)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_failed_write_leaves_no_temporary(tmp_path):
    def explode(key):
        raise RuntimeError("disk full")
    cio._WRITE_HOOK = explode
    try:
        with pytest.raises(RuntimeError, match="disk full"):
            tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "ck"))
    finally:
        cio._WRITE_HOOK = None
    assert _files(tmp_path) == []


# --- the state file ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content", [b'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_timestamps: 1e999x\n',
                                     b'model_checkpoint_path: "ckpt-1"\nlast_preserved_timestamp: "5"\n',
                                     b'model_checkpoint_path: "ckp', b"\x89PNG\r\n\x1a\n\x00\xff\xfe garbage"])
def test_damaged_state_files_are_logged_and_ignored(tmp_path, caplog, content):
    ckpt, _ = _make()
    ckpt.write(str(tmp_path / "ckpt-1"))
    (tmp_path / "checkpoint").write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
        manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    assert f"{tmp_path / 'checkpoint'}: Checkpoint ignored" in caplog.text
    # TF raises UnicodeDecodeError for bytes that are not UTF-8; tapeflow warns and goes on.
    assert ("UnicodeDecodeError" if b"\xff" in content else "ParseError") in caplog.text
    manager.save()
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-1")


def test_a_state_naming_no_checkpoint_raises_as_in_tf(tmp_path):
    (tmp_path / "checkpoint").write_text("")
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.latest_checkpoint(str(tmp_path))


def test_a_clock_behind_the_state_is_warned_about(tmp_path, caplog):
    future = time.time() + 1000
    (tmp_path / "checkpoint").write_text(checkpoint_state.format_state("ckpt-1", ["ckpt-1"], [future], future))
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        manager = tf.train.CheckpointManager(_make()[0], str(tmp_path), max_to_keep=1)
    assert "seconds behind the last preserved checkpoint timestamp." in caplog.text
    assert manager.checkpoints == []


def test_state_text_is_tfs(tmp_path):
    # As protobuf's text_format.MessageToString prints a CheckpointState (checked against it when written).
    text = checkpoint_state.format_state('ck"pt\\1\t\x01\u00e9', ["a"], [1.5, math.inf], 2.25)
    assert text == ('model_checkpoint_path: "ck\\"pt\\\\1\\t\\001\u00e9"\nall_model_checkpoint_paths: "a"\n'
                    "all_model_checkpoint_timestamps: 1.5\nall_model_checkpoint_timestamps: inf\n"
                    "last_preserved_timestamp: 2.25\n")
    parsed = checkpoint_state.parse(text)
    assert parsed["model_checkpoint_path"] == 'ck"pt\\1\t\x01\u00e9'
    assert parsed["all_model_checkpoint_timestamps"] == [1.5, math.inf]


def test_latest_filename_names_the_state_file(tmp_path):
    ckpt, _ = _make()
    ckpt.write(str(tmp_path / "ck-1"))
    (tmp_path / "state").write_text('model_checkpoint_path: "ck-1"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="state") == str(tmp_path / "ck-1")


def test_manager_checkpoints_record_when_their_save_began(tmp_path):
    ckpt, _ = _make()
    before = time.time()
    path = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1).save()
    index = cio.read_index(path)
    assert before <= index["manager_save_time"] <= time.time() and index["manager_state_absent"] is True
    assert "manager_save_time" not in json.dumps(cio.read_index(ckpt.write(str(tmp_path / "plain"))))

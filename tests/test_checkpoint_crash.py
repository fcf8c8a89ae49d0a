"""CheckpointManager under SIGKILL: a killed save never costs the last checkpoint, and the next save clears the debris.

A child process imports tapeflow once and then forks writers: each writer opens a manager on the same directory,
restores the latest checkpoint and saves in a loop until it is killed with SIGKILL. After every kill the child checks
that ``latest_checkpoint`` restores a complete checkpoint, and from time to time that a new manager's first save
leaves exactly ``max_to_keep`` checkpoints and no temporary file. Writers are killed at random instants (seeded), and
also after each file-system step of one save in turn (every write, fsync, rename and delete), so every window
between two durable steps is hit.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapeflow as tf

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the crash tests fork writer processes")

KEEP = 3

_CHILD = textwrap.dedent("""
    import json, os, random, signal, sys, time
    import numpy as np
    import tapeflow as tf
    from tapeflow._core import checkpoint_io

    directory, mode, seed, rounds, keep = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(seed)
    failures, debris = [], {"tmp": 0, "orphans": 0}

    def model():
        v = tf.Variable(np.zeros(3, np.float32))
        return tf.train.Checkpoint(v=v, extra=tf.Variable(np.zeros((4, 4)))), v

    def save(manager, v, number):
        v.assign(np.arange(1, 4, dtype=np.float32) * number)  # the value says which checkpoint it belongs in
        manager.save(checkpoint_number=number)

    def arm(k):
        # SIGKILL this process right after its k-th file-system step.
        count = [0]
        def tick(*_):
            count[0] += 1
            if count[0] == k:
                os.kill(os.getpid(), signal.SIGKILL)
        for name in ("open", "fsync", "replace", "unlink"):
            real = getattr(os, name)
            def step(*args, _real=real, **kwargs):
                result = _real(*args, **kwargs)
                tick()
                return result
            setattr(os, name, step)
        checkpoint_io._WRITE_HOOK = tick

    def writer(base, k, first):
        ckpt, v = model()
        manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=keep)
        manager.restore_or_initialize()
        number = base
        if k is None:  # killed from outside at a random instant
            while True:
                number += 1
                save(manager, v, number)
        while not first and len(manager.checkpoints) < keep:
            number += 1
            save(manager, v, number)
        arm(k)  # in the first save (which recovers) or in one that deletes an old checkpoint
        save(manager, v, number + 1)
        os._exit(3)  # the save finished before its k-th step

    def run(base, k, first=False):
        pid = os.fork()
        if pid == 0:
            try:
                writer(base, k, first)
            finally:
                os._exit(4)
        if k is None:
            time.sleep(rng.uniform(0.0, 0.03))
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
            return "finished"
        if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            failures.append(f"writer ended with status {status}")
        return "killed"

    def check_latest():
        latest = tf.train.latest_checkpoint(directory)
        if latest is None:
            return
        v = tf.Variable(np.full(3, -1.0, np.float32))
        tf.train.Checkpoint(v=v).restore(latest)
        number = int(latest.rsplit("-", 1)[1])
        if not np.array_equal(v.numpy(), np.arange(1, 4, dtype=np.float32) * number):
            failures.append(f"{latest} restores {v.numpy()}")

    def count_debris():
        if not os.path.isdir(directory):
            return
        state = open(os.path.join(directory, "checkpoint")).read() if os.path.exists(
            os.path.join(directory, "checkpoint")) else ""
        for name in os.listdir(directory):
            if name.endswith(".tmp"):
                debris["tmp"] += 1
            elif name.endswith(".npz") and f'"{name[:-4]}"' not in state:
                debris["orphans"] += 1

    def check_recovery(number):
        # The next run saves once, and exactly max_to_keep checkpoints remain.
        ckpt, v = model()
        manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=keep)
        save(manager, v, number)
        expected = {"checkpoint"} | {os.path.basename(p) + ".npz" for p in manager.checkpoints}
        present = set(os.listdir(directory))
        if present != expected or len(manager.checkpoints) > keep:
            failures.append(f"after recovery: {sorted(present)}, managing {manager.checkpoints}")

    root = directory
    for r in range(rounds):
        base = 1000 * (r + 1)  # numbers never reused, so a killed save's checkpoint stays an orphan
        if mode == "first":  # the first save in an empty directory, killed at its k-th step
            directory = os.path.join(root, str(r))
            os.makedirs(directory)
            if run(base, r + 1, first=True) == "finished":
                break
        elif mode == "random":
            run(base, None)
        elif run(base, r + 1) == "finished":  # every step of a save has been tried
            break
        check_latest()
        count_debris()
        if mode == "steps":
            # The next writer is killed too, at a random step of its first save, which is the one that recovers.
            run(base + 500, rng.randint(1, 30), first=True)
            check_latest()
        if mode != "random" or r % 4 == 3:
            check_recovery(base + 999)
        if failures:
            break
    print(json.dumps({"rounds": r + 1, "failures": failures, "debris": debris}))
""")


def _run_child(directory, mode, seed, rounds):
    src = os.path.join(os.path.dirname(__file__), "..", "src")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(directory), mode, str(seed), str(rounds), str(KEEP)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _assert_recovers(directory):
    """A new manager in this process: its first save leaves exactly max_to_keep checkpoints, and the latest
    restores the value saved with it."""
    v = tf.Variable(np.zeros(3, np.float32))
    ckpt = tf.train.Checkpoint(v=v, extra=tf.Variable(np.zeros((4, 4))))
    manager = tf.train.CheckpointManager(ckpt, str(directory), max_to_keep=KEEP)
    v.assign([1.0, 2.0, 3.0])
    manager.save(checkpoint_number=10**6)
    assert sorted(os.listdir(directory)) == sorted(["checkpoint"] + [os.path.basename(p) + ".npz"
                                                                     for p in manager.checkpoints])
    assert len(manager.checkpoints) == KEEP
    latest = tf.train.latest_checkpoint(str(directory))
    fresh = tf.Variable(np.zeros(3, np.float32))
    tf.train.Checkpoint(v=fresh).restore(latest)
    np.testing.assert_array_equal(fresh.numpy(), [1.0, 2.0, 3.0])


def test_random_sigkills_leave_a_restorable_checkpoint_and_no_debris_after_the_next_save(tmp_path):
    report = _run_child(tmp_path, "random", seed=11, rounds=60)
    assert report["failures"] == []
    assert report["rounds"] == 60
    _assert_recovers(tmp_path)


def test_a_kill_after_each_file_system_step_of_a_save_is_recovered_by_the_next_save(tmp_path):
    report = _run_child(tmp_path, "steps", seed=0, rounds=200)
    assert report["failures"] == []
    # Every step was tried (the last writer finished its save), and the kills left both kinds of debris.
    assert 15 < report["rounds"] < 200
    assert report["debris"]["tmp"] > 0 and report["debris"]["orphans"] > 0
    _assert_recovers(tmp_path)


def test_a_kill_at_each_step_of_the_first_save_in_an_empty_directory_is_recovered(tmp_path):
    # No state file exists yet: the checkpoint of a killed first save is taken over by the next manager.
    report = _run_child(tmp_path, "first", seed=0, rounds=200)
    assert report["failures"] == []
    assert 8 < report["rounds"] < 200 and report["debris"]["orphans"] > 0

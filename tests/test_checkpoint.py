"""tf.train.Checkpoint / CheckpointManager: round trips, resumed training, mismatches, and crash safety.

See also test_checkpoint_crash.py (SIGKILL at every step), test_checkpoint_recovery.py (what the next save
cleans up) and test_checkpoint_corruption.py (damaged files).
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import checkpoint_io


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5, -1.0], [2.0, 0.25]], name="w")
        self.layers = [tf.Variable([0.1, 0.2], name="b")]
        self._scale = tf.Variable(1.5, name="scale")

    def __call__(self, x):
        return tf.reduce_sum(tf.matmul(x, self.w) + self.layers[0]) * self._scale


X = tf.constant([[1.0, 2.0], [3.0, -1.0]])


def _train(net, opt, steps):
    losses = []
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = net(X) ** 2
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
        losses.append(float(loss.numpy()))
    return losses


def test_variable_round_trip_and_save_numbering(tmp_path):
    v = tf.Variable([1.0, 2.0])
    step = tf.Variable(3, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(v=v, step=step)
    first = ckpt.save(str(tmp_path / "ck"))
    assert first == str(tmp_path / "ck") + "-1"
    assert ckpt.save(str(tmp_path / "ck")) == str(tmp_path / "ck") + "-2"
    assert int(ckpt.save_counter.numpy()) == 2
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ck-2")
    v.assign([5.0, 6.0])
    step.assign(0)
    ckpt.restore(first).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert int(step.numpy()) == 3 and int(ckpt.save_counter.numpy()) == 1
    # The format is open: NumPy reads it, with a JSON index.
    with np.load(first + ".npz") as data:
        np.testing.assert_array_equal(data["v/.ATTRIBUTES/VARIABLE_VALUE"], [1.0, 2.0])
    with zipfile.ZipFile(first + ".npz") as zf:
        index = json.loads(zf.read("index.json"))
    assert index["entries"]["v/.ATTRIBUTES/VARIABLE_VALUE"]["shape"] == [2]


def test_write_and_read(tmp_path):
    v = tf.Variable(4.0)
    ckpt = tf.train.Checkpoint(v=v)
    assert ckpt.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # write records no state
    v.assign(0.0)
    ckpt.read(str(tmp_path / "w")).assert_consumed()
    assert float(v.numpy()) == 4.0


def test_module_round_trip_including_private_and_list_attributes(tmp_path):
    net = Net()
    path = tf.train.Checkpoint(net=net).save(str(tmp_path / "n"))
    other = Net()
    for var in other.variables:
        var.assign(tf.zeros_like(var))
    tf.train.Checkpoint(net=other).restore(path).assert_consumed()
    for a, b in zip(net.variables, other.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_lists_and_dicts_as_keyword_arguments(tmp_path):
    vs = [tf.Variable(1.0), {"a": tf.Variable([2, 3])}]
    path = tf.train.Checkpoint(vs=vs).save(str(tmp_path / "l"))
    new = [tf.Variable(0.0), {"a": tf.Variable([0, 0])}]
    tf.train.Checkpoint(vs=new).restore(path).assert_consumed()
    assert float(new[0].numpy()) == 1.0
    np.testing.assert_array_equal(new[1]["a"].numpy(), [2, 3])


@pytest.mark.parametrize("build_before_restore", [False, True])
def test_resumed_adam_training_matches_uninterrupted_run(tmp_path, build_before_restore):
    full = Net()
    uninterrupted = _train(full, tf.keras.optimizers.Adam(0.05), 3)
    step = tf.Variable(0, dtype=tf.int64)
    reference = Net(), tf.keras.optimizers.Adam(0.05)

    net, opt = Net(), tf.keras.optimizers.Adam(0.05)
    ckpt = tf.train.Checkpoint(step=step, optimizer=opt, net=net)
    first = _train(net, opt, 2)
    step.assign(2)
    path = ckpt.save(str(tmp_path / "run"))

    net2, opt2 = reference
    step2 = tf.Variable(0, dtype=tf.int64)
    if build_before_restore:
        opt2.build(net2.trainable_variables)
    status = tf.train.Checkpoint(step=step2, optimizer=opt2, net=net2).restore(path)
    status.assert_existing_objects_matched()
    if not build_before_restore:
        # Slots do not exist yet: they are filled when the optimizer creates them (deferred restoration).
        with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
            status.assert_consumed()
    assert int(step2.numpy()) == 2 and int(opt2.iterations.numpy()) == 2
    resumed = _train(net2, opt2, 1)
    status.assert_consumed()
    assert first + resumed == uninterrupted
    for a, b in zip(full.variables, net2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_slots_restore_by_variable_not_by_position(tmp_path):
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant([1.0, -1.0]), a), (tf.constant([2.0]), b)])
    path = tf.train.Checkpoint(opt=opt, vars={"a": a, "b": b}).save(str(tmp_path / "s"))
    a2, b2 = tf.Variable([0.0, 0.0]), tf.Variable([0.0])
    opt2 = tf.keras.optimizers.Adam(0.1)
    opt2.build([b2, a2])  # the other order
    tf.train.Checkpoint(opt=opt2, vars={"a": a2, "b": b2}).restore(path).assert_consumed()
    np.testing.assert_array_equal(opt2._momentums[0].numpy(), opt._momentums[1].numpy())
    np.testing.assert_array_equal(opt2._velocities[1].numpy(), opt._velocities[0].numpy())


def test_manager_keeps_max_to_keep_and_deletes_old(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = [manager.save() for _ in range(4)]
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in range(1, 5)]
    assert manager.checkpoints == paths[2:]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.npz", "ckpt-4.npz"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2, checkpoint_name="ckpt")
    assert again.checkpoints == paths[2:] and again.latest_checkpoint == paths[-1]
    assert again.save(checkpoint_number=10) == str(tmp_path / "ckpt-10")
    assert again.checkpoints == [paths[3], str(tmp_path / "ckpt-10")]
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_mismatched_shape_or_dtype_raises_and_changes_nothing(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable(1.0), b=tf.Variable([1.0, 2.0])).save(str(tmp_path / "m"))
    a, b = tf.Variable(7.0), tf.Variable([1.0, 2.0, 3.0])
    ckpt = tf.train.Checkpoint(a=a, b=b)
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(2,\) when attempting to "
                                         r"restore variable with shape \(3,\)"):
        ckpt.restore(path)
    assert float(a.numpy()) == 7.0 and int(ckpt.save_counter.numpy()) == 0
    np.testing.assert_array_equal(b.numpy(), [1.0, 2.0, 3.0])
    a, b = tf.Variable(7.0), tf.Variable([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype int32 does not equal original dtype"):
        tf.train.Checkpoint(a=a, b=b).restore(path)
    assert float(a.numpy()) == 7.0


def test_errors_for_missing_checkpoint_and_untrackable_values(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nope-1"))
    with pytest.raises(ValueError, match="`Checkpoint` was expecting v to be a trackable object"):
        tf.train.Checkpoint(v=3)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        tf.train.Checkpoint().restore(None).assert_consumed()


_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import tapeflow as tf
    from tapeflow._core import checkpoint_io

    directory = sys.argv[1]
    big = tf.Variable(np.zeros(1000, np.float32))
    small = tf.Variable(1.0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(big=big, small=small), directory, max_to_keep=1)
    manager.save()

    def block(key):
        print("writing", key, flush=True)
        time.sleep(600)

    big.assign(np.ones(1000, np.float32))
    small.assign(2.0)
    checkpoint_io._WRITE_HOOK = block
    manager.save()
""")


def test_killed_mid_save_leaves_previous_checkpoint(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "src"),
                                                         os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path)], stdout=subprocess.PIPE, env=env)
    try:
        line = child.stdout.readline()  # the second save is inside its write
        assert line.startswith(b"writing")
        # The writer is alive: a cleanup in another process leaves its temporary file alone.
        temporaries = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        assert len(temporaries) == 1
        assert checkpoint_io.remove_stale_temporaries(str(tmp_path), lambda name: True) == []
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    time.sleep(0.01)
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert latest == str(tmp_path / "ckpt-1")
    assert not os.path.exists(tmp_path / "ckpt-2.npz")
    big, small = tf.Variable(np.full(1000, 5.0, np.float32)), tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(big=big, small=small)
    ckpt.restore(latest).assert_consumed()
    assert float(small.numpy()) == 1.0 and not big.numpy().any()
    # Now its writer is dead: the next manager's first save removes the temporary file.
    tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1).save()
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.npz"]


def test_keras_model_round_trip(tmp_path):
    # A Keras model is tracked by its weights in order, so a fresh model of the same architecture (other variable
    # paths: dense_2/kernel ...) restores them, with the optimizer's step and slots.
    def make():
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer="ones"), tf.keras.layers.Dense(2)])
        m(np.ones((1, 4), np.float32))
        return m

    model, opt = make(), tf.keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(np.ones((2, 4), np.float32)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "c"))
    fresh, fresh_opt = make(), tf.keras.optimizers.Adam(0.1)
    tf.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path)
    for a, b in zip(model.get_weights(), fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(fresh_opt.iterations.numpy()) == 1

"""Delayed restoration and reading checkpoints by key (what the golden cases cannot show: tapeflow's own object
graph entry, damaged files, the tracked containers' bookkeeping, optimizers attached after ``restore``)."""

import json

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import checkpoint_io, tracking


def _save(tmp_path, **objects):
    return tf.train.Checkpoint(**objects).save(str(tmp_path / "ck"))


def test_object_graph_entry_is_the_json_index(tmp_path):
    path = _save(tmp_path, v=tf.Variable([1.0, 2.0]))
    reader = tf.train.load_checkpoint(path)
    graph = json.loads(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    assert graph["format"] == "tapeflow-checkpoint"
    assert graph["entries"]["v/.ATTRIBUTES/VARIABLE_VALUE"]["shape"] == [2]
    assert reader.debug_string() == (b"_CHECKPOINTABLE_OBJECT_GRAPH (DT_STRING) []\n"
                                     b"save_counter/.ATTRIBUTES/VARIABLE_VALUE (DT_INT64) []\n"
                                     b"v/.ATTRIBUTES/VARIABLE_VALUE (DT_FLOAT) [2]\n")


def test_reader_values_are_copies(tmp_path):
    reader = tf.train.load_checkpoint(_save(tmp_path, v=tf.Variable([1.0, 2.0])))
    reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")[0] = 9.0
    np.testing.assert_array_equal(reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), [1.0, 2.0])


def test_damaged_checkpoint_names_the_file(tmp_path):
    path = _save(tmp_path, v=tf.Variable([1.0, 2.0]))
    data = checkpoint_io.data_path(path)
    with open(data, "r+b") as f:
        f.truncate(40)
    with pytest.raises(tf.errors.DataLossError, match="ck-1.npz"):
        tf.train.list_variables(path)
    with pytest.raises(tf.errors.DataLossError, match="ck-1.npz"):
        tf.train.load_variable(str(tmp_path), "v/.ATTRIBUTES/VARIABLE_VALUE")


def test_plain_containers_stay_plain_without_a_restore():
    module = tf.Module()
    module.items = [tf.Variable(1.0)]
    ckpt = tf.train.Checkpoint(d={"a": tf.Variable(1.0)})
    assert type(module.items) is list and type(ckpt.d) is dict


def test_watching_stops_once_everything_is_restored(tmp_path):
    path = _save(tmp_path, l=[tf.Variable(1.0)])
    ckpt = tf.train.Checkpoint()
    ckpt.restore(path)
    assert tracking.armed(ckpt) is not None
    ckpt.l = [tf.Variable(0.0)]
    assert ckpt.l[0].numpy() == 1.0
    assert tracking.armed(ckpt) is None and tracking.armed(ckpt.l) is None
    ckpt.l.append(tf.Variable(5.0))  # nothing left to restore: kept as given
    assert ckpt.l[1].numpy() == 5.0


def test_private_module_attributes_restore_later(tmp_path):
    saved = tf.Module()
    saved._hidden = [tf.Variable([1.0, 2.0])]
    path = _save(tmp_path, m=saved)
    module = tf.Module()
    ckpt = tf.train.Checkpoint(m=module)
    ckpt.restore(path)
    module._hidden = []
    module._hidden.insert(0, tf.Variable([0.0, 0.0]))
    np.testing.assert_array_equal(module._hidden[0].numpy(), [1.0, 2.0])
    assert [v.numpy().tolist() for v in module.variables] == [[1.0, 2.0]]


def test_failed_delayed_restore_leaves_the_variable_and_keeps_the_value_pending(tmp_path):
    path = _save(tmp_path, v=tf.Variable([1.0, 2.0]))
    ckpt = tf.train.Checkpoint()
    status = ckpt.restore(path)
    with pytest.raises(ValueError, match="incompatible tensor"):
        ckpt.v = tf.Variable([0.0, 0.0, 0.0])
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    ckpt.v = tf.Variable([0.0, 0.0])
    np.testing.assert_array_equal(ckpt.v.numpy(), [1.0, 2.0])
    status.assert_consumed()


def test_optimizer_attached_after_restore_gets_its_slots(tmp_path):
    w = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam(0.1)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    path = _save(tmp_path, w=w, opt=opt)
    w2 = tf.Variable([0.0, 0.0])
    opt2 = tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(w=w2)
    ckpt.restore(path)
    ckpt.opt = opt2
    assert int(opt2.iterations.numpy()) == 2
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w2 * w2)
    opt2.apply_gradients([(tape.gradient(loss, w2), w2)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    np.testing.assert_allclose(w2.numpy(), w.numpy(), rtol=1e-6)


def test_tracked_list_and_dict_still_behave_as_list_and_dict(tmp_path):
    path = _save(tmp_path, l=[tf.Variable(1.0)], d={"a": tf.Variable(2.0)})
    ckpt = tf.train.Checkpoint()
    ckpt.restore(path)
    ckpt.l = [3]
    ckpt.d = {"b": 1}
    ckpt.l += [4]
    ckpt.d.update(c=2)
    assert ckpt.l == [3, 4] and ckpt.d == {"b": 1, "c": 2}
    assert tf.nest.flatten(ckpt.l) == [3, 4]
    assert isinstance(ckpt.l, list) and isinstance(ckpt.d, dict)


def test_subclassed_keras_model_restored_once_its_weights_exist(tmp_path):
    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.a = tf.keras.layers.Dense(2)
            self.b = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.b(self.a(x))

    x = np.ones((2, 4), np.float32)
    model = Sub()
    expected = model(x).numpy()
    path = _save(tmp_path, model=model)
    fresh = Sub()
    status = tf.train.Checkpoint(model=fresh).restore(path)
    fresh(x)  # its first call makes the weights (with their initial values), and then they are restored
    np.testing.assert_allclose(fresh(x).numpy(), expected, rtol=1e-6)
    status.assert_consumed()


def test_keras_restore_inside_a_traced_first_call(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    x = np.ones((3, 4), np.float32)
    expected = model(x).numpy()
    path = _save(tmp_path, model=model)
    fresh = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    tf.train.Checkpoint(model=fresh).restore(path)
    step = tf.function(lambda v: fresh(v))
    np.testing.assert_allclose(step(x).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(fresh(x).numpy(), expected, rtol=1e-6)

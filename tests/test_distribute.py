"""tf.distribute and tapeflow.horovod in one process (no MPI needed), and the fused allreduce's packing, checked
on a stand-in group of two that records its messages. Two real processes: test_distribute_mpi.py."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.horovod as hvd
import tapeflow.horovod.keras as hvd_keras
from tapeflow.distribute import _collective

SRC = str(Path(__file__).resolve().parents[1] / "src")


class _Pair:
    """A group of two whose other rank holds the same arrays as this one: a sum doubles, and every message is
    recorded (dtype, size)."""

    rank, size, uses_mpi = 0, 2, True

    def __init__(self, other_entries=None):
        self.messages = []
        self.other_entries = other_entries

    def allreduce_inplace(self, buffer, op="SUM"):
        self.messages.append((buffer.dtype.name, buffer.size, op))
        if op == "MAX" and buffer.dtype == np.int64 and self.other_entries is not None:
            other = _collective._signature(self.other_entries)
            buffer[:] = np.maximum(buffer, [other, -other])
        elif op == "SUM":
            buffer *= 2

    def allreduce_into(self, array, out, op="SUM"):
        out[...] = array
        self.allreduce_inplace(out, op)

    def allgather_object(self, obj):
        return [obj, self.other_entries]


def _python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": SRC, **env})


def test_import_does_not_load_mpi():
    proc = _python("import sys, tapeflow as tf; tf.distribute.MultiWorkerMirroredStrategy(); "
                   "import tapeflow.horovod as hvd; hvd.init(); print(hvd.size(), 'mpi4py' in sys.modules)")
    assert proc.stdout.split() == ["1", "False"], proc.stderr


def test_a_job_of_several_processes_without_the_extra_names_it():
    proc = _python("import sys; sys.modules['mpi4py'] = None\nimport tapeflow as tf\n"
                   "tf.distribute.MultiWorkerMirroredStrategy()", PMI_SIZE="2", PMI_RANK="0")
    assert proc.returncode != 0
    assert "ImportError" in proc.stderr and "pip install 'tapeflow[mpi]'" in proc.stderr


def test_one_fused_message_per_dtype_not_per_variable(monkeypatch):
    comm = _Pair()
    arrays = [np.full((3, 2), 1.0, np.float32), np.arange(4, dtype=np.float32), np.ones(5, np.float64),
              np.array([7], np.int64), np.full(2, 3.0, np.float32)]
    out = _collective.allreduce_arrays(arrays, [f"v{i}" for i in range(5)], average=True, comm=comm)
    for a, b in zip(out, arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)  # the mean of two equal ranks
    # the agreement probe, then one buffer per dtype
    assert comm.messages == [("int64", 2, "MAX"), ("float32", 12, "SUM"), ("float64", 5, "SUM"),
                             ("int64", 1, "SUM")]
    monkeypatch.setenv("TAPEFLOW_FUSION_THRESHOLD", "32")  # bytes: 6 + 4 floats do not fit in one buffer
    comm.messages.clear()
    _collective.allreduce_arrays(arrays[:3] + arrays[4:], comm=comm)
    assert [m[1] for m in comm.messages] == [2, 6, 6, 5]  # float32: [6], then [4 + 2]; float64: [5]
    monkeypatch.setenv("TAPEFLOW_FUSION_ALONE", "20")  # bytes: the 6 floats travel alone, the rest together
    comm.messages.clear()
    out = _collective.allreduce_arrays(arrays[:2] + arrays[4:], comm=comm)
    assert [m[1] for m in comm.messages] == [2, 6, 6]
    np.testing.assert_array_equal(out[0], arrays[0] * 2)


def test_results_live_in_buffers_reused_once_dropped():
    comm = _Pair()
    big = np.ones(300_000, np.float32)  # travels alone (>= 256 KiB)
    first = _collective.allreduce_arrays([big], comm=comm)[0]
    second = _collective.allreduce_arrays([big * 3], comm=comm)[0]
    owners = {id(_owner(first)), id(_owner(second))}
    assert len(owners) == 2  # the first result is alive: its buffer is not reused
    np.testing.assert_array_equal(first[:3], [2, 2, 2])
    np.testing.assert_array_equal(second[:3], [6, 6, 6])
    del first, second
    third = _collective.allreduce_arrays([big], comm=comm)[0]
    assert id(_owner(third)) in owners  # a pooled buffer, warm, once its results were dropped
    np.testing.assert_array_equal(third[:3], [2, 2, 2])


def _owner(array):
    while array.base is not None:
        array = array.base
    return array


def test_fp16_compression_halves_the_bytes():
    comm = _Pair()
    values = np.linspace(-1, 1, 10).astype(np.float32)
    out = _collective.allreduce_arrays([values], compression="fp16", comm=comm)[0]
    assert comm.messages[-1][:2] == ("float16", 10)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, values * 2, atol=2e-3)


def test_disagreeing_ranks_get_an_error_naming_the_variables():
    comm = _Pair(other_entries=(("kernel", (3, 4), "float32"), ("extra", (1,), "float32")))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'kernel' \(rank 0: shape \[3, 2\] float32, rank 1: "
                                                              r"shape \[3, 4\] float32\); 'extra' \(rank 0: missing"):
        _collective.allreduce_arrays([np.zeros((3, 2), np.float32)], ["kernel"], comm=comm)
    assert len(comm.messages) == 1  # no data was sent


def test_horovod_in_one_process():
    hvd_keras.init()
    assert hvd_keras.size() == 1 and hvd_keras.callbacks is hvd.callbacks
    assert (hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size()) == (0, 1, 0, 1)
    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(hvd.allreduce(x).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(hvd.allgather(x).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(hvd.broadcast(x, 0).numpy(), [1.0, 2.0])
    assert hvd.broadcast_object({"a": 1}) == {"a": 1} and hvd.allgather_object(3) == [3]
    with pytest.raises(ValueError, match="supersedes average"):
        hvd.allreduce(x, average=True, op=hvd.Sum)
    table = tf.Variable(tf.ones([4, 2]))
    unused = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [1, 1, 3]))
    grads = hvd.DistributedGradientTape(tape).gradient(loss, [table, unused])
    assert isinstance(grads[0], tf.IndexedSlices) and grads[1] is None
    assert grads[0].indices.numpy().tolist() == [1, 1, 3]
    with hvd.DistributedGradientTape(tf.GradientTape(), sparse_as_dense=True) as tape:
        loss = tf.reduce_sum(tf.gather(table, [1, 1, 3]))
    dense = tape.gradient(loss, table)
    np.testing.assert_array_equal(dense.numpy(), [[0, 0], [2, 2], [0, 0], [1, 1]])


def test_distributed_optimizer_is_the_same_optimizer_in_one_process():
    hvd.init()
    plain = tf.keras.optimizers.Adam(0.1)
    wrapped = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(0.1))
    assert type(wrapped).__name__ == "Adam" and isinstance(wrapped, tf.keras.optimizers.Adam)
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 2.0])
    for _ in range(3):
        plain.apply_gradients([(tf.constant([0.5, -1.0]), a)])
        wrapped.apply_gradients([(tf.constant([0.5, -1.0]), b)])
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_keras_fit_under_a_one_replica_strategy_is_plain_fit():
    x = np.random.default_rng(0).normal(size=(20, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    results = []
    for strategy in (None, tf.distribute.MirroredStrategy(), tf.distribute.MultiWorkerMirroredStrategy()):
        tf.keras.utils.set_random_seed(3)
        scope = strategy.scope() if strategy is not None else tf.distribute.get_strategy().scope()
        with scope:
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        assert model.distribute_strategy is (strategy or tf.distribute.get_strategy())
        results.append((history.history["loss"], model.get_weights()))
    for losses, weights in results[1:]:
        np.testing.assert_array_equal(losses, results[0][0])
        for a, b in zip(weights, results[0][1]):
            np.testing.assert_array_equal(a, b)


def test_distributed_dataset_splits_global_batches():
    class _Half:
        def __init__(self, rank):
            self._comm = type("C", (), {"rank": rank, "size": 2})()
            self.num_replicas_in_sync = 2

    from tapeflow.distribute._input import DistributedDataset

    ds = tf.data.Dataset.range(10).batch(4)
    parts = [[t.numpy().tolist() for t in DistributedDataset(ds, _Half(r))] for r in (0, 1)]
    assert parts == [[[0, 1], [4, 5], [8, 9]], [[2, 3], [6, 7], []]]


def test_distributed_optimizer_accumulates_backward_passes():
    hvd.init()
    plain = tf.keras.optimizers.SGD(0.1)
    wrapped = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), backward_passes_per_step=2,
                                       average_aggregated_gradients=True)
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 2.0])
    plain.apply_gradients([(tf.constant([0.5, -1.0]), a)])  # the mean of the two passes below
    wrapped.apply_gradients([(tf.constant([1.0, -3.0]), b)])
    np.testing.assert_array_equal(b.numpy(), [1.0, 2.0])  # the first pass changes nothing
    assert int(wrapped.iterations) == 0
    wrapped.apply_gradients([(tf.constant([0.0, 1.0]), b)])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(wrapped.iterations) == 1
    with pytest.raises(ValueError, match="backward_passes_per_step"):
        hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.1), backward_passes_per_step=0)


def test_gradient_groups():
    from tapeflow.horovod import _groups_of

    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    assert _groups_of(3, 0, None, [a, b, c]) == [[0, 1, 2]]
    assert _groups_of(3, 2, None, [a, b, c]) == [[0, 1], [2]]
    assert _groups_of(3, 0, [[c], [a]], [a, b, c]) == [[2], [0], [1]]


def test_variables_made_in_a_mirrored_scope_are_mirrored():
    with tf.distribute.MirroredStrategy().scope():
        v = tf.Variable([1.0, 2.0], name="w")
        layer = tf.keras.layers.Dense(2)
        layer.build((None, 3))
    with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
        u = tf.Variable(1.0)
    assert type(v).__name__ == "MirroredVariable" and isinstance(v, tf.Variable)
    assert repr(v).startswith("MirroredVariable:{\n  0: <tf.Variable 'w:0' shape=(2,)")
    assert type(layer.kernel.value).__name__ == "MirroredVariable"
    assert type(u).__name__ == "ResourceVariable"
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 4.0])


def test_model_checkpoint_writes_on_rank_0_only():
    from tapeflow.keras.callbacks.monitor import _writes_files

    class _Model:
        def __init__(self, rank):
            self._distribute_strategy = type("S", (), {"_comm": type("C", (), {"rank": rank})()})()

    assert _writes_files(_Model(0)) and not _writes_files(_Model(1))
    assert _writes_files(object())


def test_only_gradients_nothing_else_holds_are_donated():
    w = tf.Variable(np.ones((60, 60), np.float32))
    b = tf.Variable(np.ones(60, np.float32))
    x = tf.constant(np.ones((4, 60), np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.matmul(x, w) + b)
    flat = list(tape.gradient(loss, [w, b]))
    assert _collective.donatable(flat) == [True, True]
    held = flat[0]
    assert _collective.donatable(flat) == [False, True]
    del held
    flat.append(flat[1])  # the same tensor twice: its array may be overwritten once at most
    assert _collective.donatable(flat) == [True, False, False]
    with tf.GradientTape():
        assert _collective.donatable(flat[:2]) is None  # a recording tape could see the arrays
    seed = tf.ones([4, 60])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.identity(x)
    assert _collective.donatable([tape.gradient(y, x, output_gradients=seed)]) == [False]  # the caller's array

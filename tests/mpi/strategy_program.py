"""Run by tests/test_distribute_mpi.py under ``mpiexec -n 2``: tf.distribute on two processes reproduces
single-process training (custom loop, eager and traced, and Keras fit), and averages rank-dependent values."""

import sys

import numpy as np
from common import (
    GLOBAL_BATCH,
    assert_close,
    assert_same_on_every_rank,
    data,
    forward,
    initial_weights,
    reference,
)

import tapeflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
comm = strategy._comm
rank, n = comm.rank, strategy.num_replicas_in_sync
x, y = data()


def custom_loop(traced):
    with strategy.scope():
        # Each rank starts from other values: creation in scope gives every rank rank 0's.
        start = initial_weights() if rank == 0 else [w + 1.0 for w in initial_weights()]
        variables = [tf.Variable(w) for w in start]
        opt = tf.keras.optimizers.Adam(0.05)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

    def step(bx, by):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((forward(variables, bx) - by) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example)
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def train(bx, by):
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step, args=(bx, by)), axis=None)

    train = tf.function(train) if traced else train
    for bx, by in dataset:
        assert bx.shape[0] == GLOBAL_BATCH // 2
        train(bx, by)
    return [v.numpy() for v in variables]


def collectives():
    want = reference()
    for traced in (False, True):
        got = custom_loop(traced)
        assert_close(got, want, f"custom loop traced={traced}")
        assert_same_on_every_rank(got, comm.allgather_object, "custom loop")

    # Rank-dependent values average and sum correctly, in a replica context and across it.
    value = tf.constant([float(rank + 1), 10.0 * (rank + 1)])
    summed, mean = strategy.run(lambda v: (tf.distribute.get_replica_context().all_reduce("SUM", v),
                                           tf.distribute.get_replica_context().all_reduce("MEAN", v)), args=(value,))
    np.testing.assert_allclose(summed.numpy(), [3.0, 30.0])
    np.testing.assert_allclose(mean.numpy(), [1.5, 15.0])
    rows = tf.reshape(tf.range(rank + 1, dtype=tf.float32) + 10 * rank, [-1, 1])  # 1 row on rank 0, 2 on rank 1
    np.testing.assert_allclose(strategy.reduce("MEAN", rows, axis=0).numpy(), [(0 + 10 + 11) / 3])
    np.testing.assert_allclose(strategy.gather(rows, axis=0).numpy().ravel(), [0, 10, 11])
    wide = tf.fill([2, rank + 1], float(rank))  # 1 column on rank 0, 2 on rank 1
    np.testing.assert_allclose(strategy.gather(wide, axis=1).numpy(), [[0, 1, 1], [0, 1, 1]])
    gathered = strategy.run(lambda: tf.distribute.get_replica_context().all_gather(wide, axis=1))
    np.testing.assert_allclose(gathered.numpy(), [[0, 1, 1], [0, 1, 1]])

    def through_all_reduce():  # the gradient of an all-reduced sum is the all-reduced sum of the gradients
        v = tf.constant(float(rank + 1))
        with tf.GradientTape() as tape:
            tape.watch(v)
            total = tf.distribute.get_replica_context().all_reduce("SUM", v * v)
        return total, tape.gradient(total, v)

    total, grad = strategy.run(through_all_reduce)
    assert float(total) == 5.0 and float(grad) == 2 * 2 * (rank + 1), (float(total), float(grad))
    assert tf.distribute.get_replica_context() is not None
    assert strategy.run(lambda: int(tf.distribute.get_replica_context().replica_id_in_sync_group)) == rank


def keras_fit():
    """Keras fit/evaluate/predict under the strategy; the test compares with the same program run alone."""
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(4, activation="tanh"),
                                     tf.keras.layers.Dense(1)])
        model.set_weights(initial_weights())
        model.compile(tf.keras.optimizers.Adam(0.05), "mse", metrics=["mae"])
    np.random.seed(7)  # the shuffle order: rank 0's, broadcast
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=True, verbose=0)
    evaluated = model.evaluate(x, y, batch_size=16, verbose=0)
    predicted = model.predict(x[:11], batch_size=4, verbose=0)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    np.testing.assert_allclose(model.evaluate(strategy.experimental_distribute_dataset(dataset), verbose=0),
                               model.evaluate(dataset, verbose=0), rtol=1e-6)
    np.testing.assert_allclose(model.evaluate(dataset, verbose=0), evaluated, rtol=1e-6)
    assert predicted.shape == (11, 1)
    assert_same_on_every_rank(model.get_weights() + [predicted], comm.allgather_object, "keras fit")
    result = {"history": history.history, "evaluate": evaluated, "weights": model.get_weights(),
              "predict": predicted}
    np.save(f"{sys.argv[1]}/keras_{n}_{rank}.npy", np.array([result], dtype=object), allow_pickle=True)


if n > 1:
    collectives()
keras_fit()
print(f"OK strategy rank {rank} of {n}")

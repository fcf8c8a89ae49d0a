"""Run by tests/test_distribute_mpi.py under ``mpiexec -n 2``: tapeflow.horovod reproduces single-process training
(DistributedGradientTape and DistributedOptimizer), passes None gradients through, gathers or densifies sparse
gradients, and its Keras callbacks start every rank from rank 0's weights."""

import numpy as np
from common import (
    GLOBAL_BATCH,
    STEPS,
    assert_close,
    assert_same_on_every_rank,
    data,
    forward,
    initial_weights,
    reference,
)

import tapeflow as tf
import tapeflow.horovod as hvd

hvd.init()
rank, n = hvd.rank(), hvd.size()
assert n == 2 and hvd.local_size() == 2 and hvd.local_rank() == rank
x, y = data()
want = reference()
per = GLOBAL_BATCH // n


def train(mode, compression=hvd.Compression.none):
    start = initial_weights() if rank == 0 else [w - 1.0 for w in initial_weights()]
    variables = [tf.Variable(w) for w in start]
    unused = tf.Variable(1.0)  # its gradient is None on every rank: passed through
    opt = tf.keras.optimizers.Adam(0.05)
    if mode == "optimizer":
        opt = hvd.DistributedOptimizer(opt, compression=compression)
    hvd.broadcast_variables(variables, root_rank=0)

    def step(bx, by):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.reduce_sum((forward(variables, bx) - by) ** 2, axis=1))
        if mode in ("tape", "traced"):
            tape = hvd.DistributedGradientTape(tape, compression=compression)
        elif mode == "groups":  # two fused exchanges, and the average divided before and after the sum
            tape = hvd.DistributedGradientTape(tape, num_groups=2, gradient_predivide_factor=2.0)
        grads = tape.gradient(loss, variables + [unused])
        assert grads[-1] is None
        opt.apply_gradients(zip(grads[:-1], variables))

    step = tf.function(step) if mode == "traced" else step  # the allreduce runs inside the traced program
    for i in range(STEPS):
        lo = i * GLOBAL_BATCH + rank * per
        step(tf.constant(x[lo:lo + per]), tf.constant(y[lo:lo + per]))
    return [v.numpy() for v in variables]


for mode in ("tape", "optimizer", "groups", "traced"):
    got = train(mode)
    assert_close(got, want, f"horovod {mode}")
    assert_same_on_every_rank(got, hvd.allgather_object, f"horovod {mode}")
half = train("tape", hvd.Compression.fp16)
for g, w in zip(half, want):
    np.testing.assert_allclose(g, w, rtol=0.05, atol=0.02)

# Collectives on rank-dependent values.
assert float(hvd.allreduce(tf.constant(float(rank)))) == 0.5
assert float(hvd.allreduce(tf.constant(float(rank + 1)), op=hvd.Sum)) == 3.0
assert hvd.allgather(tf.fill([rank + 1, 2], rank)).numpy().tolist() == [[0, 0], [1, 1], [1, 1]]
assert float(hvd.broadcast(tf.constant(float(rank) + 5.0), root_rank=1)) == 6.0
assert hvd.broadcast_object({"rank": rank}, root_rank=1) == {"rank": 1}
assert hvd.allgather_object(rank * 10) == [0, 10]

# A gradient that is the caller's own tensor (an identity's, from output_gradients) is not overwritten.
big = tf.Variable(tf.zeros([300, 300]))
seed = tf.fill([300, 300], float(rank + 1))
with tf.GradientTape() as tape:
    out = tf.identity(big)
reduced = hvd.DistributedGradientTape(tape).gradient(out, big, output_gradients=seed)
assert float(seed[0, 0]) == rank + 1 and float(reduced[0, 0]) == 1.5, (float(seed[0, 0]), float(reduced[0, 0]))

# Sparse gradients: rows gathered from every rank (averaged), or densified and allreduced: the same update.
table = tf.Variable(np.arange(12, dtype="float32").reshape(6, 2))
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(tf.gather(table, [rank, 3]) * float(rank + 1))
sparse = hvd.DistributedGradientTape(tape).gradient(loss, table)
dense = hvd.DistributedGradientTape(tape, sparse_as_dense=True).gradient(loss, table)
assert isinstance(sparse, tf.IndexedSlices) and sparse.indices.numpy().tolist() == [0, 3, 1, 3]
np.testing.assert_allclose(tf.convert_to_tensor(sparse).numpy(), dense.numpy())
np.testing.assert_allclose(dense.numpy()[:, 0], [0.5, 1.0, 0, 1.5, 0, 0])

# Keras: the callbacks give every rank rank 0's initial weights and average the epoch's metrics.
tf.keras.utils.set_random_seed(rank)  # other initial weights on each rank
model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
model.compile(hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.05)), "mse")
lo = rank * (len(x) // n)
history = model.fit(x[lo:lo + len(x) // n], y[lo:lo + len(x) // n], batch_size=per, epochs=2, shuffle=False,
                    verbose=0, callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                                          hvd.callbacks.MetricAverageCallback()])
assert_same_on_every_rank(model.get_weights() + [np.array(history.history["loss"])], hvd.allgather_object,
                          "horovod keras")
print(f"OK horovod rank {rank}")

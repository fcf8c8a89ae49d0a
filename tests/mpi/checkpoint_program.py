"""Run by tests/test_distribute_mpi.py under ``mpiexec -n 2``: rank 0 alone writes checkpoints
(tf.train.CheckpointManager), every rank restores them, and a run resumed from one ends with the numbers of the
run that went through."""

import os
import sys

from common import GLOBAL_BATCH, STEPS, assert_close, assert_same_on_every_rank, data, forward, initial_weights

import tapeflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
comm = strategy._comm
rank = comm.rank
directory = sys.argv[1]
x, y = data()
dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))


def make(offset):
    with strategy.scope():
        variables = [tf.Variable(w + offset) for w in initial_weights()]
        opt = tf.keras.optimizers.Adam(0.05)
        opt.build(variables)
    return variables, opt


def run(variables, opt, batches):
    @tf.function
    def step(bx, by):
        def replica_step(bx, by):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.reduce_sum((forward(variables, bx) - by) ** 2, axis=1))
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        strategy.run(replica_step, args=(bx, by))

    for bx, by in batches:
        step(bx, by)


full, full_opt = make(0.0)
run(full, full_opt, dataset)

variables, opt = make(0.0)
checkpoint = tf.train.Checkpoint(w1=variables[0], b1=variables[1], w2=variables[2], b2=variables[3], opt=opt)
manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
batches = list(dataset)
run(variables, opt, batches[:STEPS // 2])
if strategy.extended.should_checkpoint:
    manager.save()
comm.barrier()
assert {name.split(".")[0] for name in os.listdir(directory)} == {"checkpoint", "ckpt-1"}, os.listdir(directory)

# A fresh start on every rank (other values), restored from rank 0's checkpoint, then the rest of the batches.
resumed, resumed_opt = make(3.0)
restored = tf.train.Checkpoint(w1=resumed[0], b1=resumed[1], w2=resumed[2], b2=resumed[3], opt=resumed_opt)
status = restored.restore(tf.train.latest_checkpoint(directory))
status.assert_existing_objects_matched()
assert_close([v.numpy() for v in resumed], [v.numpy() for v in variables], "restored")
run(resumed, resumed_opt, batches[STEPS // 2:])
assert_close([v.numpy() for v in resumed], [v.numpy() for v in full], "resumed run")
assert_same_on_every_rank([v.numpy() for v in resumed], comm.allgather_object, "resumed run")
print(f"OK checkpoint rank {rank}")

"""Run by tests/test_distribute_mpi.py under ``mpiexec -n 2`` with one fault (argv[1]); the test checks that the
job ends, and what it says:

* ``raise``: rank 1 raises while rank 0 waits in an allreduce;
* ``mismatch``: rank 1 has another variable shape and an extra variable: the first allreduce names them;
* ``kill DIR``: after a checkpoint by rank 0 in DIR, rank 1 is killed with SIGKILL while rank 0 waits in an
  allreduce; ``restore DIR`` (a new job) then restores that checkpoint on every rank.
"""

import os
import signal
import sys

import numpy as np

import tapeflow as tf
import tapeflow.horovod as hvd

hvd.init()
rank = hvd.rank()
mode = sys.argv[1]
hvd.allreduce(tf.constant(1.0))  # both ranks are up

if mode == "raise":
    if rank == 1:
        raise ValueError("boom on purpose")
    hvd.allreduce(tf.constant(2.0))
elif mode == "mismatch":
    variables = [tf.Variable(tf.zeros([3, 2]), name="dense/kernel"), tf.Variable(tf.zeros([2]), name="dense/bias")]
    if rank == 1:
        variables = [tf.Variable(tf.zeros([3, 4]), name="dense/kernel"), variables[1],
                     tf.Variable(tf.zeros([1]), name="extra")]
    with tf.GradientTape() as tape:
        loss = tf.add_n([tf.reduce_sum(v) for v in variables])
    hvd.DistributedGradientTape(tape).gradient(loss, variables)
elif mode in ("kill", "restore"):
    weights = tf.Variable(tf.zeros([3]), name="weights")
    checkpoint = tf.train.Checkpoint(weights=weights)
    manager = tf.train.CheckpointManager(checkpoint, sys.argv[2], max_to_keep=1)
    if mode == "kill":
        for step in range(2):
            weights.assign_sub(hvd.allreduce(tf.constant([1.0, 2.0, 3.0]) * float(rank + step)))
        if rank == 0:
            manager.save()
            np.save(os.path.join(sys.argv[2], "expected.npy"), weights.numpy())
        hvd.allreduce(tf.constant(0.0))  # the checkpoint is written
        if rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        hvd.allreduce(tf.constant(2.0))
    else:
        checkpoint.restore(manager.latest_checkpoint).assert_existing_objects_matched()
        np.testing.assert_array_equal(weights.numpy(), np.load(os.path.join(sys.argv[2], "expected.npy")))
        np.testing.assert_array_equal(weights.numpy(), [-2.0, -4.0, -6.0])  # means 0.5, then 1.5
        print(f"OK restored rank {rank}")
print(f"rank {rank} finished", flush=True)

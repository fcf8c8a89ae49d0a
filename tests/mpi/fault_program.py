"""Run by tests/test_distribute_mpi.py under ``mpiexec -n 2`` with one fault (argv[1]); the test checks that the
job ends, and what it says:

* ``raise``: rank 1 raises while rank 0 waits in an allreduce;
* ``mismatch``: rank 1 has another variable shape and an extra variable: the first allreduce names them;
* ``kill``: rank 1 is killed with SIGKILL while rank 0 waits in an allreduce.
"""

import os
import signal
import sys

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
elif mode == "kill":
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    hvd.allreduce(tf.constant(2.0))
print(f"rank {rank} finished", flush=True)

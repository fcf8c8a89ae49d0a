"""tf.train checkpoints: what is comparable with TF (names returned, counters, state, mismatch errors).

File contents differ on purpose (tapeflow writes its own open format), so cases return paths relative to a
temporary directory and never list files.
"""

import gc
import os
import shutil
import tempfile

from tests.golden.harness import case, catch


def _in_tmp(fn):
    directory = tempfile.mkdtemp()
    try:
        return fn(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _quiet(tf, fn):
    """Run ``fn`` with TF's logger at ERROR: TF warns about unrestored values when an object is collected."""
    logger = tf.get_logger()
    level = logger.level
    logger.setLevel("ERROR")
    try:
        result = _in_tmp(fn)
        gc.collect()
        return result
    finally:
        logger.setLevel(level)


def _rel(directory, path):
    return None if path is None else os.path.relpath(path, directory)


@case
def checkpoint_save_names_and_counter(tf):
    def run(d):
        ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]), step=tf.Variable(3, dtype=tf.int64))
        first = ckpt.save(os.path.join(d, "ck"))
        second = ckpt.save(os.path.join(d, "ck"))
        written = ckpt.write(os.path.join(d, "w"))
        return [_rel(d, first), _rel(d, second), _rel(d, written), ckpt.save_counter, ckpt.save_counter.name,
                _rel(d, tf.train.latest_checkpoint(d)), tf.train.latest_checkpoint(os.path.join(d, "missing"))]
    return _in_tmp(run)


@case
def checkpoint_restore_round_trip(tf):
    def run(d):
        v = tf.Variable([1.0, 2.0])
        ckpt = tf.train.Checkpoint(v=v)
        path = ckpt.save(os.path.join(d, "ck"))
        ckpt.save(os.path.join(d, "ck"))
        v.assign([9.0, 9.0])
        status = ckpt.restore(path)
        status.assert_consumed()
        return [v, ckpt.save_counter, type(status).__name__]
    return _in_tmp(run)


@case
def checkpoint_manager_max_to_keep(tf):
    def run(d):
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
        before = [manager.latest_checkpoint, manager.checkpoints]
        saved = [_rel(d, manager.save()) for _ in range(4)]
        after = [_rel(d, manager.latest_checkpoint), [_rel(d, p) for p in manager.checkpoints],
                 _rel(d, tf.train.latest_checkpoint(d))]
        again = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
        reopened = [_rel(d, again.latest_checkpoint), [_rel(d, p) for p in again.checkpoints]]
        numbered = [_rel(d, again.save(checkpoint_number=10)), ckpt.save_counter, _rel(d, again.save()),
                    [_rel(d, p) for p in again.checkpoints]]
        return [before, saved, after, reopened, numbered]
    return _in_tmp(run)


@case
def checkpoint_manager_bad_max_to_keep(tf):
    def run(d):
        return catch(tf.train.CheckpointManager, tf.train.Checkpoint(v=tf.Variable(1.0)), d, max_to_keep=0)
    return _in_tmp(run)


@case
def checkpoint_restore_shape_mismatch(tf):
    def run(d):
        path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).save(os.path.join(d, "ck"))
        v = tf.Variable([5.0, 6.0, 7.0])
        return [catch(tf.train.Checkpoint(v=v).restore, path), v]
    return _quiet(tf, run)


@case
def checkpoint_restore_dtype_mismatch(tf):
    def run(d):
        path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).save(os.path.join(d, "ck"))
        a, b = tf.Variable([1, 2]), tf.Variable([1.0, 2.0], dtype=tf.float64)
        return [catch(tf.train.Checkpoint(v=a).restore, path), catch(tf.train.Checkpoint(v=b).restore, path), a, b]
    return _quiet(tf, run)


@case
def checkpoint_untrackable_argument(tf):
    return catch(tf.train.Checkpoint, v=3)


@case
def checkpoint_status_assertions(tf):
    def run(d):
        path = tf.train.Checkpoint(v=tf.Variable(1.0)).save(os.path.join(d, "ck"))
        extra = tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(2.0)).restore(path)
        empty = tf.train.Checkpoint().restore(path)
        return [catch(extra.assert_consumed), catch(extra.assert_existing_objects_matched),
                catch(empty.assert_consumed), type(catch(empty.assert_existing_objects_matched)).__name__,
                type(empty.expect_partial()).__name__]
    return _in_tmp(run)

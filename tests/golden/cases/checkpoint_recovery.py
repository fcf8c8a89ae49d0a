"""Checkpoint directories after trouble: damaged state files, checkpoints that vanished, a manager restarting.

What TF logs and returns for a damaged ``checkpoint`` state file (a warning with protobuf's parse error, then
``<file>: Checkpoint ignored``), which checkpoints a restarted ``CheckpointManager`` manages, deletes and keeps
(``max_to_keep``, ``keep_checkpoint_every_n_hours``, checkpoints it did not write). Cases run in a temporary current
directory with relative paths, so the paths in log lines are the same for every run; files on disk are compared by
checkpoint name (``ckpt-3``), since the two formats name their files differently.
"""

import gc
import os
import shutil
import tempfile

from tests.golden.harness import case, catch

_GOOD = ('model_checkpoint_path: "ckpt-2"\n'
         'all_model_checkpoint_paths: "ckpt-1"\n'
         'all_model_checkpoint_paths: "ckpt-2"\n'
         "all_model_checkpoint_timestamps: 1700000000.5\n"
         "all_model_checkpoint_timestamps: 1700000001.5\n"
         "last_preserved_timestamp: 1699999999.0\n")


def _in_cwd(tf, fn):
    """Run ``fn()`` with a fresh temporary directory as the current directory."""
    old = os.getcwd()
    directory = tempfile.mkdtemp()
    os.chdir(directory)
    try:
        return fn()
    finally:
        os.chdir(old)
        gc.collect()
        shutil.rmtree(directory, ignore_errors=True)


def _names(directory):
    """The checkpoints (and state file) in ``directory``, by name: ``ckpt-3`` for TF's and tapeflow's files."""
    return sorted({name.split(".")[0] for name in os.listdir(directory) if not name.startswith(".")})


def _two_checkpoints(tf, directory="run"):
    os.makedirs(directory)
    for name in ("ckpt-1", "ckpt-2"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).write(os.path.join(directory, name))


def _with_state(tf, text):
    """Write ``text`` as the state file next to two checkpoints; what ``latest_checkpoint`` and a new manager see."""
    def run():
        _two_checkpoints(tf)
        with open(os.path.join("run", "checkpoint"), "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        latest = catch(tf.train.latest_checkpoint, "run")
        manager = catch(tf.train.CheckpointManager, tf.train.Checkpoint(v=tf.Variable(1.0)), "run", max_to_keep=1)
        seen = manager if not hasattr(manager, "checkpoints") else [manager.latest_checkpoint, manager.checkpoints]
        return [latest, seen]
    return _in_cwd(tf, run)


@case
def state_good(tf):
    return _with_state(tf, _GOOD)


@case
def state_unparsable_float(tf):
    return _with_state(tf, _GOOD.replace("1700000001.5", "1e999x"))


@case
def state_quoted_number(tf):
    return _with_state(tf, _GOOD.replace("1700000001.5", '"1700000001.5"'))


@case
def state_truncated_in_a_value(tf):
    return _with_state(tf, _GOOD[:60])


@case
def state_truncated_in_a_name(tf):
    return _with_state(tf, _GOOD[:20])


@case
def state_truncated_in_a_string(tf):
    return _with_state(tf, _GOOD[:27])


@case
def state_truncated_at_line_ends(tf):
    ends = [i + 1 for i, c in enumerate(_GOOD) if c == "\n"]
    return [_with_state(tf, _GOOD[:n]) for n in ends]


@case
def state_unknown_field(tf):
    return _with_state(tf, _GOOD + "foo: 1\n")


@case
def state_text_garbage(tf):
    return _with_state(tf, "\u00ff\u00fe\u2603 {not: a [checkpoint\n")


@case
def state_missing_colon_and_bad_escape(tf):
    return [_with_state(tf, 'model_checkpoint_path "ckpt-2"\n'),
            _with_state(tf, 'model_checkpoint_path: "ckpt\\x"\n'),
            _with_state(tf, "model_checkpoint_path: 'ckpt-2\n")]


@case
def state_empty_or_without_latest(tf):
    return [_with_state(tf, ""), _with_state(tf, "\n\n"), _with_state(tf, 'all_model_checkpoint_paths: "ckpt-1"\n'),
            _with_state(tf, 'model_checkpoint_path: ""\n')]


@case
def state_special_timestamps(tf):
    # NaN and negative timestamps are never newer than the last preserved one; an infinite one is capped at now.
    return [_with_state(tf, _GOOD.replace("1700000001.5", v)) for v in ("nan", "-5", "1e999", "-inf", "1.5e9f")]


@case
def state_text_format_syntax(tf):
    # Comments, separators, the list form, adjacent string literals, escapes and a repeated singular field.
    text = ('# written by hand\nmodel_checkpoint_path: "ckpt-" \'1\';\n'
            'all_model_checkpoint_paths: ["ckpt-1", "ck\\160t-2"],\n'
            "all_model_checkpoint_timestamps: [1700000000.5, 1700000001.5]\n"
            "last_preserved_timestamp: 1699999999\nmodel_checkpoint_path: \"ckpt-2\"\n")
    return _with_state(tf, text)


@case
def state_file_is_a_directory(tf):
    def run():
        _two_checkpoints(tf)
        os.makedirs(os.path.join("run", "checkpoint"))
        return [tf.train.latest_checkpoint("run"),
                tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "run", 1).checkpoints]
    return _in_cwd(tf, run)


@case
def latest_checkpoint_names_a_missing_checkpoint(tf):
    def run():
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "run", max_to_keep=3)
        manager.save()
        manager.save()
        for name in os.listdir("run"):
            if name.startswith("ckpt-2."):
                os.remove(os.path.join("run", name))
        again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "run", max_to_keep=3)
        return [tf.train.latest_checkpoint("run"), tf.train.latest_checkpoint("nowhere"),
                again.latest_checkpoint, again.checkpoints]
    return _in_cwd(tf, run)


@case
def manager_restarted_after_a_crash_while_deleting(tf):
    # The state lists more checkpoints than max_to_keep (a manager killed while deleting): the next save deletes
    # the oldest ones down to max_to_keep.
    def run():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        first = tf.train.CheckpointManager(ckpt, "run", max_to_keep=None)
        for _ in range(4):
            first.save()
        again = tf.train.CheckpointManager(ckpt, "run", max_to_keep=2)
        before = [again.checkpoints, _names("run")]
        saved = again.save()
        return [before, saved, again.checkpoints, _names("run"), tf.train.latest_checkpoint("run")]
    return _in_cwd(tf, run)


@case
def manager_keeps_preserved_and_foreign_checkpoints(tf):
    # Checkpoints preserved by keep_checkpoint_every_n_hours, and those Checkpoint.save wrote, are never deleted
    # by a later manager, whatever its settings.
    def run():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        keeper = tf.train.CheckpointManager(ckpt, "run", max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
        for _ in range(3):
            keeper.save()
        after_keeper = [keeper.checkpoints, _names("run")]
        foreign = [ckpt.save(os.path.join("run", "ckpt")) for _ in range(2)]
        later = tf.train.CheckpointManager(ckpt, "run", max_to_keep=1)
        adopted = [later.checkpoints, later.latest_checkpoint]
        saved = [later.save(), later.save()]
        return [after_keeper, foreign, adopted, saved, later.checkpoints, _names("run")]
    return _in_cwd(tf, run)


@case
def manager_save_after_damaged_state(tf):
    # A damaged state is ignored: the manager starts afresh, deletes nothing it did not write, and saves.
    def run():
        _two_checkpoints(tf)
        with open(os.path.join("run", "checkpoint"), "w") as f:
            f.write(_GOOD.replace("1700000001.5", '"x"'))
        calls = []
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "run", max_to_keep=1,
                                             init_fn=lambda: calls.append("init"))
        restored = manager.restore_or_initialize()
        saved = [manager.save(), manager.save()]
        return [restored, calls, saved, manager.checkpoints, _names("run"), tf.train.latest_checkpoint("run")]
    return _in_cwd(tf, run)


@case
def manager_names_that_need_escaping(tf):
    # (Not a backslash: TF's latest_checkpoint matches the path as a glob pattern, where it escapes the next
    # character, so it cannot find such a checkpoint; tapeflow does not copy that.)
    def run():
        names = []
        for name in ('ck"pt', "quote'", "sp ace", "caf\u00e9", "tab\tname"):
            manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), name, max_to_keep=1,
                                                 checkpoint_name=name)
            manager.save()
            again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), name, max_to_keep=1,
                                               checkpoint_name=name)
            names.append([tf.train.latest_checkpoint(name), again.checkpoints])
        return names
    return _in_cwd(tf, run)

"""Two-process runs under ``mpiexec -n 2`` (the ``mpi`` extra: mpi4py and MPICH from PyPI): the programs in
``tests/mpi/`` train with tf.distribute and tapeflow.horovod and check their numbers against single-process
training themselves; the fault programs must end the whole job with a message naming what went wrong."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="the MPI tests need the 'mpi' extra (mpi4py and an MPI)")

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "mpi"
SRC = HERE.parent / "src"
TIMEOUT = 120  # seconds: generous for a loaded machine; a hang fails the test instead of blocking the suite


def _mpiexec():
    local = Path(sys.executable).parent / "mpiexec"
    found = str(local) if local.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec (the 'mpi' extra installs MPICH's)")
    return found


def _run(program, *args, processes=2):
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{PROGRAMS}", "OPENBLAS_NUM_THREADS": "1"}
    env.pop("TAPEFLOW_MPI", None)
    command = [sys.executable, str(PROGRAMS / program), *map(str, args)]
    if processes > 1:
        command = [_mpiexec(), "-n", str(processes)] + command
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=PROGRAMS)


def _ok(proc, expected_lines):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # (mpiexec forwards each rank's output as it comes: two ranks' lines may share one line)
    assert proc.stdout.count("OK ") == expected_lines, proc.stdout


def test_strategy_program_matches_single_process(tmp_path):
    _ok(_run("strategy_program.py", tmp_path), 2)
    _ok(_run("strategy_program.py", tmp_path, processes=1), 1)
    two = np.load(tmp_path / "keras_2_0.npy", allow_pickle=True)[0]
    one = np.load(tmp_path / "keras_1_0.npy", allow_pickle=True)[0]
    for a, b in zip(two["weights"], one["weights"]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(two["predict"], one["predict"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(two["evaluate"], one["evaluate"], rtol=2e-5)
    for key in ("loss", "mae"):
        np.testing.assert_allclose(two["history"][key], one["history"][key], rtol=2e-5)


def test_horovod_program_matches_single_process():
    _ok(_run("horovod_program.py"), 2)


def test_checkpoints_written_by_rank_0_restore_everywhere_and_resume(tmp_path):
    _ok(_run("checkpoint_program.py", tmp_path / "ckpt"), 2)


def test_a_rank_that_raises_ends_the_job_naming_it():
    proc = _run("fault_program.py", "raise")
    assert proc.returncode != 0
    assert "rank 1 raised ValueError: boom on purpose" in proc.stderr
    assert "finished" not in proc.stdout


def test_variables_that_differ_between_ranks_are_named_at_the_first_allreduce():
    proc = _run("fault_program.py", "mismatch")
    assert proc.returncode != 0
    assert "the ranks disagree on the tensors to reduce" in proc.stderr
    assert "'dense/kernel:0' (rank 0: shape [3, 2] float32, rank 1: shape [3, 4] float32)" in proc.stderr
    assert "'extra:0' (rank 0: missing, rank 1: shape [1] float32)" in proc.stderr


def test_a_rank_killed_with_sigkill_ends_the_job_and_the_last_checkpoint_restores(tmp_path):
    proc = _run("fault_program.py", "kill", tmp_path)
    assert proc.returncode != 0
    assert "signal 9" in proc.stdout + proc.stderr
    assert "finished" not in proc.stdout
    restored = _run("fault_program.py", "restore", tmp_path)
    _ok(restored, 2)

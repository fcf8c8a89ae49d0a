"""Every program in examples/ prints on tapeflow exactly what it printed on TensorFlow 2.21.

The expected output of each example is recorded by ``tools/record_golden.py <example stem>`` into
``tests/golden/examples/<stem>.txt``. A line starting with ``TensorFlow `` (the version banner) only has to
look like ``TensorFlow <something>``, since tapeflow reports its own version there.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RECORDINGS = Path(__file__).parent / "golden" / "examples"

# Programs whose output cannot be recorded from TensorFlow (timings, optional third-party data), tested on their own.
UNRECORDED = {"train_digits"}
ALL_EXAMPLES = sorted(p for p in EXAMPLES.glob("*.py") if p.stem not in UNRECORDED)
RECORDED_EXAMPLES = [p for p in ALL_EXAMPLES if (RECORDINGS / f"{p.stem}.txt").exists()]

VERSION_LINE = re.compile(r"TensorFlow \S.*")

# What these two programs must print, written out independently of the recordings: the TensorFlow recording of each
# must show the same lines.
EXPECTED_OUTPUTS = {
    "gradient_tape_demo": [
        "TensorFlow 2.21.0",
        "dy/dx at x=3.0: 8.00",
        "weight before: 2.00",
        "loss before: 81.00",
        "gradient for weight: -54.00",
        "weight after: 4.70",
        "loss after: 0.81",
        "gradient connected: True",
    ],
    "gradient_tape_walkthrough": [
        "dy/dx at x=3: 6.0",
        "gradient for an unwatched constant: None",
        "after tape.watch: 6.0",
        "learned w=2.05, b=0.84, loss=0.0042",
    ],
}


def _recorded_lines(stem):
    return (RECORDINGS / f"{stem}.txt").read_text(encoding="utf-8").splitlines()


def _mismatches(expected, actual):
    """Differences between expected and actual output lines; the version banner only has to keep its shape."""
    problems = []
    if len(expected) != len(actual):
        problems.append(f"expected {len(expected)} lines, got {len(actual)}")
    for number, (want, got) in enumerate(zip(expected, actual), start=1):
        if want.startswith("TensorFlow "):
            if not VERSION_LINE.fullmatch(got):
                problems.append(f"line {number}: expected 'TensorFlow <version>', got {got!r}")
        elif want != got:
            problems.append(f"line {number}: expected {want!r}, got {got!r}")
    return problems


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=[p.stem for p in ALL_EXAMPLES])
def test_example_has_recording(path):
    assert (RECORDINGS / f"{path.stem}.txt").exists(), (
        f"no recording for examples/{path.name}: make sure it uses 'import tapeflow as tf', "
        f"then run tools/record_golden.py {path.stem} with TensorFlow 2.21"
    )


@pytest.mark.parametrize("path", RECORDED_EXAMPLES, ids=[p.stem for p in RECORDED_EXAMPLES])
def test_example_matches_tensorflow(path):
    proc = subprocess.run(
        [sys.executable, path.name],
        cwd=path.parent,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert proc.returncode == 0, f"examples/{path.name} exited with {proc.returncode}:\n{proc.stderr}"
    problems = _mismatches(_recorded_lines(path.stem), proc.stdout.splitlines())
    assert not problems, "\n".join([f"examples/{path.name} output differs from TensorFlow's:", *problems])


@pytest.mark.parametrize("stem", sorted(EXPECTED_OUTPUTS))
def test_recording_matches_expected_output(stem):
    assert (RECORDINGS / f"{stem}.txt").exists(), f"no recording for examples/{stem}.py"
    problems = _mismatches(EXPECTED_OUTPUTS[stem], _recorded_lines(stem))
    assert not problems, "\n".join([f"recording of {stem} differs from its expected output:", *problems])


def test_train_digits_quick_run(tmp_path):
    """The digits CNN example, in its short mode: it trains, resumes from its checkpoint exactly and writes the plot."""
    pytest.importorskip("sklearn", reason="examples/train_digits.py needs scikit-learn (the [examples] extra)")
    pytest.importorskip("matplotlib", reason="examples/train_digits.py needs matplotlib (the [examples] extra)")
    plot = tmp_path / "digits_training.png"
    env = dict(os.environ, TAPEFLOW_DIGITS_QUICK="1", TAPEFLOW_DIGITS_PLOT=str(plot), MPLCONFIGDIR=str(tmp_path))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, "train_digits.py"], cwd=EXAMPLES, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)
    assert proc.returncode == 0, f"examples/train_digits.py exited with {proc.returncode}:\n{proc.stderr}"
    assert "identical to the uninterrupted run: True" in proc.stdout, proc.stdout
    assert "GradientTape loop: test accuracy" in proc.stdout and "model.fit:" in proc.stdout, proc.stdout
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# The walkthrough's common mistakes, as example programs: run unchanged with tapeflow.debug's warning mode on, each
# None gradient they print is explained with the mistake's cause.
MISTAKE_CAUSES = {
    "mistake_integer_inputs": "integer_dtype",
    "mistake_numpy_in_middle": "left_tape",
    "mistake_outside_with": "outside_tape",
    "mistake_rebinding": "not_a_variable",
}
_EXPLAINED_RUN = (
    "import runpy, sys, tapeflow.debug\n"
    "tapeflow.debug.explain_none_gradients(True)\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
)


@pytest.mark.parametrize("stem", sorted(MISTAKE_CAUSES))
def test_mistake_example_is_explained(stem):
    proc = subprocess.run([sys.executable, "-c", _EXPLAINED_RUN, f"{stem}.py"], cwd=EXAMPLES, env=dict(os.environ),
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert proc.returncode == 0, proc.stderr
    causes = re.findall(r"\[cause: (\w+)\]", proc.stderr)
    assert causes and set(causes) == {MISTAKE_CAUSES[stem]}, proc.stderr
    assert f"{stem}.py:" in proc.stderr, proc.stderr  # the explanation names a line of the program

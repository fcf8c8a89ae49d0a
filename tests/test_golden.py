"""Every golden case gives on tapeflow what it gave on TensorFlow 2.21 (recorded by tools/record_golden.py)."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import tapeflow
from tests.golden import harness

DATA = Path(__file__).parent / "golden" / "data"
CASES = harness.load_cases()


def _recorded(module):
    path = DATA / f"{module}.json"
    return json.loads(path.read_text())["cases"] if path.exists() else {}


RECORDED = {m: _recorded(m) for m in CASES}

# Cases whose answer comes from NumPy itself (how it prints a float32 scalar, how it converts a 1-element array),
# recorded with NumPy 2.4 as TF 2.21's reference environment was; older NumPy (the newest for Python 3.10 is 2.2)
# answers differently, in TF as in tapeflow.
NUMPY_2_4 = {("tensor", "print_float_scalars"), ("tensor", "tensor_float_int_index"),
             ("variable", "variable_scalar_conversions")}
_OLD_NUMPY = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 4)

# Known differences still to remove, each a strict xfail that names what is missing.
PENDING = {}


PARAMS = [pytest.param(m, n, id=f"{m}::{n}",
                       marks=[pytest.mark.xfail(strict=True, reason=PENDING[(m, n)])] if (m, n) in PENDING else [])
          for m, cases in CASES.items() for n in cases]


_STARTED = set()


def _as_in_a_fresh_process(module):
    """Before a module's first case, reset what TF counts per process (its pfor retracing detector warns on the
    5th and 6th vectorised call of a process): the module's recording started with none, whatever other test
    files ran before it here."""
    if module not in _STARTED:
        _STARTED.add(module)
        from tapeflow._core import jacobian

        jacobian._PFOR_CALLS.clear()
        if "tapeflow.config" in sys.modules:  # logical devices configurable again, as in a new process
            sys.modules["tapeflow.config"]._reset_logical_devices()
        if "tapeflow.keras._state" in sys.modules:  # Keras's name counters (``keras_tensor_4``) start afresh too
            sys.modules["tapeflow.keras._state"].clear_session(free_memory=False)


@pytest.mark.parametrize("module,name", PARAMS)
def test_case_matches_tensorflow(module, name):
    _as_in_a_fresh_process(module)
    if _OLD_NUMPY and (module, name) in NUMPY_2_4:
        pytest.skip(f"recorded with NumPy 2.4; this is NumPy {np.__version__}")
    expected = RECORDED[module].get(name)
    assert expected is not None, f"no recording for {module}::{name}: run tools/record_golden.py {module}"
    actual = harness.run_case(CASES[module][name], tapeflow)
    diffs = harness.compare_run(expected, actual)
    assert not diffs, "\n".join(diffs)

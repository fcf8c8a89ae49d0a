"""Every golden case gives on tapeflow what it gave on TensorFlow 2.21 (recorded by tools/record_golden.py)."""

import json
from pathlib import Path

import pytest

import tapeflow
from tests.golden import harness

DATA = Path(__file__).parent / "golden" / "data"
CASES = harness.load_cases()
PARAMS = [(m, n) for m, cases in CASES.items() for n in cases]


def _recorded(module):
    path = DATA / f"{module}.json"
    return json.loads(path.read_text())["cases"] if path.exists() else {}


RECORDED = {m: _recorded(m) for m in CASES}


@pytest.mark.parametrize("module,name", PARAMS, ids=[f"{m}::{n}" for m, n in PARAMS])
def test_case_matches_tensorflow(module, name):
    expected = RECORDED[module].get(name)
    assert expected is not None, f"no recording for {module}::{name}: run tools/record_golden.py {module}"
    actual = harness.run_case(CASES[module][name], tapeflow)
    diffs = harness.compare_run(expected, actual)
    assert not diffs, "\n".join(diffs)

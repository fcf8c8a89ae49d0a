"""Record TensorFlow 2.21's answers for every golden case and example program.

Run it in a scratch virtual environment that has TensorFlow (never a dependency of tapeflow or its tests)::

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu==2.21.0 numpy pytest
    /tmp/tfvenv/bin/python tools/record_golden.py            # every case module and every example
    /tmp/tfvenv/bin/python tools/record_golden.py tape        # only tests/golden/cases/tape.py

Writes ``tests/golden/data/<module>.json`` (one entry per case) and ``tests/golden/examples/<program>.txt`` (what
each program in ``examples/`` prints when its ``import tapeflow as tf`` line is swapped for TensorFlow).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# oneDNN renames kernels in error texts (``_MklMatMul``) on x86 only; record TF's portable kernel names.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tensorflow as tf  # noqa: E402

from tests.golden import harness  # noqa: E402


def record_cases(only):
    out_dir = ROOT / "tests" / "golden" / "data"
    out_dir.mkdir(parents=True, exist_ok=True)
    for module, cases in harness.load_cases().items():
        if only and module not in only:
            continue
        data = {"tensorflow": tf.__version__, "cases": {}}
        for name, fn in cases.items():
            data["cases"][name] = harness.run_case(fn, tf)
        (out_dir / f"{module}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"{module}: {len(cases)} cases")


def record_examples(only):
    out_dir = ROOT / "tests" / "golden" / "examples"
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted((ROOT / "examples").glob("*.py")):
        if only and path.stem not in only:
            continue
        source = path.read_text()
        if "import tapeflow as tf" not in source:
            continue
        code = source.replace("import tapeflow as tf", "import tensorflow as tf", 1)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=path.parent,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"})
        if proc.returncode != 0:
            raise SystemExit(f"{path.name} failed under TensorFlow:\n{proc.stderr}")
        (out_dir / f"{path.stem}.txt").write_text(proc.stdout)
        print(f"example {path.stem}: {len(proc.stdout.splitlines())} lines")


if __name__ == "__main__":
    only = set(sys.argv[1:])
    record_cases(only)
    record_examples(only)

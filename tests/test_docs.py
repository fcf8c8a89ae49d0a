"""The documentation stays true to the code."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ops_doc_lists_every_public_name():
    # docs/ops.md's table of namespaces and primitives is generated from the code; regenerate it with
    # `python tools/write_ops_doc.py` after adding or removing a public name or an op.
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "write_ops_doc.py"), "--check"])
    assert proc.returncode == 0, "docs/ops.md is out of date: run tools/write_ops_doc.py"

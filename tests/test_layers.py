"""The layers of the package: ``_core`` is the floor and reaches nothing above it.

The op set (``ops``), Keras (``keras``) and the debugging tools (``debug``) build on ``_core``; the core learns of them
only through what they register or install (``_core/primitives.py``). These tests read the source, so a deferred
import inside a function counts as much as one at the top of a file.
"""

import ast
import importlib
import pathlib

import pytest

import tapeflow
from tapeflow._core import primitives
from tapeflow._core.registry import REGISTRY

PACKAGE = pathlib.Path(tapeflow.__file__).parent
CORE_FILES = sorted((PACKAGE / "_core").glob("*.py"))
ABOVE = ("ops", "keras", "debug")


def _imports(path):
    """``(line, module)`` of every import in a ``_core`` file, relative ones resolved to ``tapeflow.<...>``, plus
    every string passed to ``importlib.import_module`` or ``__import__``."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parts = ["tapeflow", "_core"][: 3 - node.level]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
    return found


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: p.name)
def test_the_core_imports_nothing_above_it(path):
    above = [f"{path.name}:{line} imports {module}" for line, module in _imports(path)
             if any(module == f"tapeflow.{layer}" or module.startswith(f"tapeflow.{layer}.") for layer in ABOVE)]
    assert above == []


def test_the_import_reader_sees_deferred_and_relative_imports(tmp_path):
    """The check above can fail: a deferred relative import of the op set is reported."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from ..ops import array_ops\n    from .. import keras\n"
                      "    import tapeflow.debug\n")
    modules = [m for _, m in _imports(source)]
    assert "tapeflow.ops" in modules and "tapeflow.keras" in modules and "tapeflow.debug" in modules


def test_every_primitive_the_core_emits_is_registered_and_bound():
    for name, key in primitives.EMITTED.items():
        assert REGISTRY[key] is getattr(primitives, name)


def test_a_missing_primitive_fails_at_bind(monkeypatch):
    monkeypatch.setitem(primitives.EMITTED, "NOWHERE", "NoSuchOp")
    with pytest.raises(ImportError, match="NoSuchOp"):
        primitives.bind()


def test_rule_sets_are_provided_by_the_op_set():
    batching = primitives.load("batching")
    assert batching is importlib.import_module("tapeflow.ops.batching_rules")
    assert "MatMul" in batching.BATCHED_RULES
    with pytest.raises(ImportError, match="no 'nothing' rules"):
        primitives.load("nothing")

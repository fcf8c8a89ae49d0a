"""Golden-case harness shared by the recorder and the test suite.

A *case* is a plain function that takes the framework module as its only argument (``tf``) and returns a value
(any nesting of lists, tuples and dicts of tensors, variables, Python and NumPy values, dtypes, shapes, strings).
The same function runs twice: once on real TensorFlow 2.21 (``tools/record_golden.py`` stores the encoded result
under ``tests/golden/data/``) and once on tapeflow (``tests/test_golden.py`` compares against the stored result).
An exception escaping a case is part of its result; so are the Python warnings it raised and the records logged on
the ``tensorflow`` logger while it ran.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import os
import pkgutil
import re
import warnings

import numpy as np

CASE_PACKAGE = "tests.golden.cases"


class _RelativePaths(logging.Filter):
    """Rewrites a directory as ``<cases>`` in the ``tensorflow`` logger's records."""

    def __init__(self, directory):
        super().__init__()
        self.directory = directory

    def filter(self, record):
        record.msg = record.getMessage().replace(self.directory, "<cases>")
        record.args = ()
        return True


@contextlib.contextmanager
def cases_paths_relative(case_file):
    """Within the block, TF's deprecation warnings (which name the caller's file) name the case files' directory
    ``<cases>``, so that they read the same wherever the repository lives."""
    logger = logging.getLogger("tensorflow")
    relative = _RelativePaths(os.path.dirname(os.path.abspath(case_file)))
    logger.addFilter(relative)
    try:
        yield
    finally:
        logger.removeFilter(relative)


def case(fn):
    """Mark ``fn`` as a golden case (the marker is all the harness needs)."""
    fn.golden_case = True
    return fn


class Caught:
    """An exception captured inside a case, so that a case can go on after an expected error."""

    def __init__(self, exc: BaseException):
        self.type = type(exc).__name__
        self.message = str(exc)


def catch(fn, *args, **kwargs):
    """Call ``fn`` and return its result, or a :class:`Caught` holding the exception it raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - every error class is part of the behaviour under test
        return Caught(exc)


FLOAT_DTYPES = ("float32", "float64")


def value_and_grads(tf, fn, *values, dtype, per_output=True, target=None):
    """Run ``fn`` on ``values`` as ``dtype`` constants under a tape that watches them all; return ``[y, grads]``.

    ``grads`` is ``tape.gradient(target(y), [x...])`` (``target`` defaults to ``y`` itself, which TF sums
    implicitly). With ``per_output``, a ``fn`` returning a list is differentiated one output at a time, each on
    its own tape, giving ``[[y0, grads0], [y1, grads1], ...]`` (``fn`` is called once more first, outside any
    tape, to see what it returns); without it, a list of outputs is one target and ``grads`` is that of their sum.
    """
    xs = [tf.constant(v, dtype=getattr(tf, dtype)) for v in values]
    if per_output:
        probe = fn(*xs)
        if isinstance(probe, list):
            return [_one_tape(tf, fn, xs, k, target) for k in range(len(probe))]
    return _one_tape(tf, fn, xs, None, target)


def _one_tape(tf, fn, xs, k, target):
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(*xs) if k is None else fn(*xs)[k]
        t = y if target is None else target(y)
    return [y, tape.gradient(t, xs)]


def grads_by_dtype(tf, fn, *values, dtypes=FLOAT_DTYPES, per_output=True, target=None):
    """``{dtype: value_and_grads(tf, fn, *values, dtype=dtype, ...)}`` for each of ``dtypes`` (float32, float64)."""
    return {d: value_and_grads(tf, fn, *values, dtype=d, per_output=per_output, target=target) for d in dtypes}


def second_derivatives(tf, fn, value, dtype="float64", catch_errors=False):
    """``[y, dy/dx, d(sum dy/dx)/dx]`` for ``y = fn(x)`` with ``x`` a ``dtype`` constant, taken with nested tapes.

    For an elementwise ``fn`` these are the derivatives' diagonals. With ``catch_errors``, an error raised by the
    second differentiation (an op TF cannot differentiate twice) becomes a :class:`Caught` in the last place.
    """
    x = tf.constant(value, dtype=getattr(tf, dtype))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
    return [y, g, catch(outer.gradient, g, x) if catch_errors else outer.gradient(g, x)]


def second_derivatives_by_dtype(tf, fn, value, dtypes=FLOAT_DTYPES, catch_errors=False):
    """``{dtype: second_derivatives(tf, fn, value, dtype, catch_errors)}`` for each of ``dtypes``."""
    return {d: second_derivatives(tf, fn, value, d, catch_errors) for d in dtypes}


def load_cases():
    """Return ``{module_name: {case_name: fn}}`` for every module of the cases package, in definition order."""
    pkg = importlib.import_module(CASE_PACKAGE)
    out = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{CASE_PACKAGE}.{info.name}")
        out[info.name] = {k: v for k, v in vars(mod).items() if callable(v) and getattr(v, "golden_case", False)}
    return out


# --------------------------------------------------------------------------------------------- encoding


def _num(x):
    """JSON-safe scalar: NaN and infinities become strings, complex becomes [re, im]."""
    if isinstance(x, (complex, np.complexfloating)):
        return [_num(x.real), _num(x.imag)]
    if isinstance(x, (bytes, np.bytes_)):
        return x.decode("latin-1")
    if isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _array(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype) if a.dtype.kind not in "OSU" else "string", "shape": list(a.shape),
            "value": _nested(a)}


def _nested(a):
    if a.ndim == 0:
        return _num(a[()])
    return [_nested(np.asarray(x, dtype=a.dtype)) for x in a]


def encode(value, tf):
    """Encode ``value`` (produced by module ``tf``) as JSON-able data."""
    if isinstance(value, Caught):
        return {"kind": "error", "type": value.type, "message": value.message}
    if value is None:
        return {"kind": "none"}
    if isinstance(value, tf.Variable):
        return {"kind": "variable", **_array(value.numpy()), "tf_dtype": value.dtype.name}
    if isinstance(value, tf.IndexedSlices) if hasattr(tf, "IndexedSlices") else False:
        return {"kind": "indexed_slices", "indices": encode(value.indices, tf), "values": encode(value.values, tf),
                "dense_shape": encode(value.dense_shape, tf)}
    if isinstance(value, tf.Tensor):
        return {"kind": "tensor", **_array(value.numpy()), "tf_dtype": value.dtype.name}
    if isinstance(value, tf.RaggedTensor):
        return {"kind": "ragged", "flat_values": encode(value.flat_values, tf),
                "nested_row_splits": [encode(s, tf) for s in value.nested_row_splits]}
    if isinstance(value, tf.DType):
        return {"kind": "dtype", "name": value.name}
    if isinstance(value, tf.TensorShape):
        return {"kind": "shape", "dims": None if value.rank is None else list(value.as_list())}
    if isinstance(value, (np.ndarray, np.generic)):
        return {"kind": "numpy", "type": type(value).__name__, **_array(value)}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, (int, float, complex)):
        return {"kind": type(value).__name__, "value": _num(value)}
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if isinstance(value, (list, tuple)):
        return {"kind": type(value).__name__, "items": [encode(v, tf) for v in value]}
    if isinstance(value, dict):
        return {"kind": "dict", "items": {str(k): encode(v, tf) for k, v in value.items()}}
    return {"kind": "repr", "value": repr(value)}


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(f"{record.levelname}:{record.name}:{record.getMessage()}")


def run_case(fn, tf):
    """Run one case on module ``tf``; return ``{"result", "warnings", "logs"}``."""
    logger = logging.getLogger("tensorflow")
    handler = _Collect()
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = encode(fn(tf), tf)
            except Exception as exc:  # noqa: BLE001
                result = encode(Caught(exc), tf)
    finally:
        logger.removeHandler(handler)
    warns = [f"{w.category.__name__}: {w.message}" for w in caught
             if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))]
    return {"result": result, "warnings": warns, "logs": handler.lines}


# --------------------------------------------------------------------------------------------- comparison

_ADDR = re.compile(r"0x[0-9a-fA-F]+")


# tapeflow's module paths stand where TF's stand (``repr(optimizer)`` shows the class path).
_PATHS = (("tapeflow.keras.optimizers.", "keras.src.optimizers."),
          ("tapeflow._core.indexed_slices.", "tensorflow.python.framework.indexed_slices."),
          ("tapeflow._core.tensor.EagerTensor", "tensorflow.python.framework.ops.EagerTensor"),
          ("tapeflow.ops.sparse_ops.SparseTensor", "tensorflow.python.framework.sparse_tensor.SparseTensor"),
          ("tapeflow._core.dtypes.DType", "tensorflow.python.framework.dtypes.DType"))


def normalize(text: str) -> str:
    """Remove what legitimately differs: object addresses, and the package a class lives in."""
    for ours, theirs in _PATHS:
        text = text.replace(ours, theirs)
    return _ADDR.sub("0x?", text)


def _tolerance(dtype):
    return {"float16": (1e-3, 1e-3), "float32": (1e-5, 1e-6), "complex64": (1e-5, 1e-6)}.get(dtype, (1e-12, 1e-14))


def _values_close(exp, act, dtype):
    if dtype in ("string", "bool") or dtype.startswith(("int", "uint")):
        return exp == act
    e = np.array(_decode(exp), dtype=complex if dtype.startswith("complex") else float)
    a = np.array(_decode(act), dtype=complex if dtype.startswith("complex") else float)
    if e.shape != a.shape:
        return False
    rtol, atol = _tolerance(dtype)
    return bool(np.allclose(e, a, rtol=rtol, atol=atol, equal_nan=True))


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if v == "nan":
        return float("nan")
    if v == "inf":
        return float("inf")
    if v == "-inf":
        return float("-inf")
    return v


def _complex_fix(v, dtype):
    """Complex scalars are stored as [re, im]; turn them back into Python complex numbers."""
    if not dtype.startswith("complex"):
        return v
    if isinstance(v, list) and len(v) == 2 and not isinstance(v[0], list):
        return complex(*_decode(v))
    return [_complex_fix(x, dtype) for x in v]


def compare(expected, actual, path="result"):
    """Return a list of human-readable differences between two encoded values (empty when they agree)."""
    diffs = []
    if expected.get("kind") != actual.get("kind"):
        return [f"{path}: expected {expected} but got {actual}"]
    kind = expected["kind"]
    if kind in ("tensor", "variable", "numpy"):
        for key in ("dtype", "shape", "type", "tf_dtype"):
            if expected.get(key) != actual.get(key):
                diffs.append(f"{path}: {key} {expected.get(key)} != {actual.get(key)}")
        if not diffs:
            dt = expected["dtype"]
            if not _values_close(_complex_fix(expected["value"], dt), _complex_fix(actual["value"], dt), dt):
                diffs.append(f"{path}: value {expected['value']} != {actual['value']}")
    elif kind == "error":
        if expected["type"] != actual["type"] or normalize(expected["message"]) != normalize(actual["message"]):
            diffs.append(f"{path}: expected {expected['type']}({expected['message']!r}) "
                         f"but got {actual['type']}({actual['message']!r})")
    elif kind in ("list", "tuple"):
        if len(expected["items"]) != len(actual["items"]):
            diffs.append(f"{path}: length {len(expected['items'])} != {len(actual['items'])}")
        else:
            for i, (e, a) in enumerate(zip(expected["items"], actual["items"])):
                diffs += compare(e, a, f"{path}[{i}]")
    elif kind == "dict":
        if set(expected["items"]) != set(actual["items"]):
            diffs.append(f"{path}: keys {sorted(expected['items'])} != {sorted(actual['items'])}")
        else:
            for k in expected["items"]:
                diffs += compare(expected["items"][k], actual["items"][k], f"{path}[{k!r}]")
    elif kind == "indexed_slices":
        for k in ("indices", "values", "dense_shape"):
            diffs += compare(expected[k], actual[k], f"{path}.{k}")
    elif kind == "float":
        if not _values_close(expected["value"], actual["value"], "float64"):
            diffs.append(f"{path}: {expected['value']} != {actual['value']}")
    elif kind in ("str", "repr"):
        if normalize(expected["value"]) != normalize(actual["value"]):
            diffs.append(f"{path}: {expected['value']!r} != {actual['value']!r}")
    elif expected != actual:
        diffs.append(f"{path}: {expected} != {actual}")
    return diffs


def compare_run(expected, actual):
    """Compare two :func:`run_case` outputs: result, warnings and log lines."""
    diffs = compare(expected["result"], actual["result"])
    for key in ("warnings", "logs"):
        e = [normalize(x) for x in expected[key]]
        a = [normalize(x) for x in actual[key]]
        if e != a:
            diffs.append(f"{key}: expected {e} but got {a}")
    return diffs

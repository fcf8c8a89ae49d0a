"""Allocations that cannot be satisfied raise TF's ``ResourceExhaustedError`` naming the op, the output shape and
its type, never a bare ``MemoryError``, and the process goes on working afterwards.

The sizes here are a few gigabytes, so they run in a child process whose address space is capped with
``RLIMIT_AS`` a little above what it already uses (the golden cases ``output_sizes`` cover sizes no machine has).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

resource = pytest.importorskip("resource")

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux's /proc to size the cap")

SRC = str(Path(__file__).resolve().parents[1] / "src")
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"

# Runs in the child: import tapeflow, cap the address space 1.5 GiB above what is mapped now, run every probe.
CHILD = textwrap.dedent("""
    import json, os, resource, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import tapeflow as tf

    pages = int(open("/proc/self/statm").read().split()[0])
    cap = pages * os.sysconf("SC_PAGE_SIZE") + (3 << 29)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    probes = {
        "zeros": lambda: tf.zeros([40000, 30000]),
        "ones_double": lambda: tf.ones([40000, 30000], tf.float64),
        "fill": lambda: tf.fill([40000, 30000], 1.0),
        "fill_tensor_dims": lambda: tf.fill(tf.constant([40000, 30000]), 1.0),
        "tile": lambda: tf.tile(tf.ones([2]), [2**30]),
        "pad": lambda: tf.pad(tf.ones([2]), [[2**30, 0]]),
        "broadcast_to": lambda: tf.broadcast_to(tf.ones([1]), [2**30]),
        "range": lambda: tf.range(2**30),
        "normal": lambda: tf.random.normal([2**30]),
        "normal_half": lambda: tf.random.normal([2**31], dtype=tf.float16),
        "uniform_int": lambda: tf.random.uniform([2**30], maxval=5, dtype=tf.int64),
        "one_hot": lambda: tf.one_hot([0, 1], 2**30),
        "scatter_nd": lambda: tf.scatter_nd([[0]], [1.0], [2**30]),
        "unsorted_segment_sum": lambda: tf.math.unsorted_segment_sum([1.0], [0], 2**30),
        "eye": lambda: tf.eye(40000),
        "sequence_mask": lambda: tf.sequence_mask([1], 2**30),
        "sequence_mask_less": lambda: tf.sequence_mask(tf.ones([2**16], tf.int32), 2**15),
        "constant_shape": lambda: tf.constant(1.0, shape=[40000, 30000]),
        "matmul": lambda: tf.matmul(tf.ones([40000, 1]), tf.ones([1, 30000])),
        "multiply": lambda: tf.ones([40000, 1]) * tf.ones([1, 30000]),
        "linspace": lambda: tf.linspace(0.0, 1.0, 2**29),
    }
    out = {}
    for name, fn in probes.items():
        try:
            fn()
            out[name] = ["no error", ""]
        except BaseException as exc:
            out[name] = [type(exc).__name__, str(exc)]
    out["after"] = [str(float(tf.reduce_sum(tf.ones([1000])))), ""]
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def results():
    proc = subprocess.run([sys.executable, "-c", CHILD, SRC], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _oom(op, shape, dtype, name=" name: "):
    return (f"{{{{function_node __wrapped__{op}_device_{CPU}}}}} OOM when allocating tensor with shape{shape} and "
            f"type {dtype} on {CPU} by allocator cpu [Op:{op}]{name}")


@pytest.mark.parametrize("probe, op, shape, dtype, name", [
    ("zeros", "Fill", "[40000,30000]", "float", " name: "),
    ("ones_double", "Fill", "[40000,30000]", "double", " name: "),
    ("fill", "Fill", "[40000,30000]", "float", ""),
    ("fill_tensor_dims", "Fill", "[40000,30000]", "float", " name: "),
    ("tile", "Tile", "[2147483648]", "float", ""),
    ("pad", "Pad", "[1073741826]", "float", ""),
    ("broadcast_to", "BroadcastTo", "[1073741824]", "float", ""),
    ("range", "Range", "[1073741824]", "int32", " name: "),
    ("normal", "RandomStandardNormal", "[1073741824]", "float", " name: "),
    ("normal_half", "RandomStandardNormal", "[2147483648]", "half", " name: "),
    ("uniform_int", "RandomUniformInt", "[1073741824]", "int64", " name: "),
    ("one_hot", "OneHot", "[2,1073741824]", "float", ""),
    ("scatter_nd", "ScatterNd", "[1073741824]", "float", ""),
    ("unsorted_segment_sum", "UnsortedSegmentSum", "[1073741824]", "float", ""),
    ("eye", "MatrixDiagV3", "[40000,40000]", "float", " name: diag"),
    ("sequence_mask", "Range", "[1073741824]", "int32", " name: "),
    ("sequence_mask_less", "Less", "[65536,32768]", "bool", " name: "),
    ("constant_shape", "Fill", "[40000,30000]", "float", ""),
    ("matmul", "MatMul", "[40000,30000]", "float", " name: "),
    ("multiply", "Mul", "[40000,30000]", "float", " name: "),
    ("linspace", "Range", "[536870910]", "int64", " name: "),
])
def test_oom_is_resource_exhausted(results, probe, op, shape, dtype, name):
    kind, message = results[probe]
    assert kind == "ResourceExhaustedError", (kind, message)
    assert message == _oom(op, shape, dtype, name)


def test_no_bare_memory_error_and_the_process_goes_on(results):
    assert not [k for k, (kind, _) in results.items() if kind == "MemoryError"]
    assert results["after"][0] == "1000.0"


def test_oom_error_is_catchable_as_op_error():
    import tapeflow as tf
    from tapeflow._core import errors

    exc = errors.oom("Fill", MemoryError("Unable to allocate 4.00 GiB for an array with shape (2, 3) and data type "
                                         "float64"))
    assert isinstance(exc, tf.errors.OpError) and exc.error_code == tf.errors.RESOURCE_EXHAUSTED
    assert "shape[2,3] and type double" in exc.message
    unknown = errors.oom("Foo", MemoryError("out of memory"))
    assert isinstance(unknown, tf.errors.ResourceExhaustedError) and "[Op:Foo]" in unknown.message

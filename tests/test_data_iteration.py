"""tf.data iteration beyond what golden cases show: fresh iterators after an error or an early stop, laziness,
the namespace loading on first use, tf.TensorSpec, Python side effects of map functions, and a training loop fed
by a dataset."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf


def test_import_tapeflow_does_not_load_data():
    code = ("import sys, tapeflow; print('tapeflow.data' in sys.modules); tapeflow.data; "
            "print('tapeflow.data' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_tensor_spec_published_with_data():
    assert tf.data.TensorSpec is tf.TensorSpec
    assert "data" in dir(tf)


def test_iterator_recreated_after_generator_error():
    calls = []

    def gen():
        calls.append(1)
        yield 1
        if len(calls) == 1:
            raise RuntimeError("first time only")
        yield 2

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int32))
    with pytest.raises(tf.errors.UnknownError, match="RuntimeError: first time only"):
        list(ds)
    assert [int(x) for x in ds] == [1, 2]


def test_iterator_recreated_after_map_error():
    state = {"fail": True}

    def f(x):
        if state["fail"] and int(x) == 2:
            raise ValueError("bad element")
        return x * 10

    ds = tf.data.Dataset.range(4).map(f)
    with pytest.raises(ValueError, match="bad element"):
        list(ds)
    state["fail"] = False
    assert [int(x) for x in ds] == [0, 10, 20, 30]


def test_each_iter_starts_over_and_iterators_are_independent():
    ds = tf.data.Dataset.range(5).map(lambda x: x + 1)
    a, b = iter(ds), iter(ds)
    assert int(next(a)) == 1 and int(next(a)) == 2 and int(next(b)) == 1
    assert [int(x) for x in a] == [3, 4, 5]
    with pytest.raises(StopIteration):
        next(a)
    with pytest.raises(tf.errors.OutOfRangeError):
        a.get_next()


def test_infinite_pipeline_is_lazy():
    ds = tf.data.Dataset.range(3).repeat().map(lambda x: x * 2).batch(4)
    it = iter(ds)
    assert next(it).numpy().tolist() == [0, 2, 4, 0]
    assert next(it).numpy().tolist() == [2, 4, 0, 2]


def test_a_map_function_is_traced_once_as_in_tf():
    seen = []

    def f(x):
        seen.append(1)
        return x * 2

    ds = tf.data.Dataset.range(5).map(f)
    assert len(seen) == 1  # traced when the dataset is built
    assert [int(v) for v in ds] == [0, 2, 4, 6, 8] and len(seen) == 1


def test_a_map_function_the_tracer_cannot_take_runs_per_element():
    seen = []

    def f(x):
        seen.append(int(x))  # a Python int of the element: TF refuses it; tapeflow runs f eagerly instead
        return x

    ds = tf.data.Dataset.range(3).map(f)
    seen.clear()
    assert [int(v) for v in ds] == [0, 1, 2] and seen == [0, 1, 2]


def test_cache_runs_the_pipeline_once():
    seen = []

    def f(x):
        seen.append(int(x))
        return x

    ds = tf.data.Dataset.range(3).map(f).cache()
    seen.clear()
    assert [int(x) for x in ds] == [int(x) for x in ds] == [0, 1, 2]
    assert seen == [0, 1, 2]


def test_element_spec_of_value_dependent_shapes_is_unknown():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.zeros([x, 2]))
    assert repr(ds.element_spec) == "TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)"


def test_map_function_that_fails_on_stand_ins_still_works():
    table = tf.constant([10, 20, 30])

    def f(x):
        if int(x) == 0:  # the stand-in: refuse it, as a function may refuse zeros
            raise ValueError("zero")
        return tf.gather(table, x - 1)

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(f)
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.int32, name=None)"
    assert [int(v) for v in ds] == [10, 20, 30]


def test_training_loop_fed_by_a_dataset():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 1)).astype(np.float32)
    y = 3.0 * x + 1.0
    tf.random.set_seed(0)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64).batch(16)
    w, b = tf.Variable([[0.0]]), tf.Variable([0.0])
    for _ in range(60):
        for xb, yb in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.matmul(xb, w) + b - yb) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
    tf.random.set_seed(None)
    assert abs(float(w.numpy()[0, 0]) - 3.0) < 1e-3 and abs(float(b.numpy()[0]) - 1.0) < 1e-3


def test_window_then_flat_map_batches():
    ds = tf.data.Dataset.range(6).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert [v.numpy().tolist() for v in ds] == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]


def test_as_numpy_iterator_nested():
    ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(2), "b": ["x", "y"]}).batch(2)
    (out,) = list(ds.as_numpy_iterator())
    assert out["a"].tolist() == [0, 1] and out["b"].tolist() == [b"x", b"y"]


def test_debug_mode_runs_map_functions_per_element():
    # (In a process of its own: TF's debug mode cannot be turned off.)
    code = ("import tapeflow as tf\n"
            "tf.data.experimental.enable_debug_mode()\n"
            "seen = []\n"
            "ds = tf.data.Dataset.range(3).map(lambda x: seen.append(1) or x * 2)\n"
            "seen.clear()\n"
            "print([int(v) for v in ds], len(seen))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[0, 2, 4] 3"

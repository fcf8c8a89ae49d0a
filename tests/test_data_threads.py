"""``prefetch`` and ``map(num_parallel_calls=...)`` run on other threads (``tapeflow/data/threads.py``): the same
elements in the same order as without them, errors where their element would be, ``ignore_errors`` through them,
and a consumer that stops early stops the thread. (How much the work overlaps is measured, not tested:
``benchmarks/data_pipeline.py``.)"""

import threading
import time

import pytest

import tapeflow as tf


def _failing(x):
    return tf.debugging.check_numerics(tf.cast(x, tf.float32) / tf.cast(x - 3, tf.float32), "x")


def _threads():
    return sum(t.name.startswith("tapeflow-") for t in threading.enumerate())


@pytest.mark.parametrize("buffer", [0, 1, 3, tf.data.AUTOTUNE])
def test_prefetch_keeps_elements_and_order(buffer):
    def make():
        return tf.data.Dataset.range(50).shuffle(10, seed=1).map(lambda x: x * 3).batch(4)

    plain, ahead = make(), make().prefetch(buffer)
    for _ in range(2):  # each iteration its own thread (and, as without prefetch, its own shuffle)
        assert [b.numpy().tolist() for b in ahead] == [b.numpy().tolist() for b in plain]


def test_an_error_is_raised_where_its_element_is_and_ignore_errors_sees_through():
    ds = tf.data.Dataset.range(6).map(_failing).prefetch(2)
    got = []
    with pytest.raises(tf.errors.InvalidArgumentError, match="CheckNumerics"):
        for v in ds:
            got.append(float(v))
    assert got == [-0.0, -0.5, -2.0]
    assert [float(v) for v in ds.ignore_errors()] == [-0.0, -0.5, -2.0, 4.0, 2.5]
    assert [float(v) for v in tf.data.Dataset.range(6).map(_failing).ignore_errors().prefetch(2)] == [
        -0.0, -0.5, -2.0, 4.0, 2.5]


def test_a_consumer_that_stops_early_stops_the_thread():
    before = _threads()
    ds = tf.data.Dataset.range(10**9).prefetch(5)
    assert [int(x) for x in ds.take(3)] == [0, 1, 2]
    it = iter(ds)
    next(it)
    del it
    deadline = time.time() + 5
    while _threads() > before and time.time() < deadline:
        time.sleep(0.02)
    assert _threads() == before


@pytest.mark.parametrize("calls", [2, 3, tf.data.AUTOTUNE])
def test_parallel_map_keeps_order_unless_told_not_to(calls):
    ds = tf.data.Dataset.range(40)
    ordered = ds.map(lambda x: x * x, num_parallel_calls=calls)
    assert [int(v) for v in ordered] == [k * k for k in range(40)]
    loose = ds.map(lambda x: x * x, num_parallel_calls=calls, deterministic=False)
    assert sorted(int(v) for v in loose) == [k * k for k in range(40)]
    options = tf.data.Options()
    options.deterministic = False
    assert sorted(int(v) for v in ds.with_options(options).map(lambda x: x + 1, num_parallel_calls=calls)) == \
        list(range(1, 41))


def test_parallel_map_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_calls must be greater than zero"):
        tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0)
    got = []
    with pytest.raises(tf.errors.InvalidArgumentError, match="CheckNumerics"):
        for v in tf.data.Dataset.range(6).map(_failing, num_parallel_calls=3):
            got.append(float(v))
    assert got == [-0.0, -0.5, -2.0]

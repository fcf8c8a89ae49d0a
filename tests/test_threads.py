"""Variables shared by threads: every update is atomic per variable, and no read sees half of one.

Each test runs real threads against one variable. A short switch interval makes the interpreter hand the GIL over
often, so the unlocked versions of these updates lose counts or tear reads within a few thousand iterations.
"""

import sys
import threading
import time
import weakref

import numpy as np
import pytest

import tapeflow as tf


@pytest.fixture(autouse=True)
def _frequent_switches():
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


def _run(threads, target, *args):
    workers = [threading.Thread(target=target, args=(k,) + args) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def test_four_threads_of_assign_add_lose_nothing():
    v = tf.Variable(0, dtype=tf.int64)

    def work(_):
        for _ in range(200_000):
            v.assign_add(1)

    sys.setswitchinterval(0.005)  # Python's default
    _run(4, work)
    assert v.numpy() == 800_000


# Each entry: a variable factory, one update, and the value after ``n`` updates from each of ``threads`` threads.
def _sgd_step(v, optimizer):
    optimizer.apply_gradients([(tf.ones_like(v), v)])


UPDATES = {
    "assign_add int scalar": (lambda: tf.Variable(0, dtype=tf.int64), lambda v, k: v.assign_add(1),
                              lambda n: n),
    "assign_add float vector": (lambda: tf.Variable(np.zeros(3)), lambda v, k: v.assign_add(tf.ones(3, tf.float64)),
                                lambda n: np.full(3, float(n))),
    "assign_add python value": (lambda: tf.Variable(np.zeros(2, np.float32)), lambda v, k: v.assign_add([1.0, 2.0]),
                                lambda n: np.array([n, 2.0 * n], np.float32)),
    "assign_sub fast path": (lambda: tf.Variable(np.zeros(4)), lambda v, k: v.assign_sub(tf.ones(4, tf.float64)),
                             lambda n: np.full(4, -float(n))),
    "assign_sub scalar": (lambda: tf.Variable(0.0, dtype=tf.float64), lambda v, k: v.assign_sub(tf.constant(1.0,
                                                                                                       tf.float64)),
                          lambda n: -float(n)),
    "chained on the returned variable": (lambda: tf.Variable(0, dtype=tf.int64),
                                         lambda v, k: v.assign_add(1).assign_add(1), lambda n: 2 * n),
    "scatter_add": (lambda: tf.Variable(np.zeros(3, np.int64)),
                    lambda v, k: v.scatter_add(tf.IndexedSlices(tf.constant([1, 1], tf.int64), tf.constant([0, 2]))),
                    lambda n: np.array([n, 0, n])),
    "scatter_nd_add": (lambda: tf.Variable(np.zeros(3, np.int64)),
                       lambda v, k: v.scatter_nd_add([[1]], tf.constant([1], tf.int64)), lambda n: np.array([0, n, 0])),
    "assign_sub of a gather gradient": (
        lambda: tf.Variable(np.zeros((3, 2))),
        lambda v, k: v.assign_sub(tf.IndexedSlices(tf.ones((1, 2), tf.float64), tf.constant([1]), tf.constant([3, 2]))),
        lambda n: np.array([[0.0, 0.0], [-n, -n], [0.0, 0.0]])),
}


@pytest.mark.parametrize("kind", sorted(UPDATES))
def test_concurrent_updates_lose_nothing(kind):
    make, update, expected = UPDATES[kind]
    v = make()
    threads, n = 4, 3_000

    def work(k):
        for _ in range(n):
            update(v, k)

    _run(threads, work)
    np.testing.assert_array_equal(v.numpy(), expected(threads * n))


def test_concurrent_slice_assignments_keep_every_row():
    """Each thread writes its own row through ``v[k].assign``: a lost read-modify-write would undo another's row."""
    v = tf.Variable(np.zeros((4, 3)))

    def work(k):
        for i in range(1, 1_500):
            v[k].assign(np.full(3, float(i)))

    _run(4, work)
    np.testing.assert_array_equal(v.numpy(), np.full((4, 3), 1_499.0))


def test_concurrent_keras_optimizer_steps_on_one_variable():
    v = tf.Variable(np.zeros(5, np.float32))
    optimizer = tf.keras.optimizers.SGD(learning_rate=1.0)
    optimizer.build([v])

    def work(_):
        for _ in range(500):
            _sgd_step(v, optimizer)

    _run(4, work)
    np.testing.assert_array_equal(v.numpy(), np.full(5, -2_000.0, np.float32))
    assert int(optimizer.iterations.numpy()) == 2_000


def _values(t):
    return t._value  # the tensor's own array: it must never change after the read


READS = {
    "read_value": lambda v: _values(v.read_value()),
    "value under a tape": lambda v: _read_in_tape(v),
    "numpy": lambda v: v.numpy(),
    "np.asarray": lambda v: np.asarray(v),
    "operator": lambda v: _values(v + 0.0),
    "matmul": lambda v: _values(tf.matmul(tf.ones((1, 1)), tf.reshape(v, (1, -1))))[0],
    "slice": lambda v: _values(v[:]),
}


def _read_in_tape(v):
    with tf.GradientTape():
        return _values(v.value())


@pytest.mark.parametrize("kind", sorted(READS))
def test_reads_are_whole_and_never_change(kind):
    """A writer adds ones to a large variable in place (NumPy releases the GIL meanwhile). Each read must hold one
    whole value, and still hold it after the writer has finished the update it was running."""
    read = READS[kind]
    size = 2_000_000
    v = tf.Variable(np.zeros(size, np.float32))
    updates = [0]
    done = threading.Event()
    bad = []

    def writer(_):
        one = tf.ones([size])
        for _ in range(80):
            v.assign_add(one, read_value=False)
            updates[0] += 1
        done.set()

    def reader(_):
        while not done.is_set():
            a = read(v)
            last = float(a[-1])
            seen = updates[0]
            while updates[0] < seen + 2 and not done.is_set():  # the update in progress, and the next, finish
                time.sleep(0)
            if not a[0] == a[size // 2] == a[-1] == last:
                bad.append((float(a[0]), float(a[size // 2]), float(a[-1]), last))

    workers = [threading.Thread(target=writer, args=(0,)), threading.Thread(target=reader, args=(1,))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert bad == []
    assert v.numpy()[0] == 80.0


def test_updates_that_read_their_own_variable_do_not_deadlock():
    v = tf.Variable([1.0, 2.0, 3.0])
    v.assign(v * 2.0)
    v.assign_add(v)
    v.assign_sub(v.read_value() / 2.0)
    v[0].assign(v[2])
    v.scatter_update(tf.IndexedSlices(v.read_value()[:1], tf.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [6.0, 6.0, 6.0])


def test_a_failed_update_releases_the_variable():
    v = tf.Variable([1.0, 2.0])
    for bad in (lambda: v.assign_add([1.0, 2.0, 3.0]), lambda: v.assign_sub(tf.ones(3)),
                lambda: v.scatter_add(tf.IndexedSlices(tf.ones([1]), tf.constant([5]))),
                lambda: v[0].assign([1.0, 2.0])):
        with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
            bad()
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])

    def other_thread(_):
        v.assign_add([1.0, 1.0])

    _run(1, other_thread)  # would hang if a failed update had kept the lock
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


def test_an_array_only_the_variable_holds_is_still_updated_in_place():
    """The lock keeps the in-place path of a training step (no new array per update) for arrays nobody else holds."""
    v = tf.Variable(np.zeros(5, np.float32))
    array = weakref.ref(v._value)
    v.assign_sub(tf.ones(5))
    v.assign_add(tf.ones(5))
    v.assign_add([1.0] * 5)
    assert v._value is array()
    held = v.read_value()
    v.assign_add(tf.ones(5))
    assert v._value is not array() and held.numpy().tolist() == [1.0] * 5

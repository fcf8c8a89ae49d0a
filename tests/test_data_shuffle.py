"""tf.data shuffle: what TF's guarantees are, without TF's bits (the golden cases check what does not depend on the
order). A shuffle is a permutation; its buffer bounds how far an element moves; seeds make it reproducible, per
epoch and under ``tf.random.set_seed``; ``reshuffle_each_iteration`` decides whether epochs differ."""

from __future__ import annotations

import pytest

import tapeflow as tf


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def values(ds):
    return [int(x) for x in ds]


@pytest.mark.parametrize("buffer", [1, 2, 7, 50, 100, tf.data.UNKNOWN_CARDINALITY])
def test_shuffle_is_a_permutation(buffer):
    assert sorted(values(tf.data.Dataset.range(50).shuffle(buffer))) == list(range(50))


def test_buffer_of_one_keeps_order():
    assert values(tf.data.Dataset.range(20).shuffle(1)) == list(range(20))


@pytest.mark.parametrize("buffer", [2, 5])
def test_buffer_bounds_how_early_an_element_comes(buffer):
    # Output k is drawn from a buffer holding inputs up to index k + buffer - 1: nothing comes earlier than that.
    for seed in range(20):
        out = values(tf.data.Dataset.range(30).shuffle(buffer, seed=seed))
        assert all(v <= k + buffer - 1 for k, v in enumerate(out))


def test_large_buffer_mixes():
    out = values(tf.data.Dataset.range(100).shuffle(100, seed=3))
    assert out != list(range(100))


def test_reshuffle_each_iteration_by_default():
    ds = tf.data.Dataset.range(30).shuffle(30, seed=1)
    epochs = [values(ds) for _ in range(3)]
    assert epochs[0] != epochs[1] and epochs[1] != epochs[2]
    # ... and a dataset built again with the same seed repeats the same sequence of epochs
    again = tf.data.Dataset.range(30).shuffle(30, seed=1)
    assert [values(again) for _ in range(3)] == epochs


def test_no_reshuffle_repeats_the_order():
    ds = tf.data.Dataset.range(30).shuffle(30, reshuffle_each_iteration=False)
    assert values(ds) == values(ds)
    rep = values(tf.data.Dataset.range(30).shuffle(30, seed=4, reshuffle_each_iteration=False).repeat(2))
    assert rep[:30] == rep[30:]


def test_repeat_after_shuffle_reshuffles_each_epoch():
    rep = values(tf.data.Dataset.range(30).shuffle(30, seed=4).repeat(2))
    assert sorted(rep[:30]) == sorted(rep[30:]) == list(range(30)) and rep[:30] != rep[30:]


def test_global_seed_makes_it_reproducible():
    tf.random.set_seed(5)
    a, b = tf.data.Dataset.range(30).shuffle(30), tf.data.Dataset.range(30).shuffle(30)
    first = (values(a), values(b))
    assert first[0] != first[1]  # two shuffles after set_seed draw two op seeds, as in TF
    tf.random.set_seed(5)
    a, b = tf.data.Dataset.range(30).shuffle(30), tf.data.Dataset.range(30).shuffle(30)
    assert (values(a), values(b)) == first


def test_op_seed_alone_is_reproducible():
    def run(seed):
        return values(tf.data.Dataset.range(30).shuffle(10, seed=seed))

    assert run(7) == run(7) and run(7) != run(8)


def test_unseeded_shuffles_differ():
    assert values(tf.data.Dataset.range(50).shuffle(50)) != values(tf.data.Dataset.range(50).shuffle(50))


def test_shuffle_of_tuples_keeps_pairs_together():
    ds = tf.data.Dataset.from_tensor_slices((list(range(20)), [str(i) for i in range(20)])).shuffle(20, seed=1)
    assert all(int(a) == int(b.numpy().decode()) for a, b in ds)

"""``tf.random.Generator`` (``tapeflow/ops/generator_ops.py``): a seed gives the same numbers in every run (also
in another process), draws follow one another without repeating, split generators differ, the state checkpoints
and restores the stream, and a traced function draws the same sequence as eager calls, new numbers each call."""

import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf

_DRAW = ("import tapeflow as tf; g = tf.random.Generator.from_seed(2026); "
         "print(g.normal([3]).numpy().tolist(), g.uniform([2], 0, 10, tf.int64).numpy().tolist())")


def test_a_seed_gives_the_same_numbers_in_another_process():
    out = [subprocess.run([sys.executable, "-c", _DRAW], capture_output=True, text=True, check=True).stdout
           for _ in range(2)]
    g = tf.random.Generator.from_seed(2026)
    here = f"{g.normal([3]).numpy().tolist()} {g.uniform([2], 0, 10, tf.int64).numpy().tolist()}\n"
    assert out[0] == out[1] == here


def test_draws_follow_one_another_and_split_generators_differ():
    g = tf.random.Generator.from_seed(5)
    assert g.state.numpy().tolist() == [5, 0, 0]  # TF's initial state for a seed
    a, b = g.normal([100]).numpy(), g.normal([100]).numpy()
    assert not np.array_equal(a, b)
    children = g.split(3)
    draws = [c.uniform([50]).numpy() for c in children]
    assert all(not np.array_equal(draws[i], draws[j]) for i in range(3) for j in range(i))
    assert [c.state.numpy()[:2].tolist() for c in tf.random.Generator.from_seed(5).split(2)][0] == [0, 0]
    u = g.uniform([10000], minval=-2.0, maxval=3.0).numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.1
    t = g.truncated_normal([10000]).numpy()
    assert np.abs(t).max() <= 2.0
    n = g.binomial([10000], counts=20.0, probs=0.25).numpy()
    assert n.dtype == np.int32 and abs(n.mean() - 5.0) < 0.2
    with pytest.raises(ValueError, match="Must specify maxval"):
        g.uniform([2], dtype=tf.int32)


def test_the_state_checkpoints_and_restores_the_stream(tmp_path):
    g = tf.random.Generator.from_seed(11)
    g.normal([4])
    path = tf.train.Checkpoint(gen=g).save(str(tmp_path / "ck"))
    want = g.normal([4]).numpy()
    g.normal([4])
    tf.train.Checkpoint(gen=g).restore(path)
    np.testing.assert_array_equal(g.normal([4]).numpy(), want)


def test_a_traced_function_draws_as_eager_calls_do():
    eager, traced_gen = tf.random.Generator.from_seed(3), tf.random.Generator.from_seed(3)
    draw = tf.function(lambda: traced_gen.normal([2]) + traced_gen.uniform([2]))
    for _ in range(3):
        want = eager.normal([2]) + eager.uniform([2])
        np.testing.assert_array_equal(draw().numpy(), want.numpy())
    assert draw.experimental_get_tracing_count() == 1


def test_the_global_generator():
    tf.random.set_global_generator(tf.random.Generator.from_seed(9))
    assert tf.random.get_global_generator().state.numpy().tolist() == [9, 0, 0]


def test_stateless_split_and_fold_in():
    split = tf.random.experimental.stateless_split(tf.constant([1, 2], tf.int64), num=3)
    assert split.shape == (3, 2) and split.dtype == tf.int64
    again = tf.random.experimental.stateless_split(tf.constant([1, 2], tf.int64), num=3)
    np.testing.assert_array_equal(split.numpy(), again.numpy())  # a function of the seed
    folded = tf.random.experimental.stateless_fold_in(tf.constant([1, 2]), 7)
    assert folded.numpy().tolist()[1] == 7 and folded.dtype == tf.int32
    assert tf.random.experimental.stateless_fold_in([1, 2], 8).numpy()[0] == folded.numpy()[0]
    draws = [tf.random.stateless_normal([3], seed=s).numpy() for s in split.numpy()]
    assert not np.array_equal(draws[0], draws[1])

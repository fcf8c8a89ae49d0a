"""A structure that contains itself fails at once with ``RecursionError``, in bounded memory, wherever tapeflow
walks structures (``tf.nest``, the tape's watch and gradient, tensor conversion); the golden cases
``nest_recursion`` check TF's messages.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import pytest

import tapeflow as tf


def _cycle(leaf=1.0):
    a = [leaf]
    a.append(a)
    return a


def _cycle_through_dict():
    d = {"x": 1.0, "y": []}
    d["y"].append((d,))
    return d


def _watch(structure):
    with tf.GradientTape() as tape:
        tape.watch(structure)


def _gradient_of(target):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    return tape.gradient(target, x)


def _gradient_wrt(sources):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    return tape.gradient(y, sources)


CALLS = {
    "flatten": lambda: tf.nest.flatten(_cycle()),
    "flatten_dict": lambda: tf.nest.flatten(_cycle_through_dict()),
    "map_structure": lambda: tf.nest.map_structure(lambda v: v, _cycle()),
    "map_structure_two": lambda: tf.nest.map_structure(lambda a, b: a, _cycle(), _cycle()),
    "pack_sequence_as": lambda: tf.nest.pack_sequence_as(_cycle(), [1.0, 2.0]),
    "assert_same_structure": lambda: tf.nest.assert_same_structure(_cycle(), _cycle()),
    "watch": lambda: _watch(_cycle(tf.constant(1.0))),
    "gradient_target": lambda: _gradient_of(_cycle(tf.constant(1.0))),
    "gradient_sources": lambda: _gradient_wrt(_cycle(tf.constant(1.0))),
    "convert_to_tensor": lambda: tf.convert_to_tensor(_cycle()),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_cycles_fail_at_once_in_bounded_memory(name):
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(RecursionError, match="maximum recursion depth exceeded"):
            CALLS[name]()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 2.0
    assert peak < 20 * 2**20  # before the fix, flatten grew a list by about 170 MB/s until MemoryError


def _deep(depth):
    a = 1.0
    for _ in range(depth):
        a = [a]
    return a


def test_the_bound_follows_the_recursion_limit():
    assert tf.nest.flatten(_deep(500)) == [1.0]
    with pytest.raises(RecursionError, match="in flatten"):
        tf.nest.flatten(_deep(sys.getrecursionlimit()))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + 2000)
    try:
        assert tf.nest.flatten(_deep(old + 500)) == [1.0]
    finally:
        sys.setrecursionlimit(old)


def test_shared_substructures_are_not_cycles():
    leaf = [tf.constant(1.0), tf.constant(2.0)]
    shared = [leaf, leaf, {"a": leaf}]
    assert len(tf.nest.flatten(shared)) == 6
    assert tf.nest.map_structure(lambda v: v, shared)[2]["a"][1].numpy() == 2.0

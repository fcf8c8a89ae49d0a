"""``tf.vectorized_map``: every op of the op database, batched, agrees with the op run per element.

Registry-driven: for each entry and sample of ``tests/op_db``, a batch of two elements (the sample's values and a
permutation of them) goes through ``vectorized_map``, and each row must equal the entry run eagerly on that
element, for the forward pass and for the gradient taken by a tape inside the mapped function (per-example
gradients: the batched graph then holds the gradient ops too). Ops with a batching rule run once for the batch;
the others fall back to a loop per element: both must be exact. Then the API's own behaviour.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tapeflow as tf
from tests.test_compiler_ops import (
    BUILT_IN_PYTHON,
    DIFFERENTIABLE,
    FORWARD,
    _loss,
    _np,
    _outputs,
    _params,
    _permuted,
    _same,
    _weights,
)


def _batch(entry, sample):
    elements = [[np.asarray(a) for a in sample.args], _permuted(entry, sample)]
    stacked = tuple(tf.constant(np.stack([e[k] for e in elements])) for k in range(len(sample.args)))
    return elements, stacked


def _rows(result, k):
    return [None if o is None else o[k] for o in _outputs(result)]


def _dense(outs):
    return [tf.convert_to_tensor(o) if isinstance(o, tf.IndexedSlices) else o for o in outs]


# tf.print's entry returns what it printed, which a traced function does not capture (it prints when it runs).
VECTORIZED = [e for e in FORWARD if not e.variables and e.name not in BUILT_IN_PYTHON and e.name != "PrintV2"]


def _same_shapes(entry, sample, elements):
    """Whether the entry's outputs have one shape for both elements (an operand that sets an output's shape by
    its value gives rows of different shapes, which no batch holds: TF cannot vectorize them either)."""
    shapes = [[np.shape(_np(o)) for o in _dense(_outputs(entry.fn(*[tf.constant(a) for a in e], **sample.kwargs)))]
              for e in elements]
    return shapes[0] == shapes[1]


@pytest.mark.parametrize("entry,sample", _params(VECTORIZED, "vectorized_forward"))
def test_batched_forward_matches_each_element(entry, sample):
    elements, stacked = _batch(entry, sample)
    if not _same_shapes(entry, sample, elements):
        pytest.skip("the elements' results differ in shape")
    result = tf.vectorized_map(lambda xs: _dense(_outputs(entry.fn(*xs, **sample.kwargs))), stacked, warn=False)
    for k, element in enumerate(elements):
        eager = _dense(_outputs(entry.fn(*[tf.constant(a) for a in element], **sample.kwargs)))
        _same(_rows(result, k), eager, f"element {k}")


def _per_example_gradient(entry, sample, ws):
    def grads(xs):
        xs = list(xs)
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = _loss(_outputs(entry.fn(*xs, **sample.kwargs)), ws)
        return _dense(tape.gradient(loss, xs))

    return grads


@pytest.mark.parametrize("entry,sample", _params([e for e in DIFFERENTIABLE if e in VECTORIZED],
                                                  "vectorized_gradient"))
def test_per_example_gradients_match_each_element(entry, sample):
    ws = [tf.constant(w) for w in _weights(entry, sample)]
    elements, stacked = _batch(entry, sample)
    grads = _per_example_gradient(entry, sample, ws)
    try:
        expected = [grads([tf.constant(a) for a in e]) for e in elements]
    except LookupError as exc:  # an op TF cannot differentiate: the batched call raises the same
        with pytest.raises(type(exc)):
            tf.vectorized_map(grads, stacked, warn=False)
        return
    result = tf.vectorized_map(grads, stacked, warn=False)
    for k, want in enumerate(expected):
        _same(_rows(result, k), want, f"element {k}")


# ------------------------------------------------------------------------------------------ the API


def _mlp():
    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.standard_normal((4, 8)).astype(np.float32))
    b1 = tf.Variable(np.zeros(8, np.float32))
    w2 = tf.Variable(rng.standard_normal((8, 3)).astype(np.float32))

    def one(example):
        x, y = example
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x[None], w1) + b1)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(y[None], tf.matmul(h, w2))
        return tape.gradient(loss, [w1, b1, w2])

    x = tf.constant(rng.standard_normal((5, 4)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 5).astype(np.int32))
    return one, x, y


def test_per_example_gradients_of_an_mlp_need_no_loop(caplog):
    one, x, y = _mlp()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        got = tf.vectorized_map(one, (x, y))
    assert not [r for r in caplog.records if "while_loop" in r.getMessage()]
    for i in range(5):
        for g, want in zip(got, one((x[i], y[i]))):
            np.testing.assert_allclose(g[i].numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_an_op_without_a_rule_falls_back_with_tf_warning_or_raises(caplog):
    x = tf.constant([[1, 1, 2], [3, 4, 3]])
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        out = tf.vectorized_map(lambda r: tf.unique(r)[1], x)
    assert out.numpy().tolist() == [[0, 0, 1], [0, 1, 0]]
    assert "Using a while_loop for converting Unique cause there is no registered converter for this op." in \
        caplog.text
    with pytest.raises(ValueError, match="No pfor vectorization defined for Unique"):
        tf.vectorized_map(lambda r: tf.unique(r)[1], x, fallback_to_while_loop=False)


def test_a_tape_outside_differentiates_through_the_batch():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.vectorized_map(lambda r: tf.sin(r) * tf.reduce_sum(r), x))
    g = tape.gradient(y, x).numpy()
    xs = x.numpy()
    want = np.cos(xs) * xs.sum(axis=1, keepdims=True) + np.sin(xs).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(g, want, rtol=1e-5)


def test_structures_constants_and_none_come_back_as_tf_returns_them():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    out = tf.vectorized_map(lambda d: {"s": d["a"] + 1, "t": tf.constant(5.0), "n": None}, {"a": x})
    assert out["s"].numpy().tolist() == [[1, 2], [3, 4], [5, 6]]
    assert out["t"].numpy().tolist() == [5.0, 5.0, 5.0] and out["n"] is None
    assert tf.vectorized_map(lambda r: None, x) is None


def test_a_changed_closure_is_seen_by_the_next_call():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    for scale in (2.0, 3.0):
        factor = tf.constant(scale)
        out = tf.vectorized_map(lambda r: r * factor, x)  # noqa: B023 - the point of the test
        assert out.numpy().tolist() == (x.numpy() * scale).tolist()


def test_bad_elems_raise():
    with pytest.raises(ValueError, match="same first dimension"):
        tf.vectorized_map(lambda p: p[0], (tf.ones([3, 2]), tf.ones([2, 2])))
    with pytest.raises(IndexError):
        tf.vectorized_map(lambda r: r, tf.constant(3.0))


def test_inside_a_traced_function():
    one, x, y = _mlp()
    traced = tf.function(lambda a, b: tf.vectorized_map(one, (a, b)))
    for got, want in zip(traced(x, y), tf.vectorized_map(one, (x, y))):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)


def test_a_mutated_python_value_in_the_closure_is_seen_by_the_next_call():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    settings = {"scale": 2.0}
    fn = lambda r: r * settings["scale"]  # noqa: E731
    assert tf.vectorized_map(fn, x).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
    settings["scale"] = 3.0
    assert tf.vectorized_map(fn, x).numpy().tolist() == [[3.0, 6.0], [9.0, 12.0]]


def test_the_same_function_on_another_structure_is_traced_again():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])

    def first(e):
        return e[0] if isinstance(e, tuple) else e["a"]

    assert tf.vectorized_map(first, (x, x)).numpy().tolist() == x.numpy().tolist()
    assert tf.vectorized_map(first, {"a": x}).numpy().tolist() == x.numpy().tolist()

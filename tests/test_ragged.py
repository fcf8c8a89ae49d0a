"""``tf.RaggedTensor`` beyond the golden cases: gradients against central differences, the composite-tensor
paths (``tf.nest``, ``tf.function`` arguments and results, input signatures), and datasets of ragged elements.
(Values against TensorFlow itself are in ``golden/cases/ragged_tensors.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def _central_difference(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        out.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


@pytest.mark.parametrize("reduce", [
    lambda r: tf.reduce_sum(tf.reduce_sum(r * r, axis=1) * [1.0, 2.0, 3.0]),
    lambda r: tf.reduce_sum(tf.reduce_max(r, axis=0) * [1.0, 2.0, 3.0]),
    lambda r: tf.reduce_sum(tf.reduce_mean(r, axis=0) ** 2),
    lambda r: tf.reduce_sum(r.to_tensor(default_value=0.5) ** 2 * [[1.0, 2.0, 3.0]]),
    lambda r: tf.reduce_sum(tf.sin(r)[1:].to_tensor() * 3.0),
    lambda r: tf.reduce_sum((r + tf.constant([[1.0], [2.0], [3.0]], tf.float64)) ** 2),
    # the functions _ragged_dispatch.API sends to ragged_api.py
    lambda r: tf.reduce_sum(tf.tile(r, [2, 3]).to_tensor() * tf.range(1.0, 7.0, dtype=tf.float64)[:, None]),
    lambda r: tf.reduce_sum(tf.reverse(r, [1]).to_tensor() * [[1.0, 2.0, 3.0]]),
    lambda r: tf.reduce_sum(tf.reverse(r, [0]).to_tensor() * [[1.0, 2.0, 3.0]]),
    lambda r: tf.reduce_sum(tf.nn.softmax(r * 2.0).to_tensor() * [[1.0, 2.0, 3.0]]),
    lambda r: tf.reduce_sum(tf.math.cumsum(r, axis=1).to_tensor() ** 2),
    lambda r: tf.reduce_sum(tf.math.unsorted_segment_sum(r, [1, 0, 1], 2).to_tensor() ** 2),
    lambda r: tf.reduce_sum(tf.math.unsorted_segment_mean(r, [1, 0, 1], 2).to_tensor() ** 2),
    lambda r: tf.reduce_sum(tf.gather_nd(r, [[2, 1], [0, 0], [2, 2]]) ** 3),
    lambda r: tf.reduce_sum(tf.expand_dims(r, 2).to_tensor() ** 2 * 1.5),
    lambda r: tf.reduce_sum(tf.add_n([r, r * r]).flat_values),
    lambda r: tf.reduce_sum(tf.map_fn(tf.math.square, r).flat_values * [1.0, 2.0, 3.0, 4.0, 5.0]),
    lambda r: tf.reduce_sum(tf.clip_by_value(r, -1.0, 1.0).flat_values * [1.0, 2.0, 3.0, 4.0, 5.0]),
    lambda r: tf.reduce_sum(tf.reshape(r, [-1]) * [1.0, 2.0, 3.0, 4.0, 5.0]),
    lambda r: tf.reduce_sum(tf.dynamic_partition(r, [1, 0, 1], 2)[1].to_tensor() * [[1.0, 2.0, 3.0]]),
])
def test_gradients_to_the_flat_values_match_central_differences(reduce):
    values = np.array([0.3, -1.2, 0.7, 2.1, -0.4], np.float64)

    def f(v):
        return float(reduce(tf.RaggedTensor.from_row_lengths(tf.constant(v), [2, 0, 3])).numpy())

    x = tf.Variable(values)
    with tf.GradientTape() as tape:
        y = reduce(tf.RaggedTensor.from_row_lengths(x, [2, 0, 3]))
    g = tf.convert_to_tensor(tape.gradient(y, x)).numpy()
    np.testing.assert_allclose(g, _central_difference(f, values), rtol=1e-6, atol=1e-8)


def test_second_derivatives_through_the_dense_form():
    x = tf.Variable([0.5, -1.0, 2.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.RaggedTensor.from_row_lengths(x, [1, 2]).to_tensor() ** 3)
        g = tf.convert_to_tensor(inner.gradient(y, x))
    h = tf.convert_to_tensor(outer.gradient(g, x))
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy(), rtol=1e-6)


def test_nest_expands_ragged_tensors_into_flat_values_and_splits():
    rt = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    flat = tf.nest.flatten(rt, expand_composites=True)
    assert [f.numpy().tolist() for f in flat] == [[1, 2, 3, 4], [0, 2, 3], [0, 2, 3, 4]]
    back = tf.nest.pack_sequence_as(rt, [flat[0] * 10] + flat[1:], expand_composites=True)
    assert back.to_list() == [[[10, 20], [30]], [[40]]]


def test_a_function_traces_once_for_rows_of_any_length_and_returns_fresh_ragged_tensors():
    f = tf.function(lambda r: r * 2)
    a = f(tf.ragged.constant([[1, 2], [3]]))
    b = f(tf.ragged.constant([[4], [5, 6, 7]]))
    assert f.experimental_get_tracing_count() == 1
    assert a.to_list() == [[2, 4], [6]] and b.to_list() == [[8], [10, 12, 14]]


def test_input_signature_with_a_ragged_spec():
    f = tf.function(lambda r: tf.reduce_sum(r, axis=1),
                    input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    assert f(tf.ragged.constant([[1, 2], [3]])).numpy().tolist() == [3, 3]
    assert f(tf.ragged.constant([[1], [2], [3, 4, 5]])).numpy().tolist() == [1, 2, 12]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Can not cast"):
        f(tf.ragged.constant([[1.0]]))


def test_a_tape_outside_a_function_reaches_the_flat_values():
    f = tf.function(lambda r: tf.reduce_sum(r * r, axis=1))
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(f(tf.RaggedTensor.from_row_lengths(x, [1, 2])) * [1.0, 10.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 40.0, 60.0])


def test_ragged_batches_round_trip_through_unbatch():
    ds = tf.data.Dataset.range(5).map(lambda i: tf.range(i))
    batches = list(ds.ragged_batch(2))
    assert [b.to_list() for b in batches] == [[[], [0]], [[0, 1], [0, 1, 2]], [[0, 1, 2, 3]]]
    rows = [r.numpy().tolist() for r in ds.ragged_batch(2).unbatch()]
    assert rows == [[], [0], [0, 1], [0, 1, 2], [0, 1, 2, 3]]


def test_bad_partitions_raise_and_leave_nothing_behind():
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not form a valid RaggedTensor"):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 5])
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        tf.ragged.constant([[1, 2], [3]])[:, 0]
    with pytest.raises(TypeError, match="may not be used as a boolean"):
        bool(tf.ragged.constant([[1]]))


def test_every_function_of_the_ragged_table_has_a_ragged_version():
    """Each TF function the dispatch table lists resolves to a function of ``ragged_api`` taking the dense
    function first (a new entry without one fails here, not at a user's first call)."""
    import inspect

    from tapeflow.ops import _ragged_dispatch, ragged_api

    for path, kind in _ragged_dispatch.API.items():
        name, _, arg = kind.partition(":")
        made = getattr(ragged_api, name)
        handler = made(arg) if arg else made
        assert list(inspect.signature(handler).parameters)[0] == "fn", path


def test_dense_calls_go_straight_to_the_dense_function():
    """The wrapper a listed function gets passes dense arguments on untouched (same result, same errors)."""
    assert tf.tile.__wrapped__ is tf.tile._tapeflow_dense
    np.testing.assert_array_equal(tf.tile([[1, 2]], [2, 1]).numpy(), [[1, 2], [1, 2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected multiples argument to be a vector of length"):
        tf.tile([[1, 2]], [2])


def test_ragged_map_fn_traced_matches_eager():
    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])

    @tf.function
    def f(r):
        return tf.map_fn(lambda row: row * tf.reduce_sum(row), r)

    np.testing.assert_array_equal(f(rt).flat_values.numpy(), [3.0, 6.0, 36.0, 48.0, 60.0])
    np.testing.assert_array_equal(f(rt).row_splits.numpy(), [0, 2, 2, 5])

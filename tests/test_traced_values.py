"""What depends on values is computed by ops, so a traced function recomputes it on every call.

``tests/test_compiler_ops.py`` runs every op-db entry on permuted float inputs; its indices, masks, ids and shifts
are static (sample kwargs), so it cannot see an API function or gradient rule that read *those* values while
tracing. Here they are inputs of the traced function: each case traces on one set of values, then calls the
traced function on another (same shapes and dtypes: no retrace) and compares with eager execution on it. Index
errors are checked too: a traced program refuses out-of-range indices with the kernel's own message.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tapeflow as tf


def _np(value):
    if isinstance(value, tf.IndexedSlices):
        value = tf.convert_to_tensor(value)
    return None if value is None else np.asarray(value.numpy())


def _flat(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _agree(fn, first, second):
    """``tf.function(fn)`` traced on ``first`` gives on ``second`` what eager ``fn`` gives, without a retrace."""
    traced = tf.function(fn)
    traced(*first)
    got, want = _flat(traced(*second)), _flat(fn(*second))
    assert traced.experimental_get_tracing_count() == 1
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = _np(g), _np(w)
        assert (g is None) == (w is None), f"output {i}"
        if g is not None:
            assert g.dtype == w.dtype and g.shape == w.shape, f"output {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-12, err_msg=f"output {i}")
    return got


def _grad(fn, *watched):
    """The gradient of ``sum(fn(...) * pattern)`` with respect to the first ``watched`` arguments, by a tape."""

    def grads(*args):
        xs = list(args[:len(watched)])
        with tf.GradientTape() as tape:
            tape.watch(xs)
            out = fn(*args)
            pattern = tf.reshape(tf.cast(tf.range(1, tf.size(out) + 1), out.dtype), tf.shape(out))
            loss = tf.reduce_sum(out * pattern / 7.0)
        return tape.gradient(loss, xs)

    return grads


def t(value, dtype=None):
    return tf.constant(value, dtype)


# ------------------------------------------------------------------------------------------ reductions


def test_max_gradient_follows_the_maximum():
    fn = _grad(lambda x: tf.reduce_max(x, axis=1), "x")
    got = _agree(fn, [t([[1.0, 5.0, 2.0], [3.0, 3.0, 0.0]])], [t([[4.0, 0.0, 4.0], [0.0, 1.0, 2.0]])])
    np.testing.assert_allclose(got[0], [[1 / 14, 0, 1 / 14], [0, 0, 2 / 7]])


def test_logsumexp_gradient_shifts_by_each_calls_maximum():
    # Traced on small values, called on large ones: a shift kept from the trace would overflow exp.
    fn = _grad(lambda x: tf.reduce_logsumexp(x, axis=0), "x")
    got = _agree(fn, [t([[0.1, 0.2], [0.3, -0.4]])], [t([[900.0, -5.0], [901.0, -6.0]])])
    assert np.all(np.isfinite(got[0]))


def test_cumprod_gradient_with_zeros_the_trace_did_not_see():
    fn = _grad(lambda x: tf.math.cumprod(x), "x")
    _agree(fn, [t([1.0, 2.0, 3.0, 4.0])], [t([1.0, 0.0, 3.0, 0.0])])


def test_count_nonzero_counts_each_calls_values():
    _agree(lambda x: tf.math.count_nonzero(x, axis=1), [t([[1.0, 0.0], [2.0, 3.0]])], [t([[0.0, 0.0], [0.0, 1.0]])])


def test_monotone_checks_each_calls_values():
    _agree(lambda x: [tf.math.is_non_decreasing(x), tf.math.is_strictly_increasing(x)], [t([1, 2, 2])],
           [t([3, 1, 4])])


# ------------------------------------------------------------------------------------------ sorting


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("axis", [0, -1])
def test_sort_and_argsort_order_each_calls_values(direction, axis):
    fn = lambda x: [tf.sort(x, axis, direction), tf.argsort(x, axis, direction)]  # noqa: E731
    _agree(fn, [t([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])], [t([[9.0, 7.0, 8.0], [6.0, -1.0, 6.0]])])
    _agree(fn, [t([[3, 1, 2], [0, 5, 4]])], [t([[np.iinfo(np.int32).min, 7, 8], [6, -1, 6]])])


def test_sort_gradient_goes_back_to_each_calls_places():
    _agree(_grad(lambda x: tf.sort(x), "x"), [t([3.0, 1.0, 2.0])], [t([1.0, 3.0, 2.0])])


# ------------------------------------------------------------------------------------------ masks, shifts


def test_boolean_mask_selects_by_each_calls_mask():
    x = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    _agree(lambda x, m: tf.boolean_mask(x, m), [x, t([True, False, True])], [x, t([False, True, True])])
    _agree(lambda x, m: tf.boolean_mask(x, m, axis=1), [x, t([1, 0])], [x, t([0, 3])])  # a numeric mask
    _agree(lambda x, m: x[m], [x, t([True, False, True])], [x, t([False, False, True])])


def test_boolean_mask_gradient_by_each_calls_mask():
    # As many elements selected each time: a traced program keeps the shapes it was traced with (the backward
    # pass of the loss broadcasts to them), only the positions move.
    x = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    fn = _grad(lambda x, m: tf.boolean_mask(x, m), "x")
    _agree(fn, [x, t([True, False, True])], [x, t([False, True, True])])


def test_sequence_mask_compares_each_calls_lengths():
    _agree(lambda n: tf.sequence_mask(n, 4), [t([1, 3])], [t([4, 0])])
    _agree(lambda n: tf.sequence_mask(n, 3, dtype=tf.float32), [t([1.0, 2.5])], [t([3.0, 0.5])])


def test_roll_shifts_by_each_calls_shift():
    x = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _agree(lambda x, s: tf.roll(x, s, axis=1), [x, t(1)], [x, t(-5)])
    _agree(_grad(lambda x, s: tf.roll(x, s, axis=[0, 1]), "x"), [x, t([1, 1])], [x, t([0, 2])])


# ------------------------------------------------------------------------------------------ segments


def test_segment_gradients_by_each_calls_ids_and_extremes():
    data = t([[1.0, 2.0], [3.0, 0.5], [2.0, 2.0], [4.0, 1.0]])
    other = t([[5.0, 1.0], [5.0, 3.0], [0.0, 2.0], [1.0, 1.0]])
    ids, other_ids = t([0, 0, 1, 2]), t([0, 1, 1, 2])
    for segment in (tf.math.segment_max, tf.math.segment_min, tf.math.segment_mean, tf.math.segment_sum):
        _agree(_grad(segment, "data"), [data, ids], [other, other_ids])
    for segment in (tf.math.unsorted_segment_max, tf.math.unsorted_segment_min, tf.math.unsorted_segment_prod):
        fn = _grad(lambda x, i, segment=segment: segment(x, i, 3), "data")
        _agree(fn, [data, t([2, -1, 0, 1])], [other, t([1, 2, -1, 0])])


def test_segment_prod_gradient_with_zeros_the_trace_did_not_see():
    ids = t([0, 0, 1, 1, 1])
    fn = _grad(tf.math.segment_prod, "data")
    _agree(fn, [t([1.0, 2.0, 3.0, 4.0, 5.0]), ids], [t([0.0, 2.0, 0.0, 4.0, 0.0]), ids])
    _agree(fn, [t([1.0, 2.0, 3.0, 4.0, 5.0]), ids], [t([1.0, 0.0, 3.0, 0.0, 5.0]), ids])
    fn = _grad(lambda x, i: tf.math.unsorted_segment_prod(x, i, 2), "data")
    _agree(fn, [t([1.0, 2.0, 3.0, 4.0, 5.0]), ids], [t([0.0, 2.0, 3.0, 0.0, 0.0]), ids])


# ------------------------------------------------------------------------------------------ gathers and scatters


def test_gather_gradients_scatter_each_calls_indices():
    x = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _agree(_grad(lambda x, i: tf.gather(x, i, axis=1), "x"), [x, t([0, 0])], [x, t([2, 1])])
    batched = t(np.arange(24.0).reshape(2, 3, 4))
    fn = _grad(lambda x, i: tf.gather(x, i, axis=2, batch_dims=1), "x")
    _agree(fn, [batched, t([[0, 1], [2, 2]])], [batched, t([[3, 3], [1, 0]])])


def test_densified_slices_hold_each_calls_indices():
    # An axis-0 gather's gradient is IndexedSlices; densified (or aggregated over two gathers) inside the function.
    x = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])

    def dense_grad(x, i, j):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.gather(x, i) * 2.0) + tf.reduce_sum(tf.gather(x, j))
        return tf.convert_to_tensor(tape.gradient(loss, x))

    _agree(dense_grad, [x, t([0, 0]), t([1])], [x, t([2, 1]), t([2])])


def test_gather_nd_with_batch_dims_uses_each_calls_indices():
    x = t(np.arange(12.0).reshape(2, 3, 2))
    fn = lambda x, i: tf.gather_nd(x, i, batch_dims=1)  # noqa: E731
    _agree(fn, [x, t([[[0], [1]], [[2], [2]]])], [x, t([[[2], [2]], [[0], [1]]])])
    _agree(_grad(fn, "x"), [x, t([[[0], [1]], [[2], [2]]])], [x, t([[[2], [2]], [[0], [1]]])])


def _kernel_text(message):
    """The kernel's own words: without TF's ``{{function_node ...}}`` prefix and ``[Op:...] name:`` suffix."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" \[Op:[^\]]*\]( name: .*)?$", "", message, flags=re.S)


CASES = {
    "gather": (lambda p, i: tf.gather(p, i), t([1.0, 2.0, 3.0]), t(1), t(7)),
    "gather_negative": (lambda p, i: tf.gather(p, i, axis=1), t([[1.0, 2.0]]), t([0, 1]), t([1, -1])),
    "gather_nd": (lambda p, i: tf.gather_nd(p, i), t([[1.0, 2.0]]), t([[0, 1]]), t([[0, 2]])),
    "scatter_nd": (lambda u, i: tf.scatter_nd(i, u, [3]), t([1.0, 2.0]), t([[0], [2]]), t([[0], [3]])),
    "tensor_scatter_nd_update": (lambda u, i: tf.tensor_scatter_nd_update(tf.zeros([3]), i, u), t([1.0]),
                                 t([[1]]), t([[-1]])),
    "tensor_scatter_nd_add": (lambda u, i: tf.tensor_scatter_nd_add(tf.zeros([3]), i, u), t([1.0]), t([[1]]),
                              t([[5]])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_traced_program_refuses_out_of_range_indices(case):
    fn, x, good, bad = CASES[case]
    with pytest.raises(tf.errors.InvalidArgumentError) as eager:
        fn(x, bad)
    traced = tf.function(fn)
    traced(x, good)
    with pytest.raises(type(eager.value)) as raised:
        traced(x, bad)
    assert traced.experimental_get_tracing_count() == 1
    assert _kernel_text(eager.value.message) in raised.value.message


def test_gather_error_as_tensorflow_words_it_in_a_traced_program():
    traced = tf.function(lambda p, i: tf.gather(p, i))
    p = t([1.0, 2.0, 3.0])
    traced(p, t(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)Graph execution error:.*\nindices = 7 is not "
                                                             r"in \[0, 3\)\n\t \[\[\{\{node GatherV2\}\}\]\]"):
        traced(p, t(7))


def test_eager_index_errors_keep_their_names():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"ResourceGather.*indices\[1\] = 2 is not in \[0, 2\)"
                                                             r" \[Op:ResourceGather\] name: $"):
        tf.gather(v, t([0, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 2 is not in \[0, 2\) "
                                                             r"\[Op:GatherV2\]$"):
        tf.gather([1.0, 2.0], [0, 2])  # TF's fallback path: no name suffix
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[5\] does not index into shape \[3\] "
                                                             r"\[Op:TensorScatterAdd\]$"):
        tf.tensor_scatter_nd_add(tf.zeros([3]), [[5]], [1.0])

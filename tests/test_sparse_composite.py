"""``SparseTensor`` as a composite tensor: ``tf.nest`` with ``expand_composites``, ``tf.function`` arguments and
results (keyed by ``tf.SparseTensorSpec``), and sparse components of ``tf.data`` elements. (Values against
TensorFlow itself are in ``golden/cases/sparse_tensors.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf


def _st(indices, values, shape):
    return tf.SparseTensor(indices, values, shape)


def _parts(st):
    return [st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()]


def test_nest_expands_and_rebuilds_composites():
    st = _st([[0, 1]], [2.0], [2, 2])
    flat = tf.nest.flatten({"a": st, "b": 1}, expand_composites=True)
    assert len(flat) == 4 and flat[3] == 1
    assert tf.nest.flatten(st) == [st]
    back = tf.nest.pack_sequence_as({"a": st, "b": 1}, [flat[0], tf.constant([5.0]), flat[2], 3],
                                    expand_composites=True)
    assert _parts(back["a"]) == [[[0, 1]], [5.0], [2, 2]] and back["b"] == 3
    doubled = tf.nest.map_structure(lambda t: t * 2, st, expand_composites=True)
    assert _parts(doubled) == [[[0, 2]], [4.0], [4, 4]]


def test_a_function_takes_any_number_of_entries_in_one_trace_and_returns_fresh_sparse_tensors():
    f = tf.function(lambda s: tf.sparse.reorder(tf.sparse.transpose(s)))
    a = f(_st([[0, 1], [1, 0]], [1.0, 2.0], [2, 2]))
    b = f(_st([[0, 0], [0, 1], [1, 1]], [3.0, 4.0, 5.0], [2, 2]))
    assert f.experimental_get_tracing_count() == 1
    assert _parts(a) == [[[0, 1], [1, 0]], [2.0, 1.0], [2, 2]]
    assert _parts(b) == [[[0, 0], [1, 0], [1, 1]], [3.0, 4.0, 5.0], [2, 2]]
    f(_st([[0, 1]], [1.0], [3, 2]))  # another dense shape: another spec, another trace (as in TF)
    assert f.experimental_get_tracing_count() == 2


def test_input_signature_with_a_sparse_spec_conforms_and_refuses():
    f = tf.function(lambda s: tf.sparse.reduce_sum(s, axis=1),
                    input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
    assert f(_st([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])).numpy().tolist() == [1.0, 2.0]
    assert f(_st([[3, 2], [3, 0]], [2.0, 5.0], [4, 3])).numpy().tolist() == [0.0, 0.0, 0.0, 7.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Can not cast SparseTensorSpec"):
        f(_st([[0, 1]], [1.0], [2, 4]))
    with pytest.raises(TypeError, match="Can not cast"):
        f(tf.ones([2, 3]))
    assert f.get_concrete_function().structured_input_signature[0][0] == tf.SparseTensorSpec([None, 3])


def test_reduce_retracing_relaxes_the_sparse_spec():
    g = tf.function(lambda s: tf.sparse.to_dense(s), reduce_retracing=True)
    shapes = [g(_st([[0, 1]], [1.0], [n, 3])).shape.as_list() for n in (2, 4, 5, 6)]
    assert shapes == [[2, 3], [4, 3], [5, 3], [6, 3]]
    assert g.experimental_get_tracing_count() == 2


def test_a_tape_outside_differentiates_the_values_through_the_call():
    f = tf.function(lambda s: tf.sparse.to_dense(s) * 2)
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(f(_st([[0, 0], [0, 1], [2, 0]], v, [3, 2])) * [[1.0, 2.0]])
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0, 2.0])


def test_dataset_slices_batches_and_unbatches_sparse_components():
    st = _st([[0, 1], [2, 0], [2, 2]], [1.5, -2.0, 3.0], [3, 4])
    ds = tf.data.Dataset.from_tensor_slices((st, tf.range(3)))
    rows = [(_parts(s), int(i)) for s, i in ds]
    assert rows == [([[[1]], [1.5], [4]], 0), ([[], [], [4]], 1), ([[[0], [2]], [-2.0, 3.0], [4]], 2)]
    (batch, ids), = list(ds.batch(3))
    assert _parts(batch) == _parts(st) and ids.numpy().tolist() == [0, 1, 2]
    again = [(_parts(s), int(i)) for s, i in ds.batch(2).unbatch()]
    assert again == rows


def test_a_dataset_map_over_sparse_elements_is_traced_once():
    calls = []

    def densify(s):
        calls.append(1)  # Python side effects run while tracing only
        return tf.sparse.to_dense(s)

    st = _st([[0, 1], [2, 0], [2, 2]], [1.5, -2.0, 3.0], [3, 4])
    out = [e.numpy().tolist() for e in tf.data.Dataset.from_tensor_slices(st).map(densify)]
    assert out == [[0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-2.0, 0.0, 3.0, 0.0]]
    assert len(calls) == 1


def test_batched_sparse_elements_take_the_largest_dense_shape():
    ds = tf.data.Dataset.range(3).map(lambda i: tf.SparseTensor([[i]], tf.cast([i], tf.float32), [i + 1]))
    (batch,) = list(ds.batch(3))
    assert _parts(batch) == [[[0, 0], [1, 1], [2, 2]], [0.0, 1.0, 2.0], [3, 3]]
    assert ds.element_spec == tf.SparseTensorSpec([None], tf.float32)

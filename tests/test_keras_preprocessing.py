"""The Keras preprocessing layers beyond what the golden cases (``tests/golden/cases/keras_preprocessing.py``)
record: traced programs that serve every batch size, parallel ``tf.data`` maps, large vocabularies against a
dictionary, ``adapt`` from generators and with ``steps``, and the tracer and op fixes the layers rely on."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers


def test_lookup_of_a_large_vocabulary_matches_a_dictionary():
    rng = np.random.default_rng(1)
    vocab = [f"t{i}" for i in rng.permutation(5000)]
    layer = L.StringLookup(vocabulary=vocab, num_oov_indices=1)
    index = {token: i + 1 for i, token in enumerate(vocab)}
    queries = [f"t{i}" for i in rng.integers(0, 6000, size=(40, 30)).reshape(-1)]
    out = layer(np.array(queries).reshape(40, 30)).numpy().reshape(-1)
    assert out.tolist() == [index.get(q, 0) for q in queries]
    back = L.StringLookup(vocabulary=vocab, invert=True)(out.reshape(40, 30)).numpy().reshape(-1)
    assert [b.decode() for b in back] == [q if q in index else "[UNK]" for q in queries]


def test_integer_lookup_of_a_large_vocabulary_matches_a_dictionary():
    rng = np.random.default_rng(2)
    vocab = rng.choice(10**9, size=3000, replace=False)
    layer = L.IntegerLookup(vocabulary=vocab)
    queries = np.concatenate([vocab[:500], rng.integers(-10**9, 10**9, size=500)])
    index = {int(v): i + 1 for i, v in enumerate(vocab)}
    assert layer(queries).numpy().tolist() == [index.get(int(q), 0) for q in queries]


def test_adapt_orders_by_count_then_by_the_larger_token():
    layer = L.StringLookup()
    layer.adapt(["b", "a", "c", "c", "b", "zz", "z"])
    assert layer.get_vocabulary() == ["[UNK]", "c", "b", "zz", "z", "a"]
    ints = L.IntegerLookup()
    ints.adapt(np.array([5, 1, 9, 9, 1, -3]))
    assert ints.get_vocabulary() == [-1, 9, 1, 5, -3]


def test_adapt_from_a_generator_and_with_steps():
    batches = (np.array([["x", "y"], ["y", "z"]]) for _ in range(5))
    layer = L.StringLookup()
    layer.adapt(batches, steps=2)
    assert layer.get_vocabulary() == ["[UNK]", "y", "z", "x"]
    counted = L.IntegerLookup()
    counted.adapt(tf.data.Dataset.from_tensor_slices([[1, 2], [2, 2]]).repeat(), steps=3)
    assert counted.get_vocabulary() == [-1, 2, 1]


def test_adapt_again_forgets_the_previous_data():
    layer = L.TextVectorization()
    layer.adapt(["one two"])
    layer.adapt(["three"])
    assert layer.get_vocabulary() == ["", "[UNK]", "three"]


def test_vocabulary_file_with_special_tokens_and_integers(tmp_path):
    path = tmp_path / "ints.txt"
    path.write_text("10\n20\n30")
    layer = L.IntegerLookup(vocabulary=str(path))
    assert layer([30, 10, 99]).numpy().tolist() == [3, 1, 0]
    assert layer.get_config()["vocabulary"] is None
    assert layer.vocabulary_size() == 4


def test_config_lists_are_tracked_lists():
    layer = L.StringLookup(vocabulary=["a", "b"], salt=3)
    config = layer.get_config()
    assert type(config["vocabulary"]).__name__ == "TrackedList" and config["vocabulary"] == ["a", "b"]
    assert type(layer.salt).__name__ == "TrackedList" and layer.salt == [3, 3]
    assert type(L.IntegerLookup(vocabulary=[1, 2]).get_config()["vocabulary"]) is list


@pytest.mark.parametrize("make", [
    lambda: L.TextVectorization(vocabulary=["a", "b"]),
    lambda: L.TextVectorization(vocabulary=["a", "b"], ragged=True),
    lambda: L.TextVectorization(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[1.0, 2.0]),
    lambda: L.TextVectorization(vocabulary=["a", "b"], output_sequence_length=3),
    lambda: L.Hashing(num_bins=7, output_mode="count"),
])
def test_a_traced_function_serves_every_batch_size(make):
    layer = make()
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def f(x):
        traces.append(1)
        return layer(x)

    for n in (11, 13, 17):
        texts = tf.constant([" ".join(["a", "b", "c"][: (i % 4)]) for i in range(n)])
        got, want = f(texts), layer(texts)
        if isinstance(want, tf.RaggedTensor):
            assert got.to_list() == want.to_list()
        else:
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert len(traces) == 1


def test_parallel_dataset_map_matches_the_eager_calls():
    vec = L.TextVectorization(output_mode="count")
    texts = [f"w{i % 7} w{i % 3} w{i % 5}" for i in range(50)]
    vec.adapt(texts)
    ds = tf.data.Dataset.from_tensor_slices((texts, np.arange(50))).batch(8)
    mapped = ds.map(lambda x, y: (vec(x), y), num_parallel_calls=4)
    got = np.concatenate([x.numpy() for x, _ in mapped])
    np.testing.assert_array_equal(got, vec(texts).numpy())
    assert mapped.element_spec[0].shape.as_list() == [None, vec.vocabulary_size()]


def test_a_traced_function_keeps_the_vocabulary_it_saw():
    layer = L.StringLookup(vocabulary=["a"])

    @tf.function
    def f(x):
        return layer(x)

    assert f(tf.constant(["a", "b"])).numpy().tolist() == [1, 0]
    layer.set_vocabulary(["b", "a"])
    assert layer(tf.constant(["a", "b"])).numpy().tolist() == [2, 1]
    assert f(tf.constant(["a", "b"])).numpy().tolist() == [1, 0]


def test_hashing_bins_are_the_string_hashes():
    values = ["x", "hello", "", "ééé"]
    plain = L.Hashing(num_bins=97)(values).numpy().tolist()
    assert plain == tf.strings.to_hash_bucket_fast(values, 97).numpy().tolist()
    salted = L.Hashing(num_bins=97, salt=[5, 6])(values).numpy().tolist()
    assert salted == tf.strings.to_hash_bucket_strong(values, 97, key=[5, 6]).numpy().tolist()
    ints = L.Hashing(num_bins=97)(np.array([3, -4])).numpy().tolist()
    assert ints == tf.strings.to_hash_bucket_fast(["3", "-4"], 97).numpy().tolist()


def test_normalization_adapt_matches_numpy_and_the_running_combination():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(100, 4)).astype("float32") * 3 + 1
    direct = L.Normalization()
    direct.adapt(x)
    np.testing.assert_array_equal(direct.adapt_mean.numpy(), np.mean(x, axis=0))
    np.testing.assert_array_equal(direct.adapt_variance.numpy(), np.var(x, axis=0))
    batched = L.Normalization()
    batched.adapt(tf.data.Dataset.from_tensor_slices(x).batch(30))
    np.testing.assert_allclose(batched.adapt_mean.numpy(), np.mean(x, axis=0), rtol=1e-5)
    np.testing.assert_allclose(batched.adapt_variance.numpy(), np.var(x, axis=0), rtol=1e-5)
    out = direct(x).numpy()
    np.testing.assert_allclose(out.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(L.Normalization(mean=direct.adapt_mean.numpy(), variance=direct.adapt_variance.numpy(),
                                               invert=True)(out).numpy(), x, rtol=1e-5, atol=1e-5)


def test_normalization_refuses_other_data():
    with pytest.raises(TypeError, match="Unsupported data type"):
        L.Normalization().adapt(5)


def test_sparse_encodings_are_sparse_tensors():
    out = L.StringLookup(vocabulary=["a", "b"], output_mode="count", sparse=True)([["a", "a", "q"]])
    assert isinstance(out, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(), [[1, 2, 0]])


def test_sparse_inputs_of_rank_three_cannot_be_encoded():
    sparse = tf.sparse.SparseTensor([[0, 0, 0]], ["a"], [1, 1, 2])
    with pytest.raises(ValueError, match="do not encode `SparseTensor` inputs of rank 3"):
        L.StringLookup(vocabulary=["a"], output_mode="one_hot")(sparse)


# --- what the layers needed from the ops and the tracer ---------------------------------------------------------


def test_split_and_ngrams_trace_once_for_every_batch_size():
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def f(x):
        traces.append(1)
        out = tf.strings.ngrams(tf.strings.split(x), (1, 2))
        assert out.shape.as_list() == [None, None]
        return out

    # (no batch of 1 or 2: those sizes are the widths, which the trace would take for batch sizes)
    for texts in (["a b c", "d", "e f"], ["x", "y z", "", "w w w w", "v"], ["q"] * 7):
        assert f(tf.constant(texts)).to_list() == tf.strings.ngrams(tf.strings.split(texts), (1, 2)).to_list()
    assert len(traces) == 1


def test_searchsorted_in_an_empty_sequence():
    out = tf.searchsorted(tf.zeros([2, 0], tf.int64), tf.constant([[1, 2], [3, 4]], tf.int64))
    assert out.numpy().tolist() == [[0, 0], [0, 0]]


def test_set_shape_fixes_unknown_sizes_in_a_trace():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def f(x):
        y = x * 2
        y.set_shape([None, 3])
        seen.append(y.shape.as_list())
        return y

    f(tf.ones([2, 3]))
    assert seen == [[None, 3]]
    with pytest.raises(ValueError, match="not compatible"):
        tf.ones([2, 3]).set_shape([2, 4])

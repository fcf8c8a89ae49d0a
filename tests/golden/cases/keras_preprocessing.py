"""tf.keras preprocessing layers (Keras 3.15): StringLookup, IntegerLookup, Hashing, TextVectorization and
Normalization: every output mode, vocabularies given or adapted (from lists, arrays, tensors and datasets, batched
or not), special tokens, ragged and sparse results, configs, the layers in models and in ``tf.data`` maps, and the
errors for bad arguments.

Every case starts with ``clear_session()`` so default names are deterministic. Sparse results are returned as
their three component tensors (the harness compares tensors by value).
"""

import os
import tempfile

import numpy as np

from tests.golden.harness import case, catch


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras.layers


def _sparse(st):
    return [st.indices, st.values, st.dense_shape]


def _vocab_types(vocab):
    """The vocabulary with each entry's type name (Keras mixes Python and NumPy scalars)."""
    return [[v, type(v).__name__] for v in vocab]


# --------------------------------------------------------------------------------------------- StringLookup


@case
def string_lookup_int_mode(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=["a", "b", "c"])
    return [s(["a", "z", "c"]), s(np.array([["a"], ["b"]])), s("a"), s(tf.constant([["c", "b"], ["x", "a"]])),
            s(np.array(["a", "b"], dtype=object)), _vocab_types(s.get_vocabulary()),
            s.get_vocabulary(include_special_tokens=False), s.vocabulary_size(), s.built, repr(s),
            s.compute_output_shape((None, 3)), s.compute_dtype, s.variable_dtype, s.dtype, s.weights]


@case
def string_lookup_encodings(tf):
    L = _k(tf)
    out = []
    for mode in ["one_hot", "multi_hot", "count"]:
        s = L.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        out.append([mode, s(["a", "z", "c", "c"]), s([["a", "c"], ["c", "c"]]), s([["a"], ["c"]]), s("b"),
                    s.compute_output_shape((None, 3)), s.compute_output_shape((None, 1))])
    s = L.StringLookup(vocabulary=["a", "b", "c"], output_mode="tf_idf", idf_weights=[0.5, 1.0, 2.0])
    out.append([s([["a", "c"], ["c", "z"]]), s(["a", "a", "b"]), s.weights, s.get_vocabulary(),
                s.compute_output_shape((None, 2))])
    s = L.StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot", max_tokens=6, pad_to_max_tokens=True)
    out.append([s([["a", "c"], ["b", "x"]]), s.get_vocabulary(), s.vocabulary_size()])
    s = L.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[1.0, 3.0], max_tokens=5,
                       pad_to_max_tokens=True)
    out.append([s([["a", "b", "b"]]), s.compute_output_shape((None, 3))])
    s = L.StringLookup(vocabulary=["a", "b"], output_mode="count", mask_token="")
    out.append([s([["a", "", "b", "x", ""]]), s.get_vocabulary(), s.vocabulary_size()])
    s = L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot", mask_token="")
    out.append([s(["a", "", "b"]), s.get_vocabulary()])
    return out


@case
def string_lookup_rank3_encodings(tf):
    L = _k(tf)
    x = [[["a", "b"], ["c", "a"]], [["b", "b"], ["z", "c"]]]
    out = []
    for mode in ["one_hot", "multi_hot", "count"]:
        s = L.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        out.append(catch(s, x))
    return out


@case
def string_lookup_special_tokens(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=["a", "b"], mask_token="[MASK]", num_oov_indices=2)
    s2 = L.StringLookup(vocabulary=["[MASK]", "[UNK]", "[UNK]", "a", "b"], mask_token="[MASK]", num_oov_indices=2)
    s3 = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=0)
    s4 = L.StringLookup(vocabulary=["a", "b"], oov_token="<oov>", num_oov_indices=3)
    return [s(["a", "[MASK]", "zz", "yy", "b", "c", "dd", "ee"]), s.get_vocabulary(), s.vocabulary_size(),
            s2.get_vocabulary(), s2(["[MASK]", "a", "q"]), s3(["b", "a"]), s3.get_vocabulary(),
            catch(s3, ["a", "q", "r"]), s4.get_vocabulary(), s4(["a", "b", "x", "y", "zz", "hello", "world"]),
            s.get_vocabulary(include_special_tokens=False)]


@case
def string_lookup_invert(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=["a", "b", "c"], invert=True)
    s2 = L.StringLookup(vocabulary=["a", "b"], invert=True, mask_token="[M]", oov_token="?")
    fwd = L.StringLookup(vocabulary=["x", "y"])
    inv = L.StringLookup(vocabulary=fwd.get_vocabulary(), invert=True)
    return [s([0, 1, 2, 3, 5, -1]), s(np.array([[1, 3]])), s2([0, 1, 2, 3, 4]), s2.get_vocabulary(),
            inv(fwd(["y", "q", "x"])), inv.get_vocabulary(), s.compute_output_shape((None, 2)),
            s(tf.constant([1, 2], tf.int32)), s(tf.constant([1.0, 2.0]))]


@case
def string_lookup_adapt_sources(tf):
    L = _k(tf)
    data = [["b", "a", "b"], ["c", "d", "d"], ["d", "e", "c"]]
    out = []
    for source in [data, np.array(data), tf.constant(data), tf.data.Dataset.from_tensor_slices(data),
                   tf.data.Dataset.from_tensor_slices(data).batch(2), ["b", "a", "b", "c", "d", "d"],
                   np.array(["q", "q", "p"]), tf.data.Dataset.from_tensor_slices(["b", "a", "b"]),
                   tf.data.Dataset.from_tensor_slices(np.array(data).reshape(-1)).batch(4),
                   tf.ragged.constant([["b"], ["a", "b", "c"]])]:
        s = L.StringLookup()
        s.adapt(source)
        out.append([s.get_vocabulary(), s.vocabulary_size()])
    s = L.StringLookup()
    s.adapt(tf.data.Dataset.from_tensor_slices(data).repeat(), steps=2)
    out.append(s.get_vocabulary())
    s = L.StringLookup()
    s.adapt(iter([np.array(["x", "y", "y"]), np.array(["z", "z", "z"])]))
    out.append(s.get_vocabulary())
    s = L.StringLookup()
    s.adapt(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([["b"], ["a", "b", "c"], ["c"]])).batch(2))
    out.append(s.get_vocabulary())
    return out


@case
def string_lookup_adapt_order_and_max_tokens(tf):
    L = _k(tf)
    data = ["b", "a", "c", "b", "c", "dd", "d", "Z", "é", "é", "A"]
    s = L.StringLookup()
    s.adapt(data)
    s2 = L.StringLookup(max_tokens=4)
    s2.adapt(data)
    s3 = L.StringLookup(max_tokens=4, mask_token="", num_oov_indices=2)
    s3.adapt(data + ["", "", "", "", "[UNK]", "[UNK]"])
    s4 = L.StringLookup(oov_token="b")
    s4.adapt(data)
    s5 = L.StringLookup()
    s5.adapt(data)
    s5.adapt(["x"])
    return [s.get_vocabulary(), s(["é", "Z", "nope"]), s2.get_vocabulary(), s2(["b", "c", "a"]),
            s3.get_vocabulary(), s3(["", "b", "A"]), s4.get_vocabulary(), s5.get_vocabulary()]


@case
def string_lookup_tf_idf_adapt(tf):
    L = _k(tf)
    data = [["a", "b", "a"], ["b", "c", "c"], ["a", "d", "e"]]
    s = L.StringLookup(output_mode="tf_idf")
    s.adapt(data)
    s2 = L.StringLookup(output_mode="tf_idf", max_tokens=4, pad_to_max_tokens=True)
    s2.adapt(tf.data.Dataset.from_tensor_slices(data).batch(2))
    s3 = L.StringLookup(output_mode="tf_idf", mask_token="")
    s3.adapt(tf.ragged.constant([["a", "b"], ["a"], ["c", "a", ""]]))
    s4 = L.StringLookup(output_mode="tf_idf", max_tokens=10, pad_to_max_tokens=True)
    s4.adapt(["a", "b", "a"])
    return [s.get_vocabulary(), s(data), s([["e", "zz", "a"]]), s2.get_vocabulary(), s2(data), s3.get_vocabulary(),
            s3([["a", "", "c"]]), [w.numpy() for w in s.weights], s4([["a", "b"]])]


@case
def string_lookup_set_vocabulary(tf):
    L = _k(tf)
    s = L.StringLookup()
    before = [s.get_vocabulary(), s.vocabulary_size(), catch(s, ["a", "b"]), catch(s, "a")]
    s.set_vocabulary(["x", "y"])
    after = [s.get_vocabulary(), s(["y", "x", "q"])]
    s.set_vocabulary(np.array(["p", "q", "r"]))
    third = [s.get_vocabulary(), s(["r"])]
    s.set_vocabulary(tf.constant(["u"]))
    fourth = s.get_vocabulary()
    t = L.StringLookup(output_mode="tf_idf")
    t.set_vocabulary(["a", "b"], idf_weights=[2.0, 4.0])
    t2 = L.StringLookup(output_mode="tf_idf", num_oov_indices=1)
    t2.set_vocabulary(["[UNK]", "a", "b"], idf_weights=[1.0, 2.0, 4.0])
    m = L.StringLookup(output_mode="multi_hot")
    m.set_vocabulary(["a", "b"])
    return [before, after, third, fourth, t([["a", "b", "z"]]), t2([["a", "b", "z"]]), m(["b"]),
            catch(s.adapt, ["a"]), catch(m.set_vocabulary, ["a", "b", "c"])]


@case
def string_lookup_file_vocabulary(tf):
    L = _k(tf)
    d = tempfile.mkdtemp()
    path = os.path.join(d, "vocab.txt")
    with open(path, "w") as f:
        f.write("earth\nwind\nfire\n")
    s = L.StringLookup(vocabulary=path)
    s2 = L.StringLookup(vocabulary=path, invert=True)
    s3 = L.StringLookup(vocabulary=path, output_mode="multi_hot", mask_token="")
    cfg = s.get_config()
    out = [s(["fire", "water", "earth"]), s.get_vocabulary(), s.vocabulary_size(), s2([1, 2, 3, 9]),
           s3([["wind", "", "x"]]), cfg["vocabulary"], cfg["vocabulary_size"],
           catch(L.StringLookup, vocabulary=os.path.join(d, "missing.txt")).__class__.__name__,
           catch(L.StringLookup, vocabulary=path, output_mode="tf_idf", idf_weights=[1.0]).__class__.__name__]
    os.remove(path)
    os.rmdir(d)
    return out


@case
def string_lookup_ragged_and_sparse(tf):
    L = _k(tf)
    r = tf.ragged.constant([["a", "b"], [], ["z", "a", "c"]])
    s = L.StringLookup(vocabulary=["a", "b", "c"])
    inv = L.StringLookup(vocabulary=["a", "b", "c"], invert=True)
    out = [s(r), inv(s(r)), s(tf.ragged.constant([[["a"], ["b", "c"]], [["q"]]]))]
    for mode in ["multi_hot", "count", "one_hot"]:
        out.append(catch(L.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode), r))
    for mode in ["multi_hot", "count", "one_hot"]:
        sp = L.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode, sparse=True)
        out.append(_sparse(sp([["a", "c", "c"], ["b", "z", "z"]])))
        out.append(_sparse(sp(["a", "c", "c"])))
    sp = L.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[2.0, 3.0], sparse=True)
    out.append(catch(sp, [["a", "b", "b"], ["q", "q", "a"]]))
    out.append(_sparse(sp(["a", "b", "b", "q"])))
    sp = L.StringLookup(vocabulary=["a", "b"], output_mode="count", sparse=True)
    out.append(catch(lambda: _sparse(sp(r))))
    st = tf.sparse.SparseTensor([[0, 0], [1, 2]], ["b", "q"], [2, 3])
    res = L.StringLookup(vocabulary=["a", "b"])(st)
    out.append(_sparse(res))
    return out


@case
def string_lookup_config(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=["a", "b"], mask_token="", num_oov_indices=2, name="look")
    cfg = s.get_config()
    s2 = L.StringLookup.from_config(cfg)
    t = L.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=np.array([1.0, 2.0]))
    a = L.StringLookup(max_tokens=5, output_mode="count", pad_to_max_tokens=True, sparse=True)
    a.adapt(["x", "y", "y"])
    return [cfg, s2.get_config(), s2(["b", "", "q"]), t.get_config(), a.get_config(), s2.name,
            L.StringLookup(output_mode="binary").output_mode, L.StringLookup(output_mode="tf-idf",
                                                                            vocabulary=["a"],
                                                                            idf_weights=[1.0]).output_mode]


@case
def string_lookup_argument_errors(tf):
    L = _k(tf)
    S = L.StringLookup
    return [catch(S, max_tokens=1), catch(S, max_tokens=0), catch(S, pad_to_max_tokens=True),
            catch(S, num_oov_indices=-1), catch(S, output_mode="bad"), catch(S, invert=True, output_mode="count"),
            catch(S, sparse=True), catch(S, idf_weights=[1.0]), catch(S, vocabulary=["a"], output_mode="tf_idf"),
            catch(S, vocabulary=["a", "b", "a"]), catch(S, vocabulary=["a", "[M]"], mask_token="[M]"),
            catch(S, vocabulary=["[UNK]", "a"], invert=True, num_oov_indices=2),
            catch(S, vocabulary=["a", "b", "c"], max_tokens=3), catch(S, vocabulary=[]),
            catch(S, vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[1.0]),
            catch(S, foo=1), catch(S, salt="x"), catch(S, oov_method="weird"),
            catch(S(output_mode="multi_hot"), ["a"]), catch(S(output_mode="tf_idf"), ["a"]),
            catch(S().set_vocabulary, ["a"], idf_weights=[1.0]), catch(S(output_mode="tf_idf").set_vocabulary, ["a"]),
            catch(S, vocabulary=np.array([["a", "b"]])), S(vocabulary=["a", "[UNK]"]).get_vocabulary()]


@case
def string_lookup_salt_oov_hashing(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=["a"], num_oov_indices=4, salt=7)
    s2 = L.StringLookup(vocabulary=["a"], num_oov_indices=4, salt=(1, 2))
    s3 = L.StringLookup(vocabulary=["a"], num_oov_indices=4)
    x = ["a", "b", "c", "d", "e", "hello", "world", ""]
    return [s(x), s2(x), s3(x), s.get_config()["salt"], s.salt]


# --------------------------------------------------------------------------------------------- IntegerLookup


@case
def integer_lookup_basics(tf):
    L = _k(tf)
    i = L.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    inv = L.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    m = L.IntegerLookup(vocabulary=[12, 36], mask_token=0)
    return [i(np.array([[12, 1138, 42], [42, 1000, 36]])), i([12, 5]), i(tf.constant([36], tf.int32)),
            i(tf.constant([36.0, 12.7])), inv(np.array([[1, 3, 4], [4, 0, 2]])), _vocab_types(i.get_vocabulary()),
            i.vocabulary_size(), _vocab_types(m.get_vocabulary()), m([0, 12, 7]), i(12),
            _vocab_types(inv.get_vocabulary()), inv.get_vocabulary(include_special_tokens=False)]


@case
def integer_lookup_adapt(tf):
    L = _k(tf)
    data = np.array([[3, 3, 1], [2, 2, 7], [2, 10, 10]])
    out = []
    for source in [data, data.tolist(), tf.constant(data), tf.data.Dataset.from_tensor_slices(data),
                   tf.data.Dataset.from_tensor_slices(data).batch(2), [5, 5, 4], tf.constant([7, 7, 8], tf.int32)]:
        i = L.IntegerLookup()
        i.adapt(source)
        out.append(_vocab_types(i.get_vocabulary()))
    i = L.IntegerLookup(max_tokens=3, mask_token=0, oov_token=-7)
    i.adapt([0, 0, 0, 5, 5, 6, -7, -7, -7, -7])
    out.append([_vocab_types(i.get_vocabulary()), i([0, 5, 6, 99]), i.get_config()])
    i = L.IntegerLookup(output_mode="tf_idf")
    i.adapt(data)
    out.append([i(data), i.get_vocabulary()])
    return out


@case
def integer_lookup_modes_and_oov(tf):
    L = _k(tf)
    out = []
    for mode in ["one_hot", "multi_hot", "count"]:
        i = L.IntegerLookup(vocabulary=[5, 6, 7], output_mode=mode)
        out.append([i([[5, 7], [9, 7]]), i([5, 8, 8])])
    i = L.IntegerLookup(vocabulary=[5, 6], num_oov_indices=3)
    i2 = L.IntegerLookup(vocabulary=[5, 6], num_oov_indices=3, oov_method="farmhash")
    i3 = L.IntegerLookup(vocabulary=[5, 6], num_oov_indices=3, oov_method="farmhash", salt=[3, 4])
    i4 = L.IntegerLookup(vocabulary=[5, 6], num_oov_indices=0)
    x = [5, 6, 7, 8, 9, 10, -4, 123456789]
    out += [i(x), i2(x), i3(x), catch(i4, [5, 9, 11]), i.get_vocabulary(), i2.get_config()]
    out.append(L.IntegerLookup(vocabulary=[5, 6])(tf.ragged.constant([[5], [6, 1]])))
    out.append(_sparse(L.IntegerLookup(vocabulary=[5, 6], output_mode="multi_hot", sparse=True)([[5, 5], [6, 0]])))
    return out


@case
def integer_lookup_errors_and_config(tf):
    L = _k(tf)
    I = L.IntegerLookup  # noqa: E741
    i = I(vocabulary=[4, 2], mask_token=0, oov_token=-3, max_tokens=10)
    return [catch(I, max_tokens=1), catch(I, num_oov_indices=-2), catch(I, vocabulary_dtype="int32"),
            catch(I, salt=3), catch(I, vocabulary=[1, 1]), catch(I, vocabulary=[1, 0], mask_token=0),
            catch(I, output_mode="one"), catch(I, invert=True, output_mode="one_hot"),
            i.get_config(), I.from_config(i.get_config()).get_vocabulary(), catch(I, oov_method="farmhash", salt="a"),
            I(vocabulary=np.array([3, 1], np.int32)).get_config()["vocabulary"]]


# --------------------------------------------------------------------------------------------- Hashing


@case
def hashing_int_mode(tf):
    L = _k(tf)
    h = L.Hashing(num_bins=3)
    hm = L.Hashing(num_bins=3, mask_value="")
    hs = L.Hashing(num_bins=3, salt=133)
    hp = L.Hashing(num_bins=5, salt=[133, 137])
    x = [["A"], ["B"], ["C"], ["D"], ["E"]]
    return [h(x), hm([["A"], ["B"], [""], ["C"], ["D"]]), hs(x), hp(x), h(["a", "b"]), h("a"),
            h(np.array([[1], [2], [3]])), h(tf.constant([1.9, -2.5, 3.0])), h(tf.constant([1, 2, 3], tf.int32)),
            L.Hashing(num_bins=4, mask_value=0)(np.array([0, 1, 2, 0, 3])), h(tf.ragged.constant([["A", "B"], ["C"]])),
            L.Hashing(num_bins=100, dtype="int32")(["x", "y"]), h.dtype, h.compute_dtype, repr(h),
            h.compute_output_shape((None, 2)), L.Hashing(num_bins=3, mask_value="x")([b"x", b"y"]),
            L.Hashing(num_bins=1, mask_value="x")(["x", "y"]), h(np.array([True, False])),
            _sparse(h(tf.sparse.SparseTensor([[0, 0], [1, 1]], ["A", "B"], [2, 2]))), h.get_config(),
            hp.get_config()]


@case
def hashing_encodings(tf):
    L = _k(tf)
    out = []
    for mode in ["one_hot", "multi_hot", "count"]:
        h = L.Hashing(num_bins=4, output_mode=mode)
        out.append([h(["A", "B", "C"]), h([["A", "B"], ["C", "C"]]), h([["A"], ["D"]]), catch(h, "Q"), h.dtype,
                    h.compute_output_shape((None, 3)), h.compute_output_shape(())])
        hs = L.Hashing(num_bins=4, output_mode=mode, sparse=True)
        out.append(_sparse(hs([["A", "B"], ["C", "C"]])))
    out.append(L.Hashing(num_bins=4, output_mode="count", dtype="int32")([["A", "A"]]))
    out.append(L.Hashing(num_bins=4, output_mode="multi_hot")(np.array([[1, 2], [3, 3]])))
    return out


@case
def hashing_errors(tf):
    L = _k(tf)
    H = L.Hashing
    return [catch(H, num_bins=None), catch(H, num_bins=0), catch(H, num_bins=-1),
            catch(H, num_bins=3, output_mode="tf_idf"), catch(H, num_bins=3, sparse=True),
            catch(H, num_bins=3, salt="abc"), catch(H, num_bins=3, salt=[1, 2, 3]),
            catch(H, num_bins=3, dtype="float32"), H(num_bins=3, output_mode="one_hot", dtype="int32").dtype,
            H(num_bins=3, output_mode="one_hot").dtype, H(num_bins=3, dtype="int32").dtype,
            H.from_config(H(num_bins=3, salt=5).get_config()).get_config()]


# --------------------------------------------------------------------------------------------- TextVectorization

_TEXT = ["The Brown fox, jumped!", "the lazy dog... the END", "Fox & dog: friends?"]


@case
def text_vectorization_adapt_int(tf):
    L = _k(tf)
    v = L.TextVectorization()
    v.adapt(_TEXT)
    v2 = L.TextVectorization(max_tokens=6, output_sequence_length=4)
    v2.adapt(tf.data.Dataset.from_tensor_slices(_TEXT).batch(2))
    v3 = L.TextVectorization(output_sequence_length=7)
    v3.adapt(np.array(_TEXT))
    return [v.get_vocabulary(), v.vocabulary_size(), v(_TEXT), v([["the fox"], ["unknown words here"]]), v("a fox"),
            v2.get_vocabulary(), v2(_TEXT), v3(_TEXT), v3(["fox"]), v.compute_output_shape((None, 1)),
            v2.compute_output_shape((None,)), v.compute_dtype, v.dtype, v.built, v.get_vocabulary(False)]


@case
def text_vectorization_standardize_split(tf):
    L = _k(tf)
    out = []
    text = ["Hello, World! ÉTÉ", "a.b-c d_e"]
    for standardize in ["lower_and_strip_punctuation", "lower", "strip_punctuation", None]:
        for split in ["whitespace", "character", None]:
            v = L.TextVectorization(standardize=standardize, split=split)
            v.adapt(text)
            out.append([standardize, split, v.get_vocabulary(), v(text)])
    v = L.TextVectorization(standardize=lambda x: tf.strings.regex_replace(x, "o", "0"),
                            split=lambda x: tf.strings.split(x, sep="0"))
    v.adapt(["foo bar", "boo"])
    out.append([v.get_vocabulary(), v(["foo bar"])])
    return out


@case
def text_vectorization_ngrams_and_modes(tf):
    L = _k(tf)
    out = []
    for ngrams in [2, (1, 3), (2,)]:
        v = L.TextVectorization(ngrams=ngrams)
        v.adapt(["a b c", "b c d c"])
        out.append([v.get_vocabulary(), v(["a b c d"])])
    for mode in ["multi_hot", "count", "tf_idf"]:
        v = L.TextVectorization(output_mode=mode)
        v.adapt(_TEXT)
        out.append([mode, v(_TEXT), v("the fox"), v([["the fox"], ["dog"]]), v.compute_output_shape((None, 1)),
                    v.get_vocabulary()])
        p = L.TextVectorization(output_mode=mode, max_tokens=20, pad_to_max_tokens=True)
        p.adapt(_TEXT)
        out.append(p(["the dog"]))
    v = L.TextVectorization(output_mode="one_hot", split=None)
    v.adapt(["x", "y", "y"])
    out.append([v(["y", "q"]), v([["x"], ["y"]])])
    return out


@case
def text_vectorization_sequence_length_and_ragged(tf):
    L = _k(tf)
    vocab = ["the", "fox", "dog"]
    out = []
    for length in [None, 2, 6]:
        for ragged in [False, True]:
            if ragged and length is not None and False:
                continue
            v = L.TextVectorization(vocabulary=vocab, output_sequence_length=length, ragged=ragged)
            out.append([length, ragged, v(["the fox the dog", "dog", ""]), v(["fox cat"]),
                        v.compute_output_shape((None,))])
    v = L.TextVectorization(vocabulary=vocab, split=None, output_sequence_length=3)
    out.append(v([["the"], ["cat"]]))
    v = L.TextVectorization(vocabulary=vocab, split=None)
    out.append([v(["the", "fox"]), v([["dog"]])])
    return out


@case
def text_vectorization_vocabulary_and_config(tf):
    L = _k(tf)
    v = L.TextVectorization(vocabulary=["b", "a"], max_tokens=10)
    v2 = L.TextVectorization(output_mode="tf_idf", vocabulary=["b", "a"], idf_weights=[1.0, 2.0])
    v3 = L.TextVectorization(ngrams=(1, 2), split="character", standardize=None, output_sequence_length=3)
    v3.adapt(["ab", "ba"])
    v4 = L.TextVectorization()
    v4.set_vocabulary(["zz", "yy"])
    cfg = v.get_config()
    return [v(["a b c"]), v.get_vocabulary(), v2(["a b c a"]), cfg, v3.get_config(), v2.get_config(),
            L.TextVectorization.from_config(cfg)(["a b"]),
            L.TextVectorization.from_config(v3.get_config()).get_config(),
            v4(["yy zz q"]), v4.get_vocabulary(), v3(["abba"])]


@case
def text_vectorization_errors(tf):
    L = _k(tf)
    T = L.TextVectorization
    v = T(vocabulary=["a"])
    return [catch(T, standardize="upper"), catch(T, split="comma"), catch(T, output_mode="words"),
            catch(T, ngrams="2"), catch(T, ngrams=[1, 2]), catch(T, output_sequence_length=2.5),
            catch(T, output_mode="count", output_sequence_length=3), catch(T, ragged=True, output_mode="count"),
            catch(T, max_tokens=1), catch(v, [["a", "b"]]), catch(T(output_mode="count"), ["a"]),
            catch(T, vocabulary=["a"], output_mode="tf_idf"), catch(T, sparse=True),
            catch(T, pad_to_max_tokens=True), catch(v.adapt, ["a"]), catch(T, foo=1)]


# --------------------------------------------------------------------------------------------- Normalization


@case
def normalization_given_statistics(tf):
    L = _k(tf)
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")
    n = L.Normalization(mean=3.0, variance=2.0)
    n2 = L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 0.0])
    n3 = L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0], invert=True)
    n4 = L.Normalization(axis=None, mean=2.0, variance=4.0)
    n5 = L.Normalization(axis=0, mean=[1.0, 2.0], variance=[1.0, 4.0])
    n6 = L.Normalization(axis=(1, 2), mean=[[1.0, 2.0], [3.0, 4.0]], variance=[[1.0, 1.0], [4.0, 4.0]])
    return [n(x), n2(x), n3(x), n4(x), n5(x), n6(np.arange(8.0).reshape(2, 2, 2)), n(np.array([[1, 2, 3]], "int32")),
            catch(n, np.array([1.0, 5.0])), L.Normalization(mean=2.0, variance=4.0)(np.array([1.0, 5.0])),
            n.get_config(), n2.get_config(), n4.get_config(), n.weights, n.built,
            n.mean, n2.variance, n(tf.constant([[1.0]], tf.float64)).dtype]


@case
def normalization_adapt(tf):
    L = _k(tf)
    rng = np.random.RandomState(0)
    x = (rng.rand(50, 3) * 10).astype("float32")
    out = []
    for source in [x, tf.constant(x), tf.data.Dataset.from_tensor_slices(x).batch(16),
                   tf.data.Dataset.from_tensor_slices(x), x.astype("float64"), [x[:20], x[20:]],
                   tf.data.Dataset.from_tensor_slices((x, x[:, 0])).batch(7)]:
        n = L.Normalization()
        n.adapt(source)
        out.append([n(x[:3]), n.mean, n.variance, [w.numpy() for w in n.weights], [w.path for w in n.weights]])
    n = L.Normalization(axis=None)
    n.adapt(x)
    out.append([n(x[:2]), n.mean, n.variance])
    n = L.Normalization(axis=None)
    n.adapt(tf.data.Dataset.from_tensor_slices(x).batch(9))
    out.append([n(x[:2]), n.mean, n.variance])
    n = L.Normalization(axis=(0, 1))
    n.adapt(x.reshape(5, 10, 3)[:, :2])
    out.append([n.mean, n.variance])
    n = L.Normalization(invert=True)
    n.adapt(x)
    out.append(n(np.zeros((1, 3), "float32")))
    n = L.Normalization()
    n.adapt(np.array([[1.0, 1.0], [1.0, 1.0]]))
    out.append(n(np.array([[1.0, 3.0]])))
    return out


@case
def normalization_errors(tf):
    L = _k(tf)
    N = L.Normalization
    n = N()
    n.adapt(np.ones((4, 3), "float32"))
    return [catch(N, mean=1.0), catch(N, variance=1.0), catch(N, mean=[1.0, 2.0], variance=[1.0]),
            catch(N, mean=[[1.0]], variance=[[1.0]]), catch(N(axis=3), np.ones((2, 2))),
            catch(N(axis=1).adapt, np.ones((2,))), catch(n.adapt, np.ones((4, 2))),
            catch(N(axis=1, mean=[1.0], variance=[1.0]), np.ones((2, 3))), catch(N().adapt, []),
            catch(N(mean=1.0, variance=1.0), [[1.0, 2.0]]), catch(N().adapt, [1.0, 2.0]), catch(N().adapt, 5)]


# --------------------------------------------------------------------------------------------- in models and maps


@case
def layers_in_models(tf):
    L = _k(tf)
    k = tf.keras
    vec = L.TextVectorization(vocabulary=["the", "fox", "dog"], output_mode="multi_hot")
    model = k.Sequential([k.Input(shape=(1,), dtype="string"), vec,
                          L.Dense(1, kernel_initializer="ones", bias_initializer="zeros")])
    inp = k.Input(shape=(), dtype="string")
    ids = L.StringLookup(vocabulary=["a", "b"])(inp)
    emb = L.Embedding(4, 2, embeddings_initializer="ones")(ids)
    func = k.Model(inp, emb)
    num = k.Input(shape=(2,))
    norm = L.Normalization(mean=[1.0, 2.0], variance=[4.0, 1.0])
    out = L.Dense(1, kernel_initializer="ones")(norm(num))
    nmodel = k.Model(num, out)
    hin = k.Input(shape=(2,), dtype="int64")
    hashed = L.Hashing(num_bins=5, output_mode="count")(hin)
    hmodel = k.Model(hin, hashed)
    seq_in = k.Input(shape=(), dtype="string")
    seq_out = L.TextVectorization(vocabulary=["a", "b"], output_sequence_length=4)(seq_in)
    smodel = k.Model(seq_in, seq_out)
    ilookup = L.IntegerLookup(vocabulary=[3, 4], output_mode="one_hot")
    iin = k.Input(shape=(), dtype="int64")
    imodel = k.Model(iin, ilookup(iin))
    return [model(tf.constant([["the fox"], ["cat dog"]])), model.output_shape, func(tf.constant(["a", "c"])),
            func.output_shape, ids.dtype, nmodel(np.array([[3.0, 3.0]])), hmodel(np.array([[1, 2], [3, 3]])),
            hashed.shape, hashed.dtype, smodel(tf.constant(["a b a", "b"])), seq_out.shape, seq_out.dtype,
            imodel(np.array([3, 4, 5])), imodel.output_shape,
            model.predict(tf.constant([["the the dog"]]), verbose=0)]


@case
def layers_in_dataset_maps(tf):
    L = _k(tf)
    vec = L.TextVectorization(vocabulary=["the", "fox", "dog"], output_sequence_length=3)
    ds = tf.data.Dataset.from_tensor_slices((_TEXT, [0, 1, 0])).batch(2)
    mapped = ds.map(lambda x, y: (vec(x), y))
    lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")
    ds2 = tf.data.Dataset.from_tensor_slices(["a", "b", "q"]).map(lookup)
    norm = L.Normalization(mean=1.0, variance=4.0)
    ds3 = tf.data.Dataset.from_tensor_slices(np.arange(4.0).reshape(2, 2)).map(norm)
    hashing = L.Hashing(num_bins=8)
    ds4 = tf.data.Dataset.from_tensor_slices([["x", "y"], ["z", "w"]]).map(hashing)
    ragged = L.TextVectorization(vocabulary=["the", "fox"], ragged=True)
    ds5 = tf.data.Dataset.from_tensor_slices(_TEXT).batch(3).map(ragged)
    ilookup = L.IntegerLookup(vocabulary=[7, 8])
    ds6 = tf.data.Dataset.from_tensor_slices(np.array([7, 9, 8])).batch(2).map(ilookup)
    return [list(mapped), mapped.element_spec, list(ds2), ds2.element_spec, list(ds3), list(ds4), list(ds5),
            ds5.element_spec, list(ds6)]


@case
def layers_in_tf_function(tf):
    L = _k(tf)
    lookup = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=2)
    vec = L.TextVectorization(vocabulary=["x", "y"], output_mode="count")
    norm = L.Normalization(mean=[1.0], variance=[4.0])
    norm.build((None, 1))

    @tf.function
    def f(s, t, n):
        return lookup(s), vec(t), norm(n)

    return [f(tf.constant(["a", "c", "b"]), tf.constant(["x y x", "z"]), tf.constant([[3.0], [5.0]])),
            f(tf.constant(["q"]), tf.constant(["y"]), tf.constant([[1.0]]))]


@case
def layers_in_fit_and_summary(tf):
    L = _k(tf)
    texts = ["good movie", "bad movie", "great fun", "awful plot", "good fun", "bad bad"]
    labels = np.array([1, 0, 1, 0, 1, 0], "float32")
    vec = L.TextVectorization(max_tokens=20, output_sequence_length=4)
    vec.adapt(texts)
    model = tf.keras.Sequential([tf.keras.Input(shape=(), dtype="string"), vec,
                                 L.Embedding(20, 3, embeddings_initializer="ones"), L.GlobalAveragePooling1D(),
                                 L.Dense(1, kernel_initializer="ones", activation="sigmoid")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="binary_crossentropy")
    history = model.fit(tf.data.Dataset.from_tensor_slices((texts, labels)).batch(4), epochs=2, verbose=0,
                        shuffle=False)
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line))
    norm = L.Normalization()
    x = np.arange(12.0).reshape(6, 2).astype("float32")
    norm.adapt(x)
    m2 = tf.keras.Sequential([tf.keras.Input(shape=(2,)), norm, L.Dense(1, kernel_initializer="ones")])
    m2.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    h2 = m2.fit(x, labels, epochs=2, batch_size=3, verbose=0, shuffle=False)
    m3 = tf.keras.Sequential([tf.keras.Input(shape=(1,), dtype="string"),
                              L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot"),
                              L.Dense(1, kernel_initializer="ones")])
    # (losses as float32: the last bits of a float32 loss are not the layers' business)
    return [np.float32(history.history["loss"]), model.predict(tf.constant(["good fun", "bad"]), verbose=0),
            "\n".join(lines), np.float32(h2.history["loss"]), m2.predict(x[:2], verbose=0),
            m3.predict(tf.constant([["a"], ["q"]]), verbose=0), np.float32(m2.evaluate(x, labels, verbose=0))]


@case
def layers_traced_for_any_batch(tf):
    L = _k(tf)
    spec = tf.TensorSpec([None], tf.string)
    vec = L.TextVectorization(vocabulary=["the", "fox", "dog"])
    ragged = L.TextVectorization(vocabulary=["the", "fox", "dog"], ragged=True)
    counts = L.TextVectorization(vocabulary=["the", "fox", "dog"], output_mode="count", ngrams=2)
    lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot")
    hashing = L.Hashing(num_bins=5, salt=3)
    shapes = []

    @tf.function(input_signature=[spec])
    def f(x):
        out = [vec(x), ragged(x), counts(x), lookup(tf.strings.split(x)), hashing(x)]
        shapes.append([o.shape for o in out])
        return out

    # (batch sizes that no size in the layers equals: tapeflow traces again where a constant coincides with one)
    first = f(tf.constant(["the fox", "a dog the dog", "fox", "", "b a b", "the", "dog dog"]))
    second = f(tf.constant(["dog", "fox the", "the the fox dog", "", "a", "b", "a fox", "the a", "x y z"]))
    def split_lookup(x):
        return lookup(tf.strings.split(x))

    ds = tf.data.Dataset.from_tensor_slices(_TEXT + ["dog"]).batch(3)
    looked_up = ds.map(split_lookup)
    return [first, second, shapes, list(ds.map(vec)), ds.map(vec).element_spec, ds.map(counts).element_spec,
            list(looked_up), looked_up.element_spec]


@case
def lookups_of_tensors_and_invert_masks(tf):
    L = _k(tf)
    s = L.StringLookup(vocabulary=tf.constant(["x", "y", "z"]))
    i = L.IntegerLookup(vocabulary=[7, 8], invert=True, mask_token=0)
    j = L.IntegerLookup(vocabulary=[7, 8], mask_token=0, output_mode="multi_hot")
    k = L.IntegerLookup(vocabulary=tf.constant([4, 5], tf.int64), num_oov_indices=2, mask_token=-5)
    return [s(["z", "x", "w"]), s.get_vocabulary(), s.get_config()["vocabulary"], i([0, 1, 2, 3, 4]),
            i.get_vocabulary(), j([[0, 7, 7], [8, 1, 0]]), j.get_vocabulary(), k([4, 5, -5, 6, 7]),
            k.get_vocabulary()]

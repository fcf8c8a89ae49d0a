"""tf.strings beyond the golden cases: the cases TensorFlow answers with a RaggedTensor (not in tapeflow yet) say
so, the hash functions give their published reference values, and the namespace loads on first use."""

import pytest

import tapeflow as tf
from tapeflow.ops.string_hash import fingerprint64, murmur64, siphash24


@pytest.mark.parametrize("call,rows", [
    (lambda: tf.strings.split(["a b", "c"]), [[b"a", b"b"], [b"c"]]),
    (lambda: tf.strings.bytes_split(["ab"]), [[b"a", b"b"]]),
    (lambda: tf.strings.unicode_decode(["ab"], "UTF-8"), [[97, 98]]),
    (lambda: tf.strings.unicode_split([["ab"]], "UTF-8"), [[[b"a", b"b"]]]),
])
def test_vectors_of_strings_give_ragged_rows(call, rows):
    out = call()
    assert isinstance(out, tf.RaggedTensor) and out.to_list() == rows


def test_malformed_input_raises_before_the_ragged_result():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
        tf.strings.unicode_decode([b"a\xff"], "UTF-8", errors="strict")


def test_siphash_reference_vector():
    # the reference implementation's vectors: key 00..0f, messages 00..(n-1)
    key = bytes(range(16))
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    assert siphash24(k0, k1, b"") == 0x726FDB47DD0E0E31
    assert siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5


def test_hashes_are_64_bit_and_deterministic():
    for s in [b"", b"a", b"x" * 17, b"y" * 100]:
        for h in (fingerprint64(s), murmur64(s), siphash24(1, 2, s)):
            assert 0 <= h < 2**64
        assert fingerprint64(s) == fingerprint64(bytes(s))


def test_strings_namespace_is_lazy_and_complete():
    assert "strings" in dir(tf)
    names = {"as_string", "bytes_split", "format", "join", "length", "lower", "ngrams", "reduce_join",
             "regex_full_match", "regex_replace", "split", "strip", "substr", "to_hash_bucket",
             "to_hash_bucket_fast", "to_hash_bucket_strong", "to_number", "unicode_decode",
             "unicode_decode_with_offsets", "unicode_encode", "unicode_split", "unicode_split_with_offsets",
             "unicode_transcode", "upper"}
    assert names <= set(tf.strings.__all__)
    assert tf.io.encode_base64 is tf.io.encode_base64 and callable(tf.io.decode_base64)


def test_string_ops_carry_no_gradient():
    x = tf.constant([1.5, 2.25])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.strings.to_number(tf.strings.as_string(x)) * x
    assert tape.gradient(y, x).numpy().tolist() == [1.5, 2.25]

"""Op database entries for the string ops (``tf.strings``, ``tf.io.encode_base64``/``decode_base64``). None has a
gradient. The samples are floats, made strings by ``tf.strings.as_string`` (the ``AsString`` entry) with two
decimals, so that every op runs on strings computed from the sample (and a traced function on other values sees
other strings); the references build the same text with Python's ``%`` formatting.

The hash entries compare with tapeflow's own FarmHash, SipHash and MurmurHash functions: their values against
TensorFlow's are checked by the golden case ``strings::hash_buckets``."""

from __future__ import annotations

import base64

import numpy as np

import tapeflow as tf
from tapeflow.ops.string_hash import fingerprint64, murmur64, siphash24

from .common import *  # noqa: F403
from .printing import _text


def _s(x):
    return tf.strings.as_string(x, precision=2)


def _np_s(x, spec="%.2f"):
    out = np.empty(x.shape, dtype=object)
    out.reshape(-1)[:] = [(spec % float(v)).encode() for v in x.reshape(-1)] if x.size else []
    return out if x.ndim else out[()]


def _map(fn, arr, dtype=object):
    arr = np.asarray(arr, dtype=object)
    out = np.empty(arr.shape, dtype=dtype)
    out.reshape(-1)[:] = [fn(v) for v in arr.reshape(-1)]
    return out if arr.ndim else out[()]


def _joined(x, sep=b" "):
    return sep.join(_np_s(x).reshape(-1))


_MATRIX = ((2, 3),)
_VECTOR = ((4,),)


def _one(name, fn, ref, shapes=_MATRIX, sample="matrix", note="", gen=None):
    op(name, fn, ref, [make_sample(name, sample, ((gen or uniform()),), shapes)], False, note=note)


_one("AsString", _s, _np_s, note="tf.strings.as_string (precision=2)")
_one("StringLength", lambda x: tf.strings.length(_s(x)), lambda x: _map(len, _np_s(x), np.int32))
_one("StringJoin", lambda x: tf.strings.join([_s(x), "=", _s(x)], separator="|"),
     lambda x: _map(lambda s: s + b"|=|" + s, _np_s(x)))
_one("ReduceJoin", lambda x: tf.strings.reduce_join(_s(x), axis=1, separator=","),
     lambda x: np.array([b",".join(r) for r in _np_s(x)], dtype=object))
_one("StringUpper", lambda x: tf.strings.upper(tf.strings.as_string(x, precision=2, scientific=True)),
     lambda x: _np_s(x, "%.2E"))
_one("StringLower", lambda x: tf.strings.lower(tf.strings.upper(tf.strings.as_string(x, precision=2, scientific=True))),
     lambda x: _np_s(x, "%.2e"))
_one("StringStrip", lambda x: tf.strings.strip(tf.strings.as_string(x, precision=2, width=12)), _np_s)
_one("EncodeBase64", lambda x: tf.io.encode_base64(_s(x)),
     lambda x: _map(lambda s: base64.urlsafe_b64encode(s).rstrip(b"="), _np_s(x)))
_one("DecodeBase64", lambda x: tf.io.decode_base64(tf.io.encode_base64(_s(x), pad=True)), _np_s)
_one("Substr", lambda x: tf.strings.substr(_s(x), 0, 3), lambda x: _map(lambda s: s[:3], _np_s(x)))
_one("StringToNumber", lambda x: tf.strings.to_number(_s(x), out_type=tf.float64),
     lambda x: _map(float, _np_s(x), np.float64), note="tf.strings.to_number (of the sample's text)")
_one("StringFormat", lambda x: tf.strings.format("v={}", [x]),
     lambda x: np.asarray(b"v=" + _text(x, 3).encode(), dtype=object)[()])
_one("StringNGrams", lambda x: tf.strings.ngrams(_s(x), 2, separator="+"),
     lambda x: np.array([a + b"+" + b for a, b in zip(_np_s(x)[:-1], _np_s(x)[1:])], dtype=object),
     _VECTOR, "vector")
_one("StaticRegexFullMatch", lambda x: tf.strings.regex_full_match(_s(x), "-.*"),
     lambda x: _map(lambda s: s.startswith(b"-"), _np_s(x), bool))
_one("RegexFullMatch", lambda x: tf.strings.regex_full_match(_s(x), tf.constant("-.*")),
     lambda x: _map(lambda s: s.startswith(b"-"), _np_s(x), bool))
_one("StaticRegexReplace", lambda x: tf.strings.regex_replace(_s(x), r"\.(\d)", r",\1"),
     lambda x: _map(lambda s: s.replace(b".", b","), _np_s(x)))
_one("RegexReplace", lambda x: tf.strings.regex_replace(_s(x), tf.constant(r"\."), tf.constant(",")),
     lambda x: _map(lambda s: s.replace(b".", b","), _np_s(x)))
_one("StringToHashBucketFast", lambda x: tf.strings.to_hash_bucket_fast(_s(x), 1000),
     lambda x: _map(lambda s: fingerprint64(s) % 1000, _np_s(x), np.int64))
_one("StringToHashBucketStrong", lambda x: tf.strings.to_hash_bucket_strong(_s(x), 1000, [3, 4]),
     lambda x: _map(lambda s: siphash24(3, 4, s) % 1000, _np_s(x), np.int64))
_one("StringToHashBucket", lambda x: tf.strings.to_hash_bucket(_s(x), 1000),
     lambda x: _map(lambda s: murmur64(s) % 1000, _np_s(x), np.int64))
_one("StringSplitV2", lambda x: tf.strings.split(tf.strings.reduce_join(_s(x), separator=" ")), _np_s,
     _VECTOR, "vector", note="tf.strings.split of a scalar (the sample's text joined)")
_one("StringSplit", lambda x: tf.strings.bytes_split(tf.strings.reduce_join(_s(x))),
     lambda x: np.array([bytes([b]) for b in _joined(x, b"")], dtype=object), _VECTOR, "vector",
     note="tf.strings.bytes_split of a scalar (the sample's text joined)")
_one("UnicodeDecode", lambda x: tf.strings.unicode_decode(tf.strings.reduce_join(_s(x), separator="é"), "UTF-8"),
     lambda x: np.array([ord(c) for c in _joined(x, "é".encode()).decode()], np.int32), _VECTOR, "vector")
_one("UnicodeDecodeWithOffsets",
     lambda x: list(tf.strings.unicode_decode_with_offsets(tf.strings.reduce_join(_s(x), separator="é"), "UTF-8")),
     lambda x: [np.array([ord(c) for c in _joined(x, "é".encode()).decode()], np.int32),
                np.cumsum([0] + [len(c.encode()) for c in _joined(x, "é".encode()).decode()][:-1]).astype(np.int64)],
     _VECTOR, "vector")
_one("UnicodeEncode", lambda x: tf.strings.unicode_encode(tf.cast(tf.round(tf.abs(x) * 100.0) + 65.0, tf.int32),
                                                          "UTF-8"),
     lambda x: np.array(["".join(chr(int(c)) for c in r).encode() for r in np.round(np.abs(x) * 100.0) + 65.0],
                        dtype=object))
_one("UnicodeTranscode", lambda x: tf.strings.unicode_transcode(_s(x), "UTF-8", "UTF-16-BE"),
     lambda x: _map(lambda s: s.decode().encode("utf-16-be"), _np_s(x)))


def _np_segment_join(x):
    rows, ids = _np_s(x), [2, 0, 2]
    out = np.empty((4, rows.shape[1]), dtype=object)
    for k in range(4):
        for j in range(rows.shape[1]):
            out[k, j] = b",".join(rows[i, j] for i in range(len(ids)) if ids[i] == k)
    return out


op("UnsortedSegmentJoin", lambda x: tf.strings.unsorted_segment_join(_s(x), [2, 0, 2], 4, separator=","),
   _np_segment_join, [make_sample("UnsortedSegmentJoin", "rows", (uniform(),), ((3, 2),))], False)
op("DecodeRaw", lambda x: tf.io.decode_raw(_s(x), tf.uint8),
   lambda x: np.array([list(s) for s in _np_s(x).reshape(-1)], np.uint8).reshape(x.shape + (-1,)),
   [make_sample("DecodeRaw", "vector", (uniform(1.0, 2.0),), ((3,),))], False,
   note="values in [1, 2) print with one length, as decode_raw needs")
op("DecodePaddedRaw", lambda x: tf.io.decode_raw(_s(x), tf.uint8, fixed_length=6),
   lambda x: np.array([list(s[:6].ljust(6, b"\0")) for s in _np_s(x).reshape(-1)], np.uint8).reshape(x.shape + (6,)),
   [make_sample("DecodePaddedRaw", "vector", (uniform(),), ((3,),))], False)

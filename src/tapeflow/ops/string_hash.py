"""String hashing into buckets: ``tf.strings.to_hash_bucket_fast``, ``to_hash_bucket_strong`` and
``to_hash_bucket``, bit for bit as TensorFlow hashes.

* ``to_hash_bucket_fast`` (``StringToHashBucketFast``) takes Google's FarmHash ``Fingerprint64``, the 64-bit hash
  of FarmHash's "na" family, whose value is fixed for all time;
* ``to_hash_bucket_strong`` (``StringToHashBucketStrong``) takes SipHash-2-4 keyed with the two 64-bit ``key``
  words;
* ``to_hash_bucket`` (``StringToHashBucket``, deprecated in TF) takes TF's own ``Hash64``: MurmurHash2's 64-bit
  variant (MurmurHash64A) with TF's seed ``0xDECAFCAFFE``.

Each is written here from its published algorithm, on Python integers kept to 64 bits; the bucket is the unsigned
hash modulo ``num_buckets``.
"""

from __future__ import annotations

import struct

import numpy as np

from .._core import errors
from .._core.exports import export
from .._core.registry import defop
from ._strings import attr_min_error, call, fail, fast, run, string_tensor, strings_of

__all__ = ["fingerprint64", "siphash24", "murmur64", "to_hash_bucket_fast", "to_hash_bucket_strong",
           "to_hash_bucket"]

M64 = (1 << 64) - 1

# ------------------------------------------------------------------------------------------ FarmHash (na)

_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _u64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _u32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, r):
    return v if r == 0 else ((v >> r) | (v << (64 - r))) & M64


def _shift_mix(v):
    return v ^ (v >> 47)


def _len16(u, v, mul):
    a = ((u ^ v) * mul) & M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & M64
    b ^= b >> 47
    return (b * mul) & M64


def _len0to16(s):
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(s, 0) + _K2) & M64
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & M64
        d = ((_rot(a, 25) + b) * mul) & M64
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _len16(n + (_u32(s, 0) << 3), _u32(s, n - 4), mul)
    if n:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & M64) * _K2) & M64
    return _K2


def _len17to32(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K1) & M64
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & M64
    d = (_u64(s, n - 16) * _K2) & M64
    return _len16((_rot((a + b) & M64, 43) + _rot(c, 30) + d) & M64, (a + _rot((b + _K2) & M64, 18) + c) & M64, mul)


def _len33to64(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K2) & M64
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & M64
    d = (_u64(s, n - 16) * _K2) & M64
    y = (_rot((a + b) & M64, 43) + _rot(c, 30) + d) & M64
    z = _len16(y, (a + _rot((b + _K2) & M64, 18) + c) & M64, mul)
    e = (_u64(s, 16) * mul) & M64
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & M64
    h = ((z + _u64(s, n - 24)) * mul) & M64
    return _len16((_rot((e + f) & M64, 43) + _rot(g, 30) + h) & M64, (e + _rot((f + a) & M64, 18) + g) & M64, mul)


def _weak32(s, i, a, b):
    """FarmHash's WeakHashLen32WithSeeds over the 32 bytes at ``s[i:]``."""
    w, x, y, z = _u64(s, i), _u64(s, i + 8), _u64(s, i + 16), _u64(s, i + 24)
    a = (a + w) & M64
    b = _rot((b + a + z) & M64, 21)
    c = a
    a = (a + x + y) & M64
    b = (b + _rot(a, 44)) & M64
    return (a + z) & M64, (b + c) & M64


def fingerprint64(s):
    """FarmHash's ``Fingerprint64`` of the bytes ``s`` (an int below 2**64)."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & M64
    z = (_shift_mix((y * _K2 + 113) & M64) * _K2) & M64
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _u64(s, 0)) & M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v0 + _u64(s, i + 8)) & M64, 37) * _K1) & M64
        y = (_rot((y + v1 + _u64(s, i + 48)) & M64, 42) * _K1) & M64
        x ^= w1
        y = (y + v0 + _u64(s, i + 40)) & M64
        z = (_rot((z + w0) & M64, 33) * _K1) & M64
        v0, v1 = _weak32(s, i, (v1 * _K1) & M64, (x + w0) & M64)
        w0, w1 = _weak32(s, i + 32, (z + w1) & M64, (y + _u64(s, i + 16)) & M64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & M64
    v0 = (v0 + w0) & M64
    w0 = (w0 + v0) & M64
    x = (_rot((x + y + v0 + _u64(s, i + 8)) & M64, 37) * mul) & M64
    y = (_rot((y + v1 + _u64(s, i + 48)) & M64, 42) * mul) & M64
    x ^= (w1 * 9) & M64
    y = (y + v0 * 9 + _u64(s, i + 40)) & M64
    z = (_rot((z + w0) & M64, 33) * mul) & M64
    v0, v1 = _weak32(s, i, (v1 * mul) & M64, (x + w0) & M64)
    w0, w1 = _weak32(s, i + 32, (z + w1) & M64, (y + _u64(s, i + 16)) & M64)
    z, x = x, z
    return _len16((_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z) & M64, (_len16(v1, w1, mul) + x) & M64, mul)


# ------------------------------------------------------------------------------------------ SipHash-2-4


def _sip_round(v0, v1, v2, v3):
    v0 = (v0 + v1) & M64
    v1 = _rot(v1, 64 - 13) ^ v0
    v0 = _rot(v0, 64 - 32)
    v2 = (v2 + v3) & M64
    v3 = _rot(v3, 64 - 16) ^ v2
    v0 = (v0 + v3) & M64
    v3 = _rot(v3, 64 - 21) ^ v0
    v2 = (v2 + v1) & M64
    v1 = _rot(v1, 64 - 17) ^ v2
    v2 = _rot(v2, 64 - 32)
    return v0, v1, v2, v3


def siphash24(k0, k1, s):
    """SipHash-2-4 of the bytes ``s`` under the key words ``k0``, ``k1`` (ints below 2**64)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    n = len(s)
    tail = s[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xFF])
    for m in [_u64(s, i) for i in range(0, n - n % 8, 8)] + [_u64(tail, 0)]:
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


# ------------------------------------------------------------------------------------------ MurmurHash64A

_MURMUR_M = 0xC6A4A7935BD1E995


def murmur64(s, seed=0xDECAFCAFFE):
    """MurmurHash64A of the bytes ``s`` with ``seed`` (TF's ``Hash64``)."""
    n = len(s)
    h = (seed ^ (n * _MURMUR_M)) & M64
    whole = n - n % 8
    for i in range(0, whole, 8):
        k = (_u64(s, i) * _MURMUR_M) & M64
        k ^= k >> 47
        h = ((h ^ ((k * _MURMUR_M) & M64)) * _MURMUR_M) & M64
    if n % 8:
        h = ((h ^ int.from_bytes(s[whole:], "little")) * _MURMUR_M) & M64
    h ^= h >> 47
    h = (h * _MURMUR_M) & M64
    return h ^ (h >> 47)


# ------------------------------------------------------------------------------------------ the ops


def _buckets(x, hash_fn, num_buckets):
    return np.array([hash_fn(s) % num_buckets for s in strings_of(x)], np.int64).reshape(np.shape(x))


@defop("StringToHashBucketFast", same_dtype=False)
def HASH_BUCKET_FAST(x, num_buckets):
    """Each string's FarmHash ``Fingerprint64`` modulo ``num_buckets``."""
    return _buckets(x, fingerprint64, num_buckets)


@defop("StringToHashBucketStrong", same_dtype=False)
def HASH_BUCKET_STRONG(x, num_buckets, key):
    """Each string's SipHash-2-4 under ``key`` modulo ``num_buckets``."""
    if len(key) != 2:
        raise errors.op_error("StringToHashBucketStrong", "Key must have 2 elements")
    k0, k1 = (k & M64 for k in key)
    return _buckets(x, lambda s: siphash24(k0, k1, s), num_buckets)


@defop("StringToHashBucket", same_dtype=False)
def HASH_BUCKET(x, num_buckets):
    """Each string's TF ``Hash64`` (MurmurHash64A) modulo ``num_buckets``."""
    return _buckets(x, murmur64, num_buckets)


def _hash_call(op, op_name, input, num_buckets, name, attrs=None):
    quick = fast(input)
    x = call(quick, name, string_tensor, input, op_name)
    if num_buckets < 1:
        call(quick, name, fail, attr_min_error(op_name, "num_buckets", num_buckets, 1))
    return run(op, (x,), {"num_buckets": int(num_buckets), **(attrs or {})}, quick, name)


@export("strings.to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string of ``input`` hashed into one of ``num_buckets`` buckets by FarmHash's ``Fingerprint64``
    (``tf.strings.to_hash_bucket_fast``): int64, the same on every machine and run."""
    return _hash_call(HASH_BUCKET_FAST, "StringToHashBucketFast", input, num_buckets, name)


@export("strings.to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string of ``input`` hashed into one of ``num_buckets`` buckets by SipHash-2-4 under ``key`` (a list of
    two ints), which makes the buckets hard to predict without the key (``tf.strings.to_hash_bucket_strong``)."""
    if not isinstance(key, (list, tuple)):
        raise TypeError(f"Expected list for 'key' argument to 'string_to_hash_bucket_strong' Op, not {key!r}.")
    words = []
    for k in key:
        k = int(k)
        if not -(1 << 63) <= k < (1 << 63):  # an int64 list attribute
            raise OverflowError("int too big to convert")
        words.append(k)
    return _hash_call(HASH_BUCKET_STRONG, "StringToHashBucketStrong", input, num_buckets, name,
                      {"key": tuple(words)})


@export("strings.to_hash_bucket")
def to_hash_bucket(input, num_buckets, name=None):
    """Each string of ``input`` hashed into one of ``num_buckets`` buckets by TF's ``Hash64``
    (``tf.strings.to_hash_bucket``, which TF deprecates for ``to_hash_bucket_fast``)."""
    return _hash_call(HASH_BUCKET, "StringToHashBucket", input, num_buckets, name)

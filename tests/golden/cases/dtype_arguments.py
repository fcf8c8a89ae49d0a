"""Ops that take a dtype argument, given each kind of dtype: the result's dtype and values, or
TF's error when the op (or its kernel) refuses the dtype. bfloat16 is left out: TF computes in it, tapeflow
refuses it on every path (``tests/test_bfloat16_refused.py``).

Random ops are reported by dtype and shape only (their values are NumPy's, not TF's).
"""

from tests.golden.harness import case, catch

DTYPES = ("int8", "uint8", "int16", "uint32", "int64", "bool", "string", "complex64", "float16", "float64")


def _each(tf, fn):
    return {d: catch(fn, getattr(tf, d)) for d in DTYPES}


def _kind(t):
    return [t.dtype, t.shape]


@case
def creation_dtypes(tf):
    x = tf.constant([1.0, 2.0])
    return {"zeros": _each(tf, lambda d: tf.zeros([2], d)), "ones": _each(tf, lambda d: tf.ones([2], d)),
            "zeros_like": _each(tf, lambda d: tf.zeros_like(x, d)),
            "ones_like": _each(tf, lambda d: tf.ones_like(x, d)),
            "eye": _each(tf, lambda d: tf.eye(2, dtype=d)), "range": _each(tf, lambda d: tf.range(3, dtype=d)),
            "one_hot": _each(tf, lambda d: tf.one_hot([0], 2, dtype=d)),
            "sequence_mask": _each(tf, lambda d: tf.sequence_mask([1], 2, dtype=d)),
            "fill": _each(tf, lambda d: tf.fill([2], tf.constant(1, d) if d != tf.string else "a")),
            "constant": _each(tf, lambda d: tf.constant(1, d)),
            "variable": _each(tf, lambda d: tf.Variable(1, dtype=d))}


@case
def output_type_dtypes(tf):
    x = tf.constant([1.0, 2.0])
    i8 = tf.ones([1, 1], tf.int8)
    return {"cast": _each(tf, lambda d: tf.cast(x, d)), "size": _each(tf, lambda d: tf.size(x, out_type=d)),
            "shape": _each(tf, lambda d: tf.shape(x, out_type=d)),
            "count_nonzero": _each(tf, lambda d: tf.math.count_nonzero(x, dtype=d)),
            "argmax": _each(tf, lambda d: tf.argmax(x, output_type=d)),
            "argmin": _each(tf, lambda d: tf.argmin(x, output_type=d)),
            "top_k": _each(tf, lambda d: tf.math.top_k(x, 1, index_type=d).indices),
            "matmul": _each(tf, lambda d: tf.linalg.matmul(i8, i8, output_type=d))}


@case
def random_dtypes(tf):
    return {"normal": _each(tf, lambda d: _kind(tf.random.normal([2], dtype=d))),
            "uniform": _each(tf, lambda d: _kind(tf.random.uniform([2], maxval=3, dtype=d))),
            "truncated_normal": _each(tf, lambda d: _kind(tf.random.truncated_normal([2], dtype=d))),
            "categorical": _each(tf, lambda d: _kind(tf.random.categorical([[1.0]], 1, dtype=d)))}

"""tf.debugging (check_numerics, the check-numerics mode, the assert_* family) and tf.test.compute_gradient.

The check-numerics mode's message is TF's eager report; tapeflow adds one ``tapeflow: op ... at file:line`` line
(and the empty line before it). ``_mode_error`` drops exactly that line, so the rest is compared word for word
(on TF the filter changes nothing).
"""

import numpy as np

from tests.golden.harness import Caught, case, catch


def _mode_error(tf, fn):
    tf.debugging.enable_check_numerics()
    try:
        out = catch(fn)
    finally:
        tf.debugging.disable_check_numerics()
    if isinstance(out, Caught):
        lines = out.message.split("\n")
        keep = []
        for line in lines:
            if line.startswith("  tapeflow: "):
                keep.pop()  # the blank line tapeflow puts before its own
                continue
            keep.append(line)
        return [out.type, "\n".join(keep)]
    return out


# ---- check_numerics ------------------------------------------------------------------------------------------


@case
def check_numerics_values(tf):
    c = tf.debugging.check_numerics
    return [c(tf.constant([1.0, 2.0]), "ok"), c(tf.constant([1.0, -3.0], tf.float64), "ok", name="zz"),
            c(tf.constant([1.5], tf.float16), "ok"), c([1.0, 2.0], "list")]


@case
def check_numerics_errors(tf):
    c = tf.debugging.check_numerics
    return [catch(c, tf.constant([1.0, np.nan, np.inf]), "bad"), catch(c, tf.constant([1.0, np.inf]), "bad"),
            catch(c, tf.constant([-np.inf], tf.float64), "neg"), catch(c, tf.constant(np.nan), "scalar"),
            catch(c, tf.constant([np.nan], tf.float16), "half"), catch(c, tf.constant([np.nan]), "nm", name="nm"),
            catch(c, [1.0, np.nan], "list"), catch(c, tf.constant([1, 2]), "int"),
            catch(c, tf.constant([1 + 1j]), "complex")]


@case
def check_numerics_gradient(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.debugging.check_numerics(x * 2.0, "fwd")
    good = t.gradient(y, x, output_gradients=tf.constant([1.0, 3.0]))
    bad = catch(t.gradient, y, x, output_gradients=tf.constant([1.0, np.nan]))
    return [y, good, bad]


@case
def assert_all_finite_cases(tf):
    f = tf.debugging.assert_all_finite
    return [f(tf.constant([1.0]), "m"), catch(f, tf.constant([1.0, np.nan]), "m"), catch(f, tf.constant([1]), "m")]


# ---- the check-numerics mode ----------------------------------------------------------------------------------


@case
def mode_forward_log(tf):
    return _mode_error(tf, lambda: tf.math.log(tf.constant([1.0, 0.0])))


@case
def mode_forward_scalar_and_binary(tf):
    return [_mode_error(tf, lambda: tf.math.log(tf.constant(0.0))),
            _mode_error(tf, lambda: tf.constant([1.0, 0.0], tf.float64) / 0.0),
            _mode_error(tf, lambda: tf.constant([1.0, np.nan]) * 1.0),
            _mode_error(tf, lambda: tf.exp(tf.constant([100.0], tf.float16)))]


@case
def mode_skips_safe_ops_and_non_float(tf):
    a = tf.constant([np.nan])
    return [_mode_error(tf, lambda: tf.identity(a)), _mode_error(tf, lambda: tf.reshape(a, [1, 1])),
            _mode_error(tf, lambda: tf.maximum(a, 1.0)), _mode_error(tf, lambda: tf.math.log(tf.constant([0j]))),
            _mode_error(tf, lambda: tf.constant([np.nan]))]


@case
def mode_check_numerics_keeps_its_own_error(tf):
    return _mode_error(tf, lambda: tf.debugging.check_numerics(tf.constant([np.nan]), "hello"))


@case
def mode_off_again(tf):
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()  # idempotent
    tf.debugging.disable_check_numerics()
    return tf.math.log(tf.constant([0.0, 1.0]))


# ---- assert_* -------------------------------------------------------------------------------------------------


@case
def binary_asserts(tf):
    d = tf.debugging
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.5, 3.0])
    return [d.assert_equal(x, x), catch(d.assert_equal, x, y), catch(d.assert_equal, x, y, message="hello"),
            catch(d.assert_equal, x, y, summarize=1), catch(d.assert_equal, x, y, summarize=-1),
            catch(d.assert_equal, x, y, summarize=0),
            catch(d.assert_equal, tf.range(10), tf.range(10) + 1),
            catch(d.assert_equal, tf.reshape(tf.range(12), [3, 4]), tf.zeros([3, 4], tf.int32)),
            catch(d.assert_equal, x, 1.0), catch(d.assert_equal, [1, 2], [1, 3]),
            catch(d.assert_equal, tf.constant(["a", "b"]), tf.constant(["a", "c"])),
            catch(d.assert_equal, tf.constant([True]), tf.constant([False])),
            catch(d.assert_equal, tf.constant([1, 2]), tf.constant([1.0, 3.0])),
            catch(d.assert_equal, tf.constant([1, 2]), tf.constant([1, 2, 3])),
            catch(d.assert_none_equal, x, y), d.assert_none_equal(x, x + 10.0), catch(d.assert_less, x, y),
            catch(d.assert_less_equal, y, x), d.assert_less_equal(x, y), catch(d.assert_greater, x, y),
            catch(d.assert_greater_equal, x, y), d.assert_greater_equal(y, x), catch(d.assert_equal, x, y, message="")]


@case
def top_level_asserts(tf):
    x = tf.constant([1.0, 2.0])
    return [catch(tf.assert_equal, x, 0.0), catch(tf.assert_less, x, 1.5), catch(tf.assert_greater, x, 1.5),
            catch(tf.assert_rank, x, 2), tf.assert_rank(x, 1)]


@case
def sign_asserts(tf):
    d = tf.debugging
    v = tf.constant([1.0, -1.0])
    big = tf.constant([-1.0, -2.0, -3.0, -4.0, 5.0])
    return [catch(d.assert_positive, v), d.assert_positive(tf.constant([1.0, 2.0])), catch(d.assert_negative, v),
            catch(d.assert_non_negative, v), catch(d.assert_non_positive, v, message="mm"),
            d.assert_positive(tf.constant([], tf.float32)), catch(d.assert_negative, big),
            catch(d.assert_negative, big, summarize=2), catch(d.assert_positive, tf.constant([0, 1])),
            catch(d.assert_non_negative, tf.constant(-2.0, tf.float64), message="scalar")]


@case
def near_asserts(tf):
    d = tf.debugging
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.5, 3.0])
    x64, y64 = tf.cast(x, tf.float64), tf.cast(y, tf.float64)
    return [d.assert_near(x, x + 1e-7), catch(d.assert_near, x, y),
            catch(d.assert_near, x64, y64, rtol=0.01, atol=0.1, message="m"),
            d.assert_near(x64, y64, atol=1.0), catch(d.assert_near, tf.constant([1, 2]), tf.constant([1, 2])),
            catch(d.assert_near, tf.range(5, dtype=tf.float32), tf.zeros([5]), summarize=4)]


@case
def static_asserts(tf):
    d = tf.debugging
    x = tf.constant([1.0, 2.0, 3.0])
    return [catch(d.assert_integer, x), d.assert_integer(tf.constant([1])), catch(d.assert_integer, x, message="mm"),
            catch(d.assert_scalar, x), d.assert_scalar(tf.constant(1.0)), catch(d.assert_scalar, x, message="mm"),
            catch(d.assert_rank, x, 2), d.assert_rank(x, 1), catch(d.assert_rank, x, 2, message="mm"),
            catch(d.assert_rank, x, tf.constant(2)), catch(d.assert_rank, x, tf.constant([2])),
            catch(d.assert_rank, x, tf.constant(1, tf.int64)),
            catch(d.assert_rank_at_least, x, 2), d.assert_rank_at_least(x, 0),
            catch(d.assert_rank_in, x, [0, 2]), d.assert_rank_in(x, (1, 2)), catch(d.assert_rank_in, x, [3]),
            catch(d.assert_type, x, tf.int32), d.assert_type(x, tf.float32),
            catch(d.assert_type, x, tf.int32, message="mm")]


@case
def iterables_and_kinds(tf):
    d = tf.debugging
    return [catch(d.assert_proper_iterable, "abc"), catch(d.assert_proper_iterable, np.array([1])),
            catch(d.assert_proper_iterable, 3), d.assert_proper_iterable([1, 2]),
            catch(d.assert_proper_iterable, b"ab"), d.assert_proper_iterable((1,)),
            d.is_numeric_tensor(tf.constant([1.0])), d.is_numeric_tensor(tf.constant(["a"])),
            d.is_numeric_tensor([1.0]), d.is_numeric_tensor(tf.constant([True])),
            d.is_numeric_tensor(tf.constant([1 + 1j])), d.is_numeric_tensor(tf.constant([1], tf.uint8))]


@case
def monotonic(tf):
    m = tf.math
    return [m.is_non_decreasing([1, 2, 2]), m.is_non_decreasing([1, 3, 2]), m.is_strictly_increasing([1, 2, 2]),
            m.is_strictly_increasing(tf.constant([[1.0, 2.0], [3.0, 4.0]])),
            m.is_non_decreasing(tf.constant([], tf.float32)), m.is_strictly_increasing(5),
            catch(m.is_strictly_increasing, tf.constant(["a"]))]


@case
def assert_and_same_float_dtype(tf):
    d = tf.debugging
    x = tf.constant([1.0, 2.0, 3.0])
    return [catch(d.Assert, False, [x, "hello", 3]), d.Assert(True, [x]),
            catch(d.Assert, tf.constant(False), ["a", x], summarize=1),
            catch(d.Assert, tf.constant(False), [tf.constant(2.5), x], summarize=-1),
            catch(tf.Assert, tf.reduce_all(x > 2.0), [x]),
            catch(d.assert_same_float_dtype, [x, tf.constant([1.0], tf.float64)]),
            d.assert_same_float_dtype([x, x]), d.assert_same_float_dtype(None),
            catch(d.assert_same_float_dtype, [tf.constant([1])]),
            catch(d.assert_same_float_dtype, [x], tf.float64), d.assert_same_float_dtype([None, x], tf.float32)]


@case
def assert_shapes_cases(tf):
    d = tf.debugging
    x, y = tf.zeros([2, 3]), tf.zeros([3, 4])
    s = tf.constant(1.0)
    return [d.assert_shapes([(x, ("N", "Q")), (y, ("Q", "D"))]),
            catch(d.assert_shapes, [(x, ("N", "Q")), (y, ("N", "D"))]),
            catch(d.assert_shapes, [(x, (2, 4))]), catch(d.assert_shapes, [(x, (2,))]),
            d.assert_shapes([(x, (..., 3)), (s, ()), (s, (1,))]),
            catch(d.assert_shapes, [(x, (..., 2))], message="mm"),
            catch(d.assert_shapes, [(x, (2, ...))]), catch(d.assert_shapes, [(x, 5)]),
            d.assert_shapes([(x, None), (y, (".", None))]), d.assert_shapes([(x, "NQ")]),
            catch(d.assert_shapes, [(tf.zeros([2, 3, 4]), ("*", 5))]), catch(d.assert_shapes, [(x, (1,))])]


# ---- tf.test.compute_gradient ---------------------------------------------------------------------------------


@case
def compute_gradient_polynomials_float32(tf):
    cg = tf.test.compute_gradient
    return [cg(lambda x: x * x, [1.0]), cg(lambda x, y: x * y, [tf.constant([1.0, 2.0]), tf.constant(3.0)]),
            cg(lambda x, y: y * 2.0, [tf.constant([1.0, 2.0]), tf.constant(3.0)]),
            cg(lambda x: tf.reduce_sum(x * x), [tf.constant([[1.0, 2.0]])]),
            cg(lambda a, b: tf.matmul(a, b), [tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [-1.0]])]),
            cg(lambda x: tf.gather(x, [0, 0, 2]), [tf.constant([1.0, 2.0, 3.0])])]


@case
def compute_gradient_float64_and_delta(tf):
    cg = tf.test.compute_gradient
    x = np.array([0.5, -1.25])
    return [cg(lambda v: tf.exp(v) * tf.sin(v), [x]), cg(lambda v: tf.tanh(v), [x], delta=1e-3),
            cg(lambda v: v * v, [np.array([1.0, 2.0])]), cg(lambda v: tf.sqrt(v), [tf.constant([4.0], tf.float64)])]


@case
def compute_gradient_complex(tf):
    cg = tf.test.compute_gradient
    return [cg(lambda x: x * x, [tf.constant([1 + 2j], tf.complex64)]),
            cg(lambda x: tf.math.real(x) * tf.math.imag(x), [tf.constant([1 + 2j, 3 - 1j], tf.complex128)]),
            cg(lambda x: tf.complex(x, 2.0 * x), [tf.constant([1.0, -1.0], tf.float64)])]


@case
def compute_gradient_other_dtypes_and_edges(tf):
    cg = tf.test.compute_gradient
    return [cg(lambda x: x * x, [tf.constant([1.0], tf.float16)]), cg(lambda x: x[:0], [tf.constant([1.0, 2.0])]),
            cg(lambda x: x * 2.0, [tf.Variable([1.0])]), catch(cg, lambda x: x * x, [tf.constant([1])]),
            catch(cg, lambda x: tf.cast(x, tf.int32), [tf.constant([1.0])]),
            catch(cg, lambda x: x * 2, np.array([1.0])), catch(cg, lambda x: x, 3.0)]

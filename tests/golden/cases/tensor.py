"""Tensor and DType surface: dtypes, dtype inference, promotion rules, shapes, printing, operators, indexing.
"""

import numpy as np

from tests.golden.harness import case, catch

_DTYPE_NAMES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "bool", "string", "complex64", "complex128"]


def _dtypes(tf):
    return [getattr(tf, n) for n in _DTYPE_NAMES]


def _str_safe(tf, x):
    """The harness cannot encode non-scalar string arrays: show those as (dtype, shape, list of bytes)."""
    if isinstance(x, tf.Tensor) and x.dtype == tf.string and x.shape.rank:
        return ["string tensor", x.shape, x.numpy().tolist()]
    return x


# --------------------------------------------------------------------------------------------- dtypes


@case
def dtype_repr_str_name(tf):
    return [[repr(d), str(d), d.name] for d in _dtypes(tf)]


@case
def dtype_kind_predicates(tf):
    return {d.name: [d.is_floating, d.is_integer, d.is_complex, d.is_bool, d.is_unsigned]
            for d in _dtypes(tf)}


@case
def dtype_as_numpy_dtype(tf):
    return {d.name: repr(d.as_numpy_dtype) for d in _dtypes(tf)}


@case
def dtype_real_dtype_and_size(tf):
    return {d.name: [d.real_dtype, d.size] for d in _dtypes(tf)}


@case
def dtype_min_max(tf):
    out = {}
    for d in _dtypes(tf):
        lo, hi = catch(getattr, d, "min"), catch(getattr, d, "max")
        out[d.name] = [lo, hi, type(lo).__name__]
    return out


@case
def dtype_equality(tf):
    f32 = tf.float32
    return [f32 == "float32", f32 == "float64", f32 != "float32", f32 == np.float32,
            f32 == np.dtype("float32"), f32 == np.float64, f32 == tf.float32, f32 == tf.float64,
            f32 == float, tf.float64 == float, f32 == None, f32 == "not_a_type", f32 == 3,  # noqa: E711, E721
            tf.int32 == int, tf.bool == bool,  # noqa: E721
            f32 in [tf.float64, "float32"], isinstance(f32, tf.DType), tf.dtypes.float32 is tf.float32]


@case
def as_dtype_from_names(tf):
    names = ["float32", "float", "double", "half", "float64", "int32", "int", "int64", "long", "bool",
             "string", "complex64", "complex", "uint8", "float32_ref", "Float32"]
    return {n: catch(tf.as_dtype, n) for n in names}


@case
def as_dtype_from_numpy_and_python_types(tf):
    values = [np.float32, np.float64, np.int64, np.dtype("int16"), np.bool_, np.complex64, np.str_, np.bytes_,
              float, int, bool, complex, str, bytes, tf.float16]
    return [catch(tf.as_dtype, v) for v in values]


@case
def as_dtype_errors(tf):
    return [catch(tf.as_dtype, v) for v in ["foo", 3, None, 1.5, [1], object]]


# --------------------------------------------------------------------------------------------- inference


@case
def constant_infers_python_scalars(tf):
    return [tf.constant(v) for v in [1.5, 1, True, 1 + 2j, "ab", b"ab", 0.0, -7]]


@case
def constant_big_ints(tf):
    vals = [2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, 2**63, -2**63, 2**64, [1, 2**40], [2**63],
            [1, -2**63]]
    return [catch(tf.constant, v) for v in vals]


@case
def constant_mixed_lists(tf):
    vals = [[1, 2.5], [1, True], [True, False], [1, 1 + 1j], [1.5, True], [1, "a"], ["a", b"b"],
            [[1, 2], [3]], [], [[]], [1, None], [[1.0], [2.0]], [np.float64(1.0), 2],
            [np.float32(1.0), np.float64(2.0)]]
    return [_str_safe(tf, catch(tf.constant, v)) for v in vals]


@case
def constant_numpy_values(tf):
    vals = [np.float64(1.5), np.float32(1.5), np.float16(1.5), np.int64(3), np.int16(3), np.uint8(3),
            np.bool_(True), np.array(1), np.array([1]), np.array([1.0]), np.array([1.0], np.float32),
            np.array([1, 2], np.uint16), np.array(["a", "bc"]), np.array([b"x"]), np.array([1 + 2j])]
    return [_str_safe(tf, catch(tf.constant, v)) for v in vals]


@case
def constant_none_errors(tf):
    return [catch(tf.constant, None), catch(tf.convert_to_tensor, None), catch(tf.constant, [None, None])]


@case
def constant_with_dtype_conversions(tf):
    f64 = np.array([1.25, 2.5])
    return [tf.constant(1, dtype=tf.float32), tf.constant([1, 2], dtype=tf.float64),
            tf.constant(f64, tf.float32), tf.constant(f64, dtype=tf.int32), tf.constant(True, dtype=tf.int32),
            tf.constant(np.float64(2.7), dtype=tf.int32), tf.constant(np.array([0, 2]), dtype=tf.bool),
            tf.constant(3, dtype=tf.complex64), tf.constant(1e40, dtype=tf.float32),
            tf.constant(2.5, dtype="float64"), tf.constant(7, dtype=np.int8),
            tf.constant(0.1, dtype=tf.float16)]


@case
def constant_with_dtype_errors(tf):
    return [catch(tf.constant, 1.5, dtype=tf.int32), catch(tf.constant, 1.0, dtype=tf.int32),
            catch(tf.constant, [1, 2.5], dtype=tf.int32),
            catch(tf.constant, -1, dtype=tf.uint8), catch(tf.constant, 300, dtype=tf.int8),
            catch(tf.constant, 2**40, dtype=tf.int32), catch(tf.constant, "a", dtype=tf.float32),
            catch(tf.constant, 1.0, dtype=tf.string), catch(tf.constant, 1 + 2j, dtype=tf.float32),
            catch(tf.constant, 2, dtype=tf.bool), catch(tf.constant, 1, dtype=tf.bool),
            catch(tf.constant, 1.0, dtype="floaty")]


@case
def conversion_error_uses_c_type_names(tf):
    names = ["float16", "float32", "float64", "int8", "int64", "uint8", "complex64", "complex128", "bool"]
    return {n: catch(tf.constant, "a", dtype=getattr(tf, n)) for n in names}


@case
def constant_of_tensor_with_other_dtype(tf):
    t = tf.constant(1.5)
    return [catch(tf.constant, t), catch(tf.constant, t, dtype=tf.float64),
            catch(tf.constant, t, dtype=tf.int32)]


@case
def convert_to_tensor_dtype_rules(tf):
    f64 = tf.constant(1.0, dtype=tf.float64)
    conv = tf.convert_to_tensor
    return [conv([1, 2], dtype=tf.float32), conv(np.float64(2.0)), catch(conv, f64, dtype=tf.float32),
            catch(conv, 1.5, dtype=tf.int32), conv(f64, dtype=tf.float64) is f64, conv(f64) is f64,
            conv(3, dtype_hint=tf.float32), conv(3.5, dtype_hint=tf.int32), catch(conv, "x", dtype=tf.int32),
            conv(np.array([1.5]), dtype=tf.float32), catch(conv, tf.constant(1), dtype_hint=tf.float32)]


@case
def constant_shape_argument(tf):
    return [tf.constant(1.0, shape=[2, 3]), tf.constant([1, 2, 3, 4], shape=(2, 2)),
            catch(tf.constant, [1, 2, 3], shape=[2, 2]), catch(tf.constant, [1, 2], shape=[4])]


# --------------------------------------------------------------------------------------------- promotion


@case
def no_promotion_between_tensors(tf):
    f32, f64 = tf.constant(1.0), tf.constant(1.0, tf.float64)
    i32, i64 = tf.constant(1), tf.constant(1, tf.int64)
    ops = [lambda: f32 * f64, lambda: f32 + f64, lambda: i32 + f32, lambda: i32 - i64, lambda: f64 / f32,
           lambda: f32 / i32, lambda: i32 / f32, lambda: i32 // f32, lambda: f32 ** f64, lambda: f32 < f64,
           lambda: f32 == f64, lambda: i32 @ f32]
    return [catch(op) for op in ops]


@case
def python_scalar_converted_to_tensor_dtype(tf):
    f32, f64, i32, i64, f16 = (tf.constant(2.0), tf.constant(2.0, tf.float64), tf.constant(2),
                               tf.constant(2, tf.int64), tf.constant(2.0, tf.float16))
    return [f32 + 1, 1 + f32, f32 * 0.5, f64 + 1, i32 + 1, 3 - i32, i64 * 2, f16 + 1.5, f32 + True,
            catch(lambda: i32 * 2.0), catch(lambda: 2.5 + i32), catch(lambda: i32 + 2**40),
            catch(lambda: f32 + "a"), catch(lambda: f32 + 1j), catch(lambda: i32 + None)]


@case
def numpy_scalar_on_either_side(tf):
    f32, i32 = tf.constant(2.0), tf.constant(2)
    return [f32 + np.float64(1.5), np.float64(1.5) + f32, f32 * np.float32(3.0), np.int64(3) * i32,
            i32 + np.int64(3), catch(lambda: i32 + np.float64(1.5)), catch(lambda: np.float64(1.5) + i32),
            f32 + np.array([1.0, 2.0]), np.array([1.0, 2.0]) + f32, np.array([1, 2]) * i32]


@case
def division_dtypes(tf):
    ints = [tf.constant([7, -7], d) for d in (tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8)]
    out = [[a / tf.constant(2, a.dtype) for a in ints[:4]], ints[4] / tf.constant(2, tf.uint8)]
    i = tf.constant([7, -7])
    f = tf.constant([7.5, -7.5])
    out += [i // 2, i % 3, i / 2, 7 / i, i // -2, i % -3, f // 2, f % 2]
    return out


@case
def division_by_zero(tf):
    return [tf.constant([1.0, -1.0, 0.0]) / 0.0, catch(lambda: tf.constant(1) // 0), tf.constant(1) / 0,
            catch(lambda: tf.constant(1) % 0)]


@case
def power_int_negative_exponent(tf):
    return [tf.constant(2) ** 3, catch(lambda: tf.constant(2) ** -1), tf.constant(2.0) ** -1,
            2 ** tf.constant(3), tf.constant([-8.0]) ** (1 / 3)]


# --------------------------------------------------------------------------------------------- shape errors


@case
def broadcast_ok_and_errors(tf):
    a, b = tf.ones([2, 3]), tf.ones([3, 2])
    return [(a + tf.constant([1.0, 2.0, 3.0])).shape, (tf.ones([2, 1]) * tf.ones([1, 3])).shape,
            catch(lambda: a + b), catch(lambda: a * b), catch(lambda: a - b), catch(lambda: a / b),
            catch(lambda: a < b), catch(tf.maximum, a, b)]


@case
def matmul_shape_errors(tf):
    a = tf.ones([2, 3])
    return [catch(tf.matmul, a, a), catch(lambda: a @ a), catch(tf.matmul, tf.ones([3]), tf.ones([3])),
            catch(tf.matmul, a, tf.ones([3])), catch(tf.matmul, tf.ones([2, 2, 3]), tf.ones([3, 2, 2]))]


@case
def reshape_errors(tf):
    t = tf.range(6)
    return [catch(tf.reshape, t, [2, 4]), catch(tf.reshape, t, [-1, 4]), catch(tf.reshape, t, [-1, -1]),
            catch(tf.reshape, t, [2, 3, 1]), catch(tf.reshape, t, [0, -1])]


# --------------------------------------------------------------------------------------------- TensorShape


@case
def tensorshape_repr_str(tf):
    shapes = [tf.TensorShape([2, 3]), tf.TensorShape([]), tf.TensorShape(None), tf.TensorShape([None, 3]),
              tf.TensorShape([5]), tf.constant(1.0).shape, tf.zeros([2, 0]).shape]
    return [[repr(s), str(s)] for s in shapes]


@case
def tensorshape_as_list_rank_len(tf):
    s, u = tf.TensorShape([2, None, 4]), tf.TensorShape(None)
    return [s.as_list(), s.rank, s.ndims, len(s), catch(u.as_list), u.rank, catch(len, u), list(s),
            tf.TensorShape([]).as_list(), tf.TensorShape([]).rank]


@case
def tensorshape_indexing(tf):
    s = tf.zeros([2, 3, 4]).shape
    return [s[0], type(s[0]).__name__, s[-1], s[1:], s[::-1], catch(lambda: s[5]),
            tf.TensorShape([None, 2])[0], catch(lambda: tf.TensorShape(None)[0])]


@case
def tensorshape_equality(tf):
    s = tf.TensorShape([2, 3])
    n = tf.TensorShape([None, 3])
    return [s == (2, 3), s == [2, 3], s == tf.TensorShape([2, 3]), s == (3, 2), s != (2, 3), s == [2, 3, 1],
            n == n, n == tf.TensorShape([None, 3]), n == (2, 3), tf.TensorShape(None) == tf.TensorShape(None),
            tf.TensorShape([]) == (), s == "x", tuple(s) == (2, 3)]


@case
def tensorshape_num_elements_and_compat(tf):
    s, n, u = tf.TensorShape([2, 3]), tf.TensorShape([None, 3]), tf.TensorShape(None)
    return [s.num_elements(), n.num_elements(), u.num_elements(), tf.TensorShape([]).num_elements(),
            s.is_compatible_with(n), s.is_compatible_with([2, 4]), s.is_compatible_with(u),
            n.is_compatible_with([7, 3]), s.is_fully_defined(), n.is_fully_defined(), u.is_fully_defined(),
            s.is_compatible_with([2, 3, 1])]


@case
def tensor_shape_attribute_and_tf_shape(tf):
    t = tf.zeros([2, 3])
    return [t.shape, t.get_shape(), tf.shape(t), tf.rank(t), tf.size(t), t.shape.as_list(), t.ndim]


# --------------------------------------------------------------------------------------------- printing


@case
def print_float_scalars(tf):
    ts = [tf.constant(0.98), tf.constant(6.0), tf.constant(1e-8), tf.constant(0.1, tf.float64),
          tf.constant(1 / 3), tf.constant(float("nan")), tf.constant(-float("inf")), tf.constant(123456789.0)]
    return [[str(t), repr(t)] for t in ts]


@case
def print_int_bool_string_scalars(tf):
    ts = [tf.constant(3), tf.constant(3, tf.int64), tf.constant(3, tf.uint8), tf.constant(True),
          tf.constant("ab"), tf.constant(b"\xff"), tf.constant("")]
    return [[str(t), repr(t)] for t in ts]


@case
def print_vectors_and_matrices(tf):
    ts = [tf.constant([1.0, 2.0]), tf.constant([1.5, 2.25, 3.0]), tf.constant([1, 2]),
          tf.constant([[1, 2], [3, 4]]), tf.constant([[1.0, 2.5], [3.0, 4.0]]), tf.constant([True, False]),
          tf.constant([[True], [False]]),
          tf.constant(["a", "bc"]), tf.constant([[1.0]], tf.float64), tf.zeros([0]), tf.zeros([2, 0]),
          tf.reshape(tf.range(8), [2, 2, 2])]
    return [[str(t), repr(t)] for t in ts]


@case
def print_large_arrays(tf):
    ts = [tf.range(1001), tf.range(1000), tf.reshape(tf.range(10000.0), [100, 100]), tf.zeros([3, 400])]
    return [[str(t), repr(t)] for t in ts]


@case
def print_float16_and_complex(tf):
    ts = [tf.constant(0.1, tf.float16), tf.constant([0.1, 2.0], tf.float16), tf.constant(1 + 2j),
          tf.constant([1 + 2j, 3.5 - 1j], tf.complex64), tf.constant(1.5 - 0.5j, tf.complex64)]
    return [[str(t), repr(t)] for t in ts]


@case
def print_via_print_and_format(tf):
    t = tf.constant(2.5)
    return [f"{t}", format(t, ".2f"), "{:>8.3f}".format(t), catch(format, tf.constant([1.0, 2.0]), ".2f"),
            format(tf.constant([1.0, 2.0]), ""), catch(format, tf.constant(3), "d"), "%s" % t, "%.1f" % t]


# --------------------------------------------------------------------------------------------- misc


@case
def tensor_name_hash_setitem_errors(tf):
    t = tf.constant([1.0, 2.0])

    def setitem():
        t[0] = 5.0

    return [catch(lambda: t.name), catch(hash, t), catch(setitem), t]


@case
def tensor_bool(tf):
    return [bool(tf.constant(1.0)), bool(tf.constant(0)), bool(tf.constant([3])),
            catch(bool, tf.constant([1, 2])), catch(bool, tf.constant([])), bool(tf.constant(["a"]))]


@case
def tensor_len_and_iter(tf):
    return [len(tf.constant([1, 2, 3])), len(tf.zeros([4, 2])), catch(len, tf.constant(1.0)),
            list(tf.constant([1, 2])), list(tf.zeros([2, 2])), catch(iter, tf.constant(1.0)),
            len(tf.zeros([0, 3]))]


@case
def tensor_float_int_index(tf):
    return [float(tf.constant(2.5)), int(tf.constant(2.9)), int(tf.constant(-2.9)), float(tf.constant(3)),
            catch(float, tf.constant([1.0, 2.0])), catch(int, tf.constant([1])), [10, 20, 30][tf.constant(1)],
            list(range(tf.constant(3))), catch(lambda: [10, 20][tf.constant(1.0)]), complex(tf.constant(2.0)),
            catch(lambda: [10, 20][tf.constant([1])]), catch(float, tf.constant([2.5]))]


@case
def tensor_numpy_is_a_copy(tf):
    t = tf.constant([1.0, 2.0])
    a = t.numpy()
    a[0] = 99.0
    s = tf.constant(2.5).numpy()
    return [t, a, type(s).__name__, s, tf.constant("ab").numpy(), tf.constant(True).numpy(),
            tf.constant(3).numpy()]


@case
def tensor_ref_deref(tf):
    t, u = tf.constant(1.0), tf.constant(1.0)
    r = t.ref()
    d = {r: "t"}
    return [r.deref() is t, t.ref() == r, hash(t.ref()) == hash(r), u.ref() == r, d[t.ref()],
            len({r, t.ref()}), type(r).__name__]


@case
def tensor_ndim_device_dtype(tf):
    t = tf.zeros([2, 3])
    return [t.ndim, tf.constant(1).ndim, t.device, t.dtype, repr(t.dtype), type(t).__name__,
            isinstance(t, tf.Tensor), tf.is_tensor(t), tf.is_tensor(np.ones(2)), tf.is_tensor(1.0)]


# --------------------------------------------------------------------------------------------- operators


@case
def arithmetic_operators(tf):
    a, b = tf.constant([6.0, -7.5]), tf.constant([4.0, 2.0])
    return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, b ** a, -a, abs(a), 2 - a, 3 / b, 2 ** b,
            10 % b, 7 // b, catch(lambda: +a)]


@case
def matmul_operator(tf):
    a, b = tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[5.0], [6.0]])
    return [a @ b, tf.constant([[1, 2]]) @ tf.constant([[3], [4]]), a.__rmatmul__(a), np.eye(2) @ a]


@case
def bitwise_and_logical_operators(tf):
    p, q = tf.constant([True, True, False]), tf.constant([True, False, False])
    i, j = tf.constant([12, 10]), tf.constant([10, 6])
    return [p & q, p | q, p ^ q, ~p, p & True, False | q, catch(lambda: i & j), catch(lambda: i | j),
            catch(lambda: i ^ j), catch(lambda: ~i), catch(lambda: tf.constant([1.0]) & tf.constant([1.0])),
            catch(lambda: ~tf.constant(1.0))]


@case
def comparison_operators(tf):
    a, b = tf.constant([1.0, 2.0, 3.0]), tf.constant([3.0, 2.0, 1.0])
    return [a < b, a <= b, a > b, a >= b, a == b, a != b, a == 2.0, a != 2, 2.0 < a, a > 1, a == 2]


@case
def equality_with_mismatched_shapes_none_strings(tf):
    a = tf.constant([1.0, 2.0, 3.0])
    return [a == tf.constant([1.0, 2.0]), a != tf.constant([1.0, 2.0]), a == None, a != None,  # noqa: E711
            catch(lambda: a == "x"), catch(lambda: a != "x"), catch(lambda: a < tf.constant([1.0, 2.0])),
            tf.constant("ab") == "ab", tf.constant(["a", "b"]) == "a", a == [1.0, 2.0, 3.0],
            catch(lambda: a == [1.0, 2.0])]


@case
def tensor_equality_is_not_identity(tf):
    a = tf.constant([1.0])
    return [a == a, catch(lambda: [tf.constant(1.0)].index(tf.constant(1.0))),
            catch(lambda: a in [tf.constant(2.0)])]


# --------------------------------------------------------------------------------------------- indexing


@case
def index_ints_and_negative(tf):
    t = tf.reshape(tf.range(12), [3, 4])
    return [t[0], t[-1], t[1, 2], t[-1, -1], t[0][1], tf.constant([5, 6, 7])[2]]


@case
def index_slices_and_steps(tf):
    t = tf.range(10)
    m = tf.reshape(tf.range(12), [3, 4])
    return [t[2:5], t[::2], t[::-1], t[8:2:-2], t[-3:], t[5:100], t[7:3], m[:, 1], m[1:, ::-1], m[::-1, -1],
            t[:-11], t[-100:2]]


@case
def index_ellipsis_and_newaxis(tf):
    t = tf.reshape(tf.range(24), [2, 3, 4])
    return [t[..., 0], t[0, ...], t[..., 1, :], t[tf.newaxis].shape, t[:, tf.newaxis].shape,
            t[..., None].shape, tf.newaxis is None, tf.constant(5.0)[tf.newaxis], tf.constant(5.0)[...]]


@case
def index_with_scalar_int_tensor(tf):
    t = tf.constant([10, 20, 30])
    m = tf.reshape(tf.range(6), [2, 3])
    return [t[tf.constant(1)], t[tf.constant(-1)], t[tf.constant(1, tf.int64)], m[tf.constant(1), 2],
            t[tf.constant(0):tf.constant(2)], catch(lambda: t[tf.constant(1.0)]), t[np.int64(2)]]


@case
def index_list_and_array_errors(tf):
    t = tf.constant([10, 20, 30])
    return [catch(lambda: t[[0, 1]]), catch(lambda: t[np.array([0, 1])]),
            catch(lambda: t[tf.constant([0, 1])]), catch(lambda: t[t > 15]), catch(lambda: t[1.0]),
            catch(lambda: t["a"])]


@case
def index_out_of_range(tf):
    t = tf.constant([10, 20, 30])
    m = tf.zeros([2, 2])
    return [catch(lambda: t[3]), catch(lambda: t[-4]), catch(lambda: m[0, 5]),
            catch(lambda: tf.constant(1.0)[0]), catch(lambda: m[0, 0, 0])]


# --------------------------------------------------------------------------------------------- numpy interop


@case
def numpy_asarray_interop(tf):
    t = tf.constant([1.0, 2.0])
    return [np.asarray(t), np.array(t, dtype=np.float64), np.asarray(tf.constant(3)),
            np.asarray(tf.constant(["a"])).tolist(),
            t.__array__(), np.add(t, 1), np.sum(t), np.mean(tf.constant([1, 2])), np.square(t), np.exp(t),
            np.array([t, t]), np.float64(2.0) * t]


@case
def constant_sequence_kinds_in_order(tf):
    # The first leaf decides the kind and later leaves must fit it: [1j, 2.0] is complex, [2.0, 1j] is not.
    values = [[1 + 1j, 2.0], [2.0, 1 + 1j], [1j, 2], [True, 1j], [1, 2.5, 3j], [[1j], [2.0]], [None, 2], [2, None],
              ["a", 1], [1, "a"], [1j, True], [1j, 2, 2.5], [2.5, 1], [1, 2.5], [True, 1], [1, True], [True, 1.5],
              [1.5, True], [2**40, 1.5], [1j, 2**40], [2**40, 1j], [1, 1j]]
    return [catch(tf.constant, v) for v in values]


@case
def complex_from_parts(tf):
    x, y = tf.constant([1.0, 2.0]), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.complex(x, y)
        loss = tf.abs(z * z)
    out = [tf.complex(1.0, 2.0), tf.complex([1.0, 2.0], 3.0), z, tape.gradient(loss, [x, y]),
           tf.complex(tf.constant(1.0, tf.float64), tf.constant([2.0], tf.float64))]
    for a, b in [(1, 2), (1.0, np.float64(2)), (tf.constant(1.0, tf.float64), 2.0),
                 (tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))]:
        out.append(catch(tf.complex, a, b))
    return out


@case
def cast_strings_and_indexed_slices(tf):
    out = [catch(tf.cast, tf.constant("1"), d) for d in (tf.float32, tf.int32, tf.bool, tf.complex64, tf.string)]
    out.append(catch(tf.cast, tf.constant(1.0), tf.string))
    x = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([2, 2]))
    c, i = tf.cast(x, tf.float64), tf.identity(x)
    out += [tf.is_tensor(x), type(c).__name__, c.values, c.indices, type(i).__name__, i.values]
    return out

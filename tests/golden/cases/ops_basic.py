"""Foundation op set: values, dtypes and GradientTape gradients (float32, float64), plus dtype/shape errors.

Each gradient case returns ``{"float32": [y, [dy/dx...]], "float64": [...]}`` (a non-scalar ``y`` is summed
implicitly by ``tape.gradient``); when the function returns a list, each output gets its own tape and pair.
"""

import numpy as np

from tests.golden.harness import FLOAT_DTYPES, case, catch, grads_by_dtype, value_and_grads

X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
Y = [2.0, -1.0, 0.25]


# --------------------------------------------------------------------------------------------- arithmetic


@case
def add_sub_broadcast_grad(tf):
    return grads_by_dtype(tf, lambda a, b: [a + b, a - b, tf.add(a, b), tf.subtract(b, a)], X, Y)


@case
def mul_div_broadcast_grad(tf):
    return grads_by_dtype(tf, lambda a, b: [a * b, a / b, tf.multiply(a, b), tf.divide(b, a)], X, Y)


@case
def python_scalar_left_and_right_grad(tf):
    return grads_by_dtype(tf, lambda x: [x + 2, 2 + x, x - 2, 2 - x, x * 3, 3 * x, x / 4, 4 / x], [1.0, 2.0, -4.0])


@case
def negative_square_grad(tf):
    return grads_by_dtype(tf, lambda x: [-x, tf.negative(x), tf.square(x)], [1.5, -2.0, 0.0])


@case
def sqrt_exp_log_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.sqrt(x), tf.exp(x), tf.math.log(x)], [0.25, 1.0, 4.0])


@case
def sqrt_log_at_zero_and_negative(tf):
    return grads_by_dtype(tf, lambda x: [tf.sqrt(x), tf.math.log(x)], [0.0, -1.0])


@case
def abs_grad_including_zero(tf):
    return grads_by_dtype(tf, lambda x: [tf.abs(x), abs(x)], [-2.0, 0.0, 3.0])


@case
def pow_tensor_exponent_grad(tf):
    return grads_by_dtype(tf, lambda x, p: [tf.pow(x, p), x ** p], [2.0, 0.0, 3.0], [3.0, 2.0, 0.5])


@case
def pow_scalar_exponent_grad(tf):
    return grads_by_dtype(tf, lambda x: [x ** 2, x ** 0.5, x ** -1, tf.pow(x, 3), tf.pow(2.0, x), 2 ** x], [1.0, 4.0])


@case
def pow_negative_base_fractional_exponent(tf):
    return grads_by_dtype(tf, lambda x: x ** 0.5, [-4.0])


@case
def maximum_minimum_grad_with_ties(tf):
    return grads_by_dtype(tf, lambda a, b: [tf.maximum(a, b), tf.minimum(a, b)], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0])


@case
def maximum_minimum_broadcast_scalar(tf):
    return grads_by_dtype(tf, lambda a, b: [tf.maximum(a, b), tf.minimum(a, 0.5)], [[-1.0, 2.0], [0.5, 0.0]], 0.5)


# --------------------------------------------------------------------------------------------- matmul


@case
def matmul_2d_grad(tf):
    return grads_by_dtype(tf, lambda a, b: [tf.matmul(a, b), a @ b], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                          [[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])


@case
def matmul_transpose_flags_grad(tf):
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    b = [[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]]
    return grads_by_dtype(tf, lambda a, b: [tf.matmul(a, b, transpose_a=True), tf.matmul(a, b, transpose_b=True),
                                            tf.matmul(b, a, transpose_a=True, transpose_b=False)], a, b)


@case
def matmul_both_transposed_grad(tf):
    return grads_by_dtype(tf, lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
                          [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0], [2.0, -1.0], [0.5, 3.0]])


@case
def matmul_batched_grad(tf):
    a = np.arange(12.0).reshape(2, 2, 3)
    b = np.arange(6.0).reshape(2, 3, 1) - 2.0
    return grads_by_dtype(tf, lambda a, b: [tf.matmul(a, b), a @ b], a, b)


@case
def matmul_batched_broadcast_grad(tf):
    a = np.arange(12.0).reshape(2, 2, 3)
    b = [[1.0], [0.0], [-1.0]]
    return grads_by_dtype(tf, lambda a, b: tf.matmul(a, b), a, b)


@case
def matmul_int_and_dtype_errors(tf):
    i = tf.constant([[1, 2], [3, 4]])
    f = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [tf.matmul(i, i), catch(tf.matmul, i, f), catch(tf.matmul, f, i),
            catch(tf.matmul, f, tf.cast(f, tf.float64)), catch(tf.matmul, [[True]], [[True]])]


# --------------------------------------------------------------------------------------------- reductions


@case
def reduce_sum_axes_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_sum(x), tf.reduce_sum(x, 0), tf.reduce_sum(x, axis=-1),
                                         tf.reduce_sum(x, [0, 1]), tf.reduce_sum(x, 1, keepdims=True),
                                         tf.reduce_sum(x, axis=[-1, 0], keepdims=True)], X)


@case
def reduce_mean_axes_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_mean(x), tf.reduce_mean(x, 0), tf.reduce_mean(x, axis=-1),
                                         tf.reduce_mean(x, [0, 1]), tf.reduce_mean(x, 1, keepdims=True)], X)


@case
def reduce_max_min_axes_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reduce_max(x), tf.reduce_max(x, 0), tf.reduce_min(x, axis=-1),
                                         tf.reduce_min(x, [0, 1], keepdims=True)], X)


@case
def reduce_max_min_ties_split_gradient(tf):
    t = [[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]]
    return grads_by_dtype(tf, lambda x: [tf.reduce_max(x), tf.reduce_max(x, axis=1), tf.reduce_min(x, axis=1)], t)


@case
def reduce_on_int_and_bool_dtypes(tf):
    i = tf.constant([[1, 2], [4, 4]])
    return [tf.reduce_sum(i), tf.reduce_mean(i), tf.reduce_mean(i, 0), tf.reduce_max(i, 1), tf.reduce_min(i),
            tf.reduce_mean(tf.constant([1, 2], tf.int64)), catch(tf.reduce_sum, tf.constant([True, True])),
            tf.reduce_sum(tf.constant([1, 2], tf.uint8))]


@case
def reduce_empty_and_scalar(tf):
    e = tf.zeros([0])
    s = tf.constant(5.0)
    return [tf.reduce_sum(e), tf.reduce_mean(e), tf.reduce_max(e), tf.reduce_min(e), tf.reduce_sum(s),
            tf.reduce_mean(s, axis=[]), catch(tf.reduce_sum, s, 0)]


@case
def reduce_axis_out_of_range_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.reduce_sum, x, 2), catch(tf.reduce_mean, x, -3), catch(tf.reduce_max, x, [0, 5]),
            catch(tf.reduce_min, x, 2), catch(tf.reduce_sum, x, 1.0), catch(tf.reduce_sum, x, [0, 0])]


# --------------------------------------------------------------------------------------------- shapes


@case
def reshape_values_and_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.reshape(x, [3, 2]), tf.reshape(x, [-1]), tf.reshape(x, (1, -1, 2)) * 2.0,
                                         tf.reshape(x, [6, 1]) * tf.constant([[1.0]], x.dtype)], X)


@case
def reshape_shape_argument_kinds(tf):
    t = tf.range(6)
    return [tf.reshape(t, tf.constant([2, 3])).shape, tf.reshape(t, tf.TensorShape([3, 2])).shape,
            tf.reshape(tf.constant(5), [1, 1]).shape, tf.reshape(tf.constant([5]), []).shape,
            tf.reshape(tf.zeros([0, 3]), [-1]).shape, catch(tf.reshape, t, [2.0, 3.0])]


@case
def reshape_impossible_errors(tf):
    t = tf.range(6)
    return [catch(tf.reshape, t, [4, 2]), catch(tf.reshape, t, [-1, 5]), catch(tf.reshape, t, [-1, -1]),
            catch(tf.reshape, t, [-2, 3]), catch(tf.reshape, tf.zeros([0, 3]), [-1, 0])]


@case
def transpose_values_and_grad(tf):
    x3 = np.arange(24.0).reshape(2, 3, 4)
    w = np.arange(24.0).reshape(4, 3, 2)
    w2 = w.transpose(0, 2, 1)
    return [grads_by_dtype(tf, lambda x: [tf.transpose(x), tf.transpose(x, [1, 0])], X),
            grads_by_dtype(tf, lambda x: [tf.transpose(x, perm=[2, 0, 1]) * tf.constant(w2, x.dtype),
                                          tf.transpose(x) * tf.constant(w, x.dtype)], x3)]


@case
def transpose_bad_perm_errors(tf):
    x = tf.ones([2, 3])
    return [catch(tf.transpose, x, [0]), catch(tf.transpose, x, [0, 0]), catch(tf.transpose, x, [0, 2]),
            catch(tf.transpose, x, [1, 0, 2]), catch(tf.transpose, x, [-1, 0]),
            tf.transpose(tf.constant(1.0))]


# --------------------------------------------------------------------------------------------- cast


@case
def cast_float_int_bool(tf):
    f = tf.constant([-1.7, -0.5, 0.0, 0.5, 2.9])
    return [tf.cast(f, tf.int32), tf.cast(f, tf.bool), tf.cast(tf.constant([True, False]), tf.float32),
            tf.cast(tf.constant([3, -2]), tf.float32), tf.cast(tf.constant([3, 0]), tf.bool),
            tf.cast(tf.constant([300, -1]), tf.uint8), tf.cast(f, tf.int64), tf.cast(f, tf.float16),
            tf.cast(tf.constant([1e10]), tf.int32).dtype, tf.cast(f, "float64"), tf.cast([1, 2], tf.float32),
            tf.cast(3.7, tf.int32), tf.cast(np.array([1.5]), tf.float32)]


@case
def cast_float_precision_and_identity(tf):
    f = tf.constant(0.1)
    d = tf.constant(0.1, tf.float64)
    return [tf.cast(f, tf.float64), tf.cast(d, tf.float32), tf.cast(f, tf.float32) is f,
            repr(tf.cast(f, tf.float64))]


@case
def cast_gradient_through_float_casts(tf):
    other = {"float32": "float64", "float64": "float32"}
    return {d: value_and_grads(tf, lambda x, d=d: tf.cast(x, other[d]) ** 2, [1.5, -2.0], dtype=d)
            for d in FLOAT_DTYPES}


@case
def cast_gradient_through_int_is_none(tf):
    def through_int(x):
        return tf.cast(tf.cast(x, tf.int32), x.dtype)

    return grads_by_dtype(tf, lambda x: [through_int(x), through_int(x) * x], [1.5, -2.5])


# --------------------------------------------------------------------------------------------- creation


@case
def zeros_ones_fill(tf):
    return [tf.zeros([2, 3]), tf.zeros((2,), dtype=tf.int32), tf.zeros([]), tf.ones([2]),
            tf.ones([1, 2], tf.float64), tf.ones(3), tf.zeros(tf.constant([2])), tf.fill([2, 2], 7),
            tf.fill([2], 1.5), tf.fill([], True),
            tf.fill((1, 2), tf.constant(2.0, tf.float64)), tf.zeros([2], dtype="bool"), tf.zeros([0, 2])]


@case
def zeros_ones_errors(tf):
    return [catch(tf.zeros, [-1]), catch(tf.ones, [2.5]), catch(tf.fill, [2], None),
            catch(tf.zeros, [2], "floaty"), catch(tf.fill, 2, 1.0)]


@case
def range_variants(tf):
    return [tf.range(5), tf.range(2, 8), tf.range(1, 10, 3), tf.range(10, 0, -3), tf.range(0.0, 1.0, 0.25),
            tf.range(5, dtype=tf.float32), tf.range(3, dtype=tf.int64), tf.range(2.0, 4), tf.range(0),
            tf.range(start=1, limit=4, delta=1), tf.range(0, 1, 0.3), tf.range(2.5), tf.range(1, 2.5, 0.5),
            tf.range(tf.constant(3)), tf.range(4, dtype=tf.float64)]


@case
def range_errors(tf):
    return [catch(tf.range, 0, 5, 0), catch(tf.range, 0, 5, -1), catch(tf.range, 5, 0, 1),
            catch(tf.range, 5, 2), catch(tf.range, -2.5),
            catch(tf.range, 3, dtype=tf.bool), catch(tf.range, 2.5, dtype=tf.int32)]


@case
def zeros_like_ones_like(tf):
    f = tf.constant([[1.5, 2.0]])
    i = tf.constant([3, 4], tf.int64)
    return [tf.zeros_like(f), tf.ones_like(f), tf.zeros_like(i), tf.ones_like(i),
            tf.ones_like(f, dtype=tf.int32), tf.zeros_like([1.0, 2.0]), tf.ones_like(tf.constant(True)),
            tf.zeros_like(tf.Variable([1.0])),
            tf.ones_like(np.array([1, 2]))]


@case
def zeros_like_ones_like_grad_is_none(tf):
    return grads_by_dtype(tf, lambda x: [tf.zeros_like(x), tf.ones_like(x)], [1.0, 2.0])


# --------------------------------------------------------------------------------------------- aliases


@case
def math_aliases_are_the_same_functions(tf):
    names = [("add", "add"), ("subtract", "subtract"), ("multiply", "multiply"), ("divide", "divide"),
             ("negative", "negative"), ("square", "square"), ("sqrt", "sqrt"), ("exp", "exp"), ("abs", "abs"),
             ("pow", "pow"), ("maximum", "maximum"), ("minimum", "minimum"), ("reduce_sum", "reduce_sum"),
             ("reduce_mean", "reduce_mean"), ("reduce_max", "reduce_max"), ("reduce_min", "reduce_min")]
    return {a: getattr(tf, a) is getattr(tf.math, b) for a, b in names} | {"log": hasattr(tf, "log")}


@case
def math_aliases_values_and_grad(tf):
    m = tf.math
    return grads_by_dtype(tf, lambda x, y: [m.add(x, y), m.subtract(x, y), m.multiply(x, y), m.divide(x, y),
                                            m.negative(x), m.square(x), m.sqrt(y), m.exp(x), m.log(y), m.abs(x),
                                            m.pow(y, x), m.maximum(x, y), m.minimum(x, y), m.reduce_sum(x),
                                            m.reduce_mean(y), m.reduce_max(x), m.reduce_min(y), m.sigmoid(x),
                                            m.tanh(x),
                                            m.truediv(x, y), m.reciprocal(y)],
                          [0.5, -1.0, 2.0], [1.0, 4.0, 2.0])


# --------------------------------------------------------------------------------------------- nn


@case
def relu_grad_including_zero(tf):
    return grads_by_dtype(tf, lambda x: [tf.nn.relu(x), tf.nn.relu(x * 2.0)], [-1.0, 0.0, 2.0])


@case
def sigmoid_tanh_grad(tf):
    return grads_by_dtype(tf, lambda x: [tf.nn.sigmoid(x), tf.math.sigmoid(x), tf.nn.tanh(x), tf.tanh(x),
                                         tf.sigmoid(x)],
                          [-30.0, -1.0, 0.0, 2.0, 40.0])


@case
def softmax_default_axis_grad(tf):
    w = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
    return grads_by_dtype(tf, lambda x: [tf.nn.softmax(x), tf.reduce_sum(tf.nn.softmax(x) * tf.constant(w, x.dtype))],
                          X)


@case
def softmax_axis_zero_grad(tf):
    w = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
    return grads_by_dtype(tf, lambda x: [tf.nn.softmax(x, axis=0),
                                         tf.reduce_sum(tf.nn.softmax(x, axis=0) * tf.constant(w, x.dtype))], X)


@case
def softmax_large_logits_and_1d(tf):
    return grads_by_dtype(tf, lambda x: [tf.nn.softmax(x), tf.math.softmax(x * 0.5), tf.nn.softmax(x[::-1])[0]],
                          [1000.0, 0.0, -1000.0])


@case
def nn_ops_int_inputs(tf):
    i = tf.constant([-2, 0, 3])
    return [tf.nn.relu(i), catch(tf.nn.sigmoid, i), catch(tf.nn.tanh, i),
            catch(tf.nn.softmax, tf.constant([1, 2])), catch(tf.nn.softmax, tf.constant([1.0, 2.0]), axis=1)]


# --------------------------------------------------------------------------------------------- dtype errors


@case
def unary_float_ops_reject_int(tf):
    i = tf.constant([1, 4])
    return [catch(tf.exp, i), catch(tf.sqrt, i), catch(tf.math.log, i), catch(tf.nn.sigmoid, i),
            tf.square(i), tf.abs(tf.constant([-3])), tf.negative(i), catch(tf.exp, 1), catch(tf.sqrt, 4)]


@case
def binary_ops_accept_python_numbers(tf):
    return [tf.add(1, 2), tf.add(1.0, 2), catch(tf.add, 1, 2.5), tf.multiply([1, 2], 3),
            tf.maximum(1.5, 2), tf.pow(2, 3), tf.pow(2.0, 0.5), catch(tf.maximum, tf.constant(1), 2.5),
            tf.divide(1, 2), tf.exp(1.0)]


@case
def unconnected_ops_give_none_grads(tf):
    return grads_by_dtype(tf, lambda x, y: tf.reduce_sum(x * 2.0), [1.0, 2.0], [3.0])


@case
def numpy_scalar_arguments_drop_error_name(tf):
    # NumPy scalars among an op's tensor arguments send TF's wrapper down its fallback path, whose errors carry no
    # " name: " suffix (cumsum converts its input first, so its error keeps it).
    calls = [lambda: tf.reduce_sum(np.float32(1.0), 5), lambda: tf.reduce_sum(tf.constant(1.0), np.int32(5)),
             lambda: tf.math.cumsum(np.float32(1.0)), lambda: tf.nn.softplus(np.int32(1)),
             lambda: tf.math.lgamma(np.int32(2)), lambda: tf.nn.l2_loss(np.int32(3)),
             lambda: tf.math.segment_sum(tf.constant([1.0, 2.0]), np.int32(0)),
             lambda: tf.reduce_max(tf.constant([1.0]), np.int64(3)), lambda: tf.math.top_k(np.float32(1.0), 1)]
    return [catch(f) for f in calls]


@case
def python_operands_that_do_not_fit(tf):
    # Only AddV2 lets a lossy Python operand keep its own dtype (and then fails in the op); `t / y` converts `y`
    # with a dtype hint (truediv's TypeError); every other op and operator refuses the conversion itself.
    import operator

    a, f = tf.constant([1, 2]), tf.constant([1.0, 2.0])
    out = []
    for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
               operator.pow, operator.lt, operator.eq):
        for x, y in ((a, [2.5, 3.0]), ([2.5, 3.0], a), (a, 2.5), (2.5, a), (f, [1, 2]), (f, 2)):
            out.append(catch(op, x, y))
    for fn in (tf.add, tf.subtract, tf.multiply, tf.maximum, tf.pow, tf.divide, tf.truediv, tf.equal, tf.less,
               tf.realdiv, tf.math.floordiv):
        out.append(catch(fn, [1, 2], [2.5, 3.0]))
    out.append(catch(tf.linalg.cross, [1, 2, 3], [4.0, 5.0, 6.0]))
    return out


@case
def multiplying_bool_tensors(tf):
    t, f = tf.constant(True), tf.constant(False)
    return [t * t, t * f, f * 2, t * 0, catch(lambda: 2 * t), t * np.bool_(True), catch(tf.multiply, t, t),
            tf.constant([True, False]) * 2, t * -1, t * [1, 0]]

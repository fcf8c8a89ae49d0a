"""GradientTape.gradient (jacobians are in ``jacobian.py``): return structure, target summing, shapes and dtypes,
output_gradients, unconnected_gradients, invalid arguments, single use, calls inside the context, gradient breakers,
intermediate sources, conventions at kinks, and six worked examples with known answers (``acceptance_*``).

Log lines from ``log_first_n`` are counted per calling source line; every case calls ``gradient``/``watch``
from its own lines, so each case sees fresh counters as long as it runs once per process.
"""
import inspect

import numpy as np

from tests.golden.harness import case, catch


def _abc(tf, persistent=True):
    """``a=1, b=2, c=4; y1=a*b; y2=b*c`` on a (by default persistent) tape."""
    a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(4.0)
    tape = tf.GradientTape(persistent=persistent)
    with tape:
        tape.watch([a, b, c])
        y1 = a * b
        y2 = b * c
    return tape, (a, b, c), (y1, y2)


def _grad(tf, fn, x, **kwargs):
    """``[fn(x), d fn(x) / dx]`` for a watched constant ``x``."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return [y, tape.gradient(y, x, **kwargs)]


# ---- 2.1 / 2.7 API -----------------------------------------------------------------------------------------


@case
def gradient_signature(tf):
    return str(inspect.signature(tf.GradientTape.gradient))


@case
def unconnected_gradients_enum(tf):
    u = tf.UnconnectedGradients
    return [[repr(m) for m in u], [m.value for m in u], str(u.ZERO), u("zero") is u.ZERO, u.NONE.name]


# ---- 2.2 sources -------------------------------------------------------------------------------------------


@case
def sources_single_tensor(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, a)


@case
def sources_list(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, [a, b, c])


@case
def sources_tuple(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, (a, b))


@case
def sources_nested_dict(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y2, {"k": [b, (c, a)], "j": {"a": a}})


@case
def sources_empty_structures(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient(y1, []), tape.gradient(y1, ()), tape.gradient(y1, {})]


@case
def duplicate_sources_each_get_full_gradient(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y2, [b, b, c])


@case
def variable_source_gives_eager_tensor(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = v * v
    g = tape.gradient(y, v)
    return [g, type(g).__name__, isinstance(g, tf.Tensor), isinstance(g, tf.Variable)]


# ---- 2.3 / 2.4 targets -------------------------------------------------------------------------------------


@case
def targets_list_summed(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], b)


@case
def targets_nested_dict_summed(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient({"p": y1, "q": [y2, (y1,)]}, [a, b, c])


@case
def target_repeated_in_list_counts_twice(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y1], b)


@case
def targets_empty_list_gives_none(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient([], b), tape.gradient([], b, unconnected_gradients="zero")]


@case
def nonscalar_target_implicit_ones(tf):
    return _grad(tf, lambda x: x * x, [1.0, 2.0, 3.0])


# ---- 2.5 shapes / dtypes -----------------------------------------------------------------------------------


@case
def broadcast_scalar_times_vector(tf):
    s = tf.constant(2.0)
    vec = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([s, vec])
        y = s * vec
    return tape.gradient(y, [s, vec])


@case
def broadcast_bias_and_column(tf):
    m = tf.ones([2, 3])
    bias = tf.constant([1.0, 2.0, 3.0])
    col = tf.constant([[1.0], [2.0]])
    with tf.GradientTape() as tape:
        tape.watch([bias, col])
        y = m * bias + col
    return tape.gradient(y, [bias, col])


@case
def matmul_gradient_shapes(tf):
    x = tf.constant([[1.0, 2.0, 3.0]])
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.matmul(x, w)
    return tape.gradient(y, [x, w])


@case
def cast_to_float64_gradient_stays_float32(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(x, tf.float64) * tf.constant(2.0, tf.float64)
    return [y, tape.gradient(y, x)]


@case
def indexing_gradient_is_dense(tf):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = v[0] * 3.0 + v[2, 1]
    g = tape.gradient(y, v)
    return [g, type(g).__name__]


# ---- 2.6 output_gradients ----------------------------------------------------------------------------------


@case
def output_gradients_weighted_sum(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], [b], output_gradients=[10.0, 100.0])


@case
def output_gradients_tensors_and_variables(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], b, output_gradients=[tf.constant(10.0), tf.Variable(100.0)])


@case
def output_gradients_bare_value_for_single_target(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient(y1, b, output_gradients=10.0),
            tape.gradient(y1, b, output_gradients=np.float32(3.0))]


@case
def output_gradients_none_element_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], [b], output_gradients=[10.0, None])


@case
def output_gradients_wrong_shape_scalar_source(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.gradient(y, x, output_gradients=[tf.constant([1.0, 2.0])])


@case
def output_gradients_wrong_shape_vector_source(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.gradient(y, x, output_gradients=[tf.constant([1.0, 2.0])])


@case
def output_gradients_broadcastable_shape_accepted(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.gradient(y, x, output_gradients=[tf.constant(2.0)])


@case
def output_gradients_fewer_than_targets_rest_default_to_ones(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient([y1, y2], b, output_gradients=[10.0]),
            tape.gradient([y1, y2], b, output_gradients=[])]


@case
def output_gradients_more_than_targets_ignored(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], b, output_gradients=[10.0, 100.0, 1000.0])


@case
def output_gradients_are_flattened(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, y2], b, output_gradients=[[10.0, 1.0], 100.0])


@case
def output_gradients_dict_like_targets(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient({"p": y1, "q": [y2]}, b, output_gradients={"p": 10.0, "q": [100.0]})


@case
def output_gradients_dtype_mismatch_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, b, output_gradients=[tf.constant(10.0, tf.float64)])


# ---- 2.7 unconnected ---------------------------------------------------------------------------------------


@case
def unconnected_default_none(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, [a, c])


@case
def unconnected_zero_enum(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, [a, c], unconnected_gradients=tf.UnconnectedGradients.ZERO)


@case
def unconnected_strings(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient(y1, [a, c], unconnected_gradients="zero"),
            tape.gradient(y1, [a, c], unconnected_gradients="none"),
            tape.gradient(y1, [a, c], unconnected_gradients=tf.UnconnectedGradients.NONE)]


@case
def unconnected_bad_value_errors(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [catch(tape.gradient, y1, a, unconnected_gradients=v) for v in ("foo", "ZERO", None, 1)]


@case
def unconnected_zero_shapes_and_dtypes(tf):
    x = tf.constant(1.0)
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, m])
        y = x * 2.0
    return tape.gradient(y, [m, v], unconnected_gradients="zero")


@case
def unconnected_zero_for_int_sources(tf):
    i = tf.constant(3)
    iv = tf.constant([1, 2], tf.int64)
    vi = tf.Variable([1, 2])
    with tf.GradientTape() as tape:
        tape.watch([i, iv])
        y = i * i + tf.cast(iv[0], tf.int32) * vi[0]
    return tape.gradient(y, [i, iv, vi], unconnected_gradients="zero")


@case
def unconnected_zero_constant_target(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient(tf.constant(5.0), b),
            tape.gradient(tf.constant(5.0), b, unconnected_gradients="zero")]


# ---- 2.8 / 2.9 ints, x wrt x -------------------------------------------------------------------------------


@case
def int_source_gradient_none(tf):
    i = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(i)
        y = tf.cast(i, tf.float32) * 2.0
    return [y, tape.gradient(y, i)]


@case
def int_target_gradient_none(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.cast(x * x, tf.int32)
    return [y, tape.gradient(y, x), tape.gradient(y, x, unconnected_gradients="zero")]


@case
def gradient_of_unwatched_tensor_wrt_itself(tf):
    x = tf.constant([1.0, 2.0])
    tape = tf.GradientTape()
    with tape:
        pass
    return tape.gradient(x, x)


@case
def gradient_of_variable_wrt_itself(tf):
    v = tf.Variable([1.0, 2.0])
    tape = tf.GradientTape(watch_accessed_variables=False)
    with tape:
        pass
    return tape.gradient(v, v)


@case
def gradient_of_int_tensor_wrt_itself(tf):
    i = tf.constant(3)
    with tf.GradientTape() as tape:
        pass
    return tape.gradient(i, i)


@case
def gradient_wrt_itself_with_output_gradients(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        pass
    return tape.gradient(x, x, output_gradients=[tf.constant([3.0, 4.0])])


@case
def gradient_wrt_itself_in_structures(tf):
    x = tf.constant(3.0)
    v = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as tape:
        y = v * 2.0
    return [tape.gradient([x, x], x), tape.gradient(x, [x, v]), tape.gradient([v, y], v)]


# ---- 2.10 invalid args -------------------------------------------------------------------------------------


@case
def target_none_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(None, b)


@case
def none_inside_targets_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient([y1, None], b)


@case
def none_inside_sources_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, [b, None])


@case
def sources_none_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, None)


@case
def python_float_target_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(3.0, b)


@case
def numpy_scalar_source_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return tape.gradient(y1, np.float32(2.0))


@case
def other_invalid_sources_and_targets(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [catch(tape.gradient, y1, 2.0), catch(tape.gradient, y1, "b"),
            catch(tape.gradient, np.float32(3.0), b)]


# ---- 2.11-2.14 use rules -----------------------------------------------------------------------------------


@case
def second_gradient_call_error(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf, persistent=False)
    return [tape.gradient(y1, a), catch(tape.gradient, y1, a), catch(tape.gradient, y2, c)]


@case
def gradient_on_never_entered_tape_error(tf):
    x = tf.constant(3.0)
    return tf.GradientTape().gradient(x, x)


@case
def failed_gradient_call_does_not_consume_tape(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf, persistent=False)
    return [catch(tape.gradient, None, a), catch(tape.gradient, y1, a, unconnected_gradients="foo"),
            tape.gradient(y1, a)]


@case
def gradient_inside_block_nonpersistent_stops_recording(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(5.0, name="b")
    with tf.GradientTape() as tape:
        y = a * 2.0
        g = tape.gradient(y, a)
        z = b * 3.0
    return [g, [v.name for v in tape.watched_variables()], catch(tape.gradient, z, b)]


@case
def gradient_inside_block_persistent_warns(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
    return g


@case
def gradient_inside_block_persistent_higher_order(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        g = tape.gradient(y, x)
    return [g, tape.gradient(g, x)]


@case
def persistent_inside_warning_once_per_calling_line(tf):
    x = tf.constant(3.0)
    out = []
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        for _ in range(3):
            out.append(tape.gradient(y, x))
        out.append(tape.gradient(y, x))
    return out


@case
def persistent_multiple_calls(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    return [tape.gradient(y, x), tape.gradient(z, x), tape.gradient(z, y), tape.gradient(y, x)]


@case
def target_computed_outside_block(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    y2 = y * x
    return tape.gradient(y2, x)


@case
def target_function_called_after_block(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
    return tape.gradient(tf.square(x), x)


# ---- 2.15 breakers -----------------------------------------------------------------------------------------


@case
def assign_breaks_gradient(tf):
    v = tf.Variable(2.0)
    w = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        w.assign(v * 3.0)
        y = w * 1.0
    return [w, tape.gradient(y, [v, w])]


@case
def assign_add_result_reads_variable_again(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        r = v.assign_add(1.0)
        y = r * 1.0
    return [repr(r), y, tape.gradient(y, v)]


@case
def assign_sub_old_value_not_connected(tf):
    v = tf.Variable(2.0)
    x = tf.constant(4.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        v.assign_sub(x * v)
        y = v * 1.0
    return [v, tape.gradient(y, [x, v])]


@case
def numpy_breaks_gradient(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.constant(v.numpy()) * v
    return [y, tape.gradient(y, v)]


@case
def numpy_function_result_as_target_error(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        s = np.square(v)
    return [type(s).__name__, catch(tape.gradient, s, v)]


@case
def stop_gradient_blocks_one_path(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(v * v) + v
    return [y, tape.gradient(y, v)]


@case
def stop_gradient_alone_none_or_zero(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.stop_gradient(v * v)
    return [y, tape.gradient(y, v), tape.gradient(y, v, unconnected_gradients="zero")]


@case
def round_and_floor_give_none(tf):
    x = tf.constant([1.4, -2.6, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        ys = [tf.round(x), tf.math.round(x), tf.floor(x), tf.math.floor(x)]
    return [ys, [tape.gradient(y, x) for y in ys], tape.gradient(ys[0], x, unconnected_gradients="zero")]


@case
def argmax_gives_none(tf):
    x = tf.constant([1.4, -2.6, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.argmax(x)
        y2 = tf.math.argmax(x)
    return [y, tape.gradient(y, x), tape.gradient(y2, x), tape.gradient(y, x, unconnected_gradients="zero")]


@case
def int_cast_gives_none(tf):
    x = tf.constant([1.4, -2.6, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(x, tf.int32)
    return [y, tape.gradient(y, x)]


@case
def sign_gives_zeros(tf):
    x = tf.constant([1.4, -2.6, 0.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.sign(x)
        y2 = tf.math.sign(x) * x
    return [y, tape.gradient(y, x), tape.gradient(y2, x)]


# ---- 2.16 intermediates ------------------------------------------------------------------------------------


@case
def intermediate_source_recorded(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = x * 2.0
        y = h * h
    return [tape.gradient(y, h), tape.gradient(y, [x, h])]


@case
def intermediate_source_from_unwatched_input_none(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        h = x * 2.0
        y = h * h
    return tape.gradient(y, h)


@case
def intermediate_watched_after_creation(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        h = x * 2.0
        tape.watch(h)
        y = h * h
    return [tape.gradient(y, h), tape.gradient(y, x)]


@case
def intermediate_rewatched_keeps_input_path(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = x * 2.0
        tape.watch(h)
        y = h * h
    return [tape.gradient(y, h), tape.gradient(y, x)]


# ---- 2.18 kinks --------------------------------------------------------------------------------------------


@case
def relu_at_zero(tf):
    return _grad(tf, tf.nn.relu, [-1.0, 0.0, 2.0])


@case
def abs_at_zero(tf):
    return _grad(tf, tf.abs, [-1.0, 0.0, 2.0])


@case
def maximum_minimum_ties_go_to_x(tf):
    x = tf.constant([-1.0, 1.0, 2.0])
    y = tf.constant([0.0, 1.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        mx = tf.maximum(x, y)
        mn = tf.minimum(x, y)
    return [tape.gradient(mx, [x, y]), tape.gradient(mn, [x, y])]


@case
def reduce_max_ties_split(tf):
    return _grad(tf, tf.reduce_max, [1.0, 3.0, 3.0])


@case
def reduce_min_ties_split(tf):
    return _grad(tf, tf.reduce_min, [1.0, 1.0, 3.0])


@case
def reduce_max_axis_ties_split(tf):
    return _grad(tf, lambda x: tf.reduce_max(x, axis=1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])


@case
def sqrt_at_zero_is_inf(tf):
    return _grad(tf, tf.sqrt, [0.0, 4.0])


@case
def pow_half_at_zero_is_inf(tf):
    return [_grad(tf, lambda x: x ** 0.5, [0.0, 4.0]), _grad(tf, lambda x: tf.pow(x, 0.5), [0.0, 4.0])]


@case
def pow_two_at_zero_is_zero(tf):
    return [_grad(tf, lambda x: x ** 2.0, [0.0, 4.0]), _grad(tf, lambda x: x ** 2, [0.0, 4.0])]


@case
def zero_to_the_variable_power(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = 0.0 ** v
    return [y, tape.gradient(y, v)]


@case
def zero_pow_both_watched(tf):
    b = tf.constant(0.0)
    e = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([b, e])
        y = tf.pow(b, e)
    return [y, tape.gradient(y, [b, e])]


@case
def zero_pow_zero_base_gradient_nan(tf):
    b = tf.constant(0.0)
    e = tf.constant(0.0)
    with tf.GradientTape() as tape:
        tape.watch([b, e])
        y = b ** e
    return [y, tape.gradient(y, [b, e])]


@case
def negative_base_pow_exponent_gradient_zero(tf):
    b = tf.constant(-2.0)
    e = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([b, e])
        y = b ** e
    return [y, tape.gradient(y, [b, e])]


@case
def norm_gradient(tf):
    return [_grad(tf, tf.norm, [3.0, 4.0]), _grad(tf, tf.norm, [0.0, 0.0])]


@case
def where_log_unselected_branch_nan(tf):
    return [_grad(tf, lambda x: tf.where(x > 0, tf.math.log(x), 0.0), [0.0, 1.0]),
            _grad(tf, lambda x: tf.where(x > 0, tf.math.log(x), tf.zeros_like(x)), [0.0, 1.0])]


@case
def log_at_zero_is_inf(tf):
    return _grad(tf, tf.math.log, [0.0, 1.0])


# ---- 2.19 tf.gradients -------------------------------------------------------------------------------------


@case
def tf_gradients_eager_error(tf):
    x = tf.constant(3.0)
    return tf.gradients(x * x, x)


# ---- worked examples ---------------------------------------------------------------------------------------


@case
def acceptance_basic_square(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return [tape.gradient(y, x), catch(tape.gradient, y, x)]


@case
def acceptance_persistent(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    return [tape.gradient(y, x), tape.gradient(z, x)]


@case
def acceptance_nested_cube(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x ** 3
        dy = t1.gradient(y, x)
    return [dy, t2.gradient(dy, x)]


@case
def acceptance_variables(tf):
    out = []
    for trainable, watch in ((True, False), (False, False), (False, True)):
        v = tf.Variable(2.0, trainable=trainable)
        with tf.GradientTape() as tape:
            if watch:
                tape.watch(v)
            y = v * v
        out.append(tape.gradient(y, v))
    return out


@case
def acceptance_multiple_targets(tf):
    tape, (a, b, c), (y1, y2) = _abc(tf)
    return [tape.gradient([y1, y2], [a, b, c]), tape.gradient(y1, [a, c], unconnected_gradients="zero")]


@case
def acceptance_outer_product(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(tf.reshape(x, [3, 1]), tf.reshape(x, [1, 3]))
        y2 = x[:, None] * x[None, :]
    return [y, tape.gradient(y, x), tape.gradient(y2, x)]


@case
def relu_grad_multiplies_by_mask(tf):
    # TF's ReluGrad is ``g * (y > 0)``: a NaN or inf upstream gradient gives NaN even where relu is flat.
    x = tf.constant([-1.0, 0.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(x)
    return tape.gradient(y, x, output_gradients=tf.constant([float("nan"), float("inf"), float("nan")]))


@case
def zero_upstream_gives_zero_at_infinite_slope(tf):
    # SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 where the upstream gradient is 0, even at x = 0.
    x = tf.constant([0.0, 4.0])
    out = []
    for f in (tf.sqrt, tf.math.rsqrt, tf.math.reciprocal):
        for og in ([0.0, 0.0], [1.0, 0.0], [1.0, 1.0]):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            out.append(tape.gradient(y, x, output_gradients=tf.constant(og)))
    return out


@case
def stack_of_one_tensor_second_order(tf):
    x = tf.constant([1.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.stack([x * x]))
        g = inner.gradient(y, x)
    return [g, outer.gradient(g, x)]

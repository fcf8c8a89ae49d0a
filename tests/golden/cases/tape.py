"""GradientTape itself: constructor, recording rules, watch, variables,
context re-entry, stop_recording, reset, nesting / higher order, complex convention and dtypes.

Log lines from ``log_first_n`` are counted per calling source line; every case below calls ``watch`` from
its own lines, so each case sees fresh counters as long as it runs once per process.
"""
import inspect

import numpy as np

from tests.golden.harness import case, catch

# ---- 1.1 constructor ---------------------------------------------------------------------------------------


@case
def constructor_signature(tf):
    return str(inspect.signature(tf.GradientTape.__init__))


@case
def constructor_positional_args(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape(True, False)
    with tape:
        tape.watch(x)
        y = x * x
    return [tape.gradient(y, x), tape.gradient(y, x)]


@case
def enter_returns_the_tape(tf):
    tape = tf.GradientTape()
    with tape as entered:
        pass
    return entered is tape


# ---- 1.2 / 1.3 recording -----------------------------------------------------------------------------------


@case
def ops_before_watch_not_recorded(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y0 = x * x
        tape.watch(x)
        y = y0 * 2
    return tape.gradient(y, x)


@case
def ops_after_watch_recorded_through_chain(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0
        b = tf.exp(a * 0.0) + a
        y = b * b
    return tape.gradient(y, x)


@case
def constant_not_watched_gives_none(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    return tape.gradient(y, x)


@case
def convert_to_tensor_not_watched_gives_none(tf):
    x = tf.convert_to_tensor([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x)
    return tape.gradient(y, x)


@case
def op_without_watched_input_not_recorded(tf):
    x = tf.constant(3.0)
    c = tf.constant(4.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = c * c
    return [tape.gradient(y, [x, c]), y]


# ---- 1.4-1.7 variables -------------------------------------------------------------------------------------


@case
def variable_auto_watched_on_read(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = v * v
    g = tape.gradient(y, v)
    return [g, repr(g), tape.watched_variables()]


@case
def variable_created_inside_and_read_is_watched(tf):
    with tf.GradientTape() as tape:
        v = tf.Variable(2.0)
        y = v * v
    return [tape.watched_variables(), tape.gradient(y, v)]


@case
def variable_created_inside_never_read_not_watched(tf):
    with tf.GradientTape() as tape:
        tf.Variable(2.0)
    return tape.watched_variables()


@case
def variable_read_outside_block_not_watched(tf):
    v = tf.Variable(2.0)
    y = v * v
    with tf.GradientTape() as tape:
        z = y * 3.0
    return [tape.watched_variables(), tape.gradient(z, v)]


@case
def watch_accessed_variables_false(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    return [tape.watched_variables(), tape.gradient(y, v)]


@case
def watch_accessed_variables_false_explicit_watch(tf):
    v = tf.Variable(2.0)
    w = tf.Variable(5.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v * w
    return [tape.watched_variables(), tape.gradient(y, [v, w])]


@case
def non_trainable_variable_not_auto_watched(tf):
    v = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * v
    return [v.trainable, tape.watched_variables(), tape.gradient(y, v)]


@case
def non_trainable_variable_explicit_watch(tf):
    v = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    return [tape.watched_variables(), tape.gradient(y, v)]


@case
def integer_variable_auto_watched_gradient_none(tf):
    v = tf.Variable(3)
    with tf.GradientTape() as tape:
        y = v * v
    return [v.trainable, tape.watched_variables(), tape.gradient(y, v)]


@case
def integer_variable_explicit_watch_warns(tf):
    v = tf.Variable([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = v * 2
    return [tape.watched_variables(), tape.gradient(y, v)]


@case
def float64_variable_gradient_dtype(tf):
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    return tape.gradient(y, v)


# ---- 1.8 / 1.9 watch ---------------------------------------------------------------------------------------


@case
def watch_returns_none(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        r = tape.watch(x)
    return r


@case
def watch_nested_structure(tf):
    a, b, c, d = (tf.constant(float(i)) for i in (1, 2, 3, 4))
    v = tf.Variable(5.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch({"a": a, "rest": [b, (c, {"d": d})], "v": v})
        y = a * b * c * d * v
    return [tape.gradient(y, [a, b, c, d, v]), tape.watched_variables()]


@case
def watch_empty_list_is_noop(tf):
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        r = tape.watch([])
        y = x * x
    return [r, tape.gradient(y, x)]


@case
def watch_python_float_error(tf):
    with tf.GradientTape() as tape:
        return tape.watch(3.0)


@case
def watch_non_tensor_errors(tf):
    with tf.GradientTape() as tape:
        return [catch(tape.watch, 3), catch(tape.watch, np.array([1.0])), catch(tape.watch, np.float32(1.0)),
                catch(tape.watch, None), catch(tape.watch, "a"), catch(tape.watch, [1.0, 2.0])]


@case
def watch_list_with_non_tensor_watches_earlier_items(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        err = catch(tape.watch, [x, 3.0])
        y = x * x
    return [err, tape.gradient(y, x)]


@case
def watch_int_tensor_warns_and_gives_none(tf):
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return [tape.gradient(y, x), y]


@case
def watch_string_and_bool_tensors_warn(tf):
    with tf.GradientTape() as tape:
        tape.watch(tf.constant("s"))
        tape.watch(tf.constant(True))
        tape.watch(tf.constant([1, 2], dtype=tf.int64))
    return tape.watched_variables()


@case
def watch_int_warning_at_most_five_times_per_line(tf):
    x = tf.constant(1)
    with tf.GradientTape() as tape:
        for _ in range(7):
            tape.watch(x)
        tape.watch(x)
    return None


@case
def watch_int_inside_list_warns(tf):
    x = tf.constant(1.0)
    i = tf.constant(2)
    with tf.GradientTape() as tape:
        tape.watch([x, i])
        y = x * tf.cast(i, tf.float32)
    return tape.gradient(y, [x, i])


@case
def watch_float_dtypes_no_warning(tf):
    xs = [tf.constant(1.0, tf.float16), tf.constant(1.0, tf.float64), tf.constant(1.0, tf.complex64),
          tf.constant(1.0, tf.complex128)]
    with tf.GradientTape() as tape:
        tape.watch(xs)
    return None


# ---- 1.10 / 1.11 dtypes ------------------------------------------------------------------------------------


@case
def float16_gradient(tf):
    x = tf.constant([1.0, 2.5], tf.float16)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x)
    return [g, repr(g)]


@case
def float64_gradient(tf):
    x = tf.constant(3.0, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    g = tape.gradient(y, x)
    return [g, repr(g)]


@case
def complex_gradient_dtypes(tf):
    out = []
    for dt in (tf.complex64, tf.complex128):
        x = tf.constant(3.0, dt)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        g = tape.gradient(y, x)
        out += [g, repr(g)]
    return out


@case
def int_cast_stops_gradient_even_if_cast_back(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.cast(x, tf.int32), tf.float32) * 2.0
    return [y, tape.gradient(y, x)]


@case
def float_cast_roundtrip_keeps_gradient(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.cast(x, tf.float64), tf.float32) * x
    return tape.gradient(y, x)


@case
def complex_conjugate_square(tf):
    z = tf.constant(1 + 2j)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = z * z
    g = tape.gradient(y, z)
    return [z.dtype, g, repr(g)]


@case
def complex_real_valued_functions(tf):
    z = tf.constant(3 + 4j, tf.complex64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(z)
        a = tf.abs(z)
        a2 = tf.square(tf.abs(z))
    return [a, a2, tape.gradient(a, z), tape.gradient(a2, z)]


@case
def complex_exp_gradient_is_conjugate(tf):
    z = tf.constant(1 + 2j, tf.complex64)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.exp(z)
    return [y, tape.gradient(y, z)]


@case
def real_source_complex_target(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(x, tf.complex64) * (1 + 2j)
    return [y, tape.gradient(y, x)]


@case
def complex_to_real_cast_warns_and_gradient(tf):
    z = tf.constant(3 + 4j, tf.complex64)
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.cast(z, tf.float32) * 2.0
    return [y, tape.gradient(y, z)]


# ---- 1.12 context rules ------------------------------------------------------------------------------------


@case
def reenter_active_tape_error(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape()

    def reenter():
        with tape:
            pass

    with tape:
        tape.watch(x)
        err = catch(reenter)
        y = x * x
    return [err, tape.gradient(y, x)]


@case
def reenter_finished_tape_continues_recording(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    with tape:
        z = y * x
    return tape.gradient(z, x)


@case
def reenter_used_tape_starts_fresh(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    g1 = tape.gradient(y, x)
    with tape:
        z = y * x
    g_unwatched = tape.gradient(z, x)
    with tape:
        tape.watch(x)
        w = x * x * x
    return [g1, g_unwatched, tape.gradient(w, x)]


@case
def watch_on_never_entered_tape_error(tf):
    tape = tf.GradientTape()
    return tape.watch(tf.constant(1.0))


@case
def watch_after_exit_records_nothing(tf):
    x = tf.constant(3.0)
    tape = tf.GradientTape()
    with tape:
        pass
    r = tape.watch(x)
    y = x * x
    return [r, tape.gradient(y, x)]


# ---- 1.13 nesting ------------------------------------------------------------------------------------------


@case
def nested_second_derivative(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
        dy = t1.gradient(y, x)
    return [dy, t2.gradient(dy, x)]


@case
def nested_third_derivative(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    return [d1, d2, t3.gradient(d2, x)]


@case
def nested_inner_unwatched(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            y = x * x * x
        dy = t1.gradient(y, x)
    return [dy, t2.gradient(y, x)]


@case
def nested_outer_unwatched(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
        dy = t1.gradient(y, x)
    return [dy, t2.gradient(dy, x)]


@case
def nested_inner_gradient_after_outer_exit(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
    dy = t1.gradient(y, x)
    return [dy, t2.gradient(dy, x)]


@case
def nested_inner_gradient_inside_inner_block(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
            dy = t1.gradient(y, x)
    return [dy, t2.gradient(dy, x)]


@case
def several_active_tapes_record_same_ops(tf):
    x = tf.constant(3.0)
    a = tf.GradientTape()
    b = tf.GradientTape()
    with a, b:
        a.watch(x)
        b.watch(x)
        y = x * x
    return [a.gradient(y, x), b.gradient(y, x)]


@case
def inner_tape_exited_outer_keeps_recording(tf):
    x = tf.constant(3.0)
    a = tf.GradientTape()
    b = tf.GradientTape()
    with a:
        a.watch(x)
        with b:
            y = x * x
        z = y * x
    return [a.gradient(z, x), b.gradient(z, x)]


@case
def tapes_watch_different_tensors(tf):
    x = tf.constant(3.0)
    a = tf.GradientTape()
    b = tf.GradientTape()
    with a:
        a.watch(x)
        y = x * x
        with b:
            b.watch(y)
            z = y * x
    return [a.gradient(z, x), b.gradient(z, y)]


# ---- 1.14 watched_variables --------------------------------------------------------------------------------


@case
def watched_variables_in_creation_order(tf):
    vs = [tf.Variable(float(i), name=n) for i, n in enumerate("zyxw")]
    with tf.GradientTape() as tape:
        y = vs[3] * vs[0] * vs[2] * vs[1]
    names = [v.name for v in tape.watched_variables()]
    return [names, type(tape.watched_variables()).__name__, tape.gradient(y, vs[0])]


@case
def watched_variables_explicit_and_accessed_mixed(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c")
    with tf.GradientTape() as tape:
        tape.watch([c, a])
        b * a
        tape.watch(a)
    return [v.name for v in tape.watched_variables()]


@case
def watched_variables_during_recording(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        y = a * 2.0
        during = [v.name for v in tape.watched_variables()]
        y = y * b
    return [during, [v.name for v in tape.watched_variables()]]


@case
def watched_variables_after_nonpersistent_use(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        y = a * b
    g = tape.gradient(y, a)
    return [g, [v.name for v in tape.watched_variables()], catch(tape.gradient, y, b),
            [v.name for v in tape.watched_variables()]]


@case
def watched_variables_never_entered(tf):
    return tf.GradientTape().watched_variables()


# ---- 1.15 stop_recording -----------------------------------------------------------------------------------


@case
def stop_recording_pauses_and_resumes(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
        z = y * x
    return [y, z, tape.gradient(y, x), tape.gradient(z, x)]


@case
def stop_recording_variable_read_not_watched(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = a * 1.0
        y = y * b
    return [[v.name for v in tape.watched_variables()], tape.gradient(y, [a, b])]


@case
def stop_recording_never_entered_error(tf):
    tape = tf.GradientTape()
    with tape.stop_recording():
        pass
    return "no error"


@case
def stop_recording_after_exit_error(tf):
    tape = tf.GradientTape()
    with tape:
        pass
    with tape.stop_recording():
        pass
    return "no error"


@case
def stop_recording_nested_error(tf):
    tape = tf.GradientTape()
    with tape:
        with tape.stop_recording():
            with tape.stop_recording():
                pass
    return "no error"


@case
def stop_recording_after_nonpersistent_gradient_error(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)

        def stop():
            with tape.stop_recording():
                pass

        err = catch(stop)
    return [g, err]


@case
def gradient_inside_stop_recording_nonpersistent_then_fresh_tape(tf):
    # gradient() while paused does not pop the tape; leaving stop_recording pushes a brand-new tape.
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            g = tape.gradient(y, x)
        z = y * x
    return [g, tape.gradient(z, x)]


# ---- 1.16 reset --------------------------------------------------------------------------------------------


@case
def reset_clears_recording_and_watches(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        z = x * 5.0
    return tape.gradient(y + z, x)


@case
def reset_then_rewatch(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    return [tape.gradient(y, x), tape.gradient(z, x)]


@case
def reset_variables_rewatched_on_next_read(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.GradientTape(persistent=True) as tape:
        y = a * b
        tape.reset()
        after_reset = tape.watched_variables()
        z = b * 5.0
    return [after_reset, [v.name for v in tape.watched_variables()], tape.gradient(y, [a, b]),
            tape.gradient(z, [a, b])]


@case
def reset_outside_context_error(tf):
    tape = tf.GradientTape()
    with tape:
        pass
    return tape.reset()


@case
def reset_never_entered_error(tf):
    return tf.GradientTape().reset()


@case
def reset_inside_stop_recording_error(tf):
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            err = catch(tape.reset)
        y = x * x
    return [err, tape.gradient(y, x)]

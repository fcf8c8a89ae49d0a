"""Eager control flow: ``tf.cond``, ``tf.while_loop``, ``tf.case``, ``tf.switch_case`` (values, structures,
argument errors with TF's messages, gradients through the branch taken and through loop iterations)."""
import numpy as np

from tests.golden.harness import case, catch

# ---- cond ----------------------------------------------------------------------------------------------------


@case
def cond_python_and_tensor_preds(tf):
    return [tf.cond(True, lambda: 1, lambda: 2), tf.cond(0, lambda: 1, lambda: 2),
            tf.cond(tf.constant(False), lambda: tf.constant(1.0), lambda: tf.constant(2.0)),
            tf.cond(np.bool_(True), lambda: "t", lambda: "f"),
            tf.cond(pred=True, true_fn=lambda: 3, false_fn=lambda: 4)]


@case
def cond_non_bool_preds(tf):
    return [tf.cond(tf.constant(1), lambda: 1, lambda: 2), tf.cond(tf.constant(0.0), lambda: 1, lambda: 2),
            tf.cond(tf.constant([True]), lambda: 1, lambda: 2), tf.cond([False], lambda: 1, lambda: 2),
            tf.cond("a", lambda: 1, lambda: 2), tf.cond(tf.Variable(True), lambda: 1, lambda: 2),
            tf.cond(np.array(False), lambda: 1, lambda: 2)]


@case
def cond_returns_structures(tf):
    return [tf.cond(True, lambda: {"a": 1, "b": [2, (3,)]}, lambda: None),
            tf.cond(False, lambda: 1, lambda: None),
            tf.cond(True, lambda: [tf.constant(1)], lambda: [tf.constant(2)]),
            tf.cond(True, lambda: (tf.constant(1),), lambda: 2),
            tf.cond(True, lambda: 1, lambda: (1, 2))]


@case
def cond_runs_only_the_branch_taken(tf):
    log = []

    def t():
        log.append("t")
        return tf.constant(1)

    def f():
        log.append("f")
        return tf.constant(2)

    r = [tf.cond(tf.constant(True), t, f), tf.cond(tf.constant(False), t, f)]
    return [r, log]


@case
def cond_branch_errors(tf):
    return [catch(tf.cond, True, None, lambda: 1), catch(tf.cond, True, lambda: 1),
            catch(tf.cond, True, 1, lambda: 1), catch(tf.cond, True, lambda: 1, 2), catch(tf.cond, True)]


@case
def cond_pred_errors(tf):
    return [catch(tf.cond, tf.constant([True, False]), lambda: 1, lambda: 2),
            catch(tf.cond, tf.constant([], tf.bool), lambda: 1, lambda: 2),
            catch(tf.cond, None, lambda: 1, lambda: 2),
            catch(tf.cond, [True, True], lambda: 1, lambda: 2)]


@case
def cond_branch_error_propagates(tf):
    return catch(tf.cond, True, lambda: tf.constant(1) + tf.constant(1.0), lambda: 1)


@case
def cond_gradient_branch_taken(tf):
    out = []
    for p in (True, False):
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(tf.constant(p), lambda x=x: x * x, lambda x=x: tf.sin(x))
        out.append([y, tape.gradient(y, x)])
    return out


@case
def cond_gradient_unused_branch_none(tf):
    x = tf.constant(2.0)
    z = tf.constant(5.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = tf.cond(x > 1.0, lambda: x * 4.0, lambda: z * 4.0)
    return [y, tape.gradient(y, x), tape.gradient(y, z)]


@case
def cond_gradient_variables_float64(tf):
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.cond(tf.reduce_sum(v) > 2.0, lambda: tf.reduce_sum(v ** 3), lambda: tf.reduce_sum(v))
    return [y, tape.gradient(y, v)]


@case
def cond_second_derivative(tf):
    x = tf.constant(1.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.cond(x > 0.0, lambda: x ** 3, lambda: -x)
        g = inner.gradient(y, x)
    return [y, g, outer.gradient(g, x)]


# ---- while_loop ----------------------------------------------------------------------------------------------


@case
def while_list_and_tuple(tf):
    return [tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [0]),
            tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [tf.constant(0)]),
            tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), (0,)),
            tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j * 2), [0, 1.5]),
            tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, j * 2], (0, 1.5))]


@case
def while_nested_loop_vars(tf):
    return tf.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1, {"x": b["x"] + 1, "y": (b["y"][0] * 2,)}),
                         (0, {"x": 1, "y": (2.0,)}))


@case
def while_zero_iterations_converts(tf):
    return [tf.while_loop(lambda i: i < 0, lambda i: (i + 1,), [5]),
            tf.while_loop(lambda i, s: False, lambda i, s: (i, s), (np.float64(2.5), "abc")),
            tf.while_loop(lambda i: False, lambda i: (i,), [[1, 2]])]


@case
def while_dtype_and_shape_may_change(tf):
    return [tf.while_loop(lambda i: i < 3, lambda i: (tf.cast(i, tf.float32) + 1,), [0]),
            tf.while_loop(lambda x: tf.size(x) < 4, lambda x: (tf.concat([x, x], 0),), [tf.constant([1])]),
            tf.while_loop(lambda x: tf.size(x) < 3, lambda x: (tf.concat([x, [1]], 0),), [tf.constant([1])],
                          shape_invariants=[tf.TensorShape([None])])]


@case
def while_python_cond_values(tf):
    return [tf.while_loop(lambda i: 0, lambda i: (i - 1,), [3]),
            tf.while_loop(lambda i: i > 0, lambda i: (i - 1,), [tf.constant(3, tf.int64)]),
            tf.while_loop(lambda i: tf.cast(i, tf.float32), lambda i: (i - 1,), [3])]


@case
def while_maximum_iterations(tf):
    return [tf.while_loop(lambda i: i < 100, lambda i: (i + 1,), [0], maximum_iterations=4),
            tf.while_loop(lambda i, j: i < 100, lambda i, j: (i + 1, j * 2), (0, 1.0),
                          maximum_iterations=tf.constant(4, tf.int64)),
            tf.while_loop(lambda i: i < 2, lambda i: (i + 1,), [0], maximum_iterations=10),
            tf.while_loop(lambda i: i < 100, lambda i: (i + 1,), [0], maximum_iterations=0),
            tf.while_loop(lambda i: i < 100, lambda i: (i + 1,), [0], maximum_iterations=-1),
            tf.while_loop(lambda i: i < 100, lambda i: [i + 1], [0], maximum_iterations=2.0)]


@case
def while_maximum_iterations_errors(tf):
    return [catch(tf.while_loop, lambda i: i < 100, lambda i: (i + 1,), [0], maximum_iterations=[2]),
            catch(tf.while_loop, lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=3),
            catch(tf.while_loop, lambda i: 1, lambda i: (i + 1,), [0], maximum_iterations=4)]


@case
def while_argument_errors(tf):
    return [catch(tf.while_loop, 1, lambda i: (i,), [3]), catch(tf.while_loop, lambda i: i < 3, 2, [3]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1,), [0], parallel_iterations=0),
            catch(tf.while_loop, lambda: False, lambda: (), []),
            catch(tf.while_loop, lambda i: i < 3, lambda i: i + 1, tf.constant(0)),
            catch(tf.while_loop, lambda i: i < 3, lambda i: i + 1, 0),
            catch(tf.while_loop, lambda i: False, lambda i: i + 1, 5),
            catch(tf.while_loop, lambda i: False, lambda i: i + 1, tf.constant(5)),
            catch(tf.while_loop, lambda i, n: i < 3, lambda i, n: (i + 1, n), [0, None])]


@case
def while_body_not_a_sequence(tf):
    return [catch(tf.while_loop, lambda i: i < 3, lambda i: i + 1, [0]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: i + 1, [tf.constant(0)]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: i + 1, [tf.Variable(0)]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: 7, [np.float64(0)])]


@case
def while_body_structure_errors(tf):
    return [catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1, i), [0]),
            catch(tf.while_loop, lambda i, j: i < 3, lambda i, j: (i + 1, (j[0],)), [0, [1]]),
            catch(tf.while_loop, lambda i, j: i < 3, lambda i, j: (i + 1, {"b": 1}), [0, {"a": 1}]),
            catch(tf.while_loop, lambda i, j: i < 3, lambda i, j: (i + 1, [j[0], j[0]]), [0, [1]]),
            catch(tf.while_loop, lambda i, j: i < 3, lambda i, j: (i + 1, [j]), [0, 1]),
            catch(tf.while_loop, lambda i, j: i < 3, lambda i, j: (i + 1, 2.0), [0, {"a": 1.0}])]


@case
def while_structure_error_specs(tf):
    return [catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1, 2), [True]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1, 2), [tf.Variable([1.0])]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1, 2), [np.float64(0)]),
            catch(tf.while_loop, lambda i: tf.size(i) < 3, lambda i: tf.concat([i, [1]], 0), [tf.constant([1])])]


@case
def while_cond_errors(tf):
    return [catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1,), [tf.constant([0, 1])]),
            catch(tf.while_loop, lambda i: i < 3, lambda i: (i + 1,), ["ab"]),
            catch(tf.while_loop, lambda a, b: a < 3, lambda a, b: {"a": a + 1, "b": b}, {"a": 0, "b": 1})]


@case
def while_gradient(tf):
    x = tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
    return [y, tape.gradient(y, x)]


@case
def while_gradient_float64_maximum_iterations(tf):
    x = tf.constant([0.5, 2.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        (y,) = tf.while_loop(lambda y: tf.reduce_sum(y) < 1e6, lambda y: (tf.sin(y) + y * x,), [x],
                             maximum_iterations=3)
    return [y, tape.gradient(y, x)]


@case
def while_gradient_variable(tf):
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = tf.while_loop(lambda i, acc: i < 4, lambda i, acc: (i + 1, acc + v * tf.cast(i, tf.float32)),
                            (tf.constant(0), tf.constant(0.0)))
    return [out, tape.gradient(out[1], v)]


@case
def while_higher_order_gradient(tf):
    x = tf.constant(1.3, tf.float64)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            (y,) = tf.while_loop(lambda y: y < 5.0, lambda y: (y * x + x * x,), [tf.constant(1.0, tf.float64)])
        g = t1.gradient(y, x)
    return [y, g, t2.gradient(g, x)]


@case
def while_gradient_no_iterations(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        (y,) = tf.while_loop(lambda y: y > 10.0, lambda y: (y * y,), [x * 3.0])
    return [y, tape.gradient(y, x)]


# ---- case ----------------------------------------------------------------------------------------------------


@case
def case_values(tf):
    f, t = tf.constant(False), tf.constant(True)
    return [tf.case([(f, lambda: 1), (t, lambda: 2)], default=lambda: 3), tf.case([(f, lambda: 1)], default=lambda: 3),
            tf.case([(t, lambda: 1), (t, lambda: 2)]), tf.case([(f, lambda: 1), (t, lambda: 2)]),
            tf.case([(t, lambda: 1)]), tf.case(((f, lambda: 1), (t, lambda: "b")), default=lambda: "c"),
            tf.case([(t, lambda: 1)], exclusive=True),
            tf.case([(f, lambda: 1), (t, lambda: 2)], default=lambda: 3, exclusive=True)]


@case
def case_singleton_unpacking(tf):
    t = tf.constant(True)
    return [tf.case([(t, lambda: [tf.constant(1)])], default=lambda: [tf.constant(2)]),
            tf.case([(t, lambda: [tf.constant(1)])], default=lambda: [tf.constant(2)], strict=True),
            tf.case([(t, lambda: (1, 2))], default=lambda: (3, 4))]


@case
def case_no_predicate_holds(tf):
    f = tf.constant(False)
    return [catch(tf.case, [(f, lambda: 1), (f, lambda: 2)]), catch(tf.case, [(f, lambda: 1)])]


@case
def case_exclusive_errors(tf):
    t = tf.constant(True)
    return [catch(tf.case, [(t, lambda: 1), (t, lambda: 2)], default=lambda: 3, exclusive=True),
            catch(tf.case, [(t, lambda: 1), (t, lambda: 2), (t, lambda: 2)], default=lambda: 3, exclusive=True),
            catch(tf.case, [(t, lambda: 1), (t, lambda: 2)], exclusive=True)]


@case
def case_argument_errors(tf):
    t = tf.constant(True)
    return [catch(tf.case, [(True, lambda: 1)]), catch(tf.case, [(tf.constant(1), lambda: 1)]),
            catch(tf.case, [(t, 1)]), catch(tf.case, 5), catch(tf.case, [(t,)]),
            catch(tf.case, [[t, 5]]), catch(tf.case, []), catch(tf.case, [], default=lambda: 5),
            catch(tf.case, [(tf.constant(False), lambda: 1)], default=3),
            catch(tf.case, [(tf.constant([True, False]), lambda: 1)], default=lambda: 3),
            catch(tf.case, {t: lambda: 1}, exclusive=True)]


@case
def case_gradient(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.case([(x < 1.0, lambda: x * 10.0), (x < 3.0, lambda: x ** 3)], default=lambda: tf.exp(x))
    return [y, tape.gradient(y, x)]


# ---- switch_case ---------------------------------------------------------------------------------------------


@case
def switch_case_values(tf):
    fns = [lambda: 10, lambda: 11, lambda: 12]
    return [tf.switch_case(tf.constant(1), fns), tf.switch_case(tf.constant(7), fns),
            tf.switch_case(tf.constant(-1), fns), tf.switch_case(tf.constant(-1), fns[:2], default=lambda: 99),
            tf.switch_case(tf.constant(5), fns[:2], default=lambda: 99),
            tf.switch_case(tf.constant(2), fns[:2], default=lambda: 99),
            tf.switch_case(tf.constant(1, tf.int64), fns), tf.switch_case(tf.constant(0, tf.uint8), fns),
            tf.switch_case(tf.constant(0), (lambda: [1], lambda: [2]))]


@case
def switch_case_dict_and_pairs(tf):
    return [tf.switch_case(tf.constant(1), {1: lambda: "b", 0: lambda: "a"}),
            tf.switch_case(tf.constant(0), [(1, lambda: "b"), (0, lambda: "a")]),
            tf.switch_case(tf.constant(9), {1: lambda: "b", 0: lambda: "a"})]


@case
def switch_case_errors(tf):
    fns = [lambda: 1, lambda: 2]
    return [catch(tf.switch_case, 1, fns), catch(tf.switch_case, tf.constant(1.0), fns),
            catch(tf.switch_case, tf.constant(1), []),
            catch(tf.switch_case, tf.constant(1), 5), catch(tf.switch_case, tf.constant(1), {"a": lambda: 1}),
            catch(tf.switch_case, tf.constant(1), {1: lambda: "b", 3: lambda: "a"}),
            catch(tf.switch_case, tf.constant(1), [(0, 1), (1, lambda: 2)]),
            catch(tf.switch_case, tf.constant(1), [lambda: 1], default=3),
            catch(tf.switch_case, tf.constant([1]), fns)]


@case
def switch_case_gradient(tf):
    x = tf.constant(0.5, tf.float64)
    out = []
    for k in (0, 1, 5):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.switch_case(tf.constant(k), [lambda: tf.sin(x), lambda: x * x], default=lambda: 3.0 * x)
        out.append([y, tape.gradient(y, x)])
    return out

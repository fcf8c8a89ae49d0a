"""``tf.autodiff.ForwardAccumulator``: values, unconnected tangents, variables, nesting with
tapes and accumulators, Hessian-vector products, non-differentiable ops, complex tangents, errors and warnings.

The warning about a non-floating primal (complex ones included) is logged from one line of TF's own: five times
per process in all, so only ``complex_tangents`` (once) and ``integer_primal_warns`` (twice) trigger it.

Not matched, so not cased: TF returns the JVP of ``segment_sum`` (and of other ops whose gradient is a gather) as
``IndexedSlices``, an artefact of transposing a sparse gradient; tapeflow's tangents are always dense tensors.
"""
import inspect

import numpy as np

from tests.golden.harness import case, catch


def _f64(tf, v):
    return tf.constant(v, tf.float64)


# ---- values ------------------------------------------------------------------------------------------------


@case
def signatures(tf):
    acc = tf.autodiff.ForwardAccumulator
    return [str(inspect.signature(acc.__init__)), str(inspect.signature(acc.jvp))]


@case
def doc_example(tf):
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant([1.0, 0.0])) as acc:
        y = x * x
        s = tf.reduce_sum(y)
    return [acc.jvp(y), acc.jvp(s), acc.jvp(x)]


@case
def enter_returns_the_accumulator(tf):
    acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))
    with acc as entered:
        pass
    return entered is acc


@case
def chain_of_ops_float64(tf):
    x = _f64(tf, [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    w = _f64(tf, [[1.0, -2.0], [0.5, 0.3], [-1.0, 0.7]])
    tx = _f64(tf, [[1.0, 0.0, -1.0], [0.5, 2.0, 0.1]])
    tw = _f64(tf, [[0.2, 0.1], [-0.3, 1.0], [0.0, 0.4]])
    with tf.autodiff.ForwardAccumulator([x, w], [tx, tw]) as acc:
        h = tf.matmul(x, w)
        a = tf.nn.relu(h) + tf.sigmoid(h) * tf.tanh(h)
        p = tf.nn.softmax(a)
        lp = tf.nn.log_softmax(a, axis=0)
        e = tf.exp(tf.sin(x)) / (tf.square(x) + 1.0)
        r = tf.reduce_mean(tf.reshape(tf.transpose(x), [-1])[1:4])
        c = tf.concat([x, tf.sqrt(tf.abs(x))], axis=1)
        g = tf.gather(x, [1, 0, 1])
        m = tf.maximum(x, 0.3) - tf.minimum(x, 0.0) + x ** 3.0 + 2.0 ** x
        loss = tf.reduce_sum(p * tf.math.log(p)) + tf.reduce_logsumexp(h) + tf.reduce_max(e) + tf.reduce_prod(x)
    return [acc.jvp(t) for t in (h, a, p, lp, e, r, c, g, m, loss)]


@case
def nn_ops_float64(tf):
    img = _f64(tf, np.linspace(-1, 1, 32).reshape(1, 4, 4, 2))
    k = _f64(tf, np.linspace(-0.5, 0.5, 16).reshape(2, 2, 2, 2))
    timg = _f64(tf, np.cos(np.arange(32.0)).reshape(1, 4, 4, 2))
    tk = _f64(tf, np.sin(np.arange(16.0)).reshape(2, 2, 2, 2))
    with tf.autodiff.ForwardAccumulator([img, k], [timg, tk]) as acc:
        conv = tf.nn.conv2d(img, k, 1, "SAME")
        pool = tf.nn.max_pool2d(conv, 2, 2, "VALID")
        avg = tf.nn.avg_pool2d(conv, 2, 1, "VALID")
        b = tf.nn.bias_add(conv, tf.constant([0.5, -0.5], tf.float64))
        xent = tf.nn.softmax_cross_entropy_with_logits(tf.constant([[0.2, 0.8]], tf.float64),
                                                       tf.reshape(conv, [-1, 2])[:1])
        l2 = tf.nn.l2_loss(k)
    return [acc.jvp(t) for t in (conv, pool, avg, b, xent, l2)]


@case
def multi_output_ops(tf):
    m = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.autodiff.ForwardAccumulator(m, tf.constant([[1.0, 0.5, 0.0], [2.0, -1.0, 3.0]])) as acc:
        s = tf.split(m, 3, axis=1)
        u = tf.unstack(m)
        tk = tf.math.top_k(m[1], 2)
    return [acc.jvp(s), acc.jvp(u), acc.jvp(tk.values), acc.jvp(tk.indices)]


@case
def non_differentiable_ops_give_none(tf):
    x = tf.constant([1.2, 2.7])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5])) as acc:
        outs = [tf.round(x), tf.floor(x), tf.sign(x), tf.stop_gradient(x), tf.math.equal(x, x), tf.argmax(x),
                tf.identity(x), tf.zeros_like(x), tf.ones_like(x), tf.cast(x, tf.int32), tf.cast(x, tf.float64),
                tf.math.floordiv(x, 0.7), tf.math.floormod(x, 0.7)]
    return [acc.jvp(o) for o in outs]


@case
def complex_tangents(tf):
    c = tf.constant([1 + 2j, 3 - 1j], tf.complex128)
    with tf.autodiff.ForwardAccumulator(c, tf.constant([1 + 1j, 0.5j], tf.complex128)) as acc:
        outs = [c * c, tf.abs(c), tf.math.conj(c), tf.exp(c), tf.math.real(c), tf.math.imag(c), tf.sin(c) / c,
                tf.sqrt(c), tf.reduce_sum(c * tf.math.conj(c))]
    return [acc.jvp(o) for o in outs]


@case
def tangent_shape_not_validated(tf):
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0])) as acc:
        y = x * x
        s = tf.reduce_sum(tf.exp(x))
    return [acc.jvp(x), acc.jvp(y), acc.jvp(s)]


@case
def empty_segment_tangent_is_nan(tf):
    d = _f64(tf, [1.0, 3.0, 2.0, 5.0])
    ids = tf.constant([0, 0, 2, 2])
    with tf.autodiff.ForwardAccumulator(d, _f64(tf, [1.0, 2.0, 3.0, 4.0])) as acc:
        mx = tf.math.segment_max(d, ids)
        mean = tf.math.segment_mean(d, ids)
    return [acc.jvp(mx), acc.jvp(mean)]


# ---- unconnected, after exit, structures ---------------------------------------------------------------------


@case
def unconnected_none_and_zero(tf):
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
        y = x * x
        z = tf.constant(3.0)
    after = x * 3.0
    return [acc.jvp(z), acc.jvp(z, unconnected_gradients="zero"), acc.jvp(after),
            acc.jvp(after, unconnected_gradients=tf.UnconnectedGradients.ZERO),
            acc.jvp({"a": y, "b": [after, (y, z)]}), acc.jvp([y, after], "zero")]


@case
def reenter_after_exit_accumulates(tf):
    x = tf.constant([1.0, 2.0])
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5]))
    with acc:
        y = x * 2.0
    mid = x * 5.0
    with acc:
        z = y * x
    return [acc.jvp(y), acc.jvp(mid), acc.jvp(z)]


# ---- variables -----------------------------------------------------------------------------------------------


@case
def variable_primal(tf):
    v = tf.Variable([1.0, 2.0])
    before = v * 1.0
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        y = tf.reduce_sum(v ** 3.0)
        r = v.read_value()
        b2 = before * 2.0
        v.assign([3.0, 4.0])
        after_assign = v * 2.0
    return [acc.jvp(y), acc.jvp(v), acc.jvp(r), acc.jvp(b2), acc.jvp(after_assign),
            acc.jvp([v, y], unconnected_gradients="zero")]


@case
def variable_not_a_primal(tf):
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 1.0])) as acc:
        y = v * x
    return [acc.jvp(y), acc.jvp(v), acc.jvp(v, "zero")]


@case
def variables_and_tensors_together(tf):
    v = tf.Variable(2.0)
    x = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator({"v": v, "x": x}, {"v": tf.constant(1.0), "x": tf.constant(10.0)}) as acc:
        y = v * v * x
    return acc.jvp(y)


# ---- nesting and Hessian-vector products ---------------------------------------------------------------------


@case
def hvp_forward_over_reverse_doc(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v ** 3.0)
        backward = tape.gradient(y, v)
    return [backward, acc.jvp(backward)]


@case
def hvp_forward_over_reverse_float64(tf):
    x = _f64(tf, [0.3, -1.2, 0.8])
    with tf.autodiff.ForwardAccumulator(x, _f64(tf, [1.0, 0.5, -2.0])) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.sin(x) * x) + tf.reduce_logsumexp(x * x) + tf.norm(x)
        g = tape.gradient(y, x)
    return [g, acc.jvp(g)]


@case
def tape_outside_accumulator(tf):
    x = tf.constant([1.0, 2.0])
    t = tf.constant([1.0, 0.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, t])
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            y = x * x * x
        j = acc.jvp(y)
    return [j, tape.gradient(j, x), tape.gradient(j, t), tape.gradient(y, x)]


@case
def tape_inside_accumulator(tf):
    x = tf.constant([1.0, 2.0])
    t = tf.constant([1.0, 0.5])
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, t])
            y = x * x * x
            j = acc.jvp(y)
        g = tape.gradient(y, x)
    return [j, tape.gradient(j, x), tape.gradient(j, t), g, acc.jvp(g)]


@case
def accumulators_nested(tf):
    p = _f64(tf, 1.1)
    with tf.autodiff.ForwardAccumulator(p, _f64(tf, 1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(p, _f64(tf, 1.0)) as inner:
            po = p ** _f64(tf, 3.5)
    ij = inner.jvp(po)
    return [ij, outer.jvp(ij), outer.jvp(po), inner.jvp(outer.jvp(po))]


# ---- errors and warnings -------------------------------------------------------------------------------------


@case
def duplicate_primal(tf):
    x = tf.constant([1.0, 2.0])
    v = tf.Variable(1.0)
    return [catch(tf.autodiff.ForwardAccumulator, [x, x], [x, x]),
            catch(tf.autodiff.ForwardAccumulator, {"a": v, "b": v}, {"a": 1.0, "b": 2.0})]


@case
def reenter_while_recording(tf):
    acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))

    def enter_twice():
        with acc:
            with acc:
                pass

    result = catch(enter_twice)
    y = tf.constant(1.0) * 2.0  # the failed re-entry left the accumulator's state consistent
    return [result, acc.jvp(y)]


@case
def pop_when_not_recording(tf):
    acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))
    acc.__enter__()
    acc.__exit__(None, None, None)
    acc.__exit__(None, None, None)  # a second exit is silent
    return catch(acc._pop_accumulator)


@case
def bad_arguments(tf):
    x = tf.constant([1.0, 2.0])
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0]))
    return [catch(acc.jvp, x, unconnected_gradients="foo"), catch(acc.jvp, None), catch(acc.jvp, 3.0),
            catch(acc.jvp, [1.0, 2.0]), catch(tf.autodiff.ForwardAccumulator, 3.0, 1.0),
            catch(tf.autodiff.ForwardAccumulator, x, tf.constant([1.0, 2.0], tf.float64)),
            catch(tf.autodiff.ForwardAccumulator, [x], [x, x]).type,
            catch(tf.autodiff.ForwardAccumulator, x, [1.0, 2.0]).type]


@case
def python_tangents_are_converted(tf):
    x = tf.constant(2.0)
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.autodiff.ForwardAccumulator([x, v], [3, np.array([1, 2])]) as acc:
        y = x * x
        z = v * 2.0
    return [acc.jvp(x), acc.jvp(v), acc.jvp(y), acc.jvp(z)]


@case
def integer_primal_warns(tf):
    xi = tf.constant([1, 2])
    with tf.autodiff.ForwardAccumulator(xi, tf.constant([1, 0])) as acc:
        y = xi * 2
        yf = tf.cast(xi, tf.float32) * 2.0
    c = tf.constant(1 + 1j)
    with tf.autodiff.ForwardAccumulator(c, tf.constant(2j)) as acc2:
        w = c * c
    return [acc.jvp(xi), acc.jvp(y), acc.jvp(yf), acc2.jvp(w)]


@case
def softsign_has_no_forward_mode(tf):
    x = tf.constant([0.5, -1.0])

    def run():
        with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)):
            tf.nn.softsign(x)

    return catch(run)


@case
def custom_gradient_function_is_differentiated_by_its_own_ops(tf):
    # Forward mode ignores grad_fn: the tangent of a custom-gradient call is that of the function's own ops.
    @tf.custom_gradient
    def scaled(x):
        def grad(dy):
            return 10.0 * dy

        return 3.0 * x * x, grad

    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5])) as acc:
        y = scaled(x)
        z = tf.reduce_sum(y * 2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        w = scaled(x)
    return [acc.jvp(y), acc.jvp(z), tape.gradient(w, x)]

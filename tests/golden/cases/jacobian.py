"""``GradientTape.jacobian`` and ``batch_jacobian``: shapes, values, dtypes, unconnected
sources, nested sources, sparse gradients, the loop path and every error."""

import numpy as np

from tests.golden.harness import FLOAT_DTYPES, case, catch


def _xx(tf, dtype="float32", persistent=False):
    x = tf.constant([1.0, 2.0], dtype=dtype)
    tape = tf.GradientTape(persistent=persistent)
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


@case
def retracing_warning_on_fifth_and_sixth_vectorised_call(tf):
    """TF traces a ``tf.function`` per vectorised call and its detector warns twice per process, on the 5th and
    6th call. This case comes first and makes eight calls, so both warnings land here even when a few jacobians
    ran earlier in the process (other test files)."""
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    return [tape.jacobian(y, x) for _ in range(8)][-1]


@case
def jacobian_square_both_dtypes(tf):
    out = []
    for dt in FLOAT_DTYPES:
        tape, x, y = _xx(tf, dt)
        out.append(tape.jacobian(y, x))
    return out


@case
def jacobian_matmul_shape(tf):
    W = tf.Variable(np.arange(6.0).reshape(3, 2).astype(np.float32))
    with tf.GradientTape() as tape:
        y = tf.matmul(tf.constant([[1.0, 2.0, 3.0]]), W)
    return tape.jacobian(y, W)


@case
def jacobian_scalar_target_and_scalar_source(tf):
    x = tf.constant([0.5, -1.5, 2.0], tf.float64)
    s = tf.constant(1.5, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, s])
        y = tf.reduce_sum(tf.sin(x) * s)
        z = x * s
    return [tape.jacobian(y, x), tape.jacobian(y, s), tape.jacobian(z, s)]


@case
def jacobian_mlp_two_layers(tf):
    rng = np.random.default_rng(0)
    out = []
    for dt in FLOAT_DTYPES:
        w1, w2 = (tf.constant(rng.standard_normal((4, 4)).astype(dt) / 2) for _ in range(2))
        b = tf.constant(rng.standard_normal(4).astype(dt))
        x = tf.constant(rng.standard_normal(4).astype(dt))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, w1])
            y = tf.tanh(tf.linalg.matvec(w2, tf.tanh(tf.linalg.matvec(w1, x) + b)))
        out += [tape.jacobian(y, x), tape.jacobian(y, w1), tape.jacobian(y, x, experimental_use_pfor=False)]
    return out


@case
def jacobian_softmax_reductions_and_shapes(tf):
    x = tf.constant([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = tf.nn.softmax(x, axis=0)
        r = tf.reduce_mean(tf.transpose(s) * tf.reshape(x, (3, 2)), axis=1)
        c = tf.concat([tf.reduce_max(x, axis=0), tf.reduce_sum(x[:, 1:], axis=1)], 0)
    return [tape.jacobian(s, x), tape.jacobian(r, x), tape.jacobian(c, x)]


@case
def jacobian_unconnected_none_and_zero(tf):
    a, c = tf.constant([1.0, 2.0]), tf.constant([[1.0, 2.0, 3.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, c])
        y = a * 3.0
    return [tape.jacobian(y, c), tape.jacobian(y, c, unconnected_gradients="zero"),
            tape.jacobian(y, [a, c], unconnected_gradients=tf.UnconnectedGradients.ZERO),
            catch(tape.jacobian, y, c, unconnected_gradients="zero", experimental_use_pfor=False)]


@case
def jacobian_nested_sources(tf):
    a, b = tf.constant([1.0, 2.0]), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    return tape.jacobian(y, {"first": [a, (b,)], "second": a})


@case
def jacobian_sparse_gradients_densified(tf):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.gather(v, [2, 0, 2]) * 2.0
    # (the vectorised path is left out: TF logs a warning there naming its graph tensors)
    return tape.jacobian(y, v, experimental_use_pfor=False)


@case
def jacobian_empty_target(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x[:0] * 2.0
    return [tape.jacobian(y, x), catch(tape.jacobian, y, x, experimental_use_pfor=False)]


@case
def jacobian_non_persistent_used_once(tf):
    tape, x, y = _xx(tf)
    first = tape.jacobian(y, x)
    return [first, catch(tape.jacobian, y, x), catch(tape.gradient, y, x)]


@case
def jacobian_after_gradient_fails(tf):
    tape, x, y = _xx(tf)
    tape.gradient(y, x)
    return catch(tape.jacobian, y, x)


@case
def jacobian_no_pfor_non_persistent(tf):
    tape, x, y = _xx(tf)
    return [catch(tape.jacobian, y, x, experimental_use_pfor=False), tape.jacobian(y, x)]


@case
def jacobian_no_pfor_persistent_with_parallel_iterations(tf):
    tape, x, y = _xx(tf, "float64", persistent=True)
    return [tape.jacobian(y, x, experimental_use_pfor=False, parallel_iterations=2),
            tape.jacobian(y, x, parallel_iterations=2)]


@case
def jacobian_list_target_fails(tf):
    tape, x, y = _xx(tf)
    return catch(tape.jacobian, [y], x)


@case
def jacobian_bad_unconnected_value(tf):
    tape, x, y = _xx(tf, persistent=True)
    return [catch(tape.jacobian, y, x, unconnected_gradients="nope"),
            catch(tape.jacobian, y, x, unconnected_gradients="nope", experimental_use_pfor=False),
            catch(tape.batch_jacobian, tf.reshape(y, (1, 2)), tf.reshape(x, (1, 2)), unconnected_gradients="nope")]


@case
def hessian_by_nested_jacobians(tf):
    x = tf.constant([0.3, -0.7, 1.1], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.exp(x) * tf.sin(tf.reverse(x, [0])))
        g = inner.jacobian(y, x)
    return [g, outer.jacobian(g, x)]


@case
def batch_jacobian_values(tf):
    out = []
    for dt in FLOAT_DTYPES:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]], dt)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            z = tf.stack([tf.reduce_sum(x, axis=1), tf.reduce_prod(x, axis=1), x[:, 0]], axis=1)
        out += [tape.batch_jacobian(y, x), tape.batch_jacobian(z, x),
                tape.batch_jacobian(z, x, experimental_use_pfor=False)]
    return out


@case
def batch_jacobian_higher_rank(tf):
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal((2, 3, 2)))
    w = tf.constant(rng.standard_normal((2, 4)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.reshape(x, (2, 6))[:, :2] @ w)
    return tape.batch_jacobian(y, x)


@case
def batch_jacobian_unconnected_gives_zeros(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    u = tf.constant([[1.0], [2.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    return [tape.batch_jacobian(y, u), tape.batch_jacobian(y, u, unconnected_gradients="zero"),
            tape.batch_jacobian(y, u, experimental_use_pfor=False),
            catch(tape.batch_jacobian, y, u, unconnected_gradients="zero", experimental_use_pfor=False)]


@case
def batch_jacobian_errors(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    return [catch(tape.batch_jacobian, y[0], x), catch(tape.batch_jacobian, y, x[0]),
            catch(tape.batch_jacobian, y, tf.zeros((3, 1))), catch(tape.batch_jacobian, tf.zeros((3, 1)), x)]


@case
def batch_jacobian_non_persistent(tf):
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    first = catch(tape.batch_jacobian, y, x, experimental_use_pfor=False)
    return [first, tape.batch_jacobian(y, x), catch(tape.batch_jacobian, y, x)]

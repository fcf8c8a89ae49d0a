"""tf.custom_gradient, tf.recompute_grad and tf.grad_pass_through.

Cases record what ``grad_fn`` receives (upstream values, dtypes, the ``variables`` list) as well as the gradients
that come out, and every error TensorFlow raises for a malformed ``grad_fn``.
"""

from tests.golden.harness import case, catch

# ---- 4.1 the basic contract ---------------------------------------------------------------------------------


def _log1pexp(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    return log1pexp


@case
def log1pexp_value_and_gradient(tf):
    f = _log1pexp(tf)
    out = {}
    for dt in (tf.float32, tf.float64):
        x = tf.constant([-3.0, 0.0, 2.0, 100.0], dt)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        out[dt.name] = [y, tape.gradient(y, x)]
    return out


@case
def log1pexp_second_derivative_through_captured_intermediate(tf):
    f = _log1pexp(tf)
    x = tf.constant([-1.0, 0.5, 2.0], tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return [g, outer.gradient(g, x)]


@case
def ops_inside_f_stay_on_the_tape(tf):
    leaked = []

    @tf.custom_gradient
    def f(x):
        e = tf.exp(x)
        leaked.append(e)
        return e * 2.0, lambda dy: dy * 100.0

    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
        z = leaked[0] * 3.0
    return [tape.gradient(y, x), tape.gradient(z, x), tape.gradient(y, leaked[0])]


@case
def output_is_a_new_tensor(tf):
    @tf.custom_gradient
    def ident(x):
        return x, lambda dy: dy * 5.0

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ident(x)
    return [y is x, y, tape.gradient(y, x)]


@case
def two_inputs_and_none_gradient(tf):
    @tf.custom_gradient
    def f(a, b):
        def grad(dy):
            return None, dy * a * 10.0

        return a * b, grad

    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    return tape.gradient(y, [a, b])


@case
def unconnected_zero_for_none_gradient(tf):
    @tf.custom_gradient
    def f(a, b):
        # (a gradient of another shape than its input: TF passes it on unreduced, tapeflow sums it to the
        # input's shape like every rule's gradient, so it is kept the right shape here)
        return a * b, lambda dy: (None, tf.reduce_sum(dy))

    a, b = tf.constant([1.0, 2.0]), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    return tape.gradient(y, [a, b], unconnected_gradients="zero")


@case
def gradients_as_list_or_tuple(tf):
    @tf.custom_gradient
    def f(a, b):
        return a * b, lambda dy: [dy * b, dy * a]

    @tf.custom_gradient
    def g(a):
        return a * 2.0, lambda dy: (dy * 7.0,)

    a, b = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = f(a, b)
        z = g(a)
    return [tape.gradient(y, [a, b]), tape.gradient(z, a)]


@case
def python_number_argument_needs_a_gradient(tf):
    @tf.custom_gradient
    def one(a, k):
        return a * k, lambda dy: dy * k

    @tf.custom_gradient
    def two(a, k):
        return a * k, lambda dy: (dy * k, None)

    x = tf.constant(2.0)

    def run(fn):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, 3.0)
        return tape.gradient(y, x)

    return [catch(run, one), run(two)]


@case
def string_argument_counts_as_input(tf):
    @tf.custom_gradient
    def f(a, mode):
        return a * 2.0, lambda dy: (dy * 2.0, None)

    x = tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, "fast")
    return tape.gradient(y, x)


@case
def nested_arguments_flatten(tf):
    @tf.custom_gradient
    def f(pair, scale):
        a, b = pair

        def grad(dy):
            return [dy * b * scale, dy * a * scale], dy * a * b

        return a * b * scale, grad

    a, b, s = tf.constant(2.0), tf.constant(3.0), tf.constant(0.5)
    with tf.GradientTape() as tape:
        tape.watch([a, b, s])
        y = f([a, b], s)
    return tape.gradient(y, [a, b, s])


@case
def keyword_arguments_are_not_differentiated(tf):
    @tf.custom_gradient
    def f(a, scale=1.0):
        return a * scale, lambda dy: dy * scale

    x, s = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, s])
        y = f(x, scale=s)
    return [y, tape.gradient(y, [x, s])]


@case
def python_result_becomes_a_tensor(tf):
    @tf.custom_gradient
    def f(a):
        return 5.0, lambda dy: dy

    return f(tf.constant(1.0))


@case
def dict_result(tf):
    @tf.custom_gradient
    def f(a):
        def grad(d_double, d_square):
            return d_double * 2.0 + d_square * 2.0 * a

        return {"square": a * a, "double": a * 2.0}, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
        t = y["square"]
    return [sorted(y), y["double"], tape.gradient(t, x)]


@case
def call_without_tape_and_no_watched_input(tf):
    calls = []

    @tf.custom_gradient
    def f(a):
        def grad(dy):
            calls.append(1)
            return dy

        return a * 2.0, grad

    x = tf.constant(1.0)
    y0 = f(x)
    with tf.GradientTape() as tape:
        y1 = f(x)
    return [y0, y1, tape.gradient(y1, x), len(calls)]


@case
def persistent_tape_calls_grad_fn_each_time(tf):
    seen = []

    @tf.custom_gradient
    def f(a):
        def grad(dy):
            seen.append(dy)
            return dy * 2.0

        return a * 3.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
        z = y * y
    return [tape.gradient(z, x), tape.gradient(y, x), seen]


@case
def output_gradients_reach_grad_fn(tf):
    seen = []

    @tf.custom_gradient
    def f(a):
        def grad(dy):
            seen.append(dy)
            return dy * 2.0

        return a * 3.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [tape.gradient(y, x, output_gradients=tf.constant([10.0, -1.0])), seen]


@case
def nested_custom_gradients(tf):
    @tf.custom_gradient
    def inner(a):
        return a * a, lambda dy: dy * 100.0

    @tf.custom_gradient
    def outer(a):
        y = inner(a) + 1.0
        return y, lambda dy: dy * -1.0

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y_in = inner(x)
        y_out = outer(x)
    return [y_in, tape.gradient(y_in, x), y_out, tape.gradient(y_out, x)]


@case
def method_decoration(tf):
    class Scaler:
        def __init__(self):
            self.k = tf.constant(4.0)

        @tf.custom_gradient
        def apply(self, a):
            return a * self.k, lambda dy: dy * self.k * 10.0

    x = tf.constant(1.5)
    s = Scaler()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = s.apply(x)
    return [y, tape.gradient(y, x)]


@case
def decorator_called_without_function(tf):
    def f(a):
        return a * 2.0, lambda dy: dy * 3.0

    g = tf.custom_gradient()(f)
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = g(x)
    return [g.__name__, g.__wrapped__ is f, y, tape.gradient(y, x)]


@case
def float64_and_matrix_shapes(tf):
    @tf.custom_gradient
    def f(w, x):
        def grad(dy):
            return tf.matmul(dy, x, transpose_b=True), tf.matmul(w, dy, transpose_a=True)

        return tf.matmul(w, x), grad

    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], tf.float64)
    x = tf.constant([[1.0], [-1.0]], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([w, x])
        y = f(w, x)
        loss = tf.reduce_sum(y * y)
    return tape.gradient(loss, [w, x])


# ---- 4.2 errors ----------------------------------------------------------------------------------------------


@case
def wrong_gradient_count(tf):
    @tf.custom_gradient
    def too_few(a, b):
        return a * b, lambda dy: dy * b

    @tf.custom_gradient
    def too_many(a):
        return a * 2.0, lambda dy: (dy, dy, dy)

    a, b = tf.constant(2.0), tf.constant(3.0)

    def run(fn, *args):
        with tf.GradientTape() as tape:
            tape.watch(list(args))
            y = fn(*args)
        return tape.gradient(y, list(args))

    return [catch(run, too_few, a, b), catch(run, too_many, a)]


@case
def f_must_return_a_pair(tf):
    @tf.custom_gradient
    def scalar(a):
        return a

    @tf.custom_gradient
    def three(a):
        return a, a, a

    return [catch(scalar, tf.constant(1.0)), catch(three, tf.constant(1.0))]


@case
def none_argument_cannot_be_converted(tf):
    @tf.custom_gradient
    def f(a, mode):
        return a * 1.0, lambda dy: (dy, None)

    return catch(f, tf.constant(1.0), None)


# ---- 4.3 several outputs -------------------------------------------------------------------------------------


@case
def unused_outputs_get_zero_upstream(tf):
    seen = []

    @tf.custom_gradient
    def f(a):
        def grad(d1, d2):
            seen.append([d1, d2])
            return d1 * 2.0 + d2 * 3.0

        return (a * 2.0, a * 3.0), grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1, y2 = f(x)
    return [tape.gradient(y1, x), tape.gradient(y2, x), tape.gradient([y1, y2], x), seen]


@case
def integer_output_gets_integer_zeros(tf):
    seen = []

    @tf.custom_gradient
    def f(a):
        def grad(d1, d2):
            seen.append([d1, d2])
            return d1 * 2.0

        return (a * 2.0, tf.constant([1, 2])), grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y1, y2 = f(x)
    return [y2, tape.gradient(y1, x), seen]


@case
def list_result_of_one(tf):
    seen = []

    @tf.custom_gradient
    def f(a):
        def grad(dy):
            seen.append(dy)
            return dy * 4.0

        return [a * 2.0], grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [type(y).__name__, y, tape.gradient(y, x), seen]


# ---- 4.4 variables read inside f -----------------------------------------------------------------------------


@case
def variables_keyword(tf):
    v = tf.Variable(2.0, name="v")
    seen = []

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            seen.append(variables)
            return dy * v, [dy * x * 10.0]

        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [tape.watched_variables(), tape.gradient(y, [x, v]), seen]


@case
def variables_keyword_without_auto_watch(tf):
    v = tf.Variable(2.0, name="v")

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables=None: (dy * v, [dy * x])

    x = tf.constant(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = f(x)
    return [tape.watched_variables(), tape.gradient(y, [x, v])]


@case
def variables_gradient_for_only_the_variable(tf):
    v = tf.Variable([1.0, 2.0], name="v")

    @tf.custom_gradient
    def f(x):
        return tf.reduce_sum(x * v), lambda dy, variables: (dy * v, [dy * x * 2.0])

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        y = f(x)
    return tape.gradient(y, [x, v])


@case
def missing_variables_keyword(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy * v

    x = tf.constant(1.0)

    def on_tape():
        with tf.GradientTape() as tape:
            tape.watch(x)
            return f(x)

    return [catch(f, x), catch(on_tape)]


@case
def wrong_variable_gradient_count(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables=None: (dy * v, [])

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return catch(tape.gradient, y, [x, v])


@case
def variable_gradients_as_tuple_fail(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables=None: (dy * 2.0, (dy * 3.0,))

    @tf.custom_gradient
    def g(x):
        return x * v, lambda dy, variables=None: ([dy * 2.0], [dy * 3.0])

    x = tf.constant(1.0)
    out = []
    for fn in (f, g):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        out.append(catch(tape.gradient, y, [x, v]))
    return out


@case
def grad_fn_without_pair_when_variables(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy, variables=None: dy * 2.0

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return catch(tape.gradient, y, [x, v])


@case
def grad_fn_with_var_keyword_dict(tf):
    v = tf.Variable(2.0, name="v")
    seen = []

    @tf.custom_gradient
    def f(x):
        def grad(dy, **kw):
            seen.append(kw)
            return dy * v, [None]

        return x * v, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [tape.gradient(y, [x, v]), seen]


@case
def variable_passed_as_argument(tf):
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x, var):
        return x * var, lambda dy: (dy * var, dy * x * 5.0)

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, v)
    return tape.gradient(y, [x, v])


@case
def non_trainable_variable_is_not_collected(tf):
    u = tf.Variable(3.0, trainable=False)

    @tf.custom_gradient
    def f(x):
        return x * u, lambda dy: dy * u

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return [y, tape.gradient(y, [x, u])]


# ---- 4.5 higher order -----------------------------------------------------------------------------------------


@case
def third_derivative_of_custom_cube(tf):
    @tf.custom_gradient
    def cube(x):
        return x * x * x, lambda dy: dy * 3.0 * x * x

    x = tf.constant(2.0, tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = cube(x)
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    return [g1, g2, t3.gradient(g2, x)]


@case
def clip_gradient_norm(tf):
    @tf.custom_gradient
    def clip(x):
        return tf.identity(x), lambda dy: tf.clip_by_norm(dy, 1.0)

    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clip(x) * tf.constant([30.0, 40.0]))
    return tape.gradient(y, x)


# ---- 4.7 recompute_grad --------------------------------------------------------------------------------------


def _recompute_setup(tf):
    v = tf.Variable(3.0, name="v")
    calls = []

    def f(a, b=None):
        calls.append(1)
        y = tf.sin(a) * v
        if b is not None:
            y = y * b
        return y

    return v, calls, f


@case
def recompute_matches_plain_function(tf):
    v, calls, f = _recompute_setup(tf)
    rf = tf.recompute_grad(f)
    x = tf.constant([1.0, 2.0])
    out = []
    for fn in (f, rf):
        calls.clear()
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        forward_calls = len(calls)
        g = tape.gradient(y, [x, v])
        out.append([y, g, forward_calls, len(calls), tape.watched_variables()])
    return [out, rf.__name__, rf.__wrapped__ is f]


@case
def recompute_keyword_argument(tf):
    v, calls, f = _recompute_setup(tf)
    rf = tf.recompute_grad(f)
    x, b = tf.constant([1.0, 2.0]), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([x, b])
        y = rf(x, b=b)
    return [y, tape.gradient(y, [x, v, b])]


@case
def recompute_only_variable(tf):
    v, calls, f = _recompute_setup(tf)
    rf = tf.recompute_grad(f)
    x = tf.constant([0.5, 1.0])
    with tf.GradientTape() as tape:
        y = rf(x)
    return tape.gradient(y, [x, v])


@case
def recompute_output_gradients(tf):
    v, calls, f = _recompute_setup(tf)
    rf = tf.recompute_grad(f)
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = rf(x)
    return tape.gradient(y, [x, v], output_gradients=tf.constant([1.0, 10.0]))


@case
def recompute_several_outputs(tf):
    rm = tf.recompute_grad(lambda a: (a * 2.0, a * a))
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1, y2 = rm(x)
    return [tape.gradient(y2, x), tape.gradient([y1, y2], x)]


@case
def recompute_dict_output(tf):
    rd = tf.recompute_grad(lambda a: {"p": a * 3.0})
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = rd(x)
    return [y, tape.gradient(y, x)]


@case
def recompute_unused_and_unwatched_arguments(tf):
    ru = tf.recompute_grad(lambda a, c: a * 2.0)
    r2 = tf.recompute_grad(lambda a, c: a * c)
    x, c = tf.constant([1.0, 2.0]), tf.constant(4.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = ru(x, c)
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y2 = r2(x, c)
    with tf.GradientTape() as tape3:
        tape3.watch(x)
        y3 = r2(x, 4.0)
    return [tape.gradient(y, [x, c]), tape2.gradient(y2, [x, c]), tape3.gradient(y3, x)]


@case
def recompute_integer_argument(tf):
    ri = tf.recompute_grad(lambda a, i: a * tf.cast(i, tf.float32))
    x, i = tf.constant([1.0, 2.0]), tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ri(x, i)
    return tape.gradient(y, [x, i])


@case
def recompute_chain_of_blocks(tf):
    w = tf.Variable([[0.5, -0.2], [0.1, 0.3]], name="w")

    def block(h):
        return tf.nn.relu(tf.matmul(h, w) + 0.1)

    rb = tf.recompute_grad(block)
    x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
    out = []
    for fn in (block, rb):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = x
            for _ in range(3):
                h = fn(h)
            loss = tf.reduce_sum(h * h)
        out.append([loss, tape.gradient(loss, [x, w])])
    return out


@case
def recompute_without_tape(tf):
    rf = tf.recompute_grad(lambda a: tf.exp(a))
    return rf(tf.constant([0.0, 1.0]))


# ---- grad_pass_through ----------------------------------------------------------------------------------------


@case
def grad_pass_through_assign(tf):
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z ** 2)
    return [x, tape.gradient(y, z)]


@case
def grad_pass_through_round(tf):
    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.round)(x) * tf.constant([2.0, 3.0])
    return [y, tape.gradient(y, x)]

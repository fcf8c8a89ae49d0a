"""Control flow inside ``tf.function``: ``tf.cond``, ``tf.while_loop``, ``tf.switch_case`` and ``tf.case`` as graph
nodes (both branches traced, values, gradients from tapes inside and outside, second derivatives, variables read
and assigned in branches), and AutoGraph's conversion of Python ``if``/``while``/``for`` with ``break``,
``continue`` and ``return`` on tensors (its errors for variables a branch leaves undefined or retypes)."""

import numpy as np

from tests.golden.cases.function_tracing import _err, count
from tests.golden.harness import case

# ---- tf.cond / tf.while_loop / tf.switch_case in a trace --------------------------------------------------------


@case
def traced_cond_traces_both_branches(tf):
    seen = []

    @tf.function
    def f(x):
        def yes():
            seen.append("true")
            return x * 2.0

        def no():
            seen.append("false")
            return x - 1.0

        return tf.cond(x > 0, yes, no)

    return [f(tf.constant(3.0)), f(tf.constant(-3.0)), seen, count(f)]


@case
def traced_cond_structures_and_python_values(tf):
    @tf.function
    def f(x):
        a = tf.cond(x > 0, lambda: {"p": x, "q": (x, 1)}, lambda: {"p": -x, "q": (x * 3.0, 2)})
        b = tf.cond(x > 0, lambda: None, lambda: None)
        c = tf.cond(x > 0, lambda: [x], lambda: [x + 1.0])
        return a, b, c

    return [f(tf.constant(2.0)), f(tf.constant(-2.0))]


@case
def traced_cond_errors(tf):
    @tf.function
    def python_bool(x):
        return tf.cond(True, lambda: x, lambda: -x)

    @tf.function
    def dtypes(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.int32))

    @tf.function
    def python_types(x):
        return tf.cond(x > 0, lambda: 1, lambda: 2.0)

    return [_err(python_bool, tf.constant(1.0)), _err(dtypes, tf.constant(1.0)),
            _err(python_types, tf.constant(1.0))]


@case
def traced_cond_error_in_branch_taken(tf):
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.gather(x[None], tf.cast(tf.nn.relu(-x) * 5.0, tf.int32)))

    return [f(tf.constant(1.0)), _err(f, tf.constant(-1.0)).type]


@case
def traced_cond_untaken_branch_fails_on_trace_values(tf):
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.gather(x[None], 5))

    return [f(tf.constant(1.0)), _err(f, tf.constant(-1.0)).type]


@case
def traced_case_without_default_asserts(tf):
    @tf.function
    def f(x):
        return tf.case([(x > 0, lambda: x), (x < -5, lambda: -x)])

    failed = _err(f, tf.constant(-2.0))
    return [f(tf.constant(1.0)), f(tf.constant(-7.0)), failed.type,
            [line for line in failed.message.splitlines() if line.startswith("assertion failed")]]


@case
def traced_cond_gradients(tf):
    v = tf.Variable(2.0)

    @tf.function
    def inside(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(x > 0, lambda: x * x * v, lambda: x * 3.0)
        return tape.gradient(y, [x, v])

    @tf.function
    def plain(x):
        return tf.cond(x > 0, lambda: tf.sin(x) * v, lambda: x * 3.0)

    out = [inside(tf.constant(2.0)), inside(tf.constant(-2.0))]
    for value in (0.5, -0.5):
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = plain(x)
        out.append(tape.gradient(y, [x, v]))
    return out


@case
def traced_cond_second_derivative(tf):
    @tf.function
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.cond(x > 0, lambda: x * x * x, lambda: tf.sin(x))
            g = t1.gradient(y, x)
        return g, t2.gradient(g, x)

    return [f(tf.constant(2.0)), f(tf.constant(-1.0))]


@case
def traced_cond_assigns_variables(tf):
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        tf.cond(x > 0, lambda: v.assign_add(x), lambda: v.assign_sub(x))
        return v.read_value()

    return [f(tf.constant(2.0)), f(tf.constant(-1.0)), v.numpy(), count(f)]


@case
def traced_while_loop_values(tf):
    @tf.function
    def f(x, n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * x), [0, 1.0])

    @tf.function
    def single(x):
        return tf.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, [x])

    @tf.function
    def capped(x):
        return tf.while_loop(lambda v: v < 100.0, lambda v: (v * 3.0,), (x,), maximum_iterations=2)

    return [f(tf.constant(2.0), tf.constant(5)), f(tf.constant(3.0), tf.constant(0)), single(tf.constant(2.0)),
            capped(tf.constant(2.0)), count(f)]


@case
def traced_while_loop_errors(tf):
    @tf.function
    def shape_changes(x):
        return tf.while_loop(lambda v: tf.size(v) < 5, lambda v: tf.concat([v, v], 0), [x])

    @tf.function
    def dtype_changes(x):
        return tf.while_loop(lambda v: v < 5, lambda v: tf.cast(v, tf.float64) + 1, [x])

    @tf.function
    def invariant(x):
        return tf.while_loop(lambda v: tf.size(v) < 5, lambda v: tf.concat([v, v], 0), [x],
                             shape_invariants=[tf.TensorShape([None])])

    return [_err(shape_changes, tf.constant([1.0])), _err(dtype_changes, tf.constant(1.0)),
            invariant(tf.constant([1.0]))]


@case
def traced_while_loop_gradients(tf):
    def body(i, v, x):
        return i + 1, tf.sin(v) * x

    @tf.function
    def inside(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.while_loop(lambda i, v: i < 3, lambda i, v: body(i, v, x), [0, x])[1]
            g = t1.gradient(y, x)
        return y, g, t2.gradient(g, x)

    @tf.function
    def plain(x):
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: body(i, v, x), [0, x])[1]

    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = plain(x)
    return [inside(tf.constant(0.7, tf.float64)), y, tape.gradient(y, x)]


@case
def traced_while_loop_variable_gradient(tf):
    w = tf.Variable(1.5)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            _, y = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * w + x), [0, x])
        return y, tape.gradient(y, w)

    return [f(tf.constant(1.0))]


@case
def traced_switch_case_and_case(tf):
    @tf.function
    def switch(i, x):
        return tf.switch_case(i, [lambda: x, lambda: x * 2.0, lambda: x * 3.0])

    @tf.function
    def cases(x):
        return tf.case([(x > 0, lambda: x), (x < -5, lambda: -x)], default=lambda: 2 * x)

    return [switch(tf.constant(0), 1.0), switch(tf.constant(2), 1.0), switch(tf.constant(9), 1.0),
            switch(tf.constant(-1), 1.0), cases(tf.constant(1.0)), cases(tf.constant(-7.0)),
            cases(tf.constant(-2.0))]


# ---- AutoGraph ----------------------------------------------------------------------------------------------------


@case
def autograph_if_on_tensors_and_python_values(tf):
    seen = []

    @tf.function
    def f(x, flag):
        if flag:
            seen.append("python branch")
            y = x + 1.0
        else:
            y = x - 1.0
        if y > 0:
            seen.append("tensor branch")
            z = y * 10.0
        else:
            z = -y
        return z

    return [f(tf.constant(2.0), True), f(tf.constant(-5.0), True), f(tf.constant(0.5), False), seen, count(f)]


@case
def autograph_if_errors(tf):
    @tf.function
    def undefined_else(x):
        if x > 0:
            y = x
        return y

    @tf.function
    def undefined_main(x):
        if x > 0:
            pass
        else:
            y = x
        return y

    @tf.function
    def retyped(x):
        if x > 0:
            y = x
        else:
            y = 1
        return y

    @tf.function
    def local_only(x):
        if x > 0:
            t = x * 2.0
            x = t + 1.0
        return x

    return [_err(undefined_else, tf.constant(1.0)), _err(undefined_main, tf.constant(1.0)),
            _err(retyped, tf.constant(1.0)), local_only(tf.constant(1.0)), local_only(tf.constant(-1.0))]


@case
def autograph_return_inside_if(tf):
    @tf.function
    def f(x):
        if x > 0:
            return x
        return -x

    @tf.function
    def g(x):
        if x > 10.0:
            return x, 1
        elif x > 0:
            return x * 2.0, 2
        else:
            return x * 3.0, 3

    return [f(tf.constant(-2.0)), f(tf.constant(3.0)), g(tf.constant(20.0)), g(tf.constant(1.0)),
            g(tf.constant(-1.0))]


@case
def autograph_while_loops(tf):
    @tf.function
    def doubling(x):
        while x < 10:
            x = x * 2
            if x > 7:
                break
        return x

    @tf.function
    def collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    @tf.function
    def python_loop(x):
        k = 0
        while k < 3:
            x = x + 1.0
            k += 1
        return x, k

    return [doubling(tf.constant(1.0)), doubling(tf.constant(20.0)), collatz(tf.constant(27)),
            python_loop(tf.constant(0.0))]


@case
def autograph_for_loops(tf):
    seen = []

    @tf.function
    def over_range(x, n):
        s = 0.0
        for i in tf.range(n):
            s += tf.cast(i, tf.float32) * x
        return s

    @tf.function
    def over_python_range_of_tensor(n):
        total = tf.constant(0)
        for i in range(n):
            total += i
        return total

    @tf.function
    def over_tensor(xs):
        acc = tf.zeros([2])
        for row in xs:
            seen.append("body traced")
            acc = acc + row
        return acc

    @tf.function
    def over_list(x):
        for k in [1.0, 2.0, 3.0]:
            x = x * k
        return x

    return [over_range(tf.constant(2.0), tf.constant(4)), over_python_range_of_tensor(tf.constant(5)),
            over_tensor(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])), over_list(tf.constant(1.0)), seen]


@case
def autograph_break_continue_in_for(tf):
    @tf.function
    def f(limit):
        s = tf.constant(0)
        for i in tf.range(10):
            if i % 2 == 0:
                continue
            if i > limit:
                break
            s += i
        return s

    @tf.function
    def g(x):
        for i in tf.range(5):
            if x > 100.0:
                return x, i
            x = x * 3.0
        return x, -1

    return [f(tf.constant(6)), f(tf.constant(100)), f(tf.constant(-1)), _err(g, tf.constant(1.0))]


@case
def autograph_loop_variable_first_made_in_body(tf):
    @tf.function
    def f(x):
        for i in tf.range(3):
            y = x * tf.cast(i, tf.float32)
        return y

    return [f(tf.constant(2.0))]


@case
def autograph_gradients_through_converted_loops(tf):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in tf.range(3):
                if y > 1.0:
                    y = tf.sqrt(y)
                else:
                    y = y * y + 1.0
        return y, tape.gradient(y, x)

    return [f(tf.constant(5.0)), f(tf.constant(0.5))]


@case
def autograph_helper_functions_are_converted(tf):
    def clip(v):
        if v > 1.0:
            return 1.0 + 0.0 * v
        return v

    @tf.function
    def f(x):
        return clip(x) * 2.0

    return [f(tf.constant(3.0)), f(tf.constant(0.25))]


@case
def autograph_boolean_operators(tf):
    @tf.function
    def f(x, y):
        if x > 0 and y > 0:
            r = 1
        elif not x > 0 or y > 5:
            r = 2
        else:
            r = 3
        return r

    return [f(tf.constant(1.0), tf.constant(1.0)), f(tf.constant(-1.0), tf.constant(1.0)),
            f(tf.constant(1.0), tf.constant(-1.0))]


@case
def autograph_off_refuses_tensor_if(tf):
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    return [_err(f, tf.constant(1.0)).type]


@case
def autograph_print_and_tf_print_in_loops(tf):
    import contextlib
    import io
    buf = io.StringIO()

    @tf.function
    def f(n):
        i = tf.constant(0)
        while i < n:
            print("python print")
            i += 1
        return i

    with contextlib.redirect_stdout(buf):
        out = [f(tf.constant(3)), f(tf.constant(5))]
    return [out, buf.getvalue()]


@case
def autograph_numpy_iteration_stays_python(tf):
    @tf.function
    def f(x):
        for k in np.arange(3):
            x = x + float(k)
        return x

    return [f(tf.constant(1.0)), count(f)]


# ---- tf.TensorArray -----------------------------------------------------------------------------------------------


@case
def tensor_array_eager(tf):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10)
    ta = ta.write(1, 20)
    ta = ta.write(3, 40)
    out = [ta.read(0), ta.read(2), ta.stack(), ta.size(), ta.gather([3, 0]), ta.element_shape]
    fixed = tf.TensorArray(tf.int32, size=2)
    out.append(_err(fixed.write, 2, 1))
    out.append(_err(fixed.write, 0, 1.5))
    fixed = fixed.write(0, 7)
    out.append([fixed.read(0), _err(fixed.read, 0), fixed.read(1), _err(fixed.read, 5), _err(fixed.read, -1),
                _err(fixed.write, -1, 3), _err(tf.TensorArray(tf.float32, size=1).unstack, [1.0, 2.0]),
                _err(tf.TensorArray(tf.float32, size=1).split, [1.0, 2.0], [1, 2]),
                _err(tf.TensorArray(tf.float32, size=3).split, [1.0, 2.0], [1, 2]),
                _err(tf.TensorArray(tf.float32, size=2).split, [1.0, 2.0], [[1, 1]])])
    split = tf.TensorArray(tf.float32, size=2).split(tf.constant([1.0, 2.0, 3.0]), [1, 2])
    out.append(_err(lambda: [split.read(0), split.read(1), split.concat()]))
    out.append(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack())
    return out


@case
def tensor_array_gradients_eager(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * x[i])
        y = tf.reduce_sum(ta.stack() * tf.constant([1.0, 10.0, 100.0]))
    return [y, tape.gradient(y, x)]


@case
def tensor_array_in_traced_loops(tf):
    @tf.function
    def fibonacci(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.unstack([0.0, 1.0])
        for i in range(2, n):
            ta = ta.write(i, ta.read(i - 1) + ta.read(i - 2))
        return ta.stack()

    v = tf.Variable(1)

    @tf.function
    def running(x):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(x):
            v.assign_add(i)
            ta = ta.write(i, v)
        return ta.stack()

    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i * i, tf.float32))
        return ta.stack(), ta.size()

    @tf.function
    def with_while_loop(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, 2 * i)), [0, ta])
        return ta.stack()

    return [fibonacci(tf.constant(7)), running(tf.constant(5)), squares(tf.constant(4)),
            with_while_loop(tf.constant(3))]


@case
def tensor_array_rnn_gradients_traced(tf):
    @tf.function
    def rnn(xs, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            n = tf.shape(xs)[0]
            outs = tf.TensorArray(tf.float32, size=n)
            h = tf.zeros([2])
            for t in tf.range(n):
                h = tf.tanh(xs[t] * w + h)
                outs = outs.write(t, h)
            y = tf.reduce_sum(outs.stack() * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        return y, tape.gradient(y, w)

    return [rnn(tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, 0.1]]), tf.constant([0.1, -0.2]))]


@case
def indexing_with_loop_counters(tf):
    @tf.function
    def f(xs):
        s = tf.zeros([2])
        for t in tf.range(3):
            s = s + xs[t] * tf.cast(t + 1, tf.float32) + xs[-1] + xs[:, 0][t]
        return s

    @tf.function
    def g(xs, k):
        return xs[k], xs[k, 1], xs[1, k]

    m = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, 0.1]])
    return [f(m), g(m, tf.constant(1)), g(m, tf.constant(-1)), count(g)]


@case
def autograph_for_over_dataset(tf):
    seen = []
    features = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6)
    ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(2, drop_remainder=True)

    @tf.function
    def total(ds):
        s = tf.constant(0.0)
        n = tf.constant(0, tf.int64)
        for x, y in ds:
            seen.append("traced")
            s += tf.reduce_sum(x)
            n += tf.reduce_sum(y)
        return s, n

    w = tf.Variable([1.0, -1.0])
    opt = tf.keras.optimizers.SGD(0.01)

    @tf.function
    def train(ds):
        loss = 0.0
        for x, y in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.linalg.matvec(x, w) - tf.cast(y, tf.float32)) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    @tf.function
    def undefined(ds):
        for x, _ in ds:
            last = x
        return last

    return [total(ds), total(ds), seen, train(ds), train(ds), w.numpy(), count(total), _err(undefined, ds)]


@case
def traced_cond_tensor_against_none(tf):
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: None)

    @tf.function
    def g(x):
        return tf.cond(x > 0, lambda: (None, x), lambda: (None, tf.cast(x, tf.int32)))

    return [_err(f, tf.constant(1.0)), _err(g, tf.constant(1.0))]


@case
def keras_cell_in_a_traced_loop_with_a_tensor_array(tf):
    # The `DynamicRNN` of TensorFlow's "Effective TensorFlow 2" guide, with fixed weights.
    class DynamicRNN(tf.keras.Model):
        def __init__(self, cell):
            super().__init__()
            self.cell = cell

        @tf.function(input_signature=[tf.TensorSpec(dtype=tf.float32, shape=[None, None, 3])])
        def call(self, input_data):
            input_data = tf.transpose(input_data, [1, 0, 2])
            timesteps = tf.shape(input_data)[0]
            batch_size = tf.shape(input_data)[1]
            outputs = tf.TensorArray(tf.float32, timesteps)
            state = self.cell.get_initial_state(batch_size=batch_size)
            for i in tf.range(timesteps):
                output, state = self.cell(input_data[i], state)
                outputs = outputs.write(i, output)
            return tf.transpose(outputs.stack(), [1, 0, 2]), state

    init = tf.keras.initializers.Constant
    cell = tf.keras.layers.LSTMCell(units=4, kernel_initializer=init(0.1), recurrent_initializer=init(-0.2))
    rnn = DynamicRNN(cell)
    x = tf.constant(np.linspace(-1.0, 1.0, 2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3))
    outputs, state = rnn(x)
    return [outputs, state, rnn(x[:1, :2])[0]]


@case
def gradients_through_a_traced_keras_cell_loop(tf):
    init = tf.keras.initializers.Constant
    cell = tf.keras.layers.LSTMCell(units=4, kernel_initializer=init(0.1), recurrent_initializer=init(-0.2))
    x = tf.constant(np.linspace(-1.0, 1.0, 2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3))

    @tf.function(input_signature=[tf.TensorSpec(dtype=tf.float32, shape=[None, None, 3])])
    def run(input_data):
        input_data = tf.transpose(input_data, [1, 0, 2])
        outputs = tf.TensorArray(tf.float32, tf.shape(input_data)[0])
        state = cell.get_initial_state(batch_size=tf.shape(input_data)[1])
        for i in tf.range(tf.shape(input_data)[0]):
            output, state = cell(input_data[i], state)
            outputs = outputs.write(i, output)
        return outputs.stack()

    run(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(run(x) ** 2)
    return [loss, tape.gradient(loss, cell.trainable_variables + [x])]

"""tf.keras.optimizers.SGD (Keras 3): update rules, apply_gradients contract, errors, warnings, printing.

Keras uniquifies default optimizer names per process (``sgd``, ``sgd_1``, ...), and the name shows in variable
paths, so every case passes ``name="sgd"`` except ``default_names_are_uniquified``, which first calls
``tf.keras.backend.clear_session()`` to reset the counter.
"""

import numpy as np

from tests.golden.harness import case, catch


def _sgd(tf, **kwargs):
    return tf.keras.optimizers.SGD(name="sgd", **kwargs)


def _trajectory(tf, opt, steps=3, grad=1.0):
    w = tf.Variable(1.0, name="w")
    out = []
    for _ in range(steps):
        opt.apply_gradients([(tf.constant(grad), w)])
        out.append(w.numpy())
    return out + [w, opt.iterations.numpy()]


# --------------------------------------------------------------------------------------------- update rules


@case
def plain_sgd_trajectory(tf):
    return _trajectory(tf, _sgd(tf, learning_rate=0.1))


@case
def default_learning_rate_step(tf):
    return _trajectory(tf, _sgd(tf), steps=1, grad=2.0)


@case
def momentum_trajectory(tf):
    return _trajectory(tf, _sgd(tf, learning_rate=0.1, momentum=0.9))


@case
def nesterov_trajectory(tf):
    return _trajectory(tf, _sgd(tf, learning_rate=0.1, momentum=0.9, nesterov=True))


@case
def nesterov_without_momentum_is_plain(tf):
    return _trajectory(tf, _sgd(tf, learning_rate=0.1, nesterov=True))


@case
def momentum_with_tape_gradients_on_vectors(tf):
    opt = _sgd(tf, learning_rate=0.05, momentum=0.5)
    w = tf.Variable([1.0, -2.0], name="w")
    b = tf.Variable(0.5, name="b")
    hist = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w) + 3.0 * b
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        hist.append([w.numpy(), b.numpy()])
    return hist


@case
def float64_variable_trajectory(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    w = tf.Variable(1.0, dtype=tf.float64, name="w")
    for _ in range(3):
        opt.apply_gradients([(tf.constant(0.3, tf.float64), w)])
    return [w, opt.iterations.numpy()]


# ------------------------------------------------------------------------------------------- apply_gradients


@case
def apply_gradients_returns_iterations(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    r = opt.apply_gradients([(tf.constant(1.0), w)])
    return [repr(r), type(r).__name__, r is opt.iterations, r.numpy(), w]


@case
def iterations_before_and_after(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    before = [repr(opt.iterations), opt.iterations.numpy(), opt.iterations.dtype, opt.iterations.path,
              opt.iterations.name, opt.iterations.trainable]
    opt.apply_gradients([(tf.constant(1.0), w)])
    opt.apply_gradients([(tf.constant(1.0), w)])
    return before + [repr(opt.iterations), opt.iterations.numpy(), type(opt.iterations.numpy()).__name__]


@case
def apply_gradients_accepts_zip_list_and_generator(tf):
    opt = _sgd(tf, learning_rate=0.5)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    opt.apply_gradients(zip([tf.constant(1.0), tf.constant(1.0)], [a, b]))
    opt.apply_gradients([(tf.constant(1.0), a), (tf.constant(1.0), b)])
    opt.apply_gradients((g, v) for g, v in [(tf.constant(1.0), a), (tf.constant(1.0), b)])
    return [a, b, opt.iterations.numpy()]


@case
def some_grads_none_warns_and_skips(tf):
    opt = _sgd(tf, learning_rate=0.1)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    opt.apply_gradients([(tf.constant(1.0), a), (None, b)])
    return [a, b, opt.iterations.numpy()]


@case
def some_grads_none_warning_lists_all_names(tf):
    opt = _sgd(tf, learning_rate=0.1)
    vs = [tf.Variable(1.0, name="x"), tf.Variable(1.0), tf.Variable(1.0, name="z")]
    opt.apply_gradients(zip([None, None, tf.constant(1.0)], vs))
    return [v.numpy() for v in vs]


@case
def variable_with_none_grad_on_first_call_still_gets_slots(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    opt.apply_gradients([(tf.constant(1.0), a), (None, b)])
    opt.apply_gradients([(tf.constant(1.0), a), (tf.constant(1.0), b)])
    return [a, b, [repr(v) for v in opt.variables], opt.iterations.numpy()]


@case
def all_grads_none_error(tf):
    opt = _sgd(tf, learning_rate=0.1)
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    err = catch(opt.apply_gradients, [(None, a), (None, b)])
    return [err, a, b, opt.iterations.numpy(), repr(opt.iterations)]


@case
def empty_list_error(tf):
    opt = _sgd(tf)
    return [catch(opt.apply_gradients, []), catch(opt.apply_gradients, zip([], [])), opt.iterations.numpy()]


@case
def unknown_variable_after_build_error(tf):
    opt = _sgd(tf, learning_rate=0.1)
    a, c = tf.Variable(1.0, name="a"), tf.Variable(1.0, name="c")
    opt.apply_gradients([(tf.constant(1.0), a)])
    err = catch(opt.apply_gradients, [(tf.constant(1.0), c)])
    return [err, a, c, opt.iterations.numpy()]


@case
def unknown_variable_after_build_error_with_momentum(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    a, c = tf.Variable(1.0, name="a"), tf.Variable([1.0, 2.0], name="c")
    opt.apply_gradients([(tf.constant(1.0), a)])
    err = catch(opt.apply_gradients, [(tf.constant(1.0), a), (tf.constant([1.0, 1.0]), c)])
    return [err, a, c, opt.iterations.numpy()]


@case
def tensor_instead_of_variable_error(tf):
    opt = _sgd(tf, learning_rate=0.1)
    return [catch(opt.apply_gradients, [(tf.constant(1.0), tf.constant(2.0))]), opt.iterations.numpy()]


@case
def non_trainable_variable_is_updated(tf):
    opt = _sgd(tf, learning_rate=0.1)
    v = tf.Variable(1.0, trainable=False, name="frozen")
    opt.apply_gradients([(tf.constant(1.0), v)])
    return [v, v.trainable]


@case
def float64_grad_cast_to_float32_variable(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.5)
    w = tf.Variable([1.0, 2.0], name="w")
    opt.apply_gradients([(tf.constant([0.5, 1.0], tf.float64), w)])
    opt.apply_gradients([(tf.constant([0.5, 1.0], tf.float64), w)])
    return [w, w.dtype]


@case
def int_grad_cast_to_float_variable(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    opt.apply_gradients([(tf.constant(2), w)])
    return w


@case
def grad_shape_mismatch_error(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    err = catch(opt.apply_gradients, [(tf.constant([1.0, 2.0]), w)])
    return [err, w, opt.iterations.numpy()]


@case
def grad_shape_mismatch_error_with_momentum(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    w = tf.Variable([1.0, 2.0], name="w")
    err = catch(opt.apply_gradients, [(tf.constant([1.0, 2.0, 3.0]), w)])
    return [err, w, opt.iterations.numpy()]


@case
def numpy_and_python_float_grads(tf):
    opt = _sgd(tf, learning_rate=0.1)
    a, b, c = tf.Variable(1.0, name="a"), tf.Variable([1.0, 1.0], name="b"), tf.Variable(1.0, name="c")
    opt.apply_gradients([(2.0, a), (np.array([1.0, 3.0]), b), (np.float32(0.5), c)])
    return [a, b, c, opt.iterations.numpy()]


@case
def grad_of_variable_value(tf):
    opt = _sgd(tf, learning_rate=0.5)
    w = tf.Variable(2.0, name="w")
    opt.apply_gradients([(w, w)])
    return w


# --------------------------------------------------------------------------------------------- configuration


@case
def momentum_validation_errors(tf):
    opt = tf.keras.optimizers.SGD
    return [catch(opt, momentum=1), catch(opt, momentum=1.5), catch(opt, momentum=-0.1),
            catch(opt, momentum=0), catch(opt, momentum="0.9"), opt(momentum=1.0, name="sgd").momentum,
            opt(momentum=0.0, name="sgd").momentum]


@case
def constructor_attributes(tf):
    opt = _sgd(tf, learning_rate=0.25, momentum=0.5, nesterov=True)
    return [opt.name, opt.momentum, opt.nesterov, type(opt).__name__, type(opt).__module__, repr(opt),
            opt.weight_decay, opt.clipnorm, opt.clipvalue, opt.global_clipnorm, opt.use_ema]


@case
def get_config(tf):
    return _sgd(tf, learning_rate=0.25, momentum=0.5).get_config()


@case
def learning_rate_property_and_repr(tf):
    opt = _sgd(tf, learning_rate=0.1)
    lr = opt.learning_rate
    return [repr(lr), type(lr).__name__, lr.numpy(), lr.dtype, lr.path, float(lr), lr is opt.learning_rate,
            repr(_sgd(tf).learning_rate)]


@case
def learning_rate_must_be_float(tf):
    def lr_repr(value):
        return repr(_sgd(tf, learning_rate=value).learning_rate)

    return [catch(lr_repr, v) for v in (1, "0.1", np.float64(0.5), np.float32(0.5), tf.constant(0.5), 0)]


@case
def setting_learning_rate(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    lr_before = opt.learning_rate
    opt.learning_rate = 0.5
    r = [repr(opt.learning_rate), opt.learning_rate is lr_before]
    opt.apply_gradients([(tf.constant(1.0), w)])
    opt.learning_rate = tf.constant(0.25)
    opt.apply_gradients([(tf.constant(1.0), w)])
    return r + [w, repr(opt.learning_rate)]


@case
def variables_before_and_after_build_plain(tf):
    opt = _sgd(tf, learning_rate=0.1)
    before = [repr(v) for v in opt.variables]
    opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0, name="w"))])
    return [before, [repr(v) for v in opt.variables], len(opt.variables)]


@case
def variables_before_and_after_build_momentum(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    before = [repr(v) for v in opt.variables]
    w, b = tf.Variable([1.0, 2.0], name="w"), tf.Variable(0.5, name="dense/b")
    opt.apply_gradients([(tf.constant([1.0, 1.0]), w), (tf.constant(1.0), b)])
    return [before, [repr(v) for v in opt.variables], [v.path for v in opt.variables]]


@case
def build_explicitly(tf):
    opt = _sgd(tf, learning_rate=0.1, momentum=0.9)
    w = tf.Variable([1.0, 2.0], name="w")
    opt.build([w])
    return [[repr(v) for v in opt.variables], opt.iterations.numpy(), opt.built]


@case
def minimize_is_missing(tf):
    opt = _sgd(tf, learning_rate=0.1)
    w = tf.Variable(1.0, name="w")
    return [catch(lambda: opt.minimize(lambda: w * w, [w])), hasattr(opt, "minimize"), w]


@case
def default_names_are_uniquified(tf):
    tf.keras.backend.clear_session()
    a, b = tf.keras.optimizers.SGD(), tf.keras.optimizers.SGD()
    c = tf.keras.optimizers.SGD(name="custom")
    d = tf.keras.optimizers.SGD(name="sgd")
    return [a.name, b.name, c.name, d.name, repr(a.iterations), repr(b.iterations), repr(d.iterations)]

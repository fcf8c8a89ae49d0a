"""tf.keras.optimizers (Keras 3): Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam and the schedules.

Every optimizer gets an explicit name (default names are uniquified per process and show in slot paths).
Trajectories run several steps on a vector variable with changing gradients, in float32 and float64, and return the
slots too.
"""


from tests.golden.harness import case, catch
from tests.golden.optimizer_runs import sparse_trajectory

_GRADS = [[0.5, -1.0, 2.0], [0.25, 0.75, -3.0], [-1.5, 0.1, 0.0], [1.0, 1.0, 1.0]]


def _traj(tf, make, dtype="float32", steps=4, grads=_GRADS):
    opt = make()
    dt = getattr(tf, dtype)
    w = tf.Variable([1.0, -2.0, 0.5], dtype=dt, name="zz")
    out = []
    for g in grads[:steps]:
        opt.apply_gradients([(tf.constant(g, dt), w)])
        out.append(w.numpy())
    return {"w": out, "slots": [[v.path, v.numpy()] for v in opt.variables], "it": opt.iterations.numpy()}


def _both(tf, make, **kw):
    return {d: _traj(tf, make, dtype=d, **kw) for d in ("float32", "float64")}


def _o(tf, cls, **kw):
    return lambda: getattr(tf.keras.optimizers, cls)(name=cls.lower(), **kw)


# ------------------------------------------------------------------------------------------------ Adam, AdamW


@case
def adam_default(tf):
    return _both(tf, _o(tf, "Adam"))


@case
def adam_lr_betas(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.1, beta_1=0.8, beta_2=0.99, epsilon=1e-3))


@case
def adam_scalar_spec_check(tf):
    opt = tf.keras.optimizers.Adam(learning_rate=0.1, name="adam")
    w = tf.Variable(1.0, name="w")
    out = []
    for _ in range(3):
        opt.apply_gradients([(tf.constant(0.5), w)])
        out.append(w.numpy())
    return out


@case
def adam_amsgrad(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.05, amsgrad=True))


@case
def adam_clipnorm(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.1, clipnorm=1.0))


@case
def adam_clipvalue(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.1, clipvalue=0.5))


@case
def adam_global_clipnorm(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.1, global_clipnorm=0.7))


@case
def adam_weight_decay(tf):
    return _both(tf, _o(tf, "Adam", learning_rate=0.1, weight_decay=0.05))


@case
def adamw_default(tf):
    return _both(tf, _o(tf, "AdamW"))


@case
def adamw_options(tf):
    return _both(tf, _o(tf, "AdamW", learning_rate=0.1, weight_decay=0.1, amsgrad=True, clipnorm=2.0))


@case
def adamw_positional_weight_decay(tf):
    opt = tf.keras.optimizers.AdamW(0.1, 0.2, name="adamw")
    return [opt.learning_rate.numpy(), opt.weight_decay, opt.get_config()]


@case
def adamw_requires_weight_decay(tf):
    return catch(tf.keras.optimizers.AdamW, weight_decay=None)


# --------------------------------------------------------------------------------------------- RMSprop, Adagrad


@case
def rmsprop_default(tf):
    return _both(tf, _o(tf, "RMSprop"))


@case
def rmsprop_momentum(tf):
    return _both(tf, _o(tf, "RMSprop", learning_rate=0.05, momentum=0.9))


@case
def rmsprop_centered(tf):
    return _both(tf, _o(tf, "RMSprop", learning_rate=0.05, rho=0.8, centered=True))


@case
def rmsprop_centered_momentum(tf):
    return _both(tf, _o(tf, "RMSprop", learning_rate=0.05, momentum=0.5, centered=True, epsilon=1e-4))


@case
def rmsprop_clip_and_decay(tf):
    return {"clipvalue": _both(tf, _o(tf, "RMSprop", learning_rate=0.05, clipvalue=1.0)),
            "global": _both(tf, _o(tf, "RMSprop", learning_rate=0.05, global_clipnorm=1.0, weight_decay=0.01))}


@case
def adagrad_default(tf):
    return _both(tf, _o(tf, "Adagrad"))


@case
def adagrad_options(tf):
    return _both(tf, _o(tf, "Adagrad", learning_rate=0.3, initial_accumulator_value=0.7, epsilon=1e-3))


@case
def adagrad_clipnorm_weight_decay(tf):
    return _both(tf, _o(tf, "Adagrad", learning_rate=0.1, clipnorm=0.5, weight_decay=0.1))


# ------------------------------------------------------------------------------------ Adadelta, Adamax, Nadam


@case
def adadelta_default_and_options(tf):
    return {"default": _both(tf, _o(tf, "Adadelta")),
            "options": _both(tf, _o(tf, "Adadelta", learning_rate=1.0, rho=0.9, epsilon=1e-4, clipnorm=1.0))}


@case
def adamax_default_and_options(tf):
    return {"default": _both(tf, _o(tf, "Adamax")),
            "options": _both(tf, _o(tf, "Adamax", learning_rate=0.1, beta_1=0.7, beta_2=0.9, weight_decay=0.1))}


@case
def nadam_default_and_options(tf):
    tf.keras.backend.clear_session()
    return {"default": _traj(tf, _o(tf, "Nadam")),
            "options": _traj(tf, _o(tf, "Nadam", learning_rate=0.1, beta_1=0.8, clipvalue=1.0))}


@case
def nadam_float64(tf):
    tf.keras.backend.clear_session()
    return _traj(tf, _o(tf, "Nadam", learning_rate=0.1), dtype="float64")


@case
def nadam_two_variables(tf):
    tf.keras.backend.clear_session()
    opt = tf.keras.optimizers.Nadam(learning_rate=0.1, name="nadam")
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable(3.0, name="b")
    for _ in range(3):
        opt.apply_gradients([(tf.constant([0.5, -0.5]), a), (tf.constant(1.0), b)])
    return [a, b, [[v.path, v.numpy()] for v in opt.variables]]


# ------------------------------------------------------------------------------------- with tape gradients


@case
def every_optimizer_on_a_quadratic(tf):
    out = {}
    for cls in ("Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam"):
        tf.keras.backend.clear_session()
        opt = getattr(tf.keras.optimizers, cls)(learning_rate=0.05, name="o")
        w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
        b = tf.Variable(0.5, name="b")
        for _ in range(5):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w - 1.0)) + b * b * 3.0
            grads = tape.gradient(loss, [w, b])
            opt.apply_gradients(zip(grads, [w, b]))
        out[cls] = [w, b]
    return out


# -------------------------------------------------------------------------------------- sparse gradients


def _sparse(tf, make, dtype="float32"):
    return sparse_trajectory(tf, make, dtype)


@case
def sparse_gradients_every_optimizer(tf):
    out = {}
    for cls in ("Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax"):
        out[cls] = {d: _sparse(tf, _o(tf, cls, learning_rate=0.1), d) for d in ("float32", "float64")}
    return out


@case
def sparse_gradients_options(tf):
    return {
        "amsgrad": _sparse(tf, _o(tf, "Adam", learning_rate=0.1, amsgrad=True)),
        "rms_momentum": _sparse(tf, _o(tf, "RMSprop", learning_rate=0.1, momentum=0.5)),
        "rms_centered": _sparse(tf, _o(tf, "RMSprop", learning_rate=0.1, centered=True)),
    }


@case
def sparse_nadam(tf):
    tf.keras.backend.clear_session()
    return _sparse(tf, _o(tf, "Nadam", learning_rate=0.1))


@case
def sparse_adagrad_indexed_slices_direct(tf):
    opt = tf.keras.optimizers.Adagrad(learning_rate=0.5, name="adagrad")
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="w")
    g = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, -1.0]]), tf.constant([2, 2]), tf.constant([3, 2]))
    opt.apply_gradients([(g, w)])
    return [w, opt.variables[2]]


# ------------------------------------------------------------------------------------ slots and configs


@case
def slot_names(tf):
    out = {}
    specs = {"Adam": {}, "Adam_ams": {"amsgrad": True}, "AdamW": {}, "RMSprop": {},
             "RMSprop_all": {"momentum": 0.9, "centered": True}, "Adagrad": {}, "Adadelta": {}, "Adamax": {}}
    for key, kw in specs.items():
        opt = getattr(tf.keras.optimizers, key.split("_")[0])(name="o", **kw)
        before = [v.path for v in opt.variables]
        a = tf.Variable(1.0, name="zz")
        b = tf.Variable([1.0, 2.0], name="scope/b")
        opt.build([a, b])
        out[key] = [before, [[v.path, v.dtype, list(v.shape)] for v in opt.variables]]
    return out


@case
def slot_dtype_follows_variable(tf):
    opt = tf.keras.optimizers.Adagrad(name="adagrad", initial_accumulator_value=0.3)
    a = tf.Variable(1.0, dtype=tf.float64, name="a")
    opt.build([a])
    return [[v.path, v.numpy()] for v in opt.variables]


@case
def default_names(tf):
    tf.keras.backend.clear_session()
    names = [tf.keras.optimizers.RMSprop().name, tf.keras.optimizers.AdamW().name, tf.keras.optimizers.Adam().name,
             tf.keras.optimizers.Adam().name, tf.keras.optimizers.Adagrad().name,
             tf.keras.optimizers.Adadelta().name, tf.keras.optimizers.Adamax().name,
             tf.keras.optimizers.Nadam().name]
    return names


@case
def configs(tf):
    opts = [tf.keras.optimizers.Adam(name="a", amsgrad=True, clipnorm=1.0),
            tf.keras.optimizers.AdamW(name="b", learning_rate=0.01, weight_decay=0.1),
            tf.keras.optimizers.RMSprop(name="c", momentum=0.5, centered=True, rho=0.8),
            tf.keras.optimizers.Adagrad(name="d", initial_accumulator_value=0.2, epsilon=1e-5),
            tf.keras.optimizers.Adadelta(name="e", rho=0.9),
            tf.keras.optimizers.Adamax(name="f", beta_2=0.99, use_ema=True),
            tf.keras.optimizers.Nadam(name="g", global_clipnorm=3.0)]
    return [o.get_config() for o in opts]


@case
def from_config_round_trip(tf):
    out = []
    for cls in ("Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam"):
        opt = getattr(tf.keras.optimizers, cls)(name="x", learning_rate=0.25)
        again = type(opt).from_config(opt.get_config())
        out.append([type(again).__name__, again.get_config()])
    return out


@case
def unknown_keyword(tf):
    return [catch(tf.keras.optimizers.Adam, bogus=1), catch(tf.keras.optimizers.RMSprop, learning_rate=1)]


@case
def ema_and_accumulation(tf):
    return {"ema": _traj(tf, _o(tf, "Adam", learning_rate=0.1, use_ema=True, ema_momentum=0.5)),
            "acc": _traj(tf, _o(tf, "RMSprop", learning_rate=0.1, gradient_accumulation_steps=2))}


# ------------------------------------------------------------------------------------------------ schedules


def _values(sched, steps=12):
    return [sched(s) for s in range(steps)]


@case
def exponential_decay(tf):
    s = tf.keras.optimizers.schedules
    return [_values(s.ExponentialDecay(0.1, 3, 0.5)), _values(s.ExponentialDecay(0.1, 3, 0.5, staircase=True)),
            s.ExponentialDecay(0.1, 3, 0.5).get_config()]


@case
def piecewise_constant_decay(tf):
    s = tf.keras.optimizers.schedules
    p = s.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1])
    return [_values(p, 8), p(tf.constant(5, tf.int64)), p.get_config(),
            catch(s.PiecewiseConstantDecay, [1, 2], [1.0, 2.0])]


@case
def polynomial_decay(tf):
    s = tf.keras.optimizers.schedules
    return [_values(s.PolynomialDecay(0.1, 5)), _values(s.PolynomialDecay(0.1, 4, 0.01, power=2.0, cycle=True)),
            s.PolynomialDecay(0.1, 5).get_config()]


@case
def inverse_time_decay(tf):
    s = tf.keras.optimizers.schedules
    return [_values(s.InverseTimeDecay(0.1, 2, 0.5)), _values(s.InverseTimeDecay(0.1, 2, 0.5, staircase=True)),
            s.InverseTimeDecay(0.1, 2, 0.5).get_config()]


@case
def cosine_decay(tf):
    s = tf.keras.optimizers.schedules
    return [_values(s.CosineDecay(0.1, 8)), _values(s.CosineDecay(0.1, 8, alpha=0.1)),
            _values(s.CosineDecay(0.0, 6, warmup_target=0.2, warmup_steps=4)),
            _values(s.CosineDecay(0.05, 6, alpha=0.2, warmup_target=0.1, warmup_steps=3), 14),
            s.CosineDecay(0.1, 8, warmup_target=0.2, warmup_steps=4).get_config()]


@case
def cosine_decay_restarts(tf):
    s = tf.keras.optimizers.schedules
    return [_values(s.CosineDecayRestarts(0.1, 3), 24), _values(s.CosineDecayRestarts(0.1, 3, t_mul=1.0), 10),
            _values(s.CosineDecayRestarts(0.1, 2, t_mul=1.5, m_mul=0.5, alpha=0.1), 20),
            s.CosineDecayRestarts(0.1, 3).get_config()]


@case
def schedule_step_types(tf):
    e = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 4, 0.3)
    return [e(5), e(tf.constant(5)), e(tf.constant(5, tf.int64)), e(tf.Variable(5, dtype=tf.int64))]


@case
def schedule_errors(tf):
    s = tf.keras.optimizers.schedules
    return [catch(s.ExponentialDecay, 0.1, 0, 0.5), catch(s.PolynomialDecay, 0.1, -1),
            catch(s.InverseTimeDecay, 0.1, 0, 0.5), catch(s.CosineDecay, 0.1, 0),
            catch(s.CosineDecayRestarts, 0.1, 0), catch(lambda: s.LearningRateSchedule()(1)),
            catch(s.LearningRateSchedule().get_config), catch(s.ExponentialDecay(0.1, 2, 0.5, name="a/b"), 1)]


@case
def schedule_serialize(tf):
    s = tf.keras.optimizers.schedules
    e = s.CosineDecay(0.1, 8, alpha=0.1)
    cfg = s.serialize(e)
    back = s.deserialize(cfg)
    return [cfg, type(back).__name__, back.get_config(), back(3)]


@case
def optimizer_with_schedule(tf):
    s = tf.keras.optimizers.schedules
    opt = tf.keras.optimizers.SGD(s.ExponentialDecay(0.1, 1, 0.5), name="sgd")
    w = tf.Variable(1.0, name="w")
    out = []
    for _ in range(3):
        out.append(opt.learning_rate)
        opt.apply_gradients([(tf.constant(1.0), w)])
        out.append(w.numpy())
    return [out, [v.path for v in opt.variables], opt.get_config()["learning_rate"]]


@case
def adam_with_schedules(tf):
    s = tf.keras.optimizers.schedules
    return {"pw": _both(tf, _o(tf, "Adam", learning_rate=s.PiecewiseConstantDecay([1, 2], [0.1, 0.05, 0.01]))),
            "cos": _both(tf, _o(tf, "AdamW", learning_rate=s.CosineDecay(0.1, 3, warmup_target=0.2, warmup_steps=1)))}


@case
def schedule_learning_rate_not_settable(tf):
    s = tf.keras.optimizers.schedules
    opt = tf.keras.optimizers.Adam(s.InverseTimeDecay(0.1, 1, 1.0), name="adam")

    def set_lr():
        opt.learning_rate = 0.5

    return [catch(set_lr), opt.learning_rate]


@case
def optimizer_from_config_with_schedule(tf):
    s = tf.keras.optimizers.schedules
    opt = tf.keras.optimizers.RMSprop(s.PolynomialDecay(0.1, 4), name="rms")
    again = tf.keras.optimizers.RMSprop.from_config(opt.get_config())
    return [type(again._learning_rate).__name__, again.get_config(), again.learning_rate]

"""``tf.experimental.numpy.experimental_enable_numpy_behavior``: NumPy methods and indexing on tensors, and the
dtype conversion modes "legacy" (NumPy's promotion in tensor operators), "safe" and "all" (TF's flexible table,
weak Python types, in operators and TF's functions), with and without ``prefer_float32``.

Every case switches NumPy behavior on and off again before it returns. TensorFlow cannot switch it off: there the
switch itself sets the conversion mode back to "off" (tensors keep the methods, which no case here relies on before
it enables them); tapeflow's internal reset, used by tests only, undoes everything.
"""

import numpy as np

from tests.golden.harness import case, catch


def _switch_off(tf):
    if tf.__name__.startswith("tapeflow"):
        from tapeflow.experimental.numpy._behavior import reset_numpy_behavior

        reset_numpy_behavior()
    else:
        tf.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="off")


def _with(tf, fn, mode="legacy", prefer_float32=False):
    tnp = tf.experimental.numpy
    try:
        tnp.experimental_enable_numpy_behavior(prefer_float32=prefer_float32, dtype_conversion_mode=mode)
        return fn(tnp)
    finally:
        _switch_off(tf)


def _desc(x):
    """A value's kind (``EagerTensor`` or ``EagerWeakTensor``), dtype and values; errors as they are."""
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        return [type(x).__name__, x.dtype, x.numpy()]
    if isinstance(x, (list, tuple)):
        return [_desc(v) for v in x]
    return x


def _each(*thunks):
    out = []
    for thunk in thunks:
        try:
            out.append(_desc(thunk()))
        except Exception as exc:  # noqa: BLE001 - every error class is part of the behaviour under test
            out.append(catch(_raise, exc))
    return out


def _raise(exc):
    raise exc


def _operands(tf):
    return {"i32": tf.constant([1, 2], tf.int32), "i64": tf.constant([1, 2], tf.int64),
            "f32": tf.constant([1.0, 2.0], tf.float32), "f64": tf.constant([1.0, 2.0], tf.float64),
            "f16": tf.constant([1.0, 2.0], tf.float16), "i8": tf.constant([1, 2], tf.int8),
            "u8": tf.constant([1, 2], tf.uint8), "b": tf.constant([True, False])}


def _operator_table(tf):
    t = _operands(tf)
    i32, i64, f32, f64, f16, i8, u8, b = (t[k] for k in ("i32", "i64", "f32", "f64", "f16", "i8", "u8", "b"))
    return _each(lambda: i32 + f32, lambda: i32 + 2.5, lambda: 2.5 + i32, lambda: f32 + 2.5, lambda: f32 + f64,
                 lambda: i32 + i64, lambda: i32 * 3, lambda: f32 * np.float64(2), lambda: i32 / 2, lambda: i32 / i32,
                 lambda: i32 // 2.0, lambda: i32 ** 2.0, lambda: 2 ** f16, lambda: i32 % 1.5, lambda: u8 + i8,
                 lambda: i8 - 200, lambda: f16 * 2.5, lambda: f16 + f32, lambda: i32 + [1.5, 2], lambda: i32 + [1, 2],
                 lambda: i32 < 2.5, lambda: f32 >= i32, lambda: i32 == 2.5, lambda: i32 != f32, lambda: b & True,
                 lambda: b | i32, lambda: i32 & i64, lambda: tf.reshape(i32, [1, 2]) @ tf.reshape(f32, [2, 1]),
                 lambda: [[1.5, 2.0]] @ tf.reshape(i32, [2, 1]), lambda: i32 + np.array([0.5]),
                 lambda: np.float32(0.5) + i32, lambda: f32 + 1j, lambda: -i32, lambda: abs(f16), lambda: ~i32,
                 lambda: i32 + 2**40, lambda: tf.Variable(1) + 2.5, lambda: 2.5 * tf.Variable([1, 2]),
                 lambda: tf.Variable(1.0) + f64, lambda: tf.constant("a") + "b", lambda: i32 + "a")


# --------------------------------------------------------------------------------------------- legacy


@case
def legacy_operator_promotion(tf):
    return _with(tf, lambda tnp: _operator_table(tf))


@case
def legacy_prefer_float32(tf):
    def run(tnp):
        i32 = tf.constant([1, 2])
        return [_operator_table(tf)[:14],
                _each(lambda: tnp.zeros(2), lambda: tnp.ones(2), lambda: tnp.array(1.5), lambda: tnp.asarray([1.0, 2]),
                      lambda: tnp.add(1, 2.5), lambda: tnp.add(i32, 2.5), lambda: tnp.mean(i32), lambda: tnp.sqrt(i32),
                      lambda: tnp.arange(0.5, 2), lambda: tnp.linspace(0, 1, 3), lambda: tnp.random.rand(2).dtype,
                      lambda: tnp.result_type(1.5), lambda: tnp.result_type(1j), lambda: tnp.full(2, 1.5),
                      lambda: tnp.eye(2), lambda: tnp.divide(i32, 2), lambda: tnp.average(i32))]

    return _with(tf, run, prefer_float32=True)


@case
def legacy_functions_keep_their_rules(tf):
    def run(tnp):
        i32 = tf.constant([1, 2])
        f32 = tf.constant([1.0, 2.0])
        return _each(lambda: tf.add(i32, f32), lambda: tf.multiply(i32, 2.5), lambda: tf.maximum(i32, 2.5),
                     lambda: tf.constant(1.0), lambda: tf.exp(1.0), lambda: tnp.add(i32, f32), lambda: tnp.add(1, 2.5),
                     lambda: tnp.sum(tf.constant([1, 2], tf.int8)), lambda: tnp.argsort(f32), lambda: tnp.zeros(2))

    return _with(tf, run)


@case
def numpy_methods(tf):
    def run(tnp):
        t = tf.reshape(tf.range(6), [2, 3])
        f = tf.constant([[1.5, -2.5, 3.25]])
        return _each(lambda: t.reshape(3, 2), lambda: t.reshape((3, 2)), lambda: t.reshape([6]), lambda: t.reshape(-1),
                     lambda: t.reshape(3, 2, order="F"), lambda: t.reshape(6, bad=1), lambda: t.T, lambda: t.ravel(),
                     lambda: t.flatten(), lambda: t.flatten("F"), lambda: t.transpose(), lambda: t.transpose([1, 0]),
                     lambda: t.astype(tf.float32), lambda: t.astype(np.float64), lambda: t.astype("int8"),
                     lambda: t.clip(1, 4), lambda: f.clip(0, None), lambda: t.max(), lambda: t.max(axis=0),
                     lambda: t.min(1, keepdims=True), lambda: t.mean(), lambda: f.mean(axis=1), lambda: t.tolist(),
                     lambda: f.tolist(), lambda: tf.constant(2.5).tolist(), lambda: t.size,
                     lambda: tf.constant(1.0).size,
                     lambda: t.ndim, lambda: +t, lambda: t.data is t, lambda: round(f), lambda: round(f, 1),
                     lambda: round(t), lambda: tnp.sqrt(tf.constant([1, 4])), lambda: tnp.exp(2),
                     lambda: tnp.around(tf.constant([0.5, 1.5, 2.567]), 2), lambda: tnp.average(tf.constant([1, 2])),
                     lambda: tnp.isnan(tf.constant([1, 2])), lambda: tnp.take_along_axis(t, tf.constant([4, 0]), None),
                     lambda: tnp.heaviside(tf.constant([-1, 0, 2]), 5), lambda: tnp.var(f, ddof=1, dtype=tnp.float64),
                     lambda: tf.Variable([1.0, 2.0]).numpy().reshape(2, 1),
                     lambda: tf.Variable([[1, 2], [3, 4]])[[0, 1]],
                     lambda: tf.Variable([1.0]).reshape(1), lambda: round(tf.Variable(1.5)), lambda: +tf.Variable(1.0))

    return _with(tf, run)


@case
def numpy_indexing(tf):
    def run(tnp):
        v = tf.constant([10, 20, 30, 40])
        m = tf.reshape(tf.range(12), [3, 4])
        c = tf.reshape(tf.range(24), [2, 3, 4])
        return _each(lambda: v[[0, 2]], lambda: v[np.array([3, 1])], lambda: v[tf.constant([1, 1])], lambda: v[[-1, 0]],
                     lambda: v[[True, False, True, False]], lambda: v[np.array([True, False, False, True])],
                     lambda: v[v > 15], lambda: v[1], lambda: v[1:3], lambda: v[None, [0, 1]], lambda: m[[0, 2]],
                     lambda: m[[0, 2], [1, 3]], lambda: m[:, [0, 3]], lambda: m[1, [0, 1]], lambda: m[[[0], [2]], [1,
                         3]],
                     lambda: m[..., [1]], lambda: c[[0, 1], :, [0, 3]], lambda: c[:, [0, 2], [1, 3]],
                     lambda: c[[1], 1:, [2]], lambda: c[..., [0, 1], 2], lambda: m[tf.constant(1)],
                     lambda: m[np.int64(2)], lambda: v[tf.constant([1, 2], tf.int64)], lambda: v[1.5],
                     lambda: v[[1.5]], lambda: v[[[True]]], lambda: m[[0, 5]], lambda: m[[0, 1], [0, 1, 2]])

    return _with(tf, run)


@case
def legacy_gradients(tf):
    def run(tnp):
        x = tf.constant([1.0, 2.0])
        w = tf.Variable([0.5, -1.0], dtype=tf.float64)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * tf.constant([2, 3]) + w * x
            z = tnp.sum(x[[1, 0, 1]] ** 2)
            u = (tf.reshape(x, [1, 2]) @ tf.reshape(tf.constant([1, 2]), [2, 1]))[0, 0]
        return _each(lambda: y, lambda: tape.gradient(y, x), lambda: tape.gradient(y, w), lambda: z,
                     lambda: tape.gradient(z, x), lambda: u, lambda: tape.gradient(u, x))

    return _with(tf, run)


# --------------------------------------------------------------------------------------------- safe and all


def _flexible_table(tf):
    t = _operands(tf)
    i32, i64, f32, f64, f16, i8, u8 = (t[k] for k in ("i32", "i64", "f32", "f64", "f16", "i8", "u8"))
    wi = tf.constant([1, 2])
    wf = tf.constant([1.0, 2.0])
    return _each(lambda: wi, lambda: wf, lambda: tf.constant(1j), lambda: tf.constant(True), lambda: tf.constant("s"),
                 lambda: tf.constant(np.float64(1)), lambda: tf.constant(1.0, tf.float64),
                 lambda: tf.constant(wi, tf.float32), lambda: tf.constant(i32, tf.float32), lambda: tf.constant(1.5,
                     tf.int32),
                 lambda: tf.constant(2**40), lambda: tf.convert_to_tensor(1.5),
                 lambda: wi + wf, lambda: wi + 2.5, lambda: 2.5 + wi, lambda: wf + 1, lambda: i32 + 2.5,
                 lambda: i32 + wf,
                 lambda: i32 + f32, lambda: i64 + f32, lambda: i64 + 1.5, lambda: f16 + 1.5, lambda: f16 + wf,
                 lambda: f32 + f64, lambda: i32 + i64, lambda: u8 + i8, lambda: u8 + 1, lambda: u8 + 1.5,
                 lambda: i8 + 300,
                 lambda: f32 * 1j, lambda: wf * 1j, lambda: i32 * np.float64(2), lambda: f32 + np.array([1.0]),
                 lambda: wi / 2, lambda: wi / wi, lambda: i32 // 2.0, lambda: wi ** 2.0, lambda: f32 % 2,
                 lambda: i32 - wi,
                 lambda: tf.reshape(wi, [1, 2]) @ tf.reshape(wf, [2, 1]), lambda: i32 < 2.5, lambda: i32 < 2,
                 lambda: wi > 1.5, lambda: i32 == 2.5, lambda: wf != i32, lambda: -wf, lambda: abs(wi), lambda: ~wi,
                 lambda: i32 + 2**40, lambda: tf.Variable(1) + 2.5, lambda: tf.Variable(1.0) + 1,
                 lambda: tf.Variable(1).assign_add(2.5), lambda: tf.Variable(1.0).assign(2), lambda: wi + [1, 2],
                 lambda: i32 + [1.5, 2], lambda: tf.constant("a") + "b", lambda: tf.constant("a") + 1)


def _flexible_functions(tf):
    wi = tf.constant([1, 4])
    wf = tf.constant([[1.0, 2.0]])
    i32 = tf.constant([1, 4], tf.int32)
    return _each(lambda: tf.add(1, 2.5), lambda: tf.add(i32, 2.5), lambda: tf.math.add(wi, tf.constant([1.0, 2.0],
        tf.float64)),
                 lambda: tf.subtract(wf, 1), lambda: tf.multiply(i32, 2.5), lambda: tf.divide(wi, 2),
                 lambda: tf.math.truediv(i32, 4),
                 lambda: tf.math.floordiv(wf, 2), lambda: tf.math.floormod(wi, 3), lambda: tf.pow(2, 0.5),
                 lambda: tf.pow(wi, 2),
                 lambda: tf.maximum(i32, 2.5), lambda: tf.minimum(1, 2.5), lambda: tf.matmul(wf, tf.constant([[1.0],
                     [2.0]])),
                 lambda: tf.exp(1.0), lambda: tf.exp(1), lambda: tf.math.sqrt(wf), lambda: tf.abs(-3),
                 lambda: tf.square(wi),
                 lambda: tf.math.log(wf), lambda: tf.sin(i32), lambda: tf.nn.relu(wf), lambda: tf.nn.sigmoid(wf),
                 lambda: tf.reduce_sum([1, 2]), lambda: tf.reduce_mean(wi), lambda: tf.reduce_max(wf, axis=1),
                 lambda: tf.math.reduce_std(wf), lambda: tf.reshape(wi, [2, 1]), lambda: tf.transpose(wf),
                 lambda: tf.expand_dims(wi, 0), lambda: tf.squeeze(wf), lambda: tf.identity(wi),
                 lambda: tf.zeros_like(wf),
                 lambda: tf.ones_like(3), lambda: tf.stop_gradient(wf), lambda: tf.clip_by_value(wf, 0, 1.5),
                 lambda: tf.cast(wf, tf.float64), lambda: tf.concat([wf, wf], 0), lambda: tf.stack([wi, wi]),
                 lambda: tf.where(tf.constant([True, False]), wi, wi), lambda: tf.zeros(2), lambda: tf.range(3),
                 lambda: tf.equal(i32, 2.5), lambda: tf.add("a", 1), lambda: tf.convert_to_tensor(wf),
                 lambda: tf.math.negative(wi), lambda: tf.linalg.matmul(i32[None], tf.constant([[1.5], [2.0]])))


def _flexible_tnp(tf):
    tnp = tf.experimental.numpy
    wi = tf.constant([1, 2])
    i8 = tf.constant([1, 2], tf.int8)
    return _each(lambda: tnp.array(1.5), lambda: tnp.array([1, 2]), lambda: tnp.asarray(wi), lambda: tnp.array(i8),
                 lambda: tnp.array(2, dtype=float), lambda: tnp.zeros(2), lambda: tnp.ones(2, dtype=int),
                 lambda: tnp.arange(3), lambda: tnp.arange(0.5, 2), lambda: tnp.linspace(0, 1, 3), lambda: tnp.add(1,
                     2.5),
                 lambda: tnp.add(wi, 2.5), lambda: tnp.multiply(wi, wi), lambda: tnp.sqrt(wi), lambda: tnp.exp(1.0),
                 lambda: tnp.sum(wi), lambda: tnp.sum(i8), lambda: tnp.mean(wi), lambda: tnp.max(wi),
                 lambda: tnp.std(wi),
                 lambda: tnp.sum(1.5), lambda: tnp.reshape(wi, [2, 1]), lambda: tnp.transpose(wi),
                 lambda: tnp.argsort(wi),
                 lambda: tnp.where(wi > 1, wi, 0), lambda: tnp.result_type(1, 2.5), lambda: tnp.result_type(wi, i8),
                 lambda: tnp.result_type(i8, 2.5), lambda: tnp.random.rand(2).dtype, lambda: tnp.cumsum(wi),
                 lambda: wi.reshape(2, 1), lambda: wi.astype(tf.float32), lambda: wi.T, lambda: wi.max(),
                 lambda: tnp.dot(wi, wi), lambda: tnp.concatenate([wi, wi]), lambda: tnp.clip(wi, 0, 1.5))


@case
def safe_mode_constants_and_operators(tf):
    return _with(tf, lambda tnp: _flexible_table(tf), mode="safe")


@case
def all_mode_constants_and_operators(tf):
    return _with(tf, lambda tnp: _flexible_table(tf), mode="all")


@case
def safe_mode_functions(tf):
    return _with(tf, lambda tnp: _flexible_functions(tf), mode="safe")


@case
def all_mode_functions(tf):
    return _with(tf, lambda tnp: _flexible_functions(tf), mode="all")


@case
def safe_mode_numpy_functions(tf):
    return _with(tf, lambda tnp: _flexible_tnp(tf), mode="safe")


@case
def all_mode_numpy_functions_prefer_float32(tf):
    return _with(tf, lambda tnp: _flexible_tnp(tf), mode="all", prefer_float32=True)


@case
def weak_tensor_protocols(tf):
    def run(tnp):
        w = tf.constant([1.5, 2.5])
        s = tf.constant(3)
        return [repr(w), str(w), repr(s), str(s), type(w).__name__, isinstance(w, tf.Tensor), tf.is_tensor(w), w.dtype,
                w.shape, w.numpy(), float(w[0]), int(s), bool(s), len(w), [repr(x) for x in w], np.asarray(w),
                repr(w[0]), w.ndim, repr(tf.convert_to_tensor(w)), repr(tnp.asarray(w)), repr(w.T), f"{s}",
                catch(hash, w), repr(tf.constant(np.arange(3)))]

    return _with(tf, run, mode="all")


@case
def weak_tensor_gradients(tf):
    def run(tnp):
        x = tf.constant(3.0)
        v = tf.Variable(2.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x + 2 * x
            z = v * 2.5 + 1
            u = tnp.sum(tnp.sin(x) * 2)
            q = tf.reduce_sum(tf.square(tf.constant([1.0, 2.0]) * x))
        return [repr(y), repr(tape.gradient(y, x)), repr(z), repr(tape.gradient(z, v)), repr(tape.gradient(u, x)),
                repr(tape.gradient(q, [x])[0]), repr(tape.gradient(y, {"a": x})["a"]), repr(tape.gradient([y, z], [x,
                    v])[1])]

    return _with(tf, run, mode="safe")


@case
def modes_switch_and_errors(tf):
    tnp = tf.experimental.numpy

    def run(tnp):
        w = tf.constant(1.5)
        kinds = [type(w).__name__]
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
        kinds += _each(lambda: w + 1, lambda: tf.constant(2.5), lambda: tf.constant(1) + 2.5,
                       lambda: w + tf.constant(1))
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
        kinds += _each(lambda: w + 1, lambda: tf.constant(1) + 2.5, lambda: w * w, lambda: tf.add(w, 1.0),
                       lambda: tf.reshape(tf.range(4), [2, 2]).T)
        return kinds

    return [catch(tnp.experimental_enable_numpy_behavior, dtype_conversion_mode="bogus"), _with(tf, run, mode="all")]


@case
def weak_tensors_through_functions(tf):
    def run(tnp):
        @tf.function
        def f(x, y):
            return x * 2 + 1, y + 1.5, tnp.sum(x)

        w = tf.constant([1.0, 2.0])
        out = [f(w, tf.constant(1, tf.int32)), f(w * 3, tf.constant(2, tf.int32)),
               f(tf.constant([1.0, 2.0], tf.float32), 1)]
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x, tf.constant(0, tf.int32))[0] ** 2
        return [[repr(t) for t in o] for o in out] + [repr(y), repr(tape.gradient(y, x))]

    return _with(tf, run, mode="all")

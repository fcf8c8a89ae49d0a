"""tf.Variable surface: construction, names, printing, assignment and its errors, operators, pitfalls.
"""

import numpy as np

from tests.golden.harness import case, catch


def _show(v):
    """What users see of a variable: value, name, shape, dtype, repr and str."""
    return [v, v.name, v.shape, v.dtype, repr(v), str(v)]


# --------------------------------------------------------------------------------------------- construction


@case
def variable_class_and_isinstance(tf):
    v = tf.Variable(1.0)
    return [type(v).__name__, isinstance(v, tf.Variable), isinstance(v, tf.Tensor), tf.is_tensor(v),
            v.trainable, v.dtype, v.shape]


@case
def variable_positional_trainable_argument(tf):
    v = tf.Variable(1.0, False)
    w = tf.Variable(2.0, trainable=True, name="w")
    return [v.trainable, w.trainable, w.name]


@case
def variable_initial_value_kinds(tf):
    vs = [tf.Variable(2.5), tf.Variable([1, 2]), tf.Variable(np.array([1.0, 2.0])),
          tf.Variable(tf.ones([2, 2])), tf.Variable(np.float32(3.0)), tf.Variable(True),
          tf.Variable(tf.constant(7, tf.int64))]
    return [[v, v.dtype] for v in vs]


@case
def variable_from_callable(tf):
    calls = []

    def init():
        calls.append(1)
        return tf.constant([1.0, 2.0])

    v = tf.Variable(init)
    w = tf.Variable(lambda: [1, 2, 3], dtype=tf.float32)
    return [v, w, len(calls), w.dtype]


@case
def variable_of_a_variable_is_independent_copy(tf):
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable(a)
    a.assign([5.0, 6.0])
    return [b, b.name, b.dtype, a, repr(b)]


@case
def variable_unknown_shape_none_dim(tf):
    v = tf.Variable([1.0, 2.0], shape=[None])
    first = [v.shape, repr(v)]
    v.assign([1.0, 2.0, 3.0])
    return first + [v, v.shape, repr(v), catch(v.assign, [[1.0]])]


@case
def variable_unknown_shape_tensorshape_none(tf):
    v = tf.Variable(1.0, shape=tf.TensorShape(None))
    first = [v.shape, repr(v), str(v)]
    v.assign([[1.0, 2.0]])
    return first + [v, v.shape, repr(v)]


@case
def variable_shape_argument_compatible_and_not(tf):
    return [tf.Variable([1.0, 2.0], shape=[2]).shape, tf.Variable([1.0, 2.0], shape=(2,)).shape,
            catch(tf.Variable, [1.0, 2.0], shape=[3]), catch(tf.Variable, [[1.0, 2.0]], shape=[2]),
            catch(tf.Variable, 1.0, shape=[None])]


@case
def variable_validate_shape_false(tf):
    v = tf.Variable([1.0, 2.0], validate_shape=False)
    return [v.shape, repr(v), catch(v.assign, [1.0]), v]


@case
def variable_dtype_converts_python_values(tf):
    return [tf.Variable(3, dtype=tf.float32), tf.Variable([1, 2], dtype=tf.float64),
            tf.Variable(1, dtype="float32"), tf.Variable(np.array([1.5, 2.5]), dtype=tf.float32),
            tf.Variable(2.0, dtype=tf.float16), tf.Variable(1, dtype=tf.int64)]


@case
def variable_dtype_errors(tf):
    return [catch(tf.Variable, tf.constant(1.0), dtype=tf.float64), catch(tf.Variable, 1.5, dtype=tf.int32),
            catch(tf.Variable, "a", dtype=tf.float32), catch(tf.Variable, 1.0, dtype="floaty"),
            catch(tf.Variable, [1.0, 2.5], dtype=tf.int32)]


@case
def variable_missing_initial_value(tf):
    return [catch(tf.Variable), catch(tf.Variable, None), catch(tf.Variable, name="x")]


@case
def variable_trainable_defaults(tf):
    vs = [tf.Variable(1.0), tf.Variable(1), tf.Variable(True), tf.Variable(1.0, trainable=False),
          tf.Variable(1, dtype=tf.int64), tf.Variable("s")]
    return [[v.dtype, v.trainable] for v in vs]


# --------------------------------------------------------------------------------------------- names


@case
def variable_default_and_explicit_names(tf):
    return [tf.Variable(1.0).name, tf.Variable(1.0, name="weight").name, tf.Variable(1.0, name="a:0").name,
            tf.Variable(1.0, name="w_1").name, tf.Variable(1.0, name="").name]


@case
def variable_names_not_uniquified_in_eager(tf):
    a, b = tf.Variable(1.0, name="weight"), tf.Variable(2.0, name="weight")
    c, d = tf.Variable(3.0), tf.Variable(4.0)
    return [a.name, b.name, c.name, d.name]


@case
def variable_name_scope_prefix(tf):
    with tf.name_scope("layer"):
        a = tf.Variable(1.0, name="w")
        with tf.name_scope("inner"):
            b = tf.Variable(1.0)
    with tf.name_scope("layer/"):
        c = tf.Variable(1.0, name="abs")
    return [a.name, b.name, c.name, tf.Variable(1.0, name="after").name]


@case
def variable_module_name_scope_prefix(tf):
    m = tf.Module(name="dense")
    with m.name_scope:
        v = tf.Variable(1.0, name="kernel")
    return [v.name, m.name]


# --------------------------------------------------------------------------------------------- printing


@case
def variable_repr_str_scalars(tf):
    vs = [tf.Variable(2.0, name="weight"), tf.Variable(0.98), tf.Variable(3), tf.Variable(True, name="flag"),
          tf.Variable(1.5, dtype=tf.float64), tf.Variable(0.1, dtype=tf.float16)]
    return [[repr(v), str(v)] for v in vs]


@case
def variable_repr_str_arrays(tf):
    vs = [tf.Variable([1.0, 2.0]), tf.Variable([1, 2, 3], name="ints"), tf.Variable([[1.0, 2.0], [3.0, 4.0]]),
          tf.Variable(tf.zeros([2, 2, 2])), tf.Variable(tf.range(1001)), tf.Variable(tf.zeros([0]))]
    return [[repr(v), str(v)] for v in vs]


# --------------------------------------------------------------------------------------------- assign


@case
def assign_returns_unread_variable(tf):
    v = tf.Variable(1.0, name="v")
    r = v.assign(5.0)
    return [repr(r), str(r), type(r).__name__, r.name, isinstance(r, tf.Variable), r.numpy(), v, r + 1.0]


@case
def unread_variable_reads_the_variable_lazily(tf):
    v = tf.Variable(1.0)
    r = v.assign(5.0)
    a = v.assign_add(1.0)
    v.assign(7.0)
    return [repr(r), repr(a), r.numpy(), a.numpy(), r * 1.0]


@case
def assign_add_sub_return_and_chain(tf):
    v = tf.Variable(1.0)
    a = repr(v.assign_add(2.0))
    s = repr(v.assign_sub(0.5))
    chained = v.assign(1.0).assign_add(2.0).assign_sub(4.0)
    return [a, s, repr(chained), v, type(chained).__name__]


@case
def assign_read_value_false(tf):
    v = tf.Variable([1.0, 2.0])
    return [v.assign([3.0, 4.0], read_value=False), v.assign_add([1.0, 1.0], read_value=False),
            v.assign_sub([0.5, 0.5], read_value=False), v]


@case
def assign_accepts_numpy_python_and_variables(tf):
    v = tf.Variable(1.0)
    w = tf.Variable([0.0, 0.0])
    i = tf.Variable(1)
    updates = [lambda: v.assign(np.float64(1.5)), lambda: v.assign(2), lambda: v.assign(np.array(3.25)),
               lambda: v.assign(np.float32(0.5)), lambda: w.assign(np.array([1.0, 2.0])),
               lambda: w.assign(tf.Variable([7.0, 8.0])), lambda: w.assign((3, 4)),
               lambda: i.assign(np.int64(4)), lambda: i.assign(np.float64(2.9)), lambda: i.assign(True),
               lambda: i.assign(np.array(-1.5))]
    return [catch(lambda f=f: f().numpy()) for f in updates] + [v, w, i]


@case
def assign_shape_mismatch_error(tf):
    v = tf.Variable(1.0, name="w")
    u = tf.Variable([1.0, 2.0], name="u")
    return [catch(v.assign, [1.0, 2.0]), v, catch(u.assign, 1.0), catch(u.assign, [1.0, 2.0, 3.0]), u,
            catch(tf.Variable(1.0).assign, [1.0])]


@case
def assign_add_sub_shape_mismatch_error(tf):
    u = tf.Variable([1.0, 2.0])
    return [catch(u.assign_add, [1.0, 2.0, 3.0]), catch(u.assign_sub, [1.0, 2.0, 3.0]),
            catch(u.assign_add, 1.0), catch(tf.Variable(1.0).assign_add, [1.0, 2.0]), u]


@case
def assign_dtype_mismatch_error(tf):
    v = tf.Variable(1.0, name="v")
    return [catch(v.assign, tf.constant(2.0, tf.float64)), catch(v.assign_add, tf.constant(1, tf.int32)),
            catch(v.assign_sub, tf.constant(1.0, tf.float64)), v]


@case
def assign_float_into_int_variable_error(tf):
    i = tf.Variable(1, name="i")
    return [catch(i.assign, 1.5), catch(i.assign_add, 2.5), catch(i.assign, 2.0), catch(i.assign, "x"), i]


@case
def slice_assign(tf):
    v = tf.Variable([1.0, 2.0, 3.0])
    m = tf.Variable([[1, 2], [3, 4]])
    r = v[0].assign(9.0)
    r_repr, r_type = repr(r), type(r).__name__
    v[1:].assign([7.0, 8.0])
    m[1, 0].assign(30)
    m[:, 1].assign([20, 40])
    return [v, m, r_repr, r_type, catch(lambda: v[0].assign([1.0, 2.0])), v]


@case
def slice_assign_on_tensor_and_setitem_errors(tf):
    v = tf.Variable([1.0, 2.0])

    def setitem():
        v[0] = 5.0

    return [catch(lambda: tf.constant([1.0, 2.0])[0].assign(3.0)), catch(setitem), v]


# --------------------------------------------------------------------------------------------- reading


@case
def variable_operators_return_tensors(tf):
    v = tf.Variable([1.0, 2.0])
    w = tf.Variable([[1.0], [2.0]])
    outs = [v * 2, v + v, -v, v ** 2, 2 - v, v / 2, v // 2, abs(v), tf.reshape(v, [1, 2]) @ w, v == 2.0,
            v != 2.0, v < 1.5, v >= 2, 1.0 + v, v % 1.5, 2.0 ** v]
    return [[type(o).__name__, o] for o in outs] + [repr(v * 2)]


@case
def variable_scalar_conversions(tf):
    v = tf.Variable(2.5)
    return [bool(v), float(v), int(v), catch(format, v, ".2f"), f"{v}", bool(tf.Variable(0.0)),
            catch(bool, tf.Variable([1.0, 2.0])), catch(float, tf.Variable([1.0, 2.0])),
            catch(lambda: [1, 2, 3][tf.Variable(1)])]


@case
def variable_hash_error_and_ref(tf):
    v = tf.Variable(1.0, name="h")
    d = {v.ref(): "x"}
    return [catch(hash, v), d[v.ref()], v.ref().deref() is v, catch(lambda: {v: 1}), catch(set, [v])]


@case
def variable_equality_is_elementwise(tf):
    v = tf.Variable([1.0, 2.0])
    return [v == v, v == tf.Variable([1.0, 3.0]), v == [1.0, 2.0], catch(lambda: v == None),  # noqa: E711
            catch(lambda: v != None), v == tf.constant([1.0, 2.0, 3.0]), catch(lambda: v == "a")]  # noqa: E711


def _inplace(tf, op):
    v = tf.Variable(4.0)
    ns = {"v": v}
    err = catch(exec, f"v {op}= 2.0", ns)
    return [err, type(ns["v"]).__name__, v]


@case
def variable_iadd_raises(tf):
    return _inplace(tf, "+")


@case
def variable_isub_raises(tf):
    return _inplace(tf, "-")


@case
def variable_imul_raises(tf):
    return _inplace(tf, "*")


@case
def variable_itruediv_raises(tf):
    return _inplace(tf, "/")


@case
def variable_ipow_raises(tf):
    return _inplace(tf, "**")


@case
def variable_ifloordiv_and_imod_rebind_to_tensor(tf):
    return [_inplace(tf, "//"), _inplace(tf, "%")]


@case
def variable_len_and_iteration(tf):
    return [catch(len, tf.Variable(1.0)), catch(len, tf.Variable([1.0, 2.0])),
            list(tf.Variable([1.0, 2.0])), catch(list, tf.Variable(1.0)),
            [type(x).__name__ for x in tf.Variable([[1, 2], [3, 4]])]]


@case
def variable_indexing_returns_tensor(tf):
    v = tf.Variable([[1, 2, 3], [4, 5, 6]])
    return [v[0], v[-1, ::-1], v[:, 1], v[..., tf.newaxis].shape, type(v[0]).__name__, catch(lambda: v[5])]


@case
def variable_numpy_is_a_copy(tf):
    v = tf.Variable([1.0, 2.0])
    a = v.numpy()
    a[0] = 99.0
    s = tf.Variable(2.5).numpy()
    return [v, a, type(s).__name__, s, type(tf.Variable(3).numpy()).__name__]


@case
def variable_value_and_read_value(tf):
    v = tf.Variable([1.0, 2.0], name="rv")
    a, b = v.value(), v.read_value()
    v.assign([3.0, 4.0])
    return [type(a).__name__, type(b).__name__, a, b, repr(a), v.value(), tf.convert_to_tensor(v),
            type(tf.convert_to_tensor(v)).__name__, tf.identity(v)]


@case
def variable_misc_attributes(tf):
    v = tf.Variable([[1.0, 2.0]], name="m")
    return [v.device, v.get_shape(), catch(lambda: v.ndim), v.dtype.name, tf.rank(v), tf.shape(v),
            catch(lambda: v.initial_value), v.constraint]


@case
def rebinding_pitfall_turns_variable_into_tensor(tf):
    w = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = w * w
    dw = tape.gradient(loss, w)
    w = w - 0.01 * dw
    with tf.GradientTape() as tape:
        loss = w * w
    return [type(w).__name__, repr(w), tape.gradient(loss, w)]


@case
def assign_sub_keeps_variable_trainable(tf):
    w = tf.Variable(1.0)
    grads = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = w * w
        dw = tape.gradient(loss, w)
        grads.append(dw)
        w.assign_sub(0.01 * dw)
    return [type(w).__name__, w, grads]


@case
def python_and_numpy_conversions_read_the_variable(tf):
    # numpy(), float(), int(), bool(), np.asarray, str and repr read the variable: an active tape watches it.
    vs = [tf.Variable(1.0, name=n) for n in ["numpy", "float", "int", "bool", "asarray", "str", "repr"]]
    with tf.GradientTape() as tape:
        vs[0].numpy()
        float(vs[1])
        int(vs[2])
        bool(vs[3])
        np.asarray(vs[4])
        str(vs[5])
        repr(vs[6])
    with tf.GradientTape() as tape2:
        vs[0].numpy()
        y = vs[0] * 2.0
    return [[v.name for v in tape.watched_variables()], tape2.gradient(y, vs[0])]

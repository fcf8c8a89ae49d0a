"""Conversion of object arrays, mixed sequences and out-of-range integers, and what operators do with strings and
with operands of a foreign kind: a NumPy object array converts only when it holds strings, ``+`` on
strings is TF's ``Add`` (concatenation), other operators refuse strings with TF's errors, and an operand that does
not fit the tensor's dtype is refused before any op runs (except by ``+``, whose op reports the clash).
"""

import numpy as np

from tests.golden.harness import case, catch


class _Thing:
    pass


def _objects(*values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# --------------------------------------------------------------------------------------------- object arrays


@case
def object_arrays(tf):
    thing = object()
    return [catch(tf.constant, _objects(thing)), catch(tf.constant, _objects(None)), catch(tf.constant, _objects(1, 2)),
            catch(tf.constant, _objects(1.5)), catch(tf.constant, _objects(1, "a")),
            catch(tf.constant, _objects("a", 1)),
            tf.constant(_objects("a", "b")), tf.constant(_objects(b"a", b"b")), tf.constant(_objects("a", b"b")),
            tf.constant(np.array([], dtype=object)), catch(tf.constant, np.array(thing, dtype=object)),
            tf.constant(np.array("x", dtype=object)), catch(tf.constant, np.array([[1], [2]], dtype=object)),
            catch(tf.constant, _objects(tf.constant(1.0))), catch(tf.constant, _objects(np.float32(1))),
            catch(tf.constant, _objects(_Thing())), tf.constant(_objects("é", b"a\x00b"))]


@case
def object_arrays_with_dtype(tf):
    return [tf.constant(_objects(1, 2), tf.float32), catch(tf.constant, _objects(object()), tf.string),
            catch(tf.constant, _objects(object()), tf.float32), tf.constant(_objects("1"), tf.float32),
            tf.constant(_objects(1, 2), tf.int32), tf.constant(_objects(None), tf.float32),
            tf.constant(_objects(1, 0), tf.bool), tf.constant(_objects(1j), tf.complex64),
            tf.constant(_objects(b"1"), tf.float32), catch(tf.convert_to_tensor, _objects(object())),
            tf.convert_to_tensor(_objects(1, 2), dtype_hint=tf.float32), tf.constant(_objects("a"), tf.string)]


@case
def object_arrays_elsewhere(tf):
    v = tf.Variable(["a"])
    return [catch(tf.Variable, _objects(object())), tf.Variable(_objects("a", "b")),
            catch(v.assign, _objects(object())),
            v, catch(tf.constant, [_objects(object())]), tf.constant([_objects("a", "b")]),
            tf.constant(np.array(["a"], dtype="U")), tf.constant(np.array([b"a"], dtype="S")),
            tf.constant(np.str_("x"))]


@case
def mixed_sequences(tf):
    return [catch(tf.constant, [object()]), catch(tf.constant, [1, "a"]), catch(tf.constant, ["a", 1]),
            catch(tf.constant, [1.0, None]), catch(tf.constant, [_Thing()]), catch(tf.constant, _Thing()),
            catch(tf.constant, {"a": 1}), catch(tf.constant, {1, 2}), catch(tf.constant, [[1.0], ["a"]]),
            catch(tf.constant, [b"a", "b", 1])]


@case
def out_of_range_integers(tf):
    out = []
    for v in (2**63, -2**63 - 1, 2**64 - 1, 2**70, [1, 2**63], 2**31, -2**31 - 1):
        out.append([catch(tf.constant, v, dt) for dt in (tf.int8, tf.int32, tf.int64, tf.float32, None)])
    out.append([tf.constant(2**64 - 1, tf.uint64), tf.constant(2**63, tf.uint64), tf.constant(300, tf.int8),
                tf.constant(-1, tf.uint8), tf.convert_to_tensor([2**32 + 1], dtype_hint=tf.int32)])
    return out


# --------------------------------------------------------------------------------------------- strings and +


@case
def string_add(tf):
    s, d = tf.constant("abc"), tf.constant("d")
    v = tf.Variable("v")
    return [s + d, tf.add(s, d), tf.math.add(s, d), s + "x", "x" + s, s + b"\xff", s + [b"x"],
            s + np.array(["q"]), np.array(["q"]) + s, tf.constant(["a", "b"]) + tf.constant(["c"]),
            tf.constant(["a", "b"]) + d, tf.constant([["a"], ["b"]]) + tf.constant(["c", "d"]),
            tf.constant([], tf.string) + s, v + s, s + v, v + "x", "x" + v, tf.add(["a"], ["b"]), tf.add("a", "b"),
            tf.constant(b"\xff") + tf.constant(b"\x00")]


@case
def string_add_errors(tf):
    s = tf.constant("abc")
    return [catch(lambda: tf.constant(["a", "b"]) + tf.constant(["c", "d", "e"])), catch(lambda: s + 1),
            catch(lambda: 1 + s), catch(lambda: s + 1.5), catch(lambda: s + tf.constant(1.0)),
            catch(lambda: tf.constant(1.0) + s), catch(tf.add, "a", 1), catch(tf.add, 1, "a"),
            catch(tf.math.add, s, 1), catch(tf.math.add_n, [s, s])]


@case
def string_other_operators(tf):
    s = tf.constant("ab")
    return [catch(lambda: s * 2), catch(lambda: 2 * s), catch(lambda: s * 2.0), catch(lambda: s - 1),
            catch(lambda: s - "x"), catch(lambda: s / s), catch(lambda: s // s), catch(lambda: s % s),
            catch(lambda: s ** s), catch(lambda: s / 2), catch(lambda: -s), catch(lambda: abs(s)),
            catch(lambda: s < s), catch(lambda: s == 1), catch(lambda: s != 1), s == b"ab", s != "ab",
            catch(lambda: s & s), catch(lambda: s @ s), catch(tf.maximum, s, s), catch(tf.square, s),
            catch(tf.reduce_sum, tf.constant(["a", "b"])), tf.concat([tf.constant(["a"]), tf.constant(["b"])], 0)]


@case
def string_add_gradient(tf):
    s = tf.constant("a")
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        joined = s + tf.constant("b")
        y = x * 2.0
    return [joined, tape.gradient(y, x), tape.gradient(y, s)]


# --------------------------------------------------------------------------------------------- foreign operands


@case
def foreign_kind_operands(tf):
    f, i, b = tf.constant(1.0), tf.constant(1), tf.constant(True)
    return [catch(lambda: f * 1j), catch(lambda: f - 1j), catch(lambda: f * "a"), catch(lambda: f - "a"),
            catch(lambda: f - b"a"), catch(lambda: f - ["a"]), catch(lambda: i - "a"), catch(lambda: i * "ab"),
            catch(lambda: i * ["x"]), catch(lambda: "ab" * i), catch(lambda: b - "a"), catch(lambda: f ** "a"),
            catch(lambda: f / "a"), catch(tf.multiply, f, "a"), catch(tf.subtract, f, "a"), catch(lambda: f < "a"),
            catch(lambda: f == "a"), catch(lambda: "a" - f), catch(lambda: 1j * f), catch(tf.maximum, f, "a"),
            catch(lambda: f * None), catch(lambda: f + "a"), catch(lambda: "a" + f), catch(lambda: f + 1j),
            catch(lambda: i + 2.5), catch(lambda: i * 2.5), catch(lambda: f // "a"), catch(lambda: i % "a"),
            catch(lambda: b & "a"), catch(lambda: i | 2.5), catch(lambda: i ^ "a")]


@case
def truediv_dtypes(tf):
    t = tf.constant(True)
    return [catch(lambda: t / t), catch(tf.math.truediv, t, t), catch(tf.divide, t, t),
            catch(lambda: tf.constant("a") / tf.constant("b")), tf.constant(3) / tf.constant(2),
            tf.constant(3, tf.uint8) / tf.constant(2, tf.uint8), catch(lambda: tf.constant(3) / tf.constant(2.0)),
            catch(lambda: t / 2)]


@case
def tensorshape_converts_when_fully_known(tf):
    s = tf.TensorShape([5, 8])
    return [tf.convert_to_tensor(s), tf.constant(s), tf.reduce_prod(s), tf.convert_to_tensor(s, tf.int64),
            tf.convert_to_tensor(tf.TensorShape([])), catch(tf.convert_to_tensor, tf.TensorShape([None, 3])),
            catch(tf.convert_to_tensor, tf.TensorShape(None)), catch(tf.convert_to_tensor, s, tf.float32)]


@case
def unsupported_values_with_a_dtype(tf):
    class Thing:
        def __repr__(self):
            return "<Thing>"

    return [catch(tf.convert_to_tensor, v, tf.float32)
            for v in ({"x": 1.0}, {1, 2}, frozenset([1]), Thing(), [{"a": 1}], [None], None, "a", [1.0, "a"])]


@case
def tensorshape_as_a_constant(tf):
    return [tf.constant(tf.TensorShape([])), tf.constant(tf.TensorShape([2, 3])),
            catch(tf.constant, tf.TensorShape([None, 3])), tf.constant(tf.TensorShape([2]), dtype=tf.int64),
            tf.constant(tf.TensorShape([]), dtype=tf.int64), tf.zeros(tf.TensorShape([2])),
            tf.reshape(tf.range(6), tf.TensorShape([2, 3]))]


@case
def tf_add_converts_x_first(tf):
    v = tf.Variable(2.0)
    return [catch(tf.add, 1, tf.constant(2.0)), catch(tf.add, 1.5, tf.constant(2)),
            catch(tf.add, [1, 2], tf.constant([2.0, 3.0])), catch(tf.add, np.float64(1), tf.constant(2.0)),
            catch(tf.add, np.array([1, 2]), tf.constant([1, 2])), tf.add(v, 1), catch(tf.add, 1, v),
            tf.add(np.float32(1), v), tf.add(2, 3.5), tf.add(np.array(1, np.int8), 1),
            tf.add("a", tf.constant("b")), catch(tf.math.add, np.int64(3), tf.constant(2)),
            catch(tf.add, np.array(1, np.int8), tf.constant(1)), tf.add(tf.constant(1), np.array(1, np.int8)),
            tf.multiply(np.int64(3), tf.constant(2)), catch(tf.multiply, np.float32(1), tf.constant(1.0, tf.float64))]

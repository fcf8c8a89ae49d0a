"""tf.keras layers (Keras 3.15): how an exception raised inside a layer's ``call`` reaches the caller.

Keras raises it again with the same class (``RuntimeError`` when the class cannot be built from a message) and
the text "Exception encountered when calling <Class>.call()" plus the arguments received; only the innermost
failing ``call`` adds the text. Errors raised while building or checking the input spec are not wrapped.
"""

import numpy as np

from tests.golden.harness import case, catch


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _layer_classes(tf):
    k = tf.keras

    class Inner(k.layers.Layer):
        def call(self, x):
            raise TypeError("inner failed")

    class Mid(k.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = Inner()

        def call(self, x):
            return self.inner(x)

    class Outer(k.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.mid = Mid()
            self.dense = k.layers.Dense(2)

        def build(self, input_shape):
            # A build of its own keeps Keras from tracing ``call`` symbolically to build the sublayers.
            pass

        def call(self, x, training=None, mode="sum"):
            if mode == "dense":
                return self.dense(tf.reshape(x, (2, -1)))
            return self.mid(x * 2.0)

    return Inner, Mid, Outer


@case
def reshape_error_in_call(tf):
    k = _k(tf)
    r = k.layers.Reshape((7,))
    return [catch(r, np.ones((2, 3), "float32")), catch(k.layers.Reshape((5, 2)), tf.ones((2, 3, 2)))]


@case
def dense_error_in_call(tf):
    k = _k(tf)
    d = k.layers.Dense(3, kernel_initializer="ones")
    d(np.ones((2, 3), "float32"))
    return [catch(d, np.ones((2, 3, 3), "float32")), catch(d, np.ones((2,), "float32")),
            catch(d, np.ones((2, 4), "float32"))]


@case
def add_errors(tf):
    k = _k(tf)
    a = k.layers.Add()
    return [catch(a, [np.ones((2, 3), "float32"), np.ones((2, 4), "float32")]),
            catch(a, np.ones((2, 3), "float32"))]


@case
def nested_layers_innermost_wraps(tf):
    _k(tf)
    inner_cls, mid_cls, outer_cls = _layer_classes(tf)
    outer = outer_cls()
    err = catch(outer, np.ones((2, 2), "float32"))
    mid_err = catch(mid_cls(), tf.ones((3,)))
    return [err, mid_err, catch(inner_cls(), tf.constant([1, 2]))]


@case
def sublayer_spec_error_wrapped_by_outer(tf):
    _k(tf)
    _, _, outer_cls = _layer_classes(tf)
    outer = outer_cls()
    outer(np.ones((2, 4), "float32"), mode="dense")
    return [catch(outer, np.ones((2, 5), "float32"), mode="dense"),
            catch(outer, np.ones((2, 5), "float32"), training=True, mode="dense")]


@case
def argument_formatting(tf):
    k = _k(tf)

    class Bad(k.layers.Layer):
        def call(self, x, *args, flag="a", extra=None, training=False, **kwargs):
            raise KeyError("boom")

    class Bad2(k.layers.Layer):
        def call(self, x, y=None):
            raise ValueError()

    class Bad3(k.layers.Layer):
        def call(self, x):
            raise ValueError("first", "second")

    return [catch(Bad(), np.ones((2, 2)), np.ones((1,)), flag="b", z=1),
            catch(Bad(), np.ones((2, 2), "int32")),
            catch(Bad(), tf.ones((2, 2), tf.float64), extra={"a": tf.Variable(1.0), "b": tf.ones(2)}, training=True),
            catch(Bad2(), [np.ones((2, 2)), np.ones(3)], y=[1, "s", 2.5]),
            catch(Bad2(), np.ones(()), y=(tf.ones((1, 2)), tf.zeros((0,)))),
            catch(Bad3(), np.ones((2, 2))),
            catch(Bad3(), np.ones((2, 2)), np.ones((2, 2)))]


@case
def exception_classes(tf):
    k = _k(tf)

    class Custom(Exception):
        def __init__(self, a, b):
            super().__init__(a)

    class RaisesCustom(k.layers.Layer):
        def call(self, x):
            raise Custom("custom", 1)

    class RaisesOpError(k.layers.Layer):
        def call(self, x):
            raise tf.errors.InvalidArgumentError(None, None, "invalid thing")

    class RaisesInBuild(k.layers.Layer):
        def build(self, shape):
            raise ValueError("in build")

        def call(self, x):
            return x

    e = catch(RaisesOpError(), np.ones((2, 2)))
    try:
        RaisesOpError()(np.ones((2, 2)))
    except tf.errors.InvalidArgumentError as exc:
        extra = [exc.error_code, exc.node_def, exc.op, exc.__cause__ is None, exc.__suppress_context__]
    return [catch(RaisesCustom(), np.ones((2, 2))), e, extra, catch(RaisesInBuild(), np.ones((2, 2)))]


@case
def matmul_op_error_in_call(tf):
    k = _k(tf)

    class MatMul(k.layers.Layer):
        def call(self, x):
            return tf.matmul(x, tf.ones((3, 3)))

    return [catch(MatMul(), np.ones((2, 3), "int32")), catch(MatMul(), x=np.ones((2, 3), "int32"))]


@case
def call_signature_errors(tf):
    k = _k(tf)
    r = k.layers.Reshape((3,))
    x = np.ones((2, 3), "float32")
    return [catch(r, x, training=True), catch(r, x, foo=True), catch(r, x, np.ones(2)),
            catch(k.layers.Reshape((7,)), x, np.ones(2)), catch(r), r.built]

"""tf.keras.layers.EinsumDense (Keras 3.15): weight shapes from the equation, outputs, gradients, configs, errors.

Weights come from Constant initializers or ``set_weights`` (random initializers do not draw TF's numbers).
"""

import numpy as np

from tests.golden.harness import case, catch


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _w(layer):
    return [[v.path, v.name, v.shape.as_list(), v.dtype, v.trainable] for v in layer.weights]


def _ramp(*shape):
    n = int(np.prod(shape))
    return (np.arange(n, dtype="float64").reshape(shape) / n - 0.4).astype("float32")


@case
def einsum_dense_forms(tf):
    k = _k(tf)
    specs = [("ab,bc->ac", 4, "c", (2, 3)), ("abc,cd->abd", (None, 4), "d", (2, 5, 3)),
             ("...x,xy->...y", 4, "y", (2, 5, 3)), ("...b,bc->...c", 4, None, (2, 3)),
             ("abc,cde->abde", (5, 2, 4), "de", (2, 5, 3)), ("abc,cde->abde", (5, 2, 4), "d", (2, 5, 3)),
             ("ab...,bc->ac...", (4, 6), "c", (2, 3, 6)), ("...ab,bc->...ac", (5, 4), "c", (2, 7, 5, 3))]
    out = []
    for eq, shape, bias_axes, x_shape in specs:
        layer = k.layers.EinsumDense(eq, output_shape=shape, bias_axes=bias_axes, activation="tanh")
        layer.build(x_shape)
        layer.set_weights([_ramp(*w.shape) for w in layer.weights])
        out.append([_w(layer), layer(_ramp(*x_shape)), layer.compute_output_shape(x_shape)])
    return out


@case
def einsum_dense_grads_and_names(tf):
    k = _k(tf)
    layer = k.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="e",
                                 kernel_initializer=k.initializers.Constant(0.2),
                                 bias_initializer=k.initializers.Constant(-0.1))
    other = k.layers.EinsumDense("ab,bc->ac", 2, name="proj")
    x = tf.constant(_ramp(2, 4, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = tf.reduce_sum(y * y)
    g = tape.gradient(s, [x] + layer.trainable_variables)
    return {"y": y, "g": g, "w": _w(layer), "names": [layer.name, other.name], "count": layer.count_params(),
            "f64": k.layers.EinsumDense("ab,bc->ac", 2, dtype="float64", kernel_initializer="ones")(
                np.ones((1, 2)))}


@case
def einsum_dense_config(tf):
    k = _k(tf)
    layer = k.layers.EinsumDense("...b,bc->...c", output_shape=3, bias_axes="c", activation="relu",
                                 kernel_regularizer="l2", name="ed")
    config = layer.get_config()
    clone = k.layers.EinsumDense.from_config(config)
    clone.build((2, 4))
    return [config, clone.get_config(), _w(clone), k.layers.EinsumDense("ab,bc->ac", 3).get_config()]


@case
def einsum_dense_errors(tf):
    k = _k(tf)

    def build(eq, shape, bias_axes, x_shape):
        return k.layers.EinsumDense(eq, output_shape=shape, bias_axes=bias_axes).build(x_shape)

    layer = k.layers.EinsumDense("ab,bc->ac", 3)
    layer(np.ones((2, 4), "float32"))
    return [catch(build, "ab,bc", 3, None, (2, 4)), catch(build, "abc,cd->abd", (7, 3), None, (2, 5, 4)),
            catch(build, "ab,bc->acd", (3, 2), None, (2, 4)), catch(build, "ab,bcz->ac", 3, None, (2, 4)),
            catch(build, "ab,bc->ac", 3, "z", (2, 4)), catch(layer, np.ones((2, 3, 4), "float32"))]

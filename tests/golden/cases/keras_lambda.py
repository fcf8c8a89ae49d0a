"""keras.layers.Lambda (Keras 3.15): a function as a layer, eagerly and in functional and Sequential models, with
arguments, the training flag, an output shape, its config (a named function by name, a Python lambda refused
when loaded back) and its mask."""

import numpy as np

from tests.golden.harness import case, catch


@case
def lambda_layers(tf):
    layers = tf.keras.layers
    tf.keras.backend.clear_session()
    inp = tf.keras.Input((3,))
    out = layers.Lambda(lambda x: tf.reduce_sum(x, axis=-1, keepdims=True), name="s")(inp)
    model = tf.keras.Model(inp, out)
    seq = tf.keras.Sequential([tf.keras.Input((4,)), layers.Lambda(lambda x: x[:, :2]),
                               layers.Dense(1, kernel_initializer="ones")])
    named = layers.Lambda(tf.nn.relu, name="r")
    anonymous = layers.Lambda(lambda x: x, name="l")
    config = anonymous.get_config()
    return [layers.Lambda(lambda x: x * 2.0)(tf.constant([1.0, 2.0])), out.shape, model(np.ones((2, 3), np.float32)),
            layers.Lambda(lambda x, k: x + k, arguments={"k": 3.0})(tf.constant(1.0)),
            layers.Lambda(lambda x, training=None: x * (2.0 if training else 1.0))(tf.constant(1.0), training=True),
            seq.output_shape, seq(np.ones((1, 4), np.float32)),
            layers.Lambda(tf.nn.relu, output_shape=(5,)).compute_output_shape((None, 5)), named.get_config(),
            sorted(config), sorted(config["function"]), catch(layers.Lambda.from_config, config),
            layers.Lambda.from_config(named.get_config())(tf.constant([-1.0, 2.0])),
            named.mask, named.supports_masking]

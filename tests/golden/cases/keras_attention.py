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


# --- MultiHeadAttention -----------------------------------------------------------------------------------------
def _mha(k, x_q, x_v, x_k=None, **kwargs):
    layer = k.layers.MultiHeadAttention(**kwargs)
    layer.build(x_q, x_v, x_k)
    layer.set_weights([_ramp(*w.shape) * (1.0 + 0.1 * i) for i, w in enumerate(layer.weights)])
    return layer


@case
def mha_outputs_and_scores(tf):
    k = _k(tf)
    layer = _mha(k, (2, 3, 4), (2, 5, 6), num_heads=2, key_dim=3)
    q, v = _ramp(2, 3, 4), _ramp(2, 5, 6) * 1.5
    out, scores = layer(q, v, return_attention_scores=True)
    key = _ramp(2, 5, 2)
    kl = _mha(k, (2, 3, 4), (2, 5, 6), (2, 5, 2), num_heads=2, key_dim=3, name="with_key")
    return {"out": out, "scores": scores, "fused": layer(q, v), "again": layer(q * 2.0, v - 0.2),
            "key": kl(q, v, key=key, return_attention_scores=True), "w": _w(layer), "wk": _w(kl),
            "names": [layer.name, kl.name, k.layers.Dropout(0.1).name],
            "count": layer.count_params()}


@case
def mha_masks(tf):
    k = _k(tf)
    layer = _mha(k, (2, 4, 4), (2, 4, 4), num_heads=2, key_dim=2)
    q, v = _ramp(2, 4, 4), _ramp(2, 4, 4) * -1.3 + 0.2
    mask = np.array([[[1, 1, 0, 0]] * 4, [[1, 0, 1, 1]] * 3 + [[0, 0, 0, 0]]], dtype=bool)
    short = _mha(k, (2, 3, 4), (2, 5, 4), num_heads=1, key_dim=2, name="short")
    return {"causal": layer(q, v, use_causal_mask=True),
            "causal_scores": layer(q, v, use_causal_mask=True, return_attention_scores=True),
            "mask": layer(q, v, attention_mask=mask),
            "mask_scores": layer(q, v, attention_mask=mask, return_attention_scores=True),
            "mask_int": layer(q, v, attention_mask=mask.astype("int32"), return_attention_scores=True),
            "both": layer(q, v, attention_mask=mask, use_causal_mask=True),
            "both_scores": layer(q, v, attention_mask=mask, use_causal_mask=True, return_attention_scores=True),
            "mask_2d": layer(q, v, attention_mask=mask[0]),
            "value_mask": layer(q, v, value_mask=np.array([[1, 1, 1, 0], [1, 0, 0, 0]], bool),
                                return_attention_scores=True),
            "rect_causal": short(_ramp(2, 3, 4), _ramp(2, 5, 4), use_causal_mask=True, return_attention_scores=True),
            "rect_causal_fused": short(_ramp(2, 3, 4), _ramp(2, 5, 4), use_causal_mask=True)}


@case
def mha_variants(tf):
    k = _k(tf)
    out = []
    specs = [dict(num_heads=2, key_dim=3, value_dim=5), dict(num_heads=2, key_dim=3, output_shape=7),
             dict(num_heads=1, key_dim=2, output_shape=(2, 3), use_bias=False),
             dict(num_heads=2, key_dim=2, sliding_window=2), dict(num_heads=2, key_dim=2, use_gate=True)]
    for spec in specs:
        layer = _mha(k, (2, 3, 4), (2, 3, 4), **spec)
        y = layer(_ramp(2, 3, 4), _ramp(2, 3, 4) + 0.3)
        ys = layer(_ramp(2, 3, 4), _ramp(2, 3, 4) + 0.3, return_attention_scores=True)
        out.append([_w(layer), y, ys, layer.compute_output_shape((2, 3, 4), (2, 3, 4))])
    # Attention over two axes of rank-4 inputs, and over one chosen axis.
    for axes in [(1, 2), 2, (-2,)]:
        layer = _mha(k, (2, 3, 2, 4), (2, 3, 2, 4), num_heads=2, key_dim=2, attention_axes=axes)
        mask = np.ones((2, 3, 2, 3, 2), bool) if axes == (1, 2) else None
        if mask is not None:
            mask[:, :, :, 2, 1] = False
        out.append([_w(layer), layer(_ramp(2, 3, 2, 4), _ramp(2, 3, 2, 4) * 0.7, attention_mask=mask,
                                     return_attention_scores=True), layer.attention_axes])
    f64 = _mha(k, (1, 2, 3), (1, 2, 3), num_heads=2, key_dim=2, dtype="float64")
    out.append([f64(np.ones((1, 2, 3)) * 0.3, _ramp(1, 2, 3).astype("float64")),
                f64(np.ones((1, 2, 3)), _ramp(1, 2, 3), return_attention_scores=True)])
    return out


@case
def mha_grads(tf):
    k = _k(tf)
    layer = _mha(k, (2, 3, 4), (2, 5, 4), num_heads=2, key_dim=3)
    q, v = tf.constant(_ramp(2, 3, 4)), tf.constant(_ramp(2, 5, 4) * 2.0)
    mask = np.tril(np.ones((3, 5), bool))
    out = {}
    for label, kwargs in [("plain", {}), ("scores", {"return_attention_scores": True}),
                          ("mask", {"attention_mask": mask}), ("causal", {"use_causal_mask": True})]:
        with tf.GradientTape() as tape:
            tape.watch([q, v])
            y = layer(q, v, **kwargs)
            y = y[0] if isinstance(y, tuple) else y
            s = tf.reduce_sum(y * y * tf.constant(_ramp(2, 3, 4)))
        out[label] = tape.gradient(s, [q, v] + layer.trainable_variables)
    return out


@case
def mha_config_and_errors(tf):
    k = _k(tf)
    layer = k.layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.1, kernel_regularizer="l2",
                                        attention_axes=-2, name="att")
    before = layer.get_config()
    layer(np.ones((1, 3, 4), "float32"), np.ones((1, 3, 4), "float32"))
    clone = k.layers.MultiHeadAttention.from_config(layer.get_config())
    clone(np.ones((1, 3, 4), "float32"), np.ones((1, 3, 4), "float32"))
    default = k.layers.MultiHeadAttention(3, 2)
    mha = k.layers.MultiHeadAttention
    return [before, layer.get_config(), clone.get_config(), _w(clone), len(layer.losses), default.get_config(),
            layer(np.ones((1, 3, 4), "float32"), np.ones((1, 3, 4), "float32"), training=False).shape,
            catch(mha, 0, 2), catch(mha, 2, 2.0), catch(mha, 2, 2, value_dim=-1),
            catch(mha, 2, 2, attention_axes="x"), catch(mha, 2, 2, sliding_window=0),
            catch(mha, 2, 2, flash_attention=True, dropout=0.1),
            catch(default.build, (1, 2, 3), (1, 4, 3), (1, 5, 3)),
            catch(default.compute_output_shape, (1, 2, 3), (1, 4, 3), (1, 5, 3)),
            default.compute_output_shape((1, 2, 3), (1, 4, 5))]

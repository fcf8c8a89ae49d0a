"""tf.keras layers (Keras 3.15): forward values and gradients w.r.t. inputs and weights for the core, convolutional,
pooling, normalization, embedding, recurrent and attention layers, with fixed weights, in float32 and float64
layers, in training and inference mode where they differ."""

import numpy as np

from tests.golden.harness import case


def _ramp(shape, scale=0.3, phase=0.0):
    n = int(np.prod(shape)) if shape else 1
    return (np.cos(np.arange(n) * 0.7 + phase).reshape(shape) * scale).astype(np.float64)


def _run(tf, layer, x, training=None, dtype="float32", weights=True, **call_kw):
    """Build ``layer``, set every weight to a fixed ramp, then return the output and the gradients of a weighted
    sum of it w.r.t. the inputs and the trainable weights (and the weights after the call)."""
    xs = [tf.constant(v, getattr(tf, dtype)) if v.dtype.kind == "f" else tf.constant(v) for v in
          (x if isinstance(x, list) else [x])]
    arg = xs if isinstance(x, list) else xs[0]
    layer(arg, **call_kw)
    if weights:
        layer.set_weights([_ramp(w.shape.as_list(), 0.4, i) + (1.0 if "variance" in w.path else 0.0)
                           for i, w in enumerate(layer.weights)])
    kw = dict(call_kw)
    if training is not None:
        kw["training"] = training
    with tf.GradientTape() as tape:
        tape.watch([v for v in xs if v.dtype.is_floating])
        y = layer(arg, **kw)
        s = tf.reduce_sum(y * tf.constant(_ramp(y.shape.as_list(), 1.0, 0.5), y.dtype))
    sources = [v for v in xs if v.dtype.is_floating] + layer.trainable_weights
    return [y, tape.gradient(s, sources), [w.numpy() for w in layer.weights]]


def _both(tf, make, x, **kw):
    return {dtype: _run(tf, make(dtype), x, dtype=dtype, **kw) for dtype in ("float32", "float64")}


_X2 = _ramp((3, 4), 1.0)
_X3 = _ramp((2, 5, 3), 1.0, 0.2)
_X4 = _ramp((2, 4, 4, 2), 1.0, 0.4)


@case
def dense_activation_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    return [_both(tf, lambda d: k.layers.Dense(3, activation="tanh", dtype=d), _X2),
            _both(tf, lambda d: k.layers.Dense(2, use_bias=False, dtype=d), _X3),
            _both(tf, lambda d: k.layers.Activation("softplus", dtype=d), _X3),
            _both(tf, lambda d: k.layers.Activation("gelu", dtype=d), _X2)]


@case
def conv_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    return [_both(tf, lambda d: k.layers.Conv1D(2, 3, padding="same", activation="relu", dtype=d), _X3),
            _both(tf, lambda d: k.layers.Conv1D(2, 2, strides=2, dilation_rate=1, dtype=d), _X3),
            _both(tf, lambda d: k.layers.Conv2D(3, (2, 3), padding="same", dtype=d), _X4),
            _both(tf, lambda d: k.layers.Conv2D(2, 2, strides=2, use_bias=False, dtype=d), _X4)]


@case
def pooling_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    layers = [lambda d: k.layers.MaxPooling1D(2, dtype=d), lambda d: k.layers.AveragePooling1D(2, padding="same",
                                                                                                 dtype=d),
              lambda d: k.layers.GlobalAveragePooling1D(dtype=d)]
    layers2 = [lambda d: k.layers.MaxPooling2D(2, dtype=d), lambda d: k.layers.AveragePooling2D(3, 1, dtype=d),
               lambda d: k.layers.GlobalAveragePooling2D(dtype=d)]
    return [[_both(tf, make, _X3) for make in layers], [_both(tf, make, _X4) for make in layers2]]


@case
def shape_layers_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    return [_both(tf, lambda d: k.layers.Flatten(dtype=d), _X4),
            _both(tf, lambda d: k.layers.Reshape((3, 5), dtype=d), _X3),
            _both(tf, lambda d: k.layers.Reshape((-1, 2), dtype=d), _X4)]


@case
def merge_layers_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    b = _ramp((2, 5, 3), 1.0, 1.3)
    c = _ramp((2, 5, 1), 1.0, 2.1)
    return [_both(tf, lambda d: k.layers.Add(dtype=d), [_X3, b]),
            _both(tf, lambda d: k.layers.Add(dtype=d), [_X3, b, c]),
            _both(tf, lambda d: k.layers.Concatenate(dtype=d), [_X3, c]),
            _both(tf, lambda d: k.layers.Concatenate(axis=1, dtype=d), [_X3, b])]


@case
def dropout_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    x = tf.constant(_X3, tf.float32)
    d = k.layers.Dropout(0.5, seed=3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = d(x, training=True)
    g = tape.gradient(y, x).numpy()
    kept = y.numpy() != 0
    return [_both(tf, lambda dt: k.layers.Dropout(0.5, dtype=dt), _X3, training=False),
            _both(tf, lambda dt: k.layers.Dropout(0.0, dtype=dt), _X3, training=True),
            bool(np.all(g[kept] == 2.0)), bool(np.all(g[~kept] == 0.0))]


@case
def normalization_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    out = []
    for training in (True, False):
        out.append(_both(tf, lambda d: k.layers.BatchNormalization(dtype=d), _X3, training=training))
        out.append(_both(tf, lambda d: k.layers.BatchNormalization(axis=1, momentum=0.5, scale=False, dtype=d),
                         _X4, training=training))
    out.append(_both(tf, lambda d: k.layers.LayerNormalization(dtype=d), _X3))
    out.append(_both(tf, lambda d: k.layers.LayerNormalization(axis=[1, 2], center=False, dtype=d), _X4))
    return out


@case
def embedding_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    ids = np.array([[1, 2, 2], [0, 4, 1]])
    out = []
    for dtype in ("float32", "float64"):
        e = k.layers.Embedding(5, 3, dtype=dtype)
        y, grads, w = _run(tf, e, ids, dtype=dtype)
        out.append([y, tf.convert_to_tensor(grads[0]), type(grads[0]).__name__, w])
    return out


@case
def recurrent_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    out = []
    for cls in (k.layers.SimpleRNN, k.layers.LSTM, k.layers.GRU):
        out.append(_both(tf, lambda d, cls=cls: cls(2, return_sequences=True, dtype=d), _X3))
        out.append(_both(tf, lambda d, cls=cls: cls(3, go_backwards=True, dtype=d), _X3))
    out.append(_both(tf, lambda d: k.layers.GRU(2, reset_after=False, dtype=d), _X3))
    return out


@case
def attention_grads(tf):
    k = tf.keras
    k.backend.clear_session()
    q = _ramp((2, 3, 4), 1.0)
    v = _ramp((2, 5, 4), 1.0, 0.9)
    return [_both(tf, lambda d: k.layers.MultiHeadAttention(2, 3, dtype=d), [q, v]),
            _both(tf, lambda d: k.layers.MultiHeadAttention(1, 2, value_dim=3, use_bias=False, output_shape=(5,),
                                                            dtype=d), [q, v])]

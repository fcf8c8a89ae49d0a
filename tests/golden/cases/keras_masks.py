"""tf.keras masks (Keras 3.15): Embedding(mask_zero), Masking, propagation through layers, consumption by RNNs,
pooling and attention, merge layers, symbolic masks, and masked losses in fit/evaluate."""

import numpy as np

from tests.golden.harness import case

_IDS = np.array([[1, 2, 0, 0], [3, 4, 2, 0], [4, 0, 0, 0]])
_SEQ = (np.sin(np.arange(24.0)).reshape(3, 4, 2) * 0.8).astype(np.float32)
_SEQ[0, 2:] = 0.0
_SEQ[2, 1] = 0.0


def _const(k, v):
    return k.initializers.Constant(v)


def _emb(k, dim=3, **kw):
    table = (np.cos(np.arange(5 * dim)).reshape(5, dim) * 0.5).astype(np.float32)
    return k.layers.Embedding(5, dim, mask_zero=True, embeddings_initializer=_const(k, table), **kw)


def _mask(x):
    return getattr(x, "_keras_mask", None)


def _ramp(shape, scale=0.3):
    return (np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape) * scale).astype(np.float32)


def _fix(layer):
    layer.set_weights([_ramp(w.shape) for w in layer.get_weights()])
    return layer


@case
def embedding_mask_and_propagation(tf):
    k = tf.keras
    k.backend.clear_session()
    e = _emb(k)
    out = e(_IDS)
    d = k.layers.Dense(2, kernel_initializer=_const(k, 0.2))(out)
    a = k.layers.Activation("relu")(d)
    n = k.layers.LayerNormalization()(a)
    plain = k.layers.Embedding(5, 3)
    return [out, _mask(out), _mask(d), _mask(a), _mask(n), e.compute_mask(_IDS), plain.compute_mask(_IDS),
            _mask(plain(_IDS)), e.supports_masking, plain.supports_masking,
            [getattr(k.layers, n)(*a).supports_masking for n, a in
             [("Dense", (2,)), ("Dropout", (0.1,)), ("Activation", ("relu",)), ("Flatten", ()), ("Conv1D", (2, 1)),
              ("LSTM", (2,)), ("GRU", (2,)), ("SimpleRNN", (2,)), ("GlobalAveragePooling1D", ()),
              ("BatchNormalization", ()), ("Add", ()), ("Concatenate", ()), ("Masking", ())]]]


@case
def masking_layer(tf):
    k = tf.keras
    k.backend.clear_session()
    m = k.layers.Masking(0.0)
    out = m(_SEQ)
    other = k.layers.Masking(mask_value=0.4)
    return [out, _mask(out), m.compute_mask(_SEQ), other(_SEQ), _mask(other(_SEQ)), m.get_config()["mask_value"]]


@case
def rnns_consume_masks(tf):
    k = tf.keras
    k.backend.clear_session()
    out = []
    for cls in (k.layers.SimpleRNN, k.layers.LSTM, k.layers.GRU):
        for seq in (False, True):
            x = tf.constant(_SEQ)
            layer = cls(3, return_sequences=seq)
            masked = k.layers.Masking()(x)
            layer(masked)
            _fix(layer)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = layer(k.layers.Masking()(x))
                loss = tf.reduce_sum(y * y)
            out.append([y, _mask(y), tape.gradient(loss, [x] + layer.trainable_weights)])
    return out


@case
def embedding_into_rnn_and_pooling(tf):
    k = tf.keras
    k.backend.clear_session()
    e = _emb(k, dim=2)
    lstm = k.layers.LSTM(2, return_sequences=True)
    h = e(_IDS)
    lstm(h)
    _fix(lstm)
    seq = lstm(e(_IDS))
    pooled = k.layers.GlobalAveragePooling1D()(seq)
    last = k.layers.GRU(2, kernel_initializer=_const(k, 0.3), recurrent_initializer=_const(k, -0.2))(e(_IDS))
    return [seq, _mask(seq), pooled, _mask(pooled), last, _mask(last)]


@case
def attention_with_masks(tf):
    k = tf.keras
    k.backend.clear_session()
    e = _emb(k, dim=4)
    mha = k.layers.MultiHeadAttention(2, 2)
    x = e(_IDS)
    mha(x, x)
    _fix(mha)
    x = e(_IDS)
    y, scores = mha(x, x, return_attention_scores=True)
    q = e(_IDS)
    v = tf.constant(_ramp((3, 4, 4)))
    cross = mha(q, v)
    return [y, _mask(y), scores, _mask(x), cross, _mask(cross), _mask(q)]


@case
def merge_layers_masks(tf):
    k = tf.keras
    k.backend.clear_session()
    e = _emb(k, dim=2)
    a = e(_IDS)
    b = e(_IDS[:, ::-1].copy())
    plain = tf.constant(_ramp((3, 4, 2)))
    return [_mask(k.layers.Add()([a, b])), _mask(k.layers.Add()([a, plain])),
            _mask(k.layers.Concatenate()([a, b])), _mask(k.layers.Concatenate()([a, plain])),
            _mask(k.layers.Concatenate(axis=1)([a, b])), k.layers.Concatenate()([a, plain])]


@case
def non_masking_layer_warns(tf):
    k = tf.keras
    k.backend.clear_session()
    e = _emb(k, dim=2)
    y = k.layers.Conv1D(2, 1, kernel_initializer=_const(k, 0.5))(e(_IDS))
    return [y, _mask(y)]


def _masked_model(tf):
    k = tf.keras
    k.backend.clear_session()
    ids = k.Input((4,), dtype="int32")
    h = _emb(k, dim=3)(ids)
    h = k.layers.SimpleRNN(3, return_sequences=True, kernel_initializer=_const(k, 0.2),
                           recurrent_initializer=_const(k, -0.1))(h)
    out = k.layers.Dense(1, kernel_initializer=_const(k, 0.4))(h)
    return k, ids, h, out


@case
def symbolic_masks(tf):
    k, ids, h, out = _masked_model(tf)
    pooled = k.layers.GlobalAveragePooling1D()(h)
    return [_mask(ids), repr(_mask(h)).split(", name=")[0], repr(_mask(out)).split(", name=")[0], _mask(pooled)]


@case
def masked_model_predict_fit_evaluate(tf):
    k, ids, h, out = _masked_model(tf)
    m = k.Model(ids, out)
    y = (np.arange(12.0).reshape(3, 4, 1) / 10).astype(np.float32)
    pred = m(_IDS)
    m.compile(k.optimizers.SGD(0.1), "mse", run_eagerly=True)
    f32 = np.float32
    first = f32(m.evaluate(_IDS, y, verbose=0))
    hist = m.fit(_IDS, y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    return [pred, _mask(pred), m.predict(_IDS, verbose=0), first, [f32(v) for v in hist.history["loss"]],
            f32(m.evaluate(_IDS, y, verbose=0)), m.get_weights(),
            k.losses.MeanSquaredError()(y, pred), k.losses.MeanSquaredError(reduction="sum")(y, pred)]


@case
def masked_metrics(tf):
    # Keras's mean-metric wrappers weigh masked entries of y_pred by zero (also in compiled metrics).
    k, ids, h, out = _masked_model(tf)
    m = k.Model(ids, out)
    y = (np.arange(12.0).reshape(3, 4, 1) / 10).astype(np.float32)
    pred = m(_IDS)
    mae = k.metrics.MeanAbsoluteError()
    mae.update_state(y, pred)
    weighted = k.metrics.MeanSquaredError()
    weighted.update_state(y, pred, sample_weight=np.array([1.0, 2.0, 0.5], np.float32))
    m.compile(k.optimizers.SGD(0.1), "mse", metrics=["mae"], run_eagerly=True)
    logs = m.evaluate(_IDS, y, verbose=0, return_dict=True)
    return [mae.result(), weighted.result(), {key: np.float32(v) for key, v in logs.items()}]

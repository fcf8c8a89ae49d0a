"""Keras 3's recurrent layers (SimpleRNN, LSTM, GRU) and their cells, on tapeflow ops.

Each layer owns one cell (``lstm/lstm_cell/kernel``...) and runs it in a Python loop over the time axis, so
GradientTape differentiates through every step. Weights follow Keras's layout: ``kernel`` ``(input_dim, k * units)``,
``recurrent_kernel`` ``(units, k * units)`` and ``bias``, the gates side by side in Keras's order (``i, f, c, o`` for
LSTM, ``z, r, h`` for GRU; GRU's ``reset_after=True`` bias is ``(2, 3 * units)``: input bias, recurrent bias).
A ``mask`` (``(batch, time)`` booleans) keeps the previous state, and the previous output (or zeros with
``zero_output_for_mask``), at masked steps. ``go_backwards`` reads the sequence from its end, and the returned
sequence is in that reading order, as in Keras. Dropout masks are drawn once per call by an op of the cell's seed
(``keras.random.LayerStream``, read further along on every call), so they are reproducible in tapeflow, new on
every call of a traced ``tf.function``, and are not TensorFlow's draws.
"""

from __future__ import annotations

import numpy as np

from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from ..random import LayerStream
from ..variables import Variable
from .base import InputSpec, Layer
from .core import _ser_constraint, _ser_init, _ser_reg, _tf

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU"]


def _check_units(units):
    if not isinstance(units, int) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, "
                         f"got {units}.")


class _Cell(Layer):
    """What the three cells share: activations, initializers, regularizers, dropout masks and configs."""

    _promotes_integer_inputs = True  # Keras's ops promote integer inputs against the float weights

    _gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        _check_units(units)
        implementation = kwargs.pop("implementation", 2)
        super().__init__(**kwargs)
        self.units = units
        self.activation = _activations.get(activation)
        self.recurrent_activation = _activations.get(recurrent_activation) if self._gates > 1 else None
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.recurrent_initializer = _initializers.get(recurrent_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = _regularizers.get(recurrent_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        # Keras's "implementation 1" (one dropout mask per gate) is forced by recurrent dropout.
        self.implementation = 1 if self.recurrent_dropout != 0.0 else implementation
        self.seed = seed
        self._stream = LayerStream(seed)
        self._dropout_mask = None
        self._recurrent_dropout_mask = None
        self.output_size = units
        self.kernel = self.recurrent_kernel = self.bias = None

    def _weights(self, input_dim, bias_shape, bias_initializer=None):
        k = self._gates * self.units
        self.kernel = self.add_weight(shape=(input_dim, k), name="kernel", initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, k), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight(shape=bias_shape, name="bias",
                                        initializer=bias_initializer or self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    # --- dropout: one mask (or one per gate) for the whole sequence of a call --------------------------------
    def _draw(self, like, rate):
        count = self._gates if self.implementation == 1 and self._gates > 1 else None
        shape = like.shape.as_list()

        def one():
            return self._stream.keep_scaled(shape, rate, like)

        return one() if count is None else [one() for _ in range(count)]

    def get_dropout_mask(self, step_input):
        """The input dropout mask of the current sequence (drawn on first use), or ``None`` without dropout."""
        if self._dropout_mask is None and self.dropout > 0:
            self._dropout_mask = self._draw(step_input, self.dropout)
        return self._dropout_mask

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent dropout mask of the current sequence (drawn on first use), or ``None``."""
        if self._recurrent_dropout_mask is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._draw(step_input, self.recurrent_dropout)
        return self._recurrent_dropout_mask

    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None

    def _masked(self, x, mask, training, rate):
        """``x`` times each gate's dropout mask (``[x] * gates`` when dropout does not apply)."""
        if not (training and 0.0 < rate < 1.0) or mask is None:
            return [x] * self._gates
        return [x * m for m in mask] if isinstance(mask, list) else [x * mask] * self._gates

    def get_initial_state(self, batch_size=None):
        """Zero states, one ``(batch_size, size)`` tensor per state."""
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [_tf().zeros((batch_size, s), dtype=self.compute_dtype) for s in sizes]

    def _cell_config(self):
        config = {"units": self.units, "activation": _activations.serialize(self.activation)}
        if self._gates > 1:
            config["recurrent_activation"] = _activations.serialize(self.recurrent_activation)
        config.update({
            "use_bias": self.use_bias, "kernel_initializer": _ser_init(self.kernel_initializer),
            "recurrent_initializer": _ser_init(self.recurrent_initializer),
            "bias_initializer": _ser_init(self.bias_initializer),
            "kernel_regularizer": _ser_reg(self.kernel_regularizer),
            "recurrent_regularizer": _ser_reg(self.recurrent_regularizer),
            "bias_regularizer": _ser_reg(self.bias_regularizer),
            "kernel_constraint": _ser_constraint(self.kernel_constraint),
            "recurrent_constraint": _ser_constraint(self.recurrent_constraint),
            "bias_constraint": _ser_constraint(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout, "seed": self.seed})
        return config

    def get_config(self):
        return {**super().get_config(), **self._cell_config()}

    @classmethod
    def from_config(cls, config):
        return cls(**_deserialize(config))


def _deserialize(config):
    config = dict(config)
    for key in ("kernel_initializer", "recurrent_initializer", "bias_initializer"):
        if key in config:
            config[key] = _initializers.get(config[key])
    for key in ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer"):
        if config.get(key) is not None:
            config[key] = _regularizers.get(config[key])
    return config


class SimpleRNNCell(_Cell):
    """One step of ``activation(x @ kernel + bias + h @ recurrent_kernel)``; the output is the new state.

    Raises:
        ValueError: for ``units`` that is not a positive integer.
    """

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                         dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.state_size = units

    def build(self, input_shape):
        self._weights(input_shape[-1], (self.units,))

    def call(self, sequence, states, training=False):
        tf = _tf()
        prev = states[0] if isinstance(states, (list, tuple)) else states
        dp = self.get_dropout_mask(sequence)
        rec_dp = self.get_recurrent_dropout_mask(prev)
        if training and dp is not None:
            sequence = sequence * dp
        h = tf.matmul(sequence, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        if training and rec_dp is not None:
            prev = prev * rec_dp
        out = h + tf.matmul(prev, self.recurrent_kernel)
        if self.activation is not None:
            out = self.activation(out)
        return out, ([out] if isinstance(states, (list, tuple)) else out)


class LSTMCell(_Cell):
    """One LSTM step: gates ``i, f, c, o`` from ``x @ kernel + h @ recurrent_kernel + bias``;
    ``c' = f * c + i * activation(z_c)``, ``h' = o * activation(c')``; states ``[h', c']``.

    ``unit_forget_bias`` starts the forget gate's bias at one (the others from ``bias_initializer``).

    Raises:
        ValueError: for ``units`` that is not a positive integer.
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                         kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
                         seed=seed, **kwargs)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]

    def build(self, input_shape):
        init = None
        if self.use_bias and self.unit_forget_bias:
            base, units = self.bias_initializer, self.units

            def init(shape, dtype=None):
                ones = _initializers.get("ones")
                return _tf().concat([base((units,), dtype=dtype), ones((units,), dtype=dtype),
                                     base((2 * units,), dtype=dtype)], axis=0)

        self._weights(input_shape[-1], (4 * self.units,), init)

    def call(self, inputs, states, training=False):
        tf = _tf()
        h_tm1, c_tm1 = states[0], states[1]
        xs = self._masked(inputs, self.get_dropout_mask(inputs) if training else None, training, self.dropout)
        if self.implementation == 1:
            hs = self._masked(h_tm1, self.get_recurrent_dropout_mask(h_tm1) if training else None, training,
                              self.recurrent_dropout)
            kernels = tf.split(self.kernel, 4, axis=1)
            rec_kernels = tf.split(self.recurrent_kernel, 4, axis=1)
            biases = tf.split(self.bias, 4, axis=0) if self.use_bias else [None] * 4
            z = []
            for x, h, k, rk, b in zip(xs, hs, kernels, rec_kernels, biases):
                zi = tf.matmul(x, k)
                if b is not None:
                    zi = zi + b
                z.append(zi + tf.matmul(h, rk))
        else:
            z = tf.matmul(xs[0], self.kernel) + tf.matmul(h_tm1, self.recurrent_kernel)
            if self.use_bias:
                z = z + self.bias
            z = tf.split(z, 4, axis=1)
        i = self.recurrent_activation(z[0])
        f = self.recurrent_activation(z[1])
        c = f * c_tm1 + i * self.activation(z[2])
        o = self.recurrent_activation(z[3])
        h = o * self.activation(c)
        return h, [h, c]

    def _cell_config(self):
        config = super()._cell_config()
        out = {}
        for key, value in config.items():
            out[key] = value
            if key == "use_bias":
                out["unit_forget_bias"] = self.unit_forget_bias
        return out


class GRUCell(_Cell):
    """One GRU step: gates ``z, r`` and candidate ``hh``; ``h' = z * h + (1 - z) * hh``.

    With ``reset_after`` (the default) the reset gate multiplies ``h @ recurrent_kernel_h + recurrent_bias_h``
    and ``bias`` is ``(2, 3 * units)``; without it, it multiplies ``h`` before the matmul and ``bias`` is
    ``(3 * units,)``.

    Raises:
        ValueError: for ``units`` that is not a positive integer.
    """

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 reset_after=True, seed=None, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                         kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
                         seed=seed, **kwargs)
        self.reset_after = reset_after
        self.state_size = units

    def build(self, input_shape):
        self._weights(input_shape[-1], (2, 3 * self.units) if self.reset_after else (3 * self.units,))

    def call(self, inputs, states, training=False):
        tf = _tf()
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        input_bias = recurrent_bias = None
        if self.use_bias:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        xs = self._masked(inputs, self.get_dropout_mask(inputs) if training else None, training, self.dropout)
        hs = self._masked(h_tm1, self.get_recurrent_dropout_mask(h_tm1) if training else None, training,
                          self.recurrent_dropout)
        kz, kr, kh = tf.split(self.kernel, 3, axis=1)
        rz, rr, rh = tf.split(self.recurrent_kernel, 3, axis=1)
        if self.implementation == 1:
            x_z, x_r, x_h = tf.matmul(xs[0], kz), tf.matmul(xs[1], kr), tf.matmul(xs[2], kh)
        else:
            x_z, x_r, x_h = tf.split(tf.matmul(xs[0], self.kernel), 3, axis=1)
        if input_bias is not None:
            bz, br, bh = tf.split(input_bias, 3, axis=0)
            x_z, x_r, x_h = x_z + bz, x_r + br, x_h + bh
        rec_z, rec_r = tf.matmul(hs[0], rz), tf.matmul(hs[1], rr)
        if recurrent_bias is not None:
            cz, cr, ch = tf.split(recurrent_bias, 3, axis=0)
            rec_z, rec_r = rec_z + cz, rec_r + cr
        z = self.recurrent_activation(x_z + rec_z)
        r = self.recurrent_activation(x_r + rec_r)
        if self.reset_after:
            rec_h = tf.matmul(hs[2], rh)
            if recurrent_bias is not None:
                rec_h = rec_h + ch
            rec_h = r * rec_h
        else:
            rec_h = tf.matmul(r * hs[2], rh)
        hh = self.activation(x_h + rec_h)
        h = z * h_tm1 + (1 - z) * hh
        return h, ([h] if isinstance(states, (list, tuple)) else h)

    def _cell_config(self):
        config = super()._cell_config()
        seed = config.pop("seed")
        return {**config, "reset_after": self.reset_after, "seed": seed}


class _RNN(Layer):
    """The time loop around a cell (Keras's ``RNN`` layer for the built-in cells)."""

    _promotes_integer_inputs = True  # Keras's ops promote integer inputs against the float weights

    _cell_class = None

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=3)
        object.__setattr__(self, "states", None)
        self._expected_batch_size = None
        self.single_state = isinstance(cell.state_size, int)
        self.state_size = [cell.state_size] if self.single_state else list(cell.state_size)

    def __getattr__(self, name):
        # The cell's hyperparameters read as the layer's (``lstm.units``, ``gru.reset_after``...).
        if name in ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                    "recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
                    "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
                    "recurrent_dropout", "unit_forget_bias", "reset_after", "implementation") \
                and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def build(self, sequences_shape, initial_state_shape=None):
        if not self.cell.built:
            self.cell.build((sequences_shape[0], *tuple(sequences_shape[2:])))
            self.cell.built = True
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError("When using `stateful=True` in a RNN, the batch size must be static. Found "
                                     f"dynamic batch size: sequence.shape={sequences_shape}")
                states = [Variable(s, trainable=False, dtype=self.variable_dtype, name="rnn_state")
                          for s in self.get_initial_state(sequences_shape[0])]
                object.__setattr__(self, "states", states)
                self._expected_batch_size = sequences_shape[0]

    def get_initial_state(self, batch_size):
        """The cell's zero states for ``batch_size`` sequences."""
        return list(self.cell.get_initial_state(batch_size=batch_size))

    def reset_state(self):
        """Zero the kept states of a stateful layer."""
        if self.states is not None:
            for v in self.states:
                v.assign(np.zeros(v.shape.as_list(), v.dtype))

    reset_states = reset_state

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch = sequences_shape[0]
        out = (batch, sequences_shape[1], self.cell.output_size) if self.return_sequences \
            else (batch, self.cell.output_size)
        if self.return_state:
            return (out, *[(batch, s) for s in self.state_size])
        return out

    def compute_mask(self, _, mask):
        """The input mask for returned sequences, ``None`` otherwise (and for states)."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self.state_size) if self.return_state else out

    def _loop(self, sequences, states, mask, training):
        tf = _tf()
        steps = tf.unstack(sequences, axis=1)
        masks = tf.unstack(mask, axis=1) if mask is not None else [None] * len(steps)
        if self.go_backwards:
            steps, masks = steps[::-1], masks[::-1]
        cell_kwargs = {"training": training} if self.cell._call_has_training_arg else {}
        outputs, prev = [], None
        for x, m in zip(steps, masks):
            out, new = self.cell(x, list(states), **cell_kwargs)
            new = list(new) if isinstance(new, (list, tuple)) else [new]
            if m is not None:
                keep = tf.expand_dims(m, -1)
                if prev is None:
                    prev = tf.zeros_like(out)
                out = tf.where(keep, out, tf.zeros_like(out) if self.zero_output_for_mask else prev)
                new = [tf.where(keep, n, s) for n, s in zip(new, states)]
            prev, states = out, new
            outputs.append(out)
        return outputs, states

    def _loops_in_graph(self, sequences, training):
        """Whether the time loop is a ``tf.while_loop``: in a trace that does not fix the sequence length (an
        ``input_signature`` with ``None`` steps), for inference. Unrolled, such a trace would be tied to the length
        it saw (one trace per length, and no ONNX export over any length); training keeps the unrolled loop."""
        from ...compiler.control_flow import tracing  # noqa: PLC0415

        return (tracing() and sequences.shape.rank == 3 and sequences.shape[1] is None and not training
                and not self.unroll and not self.stateful)

    def _graph_loop(self, sequences, states, mask):
        """``(output, final states)`` of the time loop as one ``tf.while_loop`` over the steps (the same cell calls
        and masking as :meth:`_loop`), the sequence output grown one step at a time."""
        tf = _tf()
        steps = tf.shape(sequences)[1]
        batch = tf.shape(sequences)[0]
        n = len(states)
        width = self.cell.output_size
        dtype = states[0].dtype
        cell_kwargs = {"training": False} if self.cell._call_has_training_arg else {}

        def step(t, *carried):
            old = list(carried[:n])
            prev = carried[n]
            at = steps - 1 - t if self.go_backwards else t
            out, new = self.cell(tf.gather(sequences, at, axis=1), old, **cell_kwargs)
            new = list(new) if isinstance(new, (list, tuple)) else [new]
            if mask is not None:
                keep = tf.expand_dims(tf.gather(mask, at, axis=1), -1)
                out = tf.where(keep, out, tf.zeros_like(out) if self.zero_output_for_mask else prev)
                new = [tf.where(keep, a, b) for a, b in zip(new, old)]
            grown = [tf.concat([carried[n + 1], tf.expand_dims(out, 1)], axis=1)] if self.return_sequences else []
            return [t + 1, *new, out, *grown]

        start = [tf.constant(0), *states, tf.zeros(tf.stack([batch, width]), dtype)]
        invariants = [tf.TensorShape([]), *[s.shape for s in states], tf.TensorShape([None, width])]
        if self.return_sequences:
            start.append(tf.zeros(tf.stack([batch, 0, width]), dtype))
            invariants.append(tf.TensorShape([None, None, width]))
        result = tf.while_loop(lambda t, *_: t < steps, step, start, shape_invariants=invariants)
        final = list(result[1:n + 1])
        return (result[n + 2] if self.return_sequences else result[n + 1]), final

    def call(self, sequences, initial_state=None, mask=None, training=False):
        tf = _tf()
        if initial_state is None:
            initial_state = [v.value for v in self.states] if self.stateful \
                else self.get_initial_state(sequences.shape[0] if sequences.shape[0] is not None
                                            else tf.shape(sequences)[0])  # a batch a traced program does not fix
        if self.stateful and self._expected_batch_size is not None and sequences.shape[0] is not None \
                and sequences.shape[0] != self._expected_batch_size:
            raise ValueError("If an RNN is stateful, the batch size of the input sequences must be the same as the "
                             f"batch size of the initial state. \n- Expected batch size: "
                             f"{self._expected_batch_size}\n- Received batch size: {sequences.shape[0]}")
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        states = [cast(s.value if isinstance(s, Variable) else convert_to_tensor(s), self.cell.compute_dtype)
                  for s in initial_state]
        if mask is not None:
            mask = cast(convert_to_tensor(mask), "bool")
        try:
            if self._loops_in_graph(sequences, training):
                output, states = self._graph_loop(sequences, states, mask)
            else:
                outputs, states = self._loop(sequences, states, mask, training)
                output = tf.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        finally:
            self.cell.reset_dropout_mask()
            self.cell.reset_recurrent_dropout_mask()
        if self.stateful:
            for variable, state in zip(self.states, states):
                variable.assign(state)
        if self.return_state:
            return (output, *states)
        return output

    def get_config(self):
        base = super().get_config()
        base.pop("activity_regularizer", None)
        return {**base, "return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask, **self._layer_config()}

    def _layer_config(self):
        config = self.cell._cell_config()
        out = {}
        for key, value in config.items():
            if key == "dropout":
                out["activity_regularizer"] = _ser_reg(self.activity_regularizer)
            out[key] = value
        return out

    @classmethod
    def from_config(cls, config):
        return cls(**_deserialize(config))


def _split_kwargs(kwargs):
    """The keyword arguments of the layer itself (the rest belong to the cell)."""
    layer = {k: kwargs.pop(k) for k in ("name", "dtype", "trainable", "autocast", "input_shape", "input_dim",
                                        "activity_regularizer") if k in kwargs}
    return layer


class SimpleRNN(_RNN):
    """A fully connected RNN: ``h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)``.

    Returns the last output (``(batch, units)``), the sequence with ``return_sequences``, and the final state
    after it with ``return_state``.

    Raises:
        ValueError: for ``units`` that is not a positive integer or inputs that are not of rank 3.
    """

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False,
                 seed=None, **kwargs):
        layer_kwargs = _split_kwargs(kwargs)
        cell = SimpleRNNCell(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                             recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                             kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                             bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                             recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                             dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
                             dtype=layer_kwargs.get("dtype"), trainable=layer_kwargs.get("trainable", True),
                             name="simple_rnn_cell")
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **layer_kwargs, **kwargs)

    def _layer_config(self):
        config = super()._layer_config()
        config.pop("seed")
        return config


class _CudnnRNN(_RNN):
    """LSTM and GRU: Keras lets them ask for cuDNN, which this NumPy backend never has."""

    def _set_use_cudnn(self, use_cudnn):
        if use_cudnn not in ("auto", True, False):
            raise ValueError("Invalid valid received for argument `use_cudnn`. Expected one of {'auto', True, "
                             f"False}}. Received: use_cudnn={use_cudnn}")
        self.use_cudnn = use_cudnn

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if self.use_cudnn is True:
            raise ValueError("use_cudnn=True was specified, but cuDNN is not supported for this layer configuration "
                             "with this backend. Pass use_cudnn='auto' to fallback to a non-cuDNN implementation.")
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)


class LSTM(_CudnnRNN):
    """Long Short-Term Memory over a sequence; states ``[h, c]``.

    ``use_cudnn`` is accepted (``"auto"``, ``True``, ``False``); there is no cuDNN here, so ``True`` fails when
    called, as TensorFlow does on a machine without a GPU.

    Raises:
        ValueError: for ``units`` that is not a positive integer, an invalid ``use_cudnn`` or inputs that are not
            of rank 3.
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, use_cudnn="auto", **kwargs):
        layer_kwargs = _split_kwargs(kwargs)
        cell = LSTMCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                        kernel_initializer=kernel_initializer, unit_forget_bias=unit_forget_bias,
                        recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                        kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                        bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                        recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint, dropout=dropout,
                        recurrent_dropout=recurrent_dropout, seed=seed, dtype=layer_kwargs.get("dtype"),
                        trainable=layer_kwargs.get("trainable", True), name="lstm_cell",
                        implementation=kwargs.pop("implementation", 2))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **layer_kwargs, **kwargs)
        self._set_use_cudnn(use_cudnn)


class GRU(_CudnnRNN):
    """Gated Recurrent Unit over a sequence (``reset_after=True`` by default, Keras's cuDNN-compatible form).

    Raises:
        ValueError: for ``units`` that is not a positive integer, an invalid ``use_cudnn`` or inputs that are not
            of rank 3.
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=True, use_cudnn="auto", **kwargs):
        layer_kwargs = _split_kwargs(kwargs)
        cell = GRUCell(units, activation=activation, recurrent_activation=recurrent_activation, use_bias=use_bias,
                       kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                       bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                       recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
                       kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
                       bias_constraint=bias_constraint, dropout=dropout, recurrent_dropout=recurrent_dropout,
                       reset_after=reset_after, seed=seed, dtype=layer_kwargs.get("dtype"),
                       trainable=layer_kwargs.get("trainable", True), name="gru_cell",
                       implementation=kwargs.pop("implementation", 2))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **layer_kwargs, **kwargs)
        self._set_use_cudnn(use_cudnn)

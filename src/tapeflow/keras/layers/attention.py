"""Keras 3's ``MultiHeadAttention``: query/key/value projections (``EinsumDense`` sublayers ``query``, ``key``,
``value``), scaled dot-product attention over ``attention_axes`` and the ``attention_output`` projection.

Two computations, chosen as Keras's TensorFlow backend chooses them: with rank-3 inputs, no dropout and no
attention scores requested, the fused path (logits scaled after the product, masked positions set to
``-0.7 * 3.38953e38``, a fully masked row becomes uniform); otherwise the explicit path (query scaled first, masked
positions set to ``-1e9`` before the softmax and to zero after it). As in Keras, ``query_mask`` is the mask
the query tensor carries (an explicit one is ignored), ``value_mask``/``key_mask`` come from the tensors' masks
unless given, the inputs' masks are detached during the call, and the output carries the query's mask.
"""

from __future__ import annotations

import math
import string

import numpy as np

from .. import _masks
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._state import auto_name
from .base import Layer, _shape_of
from .core import Dropout, _kernel_bias_from_config, _ser_constraint, _ser_init, _ser_reg
from .einsum_dense import EinsumDense

__all__ = ["MultiHeadAttention"]


def _proj_equation(free_dims, bound_dims, output_dims):
    """``(equation, bias_axes, output_rank)`` of a projection: free axes kept, bound axes contracted."""
    letters = string.ascii_lowercase
    free = letters[:free_dims]
    bound = letters[free_dims:free_dims + bound_dims]
    out = letters[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def _attention_equations(rank, attn_axes):
    """``(dot_product, combine, scores_rank)``: the key/query product over the head channels and the
    combination of scores with values; every axis but the attention axes and the channels is a batch axis."""
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch_dims = [i for i in range(rank) if i not in attn_axes and i != rank - 1]
    source, extra = "", rank
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += letters[extra]
            extra += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attn_axes]
                      + [source[i] for i in attn_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def _clone_initializer(init):
    return type(init).from_config(init.get_config()) if hasattr(init, "get_config") else init


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.) with Keras 3.15's arguments, weights, masks and configs.

    Args:
        num_heads, key_dim: heads and per-head size of query/key; ``value_dim`` defaults to ``key_dim``.
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        output_shape: the output's trailing shape (default: the query's last dimension).
        attention_axes: the axes attention runs over (default: all but batch, heads and features).
        sliding_window: attend only to keys within ``sliding_window - 1`` positions.
        use_gate: gate the attention output with a sigmoid projection of the query (sublayer ``gate``).
        flash_attention: ``True`` fails as on Keras's TensorFlow backend.
        kernel_/bias_ initializer, regularizer, constraint; activity_regularizer (of the sublayers); seed.

    Raises:
        ValueError: for invalid arguments, mismatched key/value shapes (Keras's messages).
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None, **kwargs):
        if not isinstance(num_heads, int) or num_heads <= 0:
            raise ValueError("Received an invalid value for argument `num_heads`, expected a positive integer. "
                             f"Received: num_heads={num_heads}")
        if not isinstance(key_dim, int) or key_dim <= 0:
            raise ValueError("Received an invalid value for argument `key_dim`, expected a positive integer. "
                             f"Received: key_dim={key_dim}")
        if value_dim is not None and (not isinstance(value_dim, int) or value_dim <= 0):
            raise ValueError("Received an invalid value for argument `value_dim`, expected a positive integer or "
                             f"`None`. Received: value_dim={value_dim}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the `output_shape` "
                                 "should be of type tuple, list, or int.") from None
        self._output_shape = output_shape
        self._flash_attention = flash_attention or None
        self._kernel_initializer = _initializers.get(kernel_initializer)
        self._bias_initializer = _initializers.get(bias_initializer)
        self._kernel_regularizer = _regularizers.get(kernel_regularizer)
        self._bias_regularizer = _regularizers.get(bias_regularizer)
        self._activity_regularizer = _regularizers.get(activity_regularizer)
        self._kernel_constraint = kernel_constraint
        self._bias_constraint = bias_constraint
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"`attention_axes` must be an int, list, or tuple.Received: "
                             f"attention_axes={attention_axes}")
        self._attention_axes = attention_axes
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. Received: "
                             f"sliding_window={sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self._key_dim))
        if self._flash_attention and self._dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. Please set dropout to 0.0 "
                             "to use flash attention.")
        self._query_dense = self._key_dense = self._value_dense = self._output_dense = None
        self._gate_dense = None

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)
    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def get_config(self):
        return {**super().get_config(), "num_heads": self._num_heads, "key_dim": self._key_dim,
                "value_dim": self._value_dim, "dropout": self._dropout, "use_bias": self._use_bias,
                "use_gate": self._use_gate, "output_shape": self._output_shape,
                "attention_axes": self._attention_axes, "sliding_window": self._sliding_window,
                "kernel_initializer": _ser_init(self._kernel_initializer),
                "bias_initializer": _ser_init(self._bias_initializer),
                "kernel_regularizer": _ser_reg(self._kernel_regularizer),
                "bias_regularizer": _ser_reg(self._bias_regularizer),
                "activity_regularizer": _ser_reg(self._activity_regularizer),
                "kernel_constraint": _ser_constraint(self._kernel_constraint),
                "bias_constraint": _ser_constraint(self._bias_constraint), "seed": self.seed}

    @classmethod
    def from_config(cls, config):
        return cls(**_kernel_bias_from_config(config))

    # --- building ------------------------------------------------------------------------------------------
    def _sublayer_kwargs(self):
        return {"kernel_regularizer": self._kernel_regularizer, "bias_regularizer": self._bias_regularizer,
                "activity_regularizer": self._activity_regularizer, "kernel_constraint": self._kernel_constraint,
                "bias_constraint": self._bias_constraint, "dtype": self.dtype_policy,
                "kernel_initializer": _clone_initializer(self._kernel_initializer),
                "bias_initializer": _clone_initializer(self._bias_initializer)}

    def _projection(self, rank, last_dims, name, activation=None):
        equation, bias_axes, output_rank = _proj_equation(rank - 1, 1, 2)
        return EinsumDense(equation, output_shape=[None] * (output_rank - 1 - 2) + list(last_dims),
                           bias_axes=bias_axes if self._use_bias else None, activation=activation, name=name,
                           **self._sublayer_kwargs())

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Make the projections for inputs of these shapes. Without ``value_shape`` (the one shape the base
        ``__call__`` and the functional API pass) the building waits for the first call."""
        if value_shape is None:
            return
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={value_shape} and key_shape={key_shape}")
        heads = self._num_heads
        self._query_dense = self._projection(len(query_shape), [heads, self._key_dim], "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._projection(len(key_shape), [heads, self._key_dim], "key")
        self._key_dense.build(key_shape)
        if self._use_gate:
            self._gate_dense = self._projection(len(query_shape), [heads, self._value_dim], "gate", "sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection(len(value_shape), [heads, self._value_dim], "value")
        self._value_dense.build(value_shape)
        rank = len(query_shape) + 1
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = _attention_equations(
            rank, self._attention_axes)
        self._norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        auto_name("Softmax")  # Keras makes an (unnamed, weightless) Softmax sublayer here
        self._dropout_layer = Dropout(rate=self._dropout, dtype=self.dtype_policy, seed=self.seed)
        output_shape = self._output_shape if self._output_shape else [query_shape[-1]]
        equation, bias_axes, output_rank = _proj_equation(len(query_shape) - 1, 2, len(output_shape))
        self._output_dense = EinsumDense(equation, output_shape=[None] * (output_rank - 1 - len(output_shape))
                                         + list(output_shape), bias_axes=bias_axes if self._use_bias else None,
                                         name="attention_output", **self._sublayer_kwargs())
        dense_input = list(self._query_dense.compute_output_shape(query_shape))
        dense_input[-1] = self._value_dim
        self._output_dense.build(tuple(dense_input))

    def __call__(self, *args, **kwargs):
        if self._query_dense is None:
            names = ["query", "value", "key"]
            given = dict(zip(names, args))
            given.update({k: v for k, v in kwargs.items() if k in names})
            if given.get("query") is not None and given.get("value") is not None:
                self.build(*[_shape_of(given[n]) if given.get(n) is not None else None for n in names])
        return super().__call__(*args, **kwargs)

    # --- computing -----------------------------------------------------------------------------------------
    def _causal_mask(self, query, value):
        t, s = query.shape[1], value.shape[1]
        return np.tril(np.ones((t, s), dtype=bool))[None]

    def _window_mask(self, query, value):
        t, s = query.shape[1], value.shape[1]
        return (np.abs(np.arange(t)[:, None] - np.arange(s)[None, :]) < self._sliding_window)[None]

    def _combined_mask(self, query, value, value_mask, key_mask, attention_mask, use_causal_mask, query_mask=None):
        import tapeflow as tf

        auto = None if query_mask is None else tf.expand_dims(tf.cast(query_mask, "bool"), -1)
        for m in (value_mask, key_mask):
            if m is not None:
                m = tf.expand_dims(tf.cast(m, "bool"), -2)
                auto = m if auto is None else tf.logical_and(auto, m)
        for flag, fn in ((use_causal_mask, self._causal_mask), (self._sliding_window is not None, self._window_mask)):
            if flag:
                m = tf.constant(fn(query, value))
                auto = m if auto is None else tf.logical_and(auto, m)
        if attention_mask is not None:
            attention_mask = tf.cast(attention_mask, "bool")
        if auto is not None:
            attention_mask = auto if attention_mask is None else tf.logical_and(attention_mask, auto)
        return attention_mask

    def _expand_mask(self, mask, target_rank):
        import tapeflow as tf

        axis = -len(self._attention_axes) * 2 - 1
        for _ in range(target_rank - mask.shape.rank):
            mask = tf.expand_dims(mask, axis=axis)
        return mask

    def _masked_softmax(self, scores, mask):
        import tapeflow as tf

        if mask is not None:
            mask = self._expand_mask(mask, scores.shape.rank)
            scores = tf.where(mask, scores, tf.constant(-3e4 if scores.dtype.name == "float16" else -1e9,
                                                        scores.dtype))
        if len(self._norm_axes) > 1:
            probs = tf.exp(scores - tf.reduce_logsumexp(scores, axis=list(self._norm_axes), keepdims=True))
        else:
            probs = tf.nn.softmax(scores, axis=self._norm_axes[0])
        if mask is not None:
            probs = tf.where(mask, probs, tf.zeros_like(probs))
        return probs

    def _fused_attention(self, query, key, value, mask, is_causal):
        import tapeflow as tf

        if self._flash_attention:
            raise ValueError("Flash attention is not supported in tensorflow backend.")
        logits = tf.einsum("BTNH,BSNH->BNTS", query, key)
        logits = logits * tf.cast(self._inverse_sqrt_key_dim, logits.dtype)
        if mask is not None or is_causal:
            keep = tf.ones_like(logits, dtype="bool")
            if mask is not None:
                keep = tf.logical_and(keep, mask)
            if is_causal:
                t, s = logits.shape[2], logits.shape[3]
                keep = tf.logical_and(keep, tf.constant(np.tril(np.ones((t, s), dtype=bool))[None, None]))
            big = 65500.0 if logits.dtype.name == "float16" else 3.38953e38
            logits = tf.where(keep, logits, tf.constant(big * -0.7, logits.dtype))
        probs = tf.nn.softmax(logits, axis=-1)
        return tf.einsum("BNTS,BSNH->BTNH", probs, value)

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False, use_causal_mask=False):
        import tapeflow as tf

        if self._flash_attention and return_attention_scores:
            raise ValueError("Returning attention scores is not supported when flash attention is enabled. Please "
                             "disable flash attention to access attention scores.")
        if not (self._dropout > 0.0 or return_attention_scores or query.shape.rank != 4):
            if use_causal_mask and attention_mask is None:
                return self._fused_attention(query, key, value, None, True), None
            if attention_mask is not None:
                attention_mask = tf.cast(self._expand_mask(attention_mask, 4), "bool")
            return self._fused_attention(query, key, value, attention_mask, use_causal_mask), None
        if use_causal_mask:
            causal = tf.constant(self._causal_mask(query, value))
            attention_mask = causal if attention_mask is None else tf.logical_and(
                tf.cast(attention_mask, "bool"), causal)
        query = query * tf.cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = tf.einsum(self._dot_product_equation, key, query)
        scores = self._masked_softmax(scores, attention_mask)
        dropped = self._dropout_layer(scores, training=training) if self._dropout > 0.0 else scores
        return tf.einsum(self._combine_equation, dropped, value), scores

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        import tapeflow as tf

        if key is None:
            key = value
        if self._query_dense is None:
            self.build(_shape_of(query), _shape_of(value), _shape_of(key))
        query_mask = _masks.get_keras_mask(query)  # Keras ignores an explicit ``query_mask``
        for x in (query, value, key):
            _masks.set_keras_mask(x, None)
        causal_only = (use_causal_mask and query_mask is None and value_mask is None and key_mask is None
                       and attention_mask is None and self._sliding_window is None)
        if causal_only:
            attention_mask = None
        else:
            attention_mask = self._combined_mask(query, value, value_mask, key_mask, attention_mask,
                                                 use_causal_mask, query_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        query = self._query_dense(query)
        key = self._key_dense(key)
        value = self._value_dense(value)
        extra = {"use_causal_mask": True} if causal_only else {}
        output, scores = self._compute_attention(query, key, value, attention_mask, training,
                                                 return_attention_scores, **extra)
        output = self._output_dense(tf.multiply(output, gate) if gate is not None else output)
        if return_attention_scores:
            return output, scores
        return output

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        """The output shape: the query's shape with ``output_shape`` (if given) as its trailing part."""
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={value_shape} and key_shape={key_shape}")
        if self._output_shape:
            query_shape = query_shape[:-1] + self._output_shape
        return query_shape

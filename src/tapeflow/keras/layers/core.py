"""Keras 3's core layers: Dense, Activation, Flatten, Reshape, Dropout, Add, Concatenate, Embedding,
BatchNormalization and LayerNormalization, computed with tapeflow ops (so GradientTape differentiates them).

Dropout draws its mask with an op of its seed (``keras.random.LayerStream``: NumPy's Philox keyed by the layer's
seed, read further along on every call from a position kept in a variable), so a seeded layer is reproducible in
tapeflow, a traced ``tf.function`` draws a new mask on every call, and the masks are not TensorFlow's; the kept
values are ``x / (1 - rate)``.
"""

from __future__ import annotations

import base64
import inspect
import marshal
import math

import numpy as np

from ..._core.tensor import convert_to_tensor
from ...ops.array_ops import cast, reshape
from ...ops.linalg_ops import matmul
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._dtypes import result_type
from ..random import LayerStream
from .base import InputSpec, Layer

__all__ = ["Dense", "Activation", "Flatten", "Reshape", "Dropout", "Add", "Concatenate", "Embedding"]


def _tf():
    import tapeflow

    return tapeflow


def _ser_init(init):
    return _initializers.serialize(init)


def _ser_reg(reg):
    return _regularizers.serialize(reg) if reg is not None else None


def _kernel_bias_from_config(config):
    """A copy of a kernel-and-bias layer's config with its initializers and regularizers deserialized."""
    config = dict(config)
    for key in ("kernel_initializer", "bias_initializer"):
        config[key] = _initializers.get(config.get(key))
    for key in ("kernel_regularizer", "bias_regularizer", "activity_regularizer"):
        if config.get(key) is not None:
            config[key] = _regularizers.get(config[key])
    return config


def _ser_constraint(constraint):
    if constraint is None:
        return None
    return _initializers.serialize_object(constraint, "keras.constraints") if hasattr(constraint, "get_config") \
        else None


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` over the last axis; ``kernel`` is ``(input_dim, units)``.

    Raises:
        ValueError: for ``units`` that is not a positive integer, inputs of rank < 2 or whose last axis differs
            from the one the layer was built for (Keras's input-spec messages).
    """

    _promotes_integer_inputs = True  # Keras's ops promote integer inputs against the float weights

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = units
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.quantization_config = quantization_config
        self.input_spec = InputSpec(min_ndim=2)
        self.kernel = None
        self.bias = None
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(name="kernel", shape=(input_dim, self.units),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs, training=None):
        tf = _tf()
        if getattr(inputs, "_tapeflow_sparse", False):  # (Keras's TF backend multiplies a sparse input as sparse)
            x = tf.sparse.sparse_dense_matmul(inputs, self.kernel)
        elif inputs.shape.rank == 2:
            x = matmul(inputs, self.kernel)
        else:
            x = tf.tensordot(inputs, self.kernel, axes=[[inputs.shape.rank - 1], [0]])
        if self.bias is not None:
            x = tf.add(x, self.bias)
        if self.activation is not None:
            x = self.activation(x)
        return x

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": _activations.serialize(self.activation), "use_bias": self.use_bias,
                "kernel_initializer": _ser_init(self.kernel_initializer),
                "bias_initializer": _ser_init(self.bias_initializer),
                "kernel_regularizer": _ser_reg(self.kernel_regularizer),
                "bias_regularizer": _ser_reg(self.bias_regularizer),
                "kernel_constraint": _ser_constraint(self.kernel_constraint),
                "bias_constraint": _ser_constraint(self.bias_constraint),
                **({"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha} if self.lora_rank else {}),
                "quantization_config": self.quantization_config}

    @classmethod
    def from_config(cls, config):
        return cls(**_kernel_bias_from_config(config))


class Activation(Layer):
    """Apply an activation function (a name, a function, or ``None`` for ``linear``)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = _activations.get(activation)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "activation": _activations.serialize(self.activation)}


class Lambda(Layer):
    """A layer that calls ``function`` on its inputs (``keras.layers.Lambda``): with ``arguments`` as keywords,
    and ``mask`` or ``training`` when ``function`` takes them. ``output_shape`` (a shape without the batch axis, or
    a function of the input shape) says what ``compute_output_shape`` gives; without it a functional model finds
    the shape by running the function. ``mask`` is the output mask, or a function ``(inputs, mask) -> mask``."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None
        self._output_shape = output_shape
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}
        self._takes_mask, self._takes_training = "mask" in params, "training" in params
        self._build_at_init()

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._takes_mask:
            kwargs["mask"] = mask
        if self._takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, previous_mask=None):
        if callable(self.mask):
            return self.mask(inputs, previous_mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return tuple(self._output_shape(input_shape))
        return (tuple(input_shape)[0], *self._output_shape)

    def get_config(self):
        return {**super().get_config(), "function": _serialize_function(self.function), "arguments": self.arguments}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["function"] = _deserialize_function(config["function"], custom_objects)
        return cls(**config)


def _serialize_function(fn):
    """``function`` in a Lambda's config as Keras writes it: a named function by name, a Python lambda as its
    marshalled code (base64), defaults and closure."""
    if getattr(fn, "__name__", "") != "<lambda>":
        return {"module": "builtins", "class_name": "function", "config": fn.__name__, "registered_name": "function"}
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return {"class_name": "__lambda__", "config": {"code": code, "defaults": fn.__defaults__, "closure": closure}}


def _deserialize_function(spec, custom_objects):
    if isinstance(spec, dict) and spec.get("class_name") == "__lambda__":
        raise ValueError("Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. "
                         "This carries a potential risk of arbitrary code execution and thus it is disallowed by "
                         "default. If you trust the source of the artifact, you can override this error by passing "
                         "`safe_mode=False` to the loading function, or calling "
                         "`keras.config.enable_unsafe_deserialization().")
    name = spec.get("config") if isinstance(spec, dict) else spec
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    import tapeflow  # noqa: PLC0415

    for namespace in (tapeflow.nn, tapeflow.math, tapeflow):
        if callable(getattr(namespace, str(name), None)):
            return getattr(namespace, name)
    return _activations.get(name)


class Flatten(Layer):
    """Reshape to ``(batch, prod(other dims))`` (``(batch, 1)`` for rank-1 inputs); ``channels_first`` moves
    the channel axis last first, as Keras does."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                             f"Received: data_format={data_format}")
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        tf = _tf()
        shape = inputs.shape.as_list()
        if self.data_format == "channels_first" and len(shape) > 1:
            inputs = tf.transpose(inputs, (0, *range(2, len(shape)), 1))
        rest = shape[1:]
        return reshape(inputs, (-1 if shape[0] is None else shape[0], math.prod(rest) if rest else 1))

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        flat = None if any(d is None for d in rest) else (math.prod(rest) if rest else 1)
        return (tuple(input_shape)[0], flat)

    def _symbolic_dtype(self, first):
        return first.dtype  # Keras's symbolic Flatten keeps the input's dtype

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


def _resolve_target(in_shape, target):
    """``target`` with its ``-1`` resolved from ``in_shape`` (the non-batch dims).

    Raises:
        ValueError: Keras's messages for more than one ``-1`` or a size that does not divide.
    """
    unknown = [i for i, d in enumerate(target) if d == -1]
    if len(unknown) > 1:
        raise ValueError(f"There must be at most one unknown dimension (-1) in target_shape. Received: "
                         f"target_shape={target}.")
    total = math.prod(in_shape)
    known = math.prod(d for d in target if d != -1)
    if unknown:
        if known == 0 or total % known:
            raise ValueError(f"The total size of the tensor must be unchanged. Received: input_shape={in_shape}, "
                             f"target_shape={target}")
        out = list(target)
        out[unknown[0]] = total // known
        return tuple(out)
    if known != total:
        raise ValueError(f"The total size of the tensor must be unchanged. Received: input_shape={in_shape}, "
                         f"target_shape={target}")
    return tuple(target)


class Reshape(Layer):
    """Reshape each example to ``target_shape`` (the batch axis is kept; one ``-1`` is inferred)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        self._build_at_init()

    def call(self, inputs):
        shape = inputs.shape.as_list()
        target = _resolve_target(tuple(shape[1:]), self.target_shape)
        batch = shape[0]
        if batch is None:  # a batch whose size a traced program does not fix
            batch = -1 if -1 not in target else _tf().shape(inputs)[0]
        return reshape(inputs, (batch, *target))

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        if None in rest:  # the -1 cannot be resolved: it is unknown too
            return (tuple(input_shape)[0], *(None if d == -1 else d for d in self.target_shape))
        return (tuple(input_shape)[0], *_resolve_target(rest, self.target_shape))

    def _symbolic_dtype(self, first):
        return first.dtype  # Keras's symbolic Reshape keeps the input's dtype

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Dropout(Layer):
    """In training, zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)``; the
    identity otherwise (or for ``rate == 0``). ``noise_shape`` broadcasts one mask over axes of size 1.

    Raises:
        ValueError: for a rate outside ``[0, 1]`` or a malformed ``noise_shape`` (Keras's messages).
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate = rate
        self.seed = seed
        self.supports_masking = True
        if noise_shape is not None:
            if isinstance(noise_shape, str) or not hasattr(noise_shape, "__iter__"):
                raise ValueError("Invalid value received for argument `noise_shape`. Expected an iterable of integers "
                                 f"(e.g., a tuple or list). Received: noise_shape={noise_shape}")
            noise_shape = tuple(noise_shape)
        self.noise_shape = noise_shape
        # As Keras makes a seed generator only for a positive rate (the layer is the identity otherwise).
        self._stream = LayerStream(seed) if rate > 0 else None
        self._build_at_init()

    def call(self, inputs, training=False):
        if not (training and self.rate > 0):
            return inputs
        if not inputs.dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                             f"x_dtype={inputs.dtype}")
        shape = inputs.shape.as_list()
        noise = shape if self.noise_shape is None else [s if n is None else n
                                                        for n, s in zip(self.noise_shape, shape)]
        if self.rate < 1:
            if self._stream is None:  # the rate was raised from 0 after the layer was made
                self._stream = LayerStream(self.seed)
            scale = self._stream.keep_scaled(noise, self.rate, inputs)
        elif None in noise:  # every element dropped, in a traced batch of unknown size: nothing is drawn
            scale = _tf().zeros(_tf().shape(inputs), inputs.dtype)
        else:  # every element dropped: nothing is drawn
            scale = cast(convert_to_tensor(np.zeros(noise)), inputs.dtype)
        return inputs * scale

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


def _promote(*tensors):
    """The tensors cast to their Keras result type (:func:`~tapeflow.keras._dtypes.result_type`), where merge
    layers' Keras ops promote and tf ops would refuse mixed dtypes."""
    dtype = result_type(*(x.dtype for x in tensors))
    return [x if x.dtype.name == dtype else cast(x, dtype) for x in tensors]


def _elemwise_shape(shape1, shape2):
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        return _elemwise_shape(shape2, shape1)
    if not shape2:
        return shape1
    out = list(shape1[:-len(shape2)])
    for i, j in zip(shape1[-len(shape2):], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1:
            out.append(j)
        elif j == 1 or i == j:
            out.append(i)
        else:
            raise ValueError(f"Inputs have incompatible shapes. Received shapes {shape1} and {shape2}")
    return tuple(out)


class Add(Layer):
    """The elementwise sum of a list of same-shaped (or broadcastable) inputs.

    Raises:
        ValueError: for an argument that is not a list, different batch sizes or incompatible shapes.
    """

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)):
            raise ValueError("A merge layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape} (not a list of shapes)")
        if len(input_shape) < 1:
            raise ValueError(f"A merge layer should be called on a list of at least 1 input. Received "
                             f"{len(input_shape)} inputs. Full input_shape received: {input_shape}")
        batch_sizes = {s[0] for s in input_shape if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes. Received tensors with shapes "
                             f"{input_shape}")
        self.compute_output_shape(input_shape)

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs} "
                             "(not a list of tensors)")
        out = inputs[0]
        for x in inputs[1:]:
            out, x = _promote(out, x)  # Keras's add promotes (int32 + float32 is float32)
            out = out + x
        return out

    def compute_mask(self, inputs, mask=None):
        """The union (logical or) of the inputs' masks; ``None`` when any input has none."""
        return _merge_mask(inputs, mask)

    def compute_output_shape(self, input_shape):
        out = tuple(input_shape[0][1:])
        for shape in input_shape[1:]:
            out = _elemwise_shape(out, tuple(shape[1:]))
        batch = {s[0] for s in input_shape if s} - {None}
        return ((batch.pop() if len(batch) == 1 else None), *out)


def _check_merge_masks(inputs, mask):
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError("The lists `inputs` and `mask` should have the same length. Received: "
                         f"inputs={inputs} of length {len(inputs)}, and mask={mask} of length {len(mask)}")


def _merge_mask(inputs, mask=None):
    """The union (logical or) of the inputs' masks; ``None`` when any input has none."""
    if mask is None:
        return None
    _check_merge_masks(inputs, mask)
    if any(m is None for m in mask):
        return None
    out = mask[0]
    for m in mask[1:]:
        out = _tf().logical_or(out, m)
    return out



class Concatenate(Layer):
    """Concatenate a list of inputs along ``axis`` (all other axes must match).

    Raises:
        ValueError: for an argument that is not a list or inputs whose other axes differ (Keras's message).
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        if len(input_shape) < 1 or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError("A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                             f"input_shape={input_shape}")
        reduced = set()
        for shape in input_shape:
            shape = list(shape)
            if len(shape) > self.axis:
                del shape[self.axis]
            reduced.add(tuple(shape))
        if len(reduced) != 1:
            err = ("A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
                   f"Received: input_shape={input_shape}")
            if len({len(s) for s in reduced}) != 1:
                raise ValueError(err)
            for axis in range(len(next(iter(reduced)))):
                if len({s[axis] for s in reduced if s[axis] is not None}) > 1:
                    raise ValueError(err)

    def call(self, inputs):
        return _tf().concat(_promote(*inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        out = list(input_shape[0])
        total = 0
        for shape in input_shape:
            if shape[self.axis] is None or total is None:
                total = None
            else:
                total += shape[self.axis]
        out[self.axis] = total
        return tuple(out)

    @property
    def supports_masking(self):
        return True

    def compute_mask(self, inputs, mask=None):
        """Per position, whether any concatenated input is unmasked there (unmasked inputs count as all True)."""
        if mask is None:
            return None
        _check_merge_masks(inputs, mask)
        if all(m is None for m in mask):
            return None
        tf = _tf()
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(tf.ones_like(x, dtype="bool"))
            elif m.shape.rank < x.shape.rank:
                masks.append(tf.logical_or(tf.expand_dims(m, -1), tf.zeros_like(x, dtype="bool")))
            else:
                masks.append(m)
        return tf.reduce_any(tf.concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Embedding(Layer):
    """Look up rows of ``embeddings`` (``(input_dim, output_dim)``) for integer inputs (floats are cast to int32).

    Raises:
        ValueError: for ``input_dim`` or ``output_dim`` that is not a positive integer.
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, weights=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        input_length = kwargs.pop("input_length", None)
        if input_length is not None:
            import warnings

            warnings.warn("Argument `input_length` is deprecated. Just remove it.", stacklevel=2)
        if not isinstance(input_dim, int) or input_dim <= 0:
            raise ValueError(f"`input_dim` must be a positive integer. Received: input_dim={input_dim} "
                             f"(of type {type(input_dim).__name__}).")
        if not isinstance(output_dim, int) or output_dim <= 0:
            raise ValueError(f"`output_dim` must be a positive integer. Received: output_dim={output_dim} "
                             f"(of type {type(output_dim).__name__}).")
        super().__init__(**kwargs)
        self.autocast = False  # as in Keras: indices keep their dtype (call casts floats to int32)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = _initializers.get(embeddings_initializer)
        self.embeddings_regularizer = _regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.quantization_config = quantization_config
        self.embeddings = None
        if weights is not None:
            self.build()
            if not isinstance(weights, (list, tuple)):
                weights = [weights]
            self.set_weights(weights)

    def build(self, input_shape=None):
        if self.embeddings is not None:
            return
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer, name="embeddings",
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint, trainable=True)

    def call(self, inputs):
        tf = _tf()
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        # Keras's take counts negative indices from the end (``-1`` is the last row), as NumPy does.
        inputs = tf.where(inputs < 0, inputs + self.input_dim, inputs)
        # Under a mixed policy the rows come out in the compute dtype (a no-op cast otherwise).
        return cast(tf.gather(self.embeddings, inputs, axis=0), self._input_dtype)

    def compute_mask(self, inputs, mask=None):
        """``inputs != 0`` with ``mask_zero``, else ``None``."""
        return _tf().not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.output_dim)

    def get_config(self):
        config = {**super().get_config(), "input_dim": self.input_dim, "output_dim": self.output_dim,
                  "embeddings_initializer": _ser_init(self.embeddings_initializer),
                  "embeddings_regularizer": _ser_reg(self.embeddings_regularizer),
                  "activity_regularizer": _ser_reg(self.activity_regularizer),
                  "embeddings_constraint": _ser_constraint(self.embeddings_constraint),
                  "mask_zero": self.mask_zero}
        if self.lora_rank:
            config.update(lora_rank=self.lora_rank, lora_alpha=self.lora_alpha)
        config["quantization_config"] = self.quantization_config
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["embeddings_initializer"] = _initializers.get(config.get("embeddings_initializer"))
        for key in ("embeddings_regularizer", "activity_regularizer"):
            if config.get(key) is not None:
                config[key] = _regularizers.get(config[key])
        return cls(**config)

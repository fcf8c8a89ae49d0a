"""``tf.keras.initializers``: Keras 3's weight initializers, ``get``, ``serialize`` and ``deserialize``.

An initializer is called as ``init(shape, dtype=None)`` (``dtype`` defaults to ``"float32"``) and returns a tensor.
The random ones take Keras's ``seed``: an integer (or ``None``, for which a random integer is drawn once, when the
initializer is made). Like Keras 3's, they are *stateless*: one initializer, or two made with the same seed, give
the same values on every call. Values are not bit-equal with TensorFlow's (whose stateless kernels tapeflow does
not reproduce): an integer seed keys a ``numpy.random.Generator(numpy.random.Philox(...))`` drawn afresh on each
call, so the distributions, bounds and the fan-in/fan-out arithmetic are TF's, the particular numbers are not.
``keras.random.SeedGenerator`` seeds (stateful, different values per call) are not available in tapeflow.
The ``STFT`` initializer (which needs SciPy's windows) is not provided.
"""

from __future__ import annotations

import inspect
import math
import random as _pyrandom

import numpy as np

from .._core import errors
from .._core.dtypes import as_dtype
from .._core.tensor import convert_to_tensor, is_tensor
from ..ops.array_ops import cast, reshape, transpose
from ..ops.array_ops import ones as _ones
from ..ops.array_ops import zeros as _zeros
from ..ops.construct_ops import eye
from ..ops.decomp_ops import qr
from ._state import to_snake_case
from .variables import standardize_dtype

__all__ = [
    "Initializer", "Constant", "Zeros", "Ones", "Identity", "IdentityInitializer", "RandomNormal", "RandomUniform",
    "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform",
    "LecunNormal", "Orthogonal", "OrthogonalInitializer", "constant", "zeros", "ones", "identity", "random_normal",
    "random_uniform", "truncated_normal", "variance_scaling", "glorot_uniform", "glorot_normal", "he_uniform",
    "he_normal", "lecun_uniform", "lecun_normal", "orthogonal", "get", "serialize", "deserialize",
]


# ------------------------------------------------------------------------------ serialization (shared by Keras)


def serialize_value(value):
    """A config value as Keras stores it: Python scalars as such, arrays and tensors as tagged dicts."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"class_name": "__numpy__", "config": {"value": value.tolist(), "dtype": str(value.dtype)}}
    if is_tensor(value):
        return {"class_name": "__tensor__", "config": {"value": np.asarray(value).tolist(),
                                                       "dtype": value.dtype.name}}
    if isinstance(value, (list, tuple)):
        return [serialize_value(v) for v in value]
    return value


def deserialize_value(value):
    """Inverse of :func:`serialize_value`."""
    if isinstance(value, dict) and value.get("class_name") == "__numpy__":
        return np.array(value["config"]["value"], dtype=value["config"]["dtype"])
    if isinstance(value, dict) and value.get("class_name") == "__tensor__":
        return convert_to_tensor(value["config"]["value"], dtype=value["config"]["dtype"])
    return value


def serialize_object(obj, module):
    """Keras's ``serialize_keras_object`` for an object with ``get_config``: ``{module, class_name, config,
    registered_name}``; Keras's own classes say ``module`` and no registered name."""
    cls = type(obj)
    builtin = cls.__module__.startswith("tapeflow.keras")
    return {"module": module if builtin else cls.__module__, "class_name": cls.__name__,
            "config": obj.get_config(), "registered_name": None if builtin else cls.__name__}


def deserialize_object(config, objects, custom_objects=None):
    """Keras's ``deserialize_keras_object`` over a table of known classes (and ``custom_objects``).

    A string is looked up by name (a class is instantiated with its defaults); a dict needs a ``class_name``
    and builds ``cls.from_config(config)``. Unknown names come back as the name itself (so ``get`` then fails
    with "Could not interpret ...", as in Keras).
    """
    table = {**objects, **(custom_objects or {})}
    if config is None or not isinstance(config, (str, dict)):
        return config
    if isinstance(config, str):
        obj = table.get(config, config)
        return obj() if inspect.isclass(obj) else obj
    if "class_name" not in config:
        raise ValueError(f"Unknown `config` as a `dict`, config={config}")
    name = config["class_name"]
    cls = table.get(name)
    if cls is None and config.get("registered_name") in table:
        cls = table[config["registered_name"]]
    if cls is None:
        return name
    inner = config.get("config", {})
    if inspect.isclass(cls) and hasattr(cls, "from_config"):
        return cls.from_config(inner)
    return cls


# ------------------------------------------------------------------------------------------ stateless draws


def _check_seed(seed):
    if seed is None or isinstance(seed, int):
        return
    raise ValueError("`seed` argument should be an instance of `keras.random.SeedGenerator()` or an integer. "
                     f"Received: seed={seed}")


def _dims(shape, op_name):
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    dims = tuple(int(d) for d in np.asarray(shape, dtype=np.int64).reshape(-1))
    for d in dims:
        if d < 0:
            raise errors.op_error(op_name, f"Dimension {d} must be >= 0", name=None)
    return dims


def _generator(seed):
    """The stream for an integer seed: Keras's seed pair ``(seed, 0)``, ``seed`` taken as 32 bits."""
    return np.random.Generator(np.random.Philox(key=(int(seed) & 0xFFFFFFFF) << 32))


def _float_sample(sample, dtype):
    # NumPy draws in float32/float64 only; half and bfloat16 are rounded from float32 as TF's kernels do.
    work = np.float64 if dtype.name == "float64" else np.float32
    return cast(convert_to_tensor(sample.astype(work, copy=False)), dtype)


def _normal(shape, mean, stddev, dtype, seed, truncated=False):
    """``tf.random.stateless_normal`` / ``stateless_truncated_normal`` (Keras's ``random.normal`` on TF)."""
    dtype = as_dtype(dtype or "float32")
    op = "StatelessTruncatedNormalV2" if truncated else "StatelessRandomNormalV2"
    mean_t = convert_to_tensor(mean, dtype)
    stddev_t = convert_to_tensor(stddev, dtype)
    dims = _dims(shape, op)
    rng = _generator(seed)
    sample = rng.standard_normal(dims)
    if truncated:  # redraw the values beyond two standard deviations until none is left
        flat = sample.reshape(-1)
        bad = np.flatnonzero(np.abs(flat) > 2)
        while bad.size:
            flat[bad] = rng.standard_normal(bad.size)
            bad = bad[np.abs(flat[bad]) > 2]
        sample = flat.reshape(dims)
    return _float_sample(sample, dtype) * stddev_t + mean_t


def _uniform(shape, minval, maxval, dtype, seed):
    """``tf.random.stateless_uniform`` with bounds cast to ``dtype`` first (Keras's ``random.uniform`` on TF)."""
    dtype = as_dtype(dtype or "float32")
    lo = cast(minval, dtype)
    hi = cast(maxval, dtype)
    if dtype.is_integer:
        op = "StatelessRandomUniformIntV2"
        dims = _dims(shape, op)
        a, b = int(np.asarray(lo)), int(np.asarray(hi))
        if a >= b:
            raise errors.op_error(op, f"Need minval < maxval, got {a} >= {b}")
        return convert_to_tensor(_generator(seed).integers(a, b, size=dims), dtype)
    dims = _dims(shape, "StatelessRandomUniformV2")
    return _float_sample(_generator(seed).random(dims), dtype) * (hi - lo) + lo


# ------------------------------------------------------------------------------------------ initializers


class Initializer:
    """Base class of Keras initializers: subclasses implement ``__call__(shape, dtype=None)`` and ``get_config``."""

    def __call__(self, shape, dtype=None):
        """A tensor of ``shape`` and ``dtype`` initialized as the subclass specifies."""
        raise NotImplementedError("Initializer subclasses must implement the `__call__()` method.")

    def get_config(self):
        """The constructor arguments, as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """A new initializer from ``get_config()``'s output."""
        return cls(**config)

    def clone(self):
        """A new initializer with the same configuration."""
        return self.__class__.from_config(self.get_config())


class Constant(Initializer):
    """Every element equal to ``value`` (cast to ``dtype`` as ``tf.cast`` does: Python floats pass by float32)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        dtype = standardize_dtype(dtype)
        return cast(self.value, dtype) * _ones(shape, dtype)

    def get_config(self):
        return {"value": serialize_value(self.value)}

    @classmethod
    def from_config(cls, config):
        return cls(deserialize_value(config["value"]))


class Zeros(Initializer):
    """All zeros (``tf.zeros``)."""

    def __call__(self, shape, dtype=None):
        return _zeros(shape, standardize_dtype(dtype))


class Ones(Initializer):
    """All ones (``tf.ones``)."""

    def __call__(self, shape, dtype=None):
        return _ones(shape, standardize_dtype(dtype))


class Identity(Initializer):
    """``gain`` times the (possibly rectangular) identity matrix; 2-D shapes only."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        return self.gain * eye(*shape, dtype=standardize_dtype(dtype))


class RandomInitializer(Initializer):
    """Base of the seeded initializers: ``seed`` is an integer or ``None`` (a random integer drawn once)."""

    def __init__(self, seed=None):
        self._init_seed = seed
        if isinstance(seed, dict):
            seed = deserialize_value(seed)
        _check_seed(seed)
        self.seed = _pyrandom.randint(1, int(1e9)) if seed is None else seed

    def get_config(self):
        return {"seed": serialize_value(self._init_seed)}


class RandomNormal(RandomInitializer):
    """Normal values with ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return _normal(shape, self.mean, self.stddev, dtype, self.seed)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """Normal values with ``mean`` and ``stddev``, those more than two ``stddev`` from the mean drawn again."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return _normal(shape, self.mean, self.stddev, dtype, self.seed, truncated=True)

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """Uniform values in ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return _uniform(shape, self.minval, self.maxval, dtype, self.seed)

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape, input_axes=None, output_axes=None):
    """``(fan_in, fan_out)`` of a weight shape, as Keras counts them.

    Scalars count 1 and 1, vectors their length twice, matrices ``(rows, columns)``, and higher ranks are
    convolution kernels ``(..., in, out)`` whose spatial size multiplies both. Explicit ``input_axes`` and
    ``output_axes`` (both given) multiply the sizes of those axes instead.
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return int(math.prod(shape[a] for a in input_axes)), int(math.prod(shape[a] for a in output_axes))
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    receptive = math.prod(shape[:-2])
    return int(shape[-2] * receptive), int(shape[-1] * receptive)


class VarianceScaling(RandomInitializer):
    """Values of variance ``scale / n``, ``n`` the fan-in, fan-out or their mean (``mode``).

    ``distribution``: ``"truncated_normal"`` (``"normal"`` is an alias; the stddev is divided by 0.8796..., the
    stddev of a standard normal truncated at 2), ``"untruncated_normal"``, or ``"uniform"`` in ``[-limit, limit]``
    with ``limit = sqrt(3 * scale / n)``. ``n`` is at least 1.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, input_axes=None,
                 output_axes=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of {modes}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        distributions = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in distributions:
            raise ValueError(f"Invalid `distribution` argument: {distribution}.Please use one of {distributions}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes = input_axes
        self.output_axes = output_axes
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            return _normal(shape, 0.0, math.sqrt(scale) / 0.87962566103423978, dtype, self.seed, truncated=True)
        if self.distribution == "untruncated_normal":
            return _normal(shape, 0.0, math.sqrt(scale), dtype, self.seed)
        limit = math.sqrt(3.0 * scale)
        return _uniform(shape, -limit, limit, dtype, self.seed)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "input_axes": self.input_axes, "output_axes": self.output_axes}


class _Preset(VarianceScaling):
    """A VarianceScaling with fixed scale, mode and distribution: only the seed and the axes are arguments."""

    _preset = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed, input_axes=input_axes,
                         output_axes=output_axes)

    def get_config(self):
        return {"seed": serialize_value(self._init_seed), "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(_Preset):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))`` (Xavier uniform)."""

    _preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_Preset):
    """Truncated normal of stddev ``sqrt(2 / (fan_in + fan_out))`` (Xavier normal)."""

    _preset = (1.0, "fan_avg", "truncated_normal")


class LecunNormal(_Preset):
    """Truncated normal of stddev ``sqrt(1 / fan_in)``."""

    _preset = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_Preset):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(3 / fan_in)``."""

    _preset = (1.0, "fan_in", "uniform")


class HeNormal(_Preset):
    """Truncated normal of stddev ``sqrt(2 / fan_in)``."""

    _preset = (2.0, "fan_in", "truncated_normal")


class HeUniform(_Preset):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / fan_in)``."""

    _preset = (2.0, "fan_in", "uniform")


class Orthogonal(RandomInitializer):
    """``gain`` times an orthogonal matrix (rows or columns, whichever are fewer, orthonormal), from the QR
    decomposition of a normal sample with the signs of R's diagonal folded in; shapes of rank > 2 are made as
    ``(prod(shape[:-1]), shape[-1])`` matrices and reshaped."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        rows = math.prod(shape[:-1])
        cols = shape[-1]
        a = _normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, dtype, self.seed)
        q, r = qr(a)
        d = np.diagonal(np.asarray(r))
        q = q * convert_to_tensor(np.sign(d).astype(d.dtype), r.dtype)
        if rows < cols:
            q = transpose(q)
        return self.gain * reshape(q, shape)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}


# Keras's other public names for the same classes.
IdentityInitializer = Identity
OrthogonalInitializer = Orthogonal
constant, zeros, ones, identity = Constant, Zeros, Ones, Identity
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal, he_uniform, he_normal = GlorotUniform, GlorotNormal, HeUniform, HeNormal
lecun_uniform, lecun_normal = LecunUniform, LecunNormal

_CLASSES = (Initializer, Constant, Identity, Ones, Zeros, GlorotNormal, GlorotUniform, HeNormal, HeUniform,
            LecunNormal, LecunUniform, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling)


ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
ALL_OBJECTS_DICT.update({"IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal, "normal": RandomNormal,
                         "uniform": RandomUniform, "one": Ones, "zero": Zeros})


def serialize(initializer):
    """The initializer as Keras's config dict: ``{"module", "class_name", "config", "registered_name"}`` (a plain
    function as Keras writes a function)."""
    if not hasattr(initializer, "get_config"):
        from .saving.serialization_lib import serialize_keras_object  # noqa: PLC0415 - saving builds on this module

        return serialize_keras_object(initializer)
    return serialize_object(initializer, "keras.initializers")


def deserialize(config, custom_objects=None):
    """An initializer from :func:`serialize`'s dict or a name (an unknown name comes back unchanged); a function's
    dict names a registered function."""
    if isinstance(config, dict) and config.get("class_name") == "function":
        from .saving.serialization_lib import deserialize_keras_object  # noqa: PLC0415

        return deserialize_keras_object(config, custom_objects=custom_objects)
    return deserialize_object(config, ALL_OBJECTS_DICT, custom_objects)


def get(identifier):
    """An initializer from a name (class or snake_case), a config dict, a class, a callable or a tensor/array.

    A tensor or array gives a function returning it cast to the requested dtype, for its own shape only.

    Raises:
        ValueError: ``Could not interpret initializer identifier: ...`` when the result is not callable.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = deserialize({"class_name": identifier, "config": {}})
    elif is_tensor(identifier) or isinstance(identifier, (np.generic, np.ndarray)):
        value = identifier

        def initialize_fn(shape, dtype=None):
            dtype = standardize_dtype(dtype)
            if tuple(shape) != tuple(value.shape):
                raise ValueError(f"Expected `shape` to be {tuple(value.shape)} for direct tensor as initializer. "
                                 f"Received shape={shape}")
            return cast(value, dtype)

        obj = initialize_fn
    else:
        obj = identifier
    if callable(obj):
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


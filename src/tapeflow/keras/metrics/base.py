"""The ``Metric`` base of ``tf.keras.metrics``, the reducing metrics ``Mean``, ``Sum`` (Keras 3.15), and the
wrappers the other metrics build on: ``MeanMetricWrapper`` (a ``Mean`` of a per-sample function) and ``LossMean``
(one of a per-sample loss function).

Per-sample reduction follows Keras: values are cast to the metric's dtype; with weights, the ranks of values and
weights are brought together, values are averaged (``Mean``) or summed (``Sum``) over the axes the weights lack,
weighted, and each sample's weights averaged over their own trailing axes; ``Mean`` then counts the summed weights
(or the samples) so its result is a weighted mean, ``0`` before any update (``divide_no_nan``).
"""

from __future__ import annotations

from .. import _loss_functions as _lf
from .._loss_functions import _to_tensor, squeeze_or_expand_to_same_rank
from .._masks import get_keras_mask
from .._state import auto_name, name_scope
from ..variables import Variable, standardize_dtype

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "LossMean", "floatx"]

# Keras's ``backend.epsilon()``, added to the denominators of ratios.
_EPSILON = 1e-7


def _tf():
    import tapeflow

    return tapeflow


def floatx():
    """Keras's default float type (``tf.keras.backend.floatx()``, float32 unless set)."""
    from .. import backend

    return backend.floatx() if hasattr(backend, "floatx") else "float32"


def _dtype_name(dtype):
    if dtype is None:
        return floatx()
    if hasattr(dtype, "compute_dtype"):
        return dtype.compute_dtype
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        return {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}.get(dtype, dtype)
    return standardize_dtype(dtype)


class Metric:
    """The base of Keras metrics: state in Keras variables made by ``add_variable``, updated by ``update_state``.

    Args:
        dtype: the dtype of the metric's computations (``floatx()`` by default).
        name: the name; ``None`` draws ``metric``, ``metric_1``, ... (the snake-cased class name).

    Subclasses create their state in ``__init__`` and define ``update_state`` and ``result``.
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or auto_name(type(self).__name__)
        self._dtype = _dtype_name(dtype)
        self._metrics = []
        self._variables = []

    def __setattr__(self, name, value):
        # Sub-metrics assigned as attributes contribute their variables, as Keras's tracker makes them do.
        if isinstance(value, Metric) and "_metrics" in self.__dict__ and value not in self._metrics:
            self._metrics.append(value)
        object.__setattr__(self, name, value)

    def _check_super_called(self):
        if "_variables" not in self.__dict__:
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")

    @property
    def dtype(self):
        """The compute dtype's name (``"float32"``)."""
        return self._dtype

    @property
    def variables(self):
        """The state variables, this metric's then those of its sub-metrics."""
        out = list(self._variables)
        for metric in self._metrics:
            out.extend(metric.variables)
        return out

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """Create a non-trainable state variable under the metric's name scope (path ``<metric>/<name>``)."""
        self._check_super_called()
        if not isinstance(initializer, str) and not callable(initializer):
            initializer = _tf().constant(initializer)
        if callable(initializer) and hasattr(initializer, "get_config") and type(initializer).__name__ == "Zeros":
            initializer = "zeros"
        with name_scope(self.name.replace("/", ">"), caller=self):
            variable = Variable(initializer=initializer, shape=shape, dtype=dtype, trainable=False,
                                aggregation=aggregation, synchronization="on_read", name=name)
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """``add_variable`` with Keras's older argument order."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    def reset_state(self):
        """Set every state variable back to zeros."""
        tf = _tf()
        for v in self.variables:
            v.assign(tf.zeros(v.shape, dtype=v.dtype))

    def update_state(self, *args, **kwargs):
        """Accumulate statistics (defined by subclasses)."""
        raise NotImplementedError

    def result(self):
        """The current value of the metric (defined by subclasses)."""
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        """Update the state with the arguments, then return ``result()``."""
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    # Constructor arguments ``get_config`` returns besides name and dtype, read from attributes of the same names,
    # in Keras's order (subclasses with other needs override ``get_config``).
    _config_keys = ()

    def get_config(self):
        """``{"name": ..., "dtype": ...}`` plus the subclass's constructor arguments."""
        config = {"name": self.name, "dtype": self.dtype}
        for key in self._config_keys:
            config[key] = getattr(self, key)
        return config

    @classmethod
    def from_config(cls, config):
        """A new metric built from ``get_config()``'s output."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


def _reduce_to_samplewise(values, sample_weight, reduce_fn, dtype):
    tf = _tf()
    values = tf.cast(_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = _to_tensor(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = len(sample_weight.shape), len(values.shape)
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=list(range(weight_ndim, values_ndim)))
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(values))
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_ndim)))
    if len(values.shape) > 1:
        values = reduce_fn(values, axis=list(range(1, len(values.shape))))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the given values; state ``total``."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")

    def update_state(self, values, sample_weight=None):
        """Add the (weighted) values to ``total``."""
        tf = _tf()
        values, _ = _reduce_to_samplewise(values, sample_weight, tf.reduce_sum, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))

    def reset_state(self):
        self.total.assign(0)

    def result(self):
        """``total`` as a tensor of the metric's dtype."""
        return _tf().cast(self.total, self.dtype)


class Mean(Metric):
    """The (weighted) mean of the given values; states ``total`` and ``count``."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def update_state(self, values, sample_weight=None):
        """Add the weighted values to ``total`` and their weights (or the number of samples) to ``count``."""
        tf = _tf()
        values, sample_weight = _reduce_to_samplewise(values, sample_weight, tf.reduce_mean, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))
        if sample_weight is not None:
            num_samples = tf.reduce_sum(sample_weight)
        elif len(values.shape) >= 1:
            num_samples = values.shape[0] if values.shape[0] is not None else tf.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(tf.cast(num_samples, self.dtype))

    def reset_state(self):
        self.total.assign(0)
        self.count.assign(0)

    def result(self):
        """``total / count``, ``0`` when ``count`` is ``0``."""
        tf = _tf()
        return tf.math.divide_no_nan(tf.convert_to_tensor(self.total), tf.cast(self.count, self.dtype))


class MeanMetricWrapper(Mean):
    """A ``Mean`` of the per-sample values of ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Average ``fn``'s per-sample values into the running (weighted) mean; masked entries of ``y_pred`` (its
        Keras mask) weigh nothing, as in Keras."""
        mask = get_keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            tf = _tf()
            weight = tf.cast(mask, self.dtype)
            if sample_weight is not None:
                sample_weight = tf.cast(sample_weight, self.dtype)
                weight, sample_weight = squeeze_or_expand_to_same_rank(weight, sample_weight)
                weight = sample_weight * weight
            sample_weight = weight
        return super().update_state(values, sample_weight=sample_weight)


class LossMean(MeanMetricWrapper):
    """A ``MeanMetricWrapper`` of the per-sample loss function ``_loss`` (set by subclasses with
    :func:`loss_function`) whose lower values are better."""

    _loss = None

    def __init__(self, name=None, dtype=None):
        super().__init__(type(self)._loss, name, dtype=dtype)
        self._direction = "down"


def loss_function(fn_name):
    """The per-sample loss function ``fn_name`` of ``_loss_functions``, as a ``LossMean._loss`` class attribute."""
    return staticmethod(getattr(_lf, fn_name))

"""``tf.keras.layers.Normalization``: ``(x - mean) / max(sqrt(variance), 1e-7)`` per position of ``axis``.

``mean`` and ``variance`` are given, or learned by ``adapt`` as Keras learns them: NumPy arrays with NumPy's
``mean``/``var`` (in the array's own precision), tensors with the float32 reductions, and datasets or iterables
of batches with Keras's running combination of each batch's mean and (biased) variance in float32,
``total = total * (1 - w) + batch * w`` with ``w`` the batch's share of the values seen so far (the variance also
carrying the squared shift of each mean). The learned values are non-trainable weights ``mean``, ``variance``
(and ``count``, which Keras never updates).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...._core import dtypes as _dtypes
from ...._core.tensor import Tensor, convert_to_tensor
from ..base import Layer
from ._common import is_dataset, tf

__all__ = ["Normalization"]

_EPSILON = 1e-7  # Keras's backend epsilon


def _extract_batch(batch):
    """The inputs of a batch that may be ``(x, y)`` or ``(x, y, sample_weight)``."""
    return batch[0] if isinstance(batch, tuple) else batch


class Normalization(Layer):
    """Shift and scale inputs by a mean and variance kept for each position of ``axis``.

    Args:
        axis: the axis or axes that keep their own statistics (``-1``: one per feature; ``None``: one for
            everything).
        mean, variance: the statistics (scalars, or arrays that broadcast over the kept axes); or ``adapt``.
        invert: undo the normalization instead: ``mean + x * max(sqrt(variance), 1e-7)``.

    Raises:
        ValueError: when only one of ``mean``/``variance`` is given, their shapes differ or ``mean`` has more
            dimensions than ``axis`` names; when building, for an axis outside the input's rank or of unknown
            size (Keras's messages).
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError("When setting values directly, `mean` and `variance` must have the same shape. "
                                 f"Received: mean shape {np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the number of axes "
                                 f"({len(self.axis)}). Received: mean shape {np.shape(mean)} for axis {self.axis}")

    # As Keras's data layers: Python values pass as they are (a list of numbers has no shape to build from).
    _allow_non_tensor_positional_args = True

    def __call__(self, *args, **kwargs):
        if args and not hasattr(args[0], "shape") and not self.built:
            self.build(None)
        return super().__call__(*args, **kwargs)

    def build(self, input_shape):
        if input_shape is None:
            return
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                             f"ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(d if d >= 0 else d + ndim for d in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                                 f"inputs.shape={input_shape}, with unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        t = tf()
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._mean_and_var_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=self._mean_and_var_shape,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int", initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
            return
        mean = convert_to_tensor(self.input_mean)
        variance = convert_to_tensor(self.input_variance)
        if mean.shape.rank:
            # The given statistics fill the last kept axes; the other axes broadcast.
            expanded = [1] * ndim
            for i in range(1, mean.shape.rank + 1):
                expanded[self._keep_axis[-i]] = mean.shape[-i]
            mean = t.reshape(mean, expanded)
            variance = t.reshape(variance, expanded)
        self.mean = t.cast(t.broadcast_to(mean, self._broadcast_shape), self.compute_dtype)
        self.variance = t.cast(t.broadcast_to(variance, self._broadcast_shape), self.compute_dtype)

    def adapt(self, data):
        """Learn the mean and variance of ``data``: a NumPy array, a tensor, a ``tf.data.Dataset`` of batches
        (elements of rank 1 are batched by 128 first; ``(x, y)`` elements use ``x``) or an iterable of batches.

        Raises:
            ValueError: for data whose kept axes differ from the built layer's, or an empty iterable.
            TypeError: for other data (Keras's messages).
        """
        t = tf()
        if isinstance(data, (np.ndarray, Tensor)):
            input_shape = tuple(data.shape.as_list()) if isinstance(data, Tensor) else data.shape
        elif is_dataset(data):
            input_shape = self._dataset_shape(data)
            if len(input_shape) == 1:
                data = data.batch(128)
                input_shape = self._dataset_shape(data)
        elif hasattr(data, "__iter__"):
            items = iter(data)
            first = next(items, None)
            if first is None:
                raise ValueError("adapt() received an empty iterable (no batches). Expected at least one batch. Pass "
                                 "a non-empty iterable of arrays or tensors, e.g. layer.adapt([x]) or "
                                 "layer.adapt(list_of_batches).")
            first = _extract_batch(first)
            input_shape = getattr(first, "shape", None)
            if input_shape is None:
                raise TypeError("adapt() expects an iterable that yields arrays or tensors with a `.shape` attribute "
                                "(e.g. numpy arrays or backend tensors). Got an element of type "
                                f"{type(first).__name__}. Ensure each yielded element is array-like with a `.shape` "
                                "attribute.")
            input_shape = tuple(input_shape.as_list()) if hasattr(input_shape, "as_list") else tuple(input_shape)
            data = itertools.chain([first], items)
        else:
            raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, backend tensors, "
                            "`tf.data.Dataset`, `keras.utils.PyDataset`, and iterables of batches (e.g. list, "
                            "generator).")
        if not self.built:
            self.build(input_shape)
        else:
            for d in self._keep_axis:
                if input_shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"The layer was built with input_shape={self._build_input_shape}, but adapt() is "
                                     f"being called with data with an incompatible shape, data.shape={input_shape}")
        if isinstance(data, np.ndarray):
            total_mean = np.mean(data, axis=self._reduce_axis)
            total_var = np.var(data, axis=self._reduce_axis)
        elif isinstance(data, Tensor):
            total_mean, total_var = self._moments(data)
        else:
            total_mean = t.zeros(self._mean_and_var_shape)
            total_var = t.zeros(self._mean_and_var_shape)
            total_count = 0
            for batch in data:
                batch = t.cast(convert_to_tensor(_extract_batch(batch)), self.compute_dtype)
                for d in self._keep_axis:
                    size, expected = batch.shape[d], self._build_input_shape[d]
                    if size is not None and expected is not None and size != expected:
                        raise ValueError(f"adapt() yielded a batch with incompatible shape. Expected "
                                         f"{self._build_input_shape}, got {tuple(batch.shape.as_list())}.")
                batch_mean, batch_var = self._moments(batch)
                count = math.prod(batch.shape[d] for d in self._reduce_axis) if self._reduce_axis else 1
                total_count += count
                weight = float(count) / total_count
                existing = 1.0 - weight
                new_mean = total_mean * existing + batch_mean * weight
                total_var = ((total_var + (total_mean - new_mean) ** 2) * existing
                             + (batch_var + (batch_mean - new_mean) ** 2) * weight)
                total_mean = new_mean
        self.adapt_mean.assign(t.cast(total_mean, self.adapt_mean.dtype))
        self.adapt_variance.assign(t.cast(total_var, self.adapt_variance.dtype))
        self.finalize_state()

    @staticmethod
    def _dataset_shape(data):
        spec = data.element_spec
        spec = spec[0] if isinstance(spec, tuple) else spec
        return tuple(spec.shape.as_list())

    def _moments(self, x):
        """Keras's mean and variance over the reduced axes: computed in at least float32, in the input's floating
        dtype (float32 for integers)."""
        t = tf()
        compute = _dtypes.float64 if x.dtype == _dtypes.float64 else _dtypes.float32
        x = t.cast(x, compute)
        return t.reduce_mean(x, axis=self._reduce_axis), t.math.reduce_variance(x, axis=self._reduce_axis)

    def finalize_state(self):
        """Make the statistics ``call`` uses from the learned weights."""
        if self.input_mean is not None or not self.built:
            return
        t = tf()
        self.mean = t.cast(t.reshape(self.adapt_mean.value, self._broadcast_shape), self.compute_dtype)
        self.variance = t.cast(t.reshape(self.adapt_variance.value, self._broadcast_shape), self.compute_dtype)

    def call(self, inputs):
        t = tf()
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using it.")
        inputs = t.cast(convert_to_tensor(inputs), self.compute_dtype)
        scale = t.maximum(t.sqrt(self.variance), t.constant(_EPSILON, self.compute_dtype))
        if self.invert:
            return self.mean + inputs * scale
        return (inputs - self.mean) / scale

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": np.array(self.input_mean).tolist(), "variance": np.array(self.input_variance).tolist()}

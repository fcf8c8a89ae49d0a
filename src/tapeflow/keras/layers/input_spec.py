"""``tf.keras.layers.InputSpec``: what a layer accepts as input, checked with Keras's messages."""

from __future__ import annotations

from ..variables import standardize_dtype

__all__ = ["InputSpec"]


def _shape_of(x):
    """Keras's shape of a call argument: a tuple of ints/None per tensor, the same nesting for lists."""
    if isinstance(x, (list, tuple)):
        return [_shape_of(y) for y in x]
    if isinstance(x, dict):
        return {k: _shape_of(v) for k, v in x.items()}
    return tuple(x.shape.as_list()) if hasattr(x.shape, "as_list") else tuple(x.shape)


class InputSpec:
    """What a layer accepts as input: rank (``ndim``, ``min_ndim``, ``max_ndim``), ``dtype``, ``shape`` and sizes
    of given ``axes``; ``__call__`` checks the first argument against it with Keras's messages."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = standardize_dtype(dtype) if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        axes = axes or {}
        if not isinstance(axes, dict) or not all(isinstance(k, int) for k in axes):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}")
        self.axes = {int(k): v for k, v in axes.items()}
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self):
        parts = [f"dtype={self.dtype}" if self.dtype else "", f"shape={self.shape}" if self.shape else "",
                 f"ndim={self.ndim}" if self.ndim else "", f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                 f"min_ndim={self.min_ndim}" if self.min_ndim else "", f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(p for p in parts if p)})"

    def get_config(self):
        """The constructor arguments."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def check(self, x, index, layer_name):
        """Raise Keras's ``ValueError`` if ``x`` does not satisfy this spec."""
        if x is None and self.optional:
            return
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for "
                             f"layer '{layer_name}'.")
        shape = _shape_of(x)
        ndim = len(shape)
        head = f"Input {index} with name '{self.name}' of layer '{layer_name}' is incompatible with the layer: "
        if self.ndim is not None and not self.allow_last_axis_squeeze and ndim != self.ndim:
            raise ValueError(f"{head}expected ndim={self.ndim}, found ndim={ndim}. Full shape received: {shape}")
        if self.max_ndim is not None and ndim > self.max_ndim:
            raise ValueError(f"{head}expected max_ndim={self.max_ndim}, found ndim={ndim}")
        if self.min_ndim is not None and ndim < self.min_ndim:
            raise ValueError(f"{head}expected min_ndim={self.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {shape}")
        if self.dtype is not None and standardize_dtype(x.dtype) != self.dtype:
            raise ValueError(f"{head}expected dtype={self.dtype}, found dtype={standardize_dtype(x.dtype)}")
        for axis, value in self.axes.items():
            if value is not None and shape[axis] not in {value, None}:
                raise ValueError(f"{head}expected axis {axis} of input shape to have value {value}, but received "
                                 f"input with shape {shape}")
        if self.shape is not None:
            spec_shape = self.shape
            if self.allow_last_axis_squeeze:
                shape = shape[:-1] if shape and shape[-1] == 1 else shape
                spec_shape = spec_shape[:-1] if spec_shape and spec_shape[-1] == 1 else spec_shape
            for spec_dim, dim in zip(spec_shape, shape):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    raise ValueError(f"{head}expected shape={self.shape}, found shape={shape}")

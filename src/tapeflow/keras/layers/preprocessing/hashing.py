"""``tf.keras.layers.Hashing``: values hashed into ``num_bins`` bins.

As in Keras, numbers are hashed as their decimal text (floats truncated to int64 first, booleans as
``"true"``/``"false"``), with FarmHash's ``Fingerprint64`` (``tf.strings.to_hash_bucket_fast``) or, given a
``salt``, SipHash-2-4 keyed by it (``to_hash_bucket_strong``). With ``mask_value``, that value goes to bin 0 and
the others to bins ``1 .. num_bins - 1``.
"""

from __future__ import annotations

from ...._core.tensor import Tensor, convert_to_tensor
from ....ops.ragged_tensor import RaggedTensor
from ....ops.sparse_ops import SparseTensor
from ._common import PreprocessingLayer, ensure_tensor, tf
from .encoding import encode_categorical

__all__ = ["Hashing"]


class Hashing(PreprocessingLayer):
    """Hash each input value into one of ``num_bins`` bins, then encode the bin by ``output_mode``.

    Args:
        num_bins: how many bins (the mask's bin included).
        mask_value: a value that goes to bin 0 (the others then use the remaining bins).
        salt: an int, or a pair of ints: the key of SipHash (FarmHash without it).
        output_mode: ``"int"`` (the bins), ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        sparse: return the encodings as ``tf.SparseTensor`` s.
        dtype: the output dtype: ``int64`` (or ``int32``) in ``"int"`` mode, float32 otherwise.

    Raises:
        ValueError: for a missing or non-positive ``num_bins``, an unknown ``output_mode``, ``sparse`` in
            ``"int"`` mode, a bad ``salt`` or a non-integer dtype in ``"int"`` mode (Keras's messages).
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             f"num_bins={num_bins}.")
        if output_mode == "int" and self.dtype_policy.name not in ("int32", "int64"):
            raise ValueError(f"When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or 'in64'. "
                             f"Received: dtype={kwargs['dtype']}")
        accepted = ("int", "one_hot", "multi_hot", "count")
        if output_mode not in accepted:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {accepted}. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `\"one_hot\"`, `\"multi_hot\"`, or "
                             f"`\"count\"`. Received: sparse={sparse} and output_mode={output_mode}")
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = sparse
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError("The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True

    @property
    def dtype(self):
        return self.variable_dtype

    def _symbolic_dtype(self, first):
        return self.dtype

    def build(self, input_shape=None):
        pass

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_bins,)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def _hash_values_to_bins(self, values):
        """The bin of each value of a dense tensor."""
        t = tf()
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = t.equal(values, self.mask_value)
        if values.dtype.is_floating:
            values = t.cast(values, "int64")
        if values.dtype.name != "string":
            values = t.strings.as_string(values)
        if self.strong_hash:
            values = t.strings.to_hash_bucket_strong(values, bins, key=list(self.salt), name="hash")
        else:
            values = t.strings.to_hash_bucket_fast(values, bins, name="hash")
        if mask is not None:
            values = t.where(mask, t.zeros_like(values), values + 1)
        return values

    def call(self, inputs):
        t = tf()
        if not isinstance(inputs, (Tensor, RaggedTensor, SparseTensor)):
            inputs = convert_to_tensor(inputs)
        inputs = ensure_tensor(inputs)
        if self.output_mode == "one_hot":
            shape = inputs.shape.as_list() if not isinstance(inputs, SparseTensor) else [None]
            if not shape:
                raise IndexError("tuple index out of range")  # Keras reads the last size of a scalar
            if shape[-1] == 1:
                inputs = t.squeeze(inputs, axis=-1)
        if isinstance(inputs, SparseTensor):
            bins = SparseTensor(inputs.indices, self._hash_values_to_bins(inputs.values), inputs.dense_shape)
        elif isinstance(inputs, RaggedTensor):
            bins = t.ragged.map_flat_values(self._hash_values_to_bins, inputs)
        else:
            bins = self._hash_values_to_bins(inputs)
        return encode_categorical(bins, self.output_mode, self.num_bins, self.dtype, self.sparse)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                "output_mode": self.output_mode, "sparse": self.sparse}

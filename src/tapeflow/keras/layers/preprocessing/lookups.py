"""``tf.keras.layers.StringLookup`` and ``IntegerLookup``: vocabulary lookups of strings and of integers (the
shared machinery is ``index_lookup.py``)."""

from __future__ import annotations

import numpy as np

from ...._core.tensor import Tensor, convert_to_tensor
from ....ops.ragged_tensor import RaggedTensor
from ....ops.sparse_ops import SparseTensor
from .index_lookup import IndexLookup

__all__ = ["StringLookup", "IntegerLookup"]


class StringLookup(IndexLookup):
    """Map strings to indices of a vocabulary (or indices back to strings, with ``invert=True``).

    Args:
        max_tokens: the largest vocabulary size, special tokens included (``None``: no limit).
        num_oov_indices: how many indices out-of-vocabulary strings share (hashed into them when more than one;
            with 0, an OOV string is an error at call).
        mask_token: a string that maps to 0 (``"int"`` mode) or is dropped (the encodings); ``None``: no mask.
        oov_token: what OOV indices give back when inverting, and the OOV entries of ``get_vocabulary``.
        vocabulary: a list, array or tensor of strings, or a text file's path; or ``adapt`` the layer.
        idf_weights: the inverse document frequencies of the vocabulary (``"tf_idf"`` only).
        invert: map indices to strings instead.
        output_mode: ``"int"`` (the indices), ``"one_hot"``, ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        pad_to_max_tokens: make the encodings ``max_tokens`` wide whatever the vocabulary's size.
        sparse: return the encodings as ``tf.SparseTensor`` s.
        encoding: how ``get_vocabulary`` decodes the tokens.
        salt: a key (an int, or a pair) for hashing OOV strings with SipHash instead of FarmHash.

    Inputs may be strings, lists, arrays, tensors, ``tf.RaggedTensor`` s (the result is ragged) and
    ``tf.SparseTensor`` s (``"int"`` mode: the result keeps the indices).
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, name=name,
                         salt=salt, vocabulary_dtype="string", **kwargs)

    def _tokens_to_numpy(self, tokens):
        return np.array([t.decode(self.encoding) if isinstance(t, bytes) else str(t) for t in tokens])

    def _vocabulary_to_numpy(self, vocabulary):
        return self._tokens_to_numpy(np.ravel(vocabulary.numpy()).tolist()).reshape(vocabulary.shape.as_list())

    def adapt(self, data, steps=None):
        """Learn the vocabulary from ``data`` (see ``IndexLookup.adapt``): strings sorted by count, ties broken by
        the larger string first."""
        super().adapt(data, steps=steps)

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]  # always "string"
        return {**config, "encoding": self.encoding}

    def call(self, inputs):
        if not isinstance(inputs, (Tensor, RaggedTensor, SparseTensor)):
            inputs = convert_to_tensor(inputs)
        return super().call(inputs)


class IntegerLookup(IndexLookup):
    """Map integers to indices of a vocabulary (or indices back to integers, with ``invert=True``).

    The arguments are ``StringLookup``'s, with integer tokens (``mask_token=None``, ``oov_token=-1`` by default)
    and two more: ``vocabulary_dtype`` (only ``"int64"``) and ``oov_method``: ``"floormod"`` puts an OOV integer
    ``x`` in OOV slot ``x % num_oov_indices``, ``"farmhash"`` hashes its decimal text (SipHash with ``salt``).
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if vocabulary_dtype != "int64":
            raise ValueError("Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                             f"vocabulary_dtype={vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, vocabulary_dtype=vocabulary_dtype,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method, salt=salt, name=name,
                         **kwargs)

    def adapt(self, data, steps=None):
        """Learn the vocabulary from ``data`` (see ``IndexLookup.adapt``): integers sorted by count, ties broken
        by the larger integer first."""
        super().adapt(data, steps=steps)

    def get_config(self):
        config = super().get_config()
        if config["oov_token"] is not None:
            config["oov_token"] = int(config["oov_token"])
        if config["mask_token"] is not None:
            config["mask_token"] = int(config["mask_token"])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config

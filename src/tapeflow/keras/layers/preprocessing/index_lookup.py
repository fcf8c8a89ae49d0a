"""The vocabulary lookup shared by ``StringLookup`` and ``IntegerLookup`` (Keras 3's ``IndexLookup``).

A vocabulary maps tokens to indices: the mask token (``"int"`` mode only) at 0, then ``num_oov_indices`` slots
for out-of-vocabulary tokens, then the tokens in order. It is given (a list, an array, a tensor or a text file of
one token a line, with or without the special tokens at its start) or learned by ``adapt``, which counts the
tokens of the data and keeps the most frequent ones, ties broken by the larger token first (Keras sorts the
(count, token) pairs and reverses them).

The lookup is composed of tapeflow ops over the vocabulary as a constant (the tokens sorted once, then
``searchsorted``, a gather and an equality test), so a layer traces inside ``tf.function`` and ``tf.data`` maps;
as with Keras's hash table, a function traced before ``set_vocabulary``/``adapt`` keeps the vocabulary it saw.
Ragged inputs are looked up value by value and stay ragged; sparse inputs keep their indices.
"""

from __future__ import annotations

import collections
import os

import numpy as np

from ...._core import dtypes as _dtypes
from ...._core import errors
from ...._core.tensor import Tensor
from ....ops.ragged_tensor import RaggedTensor
from ....ops.sparse_ops import SparseTensor
from ._common import (
    PreprocessingLayer,
    ensure_tensor,
    feed_batches,
    listify,
    tf,
    validate_string_arg,
)
from .encoding import encode_categorical

__all__ = ["IndexLookup"]

_INT64_MAX = np.iinfo(np.int64).max
_OOV_MESSAGE = ("When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values {}, consider "
                "setting `num_oov_indices=1`.")


class _Table:
    """An immutable map from keys to values (NumPy arrays of one length), looked up with tapeflow ops."""

    def __init__(self, keys, values, key_dtype, value_dtype, default):
        t = tf()
        order = np.argsort(keys, kind="stable")
        self.size = len(keys)
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.default = default
        if self.size:
            self._keys = t.constant(keys[order], key_dtype)
            self._sorted = t.reshape(self._keys, [1, -1])
            self._values = t.constant(values[order], value_dtype)

    def lookup(self, x):
        """The value of each key of the dense tensor ``x`` (``default`` for keys not in the table)."""
        t = tf()
        default = t.constant(self.default, self.value_dtype)
        if not self.size:
            return t.fill(t.shape(x), default)
        flat = t.reshape(x, [-1])
        where = t.reshape(t.searchsorted(self._sorted, t.reshape(flat, [1, -1]), out_type=_dtypes.int64), [-1])
        where = t.minimum(where, self.size - 1)
        found = t.equal(t.gather(self._keys, where), flat)
        return t.reshape(t.where(found, t.gather(self._values, where), default), t.shape(x))


def _flatten_list(x):
    return [y for item in x for y in _flatten_list(item)] if isinstance(x, list) else [x]


def _uninitialized():
    """TF's error for a lookup in a table never given a vocabulary."""
    return errors.op_error("LookupTableFindV2", "Table not initialized.", cls=errors.FailedPreconditionError)


class IndexLookup(PreprocessingLayer):
    """Maps tokens of a vocabulary to indices (or back, with ``invert``), then encodes them by ``output_mode``.

    See ``StringLookup`` and ``IntegerLookup`` for the arguments. Raises ``ValueError`` for bad arguments and bad
    vocabularies, with Keras's messages.
    """

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", name=None, salt=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        validate_string_arg(oov_method, ("floormod", "farmhash"), type(self).__name__, "oov_method")
        integer_keys = _dtypes.as_dtype(vocabulary_dtype).is_integer
        if salt is not None:
            if integer_keys and oov_method != "farmhash":
                raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. Received: "
                                 f"oov_method={oov_method}")
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = list(salt)
            elif isinstance(salt, int):
                salt = [salt, salt]
            else:
                raise ValueError("The `salt` argument for `IndexLookup` can only be a tuple of 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        validate_string_arg(output_mode, ("int", "one_hot", "multi_hot", "count", "tf_idf"), type(self).__name__,
                            "output_mode")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, `'count'` "
                             f"or `'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                             f"idf_weights={idf_weights} and output_mode={output_mode}")
        super().__init__(name=name)
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = _dtypes.as_dtype(vocabulary_dtype).name
        self.oov_method = oov_method
        self.salt = salt
        self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        # A file path is read, not kept: the config then has no vocabulary (Keras saves it as an asset).
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")

        if invert:
            self._key_dtype, self._value_dtype = "int64", self.vocabulary_dtype
            mask_key, mask_value = 0, mask_token
            self._default_value = self.oov_token
        else:
            self._key_dtype, self._value_dtype = self.vocabulary_dtype, "int64"
            mask_key = mask_token
            # The mask maps to 0 in "int" mode; the encodings drop the largest int64 (it is outside every bin).
            mask_value = 0 if output_mode == "int" else _INT64_MAX
            # OOV tokens: -1 with no OOV slot (an error at call) or several (hashed into them at call).
            self._default_value = self._oov_start_index() if num_oov_indices == 1 else -1
        if mask_token is not None:
            self._mask_key = tf().constant(mask_key, self._key_dtype)
            self._mask_value = tf().constant(mask_value, self._value_dtype)

        self._table = None  # no vocabulary yet: a call raises TF's "Table not initialized"
        self._vocab = None  # the tokens in index order (bytes or int64), from ``token_start`` on
        if output_mode == "tf_idf":
            if self._has_input_vocabulary and idf_weights is None:
                raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the "
                                 "`idf_weights` argument must also be provided.")
            if idf_weights is not None:
                self._set_idf(np.asarray(idf_weights))
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        if not self._has_input_vocabulary:
            self.reset_state()

    # --- the vocabulary ----------------------------------------------------------------------------------
    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def _key_of(self, token):
        """A token as the table keys hold it: bytes for strings, an int for integers."""
        if self.vocabulary_dtype == "string":
            return token if isinstance(token, bytes) else str(token).encode("utf-8")
        return int(token)

    def _tokens_to_numpy(self, tokens):
        """Tokens (bytes or ints) as ``get_vocabulary`` gives them (overridden by StringLookup to decode)."""
        return np.asarray(tokens, dtype=np.int64)

    def _set_table(self, tokens):
        """Make the lookup from ``tokens`` (their keys, in index order from ``token_start``)."""
        keys = [self._key_of(tok) for tok in tokens]
        start = self._token_start_index()
        if self.vocabulary_dtype == "string":
            vocab = np.empty(len(keys), dtype=object)
            vocab[:] = keys
        else:
            vocab = np.asarray(keys, dtype=np.int64).reshape(-1)
        indices = np.arange(start, start + len(keys), dtype=np.int64)
        self._vocab = vocab
        if self.invert:
            self._table = _Table(indices, vocab, "int64", self._value_dtype, self._default_value)
        else:
            self._table = _Table(vocab, indices, self._key_dtype, "int64", self._default_value)

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order: a token's position is its index when ``include_special_tokens``, which
        puts the mask token (``"int"`` mode) and ``num_oov_indices`` OOV tokens first. Tokens are NumPy scalars
        (``np.str_``, ``np.int64``) and the special tokens as given, as in Keras."""
        tokens = [] if self._vocab is None else list(self._tokens_to_numpy(self._vocab))
        start = self._token_start_index()
        vocab = [self.oov_token] * start + tokens
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        if not include_special_tokens:
            vocab = vocab[start:]
        return vocab

    def vocabulary_size(self):
        """The number of indices the layer uses: the tokens and the mask and OOV indices."""
        return (0 if self._table is None else self._table.size) + self._token_start_index()

    def _find_repeated_tokens(self, vocabulary):
        if len(vocabulary) == len(set(vocabulary)):
            return []
        return [item for item, count in collections.Counter(vocabulary).items() if count > 1]

    def _vocabulary_to_numpy(self, vocabulary):
        return vocabulary.numpy()

    def _read_vocabulary_file(self, path):
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if self.vocabulary_dtype == "string":
            return lines
        return [int(line) for line in lines]

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (and, for ``"tf_idf"``, the inverse document frequencies), replacing any.

        Args:
            vocabulary: a list, tuple, 1-D array or tensor of tokens, with or without the special tokens at its
                start (mask, then OOV), or the path of a text file of one token a line.
            idf_weights: the weights of the tokens (``"tf_idf"`` only, and then required); the special tokens
                get their mean unless the vocabulary starts with them.

        Raises:
            ValueError: for an empty vocabulary, repeated tokens, special tokens elsewhere than at its start, one
                larger than ``max_tokens``, a missing file, or ``idf_weights`` where they do not belong or of
                another length (Keras's messages).
            RuntimeError: when an encoding layer's vocabulary size changes.
        """
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={self.output_mode} and idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            if not os.path.exists(vocabulary):
                raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
            self._set_table(self._read_vocabulary_file(vocabulary))
            self._record_vocabulary_size()
            return
        if isinstance(vocabulary, Tensor):
            vocabulary = self._vocabulary_to_numpy(vocabulary)
        elif isinstance(vocabulary, (list, tuple)):
            vocabulary = np.array(vocabulary)
        if isinstance(idf_weights, Tensor):
            idf_weights = idf_weights.numpy()
        elif isinstance(idf_weights, (list, tuple)):
            idf_weights = np.array(idf_weights)
        if vocabulary.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")

        oov_start, token_start = self._oov_start_index(), self._token_start_index()
        special_tokens = [self.mask_token] * oov_start + [self.oov_token] * self.num_oov_indices
        found_special_tokens = np.array_equal(special_tokens, vocabulary[:token_start])
        tokens = vocabulary[token_start:] if found_special_tokens else vocabulary
        repeated = self._find_repeated_tokens(tokens)
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             f"The repeated terms are: {repeated}")
        reserved = ("Found reserved {} token at unexpected location in `vocabulary`. Note that passed `vocabulary` "
                    "does not need to include the OOV and mask tokens. Either remove all mask and OOV tokens, or "
                    "include them only at the start of the vocabulary in precisely this order: {}. Received: {}={} "
                    "at vocabulary index {}")
        if self.mask_token is not None and self.mask_token in tokens:
            index = np.argwhere(vocabulary == self.mask_token)[-1]
            raise ValueError(reserved.format("mask", special_tokens, "mask_token", self.mask_token, index))
        # The OOV token only matters when inverting (it is what OOV indices give back).
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            index = np.argwhere(vocabulary == self.oov_token)[-1]
            raise ValueError(reserved.format("OOV", special_tokens, "oov_token", self.oov_token, index))
        new_size = token_start + len(tokens)
        if self.max_tokens is not None and new_size > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary "
                             f"size is {new_size}; `max_tokens` is {self.max_tokens}.")
        self._set_table(list(tokens))
        self._record_vocabulary_size()

        if self.output_mode == "tf_idf" and idf_weights is not None:
            if len(vocabulary) != len(idf_weights):
                raise ValueError("`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                                 f"{len(idf_weights)}; len(vocabulary) is {len(vocabulary)}")
            idf_weights = np.array(idf_weights) if isinstance(idf_weights, (list, tuple)) else idf_weights
            if idf_weights.ndim != 1:
                raise ValueError(f"TF-IDF data must be a 1-index array. Received: type(idf_weights)="
                                 f"{type(idf_weights)}")
            # Without the special tokens, their weight is the mean of the given ones; the positions past the
            # vocabulary up to ``max_tokens`` (``pad_to_max_tokens``) weigh 0.
            front, front_value = (0, 0) if found_special_tokens else (token_start, np.average(idf_weights))
            back = self.max_tokens - front - len(idf_weights) if self.pad_to_max_tokens and self.max_tokens else 0
            weights = np.pad(idf_weights, (front, back), "constant", constant_values=(front_value, 0))
            self._set_idf(weights)

    def _set_idf(self, weights):
        t = tf()
        self.idf_weights = t.Variable(t.constant(np.asarray(weights), _dtypes.float32), trainable=False)
        self.idf_weights_const = self.idf_weights.value()

    def _record_vocabulary_size(self):
        self._ensure_vocab_size_unchanged()
        self._frozen_vocab_size = self.vocabulary_size()

    def _ensure_known_vocab_size(self):
        if self.output_mode == "int" or self.pad_to_max_tokens:
            return
        if self._frozen_vocab_size is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must "
                               "set the layer's vocabulary before calling it. Either pass a `vocabulary` argument to "
                               "the layer, or call `adapt` with some sample data.")

    def _ensure_vocab_size_unchanged(self):
        if self.output_mode == "int" or self.pad_to_max_tokens:
            return
        new_size = self.vocabulary_size()
        if self._frozen_vocab_size is not None and new_size != self._frozen_vocab_size:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, the "
                               "vocabulary size cannot be changed after the layer is called. Old vocab size is "
                               f"{self._frozen_vocab_size}, new vocab size is {new_size}")

    # --- adapt -------------------------------------------------------------------------------------------
    def adapt(self, data, steps=None):
        """Learn the vocabulary (and, for ``"tf_idf"``, the document frequencies) from ``data``: a
        ``tf.data.Dataset`` (each element a batch; at most ``steps`` of them), an iterable of batches, or one
        batch (a list, array or tensor; a vector is a column of one-token documents)."""
        self.reset_state()
        feed_batches(self, data, steps, self.vocabulary_dtype)
        self.finalize_state()

    def reset_state(self):
        """Forget the counts gathered by ``update_state``."""
        if self._has_input_vocabulary:
            return
        self._token_counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    @staticmethod
    def _flat_tokens(data):
        """The tokens of ``data`` as Python values (bytes, or ints), flat."""
        if isinstance(data, SparseTensor):
            values = data.values
        elif isinstance(data, RaggedTensor):
            values = data.flat_values
        else:
            values = data
        return np.ravel(values.numpy()).tolist()

    @staticmethod
    def _documents(data):
        """The tokens of each document (each row of ``data``)."""
        if isinstance(data, RaggedTensor):
            return [_flatten_list(row) for row in data.to_list()]
        if isinstance(data, SparseTensor):
            docs = [[] for _ in range(int(data.dense_shape.numpy()[0]))]
            for row, value in zip(data.indices.numpy()[:, 0].tolist(), data.values.numpy().tolist()):
                docs[row].append(value)
            return docs
        return [np.ravel(row).tolist() for row in data.numpy()]

    def update_state(self, data):
        """Count the tokens of one batch of ``data`` (rows are documents).

        Raises:
            ValueError: for a layer given its vocabulary at construction (Keras's message).
        """
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` "
                             "argument or `set_vocabulary()` method.")
        data = ensure_tensor(data, dtype=self.vocabulary_dtype)
        if data.shape.rank == 0:
            data = tf().expand_dims(data, 0)
        if data.shape.rank == 1:  # one document
            data = tf().expand_dims(data, 0)
        self._token_counts.update(self._flat_tokens(data))
        if self.output_mode == "tf_idf":
            documents = self._documents(data)
            for doc in documents:
                self._document_counts.update(set(doc))
            self._num_documents += len(documents)

    def finalize_state(self):
        """Make the vocabulary from the counts: the most frequent tokens first (ties: the larger token first),
        at most ``max_tokens`` indices in all; for ``"tf_idf"``, each token's ``log(1 + documents / (1 +
        documents holding it))``, the special tokens weighing their mean."""
        if self._has_input_vocabulary or not self._token_counts:
            if self.output_mode == "tf_idf" and hasattr(self, "idf_weights"):
                self.idf_weights_const = self.idf_weights.value()
            self._record_vocabulary_size()
            return
        counts = dict(self._token_counts)  # keys: bytes (strings) or ints, as the tensors hold them
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(self._key_of(special), None)
        ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        tokens = [token for token, _ in ranked]
        start = self._token_start_index()
        if self.max_tokens:
            tokens = tokens[:self.max_tokens - start]
        self._set_table(tokens)
        if self.output_mode == "tf_idf":
            t = tf()
            documents = np.array([self._document_counts.get(tok, 0) for tok in tokens], np.int64)
            idf = np.log(1 + self._num_documents / (1 + documents)).astype(np.float32)
            mean = float(t.reduce_mean(t.constant(idf, _dtypes.float32)).numpy())
            back = self.max_tokens - start - len(idf) if self.pad_to_max_tokens and self.max_tokens is not None \
                else 0
            weights = np.concatenate([np.full(start, mean, np.float32), idf, np.zeros(back, np.float32)])
            self._set_idf(weights)
        self.reset_state()
        self._record_vocabulary_size()

    # --- calling -----------------------------------------------------------------------------------------
    @property
    def compute_dtype(self):
        return self.vocabulary_dtype

    @property
    def variable_dtype(self):
        return self.vocabulary_dtype

    @property
    def dtype(self):
        return self.vocabulary_dtype

    def _symbolic_dtype(self, first):
        # Keras's symbolic outputs: int64 in "int" mode (inverted lookups too), floatx otherwise.
        return "int64" if self.output_mode == "int" else "float32"

    def build(self, input_shape=None):
        pass

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        input_shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    def call(self, inputs):
        t = tf()
        self._ensure_known_vocab_size()
        inputs = ensure_tensor(inputs, dtype=self._key_dtype)
        scalar = inputs.shape.rank == 0
        if scalar:
            inputs = t.expand_dims(inputs, -1)
        if isinstance(inputs, SparseTensor):
            lookups = SparseTensor(inputs.indices, self._lookup_dense(inputs.values), inputs.dense_shape)
        elif isinstance(inputs, RaggedTensor):
            lookups = t.ragged.map_flat_values(self._lookup_dense, inputs)
        else:
            lookups = self._lookup_dense(inputs)
        if self.output_mode == "int":
            return t.squeeze(lookups, -1) if scalar else lookups
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        output = encode_categorical(lookups, mode, depth, self._value_dtype, self.sparse)
        if self.output_mode != "tf_idf":
            return output
        idf = self.idf_weights_const
        if isinstance(output, SparseTensor):
            # Keras multiplies each entry by the weight at its full index (only a 1-D result has one).
            return SparseTensor(output.indices, t.cast(output.values, idf.dtype) * t.gather_nd(idf, output.indices),
                                output.dense_shape)
        return t.cast(output, idf.dtype) * idf

    def _lookup_dense(self, inputs):
        """The indices (or, inverting, the tokens) of a dense tensor's values, with the mask and OOV rules."""
        t = tf()
        if self._table is None:
            raise _uninitialized()
        lookups = self._table.lookup(inputs)
        if self.mask_token is not None:
            lookups = t.where(t.equal(inputs, self._mask_key), self._mask_value, lookups)
        if self.invert:
            return lookups
        if self.num_oov_indices == 0:
            missing = t.where(t.equal(lookups, -1))
            message = t.strings.format(_OOV_MESSAGE, (t.gather_nd(inputs, missing),))
            t.debugging.Assert(t.equal(t.size(missing), 0), [message])
        elif self.num_oov_indices > 1:
            integer_keys = _dtypes.as_dtype(self._key_dtype).is_integer
            if integer_keys and self.oov_method != "farmhash":
                oov = t.math.floormod(inputs, self.num_oov_indices)
            else:
                hashed = t.strings.as_string(inputs) if integer_keys else inputs
                if self.salt is not None:
                    oov = t.strings.to_hash_bucket_strong(hashed, self.num_oov_indices, key=list(self.salt))
                else:
                    oov = t.strings.to_hash_bucket_fast(hashed, self.num_oov_indices)
            oov = oov + self._oov_start_index()
            lookups = t.where(t.equal(lookups, self._default_value), oov, lookups)
        return lookups

    # --- model files: an adapted vocabulary is an asset of the ``.keras`` archive, as Keras stores it ----------
    def save_assets(self, dir_path):
        """Write an adapted (or set) vocabulary to ``dir_path/vocabulary.txt``, one token a line with the special
        tokens first (a vocabulary given to the constructor is in the config instead).

        Raises:
            ValueError: for an adapted ``"tf_idf"`` layer, whose weights tapeflow does not save.
        """
        if self.input_vocabulary is not None:
            return
        if self.output_mode == "tf_idf":
            raise ValueError(f"Cannot save the adapted vocabulary of '{self.name}' in output_mode='tf_idf': tapeflow "
                             "does not store its idf weights. Pass `vocabulary=` and `idf_weights=` to the "
                             "constructor instead (they are saved in the config).")
        tokens = [t.decode("utf-8") if isinstance(t, bytes) else str(t)
                  for t in self.get_vocabulary(include_special_tokens=True)]
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(tokens))

    def load_assets(self, dir_path):
        """Read the vocabulary :meth:`save_assets` (or Keras) wrote."""
        if self.input_vocabulary is not None:
            return
        path = os.path.join(dir_path, "vocabulary.txt")
        if not os.path.exists(path):
            raise ValueError(f"The vocabulary of '{self.name}' is missing from the archive's assets.")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        while lines and lines[-1] == "":
            lines.pop()
        self.set_vocabulary(lines if self.vocabulary_dtype == "string" else [int(line) for line in lines])

    def get_build_config(self):
        """Keras's build config of a lookup layer: empty (it is built from its vocabulary, not from shapes)."""
        return {}

    def build_from_config(self, config):
        """Build without shapes, as Keras does when loading a lookup layer."""
        self.build(None)

    def get_config(self):
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode, "sparse": self.sparse,
                "pad_to_max_tokens": self.pad_to_max_tokens, "vocabulary_dtype": self.vocabulary_dtype,
                "idf_weights": listify(self.input_idf_weights), "vocabulary": listify(self.input_vocabulary),
                "vocabulary_size": self._frozen_vocab_size, "oov_method": self.oov_method, "salt": self.salt}

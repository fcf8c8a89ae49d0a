"""``tf.keras.layers.TextVectorization``: text to token indices or to per-document encodings.

Each string goes through the layer's steps, all ``tf.strings`` ops: ``standardize`` (ASCII lower-casing and/or
removing ASCII punctuation, or a callable), ``split`` (on whitespace, into UTF-8 characters, or a callable; a
batch of strings becomes a ragged tensor of tokens), ``ngrams`` (the tokens joined by spaces in runs of each
width), then a ``StringLookup`` whose mask token is ``""`` (index 0, which pads the sequences) and whose OOV
token ``"[UNK]"`` is index 1. In ``"int"`` mode the rows are padded with 0 to the longest one, or cut or padded
to ``output_sequence_length``, or kept ragged with ``ragged=True``.
"""

from __future__ import annotations

from ...._core import dtypes as _dtypes
from ....ops.ragged_tensor import RaggedTensor
from ._common import (
    PreprocessingLayer,
    ensure_tensor,
    feed_batches,
    listify,
    tf,
    validate_string_arg,
)
from .lookups import StringLookup

__all__ = ["TextVectorization"]

# Keras's punctuation class: ASCII punctuation (less a few), removed by "strip_punctuation".
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


class TextVectorization(PreprocessingLayer):
    """Standardize, split and look up text, as Keras 3's layer does.

    Args:
        max_tokens: the largest vocabulary (``""`` and ``"[UNK]"`` included).
        standardize: ``"lower_and_strip_punctuation"``, ``"lower"``, ``"strip_punctuation"``, ``None`` or a
            callable on a string tensor.
        split: ``"whitespace"``, ``"character"``, ``None`` (each string is one token) or a callable.
        ngrams: an int (all widths up to it) or a tuple of widths of n-grams to add as tokens.
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        output_sequence_length: ``"int"`` mode: cut or pad each row to this length.
        pad_to_max_tokens: make the encodings ``max_tokens`` wide.
        vocabulary, idf_weights: a vocabulary (list, array, tensor or file path) and its weights, instead of
            ``adapt``.
        sparse: return the encodings as ``tf.SparseTensor`` s.
        ragged: ``"int"`` mode: return a ``tf.RaggedTensor`` of the rows as they are.
        encoding: how ``get_vocabulary`` decodes the tokens.

    Raises:
        ValueError: for unknown options or options that do not go together (Keras's messages); when called,
            for inputs of rank 2 or more whose last size is not 1.
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        name_ = type(self).__name__
        validate_string_arg(standardize, ("lower_and_strip_punctuation", "lower", "strip_punctuation"), name_,
                            "standardize", allow_none=True, allow_callables=True)
        validate_string_arg(split, ("whitespace", "character"), name_, "split", allow_none=True,
                            allow_callables=True)
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        validate_string_arg(output_mode, ("int", "one_hot", "multi_hot", "count", "tf_idf"), name_, "output_mode")
        if not (ngrams is None or isinstance(ngrams, int)
                or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_mode == "int" and not (isinstance(output_sequence_length, int) or output_sequence_length is None):
            raise ValueError("`output_sequence_length` must be either None or an integer when `output_mode` is "
                             f"'int'. Received: output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                             f"output_sequence_length={output_sequence_length}.")
        if ragged and output_mode != "int":
            # (Keras's text has "is `'int'`" where it means "is not".)
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} and "
                             f"output_mode={output_mode}")
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          pad_to_max_tokens=pad_to_max_tokens, mask_token="",
                                          output_mode=output_mode, sparse=sparse,
                                          has_input_vocabulary=self._has_input_vocabulary, encoding=encoding,
                                          vocabulary_size=vocabulary_size)
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True

    @property
    def compute_dtype(self):
        return "string"

    @property
    def variable_dtype(self):
        return "string"

    @property
    def dtype(self):
        return "string"

    def _symbolic_dtype(self, first):
        return "int64" if self._output_mode == "int" else "float32"

    def build(self, input_shape=None):
        pass

    def compute_output_shape(self, input_shape):
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        if self._split is None:
            if len(input_shape) <= 1:
                input_shape = tuple(input_shape) + (1,)
        else:
            input_shape = tuple(input_shape) + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    # --- vocabulary --------------------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary from the tokens of ``data`` (a ``tf.data.Dataset`` of batches, at most ``steps``
        of them; an iterable of batches; or strings as a list, array or tensor), most frequent first, ties broken
        by the larger token first; ``"tf_idf"`` also learns the document frequencies."""
        self.reset_state()
        feed_batches(self, data, steps, "string")
        self.finalize_state()

    def update_state(self, data):
        """Count the tokens of one batch of strings."""
        self._lookup_layer.update_state(self._preprocess(data))

    def finalize_state(self):
        """Make the vocabulary from the counts."""
        self._lookup_layer.finalize_state()

    def reset_state(self):
        """Forget the counts."""
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order (``""`` and ``"[UNK]"`` first when ``include_special_tokens``)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The number of indices, ``""`` and ``"[UNK]"`` included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (and the ``"tf_idf"`` weights); see ``StringLookup.set_vocabulary``."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def save_assets(self, dir_path):
        """The vocabulary, as the lookup layer inside writes it (see ``IndexLookup.save_assets``)."""
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        """Read the vocabulary :meth:`save_assets` wrote."""
        self._lookup_layer.load_assets(dir_path)

    def get_config(self):
        return {**super().get_config(), "max_tokens": self._lookup_layer.max_tokens,
                "standardize": self._standardize, "split": self._split, "ngrams": self._ngrams_arg,
                "output_mode": self._output_mode, "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens, "sparse": self._lookup_layer.sparse,
                "ragged": self._ragged, "vocabulary": listify(self._lookup_layer.input_vocabulary),
                "idf_weights": listify(self._lookup_layer.input_idf_weights), "encoding": self._encoding,
                "vocabulary_size": self.vocabulary_size()}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)

    # --- calling -----------------------------------------------------------------------------------------
    def _preprocess(self, inputs):
        t = tf()
        inputs = ensure_tensor(inputs, dtype="string")

        def strings_op(fn, x):
            return t.ragged.map_flat_values(fn, x) if isinstance(x, RaggedTensor) else fn(x)

        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = strings_op(t.strings.lower, inputs)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = strings_op(lambda x: t.strings.regex_replace(x, _PUNCTUATION, ""), inputs)
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        if self._split is not None:
            if inputs.shape.rank > 1:
                if inputs.shape[-1] != 1:
                    raise ValueError("When using `TextVectorization` to tokenize strings, the input rank must be 1 "
                                     "or the last shape dimension must be 1. Received: "
                                     f"inputs.shape={inputs.shape} with rank={inputs.shape.rank}")
                inputs = t.squeeze(inputs, axis=-1)
            if self._split == "whitespace":
                inputs = t.strings.split(inputs)
            elif self._split == "character":
                inputs = t.strings.unicode_split(inputs, "UTF-8")
            elif callable(self._split):
                inputs = self._split(inputs)
        if self._ngrams is not None:
            inputs = t.strings.ngrams(inputs, ngram_width=self._ngrams, separator=" ")
        return inputs

    def call(self, inputs):
        t = tf()
        lookup_data = self._lookup_layer.call(self._preprocess(inputs))
        if self._output_mode != "int":
            return lookup_data
        length = self._output_sequence_length
        if isinstance(lookup_data, RaggedTensor) and not self._ragged:
            shape = lookup_data.shape.as_list()
            shape[-1] = length
            return lookup_data.to_tensor(default_value=0, shape=shape)
        if length is None:
            return lookup_data
        outputs = lookup_data[..., :length]
        if self._ragged:
            return outputs
        # Pad the last axis with 0 up to ``length``.
        rank = outputs.shape.rank
        missing = length - t.shape(outputs, out_type=_dtypes.int64)[-1]
        paddings = t.concat([t.zeros([rank - 1, 2], _dtypes.int64),
                             t.reshape(t.stack([t.constant(0, _dtypes.int64), missing]), [1, 2])], 0)
        return t.pad(outputs, paddings)

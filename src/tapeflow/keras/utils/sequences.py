"""``pad_sequences`` of ``tf.keras.utils`` (Keras 3.15), in NumPy."""

from __future__ import annotations

import numpy as np

__all__ = ["pad_sequences"]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A NumPy array ``(len(sequences), maxlen, ...)`` of the sequences cut to ``maxlen`` (``truncating``: keep
    the end with ``"pre"``, the start with ``"post"``) and filled with ``value`` before (``"pre"``) or after
    (``"post"``) them. ``maxlen`` defaults to the longest sequence; samples may have a shape of their own.

    Raises:
        ValueError: for a non-iterable, a string ``value`` with a non-string dtype, an unknown ``padding`` or
            ``truncating``, or samples of different shapes.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    sample_shape = None
    for seq in sequences:
        try:
            lengths.append(len(seq))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {seq!s}") from e
        if sample_shape is None and len(seq):
            sample_shape = np.asarray(seq).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = np.max(lengths)
    string_dtype = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not string_dtype:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\nYou should set "
                         "`dtype=object` for variable length strings.")
    out = np.full((len(sequences), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for i, seq in enumerate(sequences):
        if not len(seq):
            continue
        if truncating == "pre":
            kept = seq[-maxlen:]
        elif truncating == "post":
            kept = seq[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} is different from "
                             f"expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out

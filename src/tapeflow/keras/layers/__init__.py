"""``tf.keras.layers``: the Keras 3 ``Layer`` base, ``InputSpec`` and the core layers."""

from .base import InputSpec, Layer
from .convolutional import Conv1D, Conv2D
from .core import Activation, Add, Concatenate, Dense, Dropout, Embedding, Flatten, Lambda, Reshape
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .recurrent import GRU, LSTM, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Lambda", "Flatten", "Reshape", "Dropout", "Add", "Concatenate",
           "Embedding", "BatchNormalization", "LayerNormalization"]
__all__ += ["SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell"]
__all__ += ["Conv1D", "Conv2D", "MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D",
            "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D"]
from ..models.functional import Input, InputLayer  # noqa: E402 - models need the layers above

__all__ += ["Input", "InputLayer"]
from .einsum_dense import EinsumDense  # noqa: E402

__all__ += ["EinsumDense"]
from .attention import MultiHeadAttention  # noqa: E402

__all__ += ["MultiHeadAttention"]
from .masking import Masking  # noqa: E402

__all__ += ["Masking"]
from .preprocessing import Hashing, IntegerLookup, Normalization, StringLookup, TextVectorization  # noqa: E402

__all__ += ["StringLookup", "IntegerLookup", "Hashing", "TextVectorization", "Normalization"]

"""Keras 3's preprocessing layers: ``StringLookup``, ``IntegerLookup``, ``Hashing``, ``TextVectorization`` and
``Normalization``, each with ``adapt`` where Keras has it."""

from .hashing import Hashing
from .lookups import IntegerLookup, StringLookup
from .normalization import Normalization
from .text_vectorization import TextVectorization

__all__ = ["StringLookup", "IntegerLookup", "Hashing", "TextVectorization", "Normalization"]

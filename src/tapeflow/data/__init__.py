"""``tf.data``: input pipelines (``tf.data.Dataset``) run eagerly in Python on tapeflow tensors.

Loaded on first use (``tf.data``), as Keras is. See ``docs/data.md`` for what exists and what differs from TF.
"""

from . import experimental
from .dataset import INFINITE as INFINITE_CARDINALITY
from .dataset import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import Dataset, NumpyIterator, OwnedIterator
from .files import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from .options import Options, ThreadingOptions
from .spec import DatasetSpec, TensorSpec
from .transformations import AUTOTUNE

__all__ = ["Dataset", "Options", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "DatasetSpec",
           "Iterator", "experimental", "TensorSpec", "TextLineDataset", "ThreadingOptions", "NumpyIterator",
           "FixedLengthRecordDataset", "TFRecordDataset"]

Iterator = OwnedIterator


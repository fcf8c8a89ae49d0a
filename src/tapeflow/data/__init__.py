"""``tf.data``: input pipelines (``tf.data.Dataset``) run eagerly in Python on tapeflow tensors.

Loaded on first use (``tf.data``), as Keras is. See ``docs/data.md`` for what exists and what differs from TF.
"""

import sys as _sys
import types as _types

from .dataset import INFINITE as INFINITE_CARDINALITY
from .dataset import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import Dataset, NumpyIterator, OwnedIterator
from .files import FixedLengthRecordDataset, TextLineDataset
from .options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    OptimizationOptions,
    Options,
    ThreadingOptions,
)
from .spec import DatasetSpec, TensorSpec
from .transformations import AUTOTUNE

__all__ = ["Dataset", "Options", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "DatasetSpec",
           "Iterator", "experimental", "TensorSpec", "TextLineDataset", "ThreadingOptions", "NumpyIterator",
           "FixedLengthRecordDataset"]

Iterator = OwnedIterator


def _cardinality(dataset):
    """``tf.data.experimental.cardinality(dataset)``: ``dataset.cardinality()``."""
    return dataset.cardinality()


def _get_single_element(dataset):
    """``tf.data.experimental.get_single_element(dataset)``: ``dataset.get_single_element()``."""
    return dataset.get_single_element()


def _assert_cardinality(expected_cardinality):
    """``tf.data.experimental.assert_cardinality(n)``: for ``dataset.apply``, declares and checks the count."""
    from .combinators import assert_cardinality  # here: combinators loads after the Dataset class it extends

    return assert_cardinality(expected_cardinality)


def _enable_debug_mode():
    """``tf.data.experimental.enable_debug_mode()``: tapeflow's pipelines already run eagerly, in order."""


experimental = _types.SimpleNamespace(
    assert_cardinality=_assert_cardinality, enable_debug_mode=_enable_debug_mode, AutoShardPolicy=AutoShardPolicy,
    AutotuneOptions=AutotuneOptions, DistributeOptions=DistributeOptions, OptimizationOptions=OptimizationOptions,
    ThreadingOptions=ThreadingOptions,
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY, UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
    cardinality=_cardinality, get_single_element=_get_single_element, NumpyIterator=NumpyIterator)

# ``tf.TensorSpec`` lives at the top level in TF. The top-level namespace is not this package's to edit, so the
# name is published there when ``tf.data`` loads (``tf.data.Dataset.from_generator(..., tf.TensorSpec(...))``
# evaluates ``tf.data`` first); ``tapeflow.data.TensorSpec`` always works.
_parent = _sys.modules[__name__.rpartition(".")[0]]
if not hasattr(_parent, "TensorSpec"):
    _parent.TensorSpec = TensorSpec

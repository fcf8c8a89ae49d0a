"""The shared size helpers (``tapeflow._core.sizes``) on their own; the golden cases ``output_sizes`` check every
op that uses them against TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf
from tapeflow._core import errors
from tapeflow._core import sizes as _sizes


@pytest.mark.parametrize("value, bits, wrapped", [
    (2**32 + 1, 32, 1), (2**31, 32, -2**31), (-2**31 - 1, 32, 2**31 - 1), (4 * 2**62, 64, 0),
    (2 * (2**63 - 1), 64, -2), (2**63 - 1, 64, 2**63 - 1), (-5, 64, -5), (2**32, 32, 0)])
def test_wrap_int(value, bits, wrapped):
    assert _sizes.wrap_int(value, bits) == wrapped


def test_check_dims_counts_left_to_right():
    assert _sizes.check_dims("Fill", [0, 2**40, 2**40]) == 0
    assert _sizes.check_dims("Fill", [2**31, 2**31]) == 2**62
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[1099511627776,1099511627776,0\] would have"):
        _sizes.check_dims("Fill", [2**40, 2**40, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -3 must be >= 0"):
        _sizes.check_dims("Fill", [2, -3])


def test_check_built_words_overflow_as_tf():
    assert _sizes.check_built("Tile", [3, 0, 2**62]) == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="multiplying 2199023255552 with 2199023255552"):
        _sizes.check_built("Tile", [2**41, 2**41])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected a non-negative size, got -2"):
        _sizes.check_built("Tile", [-2])


def test_unrepresentable_sizes_are_memory_errors_not_value_errors():
    with pytest.raises(errors.Unallocatable) as info:
        _sizes.empty((2**62,), np.float32)
    assert isinstance(info.value, MemoryError) and info.value.shape == (2**62,)
    message = errors.oom("Fill", info.value).message
    assert "shape[4611686018427387904] and type float" in message
    assert _sizes.zeros((3, 0), np.float64).shape == (3, 0)


def test_lists_that_do_not_fit_int32_are_not_wrapped():
    from tapeflow.ops.manip_ops import int_values

    assert int_values([2**32 + 1], "Tile", "Tmultiples", "").tolist() == [2**32 + 1]
    assert int_values([3, 4], "Tile", "Tmultiples", "").dtype == np.int32
    assert int_values([2**32 + 1], "StridedSlice", "Index", "", like=np.zeros(1, np.int32)).tolist() == [1]

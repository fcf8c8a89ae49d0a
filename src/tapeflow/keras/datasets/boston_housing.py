"""``tf.keras.datasets.boston_housing``: 506 houses, 13 features, prices in k$ (Keras's ethics warning applies)."""

from __future__ import annotations

import numpy as np

from ..utils.file_utils import get_file
from ._common import ORIGIN

__all__ = ["load_data"]


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)``: the rows shuffled with ``np.random.RandomState(seed)`` and the last
    ``test_split`` of them held out, as Keras splits them."""
    if not (0 <= test_split < 1):
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 (exclusive of "
                         "1).")
    path = get_file(path, origin=f"{ORIGIN}boston_housing.npz",
                    file_hash="f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5")
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))

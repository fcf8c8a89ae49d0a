"""``tf.keras.datasets.mnist``: 70,000 handwritten digits, 28x28 uint8."""

from __future__ import annotations

import numpy as np

from ..utils.file_utils import get_file
from ._common import ORIGIN

__all__ = ["load_data"]


def load_data(path="mnist.npz"):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(60000, 28, 28)`` and ``(10000, 28, 28)``, uint8
    labels 0-9; downloaded once into ``~/.keras/datasets/<path>``."""
    path = get_file(fname=path, origin=f"{ORIGIN}mnist.npz",
                    file_hash="731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1")
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])

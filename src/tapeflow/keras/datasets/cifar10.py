"""``tf.keras.datasets.cifar10``: 60,000 32x32 colour images in 10 classes."""

from __future__ import annotations

import os

import numpy as np

from ..utils.file_utils import get_file
from ._common import channels_last, load_batch

__all__ = ["load_data"]


def load_data():
    """``(x_train, y_train), (x_test, y_test)``: uint8 images ``(50000, 32, 32, 3)`` and ``(10000, 32, 32, 3)``,
    uint8 labels ``(n, 1)``."""
    path = get_file(fname="cifar-10-batches-py-target", origin="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                    extract=True, file_hash="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce")
    path = os.path.join(path, "cifar-10-batches-py")
    x_train = np.empty((50000, 3, 32, 32), dtype="uint8")
    y_train = np.empty((50000,), dtype="uint8")
    for i in range(1, 6):
        x_train[(i - 1) * 10000:i * 10000], y_train[(i - 1) * 10000:i * 10000] = load_batch(
            os.path.join(path, f"data_batch_{i}"))
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1)).astype(y_train.dtype)
    return (channels_last(x_train), y_train), (channels_last(x_test).astype(x_train.dtype), y_test)

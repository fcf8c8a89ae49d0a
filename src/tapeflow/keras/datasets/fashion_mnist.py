"""``tf.keras.datasets.fashion_mnist``: 70,000 28x28 uint8 images of 10 kinds of clothing."""

from __future__ import annotations

import gzip
import os

import numpy as np

from ..utils.file_utils import get_file
from ._common import ORIGIN

__all__ = ["load_data"]

_FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz")


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data():
    """``(x_train, y_train), (x_test, y_test)`` as for MNIST (the IDX files, kept in
    ``~/.keras/datasets/fashion-mnist``)."""
    folder = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(name, origin=ORIGIN + name, cache_subdir=folder) for name in _FILES]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)

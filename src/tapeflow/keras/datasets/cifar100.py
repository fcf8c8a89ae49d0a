"""``tf.keras.datasets.cifar100``: 60,000 32x32 colour images in 100 classes (or 20 coarse ones)."""

from __future__ import annotations

import os

import numpy as np

from ..utils.file_utils import get_file
from ._common import channels_last, load_batch

__all__ = ["load_data"]


def load_data(label_mode="fine"):
    """``(x_train, y_train), (x_test, y_test)`` with ``label_mode`` ``"fine"`` (100 classes) or ``"coarse"``
    (20)."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    path = get_file(fname="cifar-100-python-target",
                    origin="https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz", extract=True,
                    file_hash="85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7")
    path = os.path.join(path, "cifar-100-python")
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=f"{label_mode}_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=f"{label_mode}_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    return (channels_last(x_train), y_train), (channels_last(x_test), y_test)

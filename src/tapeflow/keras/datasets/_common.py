"""What the dataset loaders share: Keras's download folder, and CIFAR's pickled batches."""

from __future__ import annotations

import pickle

__all__ = ["ORIGIN", "load_batch", "channels_last"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

# What a CIFAR batch may rebuild: NumPy arrays and their dtypes, nothing else (a pickle can run any callable).
_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"), ("numpy", "dtype")}


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"Refusing to load {module}.{name} from a dataset file")
        return super().find_class(module, name)


def load_batch(fpath, label_key="labels"):
    """A CIFAR batch file's ``(data, labels)``: images as ``(n, 3, 32, 32)`` uint8, labels as the list stored."""
    with open(fpath, "rb") as f:
        batch = {k.decode("utf8"): v for k, v in _ArraysOnly(f, encoding="bytes").load().items()}
    data = batch["data"]
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def channels_last(x):
    """Images ``(n, 3, h, w)`` as Keras returns them by default (``image_data_format() == "channels_last"``)."""
    return x.transpose(0, 2, 3, 1)

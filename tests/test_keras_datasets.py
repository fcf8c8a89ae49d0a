"""``tf.keras.datasets``: each loader asks ``get_file`` for Keras's file (origin, name, hash, folder) and reads it into
Keras's arrays. The network is not used: ``get_file`` is replaced by one that writes a small file in the dataset's
own format (npz, gzip IDX, CIFAR's pickled batches in a tar archive)."""

from __future__ import annotations

import gzip
import os
import pickle

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras.datasets import boston_housing, cifar10, cifar100, fashion_mnist, mnist


def _recorder(monkeypatch, module, make):
    calls = []

    def fake_get_file(fname=None, origin=None, **kwargs):
        calls.append((fname, origin, kwargs))
        return make(fname, origin, kwargs)

    monkeypatch.setattr(module, "get_file", fake_get_file)
    return calls


def test_the_loaders_are_keras_s():
    assert tf.keras.datasets.mnist.load_data is mnist.load_data
    from tapeflow.keras.datasets import cifar10 as again  # (``from tensorflow.keras.datasets import cifar10``)

    assert again is cifar10


def test_mnist(monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"x_train": rng.integers(0, 256, (6, 28, 28), dtype=np.uint8), "y_train": np.arange(6, dtype=np.uint8),
              "x_test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8), "y_test": np.arange(2, dtype=np.uint8)}

    def make(fname, origin, kwargs):
        np.savez(tmp_path / fname, **arrays)
        return str(tmp_path / fname)

    calls = _recorder(monkeypatch, mnist, make)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    assert calls == [("mnist.npz", "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz",
                      {"file_hash": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"})]
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    assert x_train.dtype == np.uint8 and y_test.tolist() == [0, 1] and x_test.shape == (2, 28, 28)


def test_fashion_mnist(monkeypatch, tmp_path):
    labels = {"train": np.array([1, 2, 3], np.uint8), "t10k": np.array([4], np.uint8)}

    def make(fname, origin, kwargs):
        kind = fname.split("-")[0]
        path = tmp_path / fname
        with gzip.open(path, "wb") as f:
            if "labels" in fname:
                f.write(b"\0" * 8 + labels[kind].tobytes())
            else:
                f.write(b"\0" * 16 + np.full((len(labels[kind]), 28, 28), 7, np.uint8).tobytes())
        return str(path)

    calls = _recorder(monkeypatch, fashion_mnist, make)
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    assert [c[0] for c in calls] == ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
                                     "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"]
    assert all(c[2] == {"cache_subdir": os.path.join("datasets", "fashion-mnist")} for c in calls)
    assert x_train.shape == (3, 28, 28) and y_train.tolist() == [1, 2, 3] and x_test.shape == (1, 28, 28)


def test_boston_housing_splits_as_keras(monkeypatch, tmp_path):
    x = np.arange(50, dtype=np.float64).reshape(10, 5)
    y = np.arange(10, dtype=np.float64)

    def make(fname, origin, kwargs):
        np.savez(tmp_path / fname, x=x, y=y)
        return str(tmp_path / fname)

    _recorder(monkeypatch, boston_housing, make)
    (x_train, y_train), (x_test, y_test) = boston_housing.load_data(test_split=0.3, seed=113)
    order = np.arange(10)
    np.random.RandomState(113).shuffle(order)
    np.testing.assert_array_equal(y_train, y[order][:7])
    np.testing.assert_array_equal(x_test, x[order][7:])
    with pytest.raises(ValueError, match="Invalid `test_split` argument: 1.0"):
        boston_housing.load_data(test_split=1.0)


def _cifar_batch(path, n, label_keys):
    data = {b"data": np.arange(n * 3072, dtype=np.int64).astype(np.uint8).reshape(n, 3072)}
    for key in label_keys:
        data[key.encode()] = [i % 10 for i in range(n)]
    with open(path, "wb") as f:
        pickle.dump(data, f)


def test_cifar10_and_cifar100(monkeypatch, tmp_path):
    def make10(fname, origin, kwargs):
        root = tmp_path / fname / "cifar-10-batches-py"
        root.mkdir(parents=True)
        for i in range(1, 6):
            _cifar_batch(root / f"data_batch_{i}", 10000, ["labels"])
        _cifar_batch(root / "test_batch", 4, ["labels"])
        return str(tmp_path / fname)

    calls = _recorder(monkeypatch, cifar10, make10)
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert calls[0][1] == "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz" and calls[0][2]["extract"]
    assert x_train.shape == (50000, 32, 32, 3) and y_train.shape == (50000, 1) and y_test.dtype == np.uint8
    assert x_test.shape == (4, 32, 32, 3) and x_test[0, 0, 0].tolist() == [0, 0, 0]  # (channels last: 0, 1024, 2048)

    def make100(fname, origin, kwargs):
        root = tmp_path / fname / "cifar-100-python"
        root.mkdir(parents=True)
        _cifar_batch(root / "train", 3, ["fine_labels", "coarse_labels"])
        _cifar_batch(root / "test", 2, ["fine_labels", "coarse_labels"])
        return str(tmp_path / fname)

    _recorder(monkeypatch, cifar100, make100)
    (x_train, y_train), _ = cifar100.load_data(label_mode="coarse")
    assert x_train.shape == (3, 32, 32, 3) and y_train.tolist() == [[0], [1], [2]]
    with pytest.raises(ValueError, match='`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode=x.'):
        cifar100.load_data(label_mode="x")


def test_a_batch_file_cannot_run_code(tmp_path):
    from tapeflow.keras.datasets._common import load_batch

    class Evil:
        def __reduce__(self):
            return (os.system, ("true",))

    with open(tmp_path / "bad", "wb") as f:
        pickle.dump({b"data": Evil()}, f)
    with pytest.raises(pickle.UnpicklingError, match="Refusing to load"):
        load_batch(tmp_path / "bad")

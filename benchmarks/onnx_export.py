"""ONNX export: how long ``tapeflow.onnx.export`` takes, and one batch's inference under ONNX Runtime against the
same model run by tapeflow (a traced ``tf.function`` of the model, ``training=False``).

Run with ``python benchmarks/onnx_export.py`` (needs the ``onnx`` extra and onnxruntime). Median of repeats,
one thread for both (``OPENBLAS_NUM_THREADS=1`` and ORT's intra-op threads set to 1).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import tapeflow as tf  # noqa: E402

L = tf.keras.layers


def _models():
    yield "MLP 784-256-128-10", (784,), tf.keras.Sequential([
        tf.keras.Input((784,)), L.Dense(256, activation="relu"), L.Dense(128, activation="relu"), L.Dense(10)])
    yield "CNN 28x28 (2 conv, pool, BN)", (28, 28, 1), tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)), L.Conv2D(16, 3, padding="same", activation="relu"), L.MaxPooling2D(),
        L.BatchNormalization(), L.Conv2D(32, 3, padding="same", activation="relu"), L.GlobalAveragePooling2D(),
        L.Dense(10)])
    yield "LSTM 20 steps x 16 -> 32", (20, 16), tf.keras.Sequential([tf.keras.Input((20, 16)), L.LSTM(32),
                                                                      L.Dense(4)])
    free = tf.keras.Sequential([tf.keras.Input((None, 16)), L.LSTM(32), L.Dense(4)])
    yield "LSTM any length (ONNX Loop), 20 steps", (20, 16), free
    inp = tf.keras.Input((16, 32))
    x = L.LayerNormalization()(inp + L.MultiHeadAttention(4, 8)(inp, inp))
    yield "attention block 16 x 32, 4 heads", (16, 32), tf.keras.Model(
        inp, L.LayerNormalization()(x + L.Dense(32)(L.Dense(64, activation="gelu")(x))))


def _median(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _measure(ort, options, tmp, name, shape, model, batch, repeats):
    path = os.path.join(tmp, "m.onnx")
    t = time.perf_counter()
    tf.onnx.export(model, path=path)
    export_s = time.perf_counter() - t
    sess = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).normal(size=(batch,) + shape).astype(np.float32)
    feed = {sess.get_inputs()[0].name: x}
    traced = tf.function(lambda v: model(v, training=False))
    xt = tf.constant(x)
    traced(xt)
    sess.run(None, feed)
    ours = _median(lambda: traced(xt), repeats)
    theirs = _median(lambda: sess.run(None, feed), repeats)
    diff = np.abs(sess.run(None, feed)[0] - traced(xt).numpy()).max()
    print(f"| {name} | {export_s:.3f} | {ours * 1e3:.2f} | {theirs * 1e3:.2f} | {diff:.1e} |")


def main(batch=32, repeats=50):
    import onnx  # noqa: F401, PLC0415 - imported before the first export is timed
    import onnxruntime as ort  # noqa: PLC0415

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    print(f"batch {batch}; median of {repeats} runs, one thread\n")
    print("| model | export (s) | tapeflow (ms) | ONNX Runtime (ms) | max abs difference |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, model in _models():
            _measure(ort, options, tmp, name, shape, model, batch, repeats)


if __name__ == "__main__":
    main()

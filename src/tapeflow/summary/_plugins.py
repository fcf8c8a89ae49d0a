"""The typed summaries of ``tf.summary`` (TensorFlow 2.21 takes them from TensorBoard's plugins): what tensor each
writes and with which plugin's metadata, so TensorBoard's dashboards read them as TF's.

* ``scalar``: a float32 scalar, plugin ``scalars``.
* ``histogram``: a float64 ``[k, 3]`` tensor of ``[left, right, count]`` buckets, plugin ``histograms``: ``k``
  buckets (30 by default) of equal width from the minimum to the maximum, each closed on the left and the last
  also on the right; every bucket is the single value (all counts in the last) when the data has one value, and
  all zeros for empty data.
* ``image``: a string vector ``[width, height, png, png, ...]``, plugin ``images``; values become uint8 as
  ``tf.image.convert_image_dtype(..., saturate=True)`` makes them (floats scaled by 255.5 and clipped) and each
  image is PNG-encoded by Pillow (part of the ``tensorboard`` extra).
* ``text``: the string tensor as it is, plugin ``text``.
* ``audio``: a ``[k, 2]`` string tensor of ``[wav, label]`` rows, plugin ``audio`` (encoding WAV); each clip is
  16-bit PCM WAV made by Python's ``wave`` module, samples scaled by 32768, rounded and clipped as TF's
  ``EncodeWav`` does.

The plugins' metadata protos come from TensorBoard's own ``metadata`` modules. As in TF, the checks of ``scalar``
and ``text`` run on every call, and the work of ``histogram``, ``image`` and ``audio`` (and its checks) only when
a summary is recorded.
"""

from __future__ import annotations

import io
import wave

import numpy as np

from .._core import dtypes as _dtypes
from .._core import errors
from .._core.extras import require
from .._core.registry import _TF_TYPE_NAMES
from .._core.tensor import convert_to_tensor
from ..ops import assert_ops
from ..ops.array_ops import cast, stop_gradient
from . import _writer

__all__ = ["scalar", "histogram", "image", "text", "audio"]

DEFAULT_BUCKET_COUNT = 30


def _metadata(plugin, description, **kwargs):
    """The plugin's ``SummaryMetadata`` as TensorBoard's ``<plugin>.metadata.create_summary_metadata`` makes it,
    or ``None`` without a writer (nothing is written then, and the extra need not be installed)."""
    if _writer.default_writer() is None:
        return None
    require("tensorboard", f"tf.summary.{plugin}", "tensorboard")
    import importlib  # noqa: PLC0415

    module = importlib.import_module(f"tensorboard.plugins.{plugin}.metadata")
    if plugin == "audio":
        kwargs["encoding"] = module.Encoding.Value("WAV")
    return module.create_summary_metadata(display_name=None, description=description, **kwargs)


def scalar(name, data, step=None, description=None):
    """Write the scalar ``data`` as float32 under ``name`` (``tf.summary.scalar``).

    Returns a boolean tensor: ``False`` when nothing was written (no default writer, or ``record_if`` false).

    Raises:
        ValueError: for ``data`` that is not a scalar (even with no writer), or a writer but no step.
    """
    metadata = _metadata("scalar", description)
    with _writer.summary_scope(name, "scalar_summary") as (tag, _):
        data = convert_to_tensor(data)
        assert_ops.assert_scalar(data)
        value = cast(data, _dtypes.float32)
        return _writer.emit(tag, value, _identity, metadata, step)


def _identity(value):
    return value


def text(name, data, step=None, description=None):
    """Write the string tensor ``data`` (any shape; Markdown) under ``name`` (``tf.summary.text``).

    Raises:
        TypeError: for ``data`` that is not of strings.
    """
    metadata = _metadata("text", description)
    with _writer.summary_scope(name, "text_summary") as (tag, _):
        data = convert_to_tensor(data)
        assert_ops.assert_type(data, _dtypes.string)
        return _writer.emit(tag, data, _identity, metadata, step)


def histogram(name, data, step=None, buckets=None, description=None):
    """Write the histogram of ``data``'s elements (any shape, castable to float64) under ``name`` with ``buckets``
    buckets (30 by default) (``tf.summary.histogram``); see the module docstring for the buckets."""
    data = stop_gradient(convert_to_tensor(data))
    metadata = _metadata("histogram", description)
    with _writer.summary_scope(name, "histogram_summary") as (tag, _):
        def inputs():
            count = convert_to_tensor(DEFAULT_BUCKET_COUNT if buckets is None else buckets)
            assert_ops.assert_scalar(count)
            assert_ops.assert_type(count, _dtypes.int32)
            return cast(data, _dtypes.float64), count

        return _writer.emit(tag, inputs, _buckets, metadata, step)


def _buckets(data, bucket_count):
    """``[left, right, count]`` rows of the histogram of ``data`` (float64), computed as TF's graph computes them."""
    count = max(0, int(bucket_count))
    data = np.asarray(data, np.float64).ravel()
    if data.size == 0 or count == 0:
        return np.zeros((count, 3))
    low, high = data.min(), data.max()
    span = high - low
    if span == 0:
        counts = np.zeros(count)
        counts[-1] = data.size
        edges = np.full(count, high)
        return np.stack([edges, edges, counts]).T
    width = span / np.float64(count)
    with np.errstate(invalid="ignore", over="ignore"):
        # NaN bucket numbers become int32's minimum, as in TF's cast, and count nowhere (TF's one-hot of an index
        # out of range is all zeros).
        index = np.floor((data - low) / width).astype(np.int32)
        index = np.minimum(index, count - 1)
        counts = np.bincount(index[index >= 0], minlength=count).astype(np.float64)
        # TF's LinSpace: the first edge is the minimum itself, the others min + i * step, the last the maximum.
        edges = np.arange(count + 1) * width + low
    edges[0], edges[-1] = low, high
    return np.stack([edges[:-1], edges[1:], counts]).T


def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to ``max_outputs`` images of ``data`` (``[k, h, w, c]``, ``c`` in 1-4; floats in [0, 1] or
    integers) as PNGs under ``name`` (``tf.summary.image``).

    Raises (when recording):
        ValueError: for ``data`` not of rank 4.
        tf.errors.InvalidArgumentError: for a negative ``max_outputs`` or a channel count PNG cannot hold.
    """
    metadata = _metadata("image", description)
    with _writer.summary_scope(name, "image_summary") as (tag, _):
        def inputs():
            images = convert_to_tensor(data)
            assert_ops.assert_rank(images, 4)
            limit = convert_to_tensor(max_outputs)
            assert_ops.assert_non_negative(limit)
            if not (images.dtype.is_floating or images.dtype.is_integer):
                raise AttributeError("image dtype must be either floating point or integer")
            return images, limit

        return _writer.emit(tag, inputs, _encode_images, metadata, step)


def _to_uint8(images):
    """``tf.image.convert_image_dtype(images, tf.uint8, saturate=True)`` on NumPy values."""
    kind = images.dtype
    if kind == np.uint8:
        return images
    if kind.kind == "f":
        scaled = images * kind.type(255.5)  # (in the images' own float type, as TF multiplies)
        with np.errstate(invalid="ignore"):
            return np.clip(scaled, 0, 255).astype(np.uint8)
    info = np.iinfo(kind)
    if info.max > 255:
        scaled = np.floor_divide(images, (int(info.max) + 1) // 256)
        return np.clip(scaled, 0, 255).astype(np.uint8)
    return (np.clip(images, 0, 255).astype(np.uint8) * (256 // (int(info.max) + 1))).astype(np.uint8)


_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _encode_images(images, limit):
    images = _to_uint8(np.asarray(images))
    height, width, channels = images.shape[1:]
    if channels not in _MODES:
        raise errors.op_error("EncodePng", f"image must have 1, 2, 3, or 4 channels, got {channels}")
    pil = require("PIL.Image", "tf.summary.image", "tensorboard")
    out = [str(width).encode(), str(height).encode()]
    for picture in images[:int(limit)]:
        buffer = io.BytesIO()
        pil.frombytes(_MODES[channels], (width, height), np.ascontiguousarray(picture).tobytes()).save(
            buffer, format="PNG")
        out.append(buffer.getvalue())
    array = np.empty(len(out), dtype=object)
    array[:] = out
    return array


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """Write up to ``max_outputs`` clips of ``data`` (``[k, frames, channels]`` float32 in [-1, 1]) as WAV at
    ``sample_rate`` Hz under ``name`` (``tf.summary.audio``).

    Raises:
        ValueError: for an ``encoding`` other than ``"wav"``; when recording, for ``data`` not of rank 3.
        tf.errors.InvalidArgumentError: when recording, for a negative ``max_outputs``, data not float32 or a
            sample rate out of (0, 2**32).
    """
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    metadata = _metadata("audio", description)
    with _writer.summary_scope(name, "audio_summary") as (tag, _):
        def inputs():
            clips = convert_to_tensor(data)
            assert_ops.assert_rank(clips, 3)
            limit = convert_to_tensor(max_outputs)
            assert_ops.assert_non_negative(limit)
            if clips.dtype != _dtypes.float32:
                found = _TF_TYPE_NAMES.get(clips.dtype.name, (clips.dtype.name,))[0]
                raise errors.op_error("EncodeWav", "cannot compute EncodeWav as input #0(zero-based) was expected "
                                      f"to be a float tensor but is a {found} tensor", wrapped=False)
            return clips, limit, convert_to_tensor(sample_rate, dtype=_dtypes.int32)

        return _writer.emit(tag, inputs, _encode_audio, metadata, step)


def _encode_audio(clips, limit, sample_rate):
    clips = np.asarray(clips, np.float32)[:int(limit)]
    rate = int(sample_rate)
    if not 0 < rate < 2**32:
        raise errors.op_error("EncodeWav", f"sample_rate must be in (0, 2^32), got: {rate}")
    out = np.empty((len(clips), 2), dtype=object)
    for k, clip in enumerate(clips):
        scaled = clip.astype(np.float64) * 32768.0  # (exact: a float32 times a power of two)
        rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # C's roundf: halves away from zero
        samples = np.clip(rounded, -32768, 32767).astype("<i2")
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav:
            wav.setnchannels(clip.shape[1])
            wav.setsampwidth(2)
            wav.setframerate(rate)
            wav.writeframes(samples.tobytes())
        out[k] = (buffer.getvalue(), b"")
    return out

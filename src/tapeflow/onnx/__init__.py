"""``tapeflow.onnx``: export traced functions and Keras models as ONNX models (tapeflow's own; TensorFlow needs
the separate ``tf2onnx`` converter for this).

The ``onnx`` package (the ``onnx`` extra: ``pip install 'tapeflow[onnx]'``) builds and checks the model; it is
imported on the first export, never by ``import tapeflow``. How an export works is in ``_export.py``; the ops that
export, one lowering each, are in ``_registry.py`` and its three families; docs/onnx.md lists them.
"""

from __future__ import annotations

from ._registry import LOWERINGS, OPSET, ExportError

__all__ = ["export", "ExportError", "OPSET", "supported_ops"]


def export(fn_or_model, input_signature=None, path=None, opset=None):
    """Write ``fn_or_model`` as an ONNX model at ``path`` and return its ``onnx.ModelProto``.

    Args:
        fn_or_model: a ``tf.function`` (its ``input_signature`` is used unless one is given), a concrete function,
            a Python function of tensors, or a Keras model or layer (called with ``training=False``; its inputs'
            shapes, with the batch dimension free, unless ``input_signature`` is given).
        input_signature: a list of ``tf.TensorSpec``, one per input; a ``None`` dimension becomes a symbolic ONNX
            dimension (``batch`` for the first axis, ``unk__<k>`` for others), so the model runs on any size of it.
        path: where to write the ``.onnx`` file (``None``: only return the model). The file is written to a
            temporary name and renamed into place: a failed export leaves no partial file.
        opset: the opset to declare, :data:`OPSET` or newer.

    The model's inputs are named after the function's parameters (or the specs' or Keras inputs' names), its
    outputs ``output_0``, ``output_1``... in ``tf.nest`` order of the result. Variables become initializers holding
    their values at export time. The model passes ``onnx.checker.check_model(full_check=True)``.

    Raises:
        ImportError: the ``onnx`` extra is not installed.
        TypeError, ValueError: an input signature that is not a list of ``tf.TensorSpec`` (or not one the function
            takes), an input of unknown rank or of a dtype ONNX Runtime does not take.
        ExportError (a ``ValueError``): an op with no ONNX lowering (named, with the line that made it), a variable
            assignment, or a program that fixes the size of a ``None`` dimension.
    """
    from . import _export  # noqa: PLC0415 - imports onnx, on first use only

    return _export.export(fn_or_model, input_signature, path, opset)


def supported_ops():
    """The names of the tapeflow ops that have an ONNX lowering, sorted."""
    from . import _array, _math, _nn  # noqa: F401, PLC0415 - they fill the registry

    return sorted(LOWERINGS)

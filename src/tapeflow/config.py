"""``tf.config``: how functions run (``run_functions_eagerly``)."""

from __future__ import annotations

__all__ = ["run_functions_eagerly", "functions_run_eagerly"]


def run_functions_eagerly(run_eagerly):
    """Run every ``tf.function`` as plain Python (``True``), for debugging with prints and ``.numpy()``."""
    from .compiler import tf_function as function

    function.run_functions_eagerly(run_eagerly)


def functions_run_eagerly():
    """Whether ``tf.function``\\ s run as plain Python (:func:`run_functions_eagerly`)."""
    from .compiler import tf_function as function

    return function.functions_run_eagerly()

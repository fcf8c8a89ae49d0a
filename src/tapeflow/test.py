"""``tf.test``: ``compute_gradient``, the theoretical and numerical Jacobians TensorFlow's gradient tests compare.

Loaded on first use of ``tf.test`` (it is not needed to differentiate).
"""

from __future__ import annotations

import numpy as np

from ._core.dtypes import as_dtype
from ._core.tape import GradientTape
from ._core.tensor import convert_to_tensor, wrap

__all__ = ["compute_gradient", "is_built_with_cuda", "is_built_with_rocm", "is_built_with_gpu_support",
           "is_built_with_xla", "gpu_device_name", "is_gpu_available"]

_DIFFERENTIABLE = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _dense(grad, like):
    """A gradient as a NumPy array of ``like``'s shape (``IndexedSlices`` summed into place, ``None`` as zeros)."""
    if grad is None:
        return np.zeros(like.shape, like.dtype)
    if getattr(grad, "_tapeflow_indexed_slices", False):
        out = np.zeros(like.shape, like.dtype)
        np.add.at(out, np.asarray(grad.indices._value), np.asarray(grad.values._value))
        return out
    return np.asarray(grad._value)


def theoretical_jacobian(f, y_shape, y_dtype, xs, param):
    """Rows: the real and (for complex ``y``) imaginary parts of each element of ``y``; columns: likewise for
    ``xs[param]``. Row ``r`` is the gradient for an output gradient that is 1 at real component ``r``, so a
    complex row holds TF's conjugate-convention gradient split into (re, im) pairs."""
    x = xs[param]
    x_real = x.dtype.real_dtype.as_numpy_dtype
    x_size = int(np.prod(x.shape.as_list(), dtype=np.int64)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape, dtype=np.int64)) * (2 if y_dtype.is_complex else 1)
    jac = np.zeros((y_size, x_size), dtype=x_real)
    dy = np.zeros(y_shape, dtype=y_dtype.as_numpy_dtype)
    dy_flat = dy.reshape(-1).view(y_dtype.real_dtype.as_numpy_dtype)
    # One recording serves every row (TF re-runs ``f`` per row; the values are the same for a pure ``f``).
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = convert_to_tensor(f(*xs))
    for row in range(y_size):
        dy_flat[row] = 1
        grad = tape.gradient(y, x, output_gradients=wrap(dy.copy()))
        jac[row, :] = _dense(grad, x._value).reshape(-1).view(x_real)
        dy_flat[row] = 0
    if y_size == 0:
        grad = _dense(tape.gradient(y, x, output_gradients=wrap(dy.copy())), x._value)
        if grad.shape != tuple(x.shape.as_list()):
            raise ValueError(f"Empty gradient has wrong shape: expected {x.shape}, got {grad.shape}")
        if np.any(grad):
            raise ValueError("Empty tensor with nonzero gradients")
    return jac


def numerical_jacobian(f, y_size, y_dtype, xs, param, delta):
    """Central differences ``(f(x + delta) - f(x - delta)) / (2 delta)`` on each real component of ``xs[param]``,
    computed in the arguments' own dtypes (as TF does)."""
    values = [np.array(x._value, copy=True) for x in xs]
    x = values[param]
    x_real = xs[param].dtype.real_dtype.as_numpy_dtype
    y_real = y_dtype.real_dtype.as_numpy_dtype
    x_size = x.size * (2 if xs[param].dtype.is_complex else 1)
    y_size = y_size * (2 if y_dtype.is_complex else 1)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jac = np.zeros((y_size, x_size), dtype=x_real)
    flat = x.reshape(-1).view(x_real)  # a view: writing it perturbs ``x`` in place

    def run():
        out = convert_to_tensor(f(*[convert_to_tensor(v.copy()) for v in values]))
        return np.array(out._value, copy=True)

    for col in range(x_size):
        original = flat[col]
        flat[col] += delta
        y_pos = run()
        flat[col] = original
        flat[col] -= delta
        y_neg = run()
        flat[col] = original
        jac[:, col] = ((y_pos - y_neg) / scale).reshape(-1).view(y_real)
    return jac


def jacobians(f, xs, delta):
    """``(theoretical, numerical)`` tuples of Jacobians of ``f`` at the tensors ``xs``, one entry per argument."""
    y = convert_to_tensor(f(*xs))
    y_dtype = as_dtype(y.dtype)
    if y_dtype.name not in _DIFFERENTIABLE:
        bad_y = f"Cannot compute gradient for unsupported type {y_dtype.name} of y"
    else:
        bad_y = None
    y_shape = tuple(y.shape.as_list())
    pairs = []
    for i, x in enumerate(xs):
        if x.dtype.name not in _DIFFERENTIABLE:
            raise AssertionError(f"Cannot compute gradient for unsupported type {x.dtype.name} of argument {i}")
        if bad_y is not None:
            raise AssertionError(bad_y)
        pairs.append((theoretical_jacobian(f, y_shape, y_dtype, xs, i),
                      numerical_jacobian(f, int(np.prod(y_shape, dtype=np.int64)), y_dtype, xs, i, delta)))
    return tuple(zip(*pairs))


def compute_gradient(f, x, delta=None):
    """The theoretical and numerical Jacobians of ``f`` at the arguments ``x`` (``tf.test.compute_gradient``).

    ``x`` is a list or tuple of values convertible to tensors. Returns ``(theoretical, numerical)``, each a tuple
    with one 2-D NumPy array per argument, of shape ``(y_size, x_size)`` in the argument's real dtype, where a
    complex value counts twice (real and imaginary parts). ``delta`` (default ``1/1024`` for every dtype) is the
    perturbation of the central differences, which run in the arguments' own dtypes.

    Raises:
        ValueError: if ``x`` is not a list or tuple.
        AssertionError: for an argument or result dtype that cannot be differentiated (as TF's asserts do).
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError("`x` must be a list or tuple of values convertible to a Tensor (arguments to `f`), not a "
                         f"{type(x)}")
    if delta is None:
        delta = 1.0 / 1024
    xs = [convert_to_tensor(v) for v in x]
    return jacobians(f, xs, delta)


def is_built_with_cuda():
    """Whether tapeflow was built with CUDA: never (NumPy on the CPU)."""
    return False


def is_built_with_rocm():
    """Whether tapeflow was built with ROCm: never."""
    return False


def is_built_with_gpu_support():
    """Whether tapeflow was built with any GPU support: never."""
    return False


def is_built_with_xla():
    """Whether tapeflow was built with XLA: never (``jit_compile`` is accepted and compiles tapeflow's own way)."""
    return False


def gpu_device_name():
    """The name of a GPU device: none here, ``""``."""
    return ""


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Deprecated in TF (its warning is logged): whether a GPU is available, never here."""
    import sys  # noqa: PLC0415

    from ._core.logs import log_first_n  # noqa: PLC0415

    caller = sys._getframe(1)
    log_first_n("WARNING", f"From {caller.f_code.co_filename}:{caller.f_lineno}: is_gpu_available (from "
                           "tensorflow.python.framework.test_util) is deprecated and will be removed in a future "
                           "version.\nInstructions for updating:\nUse `tf.config.list_physical_devices('GPU')` "
                           "instead.", 1, ("is_gpu_available",))
    return False

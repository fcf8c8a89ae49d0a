"""``tapeflow.debug.check_gradients``: compare tapeflow's gradients with central finite differences in float64."""

from __future__ import annotations

import numpy as np

from .._core.tensor import convert_to_tensor

__all__ = ["check_gradients", "GradientCheck", "ArgumentCheck"]


class ArgumentCheck:
    """The comparison for one argument: its Jacobians (tapeflow's and finite differences) and the worst errors.

    Attributes:
        index: the argument's position.
        shape, dtype: the argument's shape and the dtype it was checked in (float64 or complex128).
        theoretical, numerical: the ``(y_size, x_size)`` Jacobians (``tf.test.compute_gradient``'s layout).
        max_abs_error: largest ``|theoretical - numerical|``.
        max_rel_error: largest ``|theoretical - numerical| / max(|theoretical|, |numerical|)`` over entries where
            that denominator exceeds ``atol`` (entries near zero are judged by the absolute error alone).
        worst: the flat ``(row, column)`` of the largest error (relative to the tolerance), or ``None``.
        ok: whether every entry satisfies ``|theoretical - numerical| <= atol + rtol * |numerical|``.
    """

    def __init__(self, index, shape, dtype, theoretical, numerical, rtol, atol):
        self.index, self.shape, self.dtype = index, shape, dtype
        self.theoretical, self.numerical = theoretical, numerical
        err = np.abs(theoretical - numerical)
        scale = np.maximum(np.abs(theoretical), np.abs(numerical))
        self.max_abs_error = float(err.max()) if err.size else 0.0
        big = scale > atol
        self.max_rel_error = float((err[big] / scale[big]).max()) if big.any() else 0.0
        excess = err - (atol + rtol * np.abs(numerical))
        self.ok = bool((excess <= 0).all())
        self.worst = tuple(int(i) for i in np.unravel_index(np.argmax(excess), excess.shape)) if err.size else None

    def __str__(self):
        status = "ok" if self.ok else "MISMATCH"
        text = (f"argument {self.index} (shape {self.shape}, {self.dtype}): max abs error {self.max_abs_error:.3g}, "
                f"max rel error {self.max_rel_error:.3g}: {status}")
        if not self.ok:
            r, c = self.worst
            text += (f" (worst at output {r}, input {c}: tapeflow {self.theoretical[r, c]:.6g}, "
                     f"finite differences {self.numerical[r, c]:.6g})")
        return text

    def __repr__(self):
        return f"<ArgumentCheck {self}>"


class GradientCheck:
    """What :func:`check_gradients` found: ``arguments`` (one :class:`ArgumentCheck` per checked argument) and
    ``ok`` (all of them within tolerance). ``str()`` gives one line per argument."""

    def __init__(self, arguments, skipped, rtol, atol, delta):
        self.arguments = arguments
        self.skipped = skipped
        self.rtol, self.atol, self.delta = rtol, atol, delta

    @property
    def ok(self):
        return all(a.ok for a in self.arguments)

    def __getitem__(self, i):
        return self.arguments[i]

    def __len__(self):
        return len(self.arguments)

    def __str__(self):
        head = (f"gradient check {'passed' if self.ok else 'FAILED'} (central differences, delta={self.delta:g}, "
                f"rtol={self.rtol:g}, atol={self.atol:g})")
        lines = [head] + ["  " + str(a) for a in self.arguments]
        lines += [f"  argument {i}: not checked ({why})" for i, why in self.skipped]
        return "\n".join(lines)

    def __repr__(self):
        return f"<GradientCheck ok={self.ok}: {len(self.arguments)} argument(s)>"


def check_gradients(f, *args, delta=None, rtol=1e-5, atol=1e-6):
    """Compare the gradients tapeflow computes for ``f(*args)`` with central finite differences, per argument.

    Floating and complex arguments are cast to float64 / complex128 (so ``f`` must accept them) and checked;
    integer, bool and string arguments are passed through unchanged and reported as not checked. Every element
    of ``f``'s result is differentiated (one backward pass per element), so keep the function small.

    Args:
        f: the function, taking the arguments positionally and returning a tensor.
        *args: the point to check at (tensors, arrays or Python values).
        delta: the finite-difference step (default ``1e-6``, close to optimal for float64 central differences).
        rtol, atol: an entry passes when ``|tapeflow - numerical| <= atol + rtol * |numerical|``.

    Returns:
        A :class:`GradientCheck`: ``.ok``, ``.arguments[i].max_abs_error`` / ``max_rel_error``, a readable ``str()``.
    """
    from ..test import numerical_jacobian, theoretical_jacobian

    delta = 1e-6 if delta is None else delta
    xs, checked, skipped = [], [], []
    for i, a in enumerate(args):
        t = convert_to_tensor(a)
        if t.dtype.is_complex:
            t = convert_to_tensor(np.asarray(t._value, np.complex128))
        elif t.dtype.is_floating:
            t = convert_to_tensor(np.asarray(t._value, np.float64))
        else:
            skipped.append((i, f"dtype {t.dtype.name}"))
            xs.append(t)
            continue
        checked.append(i)
        xs.append(t)
    y = convert_to_tensor(f(*xs))
    if not (y.dtype.is_floating or y.dtype.is_complex):
        raise TypeError(f"check_gradients: f returned a {y.dtype.name} tensor, which has no gradient")
    y_shape = tuple(y.shape.as_list())
    y_size = int(np.prod(y_shape, dtype=np.int64))
    reports = []
    for i in checked:
        theo = theoretical_jacobian(f, y_shape, y.dtype, xs, i)
        num = numerical_jacobian(f, y_size, y.dtype, xs, i, delta)
        reports.append(ArgumentCheck(i, tuple(xs[i].shape.as_list()), xs[i].dtype.name, theo, num, rtol, atol))
    return GradientCheck(reports, skipped, rtol, atol, delta)

"""``tf.experimental.numpy``: gradients against finite differences, traced functions, and the NumPy-behavior switch
leaving the process as it found it (TF's values, dtypes and errors are checked by ``tests/golden/cases/tnp*.py``)."""

import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
import tapeflow.experimental.numpy as tnp
from tapeflow._core.tensor import EagerTensor, Tensor
from tapeflow._core.variable import Variable
from tapeflow.experimental.numpy._behavior import reset_numpy_behavior
from tests.gradcheck import assert_gradient_close, central_difference

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4))
B = RNG.normal(size=(4, 2))
V = RNG.uniform(0.5, 2.0, size=(4,))


def _check(fn, *values):
    """The tape's gradient of ``sum(fn(*args))`` against central differences, for every argument (float64)."""
    def loss(*arrays):
        return float(np.sum(fn(*[tf.constant(a) for a in arrays]).numpy()))

    xs = [tf.constant(v) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = tnp.sum(fn(*xs))
    grads = tape.gradient(y, xs)
    for i, g in enumerate(grads):
        expected = central_difference(loss, values, i)
        assert_gradient_close(None if g is None else g.numpy(), expected, f"{fn.__name__} argument {i}")


GRADIENT_CASES = {
    "math": (lambda a: tnp.exp(tnp.sin(a)) * tnp.sqrt(tnp.abs(a) + 1) + tnp.power(a, 2) / 3, A),
    "reductions": (lambda a: tnp.std(a, axis=0) + tnp.var(a) + tnp.mean(tnp.max(a, axis=1)) + tnp.prod(a[0]), A),
    "cumulative": (lambda a: tnp.cumsum(a, axis=1) * tnp.cumprod(a[:, :2] + 2, axis=0)[0, 0], A),
    "products": (lambda a, b: tnp.dot(a, b) + tnp.matmul(a, b) * 2 + tnp.einsum("ij,jk->ik", a, b), A, B),
    "tensordot_outer": (lambda a, v: tnp.tensordot(a, v, 1) + tnp.sum(tnp.outer(v, v)) + tnp.inner(v, v), A, V),
    "cross_vdot": (lambda a, b: tnp.cross(a[0, :3], b[:3, 0]) + tnp.vdot(a[0], b[:, 1]), A, B),
    "shapes": (lambda a: tnp.concatenate([tnp.reshape(a, [2, 6]), tnp.flip(tnp.roll(a, 1).reshape(2, 6), 1)]), A),
    "selection": (lambda a: tnp.take(a, [0, 5, 5, 11]) + tnp.sum(tnp.take_along_axis(a, tf.constant([[3], [0], [1]]),
                                                                                    1)), A),
    "repeat_tile": (lambda a: tnp.sum(tnp.repeat(a, [1, 0, 2], axis=0)) * tnp.tile(a[0], 2), A),
    "where_clip": (lambda a: tnp.where(a > 0, a * a, -a) + tnp.clip(a, -0.5, 0.5) + tnp.maximum(a, 0.1), A),
    "triangles_pad": (lambda a: tnp.pad(tnp.triu(a, 1) + tnp.tril(a), [[1, 0], [0, 2]], "reflect"), A),
    "sort_average": (lambda a: tnp.sort(a, axis=1) * [1.0, 2.0, 3.0, 4.0] + tnp.average(a, axis=1, weights=V)[:, None],
                     A),
    "diag_trace": (lambda a: tnp.diag(a[:, :3]) + tnp.trace(a) + tnp.diagonal(a, 1), A),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_match_finite_differences(name):
    fn, *values = GRADIENT_CASES[name]
    if name in ("shapes",):
        tnp.experimental_enable_numpy_behavior()  # ``.reshape`` on a tensor
    try:
        _check(fn, *values)
    finally:
        reset_numpy_behavior()


def test_traced_functions_give_eager_values_and_gradients():
    @tf.function
    def f(x, y):
        return tnp.sum(tnp.sin(x) * y) + tnp.mean(tnp.matmul(x, tnp.transpose(x))) + tnp.std(tnp.repeat(x, 2))

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([0.5, 1.5])
    np.testing.assert_allclose(f(x, y).numpy(), f.python_function(x, y).numpy(), rtol=1e-6)
    with tf.GradientTape() as tape:
        tape.watch(x)
        traced = f(x, y)
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        eager = f.python_function(x, y)
    np.testing.assert_allclose(tape.gradient(traced, x).numpy(), tape2.gradient(eager, x).numpy(), rtol=1e-6)


def test_functions_take_variables_and_differentiate_them():
    v = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
    with tf.GradientTape() as tape:
        y = tnp.sum(tnp.square(tnp.asarray(v))) + tnp.mean(v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 2 * v.numpy() + 0.25)


def _state():
    """What the switch may change: operators of tensors and variables, methods, indexing, namespace functions."""
    names = [n for n in dir(Tensor) if n.startswith("__")] + ["assign", "assign_add", "assign_sub"]
    functions = {(m.__name__, n): getattr(m, n) for m in (tf, tf.math, tf.nn, tf.linalg, tnp)
                 for n in dir(m) if callable(getattr(m, n)) and not n.startswith("_")}
    return ({n: getattr(Tensor, n, None) for n in names}, {n: getattr(Variable, n, None) for n in names},
            dict(EagerTensor.__dict__), functions)


@pytest.mark.parametrize("mode", ["legacy", "safe", "all", "off"])
@pytest.mark.parametrize("prefer_float32", [False, True])
def test_reset_restores_everything(mode, prefer_float32):
    before = _state()
    tnp.experimental_enable_numpy_behavior(prefer_float32=prefer_float32, dtype_conversion_mode=mode)
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")  # switching modes on the way
    reset_numpy_behavior()
    after = _state()
    for b, a in zip(before, after):
        assert b == a
    assert tnp.zeros(1).dtype == tf.float64
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + 2.5
    with pytest.raises(AttributeError, match="numpy-related methods"):
        tf.constant([1.0]).reshape(1)


def test_unknown_mode_changes_nothing():
    before = _state()
    with pytest.raises(ValueError, match="promotion mode bogus does not exist"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="bogus")
    assert _state() == before


def test_weak_tensors_in_flexible_modes():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    try:
        w = tf.constant(2.0)
        assert type(w).__name__ == "EagerWeakTensor" and not isinstance(w, tf.Tensor) and tf.is_tensor(w)
        assert (w * tf.constant(1.0, tf.float16)).dtype == tf.float16  # a weak float gives way
        assert type(tf.constant(1, tf.int32) + 2.5).__name__ == "EagerWeakTensor"
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.square(w) * 3
        g = tape.gradient(y, w)
        assert type(g).__name__ == "EagerWeakTensor" and float(g) == 12.0
    finally:
        reset_numpy_behavior()
    assert type(w * 2).__name__ == "EagerTensor"  # weak tensors made earlier act as their tensors when off


def test_numpy_module_is_loaded_on_first_use():
    code = "import sys, tapeflow; print('tapeflow.experimental.numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_public_surface():
    for name in ("array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity",
                 "zeros_like", "ones_like", "full_like", "empty_like", "add", "subtract", "multiply", "divide",
                 "true_divide", "floor_divide", "power", "exp", "log", "sqrt", "abs", "sin", "cos", "tan", "arcsin",
                 "sinh", "tanh", "maximum", "minimum", "clip", "where", "dot", "matmul", "tensordot", "einsum",
                 "outer", "inner", "cross", "sum", "mean", "prod", "max", "amax", "min", "amin", "std", "var", "argmax",
                 "argmin", "all", "any", "cumsum", "cumprod", "average", "reshape", "ravel", "transpose", "swapaxes",
                 "moveaxis", "expand_dims", "squeeze", "concatenate", "stack", "hstack", "vstack", "split", "tile",
                 "repeat", "broadcast_to", "flip", "roll", "take", "take_along_axis", "sort", "argsort", "diag",
                 "tril", "triu", "pad", "isclose", "allclose", "float32", "int64", "bool_", "newaxis", "ndarray",
                 "experimental_enable_numpy_behavior"):
        assert hasattr(tnp, name), name
    for name in ("seed", "rand", "randn", "uniform", "randint", "standard_normal", "random"):
        assert callable(getattr(tnp.random, name)), name
    assert tf.experimental.numpy is tnp and tnp.ndarray is tf.Tensor
    assert not {"math", "shapes", "annotations"} & set(tnp.__all__)

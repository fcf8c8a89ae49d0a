"""The ``tf.debugging.assert_*`` family, as TF 2.21 runs it eagerly and in traced functions.

Eagerly, every assertion is decided on the spot: it returns ``None`` when it holds and raises otherwise, with
TF's error class and message, including the summaries of the data TF prints (the first ``summarize`` values,
3 by default, all of them when negative).

While ``tf.function`` traces, an assertion on values that depend on the function's inputs cannot be decided: it
becomes an ``Assert`` op of the traced program, which checks each time the program runs and fails with TF's
graph-mode text (``assertion failed: [...] [...]``), naming tensors by their graph names.
"""

from __future__ import annotations

import numpy as np

from .._core import errors
from .._core.dispatch import execute
from .._core.dtypes import as_dtype, float32, int32
from .._core.exports import export
from .._core.registry import defop
from .._core.state import STATE
from .._core.tensor import Tensor, convert_to_tensor, wrap
from . import math_ops
from .print_ops import _element_formatter

__all__ = [
    "Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
    "assert_greater_equal", "assert_near", "assert_positive", "assert_negative", "assert_non_negative",
    "assert_non_positive", "assert_integer", "assert_scalar", "assert_rank", "assert_rank_at_least",
    "assert_rank_in", "assert_type", "assert_shapes", "assert_proper_iterable", "assert_same_float_dtype",
]


def _assert_forward(*values, check):
    """The op a traced assertion becomes: ``check(*values)`` raises TF's error when the assertion fails. While a
    function is traced nothing is checked (the values are the trace's, not the program's)."""
    if STATE.tracer is None:
        check(*values)
    return ()


ASSERT = defop("Assert", num_outputs=0, same_dtype=False, stateful=True)(_assert_forward)


class _GraphCheck:
    """A traced assertion's test, run on the program's values: ``test(x, y)`` must hold everywhere, else the
    ``data`` (strings, and input positions standing for the inputs' values) is printed as TF's ``Assert`` op
    prints it."""

    __slots__ = ("test", "data", "summarize", "node_name")

    def __init__(self, test, data, summarize, node_name=None):
        self.test, self.data, self.summarize = test, tuple(data), summarize
        self.node_name = node_name  # TF's name of the node, with its name scopes (for errors)

    def __call__(self, *values):
        ok = self.test(*[wrap(v) for v in values])._value
        if ok.all():
            return
        summarize = 3 if self.summarize is None else self.summarize
        parts = [_graph_text(values[d], summarize) if type(d) is int else d for d in self.data]
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + " ".join(f"[{p}]" for p in parts))


def _holds(condition, *data):
    return condition


def _graph_text(value, summarize):
    """A tensor's values as TF's graph ``Assert`` prints them: flat, space-separated, cut after ``summarize``."""
    arr, fmt = _element_formatter(np.asarray(value))
    flat = arr.reshape(-1)
    limit = flat.size if summarize < 0 else min(summarize, flat.size)
    return " ".join(fmt(v) for v in flat[:limit]) + ("..." if limit < flat.size else "")


def _traced(*tensors):
    """Whether a trace is running and one of ``tensors`` depends on its inputs (the assertion waits for values)."""
    tracer = STATE.tracer
    return tracer is not None and any(t._id in tracer.dynamic for t in tensors)


def _graph_name(t):
    return STATE.tracer.name_of(t)


def _prefix(message):
    return f"{message}.  " if message else ""


def _shape_and_dtype(t):
    return f"shape={t.shape} dtype={t.dtype.name}"


def _item_text(item, summarize):
    """One entry of a failed binary assertion's data: tensors as a list of element strings, the rest by ``str``."""
    if isinstance(item, Tensor):
        arr = item._value
        if arr.ndim == 0:
            return str(arr[()])
        flat = arr.reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _summarized(t, summarize):
    """How ``tf.debugging.Assert`` prints one data tensor: its first elements, comma-separated."""
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = t._value.size
    arr = t._value
    if arr.ndim:
        flat = arr.reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
    else:
        items = [str(arr[()])] if summarize != 0 else []
    return ", ".join(items)


@export("debugging.Assert", "Assert")
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raise ``InvalidArgumentError`` printing ``data`` when ``condition`` is false (``tf.debugging.Assert``)."""
    if isinstance(condition, Tensor) and _traced(condition, *[d for d in data if isinstance(d, Tensor)]):
        # In a trace: an op of the program, checked each time it runs, printing as TF's graph ``Assert`` does.
        tensors = [condition] + [d for d in data if isinstance(d, Tensor)]
        positions = iter(range(1, len(tensors)))
        graph_data = [next(positions) if isinstance(d, Tensor) else str(d) for d in data]
        execute(ASSERT, tuple(tensors), {"check": _GraphCheck(_holds, graph_data, summarize)})
        return None
    if not condition:
        texts = [_summarized(convert_to_tensor(d), summarize) for d in data]
        raise errors.InvalidArgumentError(
            None, None, "Expected '%s' to be true. Summarized data: %s" % (condition, "\n".join(texts)))
    return None


def _binary(sym, test, x, y, data, summarize, message, graph_data=None, scope="assert", outer=None):
    x = convert_to_tensor(x)
    y = convert_to_tensor(y)
    if _traced(x, y):
        if graph_data is None:
            graph_data = [f"Condition x {sym} y did not hold element-wise:", f"x ({_graph_name(x)}) = ", 0,
                          f"y ({_graph_name(y)}) = ", 1]
        if message is not None:
            graph_data = [message] + list(graph_data)
        # TF's node: the Assert of a cond (``AssertGuard``) in the function's name scope, made unique in the graph
        # (``assert_less_1``; ``assert_positive/assert_less`` for an assertion made of another).
        tracer = STATE.tracer
        path = tracer.scope(scope) if outer is None else tracer.scope(f"{tracer.scope(outer)}/{scope}")
        check = _GraphCheck(test, graph_data, summarize, f"{path}/Assert/AssertGuard/Assert")
        execute(ASSERT, (x, y), {"check": check})
        return None
    ok = test(x, y)
    if ok._value.all():
        return None
    summarize = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
    if data is None:
        data = [f"Condition x {sym} y did not hold."]
        if summarize > 0:
            xv, yv = x._value, y._value
            if xv.shape == yv.shape and xv.ndim:
                # Same shapes (not scalars): where they differ, and the values there.
                bad = ~ok._value
                n = min(summarize, int(bad.sum()))
                data += [f"Indices of first {n} different values:", np.argwhere(bad)[:n],
                         "Corresponding x values:", xv[bad].reshape(-1)[:n],
                         "Corresponding y values:", yv[bad].reshape(-1)[:n]]
            fx, fy = xv.reshape(-1), yv.reshape(-1)
            nx, ny = min(fx.size, summarize), min(fy.size, summarize)
            data += [f"First {nx} elements of x:", fx[:nx], f"First {ny} elements of y:", fy[:ny]]
    if message is not None:
        data = [message] + list(data)
    raise errors.InvalidArgumentError(None, None, "\n".join(_item_text(d, summarize) for d in data))


def _binary_assert(sym, test, doc, scope):
    def api(x, y, message=None, summarize=None, name=None):
        return _binary(sym, test, x, y, None, summarize, message, scope=name or scope)

    api.__doc__ = doc
    return api


assert_equal = export("debugging.assert_equal", "assert_equal")(_binary_assert(
    "==", math_ops.equal, "Raise ``InvalidArgumentError`` unless ``x == y`` everywhere (broadcasting).",
    "assert_equal"))
assert_less = export("debugging.assert_less", "assert_less")(_binary_assert(
    "<", math_ops.less, "Raise ``InvalidArgumentError`` unless ``x < y`` everywhere (broadcasting).",
    "assert_less"))
assert_less_equal = export("debugging.assert_less_equal")(_binary_assert(
    "<=", math_ops.less_equal, "Raise ``InvalidArgumentError`` unless ``x <= y`` everywhere (broadcasting).",
    "assert_less_equal"))
assert_greater = export("debugging.assert_greater", "assert_greater")(_binary_assert(
    ">", math_ops.greater, "Raise ``InvalidArgumentError`` unless ``x > y`` everywhere (broadcasting).",
    "assert_greater"))
assert_greater_equal = export("debugging.assert_greater_equal")(_binary_assert(
    ">=", math_ops.greater_equal, "Raise ``InvalidArgumentError`` unless ``x >= y`` everywhere (broadcasting).",
    "assert_greater_equal"))


@export("debugging.assert_none_equal")
def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x != y`` everywhere (note TF's argument order here)."""
    return _binary("!=", math_ops.not_equal, x, y, None, summarize, message, scope=name or "assert_none_equal")


def _sign_assert(sym, x, message, summarize, zero_first, scope, joined=False):
    x = convert_to_tensor(x)
    head = f"Condition x {sym} 0 did not hold element-wise:"
    name = f"x ({_shape_and_dtype(x)}) = "
    # TF's assert_non_positive runs its two message strings together (no separator between them).
    data = [_prefix(message), head + name, x] if joined else [_prefix(message), head, name, x]
    zero = convert_to_tensor(0, dtype=x.dtype)
    # As TF: everything is a "less" test, with zero on the side that makes it mean ``sym``.
    strict = sym in ("<", ">")
    test = math_ops.less if strict else math_ops.less_equal
    a, b = (zero, x) if zero_first else (x, zero)
    graph_data = None
    if _traced(x):
        at = 1 if zero_first else 0  # x's position among the Assert op's inputs
        named = f"x ({_graph_name(x)}) = "
        graph_data = ([_prefix(message), head + named, at] if joined else [_prefix(message), head, named, at])
    return _binary("<" if strict else "<=", test, a, b, data, summarize, None, graph_data,
                   scope="assert_less" if strict else "assert_less_equal", outer=scope)


@export("debugging.assert_positive")
def assert_positive(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x > 0`` everywhere."""
    return _sign_assert(">", x, message, summarize, zero_first=True, scope=name or "assert_positive")


@export("debugging.assert_negative")
def assert_negative(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x < 0`` everywhere."""
    return _sign_assert("<", x, message, summarize, zero_first=False, scope=name or "assert_negative")


@export("debugging.assert_non_negative")
def assert_non_negative(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x >= 0`` everywhere."""
    return _sign_assert(">=", x, message, summarize, zero_first=True, scope=name or "assert_non_negative")


@export("debugging.assert_non_positive")
def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``x <= 0`` everywhere."""
    return _sign_assert("<=", x, message, summarize, zero_first=False, scope=name or "assert_non_positive",
                        joined=True)


@export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise ``InvalidArgumentError`` unless ``|x - y| < atol + rtol * |y|`` everywhere (TF's strict ``<``).

    ``rtol`` and ``atol`` default to ten machine epsilons of ``x``'s (real) dtype.
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
    eps = np.finfo(dtype.as_numpy_dtype).eps
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=dtype)
    data = [_prefix(message), f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({_shape_and_dtype(x)}) = ", x, f"y ({_shape_and_dtype(y)}) = ", y]
    tol = math_ops.add(atol, math_ops.multiply(rtol, math_ops.abs(y)))
    diff = math_ops.abs(math_ops.subtract(x, y))
    condition = convert_to_tensor(np.bool_(math_ops.less(diff, tol)._value.all()))
    return Assert(condition, data, summarize=summarize)


@export("debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """Raise ``TypeError`` unless ``x`` has an integer dtype."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of dtype {x.dtype}')
    return None


@export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None):
    """Raise ``ValueError`` unless ``tensor`` has rank 0."""
    tensor = convert_to_tensor(tensor)
    if tensor.shape.ndims != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {tensor.shape}.")
    return None


@export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """Raise ``TypeError`` unless ``tensor`` has dtype ``tf_type``."""
    tf_type = as_dtype(tf_type)
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        raise TypeError(f"{_prefix(message)}tensor must be of type {tf_type!r}; got {tensor.dtype!r}")
    return None


def _static_ranks(ranks):
    out = []
    for r in ranks:
        r = convert_to_tensor(r)
        assert_type(r, int32)
        if r._value.ndim != 0:
            raise ValueError("Rank must be a scalar.")
        out.append(int(r._value))
    return out


@export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, message=None, name=None):
    """Raise ``ValueError`` unless ``x`` has rank ``rank`` (a scalar int32)."""
    x = convert_to_tensor(x)
    (want,) = _static_ranks([rank])
    if x.shape.ndims != want:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {want}.  Received rank {x.shape.ndims}, "
                         f"shape {x.shape}")
    return None


@export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise ``ValueError`` unless ``x`` has rank ``rank`` or more."""
    x = convert_to_tensor(x)
    (want,) = _static_ranks([rank])
    if x.shape.ndims < want:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {want}.  Received rank "
                         f"{x.shape.ndims}, shape {x.shape}")
    return None


@export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None):
    """Raise ``ValueError`` unless the rank of ``x`` is one of ``ranks``."""
    x = convert_to_tensor(x)
    wants = tuple(_static_ranks(ranks))
    if x.shape.ndims not in wants:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {wants}.  Received rank {x.shape.ndims}, "
                         f"shape {x.shape}")
    return None


def _known(size):
    if size is None:
        return False
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return True


@export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Raise ``ValueError`` unless the tensors' shapes fit the symbolic ``shapes``.

    ``shapes`` maps (or lists pairs of) tensors to shapes whose entries are integers (sizes), names (sizes that
    must agree across tensors), ``None`` or ``"."`` (any size), with a leading ``...`` or ``"*"`` for any number
    of outer dimensions. A scalar counts as a vector of size 1, as in TF.
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _prefix(message)
    checks = []
    for x, spec in shapes:
        if spec is None:
            continue
        x = convert_to_tensor(x)
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {_shape_and_dtype(x)}.  Specified shape must be an iterable.  An "
                             f"iterable has the attribute `__iter__` or `__getitem__`.  Received specified shape: "
                             f"{spec}")
        spec = tuple(spec)
        outer = False
        for i, sym in enumerate(spec):
            if sym is Ellipsis or (isinstance(sym, str) and sym == "*"):
                if i != 0:
                    raise ValueError(f"{prefix}Tensor {_shape_and_dtype(x)} specified shape index {i}.  Symbol `...` "
                                     "or `*` for a variable number of unspecified dimensions is only allowed as the "
                                     "first entry")
                outer = True
        symbols = spec[1:] if outer else spec
        checks.append((x, outer, symbols or (1,)))
    for x, outer, symbols in checks:
        rank = len(symbols)
        if outer:
            if rank > 1:
                assert_rank_at_least(x, rank, message=message)
        elif rank in (0, 1):
            assert_rank_in(x, [0, 1], message=message)
        else:
            assert_rank(x, rank, message=message)
    seen = {}
    for x, outer, symbols in checks:
        sizes = (1,) if x.shape.ndims == 0 else tuple(x.shape.as_list())
        for i, sym in enumerate(symbols):
            if sym is None or (isinstance(sym, str) and sym == "."):
                continue
            dim = i - len(symbols) if outer else i
            if _known(sym) or sym in seen:
                if _known(sym):
                    want, why = int(sym), "Specified explicitly"
                else:
                    want, by, at = seen[sym]
                    why = f"Specified by tensor {_shape_and_dtype(by)} dimension {at}"
                if int(sizes[dim]) != want:
                    raise ValueError(f"{prefix}{why}.  Tensor {_shape_and_dtype(x)} dimension {dim} must have size "
                                     f"{want}.  Received size {sizes[dim]}, shape {x.shape}")
            else:
                seen[sym] = (int(sizes[dim]), x, dim)
    return None


@export("debugging.assert_proper_iterable")
def assert_proper_iterable(values):
    """Raise ``TypeError`` if ``values`` is not iterable, or is a tensor, array, string or bytes."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')
    return None


@export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``), ``float32`` if neither is given; else
    ``ValueError``."""
    if tensors:
        expected = dtype
        first_text = None
        for t in tensors:
            if t is None:
                continue
            kind = t.dtype.base_dtype
            if not expected:
                expected, first_text = kind, str(t)
            elif expected != kind:
                raise ValueError(f"{t!s}, type={kind}, must be of the same type ({expected})"
                                 f"{f' as {first_text}' if first_text else ''}.")
        dtype = expected
    if not dtype:
        return float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype

"""How the op set's public functions take a ``RaggedTensor``.

Two ways, both cheap for dense tensors:

- the hot elementwise math, reductions, ``concat``, ``gather``, ``where`` ... test their arguments inline and call
  the hooks below (``ragged_ops.py`` does the work);
- every other function TF dispatches for ragged tensors is listed in :data:`API`: when a namespace module installs
  its names (``exports.install``), each listed function is wrapped so that a call with a ragged argument (or a
  ``DynamicRaggedShape``) goes to its ragged version in ``ragged_api.py``, loaded on the first such call. The table
  is the list of what works on ragged tensors, in one place.
"""

from __future__ import annotations

import functools
import importlib

__all__ = ["is_ragged", "binary", "unary", "reduce", "API", "RAGGED_TYPES", "register", "wrap"]

# The classes that send a call to the ragged version (``ragged_tensor.py`` and ``ragged_shape.py`` add theirs,
# with :func:`register`).
RAGGED_TYPES = set()


def register(cls):
    """Let instances of ``cls`` send calls of the listed functions to their ragged versions."""
    RAGGED_TYPES.add(cls)
    _LOOK.add(cls)

_E, _B = "elementwise", "binary_elementwise"
_STRING_OPS = ("length", "upper", "lower", "strip", "substr", "regex_full_match", "regex_replace", "as_string",
               "to_number", "to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "unicode_transcode",
               "join")
_BINARY_MATH = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "multiply_no_nan", "xlogy",
                "xdivy", "xlog1py", "squared_difference", "div_no_nan", "divide_no_nan", "truncatediv",
                "truncatemod", "atan2", "logical_and", "logical_or", "logical_xor")
_SEGMENTS = {"sum": "Sum", "max": "Max", "min": "Min", "prod": "Prod", "mean": "Mean", "sqrt_n": "SqrtN"}

# "namespace.name" ("" for top-level tf) -> the ragged version's name in ragged_api (``"kind:arg"`` for one made
# by a factory there, ``unsorted_segment("Sum")``).
API = {
    **{f"strings.{n}": _E for n in _STRING_OPS},
    "strings.reduce_join": "reduce_join", "strings.format": "string_format",
    "io.encode_base64": _E, "io.decode_base64": _E,
    "debugging.check_numerics": _E, "clip_by_value": _E, "saturate_cast": _E, "dtypes.saturate_cast": _E,
    "bitcast": _E, "nn.dropout": _E, "math.scalar_mul": "binary_elementwise", "scalar_mul": "binary_elementwise",
    "math.is_nan": _E, "math.is_inf": _E, "math.is_finite": _E,
    "add_n": "add_n", "math.add_n": "add_n",
    **{f"math.{n}": _B for n in _BINARY_MATH}, **{n: _B for n in ("equal", "not_equal", "less", "less_equal",
                                                                   "greater", "greater_equal", "logical_and",
                                                                   "logical_or", "truncatediv", "truncatemod")},
    "nn.sigmoid_cross_entropy_with_logits": "sigmoid_cross_entropy_with_logits",
    "tile": "tile", "reverse": "reverse", "expand_dims": "expand_dims", "squeeze": "squeeze", "rank": "rank",
    "size": "size", "one_hot": "one_hot", "nn.embedding_lookup": "embedding_lookup", "split": "split",
"math.cumsum": "cumsum", "cumsum": "cumsum",
    **{f"math.unsorted_segment_{n}": f"unsorted_segment:{k}" for n, k in _SEGMENTS.items()},
    "gather_nd": "gather_nd", "matmul": "matmul", "linalg.matmul": "matmul",
    "reshape": "reshape_ragged", "zeros": "shaped:zeros", "ones": "shaped:ones", "fill": "shaped:fill",
    "nn.softmax": "softmax", "math.softmax": "softmax", "math.bincount": "bincount",
    "debugging.assert_equal": "assert_equal", "assert_equal": "assert_equal", "map_fn": "map_fn",
}


# The types whose presence sends a call to the slow check: the ragged ones, and the sequences that may hold them.
_LOOK = {list, tuple}


def _holds_ragged(values):
    types = RAGGED_TYPES
    for a in values:
        t = type(a)
        if t in types:
            return True
        if t is list or t is tuple:
            for b in a:
                if type(b) in types:
                    return True
    return False


_WRAPPED = {}  # id(original) -> its wrapper (one per function, whatever names it is installed under)


def wrap(path, fn):
    """``fn`` (installed as ``tf.<path>``) wrapped to send ragged arguments to its ragged version, if listed."""
    kind = API.get(path)
    if kind is None or not callable(fn):
        return fn
    known = _WRAPPED.get(id(fn))
    if known is not None:
        return known
    name, _, arg = kind.partition(":")
    handler = []

    look = _LOOK

    @functools.wraps(fn)
    def api(*args, **kwargs):
        # The dense path costs one set lookup per argument (the types are the same few every call).
        for a in args:
            if type(a) in look:
                break
        else:
            if not kwargs:
                return fn(*args)
            for a in kwargs.values():
                if type(a) in look:
                    break
            else:
                return fn(*args, **kwargs)
        if _holds_ragged(args) or (kwargs and _holds_ragged(kwargs.values())):
            if not handler:
                module = importlib.import_module(".ragged_api", __package__)
                made = getattr(module, name)
                handler.append(made(arg) if arg else made)
            return handler[0](fn, *args, **kwargs)
        return fn(*args, **kwargs)

    api._tapeflow_dense = fn  # (the function the wrapper serves)
    _WRAPPED[id(fn)] = api
    return api


def is_ragged(value):
    return getattr(value, "_tapeflow_ragged", False)


def binary(fn, x, y):
    """``fn(x, y)`` with ``x`` or ``y`` ragged."""
    from .ragged_ops import binary as ragged_binary  # noqa: PLC0415

    return ragged_binary(fn, x, y)


def unary(fn, rt, *args, **kwargs):
    """``fn`` on the flat values of ``rt`` (every elementwise op of one tensor applies to a ragged one)."""
    return rt.with_flat_values(fn(rt.flat_values, *args, **kwargs))


def reduce(kind, rt, axis, keepdims):
    from .ragged_ops import reduce as ragged_reduce  # noqa: PLC0415

    return ragged_reduce(kind, rt, axis, keepdims)

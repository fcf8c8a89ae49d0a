"""Keras 3's type promotion (``keras.backend.result_type``): the dtype its ops compute in when operands differ.

Keras does not follow TF here (TF never promotes between tensors): it promotes on JAX's lattice, where ``bool`` sits
below every integer, unsigned and signed integers meet at the next wider signed one (``uint8`` and ``int8`` give
``int16``), every integer sits below every float (``int64`` and ``float16`` give ``float16``), and ``float16`` and
``bfloat16`` meet at ``float32``. Python ``int`` and ``float`` are *weak*: they take the other operand's kind when
it has one (``int32`` and ``float`` give ``float32``, ``bfloat16`` and ``int`` give ``bfloat16``). As in Keras on
TensorFlow, a weak result takes 32 bits and ``uint64`` becomes ``uint32``.
"""

from __future__ import annotations

import functools

__all__ = ["result_type", "operand_dtype"]

# Each dtype and its immediate successors on the lattice ("int" and "float" are the weak Python types).
_LATTICE = {
    "bool": ("int",),
    "int": ("uint8", "int8", "complex64"),
    "uint8": ("int16", "uint16"),
    "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"),
    "uint64": ("float",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("float",),
    "float": ("bfloat16", "float16"),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "complex64": ("complex128",),
    "complex128": (),
}


def _upper_bounds():
    bounds = {}
    for node in _LATTICE:
        seen, todo = {node}, [node]
        while todo:
            for up in _LATTICE[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        bounds[node] = seen
    return bounds


_UPPER = _upper_bounds()
_WIDE_TO_32 = {"uint64": "uint32"}  # what Keras's TF backend keeps of its 64-to-32-bit map


@functools.lru_cache(maxsize=256)
def _least_upper_bound(nodes):
    common = set.intersection(*(_UPPER[n] for n in nodes))
    least = (common & set(nodes)) or {c for c in common if common <= _UPPER[c]}
    if len(least) != 1:
        raise ValueError(f"Input dtypes {tuple(nodes)} have no available implicit dtype promotion path. Try "
                         "explicitly casting inputs to the desired output type.")
    return least.pop()


def _weak(name):
    return "bool" if name == "bool" else ("float" if "float" in name else ("int" if "int" in name else "complex"))


def _resolve_weak(name):
    if name == "bool":
        return name
    kind = "f" if name == "bfloat16" else name[:1]
    return {"i": "int32", "u": "uint32", "c": "complex64"}.get(kind, "float32")


def operand_dtype(x):
    """``(dtype name, weak)`` of an operand: tensors, arrays and variables by their dtype; Python ``int`` and
    ``float`` values (and the types themselves) are weak, Python ``bool`` is ``bool``."""
    if x is int or x is float:
        return ("int64" if x is int else "float32"), True
    if isinstance(x, bool) or x is bool:
        return "bool", False
    if isinstance(x, (int, float)):
        return ("int64" if isinstance(x, int) else "float32"), True
    dtype = getattr(x, "dtype", x)
    return getattr(dtype, "name", None) or str(dtype), False


def result_type(*dtypes):
    """The dtype Keras computes ``dtypes`` in: names, ``DType`` s, tensors, or the Python types ``int``, ``float``
    and ``bool``; no argument gives ``"float32"``.

    Raises:
        ValueError: for dtypes with no promotion path (Keras's message).
    """
    if not dtypes:
        return "float32"
    typed = [operand_dtype(d) for d in dtypes]
    names = tuple(name for name, _ in typed)
    weak = tuple(w for _, w in typed)
    if len(typed) == 1:
        out, out_weak = names[0], weak[0]
    elif len(set(names)) == 1 and not all(weak):
        out, out_weak = names[0], False
    elif all(weak):
        out, out_weak = _least_upper_bound(tuple(sorted(set(names)))), True
    else:
        nodes = {_weak(n) if w else n for n, w in zip(names, weak)}
        out = _least_upper_bound(tuple(sorted(nodes)))
        out_weak = out in ("int", "float")
    if out != "bool" and out_weak:
        out = _resolve_weak(out)
    return _WIDE_TO_32.get(out, out)

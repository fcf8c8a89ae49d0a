"""``tf.experimental``: the NumPy API on tensors (``tf.experimental.numpy``), loaded on first use."""

import importlib as _importlib

_LAZY = ("numpy",)


def __getattr__(name):
    if name in _LAZY:
        module = _importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

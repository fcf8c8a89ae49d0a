"""The optional libraries features stand on (``protobuf`` for ``tf.train.Example``, ``threadpoolctl`` for thread
settings ...), imported on first use: the NumPy-only core never needs them, and a feature that does says which
extra installs them."""

from __future__ import annotations

import importlib

__all__ = ["require"]


def require(module, feature, extra="tfrecord"):
    """``module`` imported, or an ``ImportError`` naming ``feature`` and the extra that installs ``module``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{feature} needs the optional dependency `{module.split('.')[0]}`: install it with "
                          f"`pip install 'tapeflow[{extra}]'` (or `tapeflow[all]`).") from None

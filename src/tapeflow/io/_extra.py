"""The optional libraries the TFRecord and ``tf.train.Example`` support stands on, imported on first use.

The NumPy-only core never needs them; a feature that does says which extra installs them.
"""

from __future__ import annotations

import importlib

__all__ = ["require"]

_EXTRA = "tfrecord"


def require(module, feature):
    """``module`` imported, or an ``ImportError`` naming ``feature`` and the extra that installs ``module``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{feature} needs the optional dependency `{module.split('.')[0]}`: install it with "
                          f"`pip install 'tapeflow[{_EXTRA}]'` (or `tapeflow[all]`).") from None

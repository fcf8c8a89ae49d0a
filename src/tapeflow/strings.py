"""``tf.strings``: the ops on string tensors (``tapeflow/ops/string_ops.py``, ``string_format_ops.py``,
``string_regex.py``, ``string_hash.py`` and ``unicode_ops.py``)."""

from . import ops as _ops  # noqa: F401 - every op module runs its @export lines first
from ._core.exports import install as _install

_install(globals(), "strings")

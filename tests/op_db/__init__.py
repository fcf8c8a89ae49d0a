"""The op database: one entry per registered primitive (``tapeflow._core.registry.REGISTRY``), OpInfo style.

``common.py`` defines the entries (:class:`OpEntry`) and the sample helpers; each family module adds the entries
for its ops with :func:`op`. ``DB`` maps op names to entries for the registry-driven tests (``test_op_db.py``).
"""

from __future__ import annotations

from . import (  # noqa: F401  (each module appends its entries to OP_DB)
    activation,
    asserting,
    conv,
    counting,
    elementwise,
    foundation,
    gather,
    generator,
    io_ops,
    linalg,
    manip,
    nn,
    numerics,
    partition,
    printing,
    ragged,
    random,
    reduction,
    segment,
    shape_like,
    sort,
    sparse,
    stateless_random,
    strings,
    tensor_array,
)
from .common import OP_DB, OpEntry, Sample, registry_name

__all__ = ["Sample", "OpEntry", "OP_DB", "DB", "registry_name"]

DB: dict[str, OpEntry] = {e.name: e for e in OP_DB}
assert len(DB) == len(OP_DB), "duplicate op entries"

"""The op modules. Importing this package runs every ``@defop`` and ``@export`` line.

Each module imports what it builds on itself, so the order here does not matter.
"""

from .._core import exports as _exports
from .._core import primitives as _primitives
from . import (  # noqa: F401
    _ragged_dispatch,
    activation_ops,
    array_ops,
    assert_ops,
    cast_ops,
    clip_ops,
    construct_ops,
    control_flow_ops,
    conv3d_ops,
    conv_ops,
    counting_ops,
    decomp_ops,
    distribute_losses,
    einsum_ops,
    elementwise_ops,
    embedding_sparse_ops,
    functional_ops,
    gather_ops,
    generator_ops,
    linalg_ops,
    manip_ops,
    math_ops,
    nn_ops,
    numerics_mode,
    numerics_ops,
    operators,
    pad_ops,
    partition_ops,
    pool3d_ops,
    print_ops,
    ragged_convert,
    ragged_cross,
    ragged_ops,
    ragged_shape,
    ragged_tensor,
    random_ops,
    reduction_ops,
    segment_ops,
    shape_like_ops,
    sort_ops,
    sparse_manip_ops,
    sparse_ops,
    stateless_random_ops,
    string_format_ops,
    string_hash,
    string_ops,
    string_regex,
    tensor_array,
    unicode_ops,
    variable_methods,
)

# A namespace module's installed functions send ragged arguments to their ragged versions (``_ragged_dispatch``).
_exports.add_install_hook(_ragged_dispatch.wrap)

# The core emits some primitives itself (accumulating, unbroadcasting ...): look them up now, so that a missing one
# fails at import rather than in the middle of a backward pass.
_primitives.bind()


def _jvp_rules():
    from . import jvp_rules  # noqa: F401, PLC0415 - registers the own JVP rules (forward mode's first use)


def _batching_rules():
    from . import batching_rules  # noqa: PLC0415 - the jacobian's batched rules (its first use)

    return batching_rules


_primitives.provide("jvp", _jvp_rules)
_primitives.provide("batching", _batching_rules)

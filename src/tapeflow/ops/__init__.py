"""The op modules. Importing this package runs every ``@defop`` and ``@export`` line.

Each module imports what it builds on itself, so the order here does not matter.
"""

from . import (  # noqa: F401
    activation_ops,
    array_ops,
    assert_ops,
    clip_ops,
    construct_ops,
    conv3d_ops,
    conv_ops,
    decomp_ops,
    einsum_ops,
    elementwise_ops,
    gather_ops,
    linalg_ops,
    manip_ops,
    math_ops,
    nn_ops,
    numerics_mode,
    numerics_ops,
    operators,
    pad_ops,
    pool3d_ops,
    random_ops,
    reduction_ops,
    segment_ops,
    sort_ops,
)

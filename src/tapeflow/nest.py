"""``tf.nest``: nested structures of lists, tuples and dicts."""

from ._core.nest import assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]

"""``tf.nest``: flatten and rebuild nested structures of lists, tuples, dicts and namedtuples.

Dict keys are visited in sorted order, as TensorFlow does, so a structure and its flattening always agree.

A structure that contains itself (``a = [1.0]; a.append(a)``) has no flattening. As in TF, every walk here is
bounded by Python's recursion limit, counted from the caller's stack depth, and raises ``RecursionError`` when
it gets there: a cycle fails at once instead of growing a list until memory runs out.
"""

from __future__ import annotations

import sys

__all__ = ["flatten", "pack_sequence_as", "map_structure", "is_nested", "is_composite", "assert_same_structure"]


def is_nested(structure) -> bool:
    """Whether ``structure`` is a list, tuple or dict (a container ``flatten`` descends into)."""
    return isinstance(structure, (list, tuple, dict))


def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _is_flat(seq):
    for x in seq:
        if isinstance(x, (list, tuple, dict)):
            return False
    return True


def is_composite(value) -> bool:
    """Whether ``value`` is a composite tensor (a ``SparseTensor``): several tensors behind one object, which
    ``expand_composites`` walks into through its ``_components()`` and rebuilds with ``_from_components``."""
    return getattr(value, "_tapeflow_composite", False)


def _expanded(structure):
    """Whether ``structure`` holds a composite tensor anywhere."""
    if is_composite(structure):
        return True
    return is_nested(structure) and any(_expanded(c) for c in _children(structure))


def _flatten_expanding(structure, out):
    if is_composite(structure):
        out.extend(structure._components())
    elif is_nested(structure):
        for child in _children(structure):
            _flatten_expanding(child, out)
    else:
        out.append(structure)
    return out


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order, as a list (a leaf alone gives ``[leaf]``); with
    ``expand_composites``, a composite tensor's component tensors stand in its place."""
    if expand_composites and _expanded(structure):
        return _flatten_expanding(structure, [])
    if not is_nested(structure):
        return [structure]
    t = type(structure)
    if (t is list or t is tuple) and _is_flat(structure):
        return list(structure)  # the common flat case, without the walk
    out = []
    stack = [iter(_children(structure))]
    bound = _CHECK_FROM
    while stack:
        for item in stack[-1]:
            if is_nested(item):
                stack.append(iter(_children(item)))
                if len(stack) > bound:
                    bound = _depth_bound(len(stack), bound, "flatten")
                break
            out.append(item)
        else:
            stack.pop()
    return out


# Structures are rarely nested deeper than this: only past it is the stack depth measured (once per walk).
_CHECK_FROM = 64


def _depth_bound(depth, bound, where):
    """The nesting depth a walk may reach: Python's recursion limit less the caller's stack depth (TF's C++ walks
    count against the same limit). Raises ``RecursionError`` once ``depth`` passes it."""
    if bound == _CHECK_FROM:
        frame, used = sys._getframe(2), 0
        while frame is not None:
            used += 1
            frame = frame.f_back
        # TF's walk runs below four frames of its own Python wrappers, which count against the limit too.
        bound = max(sys.getrecursionlimit() - used - 4, _CHECK_FROM)
    if depth > bound:
        raise RecursionError(f"maximum recursion depth exceeded in {where}")
    return bound


def _rebuild(structure, leaves, pos, expand=False):
    if expand and is_composite(structure):
        n = len(structure._components())
        return structure._from_components(leaves[pos:pos + n]), pos + n
    if not is_nested(structure):
        return leaves[pos], pos + 1
    if isinstance(structure, dict):
        values = {}
        for k in _sorted_keys(structure):
            values[k], pos = _rebuild(structure[k], leaves, pos, expand)
        return type(structure)((k, values[k]) for k in structure), pos
    items = []
    for child in structure:
        value, pos = _rebuild(child, leaves, pos, expand)
        items.append(value)
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items), pos
    return type(structure)(items), pos


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Rebuild ``structure`` with the leaves taken in order from ``flat_sequence`` (with ``expand_composites``,
    each composite tensor from as many leaves as it has components)."""
    if expand_composites and _expanded(structure):
        flat_sequence = list(flat_sequence)
        n = len(flatten(structure, expand_composites=True))
        if n != len(flat_sequence):
            raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                             f"{len(flat_sequence)} items.")
        return _rebuild(structure, flat_sequence, 0, expand=True)[0]
    t = type(structure)
    if (t is list or t is tuple) and len(structure) == len(flat_sequence) and _is_flat(structure):
        return t(flat_sequence)
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.")
    return _rebuild(structure, flat_sequence, 0)[0]


def assert_same_structure(nest1, nest2, check_types=True):
    """Raise ``ValueError`` unless the two structures nest the same way."""
    _assert_same(nest1, nest2, check_types, 1, [_CHECK_FROM])


def _assert_same(nest1, nest2, check_types, depth, bound):
    if depth > bound[0]:
        bound[0] = _depth_bound(depth, bound[0], "assert_same_structure")
    if is_nested(nest1) != is_nested(nest2):
        raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: {nest1}"
                         f"\n\nSecond structure: {nest2}")
    if is_nested(nest1):
        if check_types and type(nest1) is not type(nest2):
            raise TypeError(f"The two structures don't have the same sequence type. First structure has type "
                            f"{type(nest1)}, while second structure has type {type(nest2)}.")
        c1, c2 = _children(nest1), _children(nest2)
        if len(c1) != len(c2):
            raise ValueError(f"The two structures don't have the same number of elements.\n\nFirst structure: "
                             f"{nest1}\n\nSecond structure: {nest2}")
        for a, b in zip(c1, c2):
            _assert_same(a, b, check_types, depth + 1, bound)


def map_structure(func, *structures, **kwargs):
    """Apply ``func`` to corresponding leaves of ``structures``; return a structure like the first."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, kwargs.get("check_types", True))
    expand = kwargs.get("expand_composites", False)
    flats = [flatten(s, expand) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)], expand)

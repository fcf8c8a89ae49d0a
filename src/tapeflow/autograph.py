"""``tf.autograph``: AutoGraph's conversion of Python control flow on tensors, by hand (``tf.function`` applies it
to the functions it traces; see ``compiler/autograph.py``)."""

from __future__ import annotations

import types

__all__ = ["to_code", "to_graph", "experimental"]


def _converter():
    from .compiler import autograph  # noqa: PLC0415 - the compiler loads on first use

    return autograph


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` (a function or method) with its ``if``/``while``/``for`` converted: on tensors they become
    ``tf.cond``/``tf.while_loop`` when it runs inside a traced function."""
    converted = _converter().convert(entity)
    if converted is entity and _converter().is_convertible(getattr(entity, "__func__", entity)):
        raise ValueError(f"Unable to locate the source code of {entity!r}. Note that functions defined in certain "
                         "environments, like the interactive Python shell, do not expose their source code.")
    return converted


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The Python source of ``entity`` as AutoGraph converts it (the code :func:`to_graph` runs)."""
    autograph = _converter()
    fn = getattr(entity, "__func__", entity)
    source = autograph.converted_source(fn)
    if source is None:
        raise ValueError(f"Unable to locate the source code of {entity!r}. Note that functions defined in certain "
                         "environments, like the interactive Python shell, do not expose their source code.")
    return source


def _do_not_convert(func=None):
    """Decorator: run ``func`` as written, never converted by AutoGraph
    (``tf.autograph.experimental.do_not_convert``)."""
    if func is None:
        return _do_not_convert
    target = getattr(func, "__func__", func)
    try:
        target.__ag_do_not_convert__ = True
    except AttributeError:  # a builtin or a callable object: AutoGraph never converts those anyway
        pass
    return func


experimental = types.SimpleNamespace(do_not_convert=_do_not_convert)

"""Which strategy is current, per thread, and in which context: TensorFlow's rules.

Outside any strategy the *default strategy* is current and code runs in its *replica context* (one replica).
``strategy.scope()`` enters the strategy's *cross-replica context*; ``strategy.run(fn)`` calls ``fn`` in a
*replica context* of the strategy. The stack below holds ``(strategy, replica_context_or_None)`` entries.

This module imports nothing heavy: ``tf.nn.compute_average_loss``, Keras losses and optimizers ask it whether a
strategy is current without loading MPI.
"""

from __future__ import annotations

import threading

__all__ = ["current", "push", "pop", "default_strategy"]


class _Stack(threading.local):
    def __init__(self):
        self.entries = []


_STACK = _Stack()
_DEFAULT = []


def default_strategy():
    """The default strategy (made on first use)."""
    if not _DEFAULT:
        from .strategies import _DefaultDistributionStrategy

        _DEFAULT.append(_DefaultDistributionStrategy())
    return _DEFAULT[0]


def current():
    """``(strategy, replica_context)`` on top of the stack, or ``(None, None)`` outside every strategy."""
    entries = _STACK.entries
    return entries[-1] if entries else (None, None)


def push(strategy, replica_context):
    _STACK.entries.append((strategy, replica_context))


def pop():
    _STACK.entries.pop()


def num_replicas_in_sync():
    """The current strategy's replica count (1 outside every strategy)."""
    strategy, _ = current()
    return 1 if strategy is None else strategy.num_replicas_in_sync

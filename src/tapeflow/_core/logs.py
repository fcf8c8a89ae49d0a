"""The ``tensorflow`` logger (``tf.get_logger()``) and TF's ``log_first_n``.

tapeflow logs under the name ``tensorflow`` so that programs which configure TF's logger
(``tf.get_logger().setLevel("ERROR")``) configure tapeflow's, and messages print as TF prints them
(``WARNING:tensorflow:<text>`` on stderr). ``logging`` is imported on first use to keep ``import tapeflow`` fast.
"""

from __future__ import annotations

__all__ = ["get_logger", "log_first_n"]

_logger = None
_counts = {}


def get_logger():
    """The ``tensorflow`` ``logging.Logger``, with TF's stderr handler when the root logger has none."""
    global _logger
    if _logger is None:
        import logging
        import sys

        logger = logging.getLogger("tensorflow")
        if not logging.getLogger().handlers and not logger.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
    return _logger


def log_first_n(level, message, n, key):
    """Log ``message`` at ``level`` (a name such as ``"WARNING"``) the first ``n`` times ``key`` is seen."""
    count = _counts.get(key, 0)
    if count < n:
        _counts[key] = count + 1
        logger = get_logger()
        logger.log(getattr(__import__("logging"), level), message)

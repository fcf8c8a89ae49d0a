"""``tf.debugging``: numerics checks (``check_numerics``, ``enable_check_numerics``) and the ``assert_*`` family.

The functions live with the ops (``ops/numerics_ops.py``, ``ops/numerics_mode.py``, ``ops/assert_ops.py``) and
are exported here; ``tf.math.is_non_decreasing`` and ``is_strictly_increasing`` sit in ``tf.math`` as in TF.
"""

__all__ = [
    "disable_traceback_filtering", "enable_traceback_filtering", "is_traceback_filtering_enabled",
    "get_log_device_placement", "set_log_device_placement",
]

# TF's switches for trimming its own frames from tracebacks and for logging op placement. tapeflow raises from
# plain Python (nothing to filter) and runs every op on the CPU, so they only keep the state TF reports.
_SETTINGS = {"traceback_filtering": True, "log_device_placement": False}


def enable_traceback_filtering():
    """Turn traceback filtering on (the default); reported by :func:`is_traceback_filtering_enabled`."""
    _SETTINGS["traceback_filtering"] = True


def disable_traceback_filtering():
    """Turn traceback filtering off; reported by :func:`is_traceback_filtering_enabled`."""
    _SETTINGS["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    """Whether traceback filtering is on (``True`` unless disabled)."""
    return _SETTINGS["traceback_filtering"]


def set_log_device_placement(enabled):
    """Record whether op placement should be logged (every tapeflow op runs on the CPU)."""
    _SETTINGS["log_device_placement"] = bool(enabled)


def get_log_device_placement():
    """Whether :func:`set_log_device_placement` turned placement logging on."""
    return _SETTINGS["log_device_placement"]


from . import ops as _ops  # noqa: E402, F401 - every op module runs its @export lines first
from ._core.exports import install as _install  # noqa: E402

_install(globals(), "debugging")

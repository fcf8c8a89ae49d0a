"""``tf.device``: device scopes, parsed and checked as TF parses device strings, placing nothing elsewhere (every
op runs on the CPU, TF's soft placement on a machine without accelerators)."""

from __future__ import annotations

import contextlib

__all__ = ["device"]

_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _check(spec):
    """Raise TF's ``ValueError`` for a device string TF's ``DeviceSpec`` cannot parse."""
    for part in spec.split("/"):
        if not part:
            continue
        fields = part.split(":")
        if len(fields) == 2 and fields[0] in ("job", "replica", "task"):
            continue
        if len(fields) == 3 and fields[0] == "device" and (fields[1].upper() in _TYPES or fields[1] == "*"):
            continue
        if len(fields) in (1, 2) and (fields[0].upper() in _TYPES or fields[0] == "*"):
            continue
        raise ValueError(f"Unknown attribute '{fields[0]}' is encountered while parsing the device spec: "
                         f"'{spec}'.")


@contextlib.contextmanager
def _scope():
    yield


def device(device_name):
    """A scope whose ops TF would place on ``device_name`` (``"/CPU:0"``, ``"/GPU:0"``, ``"/job:localhost/..."``);
    here every op runs on the CPU, so the scope only checks the name (``tf.device``)."""
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
    if device_name is not None:
        _check(str(getattr(device_name, "to_string", lambda: device_name)()))
    return _scope()

"""The switches ``experimental_enable_numpy_behavior`` sets, read by the functions of ``tf.experimental.numpy``.

TF keeps them process-wide: the dtype conversion mode (``"off"`` until NumPy behavior is enabled, then
``"legacy"``, ``"safe"`` or ``"all"``), whether Python floats become float32 (``prefer_float32``), and whether
tensors have NumPy's methods.
"""

from __future__ import annotations

MODES = ("off", "legacy", "safe", "all")


class _State:
    __slots__ = ("mode", "prefer_float32", "methods")

    def __init__(self):
        self.mode = "off"
        self.prefer_float32 = False
        self.methods = False


STATE = _State()


def auto_conversion() -> bool:
    """Whether the mode is one of TF's "auto dtype conversion" modes (``safe`` or ``all``), with weak types."""
    return STATE.mode == "safe" or STATE.mode == "all"


def mode_name(mode=None) -> str:
    """TF's spelling of a mode in its messages (``PromoMode.SAFE``)."""
    return f"PromoMode.{(mode or STATE.mode).upper()}"

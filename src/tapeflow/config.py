"""``tf.config``: how functions run (``run_functions_eagerly``), the devices there are (one CPU), threads, and the
optimizer and determinism switches programs set.

tapeflow runs every op on the CPU, as TF does on a machine without accelerators: ``list_physical_devices`` names
one ``CPU``, a ``tf.device`` scope for another device is accepted and places nothing elsewhere (TF's soft
placement), and GPU lists are empty. ``threading.set_intra_op_parallelism_threads`` sets how many threads the BLAS
library under NumPy uses, through ``threadpoolctl`` (the ``threads`` extra); unlike TF it may be called at any
time, since there is no runtime to initialise.
"""

from __future__ import annotations

import collections
import types

__all__ = ["run_functions_eagerly", "functions_run_eagerly", "PhysicalDevice", "LogicalDevice",
           "LogicalDeviceConfiguration",
           "list_physical_devices", "list_logical_devices", "get_visible_devices", "set_visible_devices",
           "get_logical_device_configuration", "set_logical_device_configuration", "get_soft_device_placement",
           "set_soft_device_placement", "experimental", "threading", "optimizer"]


def run_functions_eagerly(run_eagerly):
    """Run every ``tf.function`` as plain Python (``True``), for debugging with prints and ``.numpy()``."""
    from .compiler import tf_function as function

    function.run_functions_eagerly(run_eagerly)


def functions_run_eagerly():
    """Whether ``tf.function``\\ s run as plain Python (:func:`run_functions_eagerly`)."""
    from .compiler import tf_function as function

    return function.functions_run_eagerly()


# --- devices -------------------------------------------------------------------------------------------------

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_SETTINGS = {"soft_placement": True, "intra": 0, "inter": 0, "jit": "", "determinism": False, "options": {}}
_DEFAULT_OPTIONS = {"disable_model_pruning": False, "disable_meta_optimizer": False}


def list_physical_devices(device_type=None):
    """The physical devices of ``device_type`` (all when ``None``): the one CPU (``tf.config``)."""
    return [_CPU] if device_type is None or str(device_type).upper() == "CPU" else []


LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    defaults=(None, None, None))
LogicalDeviceConfiguration.__doc__ = "One logical device to make of a physical one (``tf.config``)."
_LOGICAL = {"configuration": None, "initialized": False}


def _reset_logical_devices():
    """One CPU again, configurable again (what a new process starts with; for tests)."""
    _LOGICAL.update(configuration=None, initialized=False)


def list_logical_devices(device_type=None):
    """The logical devices of ``device_type``: the CPU, or the CPUs ``set_logical_device_configuration`` made of
    it (listing them fixes the configuration, as TF's runtime starts then)."""
    _LOGICAL["initialized"] = True
    if device_type is not None and str(device_type).upper() != "CPU":
        return []
    n = len(_LOGICAL["configuration"] or [None])
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(n)]


def get_visible_devices(device_type=None):
    """The devices ops may run on: the one CPU."""
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepted: there is one device, the CPU, and it stays visible (hiding GPUs hides nothing)."""
    for d in [devices] if isinstance(devices, PhysicalDevice) or not isinstance(devices, (list, tuple)) else devices:
        if not isinstance(d, PhysicalDevice):
            raise ValueError(f"Unrecognized device: {d!r}")


def get_logical_device_configuration(device):
    """The logical devices configured for ``device`` (``None`` until set)."""
    _check_device(device)
    configuration = _LOGICAL["configuration"]
    return None if configuration is None else list(configuration)


def set_logical_device_configuration(device, logical_devices):
    """Split the CPU into logical CPUs (``/device:CPU:0`` ...), as TF does, before they are first listed. Ops
    still run, and tensors report being, on ``CPU:0``; distribution strategies see one replica per logical CPU."""
    _check_device(device)
    if _LOGICAL["initialized"]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _LOGICAL["configuration"] = None if logical_devices is None else list(logical_devices)


def _check_device(device):
    if device != _CPU:
        raise ValueError(f"Unrecognized device: {device!r}")


def get_soft_device_placement():
    """Whether an op asked for a device there is not runs where it can: always, here."""
    return _SETTINGS["soft_placement"]


def set_soft_device_placement(enabled):
    """Accepted (placement is always soft: every op runs on the CPU)."""
    _SETTINGS["soft_placement"] = bool(enabled)


# --- tf.config.experimental --------------------------------------------------------------------------------------


def _set_memory_growth(device, enable):
    _check_device(device)
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def _get_memory_growth(device):
    raise KeyError(device)


def _enable_op_determinism():
    """Every op is deterministic here already (NumPy kernels, one thread per op): recorded, nothing changes."""
    _SETTINGS["determinism"] = True


def _disable_op_determinism():
    _SETTINGS["determinism"] = False


experimental = types.SimpleNamespace(
    list_physical_devices=list_physical_devices, list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices, set_visible_devices=set_visible_devices,
    set_memory_growth=_set_memory_growth, get_memory_growth=_get_memory_growth,
    enable_op_determinism=_enable_op_determinism, disable_op_determinism=_disable_op_determinism,
    get_device_details=lambda device: {}, set_virtual_device_configuration=set_logical_device_configuration,
    get_virtual_device_configuration=get_logical_device_configuration,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration)


# --- tf.config.threading -----------------------------------------------------------------------------------------


def _set_intra(num_threads):
    from ._core.extras import require  # noqa: PLC0415

    threadpoolctl = require("threadpoolctl", "tf.config.threading.set_intra_op_parallelism_threads", "threads")
    n = int(num_threads)
    if _SETTINGS.get("limiter") is not None:  # back to the library's own count before setting another
        _SETTINGS.pop("limiter").restore_original_limits()
    if n > 0:  # (0 means the system's choice, as in TF)
        _SETTINGS["limiter"] = threadpoolctl.threadpool_limits(limits=n, user_api="blas")
    _SETTINGS["intra"] = n


def _set_inter(num_threads):
    _SETTINGS["inter"] = int(num_threads)  # (ops run one at a time in the caller's thread: nothing to size)


threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=lambda: _SETTINGS["intra"], set_intra_op_parallelism_threads=_set_intra,
    get_inter_op_parallelism_threads=lambda: _SETTINGS["inter"], set_inter_op_parallelism_threads=_set_inter)


# --- tf.config.optimizer -----------------------------------------------------------------------------------------


def _set_options(options):
    """Record Grappler's options (tapeflow's compiler passes always run: see ``compiler/passes.py``)."""
    _SETTINGS["options"].update(dict(options))


def _set_jit(enabled):
    _SETTINGS["jit"] = "autoclustering" if enabled is True else "" if enabled is False else str(enabled or "")


def _get_options():
    """The options set, then the defaults not overridden (TF's order)."""
    chosen = _SETTINGS["options"]
    return {**chosen, **{k: v for k, v in _DEFAULT_OPTIONS.items() if k not in chosen}}


optimizer = types.SimpleNamespace(
    get_experimental_options=_get_options, set_experimental_options=_set_options,
    get_jit=lambda: _SETTINGS["jit"], set_jit=_set_jit)

"""``tf.saved_model.SaveOptions``, ``LoadOptions`` and ``experimental.VariablePolicy``: the options objects TF's
``save`` and ``load`` take. tapeflow's files have no device placements, debug info or shards, so the options are
held and checked as TF checks them, and change nothing in what is written or read."""

from __future__ import annotations

import enum

__all__ = ["SaveOptions", "LoadOptions", "VariablePolicy"]


class VariablePolicy(enum.Enum):
    """How variables' devices and distributed variables are saved (``tf.saved_model.experimental.VariablePolicy``).
    """

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    @classmethod
    def from_obj(cls, obj):
        """The policy ``obj`` names: ``None``, a policy, or its value as a string (any case)."""
        if obj is None:
            return cls.NONE
        if isinstance(obj, cls):
            return obj
        key = str(obj).lower()
        for policy in cls:
            if key == policy.value:
                return policy
        raise ValueError(f"Received invalid VariablePolicy value: {obj}.")


class SaveOptions:
    """Options for ``tf.saved_model.save`` (TF's arguments and defaults)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases if function_aliases is not None else {}
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """Options for ``tf.saved_model.load`` (TF's arguments and defaults)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None, experimental_skip_checkpoint=False,
                 experimental_variable_policy=None, experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)
        self.experimental_load_function_aliases = experimental_load_function_aliases

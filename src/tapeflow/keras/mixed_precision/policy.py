"""Keras 3 dtype policies (``tf.keras.mixed_precision.Policy``, alias ``DTypePolicy``) and the global policy.

A policy names two dtypes: the *compute* dtype a layer's inputs are cast to and its ``call`` works in, and the
*variable* dtype its weights are made in. A dtype name gives the same dtype for both; ``"mixed_float16"`` and
``"mixed_bfloat16"`` compute in the 16-bit type and keep float32 weights. A layer without ``dtype=`` takes the
global policy (``set_global_policy``), which, as in Keras, lives in the per-thread Keras state: each thread starts
at ``"float32"`` and ``clear_session()`` sets it back there.

tapeflow cannot compute in bfloat16 (NumPy has no such type), so ``"mixed_bfloat16"`` is accepted as a policy, as
in Keras, and layers under it make their float32 weights, but the first call of such a layer raises the
``TypeError`` every bfloat16 computation raises in tapeflow. Keras's quantized policies (``"int8_from_float32"``
and the other ``<mode>_from_<policy>`` names) are not implemented.
"""

from __future__ import annotations

from .. import _state
from ..variables import standardize_dtype

__all__ = ["DTypePolicy", "FloatDTypePolicy", "get", "serialize", "deserialize", "dtype_policy",
           "set_dtype_policy"]

# The prefixes Keras reads as quantization modes: a policy name that starts with one is a quantized policy.
_QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


class DTypePolicy:
    """The dtypes a layer computes in and keeps its weights in (``tf.keras.mixed_precision.Policy``).

    Args:
        name: ``"mixed_float16"`` (float16 computations, float32 weights), ``"mixed_bfloat16"`` (likewise with
            bfloat16, which tapeflow cannot compute in), or a dtype name such as ``"float32"`` (both dtypes that
            one). ``None`` takes the global policy's name.

    Raises:
        TypeError: for a name that is not a string.
        ValueError: for a string that is neither a mixed policy nor a Keras dtype name (Keras's message).
    """

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    @staticmethod
    def _parse_name(name):
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} "
                            f"(of type {type(name)})")
        if name in _MIXED:
            return _MIXED[name]
        try:
            dtype = standardize_dtype(name)
        except ValueError:
            raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                             "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as "
                             "'float32'.") from None
        return dtype, dtype

    @property
    def name(self):
        """The policy's name (``"mixed_float16"``, ``"float32"``, ...)."""
        return self._name

    @property
    def compute_dtype(self):
        """The dtype layers cast their floating inputs to and compute in, a string."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype layers make their weights in, a string (inside ``call`` floating weights are read in the
        compute dtype)."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """Always ``None``: tapeflow has no quantized policies."""
        return self._quantization_mode

    def convert_input(self, x, autocast, dtype):
        """``x`` as a layer under this policy receives it: array-likes become tensors and, with ``autocast``,
        floating tensors of another dtype are cast to ``dtype`` (integers and bools are left alone)."""
        from ..._core.tensor import convert_to_tensor, is_tensor
        from ...ops.array_ops import cast

        dtype = standardize_dtype(dtype)
        if not is_tensor(x):
            if not hasattr(x, "__array__") or getattr(x, "_keras_symbolic", False):
                return x
            x = convert_to_tensor(x)
        if autocast and x.dtype.is_floating and x.dtype.name != dtype:
            x = cast(x, dtype)
        return x

    def get_config(self):
        """``{"name": ...}``."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        """The policy ``get_config()`` describes."""
        return cls(**config)

    def __repr__(self):
        # Keras shows its FloatDTypePolicy alias under the name of the class it stands for.
        name = "DTypePolicy" if type(self) is FloatDTypePolicy else type(self).__name__
        return f'<{name} "{self._name}">'

    def __eq__(self, other):
        if type(other) not in (DTypePolicy, FloatDTypePolicy):
            return False
        return self._name == other._name

    # Equal policies compare equal by name while staying mutable objects: unhashable, as in Keras.
    __hash__ = None


class FloatDTypePolicy(DTypePolicy):
    """Keras's other name for :class:`DTypePolicy` (``tf.keras.dtype_policies.FloatDTypePolicy``)."""


def _from_string(name):
    if name.startswith(_QUANTIZATION_MODES):
        if len(name.split("_from_")) != 2:
            raise ValueError("Cannot convert `policy` into a valid pair (`mode`, `source_name`) to instantiate "
                             f"`QuantizedDTypePolicy`. Received: policy={name}")
        # Quantized policies (int8/float8 weights) need kernels tapeflow does not have: refused, with a reason.
        raise ValueError(f"Quantized dtype policies are not supported by tapeflow: policy={name}. Use a float "
                         "policy (float32, float16, mixed_float16).")
    return DTypePolicy(name)


def serialize(policy):
    """A policy as Keras stores it in configs: ``{"module": "keras", "class_name": "DTypePolicy", ...}``."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The policy a :func:`serialize` dict (or its ``{"class_name", "config"}`` part) describes.

    Raises:
        ValueError: for a class name other than ``DTypePolicy``/``FloatDTypePolicy``.
    """
    name = config.get("class_name")
    if name not in ("DTypePolicy", "FloatDTypePolicy"):
        raise ValueError(f"Could not locate class '{name}'. Make sure custom classes are decorated with "
                         "`@keras.saving.register_keras_serializable()`. "
                         f"Full object config: {config}")
    return (DTypePolicy if name == "DTypePolicy" else FloatDTypePolicy).from_config(config["config"])


def get(identifier):
    """A policy from a layer's ``dtype=`` argument: ``None`` (the global policy), a policy, a policy name, a
    serialized policy, or a dtype (``tf.float16``, ``"float64"``).

    Raises:
        ValueError: for anything else (Keras's "Cannot interpret `dtype` argument" message), or a policy name
            Keras does not know.
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return _from_string(identifier)
    try:
        return DTypePolicy(standardize_dtype(identifier))
    except Exception:  # noqa: BLE001 - Keras answers any failure with this one message
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an instance of DTypePolicy. "
                         f"Received: dtype={identifier}") from None


def dtype_policy():
    """The global policy (``tf.keras.mixed_precision.global_policy``): ``"float32"`` until one is set."""
    state = _state._STATE
    policy = state.dtype_policy
    if policy is None:
        policy = state.dtype_policy = DTypePolicy("float32")
    return policy


def set_dtype_policy(policy):
    """Set the global policy (``tf.keras.mixed_precision.set_global_policy``): the policy of every layer made
    afterwards without ``dtype=`` (in this thread, until ``clear_session()``).

    Args:
        policy: a policy, or a policy name such as ``"mixed_float16"``.

    Raises:
        ValueError: for anything else (Keras's message), or a name Keras does not know.
    """
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                             f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                             f"(of type {type(policy)})")
        policy = _from_string(policy)
    _state._STATE.dtype_policy = policy

"""``tf.keras.layers.Layer`` (Keras 3): weights, sublayer tracking, building on first call, losses, configs.

A layer builds itself on its first ``__call__`` from the first input's shape, makes its weights with
``add_weight`` (Keras variables whose paths are ``<layer name>/<weight name>``) and keeps track of the layers and
variables assigned to its attributes. Inputs are converted the way Keras's dtype policy does: NumPy arrays become
tensors, floating inputs are cast to the compute dtype (``float32`` unless ``dtype=`` says otherwise), integer
and bool inputs are left alone, except in the layers whose Keras computation promotes them against float weights
(``_promotes_integer_inputs``: Dense, the recurrent layers and cells, EinsumDense), where they are cast to the
compute dtype, as Keras's promotion gives. ``training`` is passed to ``call`` when its signature takes it, resolved
as in Keras: the explicit argument, else the one of the outermost layer being called, else ``call``'s default.
Losses from ``add_loss`` are dropped when an outermost call starts; weight-regularizer losses are recomputed on
every read of ``losses``. The shapes ``build`` ran with are kept (``_build_shapes_dict``) for ``summary()``.
An exception escaping ``call`` is raised again with Keras's "Exception encountered when calling
<Class>.call()" text listing the arguments.

A layer's ``dtype=`` is a dtype policy (``mixed_precision/policy.py``; the global policy by default): weights are
made in its variable dtype and inputs cast to its compute dtype. Where the two differ (``"mixed_float16"``), or
where an enclosing layer's call autocasts to another dtype, ``call`` runs inside an ``AutocastScope``, so floating
weights are read in the compute dtype, as Keras does.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from ..._core import tracking as _tracking
from ..._core.dtypes import as_dtype
from ..._core.errors import OpError
from ..._core.tensor import EagerTensor, convert_to_tensor, is_tensor
from ...ops.array_ops import cast
from .. import _masks
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._state import auto_name, name_scope
from ..mixed_precision import policy as _policies
from ..variables import _AUTOCAST, AutocastScope, Variable, standardize_dtype
from ._context import _CONTEXT, build_shape, traced_batch
from .input_spec import InputSpec, _shape_of

__all__ = ["Layer", "InputSpec", "traced_batch", "build_shape"]


# How a layer is called on symbolic inputs (``KerasTensor`` s): registered by the functional API
# (``models/functional.py``), which this module does not import.
_SYMBOLIC_CALL = []


def register_symbolic_call(fn):
    """Make ``fn(layer, args, kwargs)`` handle layer calls whose arguments hold symbolic tensors."""
    _SYMBOLIC_CALL[:] = [fn]


def _has_symbolic(args, kwargs):
    return any(getattr(x, "_keras_symbolic", False) for x in _flatten([list(args), list(kwargs.values())]))


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    if isinstance(x, dict):
        return [y for item in x.values() for y in _flatten(item)]
    return [x]


def _map(fn, x):
    if isinstance(x, list):
        return [_map(fn, y) for y in x]
    if isinstance(x, tuple):
        return tuple(_map(fn, y) for y in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return fn(x)


def _is_tensor(x):
    return is_tensor(x) or isinstance(x, Variable)


def _format_argument(value):
    """How Keras shows one call argument in an error: tensors by shape and dtype, anything else by ``repr``."""
    if is_tensor(value):
        return f"tf.Tensor(shape={tuple(value.shape.as_list())}, dtype={standardize_dtype(value.dtype)})"
    return repr(value)


def _call_with_info(layer, args, kwargs):
    """``layer.call(*args, **kwargs)``; an exception escaping it is raised again (same class, ``from None``) with
    Keras's text naming ``<Class>.call()`` and its arguments. Only the innermost failing call adds the text: an
    exception that already carries it passes through the calls of outer layers unchanged."""
    call = layer.call
    try:
        return call(*args, **kwargs)
    except Exception as exc:
        if getattr(exc, "_keras_call_info_injected", False):
            raise
        signature = inspect.signature(call)
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            bound = None
        if bound is None or not signature.parameters:
            raise
        lines = []
        for param in signature.parameters.values():
            # Keras prints the default itself (not its repr) for an argument the call did not receive.
            value = _map(_format_argument, bound[param.name]) if param.name in bound else param.default
            lines.append(f"  \u2022 {param.name}={value}")
        if isinstance(exc, OpError):
            message = exc.message
        else:
            message = exc.args[0] if exc.args else ""
        name = f"{type(layer).__name__}.call()"
        message = (f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
                   f"Arguments received by {name}:\n" + "\n".join(lines))
        if isinstance(exc, OpError):
            new = type(exc)(exc.node_def, exc.op, message, exc.error_code)
        else:
            try:
                new = type(exc)(message)
            except TypeError:
                new = RuntimeError(message)
        new._keras_call_info_injected = True
        raise new.with_traceback(exc.__traceback__) from None


def _positional_weight_args(args, shape, initializer, dtype):
    """``(shape, initializer, dtype)`` from ``add_weight``'s positional arguments (Keras 2's call style)."""
    if len(args) > 3:
        raise TypeError(f"add_weight() takes at most 3 positional arguments but {len(args)} were given.")
    if isinstance(args[0], str):
        raise ValueError(f"`name` must be passed as a keyword argument. Received: add_weight('{args[0]}', ...). "
                         f"Use: add_weight(shape=..., name='{args[0]}').")
    given = {"shape": shape, "initializer": initializer, "dtype": dtype}
    for key, value in zip(given, args):
        if given[key] is not None:
            raise ValueError(f"`{key}` was passed both positionally and as a keyword argument.")
        given[key] = value
    return given["shape"], given["initializer"], given["dtype"]


def _record_build_shapes(layer, build, args, kwargs):
    """Keep the arguments ``build`` ran with (Keras's ``_build_shapes_dict``): ``summary()`` of a model that is
    not functional shows ``compute_output_shape`` of them."""
    try:
        shapes = inspect.signature(build).bind(layer, *args, **kwargs).arguments
    except TypeError:
        return
    shapes.pop(next(iter(shapes)), None)  # ``self``
    object.__setattr__(layer, "_build_shapes_dict", dict(shapes))


def _wrap_build(build):
    """After a subclass's ``build`` returns the layer is built (also when ``build`` is called by hand)."""

    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        with name_scope(self.name, caller=self):
            build(self, *args, **kwargs)
        _record_build_shapes(self, build, args, kwargs)
        self.built = True

    wrapper._tapeflow_wrapped = True
    return wrapper


class Layer:
    """The base of Keras layers: subclasses make weights in ``build(input_shape)`` and compute in ``call``.

    Args (keyword only):
        activity_regularizer: a regularizer applied to the outputs after each call (divided by the batch size).
        trainable: whether the layer's weights are trainable.
        dtype: the dtype policy: a policy, a policy name (``"mixed_float16"``) or a dtype for both weights and
            computations; the global policy (``"float32"`` unless set) by default.
        autocast: whether floating inputs are cast to the compute dtype (and, inside an enclosing layer's
            autocasting call, whether weights are read in it).
        name: the name; by default the snake-cased class name made unique (``dense``, ``dense_1``).

    Raises:
        ValueError: for unknown keyword arguments or a non-boolean ``trainable``, with Keras's messages.
    """

    # Whether ``__call__`` converts its arguments by the dtype policy (functional models convert to their inputs'
    # dtypes instead, as Keras's do).
    _convert_input_args = True
    _allow_non_tensor_positional_args = False
    # Whether integer and bool tensors among the positional arguments are cast to the compute dtype. Keras leaves
    # them to its ops, which promote them against float weights (Dense's matmul, the recurrent cells, EinsumDense);
    # tapeflow's ops never promote, so the layers whose Keras computation promotes say so here. (Layers whose Keras
    # ops promote otherwise do it in ``call``: normalization in float32, the merges to a common dtype.)
    _promotes_integer_inputs = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_tapeflow_wrapped", False):
            cls.build = _wrap_build(build)

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None, autocast=True, name=None,
                 **kwargs):
        object.__setattr__(self, "_layers", [])
        object.__setattr__(self, "_tracked_variables", [])
        self._lock = False
        name = name if name is not None else auto_name(type(self).__name__)
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name} (of type {type(name)})")
        self._name = name
        self._set_dtype_policy(_policies.get(dtype))
        self.activity_regularizer = _regularizers.get(activity_regularizer)
        input_dim = kwargs.pop("input_dim", None)
        input_shape = (input_dim,) if input_dim is not None else kwargs.pop("input_shape", None)
        if input_shape is not None:
            warnings.warn("Do not pass an `input_shape`/`input_dim` argument to a layer. When using Sequential "
                          "models, prefer using an `Input(shape)` object as the first layer in the model instead.",
                          stacklevel=2)
            self._input_shape_arg = input_shape
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        self.built = False
        self.autocast = autocast
        self.input_spec = None
        self._called = False
        if not isinstance(trainable, bool):
            raise ValueError(f"Expected `trainable` to be a boolean. Received: trainable={trainable} "
                             f"(of type {type(trainable)})")
        self._trainable = trainable
        self._losses = []
        params = inspect.signature(self.call).parameters
        self._call_has_training_arg = "training" in params
        self._call_training_default = params["training"].default if self._call_has_training_arg else None
        if self._call_training_default is inspect.Parameter.empty:
            self._call_training_default = None

    # --- attribute tracking --------------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if not name.startswith("__") and "_layers" in self.__dict__:
            for item in _flatten(value) if isinstance(value, (list, tuple, dict)) else [value]:
                if isinstance(item, Layer) and item is not self:
                    if all(item is not layer for layer in self._layers):
                        self._layers.append(item)
                elif isinstance(item, Variable) and all(item is not v for v in self._tracked_variables):
                    self._tracked_variables.append(item)
        object.__setattr__(self, name, value)
        if name == "built" and value and _tracking.ARMED:
            # A checkpoint restored before this layer had weights gives them their values now (outside any
            # function being traced: the values are the variables', not the trace's).
            from ... import init_scope

            with init_scope():
                _tracking.layer_built(self)

    def _check_super_called(self):
        if self.__dict__.get("_lock", True):
            raise RuntimeError(f"In layer '{type(self).__name__}', you forgot to call `super().__init__()` as "
                               "the first statement in the `__init__()` method. Go add it!")

    # --- naming and dtypes ---------------------------------------------------------------------------------
    @property
    def name(self):
        """The layer's name (unique among unnamed layers of a class, see ``clear_session``)."""
        return self._name

    def _set_dtype_policy(self, policy):
        self._dtype_policy = policy
        self._compute_dtype_name = policy.compute_dtype
        self._variable_dtype_name = policy.variable_dtype
        # What ``__call__`` converts floating inputs to (Keras's ``input_dtype``: the compute dtype, or for a
        # Sequential model its ``Input``'s dtype).
        self._input_dtype = as_dtype(policy.compute_dtype)
        # Whether ``call`` opens an autocast scope of its own (weights kept in another dtype than computed in).
        self._mixed = policy.compute_dtype != policy.variable_dtype

    @property
    def dtype_policy(self):
        """The layer's dtype policy (``<DTypePolicy "mixed_float16">``); settable with anything ``dtype=`` takes."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._set_dtype_policy(_policies.get(value))

    @property
    def dtype(self):
        """The dtype of the layer's weights, a string (the variable dtype)."""
        return self._variable_dtype_name

    @property
    def variable_dtype(self):
        """The dtype the layer makes its weights in, a string."""
        return self._variable_dtype_name

    @property
    def compute_dtype(self):
        """The dtype that floating inputs are cast to and ``call`` computes in, a string."""
        return self._compute_dtype_name

    @property
    def input_dtype(self):
        """The dtype that floating inputs are cast to, a string (the compute dtype, unless a model's ``Input``
        says otherwise)."""
        return self._input_dtype.name

    @property
    def path(self):
        """The Keras name scope path of the layer (its name at top level)."""
        return self._name

    def _warn_unbuilt_state(self, stacklevel=3):
        """Keras's warning for a layer without a ``build`` of its own marked built while sublayers are not."""
        if any(not layer.built for layer in self._layers):
            warnings.warn(f"`build()` was called on layer '{self.name}', however the layer does not have a `build()` "
                          "method implemented and it looks like it has unbuilt state. This will cause the layer to be "
                          "marked as built, despite not being actually built, which may cause failures down the "
                          "line. Make sure to implement a proper `build()` method.", stacklevel=stacklevel)

    def _build_at_init(self):
        """Mark a layer without weights built from its constructor on, as Keras does for the layers it builds at
        init (activations, dropout, pooling, reshaping): ``built`` is true before any call, and since ``build``
        never runs, a subclassed model's ``summary()`` shows ``?`` as their output shape."""
        self.built = True

    # --- weights -------------------------------------------------------------------------------------------
    def build(self, input_shape):
        """Make the layer's weights for inputs of ``input_shape`` (the base makes none; it warns, as Keras does,
        when sublayers are not built, since marking this layer built will not build them)."""
        if type(self).build is Layer.build:  # (not when a subclass's own build calls this one)
            self._warn_unbuilt_state()
        object.__setattr__(self, "_build_shapes_dict", {"input_shape": input_shape})
        self.built = True

    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", overwrite_with_gradient=False, name=None):
        """A new Keras variable of this layer, at path ``<layer name>/<name>``, tracked by ``weights``.

        ``initializer`` defaults to ``"glorot_uniform"`` for floating dtypes and ``"zeros"`` otherwise; ``dtype``
        to the layer's dtype; ``shape`` to ``()``. The regularizer's penalty shows in ``losses``. As in Keras 3,
        only ``shape``, ``initializer`` and ``dtype`` may be passed positionally (Keras 2's order); ``name`` is
        keyword-only.

        Raises:
            ValueError: for a string first argument (a name passed positionally), or an argument given both
                positionally and by keyword (Keras's messages).
            TypeError: for more than three positional arguments.
        """
        self._check_super_called()
        if args:
            shape, initializer, dtype = _positional_weight_args(args, shape, initializer, dtype)
        shape = () if shape is None else shape
        dtype = standardize_dtype(dtype) if dtype is not None else self.variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        initializer = _initializers.get(initializer)
        with name_scope(self.name, caller=self):
            variable = Variable(initializer=initializer, shape=shape, dtype=dtype, trainable=trainable,
                                autocast=autocast, aggregation=aggregation, name=name)
        variable.regularizer = _regularizers.get(regularizer)
        variable.constraint = constraint
        variable.overwrite_with_gradient = overwrite_with_gradient
        if not self._trainable:
            variable.trainable = False
        self._tracked_variables.append(variable)
        return variable

    add_variable = add_weight

    @property
    def trainable(self):
        """Whether the layer trains; setting it sets every weight's (and sublayer's) flag."""
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self._trainable = value
        for v in self._tracked_variables:
            v.trainable = value
        for layer in self._layers:
            layer.trainable = value

    @property
    def weights(self):
        """Own weights in creation order, then those of sublayers (deduplicated)."""
        out, seen = [], set()
        for v in self._tracked_variables + [w for layer in self._layers for w in layer.weights]:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    variables = weights

    @property
    def trainable_weights(self):
        """The trainable weights (none when the layer is frozen)."""
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self):
        """The weights that optimizers leave alone (all of them when the layer is frozen)."""
        return [v for v in self.weights if not v.trainable] if self.trainable else self.weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def get_weights(self):
        """The weights' values as NumPy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Assign ``weights`` (one array per weight, in ``weights`` order).

        Raises:
            ValueError: for a wrong count or a shape mismatch, with Keras's messages.
        """
        layer_weights = self.weights
        if len(layer_weights) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of length "
                             f"{len(weights)}, but the layer was expecting {len(layer_weights)} weights.")
        for variable, value in zip(layer_weights, weights):
            value_shape = tuple(np.shape(value))
            if tuple(variable.shape.as_list()) != value_shape:
                raise ValueError(f"Layer {self.name} weight shape {variable.shape} is not compatible with provided "
                                 f"weight shape {np.asarray(value).shape}.")
            variable.assign(value)

    def count_params(self):
        """The number of scalars in the weights.

        Raises:
            ValueError: when the layer is not built.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                             "You can build it manually via: `layer.build(input_shape)`.")
        return int(sum(int(np.prod(v.shape.as_list())) for v in self.weights))

    # --- losses --------------------------------------------------------------------------------------------
    def add_loss(self, loss):
        """Record scalar loss tensors (from ``call``); they show in ``losses`` until the next outermost call."""
        losses = _flatten(loss)
        for x in losses:
            if not _is_tensor(x):
                raise ValueError("`add_loss()` can only be called from inside `build()` or `call()`, on a tensor "
                                 f"input. Received invalid value: {x}")
        self._losses.extend(losses)

    def _flatten_layers(self, include_self=True):
        out, seen, queue = ([self] if include_self else []), set(), list(self._layers)
        while queue:
            layer = queue.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            queue[:0] = layer._layers
        return out

    @property
    def losses(self):
        """``add_loss`` losses of this layer and its sublayers, then the trainable weights' regularizer penalties
        (computed now, from the current values)."""
        losses = list(self._losses)
        for layer in self._flatten_layers(include_self=False):
            losses.extend(layer._losses)
        losses.extend(v.regularizer(v) for v in self.trainable_weights if v.regularizer is not None)
        return losses

    def _clear_losses(self):
        self._losses.clear()
        for layer in self._layers:
            layer._clear_losses()

    # --- calling -------------------------------------------------------------------------------------------
    def call(self, *args, **kwargs):
        """The computation; subclasses implement it (the base raises, as in Keras)."""
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` method implemented.")

    def _convert_input(self, x, promote=False):
        """Keras's dtype-policy conversion of one call argument: array-likes become tensors, floating tensors are
        cast to the compute dtype (with ``autocast``), integer and bool tensors are left alone, except that
        ``promote`` casts them too (see ``_promotes_integer_inputs``)."""
        if isinstance(x, Variable):
            x = x.value
        if not is_tensor(x):
            if not hasattr(x, "__array__"):
                return x
            x = convert_to_tensor(np.asarray(x))
        dtype = x.dtype
        if dtype is self._input_dtype:
            return x
        if dtype.is_floating:
            if self.autocast:
                x = cast(x, self._input_dtype)
        elif promote and (dtype.is_integer or dtype.is_bool):
            x = cast(x, self._input_dtype)
        return x

    def _convert_positional(self, x):
        return self._convert_input(x, promote=True)

    def __call__(self, *args, **kwargs):
        if _SYMBOLIC_CALL and _has_symbolic(args, kwargs):
            return _SYMBOLIC_CALL[0](self, args, kwargs)
        self._check_super_called()
        self._called = True
        masks_in_use = bool(_masks.TABLE)  # masks are rare: the common call pays this one check
        if masks_in_use:
            originals = _flatten([list(args), list(kwargs.values())])
        if self._convert_input_args:
            # The common call (one tensor of the compute dtype) pays one identity test, as in Keras.
            if not (len(args) == 1 and args[0].__class__ is EagerTensor and args[0].dtype is self._input_dtype):
                args = _map(self._convert_positional if self._promotes_integer_inputs else self._convert_input, args)
            if kwargs:
                kwargs = {k: v if v is None or v.__class__ is bool else _map(self._convert_input, v)
                          for k, v in kwargs.items()}
        previous_mask = self._masks_to_kwargs(originals, args, kwargs) if masks_in_use else None
        for arg in () if self._allow_non_tensor_positional_args else _flatten(args):
            if arg is not None and not _is_tensor(arg):
                raise ValueError("Only input tensors may be passed as positional arguments. The following argument "
                                 f"value should be passed as a keyword argument: {arg} (of type {type(arg)})")
        self._bind_call_arguments(args, kwargs)
        first = args[0] if args else next(iter(kwargs.values()), None)
        self._check_input_spec(first)
        building = not self.built
        if building:
            shape = build_shape(_shape_of(first)) if first is not None else None
            if type(self).build is Layer.build:
                # Keras builds such a layer by running its call (which builds the sublayers), and only then warns
                # about sublayers left unbuilt: here the check follows the call.
                object.__setattr__(self, "_build_shapes_dict", {"input_shape": shape})
            else:
                with name_scope(self.name, caller=self):
                    self.build(shape)
            self.built = True
            self._check_input_spec(first)
        entry = _CONTEXT.entry is None
        if entry:
            _CONTEXT.entry = self
            self._clear_losses()
        outer_training = _CONTEXT.training
        try:
            training = kwargs.pop("training", None)
            if training is None:
                training = outer_training if outer_training is not None else self._call_training_default
            if training is not None:
                _CONTEXT.training = training
            if self._call_has_training_arg:
                kwargs["training"] = training
            with name_scope(self.name, caller=self):
                scope = self._autocast_scope() if self._mixed or _AUTOCAST.active else None
                if scope is None:
                    outputs = _call_with_info(self, args, kwargs)
                else:
                    with scope:
                        outputs = _call_with_info(self, args, kwargs)
                self.built = True
                if building and type(self).build is Layer.build:
                    self._warn_unbuilt_state(stacklevel=4)
                if self.activity_regularizer is not None:
                    self._add_activity_loss(outputs)
                if previous_mask is not None or (type(self).compute_mask is not Layer.compute_mask
                                                 and self.supports_masking):
                    self._set_mask_metadata(first, outputs, previous_mask)
        finally:
            _CONTEXT.training = outer_training
            if entry:
                _CONTEXT.entry = None
                _CONTEXT.training = None
        return outputs

    def _autocast_scope(self):
        """The autocast scope ``call`` runs in, or ``None`` to stay in the current one: Keras's rule. Outside any
        scope a mixed layer opens one of its compute dtype; inside one, a layer computing in another floating dtype
        opens its own, and one without ``autocast`` (or computing in a non-floating dtype) switches it off."""
        if _AUTOCAST.active:
            compute = self._compute_dtype_name
            if not self.autocast or "float" not in compute:
                return AutocastScope(None)
            return AutocastScope(compute) if _AUTOCAST.dtype != compute else None
        return AutocastScope(self._compute_dtype_name)

    # --- masks (Keras's ``_keras_mask`` convention) ------------------------------------------------------
    @property
    def supports_masking(self):
        """Whether the layer computes an output mask (by default: whether it overrides ``compute_mask``)."""
        value = self.__dict__.get("_supports_masking")
        return type(self).compute_mask is not Layer.compute_mask if value is None else value

    @supports_masking.setter
    def supports_masking(self, value):
        self._supports_masking = value

    def compute_mask(self, inputs, previous_mask):
        """The output mask: the input's mask, passed through (layers that change the time axis override it)."""
        return previous_mask

    def _masks_to_kwargs(self, originals, args, kwargs):
        """Re-attach input masks lost by the conversion, fill ``mask`` (or ``<argument>_mask``) arguments left
        unset, and return the mask of the first argument (``previous_mask``), as Keras does."""
        converted = _flatten([list(args), list(kwargs.values())])
        found = False
        for old, new in zip(originals, converted):
            mask = _masks.get_keras_mask(old)
            if mask is not None:
                found = True
                if new is not old:
                    _masks.set_keras_mask(new, mask)
        if not found:
            return None
        signature = inspect.signature(self.call)
        params = signature.parameters
        try:
            bound = signature.bind_partial(*args, **kwargs).arguments
        except TypeError:
            bound = {}
        tensor_args = {k: v for k, v in bound.items()
                       if k not in ("mask", "training") and any(_is_tensor(x) for x in _flatten(v))}
        if len(tensor_args) == 1:
            if "mask" in params and bound.get("mask") is None:
                kwargs["mask"] = _map(_masks.get_keras_mask, next(iter(tensor_args.values())))
        else:
            for name, value in tensor_args.items():
                if f"{name}_mask" in params and bound.get(f"{name}_mask") is None:
                    kwargs[f"{name}_mask"] = _map(_masks.get_keras_mask, value)
        if kwargs.get("mask") is not None:
            previous = kwargs["mask"]
        else:
            first = args[0] if args else next(iter(kwargs.values()), None)
            previous = _map(_masks.get_keras_mask, first)
        if all(m is None for m in _flatten(previous)):
            return None
        if not self.supports_masking:
            warnings.warn(f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with a mask "
                          "attached to it. However, this layer does not support masking and will therefore destroy "
                          "the mask information. Downstream layers will not see the mask.", stacklevel=3)
            return None
        return previous

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        flat_outputs = _flatten(outputs)
        if all(_masks.get_keras_mask(x) is not None for x in flat_outputs):
            return
        output_masks = self.compute_mask(inputs, previous_mask)
        if output_masks is None:
            return
        for tensor, mask in zip(flat_outputs, _flatten(output_masks)):
            if mask is not None and _masks.get_keras_mask(tensor) is None:
                _masks.set_keras_mask(tensor, mask)

    def _bind_call_arguments(self, args, kwargs):
        """Raise ``inspect``'s ``TypeError`` (as Keras does, before building) when ``call`` cannot take the
        arguments; a ``training`` that ``call`` does not take is ignored."""
        if "training" in kwargs and not self._call_has_training_arg:
            kwargs = {k: v for k, v in kwargs.items() if k != "training"}
        inspect.signature(self.call).bind(*args, **kwargs)

    def _add_activity_loss(self, outputs):
        from tapeflow.math import divide_no_nan as div_no_nan

        for output in _flatten(outputs):
            if is_tensor(output):
                loss = self.activity_regularizer(output)
                if output.shape.rank > 0:
                    batch = cast(output.shape[0] if output.shape[0] is not None else 0, loss.dtype)
                    loss = div_no_nan(loss, batch)
                self.add_loss(loss)

    def _check_input_spec(self, first):
        spec = self.input_spec
        if not spec:
            return
        specs = spec if isinstance(spec, (list, tuple)) else [spec]
        inputs = first if isinstance(first, (list, tuple)) and len(specs) > 1 else [first]
        if len(inputs) != len(specs):
            raise ValueError(f'Layer "{self.name}" expects {len(specs)} input(s), but it received {len(inputs)} '
                             f"input tensors. Inputs received: {inputs}")
        for index, (x, s) in enumerate(zip(inputs, specs)):
            if s is not None:
                s.check(x, index, self.name)

    def _first_node(self, attr):
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {attr}.")
        values = nodes[0].input_tensors if attr == "input" else nodes[0].output_tensors
        return values[0] if len(values) == 1 else values

    @property
    def input(self):
        """The symbolic input of the layer's first call on ``KerasTensor`` s (a list for several).

        Raises:
            AttributeError: when the layer was never called symbolically (Keras's message).
        """
        return self._first_node("input")

    @property
    def output(self):
        """The symbolic output of the layer's first call on ``KerasTensor`` s (a list for several).

        Raises:
            AttributeError: when the layer was never called symbolically (Keras's message).
        """
        return self._first_node("output")

    def _symbolic_dtype(self, first):
        """The dtype of this layer's symbolic outputs where ``compute_output_shape`` gives their shapes: Keras's
        compute dtype (layers that pass their input's dtype through, such as Reshape and Flatten, say so)."""
        return self.compute_dtype

    def compute_output_shape(self, *args, **kwargs):
        """The output shape for an input shape (layers that can say implement it; the base raises, as Keras)."""
        raise NotImplementedError(f"Layer {type(self).__name__} should implement "
                                  "`def compute_output_shape(self, input_shape)`.")

    # --- configs -------------------------------------------------------------------------------------------
    def get_config(self):
        """``name``, ``trainable``, the dtype policy (and the activity regularizer, when set)."""
        self._check_super_called()
        config = {"name": self.name, "trainable": self.trainable, "dtype": _policies.serialize(self.dtype_policy)}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = _regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from ``get_config()``'s output."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    __str__ = __repr__

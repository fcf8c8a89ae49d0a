"""The Keras 3 optimizer base (``tf.keras.optimizers.Optimizer``) as it behaves on TensorFlow.

``apply_gradients(pairs)`` unzips the pairs and calls ``apply``. The first ``apply`` builds the per-variable state
(slots) for the variables it is given; later calls may only use those. Then, in order: pairs whose gradient is
``None`` are dropped with a warning, variables flagged ``overwrite_with_gradient`` take their gradient as value,
the loss scale is undone, gradients are clipped, weight decay is applied, each variable takes its
``update_step``, constraints are applied and ``iterations`` grows by one. Updates are eager, variable by variable:
an error part-way (a gradient of the wrong shape) leaves the variables before it updated and ``iterations`` as it
was, as on TensorFlow.

Subclasses implement ``build(variables)`` (calling ``super().build``) and ``update_step(gradient, variable,
learning_rate)``, and extend ``get_config``. The optional parts of a step live in mixins next to this file:
``clipping.py``, ``weight_decay.py``, ``moving_average.py`` (EMA) and ``accumulation.py`` (gradient accumulation).
"""

from __future__ import annotations

import sys
import warnings

from ..._core import observers
from ..._core.indexed_slices import IndexedSlices
from ..._core.tensor import Tensor, constant
from ...ops.array_ops import cast
from .._state import auto_name, name_scope
from ..variables import Variable
from . import schedules
from .accumulation import AccumulationMixin
from .clipping import ClippingMixin
from .moving_average import MovingAverageMixin
from .serialization import serialize_function
from .weight_decay import WeightDecayMixin

__all__ = ["Optimizer"]

_TF_EAGER_TENSOR = "tensorflow.python.framework.ops.EagerTensor"


def _cast_slices(slices, dtype):
    """An ``IndexedSlices`` with its values cast to ``dtype`` (what ``tf.cast`` does to one)."""
    return IndexedSlices(cast(slices.values, dtype), slices.indices, slices.dense_shape)


_ONES = {}


def _one(dtype):
    """A tensor 1 of ``dtype``, kept (tensors are immutable): the step counter's increment."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = constant(1, dtype=dtype)
    return one


def _all_reduce_sum(grads, variables):
    """``grads`` summed over the replicas of the current ``tf.distribute`` strategy, in its replica context (as
    Keras does on TensorFlow, after clipping and before the update); unchanged elsewhere. ``tf.distribute`` is
    looked up, never loaded: without it no strategy can be current."""
    context = sys.modules.get("tapeflow.distribute._context")
    if context is None:
        return grads
    strategy, replica = context.current()
    if replica is None or strategy.num_replicas_in_sync == 1:
        return grads
    names = [getattr(v, "path", None) or v.name for v in variables]
    return strategy._allreduce(list(grads), False, names)


class Optimizer(ClippingMixin, WeightDecayMixin, MovingAverageMixin, AccumulationMixin):
    """Base class of Keras optimizers.

    Args:
        learning_rate: a Python float (or float subclass), a ``LearningRateSchedule`` (called with the step count
            before each step's increment), or a callable taking no argument that returns the learning rate.
        weight_decay: if set, each step first does ``w -= w * weight_decay * learning_rate``.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip the gradients together to this global L2 norm (one of the three clips only).
        use_ema: keep an exponential moving average of the variables (``ema_momentum``), written into them every
            ``ema_overwrite_frequency`` steps or by ``finalize_variable_values``.
        loss_scale_factor: the gradients are divided by it before use.
        gradient_accumulation_steps: take a step, with the mean gradient, only every that many calls (>= 2).
        name: the name; ``snake_case(class name)`` uniquified per process by default (``sgd``, ``sgd_1``).

    Raises:
        ValueError: for an unknown keyword, a learning rate that is not a float or a callable, a name with
            ``/``, more than one clipping option, or an invalid EMA or accumulation setting.
    """


    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.", stacklevel=2)
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        self.name = name if name is not None else auto_name(type(self).__name__)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue
        self.use_ema = use_ema
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._check_accumulation(gradient_accumulation_steps)
        self._check_moving_average(use_ema, ema_momentum, ema_overwrite_frequency)
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.built = False
        self._variables = []
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        with name_scope(self.name, caller=self):
            self._iterations = Variable(0, name="iteration", dtype="int", trainable=False,
                                        aggregation="only_first_replica")
        self._variables.append(self._iterations)
        if callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            # Exactly ``float`` (or a subclass such as ``np.float64``): ints, strings and tensors are refused.
            if not isinstance(learning_rate, float):
                raise ValueError("Argument `learning_rate` should be float, or an instance of "
                                 "LearningRateSchedule, or a callable (that takes in the current iteration value "
                                 "and returns the corresponding learning rate value). Received instead: "
                                 f"learning_rate={learning_rate}")
            with name_scope(self.name, caller=self):
                self._learning_rate = Variable(learning_rate, name="learning_rate", dtype="float32",
                                               trainable=False, aggregation="only_first_replica")
            self._variables.append(self._learning_rate)

    # --- state ---------------------------------------------------------------------------------------------
    @property
    def iterations(self):
        """The number of steps taken: a Keras ``int64`` variable (with accumulation, a tensor of completed steps)."""
        if self.gradient_accumulation_steps:
            return self._iterations // self.gradient_accumulation_steps
        return self._iterations

    @property
    def variables(self):
        """The optimizer's variables: ``iteration``, ``learning_rate`` (if a float), then the slots."""
        return self._variables[:]

    @property
    def learning_rate(self):
        """The learning-rate variable, or the callable's current value."""
        return self._get_current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        previous = self._learning_rate if isinstance(self._learning_rate, Variable) else None
        if callable(learning_rate):
            self._learning_rate = learning_rate
            if previous is not None:
                self._variables = [v for v in self._variables if v is not previous]
        else:
            if isinstance(self._learning_rate, schedules.LearningRateSchedule):
                raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                                "`learning_rate` constructor argument, hence its learning rate is not settable. If "
                                "you need the learning rate to be settable, you should instantiate the optimizer "
                                "with a float `learning_rate` argument.")
            self._learning_rate.assign(learning_rate)

    def _get_current_learning_rate(self):
        if isinstance(self._learning_rate, schedules.LearningRateSchedule):
            # The schedule sees the step count before this step's increment (step 1 uses ``schedule(0)``).
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable) or not callable(self._learning_rate):
            return self._learning_rate
        return self._learning_rate()

    def build(self, variables):
        """Create the per-variable state for ``variables``; subclasses add their slots after calling this."""
        self._build_moving_averages(variables)
        self._build_accumulators(variables)
        for i, variable in enumerate(variables):
            self._trainable_variables_indices[self._var_key(variable)] = i
        self._trainable_variables = variables[:]
        self.built = True

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None):
        """Create a non-trainable Keras variable named ``<optimizer>/<name>`` and track it in ``variables``."""
        with name_scope(self.name, caller=self):
            variable = Variable(initializer, shape=shape, dtype=dtype, trainable=False, aggregation=aggregation,
                                layout=layout, name=name)
        self._variables.append(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A slot shaped and typed like ``reference_variable``, named after it: ``sgd/w_0_momentum`` for ``w:0``.

        Keras variables are named by their path (``dense/kernel`` gives ``dense_kernel_momentum``).
        """
        name = name or "var"
        if hasattr(reference_variable, "path"):
            name = f"{reference_variable.path.replace('/', '_')}_{name}"
        else:
            ref_name = str(reference_variable.name).replace("/", "_").replace(":", "_")
            name = f"{ref_name}_{name}"
        return self.add_variable(shape=reference_variable.shape, initializer=initializer,
                                 dtype=reference_variable.dtype, name=name,
                                 layout=getattr(reference_variable, "_layout", None))

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """One slot per variable for ``name`` (a list of slot lists for a list of names).

        Variables flagged ``overwrite_with_gradient`` get ``None``: the optimizer never steps them.
        """
        names = [name] if isinstance(name, str) else list(name)
        if isinstance(name, str):
            initializers = [initializer]
        elif isinstance(initializer, str) or callable(initializer):
            initializers = [initializer] * len(names)
        else:
            initializers = list(initializer)
        if len(names) != len(initializers):
            raise ValueError(f"The number of provided names must match the number of provided initializers.  "
                             f"Received name='{name}', initializer='{initializer}'")
        slots = tuple([] for _ in names)
        for variable in trainable_variables:
            skip = getattr(variable, "overwrite_with_gradient", False)
            for i, (slot_name, init) in enumerate(zip(names, initializers)):
                slot = None if skip else self.add_variable_from_reference(variable, name=slot_name,
                                                                          initializer=init)
                slots[i].append(slot)
        return slots[0] if isinstance(name, str) else slots

    def _var_key(self, variable):
        """The id that maps a variable to its slots (a Keras variable's is the ``tf.Variable`` it holds)."""
        if isinstance(variable, Variable):
            variable = variable.value
        try:
            return variable._unique_id
        except AttributeError:
            if isinstance(variable, Tensor):
                # TF's tensors are a C type, whose full dotted name shows in the message.
                raise AttributeError(f"'{_TF_EAGER_TENSOR}' object has no attribute '_unique_id'") from None
            raise

    def _get_variable_index(self, variable):
        return self._trainable_variables_indices[self._var_key(variable)]

    def _check_variables_are_known(self, variables):
        for v in variables:
            if self._var_key(v) not in self._trainable_variables_indices:
                raise ValueError(f"Unknown variable: {v!s}. This optimizer can only be called for the variables "
                                 "it was originally built with. When working with a new set of variables, you "
                                 "should recreate a new optimizer instance.")

    # --- updating variables (what ``update_step`` uses) -----------------------------------------------------
    def assign(self, variable, value):
        """``variable.assign(value)``, with ``value`` cast to the variable's dtype (an ``IndexedSlices`` updates
        its rows only: ``scatter_update``)."""
        variable = variable.value if isinstance(variable, Variable) else variable
        if isinstance(value, IndexedSlices):
            variable.scatter_update(_cast_slices(value, variable.dtype))
        else:
            variable.assign(cast(value, variable.dtype))

    def assign_add(self, variable, value):
        """``variable.assign_add(value)``, with ``value`` cast to the variable's dtype (``scatter_add`` for an
        ``IndexedSlices``)."""
        variable = variable.value if isinstance(variable, Variable) else variable
        if isinstance(value, IndexedSlices):
            variable.scatter_add(_cast_slices(value, variable.dtype))
        else:
            variable.assign_add(cast(value, variable.dtype))

    def assign_sub(self, variable, value):
        """``variable.assign_sub(value)``, with ``value`` cast to the variable's dtype (``scatter_sub`` for an
        ``IndexedSlices``: only its rows change, repeated indices adding up)."""
        variable = variable.value if isinstance(variable, Variable) else variable
        if isinstance(value, IndexedSlices):
            variable.scatter_sub(_cast_slices(value, variable.dtype))
        else:
            variable.assign_sub(cast(value, variable.dtype))

    # --- applying gradients --------------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        """Apply ``(gradient, variable)`` pairs (a list, ``zip`` or generator) and return ``iterations``.

        Raises:
            ValueError: for no pairs (``not enough values to unpack``), when every gradient is ``None``, or for
                a variable the optimizer was not built with.
        """
        grads, trainable_variables = zip(*grads_and_vars)
        self.apply(grads, trainable_variables)
        # tf.keras (Keras 2) returned the iteration counter; Keras 3 keeps that for compatibility.
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Apply ``grads`` to ``trainable_variables``, or to the variables the optimizer was built with.

        An empty ``grads`` does nothing (``iterations`` stays).
        """
        # The update's ops are no user's code: keep them out of tapeflow.debug's provenance log, as the backward
        # pass does (a frame walk per op would cost more than the update itself on small models).
        token = observers.suspend()
        try:
            return self._apply(grads, trainable_variables)
        finally:
            observers.resume(token)

    def _apply(self, grads, trainable_variables):
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built "
                                 "on a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            if len(grads) != len(self._trainable_variables_indices):
                raise ValueError("When passing `grads` as a list of gradient tensors, the gradients must match "
                                 "`optimizer.variables` one-to-on. Received a list of "
                                 f"{len(grads)} gradients, but the optimizer is tracking "
                                 f"{len(self._trainable_variables)} trainable variables.")
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                with name_scope(self.name, caller=self):
                    self.build(trainable_variables)
                self.built = True
            self._check_variables_are_known(trainable_variables)
        with name_scope(self.name, caller=self):
            grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
            grads, trainable_variables = self._overwrite_variables_directly_with_gradients(
                grads, trainable_variables)
            if grads:
                if self.loss_scale_factor is not None:
                    grads = [g / self.loss_scale_factor for g in grads]
                self._step_or_accumulate(grads, trainable_variables)
                self._update_moving_averages()
                for variable in trainable_variables:
                    if variable.constraint is not None:
                        variable.assign(variable.constraint(variable))
        # The counter's own tf.Variable, incremented by a one of its dtype: Keras's ``assign_add`` would convert,
        # cast, add and check shapes for the same effect, a few hundred bytecodes on every training step.
        counter = self._iterations.value
        counter.assign_add(_one(counter.dtype), read_value=False)

    def _step(self, grads, trainable_variables):
        """Clip, decay and take ``update_step`` for each variable (on the ``tf.Variable`` a Keras one holds)."""
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(trainable_variables)
        grads = _all_reduce_sum(grads, trainable_variables)
        self._backend_update_step(grads, trainable_variables, self.learning_rate)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        """``update_step`` for each pair, on the ``tf.Variable`` a Keras variable holds (a hook for Nadam)."""
        for grad, variable in zip(grads, trainable_variables):
            if isinstance(variable, Variable):
                variable = variable.value
            self.update_step(grad, variable, learning_rate)

    def _filter_empty_gradients(self, grads, variables):
        grads, variables = list(grads), list(variables)
        missing = []
        for i in range(len(grads) - 1, -1, -1):
            if grads[i] is None:
                grads.pop(i)
                v = variables.pop(i)
                missing.append(v.path if hasattr(v, "path") else v.name)
        if not grads:
            raise ValueError("No gradients provided for any variable.")
        if missing:
            warnings.warn(f"Gradients do not exist for variables {list(reversed(missing))} when minimizing the "
                          "loss. If using `model.compile()`, did you forget to provide a `loss` argument?",
                          stacklevel=2)
        return grads, variables

    def scale_loss(self, loss):
        """``loss * loss_scale_factor`` (``loss`` itself without a factor), before taking gradients."""
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    def set_weights(self, weights):
        """Assign ``weights`` (values in ``variables`` order) to the optimizer's variables.

        Raises:
            ValueError: before the optimizer is built, or for a value of the wrong shape.
        """
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            if variable.shape != weight.shape:
                raise ValueError(f"Optimizer variable {self._var_key(variable)} has shape {variable.shape!s} not "
                                 f"compatible with provided weight shape {weight.shape!s}.")
            variable.assign(weight)

    # --- configuration -------------------------------------------------------------------------------------
    def get_config(self):
        """The constructor arguments as a dict (``learning_rate`` as a float, or a callable's serialization)."""
        if isinstance(self._learning_rate, schedules.LearningRateSchedule):
            learning_rate = schedules.serialize(self._learning_rate)
        elif isinstance(self._learning_rate, Variable):
            learning_rate = float(self._learning_rate.numpy())
        else:
            learning_rate = serialize_function(self._learning_rate)
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new optimizer (without state) from ``get_config()``'s output (a schedule's config is rebuilt)."""
        if schedules.is_schedule_config(config.get("learning_rate")):
            config = {**config, "learning_rate": schedules.deserialize(config["learning_rate"],
                                                                       custom_objects=custom_objects)}
        return cls(**config)

"""``compile``/``fit``/``evaluate``/``predict`` for Keras models, on GradientTape steps over in-memory data or the
batches of a ``tf.data.Dataset`` (``_epochs.py`` makes them, with Keras 3's rules for each).

The loop follows Keras 3: the logged ``loss`` is a ``Mean`` of the batch losses weighted by batch size, compile
metrics are running means reset at each epoch, epoch logs are the last step's results plus ``val_``-prefixed
``evaluate`` results, and ``train_step(data)`` (overridable) returns the logs dict. Shuffling uses NumPy's global
generator, so the order of samples is not TensorFlow's (``shuffle=False`` gives Keras's order exactly).
"""

from __future__ import annotations

import contextlib
import sys
import warnings

import numpy as np

from .. import callbacks as _callbacks
from .. import losses as _losses
from .. import metrics as _metrics
from .. import optimizers as _optimizers
from ..layers.base import traced_batch
from ..metrics.base import MeanMetricWrapper
from . import _compile, _data
from ._distributed import Sharding, strategy_of
from ._epochs import Batches, is_dataset

__all__ = ["TrainingMixin"]


def _tf():
    import tapeflow

    return tapeflow


def _get_optimizer(identifier):
    return _optimizers.get(identifier) if isinstance(identifier, str) else identifier


class _Accuracy(_metrics.Metric):
    """``"accuracy"``/``"acc"`` in ``compile``: binary, sparse or categorical accuracy, chosen from the first
    batch's shapes as Keras does; reported under the name given."""

    def __init__(self, name, loss):
        super().__init__(name=name)
        self._loss = loss
        self._inner = None

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self._inner is None:
            y_rank, p_rank = len(y_true.shape), len(y_pred.shape)
            p_last = y_pred.shape[-1] if p_rank else None
            loss_name = getattr(self._loss, "__name__", type(self._loss).__name__)
            if p_last == 1 or "binary" in loss_name.lower():
                self._inner = _metrics.BinaryAccuracy(name=self.name)
            elif y_rank < p_rank or (y_rank and y_true.shape[-1] == 1 and (p_last or 0) > 1):
                self._inner = _metrics.SparseCategoricalAccuracy(name=self.name)
            else:
                self._inner = _metrics.CategoricalAccuracy(name=self.name)
        self._inner.update_state(y_true, y_pred, sample_weight=sample_weight)

    def result(self):
        return self._inner.result() if self._inner is not None else _tf().constant(0.0)

    def reset_state(self):
        if self._inner is not None:
            self._inner.reset_state()

    @property
    def variables(self):
        return self._inner.variables if self._inner is not None else []


def _get_metric(identifier, loss):
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return _Accuracy(identifier, loss)
        obj = getattr(_metrics, identifier, None)
        if obj is None:
            obj = getattr(_losses, identifier, None)
        if isinstance(obj, type) and issubclass(obj, _metrics.Metric):
            return obj()
        if callable(obj):
            return MeanMetricWrapper(obj, name=identifier)
        raise ValueError(f"Could not interpret metric identifier: {identifier}")
    if isinstance(identifier, _metrics.Metric):
        return identifier
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=identifier.__name__)
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def _python(value):
    if hasattr(value, "numpy"):
        value = value.numpy()
    return float(value) if np.ndim(value) == 0 else value


class TrainingMixin:
    """The training API of ``Model``: ``compile``, ``fit``, ``evaluate``, ``predict`` and their steps."""

    def _init_training(self):
        self.compiled = False
        self.optimizer = None
        self.loss = None
        self._compile_metrics = None
        self._compile_loss = None
        self._loss_tracker = None
        self.stop_training = False
        self.history = None
        # The strategy current when the model was made (Keras keeps it): its loops train across its replicas.
        # ``tf.distribute`` is looked up, never loaded: without it no strategy can be current.
        context = sys.modules.get("tapeflow.distribute._context")
        self._distribute_strategy = None if context is None else context.current()[0]

    @property
    def distribute_strategy(self):
        """The ``tf.distribute`` strategy the model was made under (the current one if none)."""
        if self.__dict__.get("_distribute_strategy") is not None:
            return self._distribute_strategy
        import tapeflow.distribute as distribute

        return distribute.get_strategy()

    def _sharding(self):
        """The loop's ``Sharding`` under a strategy with several replicas, else ``None``."""
        strategy = strategy_of(self)
        return None if strategy is None else Sharding(strategy)

    @staticmethod
    def _loop_scope(sharding):
        return sharding.strategy.scope() if sharding is not None else contextlib.nullcontext()

    # --- compile -------------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        """Set the optimizer (name or object), the loss and the metrics.

        ``loss``: a name, ``Loss`` or function (applied to every output), a list with one per output or a dict keyed
        by output names (``None`` entries leave an output out); ``loss_weights``: a float, list or dict alike;
        ``metrics``/``weighted_metrics``: a list (of lists, one per output, for several outputs) or a dict keyed by
        output names. With several losses each output's unweighted loss is logged as ``<output>_loss`` and its
        metrics as ``<output>_<metric>``. ``run_eagerly``, ``jit_compile`` and ``steps_per_execution`` are accepted
        and have no effect (tapeflow always runs eagerly, one step at a time). With ``auto_scale_loss`` and a model
        whose dtype policy is ``"mixed_float16"``, the optimizer is wrapped in a ``LossScaleOptimizer`` (named
        ``loss_scale_optimizer``), as Keras does.
        """
        self.optimizer = _get_optimizer(optimizer)
        if (auto_scale_loss and self.dtype_policy.name == "mixed_float16" and self.optimizer
                and not isinstance(self.optimizer, _optimizers.LossScaleOptimizer)):
            self.optimizer = _optimizers.LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
        output_names = getattr(self, "output_names", None)
        self._compile_loss = _compile.CompileLoss(loss, loss_weights, output_names) if loss is not None else None
        self.loss = loss
        self._loss_weights = loss_weights
        self._compile_metrics = None
        if metrics is not None or weighted_metrics is not None:
            self._compile_metrics = _compile.CompileMetrics(metrics, weighted_metrics, output_names,
                                                            make_metric=lambda m: _get_metric(m, loss))
        self._loss_tracker = _metrics.Mean(name="loss")
        self.compiled = True
        self.run_eagerly = run_eagerly
        # What ``get_compile_config`` saves (Keras's ``_compile_config``): the optimizer object, the rest as given.
        self._compile_config = {"optimizer": self.optimizer, "loss": loss, "loss_weights": loss_weights,
                                "metrics": metrics, "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
                                "steps_per_execution": steps_per_execution,
                                "jit_compile": False if jit_compile == "auto" else jit_compile}

    def get_compile_config(self):
        """The arguments of ``compile`` as Keras saves them (the optimizer, losses and metrics as configs), or
        ``{}`` for a model never compiled."""
        if not self.compiled or "_compile_config" not in self.__dict__:
            return {}
        from ..saving.serialization_lib import serialize_keras_object

        return {k: serialize_keras_object(v) for k, v in self._compile_config.items()}

    def compile_from_config(self, config):
        """Compile with :meth:`get_compile_config`'s output, and build the optimizer's slots for the trainable
        variables when the model is built (so a saved optimizer state can be loaded into it)."""
        from .model import Model

        if type(self).compile is not Model.compile:
            warnings.warn("`compile()` was not called as part of model loading because the model's `compile()` "
                          "method is custom. All subclassed Models that have `compile()` overridden should also "
                          "override `get_compile_config()` and `compile_from_config(config)`. Alternatively, you "
                          "can call `compile()` manually after loading.", stacklevel=2)
            return
        from ..saving.serialization_lib import deserialize_keras_object

        config = deserialize_keras_object(config)
        self.compile(**config)
        if self.optimizer is not None and self.built:
            self.optimizer.build(self.trainable_variables)

    def _compiled_step(self, step_fn, data):
        """Run ``step_fn(data)`` as Keras runs a step: traced (a ``tf.function`` with ``reduce_retracing``) unless
        ``run_eagerly``. The traced batch size is unknown, so the per-output loss trackers (which weight by the
        static batch size) count each batch once."""
        sharding = getattr(self, "_active_sharding", None)
        if sharding is not None:  # each replica's step in its replica context (Keras: ``strategy.run``)
            self._active_sharding = None
            try:
                return sharding.strategy.run(self._compiled_step, args=(step_fn, data))
            finally:
                self._active_sharding = sharding
        compile_loss = getattr(self, "_compile_loss", None)
        if getattr(self, "run_eagerly", False):
            return step_fn(data)
        traced = self.__dict__.setdefault("_traced_steps", {})
        fn = traced.get(step_fn.__name__)
        if fn is None:
            fn = traced[step_fn.__name__] = _tf().function(step_fn, reduce_retracing=True)
            fn._detector = None  # Keras's own steps never set off TF's retracing warning
        if compile_loss is None:
            return fn(data)
        compile_loss.static_batch = None
        try:
            return fn(data)
        finally:
            compile_loss.static_batch = _compile.ACTUAL

    @property
    def metrics(self):
        """The loss tracker, the compile metrics (one ``compile_metrics`` entry), the per-output loss trackers."""
        out = [self._loss_tracker] if getattr(self, "_loss_tracker", None) is not None else []
        if getattr(self, "_compile_metrics", None) is not None:
            out.append(self._compile_metrics)
        if getattr(self, "_compile_loss", None) is not None:
            out += self._compile_loss.metrics
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        """Reset the state of every metric in ``metrics``."""
        for m in self.metrics:
            m.reset_state()

    def _assert_compiled(self):
        if not getattr(self, "compiled", False):
            raise ValueError("You must call `compile()` before using the model.")

    # --- steps ---------------------------------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of ``(y, y_pred)`` plus the model's ``losses`` (regularization, ``add_loss``).

        Raises:
            ValueError: when there is no loss at all (Keras's message).
        """
        tf = _tf()
        losses = []
        if getattr(self, "_compile_loss", None) is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                losses.append(value)
        for extra in self.losses:
            losses.append(_losses.scale_loss_for_distribution(tf.cast(extra, "float32")))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return losses[0] if len(losses) == 1 else tf.add_n(losses)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compile metrics with a batch and return every metric's result."""
        if getattr(self, "_compile_metrics", None) is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        """``{metric name: result}`` for every metric in ``metrics``."""
        out = {}
        for m in self.metrics:
            if isinstance(m, _compile.CompileMetrics) and not m.built:
                continue
            result = m.result()
            if isinstance(result, dict):
                out.update(result)
            else:
                out[m.name] = result
        return out

    def _batch_size_of(self, x):
        # ``tf.shape``, as Keras: a traced step's static batch size is unknown (``None``).
        return _tf().shape(_data._leaves(x)[0])[0]

    def train_step(self, data):
        """One GradientTape step on ``data`` (``x``, ``(x, y)`` or ``(x, y, sample_weight)``); returns the logs."""
        tf = _tf()
        x, y, sample_weight = _data.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            # The optimizer's loss scale (``loss_scale_factor``, or a LossScaleOptimizer's dynamic scale), which
            # it divides out of the gradients again.
            scaled = self.optimizer.scale_loss(loss) if self.optimizer is not None else loss
        self._loss_tracker.update_state(_losses.unscale_loss_for_distribution(loss),
                                        sample_weight=self._batch_size_of(x))
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(scaled, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """Evaluate one batch: update the loss tracker and metrics, return the logs."""
        x, y, sample_weight = _data.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(_losses.unscale_loss_for_distribution(loss),
                                        sample_weight=self._batch_size_of(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's output on one batch (inference mode)."""
        x, _, _ = _data.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # --- loops ---------------------------------------------------------------------------------------------
    def _callback_list(self, callbacks, verbose, epochs, steps, sharding=None):
        if isinstance(callbacks, _callbacks.CallbackList):
            callbacks.set_model(self)
            return callbacks
        if sharding is not None and not sharding.chief:
            verbose = 0  # the progress bar of rank 0 alone
        progbar = verbose != 0 and hasattr(_callbacks, "ProgbarLogger")
        return _callbacks.CallbackList(callbacks, add_history=True, add_progbar=progbar, model=self,
                                       verbose=verbose, epochs=epochs, steps=steps)

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        """Train for ``epochs`` epochs on in-memory data or a ``tf.data.Dataset``; returns the ``History`` callback.

        Raises:
            ValueError: if the model is not compiled, or for an unusable ``validation_split``.
        """
        self._assert_compiled()
        with self._distributed() as sharding:
            verbose = 1 if verbose == "auto" else verbose
            # Keras's order: the validation split first (so class weights weigh the training part only), then the
            # array adapter's checks and class weights.
            if validation_split and validation_data is None:
                if is_dataset(x):
                    raise ValueError("Argument `validation_split` is only supported for tensors or NumPy arrays.Found "
                                     f"incompatible type in the input: {[type(x)]}")
                (x, y, sample_weight), validation_data = _data.split((x, y, sample_weight), validation_split)
            batches = Batches(x, y, sample_weight, batch_size or 32, steps_per_epoch, shuffle, class_weight)
            if validation_data is not None:
                vx, vy, vsw = (validation_data, None, None) if is_dataset(validation_data) else \
                    _data.unpack_x_y_sample_weight(tuple(validation_data))
            cbs = self._callback_list(callbacks, verbose, epochs, batches.num_batches, sharding)
            self.stop_training = False
            cbs.on_train_begin()
            logs = {}
            trace = None if self.built else traced_batch(_static(batches, sharding))
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                cbs.on_epoch_begin(epoch)
                for step, data in _epoch(batches, sharding):
                    cbs.on_train_batch_begin(step)
                    if trace is not None:
                        with trace:
                            logs = self._compiled_step(self.train_step, data)
                        trace = None
                    else:
                        logs = self._compiled_step(self.train_step, data)
                    cbs.on_train_batch_end(step, logs)
                    if self.stop_training:
                        break
                if sharding is not None:
                    logs = sharding.metric_logs(self, logs)
                epoch_logs = {k: _python(logs[k]) for k in sorted(logs)}
                if validation_data is not None and (epoch + 1) % validation_freq == 0:
                    val_logs = self.evaluate(vx, vy, sample_weight=vsw, batch_size=validation_batch_size or batch_size,
                                             steps=validation_steps, verbose=0, return_dict=True,
                                             _callbacks=cbs)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                cbs.on_epoch_end(epoch, epoch_logs)
                if self.stop_training:
                    break
            cbs.on_train_end(epoch_logs if epochs > initial_epoch else None)
            return self.history

    @contextlib.contextmanager
    def _distributed(self):
        """The loop's ``Sharding`` (``None`` unless the model's strategy has several replicas), with the strategy's
        scope entered and the steps sent through ``strategy.run`` while it lasts."""
        sharding = self._sharding()
        previous = self.__dict__.get("_active_sharding")
        with self._loop_scope(sharding):
            self._active_sharding = sharding
            try:
                yield sharding
            finally:
                self._active_sharding = previous

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics over ``x``/``y``: a float, a list ``[loss, metric...]`` or, with
        ``return_dict``, a dict."""
        self._assert_compiled()
        with self._distributed() as sharding:
            verbose = 1 if verbose == "auto" else verbose
            batches = Batches(x, y, sample_weight, batch_size or 32, steps)
            cbs = kwargs.pop("_callbacks", None)
            if kwargs:
                raise ValueError(f"Arguments not recognized: {kwargs}")
            if cbs is None:
                cbs = self._callback_list(callbacks, verbose, 1, batches.num_batches, sharding)
            self.reset_metrics()
            cbs.on_test_begin()
            logs = {}
            trace = None if self.built else traced_batch(_static(batches, sharding))
            for step, data in _epoch(batches, sharding):
                cbs.on_test_batch_begin(step)
                if trace is not None:
                    with trace:
                        logs = self._compiled_step(self.test_step, data)
                    trace = None
                else:
                    logs = self._compiled_step(self.test_step, data)
                cbs.on_test_batch_end(step, logs)
            if sharding is not None:
                logs = sharding.metric_logs(self, logs)
            logs = {k: _python(logs[k]) for k in sorted(logs)}
            cbs.on_test_end(logs)
            if return_dict:
                return logs
            return self._flatten_metrics_in_order(logs)

    def _flatten_metrics_in_order(self, logs):
        """Keras's list order: values named like ``metrics`` entries (for ``compile_metrics``, its metrics' own
        names, which per-output names do not match), then the other keys sorted."""
        names = []
        for m in self.metrics:
            names += [s.name for s in m.metrics] if isinstance(m, _compile.CompileMetrics) else [m.name]
        values = [logs[n] for n in names if n in logs] + [logs[k] for k in sorted(logs) if k not in names]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs on ``x``, computed in batches and concatenated (NumPy arrays, same nesting)."""
        with self._distributed() as sharding:
            verbose = 1 if verbose == "auto" else verbose
            batches = Batches(x, batch_size=batch_size or 32, steps=steps, inputs_only=True)
            cbs = self._callback_list(callbacks, verbose, 1, batches.num_batches, sharding)
            cbs.on_predict_begin()
            outputs = []
            for step, data in _epoch(batches, sharding):
                cbs.on_predict_batch_begin(step)
                out = self._compiled_step(self.predict_step, data)
                out = _data.to_numpy(out)
                outputs.append(out if sharding is None else sharding.gather(out))
                cbs.on_predict_batch_end(step, {"outputs": out})
            cbs.on_predict_end()
            return _concat(outputs)

    # --- single batches ----------------------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch, after resetting the metrics (as Keras does): the loss and metrics of
        that batch alone, as ``evaluate`` returns them (a float, a list, or a dict with ``return_dict``).

        Raises:
            ValueError: if the model is not compiled, or for both ``sample_weight`` and ``class_weight``.
        """
        self._assert_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("Arguments `sample_weight` and `class_weight` cannot be specified at the same time. "
                                 f"Received: sample_weight={sample_weight}, class_weight={class_weight}")
            sample_weight = _data.class_weights(_data.to_numpy(y), class_weight)
        return self._on_batch(self.train_step, x, y, sample_weight, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Evaluate one batch after resetting the metrics; returns like ``train_on_batch``.

        Raises:
            ValueError: if the model is not compiled.
        """
        self._assert_compiled()
        return self._on_batch(self.test_step, x, y, sample_weight, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs on one batch, as NumPy arrays (same nesting)."""
        x = _data.to_numpy(x)
        return _data.to_numpy(self.predict_step((_data.to_tensors(x),)))

    def _on_batch(self, step_fn, x, y, sample_weight, return_dict):
        x, y, sample_weight = _data.to_numpy(x), _data.to_numpy(y), _data.to_numpy(sample_weight)
        self.reset_metrics()
        data = (_data.to_tensors(x),) if y is None else (_data.to_tensors(x), _data.to_tensors(y))
        if y is not None and sample_weight is not None:
            data += (_data.to_tensors(sample_weight),)
        logs = self._compiled_step(step_fn, data)
        logs = {k: _python(logs[k]) for k in sorted(logs)}
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)


def _epoch(batches, sharding):
    return batches.epoch() if sharding is None else sharding.epoch(batches)


def _static(batches, sharding):
    return batches.static_batch if sharding is None else sharding.per_replica(batches.static_batch)


def _concat(batches):
    first = batches[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_concat([b[i] for b in batches]) for i in range(len(first)))
    if isinstance(first, dict):
        return {k: _concat([b[k] for b in batches]) for k in first}
    return np.concatenate(batches, axis=0)

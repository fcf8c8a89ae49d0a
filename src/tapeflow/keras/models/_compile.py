"""What ``compile`` turns ``loss``/``loss_weights``/``metrics`` into, for one output or several (Keras 3.15).

``CompileLoss`` pairs each model output with its loss (a list with one entry per output, a dict keyed by output
names, or one loss broadcast to every output), weights them, sums them and, when there are several, tracks each
unweighted loss in a ``Mean`` named ``<output>_loss``. ``CompileMetrics`` is one metric whose result is the dict of
every per-output metric, named ``<output>_<metric>`` (bare ``<metric>`` for a single output), with Keras's rules for
repeated names (``_1``, ``weighted_``).
"""

from __future__ import annotations

from .. import losses as _losses
from .. import metrics as _metrics

__all__ = ["CompileLoss", "CompileMetrics", "is_nested", "flatten"]


def _tf():
    import tapeflow

    return tapeflow


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def flatten(x):
    """Leaves in Keras's order (dicts by sorted key); ``None`` counts as a leaf."""
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in flatten(item)]
    return [x]


def _batch_size(y):
    return int(flatten(y)[0].shape[0])


def _output_shapes(y_true, y_pred):
    t_rank, p_rank = len(y_true.shape), len(y_pred.shape)
    t_last = y_true.shape[-1] if t_rank else None
    p_last = y_pred.shape[-1] if p_rank else None
    return p_last == 1, t_rank < p_rank or (t_last == 1 and (p_last or 0) > 1)


def get_loss(identifier, y_true=None, y_pred=None):
    """A ``Loss`` object; ``"crossentropy"``/``"ce"`` pick binary, sparse or categorical from the shapes."""
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("crossentropy", "ce") and y_pred is not None:
        binary, sparse = _output_shapes(y_true, y_pred)
        loss = (_losses.binary_crossentropy if binary else
                _losses.sparse_categorical_crossentropy if sparse else _losses.categorical_crossentropy)
    else:
        loss = _losses.get(identifier) if isinstance(identifier, (str, dict)) else identifier
    if isinstance(loss, _losses.Loss):
        return loss
    name = identifier if isinstance(identifier, str) else getattr(loss, "__name__", type(loss).__name__)
    return _losses.LossFunctionWrapper(loss, name=name)


ACTUAL = object()  # the batch size of the data itself (eager steps)


class _Entry:
    __slots__ = ("key", "loss", "weight", "name", "tracker")

    def __init__(self, key, loss, weight, name):
        self.key, self.loss, self.weight, self.name, self.tracker = key, loss, weight, name, None


class CompileLoss:
    """The compiled loss: built on the first batch from the structure of ``y_pred``.

    Raises:
        ValueError: for ``loss_weights`` of another type or count, or a loss dict whose keys are not the output
            names (Keras's messages).
    """

    def __init__(self, loss, loss_weights=None, output_names=None):
        if loss_weights and not isinstance(loss_weights, (list, tuple, dict, float)):
            raise ValueError("Expected `loss_weights` argument to be a float (single output case) or a list, tuple, "
                             f"or dict (multiple output case). Received instead: loss_weights={loss_weights} of "
                             f"type {type(loss_weights)}")
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self.output_names = output_names
        self.built = False
        self._entries = []
        self.metrics = []
        # TF's compiled steps read the batch size from the traced (static) shape: ``fit``/``evaluate`` set it here,
        # ``None`` when the trace left the batch dimension unknown (each batch then counts once).
        self.static_batch = ACTUAL

    def _pair_weights(self, loss, weights):
        """``[(loss, weight)]`` per flat loss, or one pair when ``loss`` is a single identifier."""
        flat_loss = flatten(loss)
        if weights is None:
            return [(x, None) for x in flat_loss]
        if not is_nested(loss) and not is_nested(weights):
            return [(loss, weights)]
        flat_w = flatten(weights)
        if len(flat_loss) != len(flat_w):
            raise ValueError(f"`loss_weights` must match the number of losses, got {len(flat_loss)} losses and "
                             f"{len(weights) if is_nested(weights) else 1} weights.")
        return list(zip(flat_loss, flat_w))

    def build(self, y_true, y_pred):
        loss, weights, names = self._user_loss, self._user_loss_weights, self.output_names
        if names and isinstance(loss, dict) and not isinstance(y_pred, dict):
            if set(names) != set(loss):
                raise ValueError(f"Expected keys {names} in loss dict, but found loss.keys()={list(loss.keys())}")
            loss = [loss[n] for n in names]
            if isinstance(weights, dict):
                weights = [weights[n] for n in names]
        if not is_nested(y_pred):
            pairs = self._pair_weights(loss, weights)
            keys, outs = [None], [None]
            if len(pairs) != 1:
                raise ValueError(f"`loss` has {len(pairs)} entries but the model has a single output.")
            name = names[0] if names else None
        else:
            keys = sorted(y_pred) if isinstance(y_pred, dict) else list(range(len(y_pred)))
            if isinstance(y_pred, dict):
                outs = keys
            else:
                outs = list(names) if names and len(names) == len(keys) else [None] * len(keys)
            if isinstance(loss, dict) and not isinstance(y_pred, dict):
                raise KeyError("The path: () in the `loss` argument, can't be found in the model's output (`y_pred`).")
            pairs = self._pair_weights(loss, weights)
            if not is_nested(loss):
                pairs = pairs * len(keys)
            elif isinstance(loss, dict):
                missing = [k for k in loss if k not in y_pred]
                if missing:
                    raise KeyError(f"The path: {(missing[0],)} in the `loss` argument, can't be found in either the "
                                   "model's output (`y_pred`) or in the labels (`y_true`).")
                by_key = dict(zip(sorted(loss), pairs))
                pairs = [by_key.get(k, (None, None)) for k in keys]
            elif len(pairs) != len(keys):
                raise ValueError(f"`loss` has {len(pairs)} entries but the model has {len(keys)} outputs.")
        self._entries = []
        for key, out, (ident, weight) in zip(keys, outs, pairs):
            if ident is None:
                continue
            yt = y_true if key is None else y_true[key]
            yp = y_pred if key is None else y_pred[key]
            resolved = get_loss(ident, yt, yp)
            if key is None:
                name = out if out is not None else resolved.name
            else:
                name = str(out if out is not None else resolved.name)
            self._entries.append(_Entry(key, resolved, weight, name))
        if len(self._entries) > 1:
            for e in self._entries:
                e.tracker = _metrics.Mean(name=f"{e.name}_loss")
            self.metrics = [e.tracker for e in self._entries]
        self.built = True

    def _align_y_true(self, y_true, y_pred):
        if isinstance(y_pred, (list, tuple)):
            if isinstance(y_true, dict) and self.output_names and set(y_true) == set(self.output_names):
                return [y_true[n] for n in self.output_names]
            if not is_nested(y_true) and len(y_pred) == 1:
                return [y_true]
        return y_true

    def __call__(self, y_true, y_pred, sample_weight=None):
        tf = _tf()
        if y_true is None and self.static_batch is not ACTUAL:
            # A traced step converts the missing targets in graph mode, where TF words the refusal this way.
            raise ValueError("None values not supported.")
        y_true = self._align_y_true(y_true, y_pred)
        if not self.built:
            self.build(y_true, y_pred)
        total = None
        for e in self._entries:
            yt = y_true if e.key is None else y_true[e.key]
            yp = y_pred if e.key is None else y_pred[e.key]
            sw = sample_weight[e.key] if e.key is not None and is_nested(sample_weight) else sample_weight
            value = tf.cast(e.loss(yt, yp, sample_weight=sw) if sw is not None else e.loss(yt, yp), "float32")
            if e.tracker is not None:
                batch = _batch_size(yp) if self.static_batch is ACTUAL else self.static_batch
                e.tracker.update_state(_losses.unscale_loss_for_distribution(value), sample_weight=batch)
            if e.weight is not None:
                value = value * e.weight
            total = value if total is None else total + value
        return total


class _MetricsList:
    def __init__(self, metrics, output_name):
        self.metrics = metrics
        self.output_name = output_name


class CompileMetrics(_metrics.Metric):
    """The compiled metrics and weighted metrics, as one metric whose ``result()`` is a dict.

    Raises:
        ValueError: for ``metrics``/``weighted_metrics`` that are not a list, tuple or dict (Keras's message), or
            whose structure does not match the outputs.
    """

    def __init__(self, metrics, weighted_metrics, output_names=None, make_metric=None):
        super().__init__(name="compile_metrics")
        for arg, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(f"Expected `{arg}` argument to be a list, tuple, or dict. Received instead: "
                                 f"{arg}={value} of type {type(value)}")
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self.output_names = output_names
        self._make = make_metric
        self.built = False
        self._flat_metrics = []
        self._flat_weighted = []
        self._resolved_names = None

    @property
    def metrics(self):
        """Every per-output metric object, metrics first, then weighted metrics."""
        return [m for mls in self._flat_metrics + self._flat_weighted if mls for m in mls.metrics]

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def _flatten_y(self, y):
        if isinstance(y, dict) and self._resolved_names is not None:
            return [y[n] for n in self._resolved_names]
        return flatten(y)

    def _list(self, spec, output_name):
        if spec is None:
            return None
        specs = flatten(spec) if isinstance(spec, (list, tuple)) else [spec]
        return _MetricsList([self._make(s) for s in specs], output_name)

    def _build_set(self, spec, n, names, arg):
        if not spec:
            return [None] * n
        if n == 1:
            return [self._list(flatten(spec), None)]
        per_output = None
        if isinstance(spec, (list, tuple)) and len(spec) == n:
            per_output = list(spec)
        elif names and isinstance(spec, dict) and len(spec) <= n and set(spec) <= set(names):
            per_output = [spec.get(name) for name in names]
        if per_output is None:
            got = len(spec)
            kind = "tuple" if isinstance(spec, (list, tuple)) else "dict"
            head = (f"tuple arity mismatch; expected: {n}, got: {got}; tuple: {tuple(spec)}." if kind == "tuple"
                    else f"dictionary key mismatch; expected keys: {names}; got: {sorted(spec)}")
            shape = ["X"] * n
            where = (f"either be a dict or a list matching the output names of the functional model "
                     f"{self.output_names} or match" if self.output_names else "match")
            raise ValueError(f"{head}\nInvalid `{arg}`. `{arg}` should contain metrics objects and {where} the output "
                             f"structure of the model: {shape}.\nReceived: {arg}={spec}")
        outs = names if names else [None] * n
        return [self._list(s, o) for s, o in zip(per_output, outs)]

    def build(self, y_true, y_pred):
        n = len(flatten(y_pred))
        flat = is_nested(y_pred) and len(y_pred) == n
        names = self.output_names
        if flat and isinstance(y_pred, dict):
            names = list(self.output_names) if self.output_names and set(y_pred) == set(self.output_names) \
                else sorted(y_pred)
        self._resolved_names = names if n > 1 and flat else None
        self._flat_metrics = self._build_set(self._user_metrics, n, names, "metrics")
        self._flat_weighted = self._build_set(self._user_weighted_metrics, n, names, "weighted_metrics")
        self.built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        y_true, y_pred = self._flatten_y(y_true), self._flatten_y(y_pred)
        for mls, yt, yp in zip(self._flat_metrics, y_true, y_pred):
            if mls:
                for m in mls.metrics:
                    m.update_state(yt, yp)
        if sample_weight is not None:
            sws = self._flatten_y(sample_weight)
            if len(sws) < len(y_true):
                sws = [sws[0]] * len(y_true)
        else:
            sws = [None] * len(y_true)
        for mls, yt, yp, sw in zip(self._flat_weighted, y_true, y_pred, sws):
            if mls:
                for m in mls.metrics:
                    m.update_state(yt, yp, sample_weight=sw)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        """``{name: result}``: ``<output>_<metric>``; a repeated name gets ``_1``, ``_2``..., and a weighted metric
        whose name is taken becomes ``<output>_weighted_<metric>``.

        Raises:
            ValueError: before the first update (Keras's message).
        """
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        out, seen = {}, {}

        def numbered(name):
            index = seen.get(name, 0)
            seen[name] = index + 1
            return name if index == 0 else f"{name}_{index}"

        for mls in self._flat_metrics:
            for m in (mls.metrics if mls else []):
                out[numbered(f"{mls.output_name}_{m.name}" if mls.output_name else m.name)] = m.result()
        for mls in self._flat_weighted:
            for m in (mls.metrics if mls else []):
                name = f"{mls.output_name}_{m.name}" if mls.output_name else m.name
                if name in seen:
                    name = f"{mls.output_name}_weighted_{m.name}" if mls.output_name else f"weighted_{m.name}"
                out[numbered(name)] = m.result()
        return out

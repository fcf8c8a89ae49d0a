"""tf.keras.losses (Keras 3.15): values, dtypes and gradients w.r.t. y_pred, reductions, weights, configs, errors.

Loss objects compute in their ``dtype`` (float32 unless given), so float64 cases pass ``dtype="float64"``.
Every case names its losses explicitly or uses the class defaults (default names are fixed strings, no counter).
"""

import numpy as np

from tests.golden.harness import case, catch

YT = [[0.0, 1.0, 2.0], [1.5, -1.0, 0.5]]
YP = [[0.5, 1.0, 4.0], [1.0, 0.0, 0.25]]
PT = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
PP = [[0.1, 0.7, 0.2], [0.0, 0.5, 0.5], [0.2, 0.2, 0.6]]
BT = [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
BP = [[0.0, 0.6], [1.0, 0.3], [0.2, 1.0]]
LOGITS = [[2.0, -1.0, 0.5], [0.0, 3.0, -2.0], [1.0, 1.0, 1.0]]


def _grad(tf, loss, y_true, y_pred, dtype, **call_kwargs):
    yt = tf.constant(y_true, dtype=getattr(tf, dtype))
    yp = tf.constant(y_pred, dtype=getattr(tf, dtype))
    with tf.GradientTape() as tape:
        tape.watch(yp)
        out = loss(yt, yp, **call_kwargs)
    return [out, tape.gradient(out, yp)]


def _both(tf, make, y_true, y_pred, **call_kwargs):
    return {d: _grad(tf, make(d), y_true, y_pred, d, **call_kwargs) for d in ("float32", "float64")}


def _classes(tf):
    L = tf.keras.losses
    return {"mse": L.MeanSquaredError, "mae": L.MeanAbsoluteError, "mape": L.MeanAbsolutePercentageError,
            "msle": L.MeanSquaredLogarithmicError, "huber": L.Huber, "logcosh": L.LogCosh, "hinge": L.Hinge,
            "squared_hinge": L.SquaredHinge, "cat_hinge": L.CategoricalHinge, "cosine": L.CosineSimilarity,
            "poisson": L.Poisson}


# --------------------------------------------------------------------------------------------- regression


@case
def regression_losses_values_and_grads(tf):
    return {k: _both(tf, lambda d, c=c: c(dtype=d), YT, YP) for k, c in _classes(tf).items()}


@case
def regression_losses_at_kinks(tf):
    # equal values (|error| = 0), Huber at |error| == delta, hinge at margin 1, MAPE at y_true == 0.
    yt = [[1.0, 0.0, 2.0, -1.0]]
    yp = [[1.0, 1.0, 3.0, 0.0]]
    return {k: _both(tf, lambda d, c=c: c(dtype=d), yt, yp) for k, c in _classes(tf).items()}


@case
def huber_delta(tf):
    return {str(delta): _both(tf, lambda d, delta=delta: tf.keras.losses.Huber(delta=delta, dtype=d), YT, YP)
            for delta in (0.25, 1.0, 3.0)}


@case
def cosine_similarity_axis_and_zero_vector(tf):
    L = tf.keras.losses
    return [_both(tf, lambda d: L.CosineSimilarity(axis=0, dtype=d), YT, YP),
            _both(tf, lambda d: L.CosineSimilarity(dtype=d), [[0.0, 0.0], [1.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]])]


# --------------------------------------------------------------------------------------------- probabilistic


@case
def kl_divergence_with_clipping(tf):
    return _both(tf, lambda d: tf.keras.losses.KLDivergence(dtype=d), PT, PP)


@case
def binary_crossentropy_probabilities_and_clip_bounds(tf):
    return _both(tf, lambda d: tf.keras.losses.BinaryCrossentropy(dtype=d), BT, BP)


@case
def binary_crossentropy_from_logits_and_smoothing(tf):
    L = tf.keras.losses
    logits = [[-3.0, 0.5], [2.0, 0.0], [1.0, -1.0]]
    return {"logits": _both(tf, lambda d: L.BinaryCrossentropy(from_logits=True, dtype=d), BT, logits),
            "smooth": _both(tf, lambda d: L.BinaryCrossentropy(label_smoothing=0.2, dtype=d), BT, BP),
            "both": _both(tf, lambda d: L.BinaryCrossentropy(True, 0.1, dtype=d), BT, logits),
            "axis0": _both(tf, lambda d: L.BinaryCrossentropy(axis=0, reduction="none", dtype=d), BT, BP)}


@case
def categorical_crossentropy_variants(tf):
    L = tf.keras.losses
    return {"probs": _both(tf, lambda d: L.CategoricalCrossentropy(dtype=d), PT, PP),
            "unnormalised": _both(tf, lambda d: L.CategoricalCrossentropy(dtype=d), PT, [[1.0, 2.0, 1.0]] * 3),
            "logits": _both(tf, lambda d: L.CategoricalCrossentropy(from_logits=True, dtype=d), PT, LOGITS),
            "smooth": _both(tf, lambda d: L.CategoricalCrossentropy(label_smoothing=0.3, dtype=d), PT, PP),
            "logits_smooth": _both(tf, lambda d: L.CategoricalCrossentropy(True, 0.1, dtype=d), PT, LOGITS),
            "axis0": _both(tf, lambda d: L.CategoricalCrossentropy(axis=0, reduction=None, dtype=d), PT, PP)}


@case
def sparse_categorical_crossentropy_variants(tf):
    L = tf.keras.losses
    labels = [1, 0, 2]
    return {"probs": _both(tf, lambda d: L.SparseCategoricalCrossentropy(dtype=d), labels, PP),
            "logits": _both(tf, lambda d: L.SparseCategoricalCrossentropy(from_logits=True, dtype=d), labels, LOGITS),
            "column_labels": _both(tf, lambda d: L.SparseCategoricalCrossentropy(dtype=d), [[1], [0], [2]], PP),
            "ignore": _both(tf, lambda d: L.SparseCategoricalCrossentropy(ignore_class=0, dtype=d), labels, PP),
            "ignore_sum": _both(tf, lambda d: L.SparseCategoricalCrossentropy(ignore_class=2, reduction="sum",
                                                                              dtype=d), labels, PP),
            "ignore_none": _both(tf, lambda d: L.SparseCategoricalCrossentropy(ignore_class=1, reduction="none",
                                                                               dtype=d), labels, LOGITS)}


# --------------------------------------------------------------------------------------------- reductions, weights


@case
def every_reduction(tf):
    out = {}
    for red in ("sum_over_batch_size", "sum", "none", None, "mean", "mean_with_sample_weight"):
        out[str(red)] = [
            _both(tf, lambda d, r=red: tf.keras.losses.MeanSquaredError(reduction=r, dtype=d), YT, YP),
            _both(tf, lambda d, r=red: tf.keras.losses.MeanSquaredError(reduction=r, dtype=d), YT, YP,
                  sample_weight=[0.5, 2.0]),
        ]
    return out


@case
def sample_weight_shapes(tf):
    L = tf.keras.losses
    make = lambda d: L.MeanAbsoluteError(dtype=d)  # noqa: E731
    return {"scalar": _both(tf, make, YT, YP, sample_weight=2.0),
            "column": _both(tf, make, YT, YP, sample_weight=[[1.0], [3.0]]),
            "zeros": _both(tf, make, YT, YP, sample_weight=[0.0, 0.0]),
            "per_element": _both(tf, lambda d: L.BinaryCrossentropy(reduction="none", dtype=d), BT, BP,
                                 sample_weight=[1.0, 0.0, 2.0]),
            "int_weights": _both(tf, make, YT, YP, sample_weight=np.array([1, 2]))}


@case
def dtype_handling(tf):
    L = tf.keras.losses
    f64 = tf.constant(YP, dtype=tf.float64)
    # Keras maps a loss over nested Python lists element by element; arrays and tensors are whole inputs.
    return {"default_class_casts_to_float32": L.MeanSquaredError()(tf.constant(YT, tf.float64), f64),
            "int_labels": L.BinaryCrossentropy()(np.array([[0, 1]]), np.array([[0.2, 0.9]])),
            "dtype_property": [L.MeanSquaredError().dtype, L.Huber(dtype="float64").dtype],
            "rank1_pred_rank2_true": L.MeanSquaredError(reduction="none")(np.array([[1.0], [2.0]]),
                                                                                   np.array([1.5, 2.5])),
            "rank2_pred_rank1_true": L.MeanSquaredError(reduction="none")(np.array([1.0, 2.0]),
                                                                                   np.array([[1.5], [2.5]])),
            "scalar_inputs": catch(L.MeanSquaredError(), 1.0, 3.0),
            "rank3": L.MeanSquaredError(reduction="none")(np.ones((2, 2, 1)), np.zeros((2, 2)))}


@case
def grad_through_float32_class_from_float64(tf):
    yp = tf.constant(YP, dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(yp)
        out = tf.keras.losses.LogCosh()(tf.constant(YT), yp)
    grad = tape.gradient(out, yp)
    # The gradient is float32 arithmetic cast to float64: compare it at float32 precision.
    return [out, grad.dtype, tf.cast(grad, tf.float32)]


# --------------------------------------------------------------------------------------------- function forms


@case
def function_forms(tf):
    L = tf.keras.losses
    yt = tf.constant(YT)
    out = {n: getattr(L, n)(yt, tf.constant(YP)) for n in (
        "mse", "MSE", "mae", "MAE", "mape", "MAPE", "msle", "MSLE", "logcosh", "huber", "hinge", "squared_hinge",
        "categorical_hinge", "cosine_similarity", "poisson")}
    out.update({n: getattr(L, n)(tf.constant(PT), tf.constant(PP)) for n in (
        "kld", "KLD", "kullback_leibler_divergence", "binary_crossentropy", "categorical_crossentropy")})
    out["sparse"] = L.sparse_categorical_crossentropy(tf.constant([1, 0, 2]), tf.constant(PP))
    out["sparse_logits"] = L.sparse_categorical_crossentropy(np.array([1, 0, 2]), tf.constant(LOGITS), True)
    out["cce_logits"] = L.categorical_crossentropy(PT, tf.constant(LOGITS), from_logits=True, label_smoothing=0.2)
    out["huber_delta"] = L.huber(YT, tf.constant(YP, tf.float64), delta=0.5)
    out["mse_float64_lists"] = L.mse(np.array(YT), np.array(YP))
    out["aliases_same"] = [L.mse is L.MSE, L.kld is L.kullback_leibler_divergence, L.mae is L.MAE]
    out["hinge_non_binary_labels"] = L.hinge(tf.constant([[-1.0, 1.0, 0.5]]), tf.constant([[0.3, 2.0, -1.0]]))
    return out


@case
def function_form_grads(tf):
    L = tf.keras.losses
    fns = {"mse": L.mse, "kld": L.kld, "bce": L.binary_crossentropy, "cce": L.categorical_crossentropy,
           "cos": L.cosine_similarity, "logcosh": L.logcosh}
    return {k: {d: _grad(tf, f, PT, PP, d) for d in ("float32", "float64")} for k, f in fns.items()}


# --------------------------------------------------------------------------------------------- configs, get


@case
def configs_and_names(tf):
    L = tf.keras.losses
    objs = [L.MeanSquaredError(), L.MeanAbsoluteError(), L.MeanAbsolutePercentageError(),
            L.MeanSquaredLogarithmicError(), L.Huber(delta=2.0), L.LogCosh(), L.KLDivergence(), L.Poisson(),
            L.Hinge(), L.SquaredHinge(), L.CategoricalHinge(), L.CosineSimilarity(axis=0),
            L.BinaryCrossentropy(from_logits=True, label_smoothing=0.1, axis=0),
            L.CategoricalCrossentropy(label_smoothing=0.2), L.SparseCategoricalCrossentropy(ignore_class=3),
            L.MeanSquaredError(reduction="sum", name="my_loss")]
    out = [[type(o).__name__, o.name, o.reduction, o.get_config()] for o in objs]
    out.append(L.Huber.from_config(L.Huber(delta=2.0, reduction="none").get_config()).get_config())
    return out


@case
def get_identifiers(tf):
    L = tf.keras.losses
    return {"mse": L.get("mse") is L.mse, "MSE": L.get("MSE") is L.mse, "bce": L.get("bce") is L.binary_crossentropy,
            "class": L.get("Huber").get_config(), "dict": L.get({"class_name": "BinaryCrossentropy",
                                                                 "config": {"from_logits": True}}).get_config(),
            "callable": L.get(L.hinge) is L.hinge, "none": L.get(None),
            "instance": L.get(L.Huber(delta=3.0)).get_config(),
            "unknown": catch(L.get, "nope"), "bad_type": catch(L.get, 3)}


# --------------------------------------------------------------------------------------------- errors, warnings


def _reduction_error(cls, **kwargs):
    # The message lists the allowed values as a Python set, whose order varies from process to process.
    try:
        cls(**kwargs)
    except ValueError as exc:
        text = str(exc)
        return [type(exc).__name__, text.split(" Expected")[0], text.split("}. ")[1]]
    return "no error"


@case
def errors(tf):
    L = tf.keras.losses
    a = np.array
    return {"bad_reduction": _reduction_error(L.MeanSquaredError, reduction="avg"),
            "bad_reduction_upper": _reduction_error(L.Huber, reduction="SUM"),
            "mse_shape_mismatch": catch(L.MeanSquaredError(), a([[1.0, 2.0]]), a([[1.0, 2.0, 3.0]])),
            "bce_rank": catch(L.binary_crossentropy, tf.constant([1.0, 0.0]), tf.constant([[0.5, 0.5]])),
            "bce_shape": catch(L.binary_crossentropy, tf.constant([[1.0, 0.0]]), tf.constant([[0.5, 0.5, 0.1]])),
            "cce_shape": catch(L.CategoricalCrossentropy(), a(PT), a([[0.5, 0.5]] * 3)),
            "cce_bool_axis": catch(L.categorical_crossentropy, PT, tf.constant(PP), axis=True),
            "sparse_rank": catch(L.SparseCategoricalCrossentropy(), a([[[1]]]), a(PP)),
            "sparse_batch": catch(L.SparseCategoricalCrossentropy(), a([1, 0]), a(PP)),
            "sparse_axis": catch(L.sparse_categorical_crossentropy, tf.constant([1, 0, 2]), tf.constant(PP), axis=0),
            "sparse_label_range": catch(L.SparseCategoricalCrossentropy(), a([1, 0, 5]), a(PP))}


@case
def categorical_crossentropy_single_class_warns(tf):
    return tf.keras.losses.categorical_crossentropy(tf.constant([[1.0], [0.0]]), tf.constant([[0.9], [0.2]]))

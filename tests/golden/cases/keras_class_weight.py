"""tf.keras class weights in fit/train_on_batch (Keras 3.15): classes missing from the dict weigh 1.0, how a row's
class is read from sparse, (n, 1) and one-hot targets, and the refusals (with sample_weight, several outputs, no
targets, a class_weight that is not a dict).

The logged loss of a full-batch epoch at learning rate 0 is the class-weighted mean of known per-sample losses,
so it shows the weights Keras used; one case also trains, to show that the missing classes learn.
"""

import numpy as np

from tests.golden.harness import case, catch

_Y = np.array([0, 1, 2, 1, 2, 2])


def _k(tf):
    tf.keras.backend.clear_session()
    return tf.keras


def _loss_with(tf, y, class_weight, units=3, loss="sparse_categorical_crossentropy", activation=None, **fit):
    """The logged losses of epochs over one batch, with weights that do not move (learning rate 0)."""
    k = _k(tf)
    m = k.Sequential([k.Input((1,)), k.layers.Dense(units, activation=activation,
                                                    kernel_initializer=k.initializers.Constant(0.5),
                                                    bias_initializer=k.initializers.Constant(0.1))])
    m.compile(k.optimizers.SGD(0.0), loss=loss)
    x = (np.arange(len(y), dtype=np.float32) / len(y)).reshape(-1, 1)
    # Eleven epochs (the same loss each time): TF logs a retracing warning when most of the last ten calls of its
    # step functions traced, which many one-step fits in a row would do.
    h = m.fit(x, y, class_weight=class_weight, batch_size=len(y), epochs=11, verbose=0, shuffle=False, **fit)
    return {k_: np.float32(v[-1]) for k_, v in h.history.items()}


@case
def class_weight_missing_classes_weigh_one(tf):
    return [_loss_with(tf, _Y, cw) for cw in ({0: 1.0}, {0: 2.0}, {0: 2.0, 1: 3.0, 2: 4.0}, None)]


@case
def class_weight_unknown_zero_and_empty(tf):
    return [_loss_with(tf, _Y, cw) for cw in ({5: 2.0}, {1: 0.0}, {}, {0: 2})]


@case
def class_weight_keys_of_other_types(tf):
    # Keras looks classes up with ``dict.get(int(label), 1.0)``: a float key equal to the class matches, strings
    # and negative keys never do.
    return [_loss_with(tf, _Y, cw) for cw in ({0.0: 2.0}, {np.int64(0): 2.0}, {"0": 2.0}, {-1: 2.0})]


@case
def class_weight_target_layouts(tf):
    onehot = np.eye(3, dtype=np.float32)[_Y]
    soft = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]] * 2, np.float32)
    return {
        "column_int": _loss_with(tf, _Y.reshape(-1, 1), {0: 2.0}),
        "column_float": _loss_with(tf, _Y.reshape(-1, 1).astype(np.float32), {2: 3.0}),
        "onehot": _loss_with(tf, onehot, {0: 2.0}, loss="categorical_crossentropy", activation="softmax"),
        "onehot_argmax": _loss_with(tf, soft, {2: 5.0}, loss="categorical_crossentropy", activation="softmax"),
    }


@case
def class_weight_binary_and_rounded_targets(tf):
    binary = np.array([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0]], np.float32)
    return {
        "rounded": _loss_with(tf, np.array([0.4, 0.6, 1.5, 1.4, 2.2, 1.9], np.float32), {1: 3.0}, units=1,
                              loss="mse"),
        "binary_column": _loss_with(tf, binary, {1: 3.0}, units=1, loss="binary_crossentropy",
                                    activation="sigmoid"),
        "binary_flat": _loss_with(tf, binary.ravel(), {0: 0.5}, units=1, loss="mse"),
        "bool_key": _loss_with(tf, _Y, {True: 3.0}),
    }


@case
def class_weight_refusals(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((1,)), k.layers.Dense(3)])
    m.compile("sgd", "sparse_categorical_crossentropy")
    x = np.zeros((6, 1), np.float32)
    i = k.Input((1,))
    two = k.Model(i, [k.layers.Dense(3)(i), k.layers.Dense(3)(i)])
    two.compile("sgd", "sparse_categorical_crossentropy")
    named = k.Model(i, {"a": k.layers.Dense(3, name="a")(i)})
    named.compile("sgd", "sparse_categorical_crossentropy")
    return {
        "list": catch(m.fit, x, _Y, class_weight=[1.0, 2.0, 3.0], verbose=0),
        "tuple": catch(m.fit, x, _Y, class_weight=(1.0, 2.0, 3.0), verbose=0),
        "array": catch(m.fit, x, _Y, class_weight=np.array([1.0, 2.0, 3.0]), verbose=0),
        "with_sample_weight": catch(m.fit, x, _Y, class_weight={0: 1.0}, sample_weight=np.ones(6), verbose=0),
        "no_targets": catch(m.fit, x, class_weight={0: 1.0}, verbose=0),
        "two_outputs": catch(two.fit, x, [_Y, _Y], class_weight={0: 1.0}, verbose=0),
        "dict_targets": catch(named.fit, x, {"a": _Y}, class_weight={0: 1.0}, verbose=0),
    }


@case
def class_weight_train_on_batch(tf):
    k = _k(tf)
    m = k.Sequential([k.Input((1,)), k.layers.Dense(3, kernel_initializer=k.initializers.Constant(0.5))])
    m.compile(k.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
    x = np.linspace(0, 1, 6, dtype=np.float32).reshape(-1, 1)
    return [np.float32(m.train_on_batch(x, _Y, class_weight={0: 2.0})),
            np.float32(m.train_on_batch(x, _Y, class_weight={})),
            catch(m.train_on_batch, x, _Y, class_weight={0: 2.0}, sample_weight=np.ones(6, np.float32)),
            catch(m.train_on_batch, x, _Y, class_weight=[2.0, 1.0, 1.0])]


@case
def class_weight_only_on_the_training_split(tf):
    # The validation split is taken first: validation losses are unweighted.
    return [_loss_with(tf, _Y, {0: 2.0, 2: 0.5}, validation_split=0.5),
            _loss_with(tf, _Y, {0: 2.0}, validation_data=(np.zeros((2, 1), np.float32), np.array([0, 2])))]


@case
def class_weight_missing_classes_train(tf):
    # With {0: 1.0} every class trains (Keras weighs classes 1 and 2 by 1.0): the weights move for all of them.
    k = _k(tf)
    m = k.Sequential([k.Input((2,)), k.layers.Dense(3, kernel_initializer=k.initializers.Constant(0.1),
                                                    bias_initializer="zeros")])
    m.compile(k.optimizers.SGD(0.5), "sparse_categorical_crossentropy", metrics=["accuracy"])
    x = np.array([[1, 0], [0, 1], [1, 1], [0, 1], [1, 1], [1, 1]], np.float32)
    h = m.fit(x, _Y, class_weight={0: 1.0}, epochs=5, batch_size=3, verbose=0, shuffle=False)
    f32 = np.float32
    return [{key: [f32(v) for v in vals] for key, vals in h.history.items()}, m.get_weights(),
            m.predict(x, verbose=0)]

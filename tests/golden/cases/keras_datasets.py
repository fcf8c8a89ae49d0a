"""tf.keras fit/evaluate/predict on tf.data datasets (Keras 3.15): the batches as the dataset gives them, history
and weights, ``steps_per_epoch`` carrying one iterator across epochs, datasets of unknown cardinality, validation
and class weights from datasets, the arguments a dataset refuses, and Keras's warnings.
"""

import numpy as np

from tests.golden.harness import case, catch

_X = (np.arange(30.0).reshape(10, 3) / 15 - 0.9).astype(np.float32)
_Y = (_X @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
_LABELS = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])


def _model(tf, units=1):
    k = tf.keras
    k.backend.clear_session()
    const = k.initializers.Constant
    m = k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="tanh", kernel_initializer=const(0.2)),
                      k.layers.Dense(units, kernel_initializer=const(-0.3))])
    m.compile(k.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return m


def _batches_seen(tf):
    seen = []

    class Seen(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen[-1].append(batch)

        def on_epoch_begin(self, epoch, logs=None):
            seen.append([])

    return seen, Seen()


def _f32(history):
    return {k: np.float32(v) for k, v in history.history.items()}


@case
def fit_evaluate_predict_on_a_dataset(tf):
    m = _model(tf)
    ds = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(4)
    seen, cb = _batches_seen(tf)
    h = m.fit(ds, epochs=2, shuffle=False, verbose=0, callbacks=[cb], validation_data=ds.take(2))
    return [_f32(h), seen, m.get_weights(), np.float32(m.evaluate(ds, verbose=0)[0]),
            m.predict(ds, verbose=0), m.predict(ds.map(lambda x, y: x), verbose=0),
            m.predict(ds, steps=2, verbose=0).shape, np.float32(m.evaluate(ds, steps=1, verbose=0)[1])]


@case
def fit_on_a_dataset_warns_that_shuffle_is_ignored(tf):
    m = _model(tf)
    h = m.fit(tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(5), verbose=0)
    return _f32(h)


@case
def steps_per_epoch_carries_the_iterator_across_epochs(tf):
    m = _model(tf)
    ds = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(4)
    seen, cb = _batches_seen(tf)
    h1 = m.fit(ds, epochs=3, steps_per_epoch=2, shuffle=False, verbose=0, callbacks=[cb])
    seen2, cb2 = _batches_seen(tf)
    h2 = m.fit(ds, epochs=2, steps_per_epoch=5, shuffle=False, verbose=0, callbacks=[cb2])
    seen3, cb3 = _batches_seen(tf)
    h3 = m.fit(ds.repeat(), epochs=2, steps_per_epoch=4, shuffle=False, verbose=0, callbacks=[cb3])
    return [_f32(h1), seen, _f32(h2), seen2, _f32(h3), seen3, m.get_weights()]


@case
def a_dataset_of_unknown_cardinality(tf):
    m = _model(tf)
    ds = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(4).filter(lambda x, y: True)
    seen, cb = _batches_seen(tf)
    h = m.fit(ds, epochs=3, shuffle=False, verbose=0, callbacks=[cb])
    return [_f32(h), seen, np.float32(m.evaluate(ds, verbose=0)[0])]


@case
def class_weight_and_sample_weight_from_a_dataset(tf):
    m = _model(tf, units=2)
    ds = tf.data.Dataset.from_tensor_slices((_X, tf.one_hot(_LABELS, 2))).batch(4)
    h1 = m.fit(ds, epochs=2, shuffle=False, verbose=0, class_weight={0: 0.5, 1: 2.0})
    w = np.linspace(0.5, 1.5, 10).astype(np.float32)
    h2 = m.fit(tf.data.Dataset.from_tensor_slices((_X, tf.one_hot(_LABELS, 2), w)).batch(4), shuffle=False,
               verbose=0)
    return [_f32(h1), _f32(h2), m.get_weights()]


@case
def arguments_a_dataset_refuses(tf):
    m = _model(tf)
    ds = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(4)
    return [catch(m.fit, ds, _Y, verbose=0), catch(m.fit, ds, sample_weight=np.ones(10), verbose=0),
            catch(m.evaluate, ds, _Y, verbose=0)]

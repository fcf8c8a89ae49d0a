"""tf.keras.utils (Keras 3.15): to_categorical and normalize on NumPy arrays, lists and tensors (values, dtypes,
NumPy-versus-tensor results, errors), set_random_seed's seeding and errors, Progbar's identity, pad_sequences, the
(x, y, sample_weight) packing helpers, the custom-object registry and standardize_dtype.
"""

import random

import numpy as np

from tests.golden.harness import case, catch

M2 = [[3.0, 4.0], [0.0, 0.0]]
SEQS = [[1, 2, 3], [4, 5], [6], [], [7, 8, 9, 10]]


def _kind(r):
    return [type(r).__name__ == "ndarray", r]


@case
def to_categorical_numpy(tf):
    U = tf.keras.utils
    calls = [lambda: U.to_categorical([0, 1, 2, 3], 4), lambda: U.to_categorical([[1], [0]]),
             lambda: U.to_categorical(np.array([[1, 2], [0, 1]])), lambda: U.to_categorical([0.7, 1.2]),
             lambda: U.to_categorical([0, -1], 3), lambda: U.to_categorical(3, 4), lambda: U.to_categorical([], 3),
             lambda: U.to_categorical([1, 2], 0), lambda: U.to_categorical(np.array([2, 0], np.int8), num_classes=5)]
    return [_kind(f()) for f in calls]


@case
def to_categorical_tensor(tf):
    U = tf.keras.utils
    return [_kind(U.to_categorical(tf.constant([[0], [2]]), 4)), _kind(U.to_categorical(tf.constant([0, 5, -1]), 3)),
            _kind(U.to_categorical(tf.constant([[1, 0], [2, 2]], tf.int64), 3))]


@case
def to_categorical_errors(tf):
    U = tf.keras.utils
    return [catch(lambda: U.to_categorical([0, 5], 3)), catch(lambda: U.to_categorical([])),
            catch(lambda: U.to_categorical(tf.constant([0, 1])))]


@case
def normalize_numpy(tf):
    U = tf.keras.utils
    calls = [lambda: U.normalize(np.array(M2)), lambda: U.normalize(np.array([[3.0, 4.0], [1.0, 2.0]], np.float32),
                                                                      axis=0, order=1),
             lambda: U.normalize(np.array([[3, 4], [1, 2]]), order=3), lambda: U.normalize(np.array([3.0, 4.0])),
             lambda: U.normalize(np.array([[3.0, 4.0]]), axis=None),
             lambda: U.normalize(np.array([[3.0, 4.0], [1.0, 2.0]]), axis=0),
             lambda: U.normalize(np.array([[3.0, 4.0]]), order=0)]
    return [_kind(f()) for f in calls] + [catch(lambda: U.normalize(np.array(5.0)))]


@case
def normalize_tensor(tf):
    U = tf.keras.utils
    calls = [lambda: U.normalize(M2), lambda: U.normalize(tf.constant(M2)),
             lambda: U.normalize(tf.constant(M2, tf.float64), order=1),
             lambda: U.normalize(tf.constant([[3, 4]]), order=1),
             lambda: U.normalize(tf.constant(5.0)), lambda: U.normalize(tf.constant([[3.0, -4.0]]), order=3),
             lambda: U.normalize(tf.constant([[3.0, 4.0], [1.0, 2.0]]), axis=0),
             lambda: U.normalize(tf.constant([[3.0, 4.0], [1.0, 2.0]], tf.float64), axis=0, order=3),
             lambda: U.normalize(tf.constant([[3.0, 4.0], [1.0, 2.0]]), axis=None, order=1),
             lambda: U.normalize(tf.constant([[3.0, -4.0], [1.0, 2.0]]), axis=(0, 1), order=1),
             lambda: U.normalize(tf.constant([[[3.0, 4.0], [1.0, 2.0]]]), axis=(2, 0), order=1),
             lambda: U.normalize(tf.constant([3.0, -4.0]), axis=None, order=3)]
    return [_kind(f()) for f in calls]


@case
def normalize_errors(tf):
    U = tf.keras.utils
    return [catch(lambda: U.normalize(tf.constant([[3, 4]]), order=2)),
            catch(lambda: U.normalize(tf.constant([[3.0, 4.0]]), order=0)),
            catch(lambda: U.normalize(tf.constant([[3.0, 4.0]]), order=2.0)),
            catch(lambda: U.normalize(tf.constant([[3.0, 4.0]]), axis=2, order=1)),
            catch(lambda: U.normalize(tf.constant([[3.0, 4.0]]), axis=None, order=3)),
            catch(lambda: U.normalize(tf.constant([[[3.0, 4.0]]]), axis=None, order=1))]


@case
def set_random_seed(tf):
    U = tf.keras.utils
    out = []
    for seed in (3, True):
        U.set_random_seed(seed)
        # tapeflow's generator is not TF's bit stream: compare that the TF global seed took (same draws again).
        first = tf.random.uniform([3])
        U.set_random_seed(seed)
        out.append([random.random(), np.random.rand(2), bool(np.all(first.numpy() == tf.random.uniform([3]).numpy()))])
    out.append([catch(lambda: U.set_random_seed(1.5)), catch(lambda: U.set_random_seed(np.int64(3))),
                catch(lambda: U.set_random_seed(None))])
    return out


@case
def progbar_export(tf):
    U = tf.keras.utils
    return [U.Progbar.__name__, callable(U.Progbar), sorted(n for n in ("Progbar", "normalize", "set_random_seed",
                                                                         "to_categorical") if hasattr(U, n))]


@case
def pad_sequences_modes(tf):
    p = tf.keras.utils.pad_sequences
    return [p(SEQS), p(SEQS, maxlen=2), p(SEQS, padding="post"), p(SEQS, maxlen=3, truncating="post"),
            p(SEQS, maxlen=3, padding="post", truncating="post", value=-1), p(SEQS, dtype="float32", value=0.5),
            p([[[1, 2], [3, 4]], [[5, 6]]]), p([np.array([1.5, 2.5])], maxlen=4, dtype="float64")]


@case
def pad_sequences_errors(tf):
    p = tf.keras.utils.pad_sequences
    return [catch(p, 5), catch(p, [[1], 2]), catch(p, SEQS, padding="mid"), catch(p, SEQS, truncating="mid"),
            catch(p, [["a"]], value="x"), catch(p, [[[1, 2]], [[1, 2, 3]]]),
            p([["ab", "c"], ["d"]], dtype=object, value="")]


@case
def pack_unpack(tf):
    u = tf.keras.utils
    return [u.pack_x_y_sample_weight(1), u.pack_x_y_sample_weight([1, 2]), u.pack_x_y_sample_weight(1, 2),
            u.pack_x_y_sample_weight(1, 2, 3), u.pack_x_y_sample_weight(1, None, 3),
            u.unpack_x_y_sample_weight(1), u.unpack_x_y_sample_weight((1,)), u.unpack_x_y_sample_weight([1, 2]),
            u.unpack_x_y_sample_weight((1, 2, 3)), catch(u.unpack_x_y_sample_weight, (1, 2, 3, 4))]


@case
def custom_objects(tf):
    u = tf.keras.utils

    @u.register_keras_serializable(package="Golden")
    def my_fn(x):
        return x

    @u.register_keras_serializable(package="Golden", name="Renamed")
    class MyThing:
        def get_config(self):
            return {}

    class NoConfig:
        pass

    out = [u.get_registered_name(my_fn), u.get_registered_name(MyThing), u.get_registered_name(len),
           u.get_registered_object("Golden>my_fn") is my_fn, u.get_registered_object("Golden>Renamed") is MyThing,
           u.get_registered_object("nothing"), "Golden>my_fn" in u.get_custom_objects(),
           catch(u.register_keras_serializable(), NoConfig)]
    with u.custom_object_scope({"scoped": 5}):
        out.append(u.get_registered_object("scoped"))
    out.append(u.get_registered_object("scoped"))
    with u.CustomObjectScope({"a": 1, "b": 2}) as scope:
        out.append([u.get_registered_object("a"), u.get_registered_object("b"), sorted(scope.custom_objects)])
    out.append(catch(u.CustomObjectScope, {"a": 1}, {"b": 2}))
    out.append(u.get_registered_object("x", custom_objects={"x": 3}, module_objects={"x": 4}))
    out.append(u.get_registered_object("y", module_objects={"y": 4}))
    del u.get_custom_objects()["Golden>my_fn"], u.get_custom_objects()["Golden>Renamed"]
    return out


@case
def misc_utils(tf):
    u = tf.keras.utils
    return [u.standardize_dtype("float"), u.standardize_dtype(tf.float64), u.standardize_dtype(np.int32),
            u.standardize_dtype("int")]

"""bfloat16 exists as a dtype object, but every path that would make a bfloat16 tensor raises one ``TypeError``
(NumPy has no such type), instead of quietly handing out float64 (``np.dtype(None)`` is float64).

TF computes in bfloat16, so golden cases cannot express this; the whole class of creating calls is listed here.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapeflow as tf

BF = tf.bfloat16
MESSAGE = "tapeflow cannot compute with tf.bfloat16 values (NumPy has no bfloat16 type); use float16 or float32"

CREATING = {
    "constant": lambda: tf.constant(1.0, BF),
    "constant_numpy": lambda: tf.constant(np.ones(2), BF),
    "constant_name": lambda: tf.constant(1.0, "bfloat16"),
    "constant_shape": lambda: tf.constant(1, dtype=BF, shape=[2]),
    "convert": lambda: tf.convert_to_tensor([1.0], BF),
    "convert_hint": lambda: tf.convert_to_tensor([1.0], dtype_hint=BF),
    "convert_tensor": lambda: tf.convert_to_tensor(tf.constant([1.0]), BF),
    "cast": lambda: tf.cast(tf.constant([1.0]), BF),
    "cast_name": lambda: tf.cast([1, 2], "bfloat16"),
    "dtypes_cast": lambda: tf.dtypes.cast(tf.constant(1.0), BF),
    "zeros": lambda: tf.zeros([2], BF),
    "ones": lambda: tf.ones([2], BF),
    "fill": lambda: tf.fill([2], tf.constant(1.0, BF)),
    "zeros_like": lambda: tf.zeros_like(tf.constant([1.0]), BF),
    "ones_like": lambda: tf.ones_like(tf.constant([1.0]), dtype=BF),
    "eye": lambda: tf.eye(2, dtype=BF),
    "range": lambda: tf.range(3, dtype=BF),
    "one_hot": lambda: tf.one_hot([0], 2, dtype=BF),
    "sequence_mask": lambda: tf.sequence_mask([1], 2, dtype=BF),
    "linspace": lambda: tf.linspace(tf.constant(0.0, BF), 1.0, 3),
    "normal": lambda: tf.random.normal([2], dtype=BF),
    "uniform": lambda: tf.random.uniform([2], dtype=BF),
    "truncated_normal": lambda: tf.random.truncated_normal([2], dtype=BF),
    "variable": lambda: tf.Variable(1.0, dtype=BF),
    "variable_list": lambda: tf.Variable([1.0, 2.0], dtype=BF),
    "size": lambda: tf.size(tf.constant([1.0]), out_type=BF),
    "count_nonzero": lambda: tf.math.count_nonzero(tf.constant([1.0]), dtype=BF),
    "nest_map": lambda: tf.nest.map_structure(lambda v: tf.cast(v, BF), [tf.constant(1.0)]),
    "keras_initializer": lambda: tf.keras.initializers.Zeros()([2], dtype="bfloat16"),
    "keras_glorot": lambda: tf.keras.initializers.GlorotUniform()([2, 2], dtype="bfloat16"),
    "numpy_type": lambda: BF.as_numpy_dtype,
    "limits": lambda: BF.min,
}


@pytest.mark.parametrize("name", sorted(CREATING))
def test_bfloat16_is_refused(name):
    with pytest.raises(TypeError) as info:
        CREATING[name]()
    assert str(info.value) == MESSAGE


def test_refused_before_any_random_state_is_used():
    tf.random.set_seed(3)
    first = tf.random.uniform([2]).numpy()
    tf.random.set_seed(3)
    with pytest.raises(TypeError):
        tf.random.uniform([2], dtype=BF)
    assert (tf.random.uniform([2]).numpy() == first).all()
    tf.random.set_seed(None)


def test_the_dtype_object_itself_still_works():
    assert tf.as_dtype("bfloat16") is BF and BF.name == "bfloat16" and BF.is_floating and BF.size == 2
    assert repr(BF) == "tf.bfloat16" and BF != tf.float32 and not BF.is_numpy_compatible


def test_where_tf_refuses_the_dtype_its_error_comes_first():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'output_type' of bfloat16"):
        tf.argmax(x, output_type=BF)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'out_type' of bfloat16"):
        tf.shape(x, out_type=BF)
    with pytest.raises(ValueError, match="Accepted dtypes are"):
        tf.random.categorical([[1.0]], 1, dtype=BF)

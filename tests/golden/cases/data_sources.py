"""tf.data sources (TF 2.21): from_tensor_slices, from_tensors, range, zip, from_generator; element_spec and
dataset reprs, cardinality and len, iteration and its end (StopIteration, OutOfRangeError from get_next),
as_numpy_iterator, dtype inference of Python lists, nested tuples and dicts, and the errors of bad input.
"""

import numpy as np

from tests.golden.harness import case, catch


def _show(tf, ds):
    """What a dataset shows: its repr, its cardinality and its elements (a list of nested tensors)."""
    return [repr(ds), int(ds.cardinality()), catch(list, ds)]


@case
def slices_of_python_list(tf):
    return _show(tf, tf.data.Dataset.from_tensor_slices([1, 2, 3]))


@case
def slices_dtype_inference(tf):
    return [repr(tf.data.Dataset.from_tensor_slices(v).element_spec)
            for v in ([1.5, 2], [True, False], ["a", "b"], [[1, 2], [3, 4]], np.arange(3),
                      np.zeros((2, 3), np.float32), [2**40, 1])]


@case
def slices_of_tensor_and_strings(tf):
    return [_show(tf, tf.data.Dataset.from_tensor_slices(tf.constant([[1.0, 2.0], [3.0, 4.0]]))),
            _show(tf, tf.data.Dataset.from_tensor_slices(["ab", "c"]))]


@case
def slices_nested_tuple_dict(tf):
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2], "b": [[1.0, 2.0], [3.0, 4.0]]}, [5, 6]))
    return _show(tf, ds)


@case
def slices_tuple_of_arrays(tf):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([0, 1, 0])
    return _show(tf, tf.data.Dataset.from_tensor_slices((x, y)))


@case
def slices_empty(tf):
    return [_show(tf, tf.data.Dataset.from_tensor_slices(np.zeros((0, 3), np.float32))),
            repr(tf.data.Dataset.from_tensor_slices([]).element_spec)]


@case
def slices_mismatched_lengths(tf):
    return [catch(tf.data.Dataset.from_tensor_slices, ([1, 2], [1, 2, 3])),
            catch(tf.data.Dataset.from_tensor_slices, {"a": np.zeros(2), "b": np.zeros(4)})]


@case
def slices_of_scalar(tf):
    return [catch(tf.data.Dataset.from_tensor_slices, 5),
            catch(tf.data.Dataset.from_tensor_slices, ([1, 2], 3))]


@case
def slices_ragged_list(tf):
    return catch(tf.data.Dataset.from_tensor_slices, [[1, 2], [3]])


@case
def from_tensors_values(tf):
    return [_show(tf, tf.data.Dataset.from_tensors([1.0, 2.0])),
            _show(tf, tf.data.Dataset.from_tensors((1, {"k": "s"}))),
            _show(tf, tf.data.Dataset.from_tensors(np.zeros((0, 2))))]


@case
def range_forms(tf):
    return [_show(tf, tf.data.Dataset.range(5)), _show(tf, tf.data.Dataset.range(2, 5)),
            _show(tf, tf.data.Dataset.range(1, 10, 3)), _show(tf, tf.data.Dataset.range(5, 0, -2)),
            _show(tf, tf.data.Dataset.range(0)), _show(tf, tf.data.Dataset.range(5, 2))]


@case
def range_dtype(tf):
    return [_show(tf, tf.data.Dataset.range(3, output_type=tf.int32)),
            _show(tf, tf.data.Dataset.range(3, output_type=tf.float32)),
            repr(tf.data.Dataset.range(3, dtype=tf.int32).element_spec)]


@case
def range_zero_step(tf):
    return catch(tf.data.Dataset.range, 0, 5, 0)


@case
def zip_forms(tf):
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.from_tensor_slices(["x", "y"])
    return [_show(tf, tf.data.Dataset.zip(a, b)), _show(tf, tf.data.Dataset.zip((a, b))),
            _show(tf, tf.data.Dataset.zip({"n": a, "s": b})), _show(tf, tf.data.Dataset.zip((a, (b, a))))]


@case
def zip_bad_argument(tf):
    return [catch(tf.data.Dataset.zip, (tf.data.Dataset.range(2), [1, 2])),
            catch(tf.data.Dataset.zip, tf.data.Dataset.range(2), datasets=(tf.data.Dataset.range(2),))]


@case
def iteration_end(tf):
    ds = tf.data.Dataset.from_tensor_slices([1, 2])
    it = iter(ds)
    first = [next(it), next(it)]
    return [first, catch(next, it), catch(it.get_next), catch(next, it)]


@case
def iterator_get_next(tf):
    it = iter(tf.data.Dataset.range(2))
    return [it.get_next(), it.get_next(), catch(it.get_next), repr(it.element_spec)]


@case
def as_numpy_iterator_values(tf):
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, ["p", "q"]))
    out = list(ds.as_numpy_iterator())
    return [out, list(tf.data.Dataset.range(2).as_numpy_iterator())]


@case
def cardinality_and_len(tf):
    ds = tf.data.Dataset.range(4)
    return [ds.cardinality(), len(ds), tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY,
            tf.data.AUTOTUNE, tf.data.experimental.AUTOTUNE, tf.data.experimental.INFINITE_CARDINALITY,
            tf.data.experimental.UNKNOWN_CARDINALITY, tf.data.experimental.cardinality(ds),
            catch(len, ds.repeat()), catch(len, ds.filter(lambda x: x > 1)),
            ds.repeat().cardinality(), ds.filter(lambda x: x > 1).cardinality()]


@case
def element_spec_api(tf):
    spec = tf.data.Dataset.from_tensor_slices(np.zeros((2, 3), np.float32)).element_spec
    return [repr(spec), spec.shape, spec.dtype, spec.name, str(spec),
            spec == tf.TensorSpec([3], tf.float32), spec == tf.TensorSpec([None], tf.float32),
            spec.is_compatible_with(tf.TensorSpec([None], tf.float32)),
            repr(tf.TensorSpec(None, tf.int64, name="x")), repr(tf.TensorSpec([None, 2])),
            tf.TensorSpec([2]).is_compatible_with(tf.constant([1.0, 2.0])),
            tf.TensorSpec([2], tf.int32).is_compatible_with(tf.constant([1.0, 2.0]))]


def _gen3():
    yield from ([1, 2], [3, 4], [5, 6])


@case
def generator_signature(tf):
    ds = tf.data.Dataset.from_generator(_gen3, output_signature=tf.TensorSpec(shape=(2,), dtype=tf.int32))
    return [_show(tf, ds), _show(tf, ds)]


@case
def generator_tuple_signature(tf):
    def gen():
        for i in range(3):
            yield i, [float(i)] * i

    sig = (tf.TensorSpec((), tf.int64), tf.TensorSpec((None,), tf.float32))
    return _show(tf, tf.data.Dataset.from_generator(gen, output_signature=sig))


@case
def generator_types_shapes(tf):
    a = tf.data.Dataset.from_generator(_gen3, output_types=tf.float32)
    b = tf.data.Dataset.from_generator(_gen3, output_types=tf.int64, output_shapes=(2,))
    c = tf.data.Dataset.from_generator(lambda: iter([(1, "a")]), output_types=(tf.int32, tf.string))
    return [_show(tf, a), _show(tf, b), _show(tf, c)]


@case
def generator_args(tf):
    def gen(n):
        for i in range(n):
            yield i

    ds = tf.data.Dataset.from_generator(gen, args=(3,), output_signature=tf.TensorSpec((), tf.int32))
    return _show(tf, ds)


@case
def generator_wrong_shape(tf):
    ds = tf.data.Dataset.from_generator(_gen3, output_signature=tf.TensorSpec(shape=(3,), dtype=tf.int32))
    return _first_line(catch(list, ds))


def _first_line(err):
    """The error's class and its first line after the op prefix (TF appends a Python traceback to it)."""
    return [err.type, err.message.split("\n")[0].split("}} ")[-1]]


@case
def generator_wrong_type(tf):
    ds = tf.data.Dataset.from_generator(lambda: iter(["a"]), output_signature=tf.TensorSpec((), tf.int32))
    return _first_line(catch(list, ds))


@case
def generator_raises(tf):
    def gen():
        yield 1
        raise KeyError("boom")

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int32))
    it = iter(ds)
    first = next(it)
    err = catch(next, it)
    return [first, err.type, catch(list, ds).type]


@case
def generator_bad_arguments(tf):
    return [catch(tf.data.Dataset.from_generator, _gen3),
            catch(tf.data.Dataset.from_generator, 5, output_types=tf.int32),
            catch(tf.data.Dataset.from_generator, _gen3, output_shapes=(2,)),
            catch(tf.data.Dataset.from_generator, _gen3, output_signature=tf.TensorSpec((2,)), output_types=tf.int32),
            catch(tf.data.Dataset.from_generator, _gen3, output_signature=(2,))]


@case
def get_single_element_cases(tf):
    return [tf.data.Dataset.range(1).get_single_element(),
            tf.data.Dataset.from_tensors((1, "a")).get_single_element(),
            catch(tf.data.Dataset.range(2).get_single_element),
            catch(tf.data.Dataset.range(0).get_single_element)]


@case
def generator_conversions(tf):
    # TF converts through NumPy when the spec's shape is fully defined, by tensor conversion otherwise
    out = []
    for value, dtype in ((1.7, tf.int32), (2**40, tf.int32), (True, tf.int32), (1, tf.string), (1.7, tf.float32),
                         (np.float32(1.5), tf.float64), ("s", tf.string), (b"b", tf.string)):
        for shape in (None, ()):
            ds = tf.data.Dataset.from_generator(lambda v=value: iter([v]),
                                                output_signature=tf.TensorSpec(shape, dtype))
            got = catch(list, ds)
            out.append(_first_line(got) if hasattr(got, "type") else got)
    return out


@case
def generator_structure_mismatch(tf):
    sig = (tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.int32))
    return [_first_line(catch(list, tf.data.Dataset.from_generator(lambda v=v: iter([v]), output_signature=sig)))
            for v in (1, (1, 2, 3))] + [
        _first_line(catch(list, tf.data.Dataset.from_generator(lambda: iter([[1, 2]]),
                                                               output_types=(tf.int32, tf.int32))))]


@case
def range_bounds(tf):
    return [catch(tf.data.Dataset.range, 0.5, 3), _show(tf, tf.data.Dataset.range(-3)),
            _show(tf, tf.data.Dataset.range(2.0, np.int64(4)))]


@case
def cardinality_of_infinite_inputs(tf):
    inf = tf.data.Dataset.range(3).repeat()
    return [int(inf.enumerate().cardinality()), int(inf.filter(lambda x: x > 0).cardinality()),
            int(inf.unique().cardinality()), int(inf.batch(2).unbatch().cardinality()),
            int(tf.data.Dataset.zip((inf, tf.data.Dataset.range(5))).cardinality()),
            int(tf.data.Dataset.zip((inf, inf)).cardinality()), int(inf.take(4).cardinality()),
            int(inf.skip(4).cardinality()), int(inf.batch(2).cardinality()), int(inf.shard(2, 1).cardinality()),
            int(inf.window(2).cardinality()), int(tf.data.Dataset.range(3).enumerate().cardinality())]

"""tf.data combinators beyond golden cases: sample_from_datasets' weights and seeds (values are not TF's bits),
ignore_errors going on after a failed element, get_next_as_optional, interleave of value-dependent datasets."""

from __future__ import annotations

import pytest

import tapeflow as tf


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def _sampled(seed=None, weights=(0.8, 0.2), n=2000):
    a = tf.data.Dataset.from_tensors(0).repeat(n)
    b = tf.data.Dataset.from_tensors(1).repeat(n)
    return [int(x) for x in tf.data.Dataset.sample_from_datasets([a, b], weights=list(weights), seed=seed).take(n)]


def test_sample_from_datasets_follows_weights():
    share = sum(_sampled(seed=1)) / 2000
    assert abs(share - 0.2) < 6 * (0.2 * 0.8 / 2000) ** 0.5


def test_sample_from_datasets_seeds():
    assert _sampled(seed=3) == _sampled(seed=3) and _sampled(seed=3) != _sampled(seed=4)
    tf.random.set_seed(9)
    first = _sampled()
    tf.random.set_seed(9)
    assert _sampled() == first


def test_sample_from_datasets_skips_exhausted_datasets():
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20)
    out = [int(x) for x in tf.data.Dataset.sample_from_datasets([a, b], seed=1)]
    assert sorted(out) == [0, 1, 2] + list(range(10, 20))
    assert [v for v in out if v < 10] == [0, 1, 2]  # each input keeps its order


def test_sample_from_datasets_stops_on_empty():
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20)
    out = [int(x) for x in tf.data.Dataset.sample_from_datasets([a, b], seed=1, stop_on_empty_dataset=True)]
    assert len(out) < 13 and out.count(0) + out.count(1) + out.count(2) <= 3


def test_ignore_errors_goes_on_after_a_failed_element():
    ds = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, 0.0, 4.0])
    safe = ds.map(lambda x: tf.debugging.check_numerics(1.0 / x, "inf")).ignore_errors()
    assert [float(v) for v in safe] == [1.0, 0.5, 0.25]
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(ds.map(lambda x: tf.debugging.check_numerics(1.0 / x, "inf")))


def test_ignore_errors_through_filter_and_map():
    ds = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, -1.0])
    checked = ds.map(lambda x: tf.debugging.check_numerics(tf.math.log(x), "log"))
    kept = checked.filter(lambda y: y >= 0.0).map(lambda y: y * 2.0).ignore_errors()
    assert len([float(v) for v in kept]) == 2


def test_ignore_errors_does_not_hide_python_errors():
    def bad(x):
        if int(x) == 1:
            raise KeyError("a bug, not a data error")
        return x

    with pytest.raises(KeyError):
        list(tf.data.Dataset.range(3).map(bad).ignore_errors())


def test_get_next_as_optional():
    it = iter(tf.data.Dataset.from_tensor_slices(([1], ["a"])))
    opt = it.get_next_as_optional()
    assert bool(opt.has_value()) and [v.numpy() for v in opt.get_value()] == [1, b"a"]
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        empty.get_value()


def test_interleave_of_value_dependent_datasets():
    ds = tf.data.Dataset.range(1, 4).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=3)
    assert [int(v) for v in ds] == [0, 0, 0, 1, 1, 2]


def test_sample_from_datasets_epochs():
    # TF 2.21: the same order every iteration unless rerandomize_each_iteration=True, with or without a seed
    a, b = tf.data.Dataset.range(0, 10), tf.data.Dataset.range(100, 110)

    def epochs(ds):
        return [int(x) for x in ds], [int(x) for x in ds]

    first, second = epochs(tf.data.Dataset.sample_from_datasets([a, b], seed=1))
    assert first == second
    first, second = epochs(tf.data.Dataset.sample_from_datasets([a, b]))
    assert first == second
    first, second = epochs(tf.data.Dataset.sample_from_datasets([a, b], seed=1, rerandomize_each_iteration=True))
    assert first != second and sorted(first) == sorted(second)

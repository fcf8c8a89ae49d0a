"""``tf.config`` beyond the golden cases: the BLAS thread count set through ``threadpoolctl`` (and put back), the
``threads`` extra named when it is missing."""

import sys

import numpy as np
import pytest
import threadpoolctl

import tapeflow as tf


def _blas_threads():
    return {info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}


def test_intra_op_threads_set_the_blas_pool_and_zero_puts_it_back():
    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # (BLAS loaded)
    before = _blas_threads()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert _blas_threads() == {1} and tf.config.threading.get_intra_op_parallelism_threads() == 1
    tf.config.threading.set_intra_op_parallelism_threads(0)
    assert _blas_threads() == before and tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_a_missing_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    with pytest.raises(ImportError, match=r"pip install 'tapeflow\[threads\]'"):
        tf.config.threading.set_intra_op_parallelism_threads(2)


def test_is_gpu_available_logs_tf_s_deprecation_once(caplog, monkeypatch):
    from tapeflow._core import logs

    monkeypatch.setattr(logs, "_counts", {})  # (as in a fresh process)
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert tf.test.is_gpu_available() is False
        assert tf.test.is_gpu_available() is False
    lines = [r.getMessage() for r in caplog.records if "is_gpu_available" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].startswith(f"From {__file__}:") and "list_physical_devices('GPU')" in lines[0]


def test_logical_cpus_are_made_before_the_devices_are_first_listed():
    # What TF 2.21 gives in a new process (its runtime starts when the devices are first listed or an op runs).
    from tapeflow import config

    config._reset_logical_devices()
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
        assert tf.config.get_logical_device_configuration(cpu) == [tf.config.LogicalDeviceConfiguration()] * 3
        assert [d.name for d in tf.config.list_logical_devices("CPU")] == ["/device:CPU:0", "/device:CPU:1",
                                                                           "/device:CPU:2"]
        with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being initialized"):
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    finally:
        config._reset_logical_devices()

"""Damaged checkpoint and weights files: every one raises an error TF programs catch, and nothing changes.

Every byte of a small checkpoint is flipped (two ways) and the file is cut at every length: restoring either gives
exactly the saved values or raises ``DataLossError``, and never changes a variable. Crafted files (a malformed
index, members that disagree with it, object arrays, ZIP bombs) are refused before their data is allocated.
"""

import io
import json
import pickle
import random
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

import tapeflow as tf

SAVED = {"a": np.array([1.0, 2.0, 3.0], np.float32), "b": np.int64(7), "c": np.array([[0.5, -0.25]])}
SENTINEL = {"a": np.array([-1.0, -1.0, -1.0], np.float32), "b": np.int64(-1), "c": np.array([[-1.0, -1.0]])}
_KEY = "{}/.ATTRIBUTES/VARIABLE_VALUE"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("ck") / "ck")
    tf.train.Checkpoint(**{k: tf.Variable(v) for k, v in SAVED.items()}).write(prefix)
    with open(prefix + ".npz", "rb") as f:
        return prefix, f.read()


@pytest.fixture(scope="module")
def targets():
    variables = {k: tf.Variable(v) for k, v in SENTINEL.items()}
    return variables, tf.train.Checkpoint(**variables)


@pytest.fixture(autouse=True)
def no_unpickling(monkeypatch):
    """Nothing in a load path may unpickle: make it fail loudly if anything tries."""
    def refuse(*args, **kwargs):
        raise AssertionError("a load path tried to unpickle")
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)


def _outcome(prefix, targets):
    """``"ok"`` if restoring ``prefix`` gave exactly the saved values, else the DataLossError raised; in both cases
    the variables end as the saved values or untouched."""
    variables, ckpt = targets
    for k, v in variables.items():
        v.assign(SENTINEL[k])
    try:
        ckpt.read(prefix)
    except tf.errors.OpError as exc:
        assert isinstance(exc, tf.errors.DataLossError), exc
        assert prefix in str(exc) and "pickle" not in str(exc)
        for k, v in variables.items():
            np.testing.assert_array_equal(v.numpy(), SENTINEL[k])
        return exc
    for k, v in variables.items():
        np.testing.assert_array_equal(v.numpy(), SAVED[k])
        assert v.numpy().dtype == np.asarray(SAVED[k]).dtype
    return "ok"


def _write(prefix, data):
    with open(prefix + ".npz", "wb") as f:
        f.write(data)


@pytest.mark.parametrize("mask", [0x01, 0xFF])
def test_every_flipped_byte_raises_data_loss_or_restores_exactly(saved, targets, mask):
    prefix, data = saved
    errors = 0
    for i in range(len(data)):
        damaged = bytearray(data)
        damaged[i] ^= mask
        _write(prefix, bytes(damaged))
        errors += _outcome(prefix, targets) != "ok"
    _write(prefix, data)
    # The values, the index and the names are all covered by checksums; only bytes ZIP readers ignore (version
    # fields, timestamps, the duplicated local CRC) can change without an error.
    assert errors > 0.8 * len(data)


def test_every_truncation_raises_data_loss(saved, targets):
    prefix, data = saved
    for n in range(len(data)):
        _write(prefix, data[:n])
        assert _outcome(prefix, targets) != "ok", n
    _write(prefix, data)
    assert _outcome(prefix, targets) == "ok"


def test_random_bytes_and_foreign_archives_raise_data_loss(saved, targets, tmp_path):
    prefix, data = saved
    rng = random.Random(5)
    for size in (0, 1, 4, 22, 100, len(data), 10_000):
        _write(prefix, bytes(rng.getrandbits(8) for _ in range(size)))
        assert _outcome(prefix, targets) != "ok"
    _write(prefix, b"\0" * len(data))
    assert _outcome(prefix, targets) != "ok"
    buffer = io.BytesIO()
    np.savez(buffer, a=SAVED["a"])  # a valid NumPy archive, but not a checkpoint
    _write(prefix, buffer.getvalue())
    assert "no index.json" in str(_outcome(prefix, targets))
    _write(prefix, data)


def test_missing_file_is_not_found(tmp_path, targets):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        targets[1].read(str(tmp_path / "nothing"))


# --- crafted archives ---------------------------------------------------------------------------------------------
def _npy(array, **kwargs):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), **kwargs)
    return buffer.getvalue()


def _index(**overrides):
    entries = {_KEY.format(k): {"dtype": np.asarray(v).dtype.name, "shape": list(np.shape(v)), "full_name": k}
               for k, v in SAVED.items()}
    index = {"format": "tapeflow-checkpoint", "version": 1, "entries": entries}
    index.update(overrides)
    return index


def _members(index=None, **replace):
    """The members of a good checkpoint, as ``{name: bytes}``, with ``replace`` (by short key) swapped in."""
    members = {"index.json": json.dumps(_index() if index is None else index).encode()}
    for k, v in SAVED.items():
        members[_KEY.format(k) + ".npy"] = replace.get(k, _npy(v))
    return members


def _archive(members, compress=()):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED)
    return buffer.getvalue()


def _entry(key, **fields):
    index = _index()
    index["entries"][_KEY.format(key)].update(fields)
    return index


def _object_array():
    return _npy(np.array([1, "x", None], dtype=object), allow_pickle=True)


CRAFTED = {
    "index not JSON": lambda: _archive({**_members(), "index.json": b"{not json"}),
    "index not an object": lambda: _archive({**_members(), "index.json": b"[1, 2]"}),
    "index of another format": lambda: _archive(_members(_index(format="other"))),
    "newer format version": lambda: _archive(_members(_index(version=2))),
    "entries not a record": lambda: _archive(_members(_index(entries=[1]))),
    "entry not a record": lambda: _archive(_members(_index(entries={_KEY.format("a"): 3}))),
    "negative dimension": lambda: _archive(_members(_entry("a", shape=[-3]))),
    "boolean dimension": lambda: _archive(_members(_entry("a", shape=[True]))),
    "shape not a list": lambda: _archive(_members(_entry("a", shape="3"))),
    "object dtype in index": lambda: _archive(_members(_entry("a", dtype="object"))),
    "structured dtype in index": lambda: _archive(_members(_entry("a", dtype="V12"))),
    "unknown dtype in index": lambda: _archive(_members(_entry("a", dtype="float33"))),
    "byte-order dtype in index": lambda: _archive(_members(_entry("a", dtype="<f4"))),
    "bad slot record": lambda: _archive(_members(_entry("a", slot={"variable": 1}))),
    "index shape disagrees": lambda: _archive(_members(_entry("a", shape=[4]))),
    "index dtype disagrees": lambda: _archive(_members(_entry("a", dtype="float64"))),
    "huge index shape": lambda: _archive(_members(_entry("a", shape=[2**31, 2**31]))),
    "missing member": lambda: _archive({k: v for k, v in _members().items() if not k.startswith("c/")}),
    "member shape disagrees": lambda: _archive(_members(a=_npy(np.zeros(4, np.float32)))),
    "member dtype disagrees": lambda: _archive(_members(a=_npy(np.zeros(3, np.float64)))),
    "object array member": lambda: _archive(_members(_entry("a", dtype="float32"), a=_object_array())),
    "member shorter than its header": lambda: _archive(_members(a=_npy(SAVED["a"])[:-4])),
    "member longer than its header": lambda: _archive(_members(a=_npy(SAVED["a"]) + b"\0\0\0\0")),
    "member header huge": lambda: _archive(_members(a=_npy(SAVED["a"])[:8] + b"\xff\xff" + b" " * 70000)),
    "member of npy version 3": lambda: _archive(_members(a=_npy(SAVED["a"], version=(3, 0)))),
    "member not npy": lambda: _archive(_members(a=b"hello world, not an array")),
    "compressed member": lambda: _archive(_members(), compress={_KEY.format("a") + ".npy"}),
    "compressed index": lambda: _archive(_members(), compress={"index.json"}),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_crafted_archives_raise_data_loss_and_change_nothing(saved, targets, name):
    prefix, data = saved
    _write(prefix, CRAFTED[name]())
    try:
        assert _outcome(prefix, targets) != "ok"
    finally:
        _write(prefix, data)


def test_crafted_but_valid_archives_restore(saved, targets):
    prefix, data = saved
    try:
        # Members in Fortran order, big-endian values and an extra member are still the saved values.
        fortran = _npy(np.asfortranarray(SAVED["c"]))
        big_endian = _npy(SAVED["a"].astype(">f4"))
        _write(prefix, _archive({**_members(a=big_endian, c=fortran), "notes.txt": b"hello"}))
        assert _outcome(prefix, targets) == "ok"
    finally:
        _write(prefix, data)


def _bomb_archive(size):
    """A checkpoint whose member ``a`` is deflated and inflates to ``size`` bytes, every size declared honestly."""
    n = size // 4
    members = _members(_entry("a", shape=[n]))
    del members[_KEY.format("a") + ".npy"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        info = zipfile.ZipInfo(_KEY.format("a") + ".npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, {"descr": "<f4", "fortran_order": False, "shape": (n,)})
            zeros = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                member.write(zeros)
    return buffer.getvalue()


def _declared_huge(member):
    """A good checkpoint whose central directory says ``member`` holds 4 GB."""
    data = bytearray(_archive(_members()))
    end = data.rfind(b"PK\x05\x06")
    at = struct.unpack_from("<I", data, end + 16)[0]  # where the central directory starts
    while True:
        name_length, extra, comment = struct.unpack_from("<HHH", data, at + 28)
        if data[at + 46:at + 46 + name_length].decode() == member:
            struct.pack_into("<II", data, at + 20, 0xFFFFFFF0, 0xFFFFFFF0)  # compressed and uncompressed sizes
            return bytes(data)
        at += 46 + name_length + extra + comment


@pytest.mark.parametrize("kind", ["deflate bomb", "declared 4 GB member", "declared 4 GB index"])
def test_zip_bombs_are_refused_before_they_allocate(saved, targets, kind):
    prefix, data = saved
    crafted = {"deflate bomb": lambda: _bomb_archive(32 << 20),
               "declared 4 GB member": lambda: _declared_huge(_KEY.format("b") + ".npy"),
               "declared 4 GB index": lambda: _declared_huge("index.json")}[kind]()
    assert len(crafted) < 200_000
    _write(prefix, crafted)
    try:
        tracemalloc.start()
        outcome = _outcome(prefix, targets)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        _write(prefix, data)
    assert outcome != "ok"
    assert peak < 4 << 20, peak


# --- Keras weights files -----------------------------------------------------------------------------------------
def _model(value=None):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
    model(np.ones((1, 4), np.float32))
    if value is not None:
        model.set_weights([np.full(w.shape, value, np.float32) for w in model.get_weights()])
    return model


def _weights_outcome(path, model):
    """``"ok"`` if loading ``path`` gave values, else the error; on an error the weights are unchanged (all 0.0).
    (HDF5 keeps no checksums, so a flipped byte inside a value loads as another value, as in Keras.)"""
    model.set_weights([np.zeros_like(w) for w in model.get_weights()])
    try:
        model.load_weights(path)
    except (tf.errors.DataLossError, ValueError, OSError, KeyError) as exc:
        assert "pickle" not in str(exc)
        assert all(not w.any() for w in model.get_weights())
        return exc
    return "ok"


def test_every_flipped_byte_of_a_weights_file_raises_cleanly_or_loads(tmp_path):
    pytest.importorskip("h5py")
    path = str(tmp_path / "m.weights.h5")
    _model(1.0).save_weights(path)
    with open(path, "rb") as f:
        data = f.read()
    model = _model()
    for i in range(0, len(data), 3):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        with open(path, "wb") as f:
            f.write(damaged)
        _weights_outcome(path, model)
    for n in range(0, len(data), 97):
        with open(path, "wb") as f:
            f.write(data[:n])
        outcome = _weights_outcome(path, model)
        assert outcome != "ok" and str(path) in str(outcome)


def _weights_file(path, third):
    """A weights file of ``_model(1.0)`` (Keras's HDF5 layout) whose third array is ``third``."""
    h5py = pytest.importorskip("h5py")
    weights = _model(1.0).get_weights()
    weights[2] = third
    with h5py.File(path, "w") as f:
        f.create_group("vars")
        for group, values in (("layers/dense", weights[:2]), ("layers/dense_1", weights[2:])):
            vars_ = f.create_group(f"{group}/vars")
            for i, value in enumerate(values):
                vars_[str(i)] = value


@pytest.mark.parametrize("third,words", [
    (np.ones((2, 3), np.float32), "variable.shape=(3, 2), Received: value.shape=(2, 3)"),
    (np.ones(6, np.float32), "variable.shape=(3, 2), Received: value.shape=(6,)"),
    (np.full((3, 2), b"x"), "Cannot load a value of dtype bytes8"),
    (np.ones((3, 2), np.complex64), "Cannot load a value of dtype complex64"),
])
def test_a_wrong_third_weight_changes_nothing(tmp_path, third, words):
    path = str(tmp_path / "m.weights.h5")
    _weights_file(path, third)
    model = _model(0.0)
    with pytest.raises((ValueError, tf.errors.DataLossError)) as info:
        model.load_weights(path)
    assert words in str(info.value) and path in str(info.value)
    assert all(not w.any() for w in model.get_weights())


def test_weights_of_another_numeric_dtype_are_cast_as_keras_does(tmp_path):
    path = str(tmp_path / "m.weights.h5")
    _weights_file(path, np.ones((3, 2), np.int32))
    model = _model(0.0)
    model.load_weights(path)
    assert all((w == 1.0).all() and w.dtype == np.float32 for w in model.get_weights())


def test_files_that_are_not_hdf5_are_refused_naming_them(tmp_path):
    pytest.importorskip("h5py")
    path = str(tmp_path / "m.weights.h5")
    for content in (b"PK\x03\x04" + b"\0" * 100, b"", b"\x89HDF\r\n\x1a\n" + b"\0" * 100):
        with open(path, "wb") as f:
            f.write(content)
        model = _model(0.0)
        with pytest.raises(OSError, match="m.weights.h5") as info:
            model.load_weights(path)
        assert isinstance(info.value, tf.errors.DataLossError)
        assert all(not w.any() for w in model.get_weights())


def test_restore_with_a_mismatched_third_variable_changes_nothing(tmp_path):
    path = tf.train.Checkpoint(**{k: tf.Variable(v) for k, v in SAVED.items()}).write(str(tmp_path / "ck"))
    for wrong in (tf.Variable(np.zeros((2, 2))), tf.Variable(np.zeros((1, 2), np.float32))):
        a, b = tf.Variable(SENTINEL["a"]), tf.Variable(SENTINEL["b"])
        with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
            tf.train.Checkpoint(a=a, b=b, c=wrong).read(path)
        np.testing.assert_array_equal(a.numpy(), SENTINEL["a"])
        assert int(b.numpy()) == -1 and not wrong.numpy().any()

"""The shared trace pipeline (golden/workloads/trace_builder.py): cache files, weights,
calibration, tile sampling and recording, and the layers of a tiled trace; expected values
computed directly from the arrays here."""

import json
import os
import platform
import subprocess
import sys
import zlib

import numpy as np
import pytest

from termwise.golden.work import layer_precision
from termwise.golden.workloads import trace_builder as tb


def test_trace_files_round_trip_and_leave_no_temporaries(tmp_path):
    files = tb.trace_files("net-8b-v1", str(tmp_path))
    assert files.npz == str(tmp_path / "net-8b-v1.npz") and not files.exists()
    arrays = {"act0": np.arange(6, dtype=np.int16).reshape(2, 3)}
    assert files.save(arrays, {"bits": 8, "layers": [{"name": "c"}]}) == files
    assert files.exists() and sorted(os.listdir(tmp_path)) == ["net-8b-v1.json",
                                                                "net-8b-v1.npz"]
    meta, got = files.load()
    assert meta == {"bits": 8, "layers": [{"name": "c"}]}
    assert got["act0"].dtype == np.int16 and np.array_equal(got["act0"], arrays["act0"])
    npz, js = files                       # still a pair
    assert json.load(open(js))["bits"] == 8


#: A process that builds a trace in ``sys.argv[1]``: 0 when built, the error's text when
#: refused (the build writes the two files, so "nothing written" is checkable).
_BUILD = """import sys
{first}
from termwise.gen.errors import ConfigError
from termwise.golden.workloads import trace_builder as tb
files = tb.trace_files("net-8b-v1", sys.argv[1])
try:
    tb.load_or_build(files, lambda: files.save({{"act0": numpy.zeros(2)}}, {{}}), "test")
    print("built")
except ConfigError as err:
    print(err)
"""


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="the kernel is pinned on x86-64 only")
@pytest.mark.parametrize("first, env, expect", [
    ("import numpy, termwise", None, "OPENBLAS_CORETYPE: the test trace is computed"),
    ("import termwise, numpy", None, "built"),                       # pinned by termwise
    ("import numpy, termwise", "Haswell", "built"),                  # the user's choice
])
def test_a_trace_is_built_only_under_a_chosen_blas_kernel(tmp_path, first, env, expect):
    e = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if env:
        e["OPENBLAS_CORETYPE"] = env
    out = subprocess.run([sys.executable, "-c", _BUILD.format(first=first), str(tmp_path)],
                         env=e, capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.startswith(expect), out.stdout + out.stderr
    assert sorted(os.listdir(tmp_path)) == ([] if expect != "built" else
                                            ["net-8b-v1.json", "net-8b-v1.npz"])


def test_trace_files_default_to_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(tmp_path))
    assert tb.trace_files("x").js == str(tmp_path / "x.json")


def test_load_or_build_builds_once(tmp_path):
    files = tb.trace_files("t", str(tmp_path))
    calls, said = [], []

    def build():
        calls.append(1)
        return files.save({"a": np.ones(2)}, {"k": 1})
    for _ in range(2):
        meta, arrays = tb.load_or_build(files, build, "toy 8-bit", said.append)
        assert meta == {"k": 1} and arrays["a"].tolist() == [1.0, 1.0]
    assert calls == [1] and said == [f"building the toy 8-bit trace (cached in {files.npz})"]


def test_weights_round_trip(tmp_path):
    path = str(tmp_path / "sub" / "w.npz")
    assert tb.load_weights(path) is None
    tb.save_weights(path, {"w0": np.float32([[1.5]])}, {"seed": 3})
    params, info = tb.load_weights(path)
    assert info == {"seed": 3} and params["w0"].dtype == np.float32
    assert os.listdir(tmp_path / "sub") == ["w.npz"]


def test_calibration_keeps_the_largest_magnitude():
    cal = tb.Calibration(2)
    cal(0, np.array([0.5, -3.0]))
    cal(1, np.array([2.0]), "state")          # extra forward-pass state is ignored
    cal(0, np.array([1.0]))
    assert cal.amax == [3.0, 2.0]


def test_tile_sampler_positions_and_halo():
    s = tb.TileSampler(3, 2, 4)
    org = s.origins("photo:conv2", 10, 12)
    rng = np.random.default_rng(zlib.crc32(b"photo:conv2"))
    ys, xs = rng.integers(0, 9, 3), rng.integers(0, 9, 3)
    assert org == list(zip(ys.tolist(), xs.tolist()))
    q = np.arange(2 * 10 * 12).reshape(1, 2, 10, 12) + 1
    tiles = s.cut(q, [(0, 0), (8, 8)])
    assert tiles[0].shape == (2, 4, 6)
    assert (tiles[0][:, 0] == 0).all() and (tiles[0][:, :, 0] == 0).all()   # border halo
    assert np.array_equal(tiles[0][:, 1:, 1:], q[0, :, 0:3, 0:5])
    assert np.array_equal(tiles[1][:, :3, :5], q[0, :, 7:10, 7:12])
    assert (tiles[1][:, 3] == 0).all()


def test_tiled_recorder_over_two_frames():
    rec = tb.TiledRecorder(1, 8, tb.TileSampler(2, 2, 2))
    a = np.zeros((1, 1, 5, 5), np.int64)
    a[0, 0, 2, 2] = 100
    b = np.full((1, 1, 5, 5), -3, np.int64)
    rec.record(0, a, "a:conv1")
    rec.record(0, b, "b:conv1")
    arr = rec.act_array(0)
    assert arr.dtype == np.int16 and arr.shape == (4, 1, 4, 4)
    stats = rec.stats(0)
    assert stats["act_precision"] == max(layer_precision(a, 8, True),
                                         layer_precision(b, 8, True)) == 8
    assert stats["act_zero_fraction_full"] == pytest.approx((24 / 25 + 0.0) / 2)
    assert rec.origins[0] == [tb.TileSampler(2, 2, 2).origins(k, 5, 5)
                              for k in ("a:conv1", "b:conv1")]
    assert tb.code_dtype(16) == np.int16 and tb.code_dtype(20) == np.int32


def test_conv_layers_from_arrays():
    arrays = {"act0": np.ones((3, 2, 4, 4), np.int16), "wgt0": np.ones((5, 2, 3, 3), np.int16)}
    meta = {"bits": 8, "layers": [{"name": "conv1", "act_precision": 2, "wgt_precision": 1}]}
    layers = tb.conv_layers(arrays, meta)
    assert layers[0].act.dtype == np.int64 and layers[0].out_hw == (2, 2)
    assert layers[0].padding == 0 and layers[0].wgt_precision == 1
    assert tb.conv_layers(arrays, meta, tiles=1)[0].act.shape[0] == 1

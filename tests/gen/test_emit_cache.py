"""The emission cache (gen/emit.py:rendered): the Verilog and manifest render would give,
read back without rendering; any source edit, another configuration or a damaged entry
renders again; two processes filling one cold cache agree."""

import json
import os
import subprocess
import sys

import termwise.gen.emit as emit
import termwise.gen.results.keys as keys
from termwise.gen.config import preset


def _no_render(cfg):
    raise AssertionError("rendered again")


def test_a_hit_is_what_render_gives(tmp_path, monkeypatch):
    cfg = preset("stripes-4x4")
    text, tile = emit.render(cfg)
    want = (text, emit.manifest(cfg, text, tile))
    assert emit.rendered(cfg, str(tmp_path)) == want            # rendered, kept
    monkeypatch.setattr(emit, "render", _no_render)
    assert emit.rendered(cfg, str(tmp_path)) == want            # read back
    assert len(os.listdir(tmp_path)) == 1


def test_what_renders_again(tmp_path, monkeypatch):
    cfg = preset("baseline-4x4")
    emit.rendered(cfg, str(tmp_path))
    calls = []
    real = emit.render
    monkeypatch.setattr(emit, "render", lambda c: calls.append(c) or real(c))
    emit.rendered(cfg.replace(depth=32), str(tmp_path))         # another configuration
    assert len(calls) == 1
    (entry,) = [e for e in os.listdir(tmp_path)
                if json.load(open(tmp_path / e / "manifest.json"))["config"]["depth"] == 64]
    (tmp_path / entry / "verilog.v.gz").write_bytes(b"not gzip")  # a damaged entry
    text, man = emit.rendered(cfg, str(tmp_path))
    assert len(calls) == 2 and man["verilog"]["sha256"] == emit.manifest(
        cfg, *real(cfg))["verilog"]["sha256"]
    monkeypatch.setattr(keys, "tree_sha", lambda packages: "edited")   # a source edit
    emit.rendered(cfg, str(tmp_path))
    assert len(calls) == 3


RENDER = ("import sys; from termwise.gen.config import preset; "
          "from termwise.gen.emit import rendered; "
          "print(rendered(preset('baseline-4x4'), sys.argv[1])[1]['verilog']['sha256'])")


def test_two_processes_on_one_cold_cache(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", RENDER, str(tmp_path / "cache")],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    shas = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert shas[0] == shas[1] and len(shas[0]) == 64
    entries = os.listdir(tmp_path / "cache")
    assert len(entries) == 1 and not entries[0].startswith(".")

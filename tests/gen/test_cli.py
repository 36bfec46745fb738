"""The `termwise gen` command: outputs, determinism and one-line errors."""

import json
import os
import subprocess
import sys

import pytest

TERMWISE = [sys.executable, "-m", "termwise.gen.cli"]


def _run(*args):
    return subprocess.run(TERMWISE + list(args), capture_output=True, text=True)


def test_gen_writes_verilog_and_manifest_deterministically(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r1 = _run("gen", "--preset", "stripes-4x4", "-o", str(a))
    r2 = _run("gen", "--arch", "stripes", "--filters", "4", "--windows", "8", "--lanes", "4",
              "--act-bits", "8", "--wgt-bits", "8", "--depth", "64", "-o", str(b))
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    man = json.loads((a / "manifest.json").read_text())
    verilog = (a / man["verilog"]["file"]).read_bytes()
    assert verilog == (b / man["verilog"]["file"]).read_bytes()
    import hashlib
    assert hashlib.sha256(verilog).hexdigest() == man["verilog"]["sha256"]
    assert man["config"]["arch"] == "stripes" and man["derived"]["pes"] == 32
    names = {p["name"]: p for p in man["ports"]}
    assert names["act__payload"]["width"] == man["derived"]["act_row_bits"] == 8 * 4 * 8
    assert names["out__payload"]["width"] == 4 * man["config"]["acc_bits"]
    assert "amaranth" in man["tools"]
    # One PE module, instantiated 32 times.
    text = verilog.decode()
    assert text.count(f"module {man['top']}__pe(") == 1
    assert text.count(f"{man['top']}__pe pe_f") == 32


def test_gen_from_config_file(tmp_path):
    cfgfile = tmp_path / "tile.toml"
    cfgfile.write_text('arch = "baseline"\nfilters = 2\nwindows = 1\nlanes = 2\n'
                       'act_bits = 4\nwgt_bits = 4\ndepth = 4\n')
    r = _run("gen", "--config", str(cfgfile), "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    man = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert man["config"]["filters"] == 2 and man["config"]["depth"] == 4
    # Activation signedness is no configuration field: it is a one-bit runtime register of
    # every integer tile, a field of the command.
    assert "act_signed" not in man["config"]
    assert man["command_layout"]["act_signed"]["width"] == 1


def test_config_file_with_act_signed_is_refused(tmp_path):
    """``act_signed`` became a runtime register: a configuration that still sets it is
    refused (exit 2, one line naming the field), nothing written."""
    cfgfile = tmp_path / "tile.toml"
    cfgfile.write_text('arch = "baseline"\nfilters = 2\nwindows = 1\nlanes = 2\n'
                       'act_bits = 4\nwgt_bits = 4\nact_signed = false\ndepth = 4\n')
    r = _run("gen", "--config", str(cfgfile), "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "act_signed: is a runtime register" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args,fragment", [
    (["--arch", "stripes", "--filters", "4", "--windows", "4", "--lanes", "0",
      "--act-bits", "8", "--wgt-bits", "8"], "lanes: must be in 1..64, got 0"),
    (["--arch", "nope", "--filters", "4", "--windows", "4", "--lanes", "4",
      "--act-bits", "8", "--wgt-bits", "8"], "arch: must be one of"),
    (["--preset", "stripes-4x4", "--act-bits", "33"], "act_bits: must be in 1..32"),
    (["--preset", "missing"], "preset: unknown preset"),
    (["--arch", "stripes", "--filters", "4"], "is required with --arch"),
    (["--filters", "4"], "choose exactly one of"),
    (["--preset", "stripes-4x4", "--bogus", "1"], "unrecognized arguments"),
])
def test_gen_errors_are_one_line_exit_2_and_write_nothing(tmp_path, args, fragment):
    out = tmp_path / "out"
    r = _run("gen", *args, "-o", str(out))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr
    assert fragment in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("content,fragment", [
    ('arch = "baseline"\nfilters = \n', "toml: "),
    ('arch = "baseline"\nfilters = 2\nwindows = 1\nlanes = 2\nact_bits = 4\nwgt_bits = 4\n'
     'colour = "red"\n', "colour: unknown field"),
])
def test_bad_config_files(tmp_path, content, fragment):
    f = tmp_path / "bad.toml"
    f.write_text(content)
    r = _run("gen", "--config", str(f), "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and fragment in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()
    r = _run("gen", "--config", str(tmp_path / "absent.toml"), "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "config: cannot read" in r.stderr


def test_dtype_bf16_implies_its_widths(tmp_path):
    """`--dtype bf16` alone sets 16-bit operands and fp32 accumulators: the tile is the
    baseline-bf16-4x4 preset's, byte for byte; a contradicting width is still refused."""
    a, b = tmp_path / "a", tmp_path / "b"
    r1 = _run("gen", "--preset", "baseline-4x4", "--dtype", "bf16", "-o", str(a))
    r2 = _run("gen", "--preset", "baseline-bf16-4x4", "-o", str(b))
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    man = json.loads((a / "manifest.json").read_text())
    assert (man["config"]["act_bits"], man["config"]["wgt_bits"], man["config"]["acc_bits"]) \
        == (16, 16, 32)
    assert man["verilog"]["sha256"] == \
        json.loads((b / "manifest.json").read_text())["verilog"]["sha256"]
    r3 = _run("gen", "--arch", "baseline", "--dtype", "bf16", "--filters", "2", "--windows", "1",
              "--lanes", "3", "-o", str(tmp_path / "c"))
    assert r3.returncode == 0, r3.stderr
    r4 = _run("gen", "--arch", "baseline", "--dtype", "bf16", "--filters", "2", "--windows",
              "1", "--lanes", "3", "--act-bits", "8", "-o", str(tmp_path / "d"))
    assert r4.returncode == 2 and "dtype: bf16 needs act_bits = wgt_bits = 16" in r4.stderr
    assert not (tmp_path / "d").exists()

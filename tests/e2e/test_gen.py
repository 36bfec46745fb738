"""`termwise gen` end to end: Verilog, manifest.json and FuseSoC core for the smallest tile;
bad input refused (the core under fusesoc: test_gen_core.py)."""

import hashlib
import os

from termwise_e2e import SMALLEST_TILE, assert_usage_error, load_json, ok

FIELDS = {"arch": "baseline", "filters": 1, "windows": 1, "lanes": 2, "act_bits": 4,
          "wgt_bits": 4, "depth": 4}


def test_gen_writes_verilog_and_manifest(termwise, tmp_path):
    r = ok(termwise("gen", *SMALLEST_TILE, "-o", "out"))
    man = load_json(tmp_path / "out" / "manifest.json")
    for key, value in FIELDS.items():
        assert man["config"][key] == value, (key, man["config"])
    # Activation signedness is each run's one-bit act_signed command field, not a field
    # of the configuration.
    assert "act_signed" not in man["config"]
    assert man["command_layout"]["act_signed"]["width"] == 1
    assert man["derived"]["pes"] == 1                     # filters x windows
    verilog = tmp_path / "out" / man["verilog"]["file"]
    assert verilog.name == f"{man['top']}.v"
    data = verilog.read_bytes()
    assert man["verilog"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert man["verilog"]["bytes"] == len(data)
    assert f"module {man['top']}(" in data.decode()
    assert {"clk", "rst"} <= {p["name"] for p in man["ports"]}
    top = man["top"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        ["manifest.json", verilog.name, f"{top}.core", f"{top}_waivers.vlt",
         f"{top}_smoke_tb.sv"])
    assert man["verilog"]["sha256"][:12] in r.stdout and "manifest.json" in r.stdout
    assert f"{top}.core" in r.stdout
    # the outputs are the user's files: a new file's mode (0666 less the umask termwise ran
    # under, this process's), not mkstemp's owner-only 0600
    umask = os.umask(0o022)
    os.umask(umask)
    assert all((p.stat().st_mode & 0o777) == 0o666 & ~umask
               for p in (tmp_path / "out").iterdir())

    # The same fields from a config file give byte-identical Verilog.
    (tmp_path / "tile.toml").write_text(
        "".join(f'{k} = "{v}"\n' if isinstance(v, str) else f"{k} = {v}\n"
                for k, v in FIELDS.items()))
    ok(termwise("gen", "--config", "tile.toml", "-o", "again"))
    assert (tmp_path / "again" / verilog.name).read_bytes() == data


def test_gen_bad_input(termwise, tmp_path):
    r = termwise("gen", *SMALLEST_TILE[:-2], "--lanes", "0", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "lanes: must be in 1..64, got 0")


def test_gen_refuses_act_signed_in_a_config_file(termwise, tmp_path):
    """``act_signed`` is a runtime register now: a config file that still sets it is refused
    with a one-line error naming the field."""
    (tmp_path / "tile.toml").write_text(
        "".join(f'{k} = "{v}"\n' if isinstance(v, str) else f"{k} = {v}\n"
                for k, v in FIELDS.items()) + "act_signed = false\n")
    r = termwise("gen", "--config", "tile.toml", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "act_signed: is a runtime register")

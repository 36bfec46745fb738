"""`termwise sim` end to end on digits-cnn, one image, baseline + Stripes: sim.json/csv/md and
the plots; cycles checked against the network's shapes; bad input refused."""

import csv
import io
from math import ceil

from termwise_e2e import assert_png, assert_usage_error, load_json, ok, wrote_paths

# digits-cnn (c8k3-c16k3s2-fc10) on 8x8x1 digits, padding 1: per layer, the output windows,
# the im2col row length (channels x 3 x 3, or fc inputs) and the filters.
LAYERS = {"conv1": (8 * 8, 1 * 9, 8), "conv2": (4 * 4, 8 * 9, 16), "fc": (1, 256, 10)}


def _steps(windows, k, filters, tile_windows):
    """Steps of a 16-filter x 16-lane tile processing ``tile_windows`` windows at once."""
    return ceil(windows / tile_windows) * ceil(k / 16) * ceil(filters / 16)


def test_sim_digits_cnn(termwise, tmp_path):
    r = ok(termwise("sim", "--workload", "digits-cnn", "--designs", "stripes", "--images", "1",
                    "-o", "out"))
    doc = load_json(tmp_path / "out" / "sim.json")
    assert doc["workload"].startswith("digits-cnn") and doc["precision"] == 16
    assert set(doc["designs"]) == {"baseline", "stripes"}
    assert doc["designs"]["baseline"]["preset"] == "baseline-16x16"
    assert doc["designs"]["stripes"]["preset"] == "stripes-16x16"
    assert [l["name"] for l in doc["layers"]] == list(LAYERS)
    for layer in doc["layers"]:
        windows, k, filters = LAYERS[layer["name"]]
        assert layer["macs"] == windows * k * filters
        base, stripes = layer["designs"]["baseline"], layer["designs"]["stripes"]
        # Bit-parallel baseline: one 16x16 brick pair per cycle, one window at a time.
        assert base["cycles"] == _steps(windows, k, filters, 1)
        # Stripes: 16 windows at once, one activation bit per cycle at the layer's precision.
        p = stripes["rt"]["precision"]
        assert p == layer["stats"]["profile_act_precision"] and 1 <= p <= 16
        assert stripes["cycles"] == _steps(windows, k, filters, 16) * p
    total = doc["total"]
    assert doc["macs"] == sum(w * k * f for w, k, f in LAYERS.values())
    assert total["baseline"]["speedup"] == 1.0
    assert total["baseline"]["cycles"] == sum(l["designs"]["baseline"]["cycles"]
                                              for l in doc["layers"])
    assert total["stripes"]["speedup"] == total["baseline"]["cycles"] / total["stripes"]["cycles"]

    paths = wrote_paths(r.stderr)
    names = {p.split("/")[-1] for p in paths}
    assert {"sim.json", "sim.csv", "sim.md"} <= names
    pngs = [p for p in paths if p.endswith(".png")]
    assert pngs and all(p.split("/")[-1].startswith("sim_") for p in pngs)
    for p in paths:
        assert (tmp_path / p).is_file(), p
    for p in pngs:
        assert_png(tmp_path / p)
    rows = {row["layer"]: row for row in csv.DictReader(
        io.StringIO((tmp_path / "out" / "sim.csv").read_text()))}
    assert int(rows["TOTAL"]["baseline_cycles"]) == total["baseline"]["cycles"]
    assert int(rows["TOTAL"]["stripes_cycles"]) == total["stripes"]["cycles"]
    md = (tmp_path / "out" / "sim.md").read_text()
    assert "digits-cnn" in md and f"| stripes | {total['stripes']['cycles']} |" in md
    line = next(l for l in r.stdout.splitlines() if l.startswith("baseline"))
    assert "speedup   1.00x" in line


def test_sim_bad_input(termwise, tmp_path):
    for args, fragment in ((["--designs", "nope"], "must be 'all' or a comma list"),
                           (["--designs", "stripes", "--precision", "12"], "precision: must be 8 or 16"),
                           (["--designs", "stripes", "--images", "0"], "images: must be a positive")):
        r = termwise("sim", "--workload", "digits-cnn", *args, "-o", "out")
        assert_usage_error(r, tmp_path / "out", fragment)
